"""A match's log as a portable JSON document, and the check that replays one.

The export is what the log holds, in full (decks and salts included): it is an
operator's audit copy, not a player's view.

    {
      "format": "euchre-match-log", "version": 1, "exported_at": "...",
      "match": {"id", "status", "options", "first_dealer", "hints_allowed",
                "seq", "scores", "winner_team", "created_at", "finished_at"},
      "events": [{"seq", "type", "seat", "payload", "created_at"}, ...]
    }

`check_log` accepts that document (or a bare list of events) and checks, event
by event: the sequence numbers run 1, 2, 3, ... with no gap; every dealt deck
matches the commitment published with it, and every revealed deck is the one
that was dealt; every event replays through the rules engine (games.eventlog's
Replayer, which also re-derives each trick, score and end of match and compares
them with the log); nothing follows a match_abandoned. The first event that fails
is reported with its index in the list, its seq, a stable code and a sentence.
"""

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from games import engine as E
from games import fairness
from games.eventlog import LogError, Replayer
from games.models import Event, Match
from games.selectors import event_for_seat

FORMAT = "euchre-match-log"
VERSION = 1


def export_match_log(match: Match) -> dict[str, Any]:
    events = Event.objects.filter(match=match).order_by("seq")
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


class LogProblem(Exception):
    """The first event that fails the check. `index` is its position in the list
    (0 for the first event; len(events) when something is missing at the end)."""

    def __init__(self, index: int, seq: Any, type_: Any, code: str, message: str) -> None:
        self.index, self.seq, self.type = index, seq, type_
        self.code, self.message = code, message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"event {self.index}"
        if self.seq is not None or self.type is not None:
            where += f" (seq {self.seq}, {self.type})"
        return f"{where}: {self.code}: {self.message}"


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
    raise LogProblem(0, None, None, "malformed_file", "expected an export: {match, events}")


def check_log(document: Any) -> LogSummary:
    """Check a whole log; raise LogProblem at the first event that fails."""
    header, events = events_of(document)
    checker = _Checker(header)
    for index, event in enumerate(events):
        checker.feed(index, event)
    return checker.finish(len(events))


def check_events(events: list[Event]) -> LogSummary:
    """The same check on a match's Event rows (the admin shows it on each match)."""
    checker = _Checker(None)
    for index, event in enumerate(events):
        checker.feed(
            index,
            {"seq": event.seq, "type": event.type, "seat": event.seat, "payload": event.payload},
        )
    return checker.finish(len(events))


class _Bad(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Checker:
    def __init__(self, header: dict[str, Any] | None) -> None:
        self.header = header
        self.replayer = Replayer()
        self.dealt: dict[Any, dict[str, Any]] = {}
        self.unrevealed: Any = None  # the number of a hand that ended and was not yet revealed
        self.hands = 0

    def feed(self, index: int, event: Any) -> None:
        seq = event.get("seq") if isinstance(event, dict) else None
        type_ = event.get("type") if isinstance(event, dict) else None

        def problem(code: str, message: str) -> LogProblem:
            return LogProblem(index, seq, type_, code, message)

        if not isinstance(event, dict) or not {"seq", "type", "payload"} <= set(event):
            raise problem("malformed_event", "an event has a seq, a type, a seat and a payload")
        seat, payload = event.get("seat"), event["payload"]
        if not isinstance(payload, dict) or not (seat is None or type(seat) is int):
            raise problem("malformed_event", "the payload is an object and the seat a number")
        if type(seq) is not int or seq != index + 1:
            raise problem(
                "seq_not_contiguous",
                f"sequence numbers run 1, 2, 3, ... with no gap: expected {index + 1}, "
                f"found {seq!r}",
            )
        try:
            if type_ == "match_created" and self.header is not None:
                self._check_header(payload)
            elif type_ == "hand_dealt":
                self._check_deal(payload)
            elif type_ == "hand_revealed":
                self._check_reveal(payload)
        except _Bad as exc:
            raise problem(exc.code, exc.message) from exc
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise problem("malformed_event", f"{type_}: {exc!r}") from exc
        try:
            self.replayer.feed(type_, seat, payload)
        except LogError as exc:
            raise problem(exc.code, exc.message) from exc
        if type_ == "hand_dealt":
            self._check_deal_agrees(payload, problem)
        elif type_ in ("hand_scored", "hand_thrown_in"):
            self.unrevealed = payload["hand"]

    def _check_deal_agrees(self, payload: dict[str, Any], problem: Any) -> None:
        """The replay deals from the deck alone: the hand number, dealer and upcard
        written beside it must be what the rules make of it."""
        state = self.replayer.state
        derived = {
            "hand": state.hand_number,
            "dealer": state.dealer,
            "upcard": E.card_str(state.upcard),
        }
        for key, value in derived.items():
            if payload.get(key) != value:
                raise problem(
                    "deal_mismatch",
                    f"the log says {key} {payload.get(key)!r}, the rules say {value!r}",
                )

    def _check_header(self, payload: dict[str, Any]) -> None:
        for key in ("options", "first_dealer"):
            if key in self.header and self.header[key] != payload.get(key):
                raise _Bad(
                    "header_mismatch",
                    f"the header says {key} {self.header[key]!r}, "
                    f"the log says {payload.get(key)!r}",
                )

    def _check_deal(self, payload: dict[str, Any]) -> None:
        self._check_revealed_before_next_deal()
        deck, salt, commitment = payload["deck"], payload["salt"], payload["commitment"]
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise TypeError("the deck is a list of cards")
        if not fairness.verify(deck, str(salt), str(commitment)):
            raise _Bad(
                "commitment_mismatch",
                f"hand {payload['hand']}: the deck and salt do not hash to the commitment "
                f"{commitment}",
            )
        self.dealt[payload["hand"]] = payload
        self.hands += 1

    def _check_reveal(self, payload: dict[str, Any]) -> None:
        dealt = self.dealt.get(payload["hand"])
        if dealt is None:
            raise _Bad("reveal_without_deal", f"hand {payload['hand']} was never dealt")
        if not fairness.verify(payload["deck"], payload["salt"], payload["commitment"]):
            raise _Bad(
                "commitment_mismatch",
                f"hand {payload['hand']}: the revealed deck and salt do not hash to the commitment",
            )
        for key in ("deck", "salt", "commitment"):
            if payload[key] != dealt[key]:
                raise _Bad(
                    "reveal_mismatch",
                    f"hand {payload['hand']}: the revealed {key} is not the one dealt",
                )
        if payload["hand"] != self.unrevealed:
            raise _Bad(
                "reveal_out_of_place",
                f"hand {payload['hand']} is revealed, but the hand that just ended is "
                f"{self.unrevealed}: a deck is revealed once, right after its hand ends",
            )
        self.unrevealed = None

    def _check_revealed_before_next_deal(self) -> None:
        if self.unrevealed is not None:
            raise _Bad(
                "missing_reveal",
                f"hand {self.unrevealed} ended but its deck was not revealed before the next deal",
            )

    def finish(self, count: int) -> LogSummary:
        replayer = self.replayer
        if replayer.state is None:
            raise LogProblem(count, None, None, "no_match_created", "the log is empty")
        if replayer.pending:
            raise LogProblem(
                count, None, None, "missing_derived_event", f"expected {replayer.pending[0]}"
            )
        state = replayer.state
        finished = state.phase == E.FINISHED
        if self.unrevealed is not None:
            raise LogProblem(
                count,
                None,
                None,
                "missing_reveal",
                f"hand {self.unrevealed} ended but its deck was never revealed",
            )
        return LogSummary(
            events=count,
            hands=self.hands,
            scores=(state.scores[0], state.scores[1]),
            finished=finished,
            winner=state.winner,
            abandoned=replayer.abandoned,
        )
