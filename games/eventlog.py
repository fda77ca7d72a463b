"""The only code that writes events, and the one fold that turns them into state.

Event types and their payloads (the seat is on the event, not in the payload):
    match_created   {options, first_dealer, hints_allowed, turn_seconds}
    seat_taken      {seat, kind, user_id, username, level}
    seat_left       {seat, level}                     a person left; a computer plays on
    seat_timed_out  {seat, level, seconds}            turn timer: a computer plays for them
    seat_returned   {seat}                            ...until they take the seat back
    match_started   {}
    hand_dealt      {hand, dealer, upcard, commitment, deck, salt}   deck/salt secret
    bid             {action}      pass, order_up, call, defend_alone
    discard         {action}      the card is seen by the dealer alone
    card_played     {action}
    trick_won       {seat, trick}
    hand_scored     {hand, team, points, result, makers, makers_tricks, scores}
    hand_thrown_in  {hand}
    hand_revealed   {hand, deck, salt, commitment}
    match_finished  {winner, scores}
    match_abandoned {scores}       no person sits at the match any more; nothing follows
"""

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from games import engine as E
from games.models import Event, Match

ACTION_EVENT_TYPES = {
    "pass": "bid",
    "order_up": "bid",
    "call": "bid",
    "defend_alone": "bid",
    "discard": "discard",
    "play": "card_played",
}
OUTCOME_EVENT_TYPES = ("trick_won", "hand_scored", "hand_thrown_in", "match_finished")
NO_ENGINE_EFFECT = (
    "seat_taken",
    "seat_left",
    "seat_timed_out",
    "seat_returned",
    "match_started",
    "hand_revealed",
)
# Every event type, in the order they are listed above.
EVENT_TYPES = (
    "match_created",
    "seat_taken",
    "seat_left",
    "seat_timed_out",
    "seat_returned",
    "match_started",
    "hand_dealt",
    "bid",
    "discard",
    "card_played",
    "trick_won",
    "hand_scored",
    "hand_thrown_in",
    "hand_revealed",
    "match_finished",
    "match_abandoned",
)


@dataclass(frozen=True)
class NewEvent:
    type: str
    seat: int | None = None
    payload: dict[str, Any] | None = None


class LogError(Exception):
    """A log that does not replay: the index of the first bad event and why."""

    def __init__(self, index: int, code: str, message: str) -> None:
        super().__init__(f"event {index}: {code}: {message}")
        self.index = index
        self.code = code
        self.message = message


def action_event(seat: int, action: E.Action) -> NewEvent:
    return NewEvent(ACTION_EVENT_TYPES[action.type], seat, {"action": action.to_dict()})


def outcome_events(outcomes: Iterable[dict[str, Any]]) -> list[NewEvent]:
    return [
        NewEvent(o["type"], None, {k: v for k, v in o.items() if k != "type"}) for o in outcomes
    ]


def append(match: Match, new_events: list[NewEvent]) -> list[Event]:
    """Append events after the match's newest one. The caller holds the match row lock;
    the unique (match, seq) constraint refuses a second writer all the same."""
    rows = [
        Event(match=match, seq=match.seq + i, type=e.type, seat=e.seat, payload=e.payload or {})
        for i, e in enumerate(new_events, start=1)
    ]
    Event.objects.bulk_create(rows)
    match.seq += len(rows)
    return rows


# ---------------------------------------------------------------- the fold


class Replayer:
    """Feeds events, in order, through the rules engine, checking every derived event."""

    def __init__(self) -> None:
        self.state: E.MatchState | None = None
        self.commitment: str | None = None  # of the newest deal
        self.pending: list[dict[str, Any]] = []
        self.index = 0
        self.abandoned = False

    def feed(self, type_: str, seat: int | None, payload: dict[str, Any]) -> None:
        try:
            self._feed(type_, seat, payload)
        except E.RuleError as exc:
            raise LogError(self.index, exc.code, exc.message) from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise LogError(self.index, "malformed_event", f"{type_}: {exc!r}") from exc
        self.index += 1

    def _feed(self, type_: str, seat: int | None, payload: dict[str, Any]) -> None:
        if type_ == "match_created":
            if self.state is not None:
                raise LogError(self.index, "duplicate_match_created", "the match is created twice")
            self.state = E.MatchState(
                E.Options.from_dict(payload["options"]), payload["first_dealer"]
            )
            return
        if self.state is None:
            raise LogError(self.index, "no_match_created", "the log must start with match_created")
        if self.abandoned:
            raise LogError(self.index, "event_after_abandoned", f"{type_} after match_abandoned")
        if type_ == "match_abandoned":
            self.abandoned = True
            return
        if type_ in NO_ENGINE_EFFECT:
            return
        if type_ in OUTCOME_EVENT_TYPES:
            expected = self.pending.pop(0) if self.pending else None
            if expected != {"type": type_, **payload}:
                raise LogError(
                    self.index,
                    "derived_event_mismatch",
                    f"the log says {type_} {payload}, the rules say {expected}",
                )
            return
        if self.pending:
            raise LogError(self.index, "missing_derived_event", f"expected {self.pending[0]}")
        if type_ == "hand_dealt":
            self.state.deal([E.parse_card(c) for c in payload["deck"]])
            self.commitment = payload["commitment"]
            return
        if type_ in ("bid", "discard", "card_played"):
            action = E.action_from_dict(payload["action"])
            if ACTION_EVENT_TYPES[action.type] != type_:
                raise LogError(self.index, "wrong_event_type", f"{action.type} logged as {type_}")
            self.pending = list(self.state.apply_action(seat, action))
            return
        raise LogError(self.index, "unknown_event_type", f"unknown event type {type_!r}")


def fold(events: Iterable[Event]) -> E.MatchState:
    replayer = Replayer()
    for event in events:
        replayer.feed(event.type, event.seat, event.payload)
    return replayer.state


# A per-process cache of committed states, so an action folds only the events
# since the last one this process saw. Entries are put in on commit only, and
# events are never changed, so a cached (seq, state) pair stays true.
_CACHE_SIZE = 512
_cache: "OrderedDict[Any, tuple[int, E.MatchState, str | None]]" = OrderedDict()


@dataclass
class Folded:
    state: E.MatchState  # a copy the caller owns
    commitment: str | None  # the commitment to the newest deal


def load(match: Match) -> Folded:
    """The state after the match's newest event, `match.seq`."""
    replayer = Replayer()
    cached = _cache.get(match.pk)
    seq = 0
    if cached is not None and cached[0] <= match.seq:
        seq, state, replayer.commitment = cached
        replayer.state, replayer.index = state.clone(), seq
    if seq < match.seq:
        # Only up to match.seq: events committed after the row was read belong to a later view.
        events = Event.objects.filter(match=match, seq__gt=seq, seq__lte=match.seq)
        for event in events.order_by("seq"):
            replayer.feed(event.type, event.seat, event.payload)
    return Folded(replayer.state, replayer.commitment)


def remember_on_commit(match: Match, folded: Folded) -> None:
    entry = (match.seq, folded.state.clone(), folded.commitment)

    def remember() -> None:
        _cache[match.pk] = entry
        _cache.move_to_end(match.pk)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)

    transaction.on_commit(remember)
