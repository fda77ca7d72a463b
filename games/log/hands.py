"""The log cut into hands: one read model for the replay API and the admin's hand pages.

A hand's events run from its hand_dealt to the event before the next deal (so they
include the reveal of its deck, and a match_abandoned that ended it); the events
before the first deal are the match's setup.
"""

from dataclasses import dataclass, field
from typing import Any

from games import engine as E
from games.log import events as V
from games.log.eventlog import LogError, Replayer, events_of
from games.models import Event, Match


@dataclass(frozen=True)
class HandSlice:
    number: Any  # the hand_dealt payload's "hand" (as logged)
    start: int  # the index of its hand_dealt in the whole log
    end: int  # the index after its last event
    events: list[Event]

    @property
    def dealt(self) -> dict[str, Any]:
        return self.events[0].payload

    @property
    def revealed(self) -> bool:
        """Its hand_revealed is logged: its deck, salt and cards may be shown."""
        return any(e.type == V.HAND_REVEALED for e in self.events)


@dataclass(frozen=True)
class LogByHand:
    events: list[Event]  # the whole log, in seq order
    setup: list[Event]  # before the first deal
    hands: list[HandSlice] = field(default_factory=list)

    def hand(self, number: int) -> HandSlice | None:
        return next((h for h in self.hands if h.number == number), None)

    def numbers(self) -> set[Any]:
        return {h.number for h in self.hands}


def cut(events: list[Event]) -> LogByHand:
    deals = [i for i, e in enumerate(events) if e.type == V.HAND_DEALT]
    ends = [*deals[1:], len(events)]
    hands = [
        HandSlice(events[start].payload.get("hand"), start, end, events[start:end])
        for start, end in zip(deals, ends, strict=True)
    ]
    return LogByHand(events, events[: deals[0]] if deals else list(events), hands)


def log_by_hand(match: Match) -> LogByHand:
    return cut(events_of(match))


@dataclass(frozen=True)
class HandReplay:
    view: dict[str, Any] | None  # the engine's full view of the hand before its last event
    problem: dict[str, Any] | None  # the first event up to the hand's end that does not replay


def replay_hand(log: LogByHand, hand: HandSlice) -> HandReplay:
    """Replay the log up to the end of the hand; the engine's view of the hand as it
    stood before its last event (after it, the table is cleared for the next deal)."""
    replayer = Replayer()
    view = None
    for index, event in enumerate(log.events[: hand.end]):
        try:
            replayer.feed(event.type, event.seat, event.payload)
        except LogError as exc:
            problem = {
                "index": index,
                "seq": event.seq,
                "type": event.type,
                "code": exc.code,
                "message": exc.message,
            }
            return HandReplay(view, problem)
        if index >= hand.start:
            seen = E.full_view(replayer.state)["hand"]
            if seen is not None:
                view = seen
    return HandReplay(view, None)
