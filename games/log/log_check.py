"""A match's log as a portable JSON document, and the check of a whole log.

The export is what the log holds, in full (decks and salts included): it is an
operator's audit copy, not a player's view.

    {
      "format": "euchre-match-log", "version": 1, "exported_at": "...",
      "match": {"id", "status", "options", "first_dealer", "hints_allowed",
                "seq", "scores", "winner_team", "created_at", "finished_at"},
      "events": [{"seq", "type", "seat", "payload", "created_at"}, ...]
    }

`check_log` accepts that document (or a bare list of events) and `check_events` a
match's Event rows; both check, event by event: the sequence numbers run 1, 2, 3,
... with no gap, the header agrees with match_created, and everything the strict
games.log.eventlog.Replayer checks (every event replayed through the rules engine, every
deck against its commitment, revealed as dealt right after its hand, nothing after
a match_abandoned). The first event that fails raises eventlog.LogError with its
index in the list, its seq and type, a stable code and a sentence.
"""

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games import engine as E
from games.log import eventlog
from games.log import events as V
from games.log.eventlog import LogError, Replayer
from games.log.events import event_for_seat
from games.models import Event, Match

FORMAT = "euchre-match-log"
VERSION = 1


def export_match_log(match: Match) -> dict[str, Any]:
    events = eventlog.events_of(match)
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "match": {
            "id": str(match.id),
            "status": match.status,
            "options": match.options,
            "first_dealer": match.first_dealer,
            "hints_allowed": match.hints_allowed,
            "seq": match.seq,
            "scores": [match.score_ns, match.score_we],
            "winner_team": match.winner_team,
            "created_at": match.created_at.isoformat(),
            "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        },
        # event_for_seat with no seat on a "finished" match: everything, decks included.
        "events": [event_for_seat(e, None, True) for e in events],
    }


@dataclass(frozen=True)
class LogSummary:
    events: int
    hands: int
    scores: tuple[int, int]
    finished: bool
    winner: int | None
    abandoned: bool = False

    def __str__(self) -> str:
        a, b = self.scores
        text = f"OK: {self.events} events, {self.hands} hands, final score {a}-{b}"
        if self.abandoned:
            return text + " (the match was abandoned: no person was left at it)"
        return text if self.finished else text + " (the match is not finished)"


def events_of(document: Any) -> tuple[dict[str, Any] | None, list[Any]]:
    """The header (None for a bare list) and the events of an exported document."""
    if isinstance(document, list):
        return None, document
    if isinstance(document, dict) and isinstance(document.get("events"), list):
        header = document.get("match")
        return header if isinstance(header, dict) else None, document["events"]
    raise LogError(0, "malformed_file", "expected an export: {match, events}")


def check_log(document: Any) -> LogSummary:
    """Check a whole exported log; raise LogError at the first event that fails."""
    header, events = events_of(document)
    replayer = Replayer(strict=True)
    for index, event in enumerate(events):
        _feed(replayer, header, index, event)
    return _summary(replayer, len(events))


def check_events(events: list[Event]) -> LogSummary:
    """The same check on a match's Event rows (the admin shows it on each match)."""
    replayer = Replayer(strict=True)
    for index, event in enumerate(events):
        row = {"seq": event.seq, "type": event.type, "seat": event.seat, "payload": event.payload}
        _feed(replayer, None, index, row)
    return _summary(replayer, len(events))


def _feed(replayer: Replayer, header: dict[str, Any] | None, index: int, event: Any) -> None:
    seq = event.get("seq") if isinstance(event, dict) else None
    type_ = event.get("type") if isinstance(event, dict) else None
    if not isinstance(event, dict) or not {"seq", "type", "payload"} <= set(event):
        raise LogError(
            index, "malformed_event", "an event has a seq, a type, a seat and a payload", seq, type_
        )
    seat, payload = event.get("seat"), event["payload"]
    if not isinstance(payload, dict) or not (seat is None or type(seat) is int):
        raise LogError(
            index, "malformed_event", "the payload is an object and the seat a number", seq, type_
        )
    if type(seq) is not int or seq != index + 1:
        raise LogError(
            index,
            "seq_not_contiguous",
            f"sequence numbers run 1, 2, 3, ... with no gap: expected {index + 1}, found {seq!r}",
            seq,
            type_,
        )
    if type_ == V.MATCH_CREATED and header is not None:
        for key in ("options", "first_dealer"):
            if key in header and header[key] != payload.get(key):
                raise LogError(
                    index,
                    "header_mismatch",
                    f"the header says {key} {header[key]!r}, the log says {payload.get(key)!r}",
                    seq,
                    type_,
                )
    replayer.feed(type_, seat, payload, seq=seq)


def _summary(replayer: Replayer, count: int) -> LogSummary:
    state = replayer.finish()
    return LogSummary(
        events=count,
        hands=replayer.hands,
        scores=(state.scores[0], state.scores[1]),
        finished=state.phase == E.FINISHED,
        winner=state.winner,
        abandoned=replayer.abandoned,
    )
