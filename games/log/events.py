"""The event vocabulary: every type of event in a match's log, its payload, and what
each seat may see of it. The one place an event type is spelled.

Event types and their payloads (the seat is on the event, not in the payload):
    match_created   {options, first_dealer, hints_allowed, turn_seconds, visibility?,
                     rematch_of?}
    seat_taken      {seat, kind, user_id, username, level}
    seat_left       {seat, level}                     a person left; a computer plays on
    seat_vacated    {seat}                            left before the start: the seat is open
    seat_timed_out  {seat, level, seconds}            turn timer: a computer plays for them
    seat_returned   {seat}                            ...until they take the seat back
    match_started   {}
    hand_dealt      {hand, dealer, upcard, commitment, deck, salt, dealer_names_suit?}
                                  deck/salt secret; dealer_names_suit: the dealer sees no
                                  cards until it has named a joker upcard's suit
    bid             {action, cards?}   pass, order_up, call, defend_alone; name_suit, redeal;
                                  a name_suit's cards: the dealer's, seen by the dealer alone
    discard         {action}      the card is seen by the dealer alone
    farm_exchange   {action}      a farmer's card put out (farm): seen by the farmer alone
    card_played     {action}
    trick_won       {seat, trick}
    hand_scored     {hand, team, points, result, makers, makers_tricks, scores}
    hand_thrown_in  {hand, reason?, seat?, cards?}   reason etc.: a called redeal, or a
                                  farmer's hand asking for a new deal
    hand_revealed   {hand, deck, salt, commitment}
    match_finished  {winner, scores}
    match_abandoned {scores}       no person sits at the match any more; nothing follows

Each type is an `EventType` in `REGISTRY`: its name, its payload as a TypedDict (the
field types are machine-readable: `payload_fields(name)`), the payload a seat may see
before the match is finished where that differs (`seen`), and the rule that cuts it
(`redact`). `redact(event, seat, finished)` is the one gate every outbound path goes
through: once the match is finished everything is shown; before that, a type with no
definition shows no payload (fail closed). Build events with the constructors here
(`hand_dealt(...)`, `action(seat, action)`, ...) and compare types with the constants.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NotRequired, Protocol, TypedDict, get_type_hints

from games.engine import ACTION_DISCARD as DISCARD_ACTION
from games.engine import ACTION_PLAY as PLAY
from games.engine import ACTION_TYPES, HAND_SCORED, HAND_THROWN_IN, MATCH_FINISHED, TRICK_WON
from games.engine import FARM as FARM_ACTION
from games.log.deal_view import seat_cards

MATCH_CREATED = "match_created"
SEAT_TAKEN = "seat_taken"
SEAT_LEFT = "seat_left"
SEAT_VACATED = "seat_vacated"
SEAT_TIMED_OUT = "seat_timed_out"
SEAT_RETURNED = "seat_returned"
MATCH_STARTED = "match_started"
HAND_DEALT = "hand_dealt"
BID = "bid"
DISCARD = "discard"
FARM = "farm_exchange"  # the farmers_hand option: a card a farmer puts out, face down
CARD_PLAYED = "card_played"
HAND_REVEALED = "hand_revealed"
MATCH_ABANDONED = "match_abandoned"


# ---------------------------------------------------------------- payloads


class MatchCreated(TypedDict):
    options: dict[str, Any]
    first_dealer: int
    hints_allowed: bool
    turn_seconds: int | None
    visibility: NotRequired[str]  # a models.Visibility; absent in older logs: private
    rematch_of: NotRequired[str]  # the finished match this one is the rematch of


class SeatTaken(TypedDict):
    seat: int
    kind: str  # a SeatKind: human or computer
    user_id: int | None
    username: str | None
    level: str | None


class SeatLeft(TypedDict):
    seat: int
    level: str


class SeatVacated(TypedDict):
    seat: int


class SeatTimedOut(TypedDict):
    seat: int
    level: str
    seconds: int | None


class SeatReturned(TypedDict):
    seat: int


class Empty(TypedDict):
    pass


class HandDealt(TypedDict):
    hand: int
    dealer: int
    upcard: str
    commitment: str  # sha256 of "<salt>:<deck>" (games.log.fairness)
    deck: list[str]
    salt: str
    # True when the joker is turned up and the dealer names its suit before looking at
    # their hand (option joker_upcard "dealer_names"); absent otherwise, and in logs
    # written before the dealer's cards came with the naming.
    dealer_names_suit: NotRequired[bool]


class HandDealtSeen(TypedDict):
    """hand_dealt before the match is over: no deck or salt; a seat gets its own cards."""

    hand: int
    dealer: int
    upcard: str
    commitment: str
    dealer_names_suit: NotRequired[bool]
    cards: NotRequired[list[str]]  # absent for a spectator; [] for a dealer still to name
    cards_hidden: NotRequired[bool]  # the dealer's, until the naming's bid brings them


class ActionDict(TypedDict):
    """The engine's Action.to_dict()."""

    type: str  # one of the engine's ACTION_TYPES
    card: NotRequired[str]  # discard, play, farm ("9C")
    suit: NotRequired[str]  # call, name_suit ("H")
    alone: NotRequired[bool]  # order_up, call


class ActionPayload(TypedDict):
    action: ActionDict  # for a discard others see only {"type": "discard"}


class BidPayload(TypedDict):
    action: ActionDict
    # name_suit after a hand_dealt with dealer_names_suit: the dealer's five cards (as
    # its hand_dealt would have shown them), seen by the dealer alone before the match
    # is over. The one moment the dealer learns its hand.
    cards: NotRequired[list[str]]


class TrickWon(TypedDict):
    seat: int
    trick: int


class HandScored(TypedDict):
    hand: int
    team: int
    points: int
    result: str
    makers: int
    makers_tricks: int
    scores: list[int]


class HandThrownIn(TypedDict):
    hand: int
    # A called redeal (option no_ace_no_face_no_trump), or a farmer's hand asking for a new
    # deal (farmers_hand_form "redeal"): why (the engine's REDEAL_REASON or
    # FARM_REDEAL_REASON), who, and the hand that let it.
    reason: NotRequired[str]
    seat: NotRequired[int]
    cards: NotRequired[list[str]]


class HandRevealed(TypedDict):
    hand: int
    deck: list[str]
    salt: str
    commitment: str


class MatchFinished(TypedDict):
    winner: int
    scores: list[int]


class MatchAbandoned(TypedDict):
    scores: list[int]


# ---------------------------------------------------------------- redaction rules

# The viewer who sits at no seat: a person watching a public match. Every rule below
# takes it as the viewer's seat and shows it only what is public to the whole table
# (no cards of a deal, no discard); there is no other path for spectators.
SPECTATOR = None

# A rule: (payload, the event's seat, the viewer's seat or SPECTATOR) -> what the viewer
# may see of the payload while the match is not finished.
Rule = Callable[[Mapping[str, Any], int | None, int | None], dict[str, Any]]


def shown_to_all(payload: Mapping[str, Any], event_seat: int | None, seat: int | None) -> dict:
    return dict(payload)


def deal_seen(payload: Mapping[str, Any], event_seat: int | None, seat: int | None) -> dict:
    """The deck and salt stay secret until the match is over; a seat sees its own cards,
    except a dealer who must name a joker upcard's suit before looking at them: those come
    with the naming (bid_seen)."""
    seen = {k: v for k, v in payload.items() if k not in ("deck", "salt")}
    if seat is SPECTATOR:
        return seen
    if payload.get("dealer_names_suit") and seat == payload["dealer"]:
        seen["cards"] = []
        seen["cards_hidden"] = True
    else:
        seen["cards"] = seat_cards(payload["deck"], payload["dealer"], seat)
    return seen


def bid_seen(payload: Mapping[str, Any], event_seat: int | None, seat: int | None) -> dict:
    """A bid is public; the cards a dealer picks up with naming a joker upcard's suit are
    seen by that dealer alone."""
    if "cards" in payload and (seat is SPECTATOR or seat != event_seat):
        return {k: v for k, v in payload.items() if k != "cards"}
    return dict(payload)


def discard_seen(payload: Mapping[str, Any], event_seat: int | None, seat: int | None) -> dict:
    """The card the dealer buried is seen by the dealer alone (never by a spectator)."""
    if seat is not SPECTATOR and seat == event_seat:
        return dict(payload)
    return {"action": {"type": DISCARD_ACTION}}


def farm_seen(payload: Mapping[str, Any], event_seat: int | None, seat: int | None) -> dict:
    """A farmer's card put out goes face down: seen by the farmer alone."""
    if seat == event_seat:
        return dict(payload)
    return {"action": {"type": FARM_ACTION}}


# ---------------------------------------------------------------- the registry


@dataclass(frozen=True)
class EventType:
    name: str
    payload: type  # a TypedDict: the payload as logged
    redact: Rule  # what a seat may see before the match is finished
    doc: str  # a line for docs/architecture.md
    seen: type | None = None  # a TypedDict when what a seat may see differs in shape


REGISTRY: dict[str, EventType] = {
    e.name: e
    for e in (
        EventType(MATCH_CREATED, MatchCreated, shown_to_all, "the match and its rules"),
        EventType(SEAT_TAKEN, SeatTaken, shown_to_all, "a person or a computer sits down"),
        EventType(SEAT_LEFT, SeatLeft, shown_to_all, "a person left; a computer plays on"),
        EventType(
            SEAT_VACATED, SeatVacated, shown_to_all, "left before the start: the seat is open"
        ),
        EventType(SEAT_TIMED_OUT, SeatTimedOut, shown_to_all, "turn timer: a computer plays"),
        EventType(SEAT_RETURNED, SeatReturned, shown_to_all, "...until they take it back"),
        EventType(MATCH_STARTED, Empty, shown_to_all, "every seat is taken"),
        EventType(
            HAND_DEALT,
            HandDealt,
            deal_seen,
            "deck and salt kept secret until `hand_revealed`; each seat sees its cards (a"
            " dealer to name a joker upcard's suit: with its naming bid)",
            seen=HandDealtSeen,
        ),
        EventType(
            BID,
            BidPayload,
            bid_seen,
            "pass, order_up, call, defend_alone; the variants' name_suit (with the dealer's"
            " cards, seen by the dealer alone) and redeal (no ace, no face, no trump, or a"
            " farmer's hand asking for a new deal)",
        ),
        EventType(DISCARD, ActionPayload, discard_seen, "the card is seen by the dealer alone"),
        EventType(FARM, ActionPayload, farm_seen, "a farmer's card put out: the farmer sees it"),
        EventType(CARD_PLAYED, ActionPayload, shown_to_all, "a card is played"),
        EventType(TRICK_WON, TrickWon, shown_to_all, "derived by the rules"),
        EventType(HAND_SCORED, HandScored, shown_to_all, "derived by the rules"),
        EventType(
            HAND_THROWN_IN,
            HandThrownIn,
            shown_to_all,
            "everyone passed twice, or a redeal called (reason, seat, cards): no ace, no face,"
            " no trump, or a farmer's hand asking for a new deal",
        ),
        EventType(HAND_REVEALED, HandRevealed, shown_to_all, "the ended hand's deck and salt"),
        EventType(MATCH_FINISHED, MatchFinished, shown_to_all, "derived by the rules"),
        EventType(MATCH_ABANDONED, MatchAbandoned, shown_to_all, "no person left; nothing follows"),
    )
}

# The types whose payload every seat sees as logged, at any time.
PUBLIC_EVENT_TYPES = frozenset(n for n, e in REGISTRY.items() if e.redact is shown_to_all)

# Every event type, in the order they are listed above.
EVENT_TYPES: tuple[str, ...] = tuple(REGISTRY)

# The event each engine action is logged as.
ACTION_EVENT_TYPES: dict[str, str] = {
    t: (
        CARD_PLAYED
        if t == PLAY
        else DISCARD
        if t == DISCARD_ACTION
        else FARM
        if t == FARM_ACTION
        else BID
    )
    for t in ACTION_TYPES
}
ACTION_EVENTS = frozenset(ACTION_EVENT_TYPES.values())  # bid, discard, farm, card_played
# Derived by the rules (apply_action's outcomes); the replay re-derives and compares them.
OUTCOME_EVENT_TYPES = (TRICK_WON, HAND_SCORED, HAND_THROWN_IN, MATCH_FINISHED)
# The end of a hand: its deck is revealed next, then the next hand is dealt.
HAND_OVER = (HAND_SCORED, HAND_THROWN_IN)
# Logged for the record; the rules state does not change.
NO_ENGINE_EFFECT = (
    SEAT_TAKEN,
    SEAT_LEFT,
    SEAT_VACATED,
    SEAT_TIMED_OUT,
    SEAT_RETURNED,
    MATCH_STARTED,
    HAND_REVEALED,
)


def payload_fields(name: str) -> dict[str, Any]:
    """The payload's field names and their Python types, e.g. {'hand': int, ...}."""
    return get_type_hints(REGISTRY[name].payload)


def describe() -> str:
    """The event list of docs/architecture.md (a test keeps the two the same)."""
    lines = []
    for e in REGISTRY.values():
        fields = ", ".join(e.payload.__annotations__)
        lines.append(f"- `{e.name}` {{{fields}}}: {e.doc}")
    return "\n".join(lines)


# ---------------------------------------------------------------- new events


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended (games.log.eventlog.append numbers it)."""

    type: str
    seat: int | None = None
    payload: dict[str, Any] | None = None


def match_created(
    *,
    options: dict[str, Any],
    first_dealer: int,
    hints_allowed: bool,
    turn_seconds: int | None,
    visibility: str = "private",
    rematch_of: str | None = None,
) -> NewEvent:
    payload = MatchCreated(
        options=options,
        first_dealer=first_dealer,
        hints_allowed=hints_allowed,
        turn_seconds=turn_seconds,
    )
    if visibility != "private":  # a private match's payload stays as it always was
        payload["visibility"] = visibility
    if rematch_of is not None:
        payload["rematch_of"] = rematch_of
    return NewEvent(MATCH_CREATED, None, dict(payload))


def seat_taken(
    *, seat: int, kind: str, user_id: int | None, username: str | None, level: str | None
) -> NewEvent:
    payload = SeatTaken(seat=seat, kind=kind, user_id=user_id, username=username, level=level)
    return NewEvent(SEAT_TAKEN, seat, dict(payload))


def seat_left(*, seat: int, level: str) -> NewEvent:
    return NewEvent(SEAT_LEFT, seat, dict(SeatLeft(seat=seat, level=level)))


def seat_vacated(*, seat: int) -> NewEvent:
    return NewEvent(SEAT_VACATED, seat, dict(SeatVacated(seat=seat)))


def seat_timed_out(*, seat: int, level: str, seconds: int | None) -> NewEvent:
    payload = SeatTimedOut(seat=seat, level=level, seconds=seconds)
    return NewEvent(SEAT_TIMED_OUT, seat, dict(payload))


def seat_returned(*, seat: int) -> NewEvent:
    return NewEvent(SEAT_RETURNED, seat, dict(SeatReturned(seat=seat)))


def match_started() -> NewEvent:
    return NewEvent(MATCH_STARTED)


def hand_dealt(
    *,
    hand: int,
    dealer: int,
    upcard: str,
    commitment: str,
    deck: list[str],
    salt: str,
    dealer_names_suit: bool = False,
) -> NewEvent:
    payload = HandDealt(
        hand=hand, dealer=dealer, upcard=upcard, commitment=commitment, deck=deck, salt=salt
    )
    if dealer_names_suit:  # every other deal's payload stays as it always was
        payload["dealer_names_suit"] = True
    return NewEvent(HAND_DEALT, None, dict(payload))


def hand_revealed(*, hand: int, deck: list[str], salt: str, commitment: str) -> NewEvent:
    payload = HandRevealed(hand=hand, deck=deck, salt=salt, commitment=commitment)
    return NewEvent(HAND_REVEALED, None, dict(payload))


def match_abandoned(*, scores: list[int]) -> NewEvent:
    return NewEvent(MATCH_ABANDONED, None, dict(MatchAbandoned(scores=scores)))


class _Action(Protocol):
    type: str

    def to_dict(self) -> dict[str, Any]: ...


def action(seat: int, chosen: _Action, cards: list[str] | None = None) -> NewEvent:
    """A seat's engine action, as bid, discard, farm_exchange or card_played; `cards`: the
    hand a dealer sees on naming a joker upcard's suit (BidPayload)."""
    payload: dict[str, Any] = {"action": chosen.to_dict()}
    if cards is not None:
        payload["cards"] = cards
    return NewEvent(ACTION_EVENT_TYPES[chosen.type], seat, payload)


def outcomes(derived: Iterable[Mapping[str, Any]]) -> list[NewEvent]:
    """The engine's outcomes ({type, ...}) as events."""
    return [NewEvent(o["type"], None, {k: v for k, v in o.items() if k != "type"}) for o in derived]


# ---------------------------------------------------------------- what a seat may see


class _Logged(Protocol):
    type: str
    seat: int | None
    payload: dict[str, Any]


def redact(event: _Logged, seat: int | None, finished: bool) -> dict[str, Any]:
    """The payload of a logged event as `seat` may see it (SPECTATOR: a spectator). Once the
    match is finished, everything; before that each type's rule, and an unknown type
    (one added to the log and forgotten here) shows nothing."""
    if finished:
        return event.payload
    definition = REGISTRY.get(event.type)
    if definition is None:
        return {}
    return definition.redact(event.payload, event.seat, seat)


class _Row(_Logged, Protocol):
    seq: int
    created_at: datetime


def event_for_seat(event: _Row, seat: int | None, finished: bool) -> dict[str, Any]:
    """One logged event as `seat` may see it (None: a spectator), by `redact`. Once the
    match is finished, everything is shown (not once it is abandoned: the hand being
    played stays secret)."""
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "payload": redact(event, seat, finished),
        "created_at": event.created_at.isoformat(),
    }
