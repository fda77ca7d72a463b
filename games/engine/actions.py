"""Actions a seat can take, and their JSON form.

Every possible action is built once here; legal_actions() hands out these
shared instances, so comparing and collecting them costs nothing.

JSON form (the API and the event log use it):
    {"type": "pass"}
    {"type": "order_up", "alone": false}      round one; by the dealer it is "picking it up"
    {"type": "call", "suit": "S", "alone": false}   round two
    {"type": "discard", "card": "9C"}         the dealer, after the upcard is taken
    {"type": "defend_alone"}                  a defender, with the defending_alone option
    {"type": "play", "card": "JD"}
"""

from typing import Any, NamedTuple

from .cards import DECK, SUITS, card_str, parse_card, parse_suit, suit_str
from .errors import RuleError

PASS, ORDER_UP, CALL, DISCARD, DEFEND_ALONE, PLAY = (
    "pass",
    "order_up",
    "call",
    "discard",
    "defend_alone",
    "play",
)
ACTION_TYPES = (PASS, ORDER_UP, CALL, DISCARD, DEFEND_ALONE, PLAY)


class Action(NamedTuple):
    type: str
    card: int | None = None
    suit: int | None = None
    alone: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.card is not None:
            out["card"] = card_str(self.card)
        if self.suit is not None:
            out["suit"] = suit_str(self.suit)
        if self.type in (ORDER_UP, CALL):
            out["alone"] = self.alone
        return out

    def __str__(self) -> str:
        parts = [self.type]
        if self.card is not None:
            parts.append(card_str(self.card))
        if self.suit is not None:
            parts.append(suit_str(self.suit))
        if self.alone:
            parts.append("alone")
        return " ".join(parts)


PASS_ACTION = Action(PASS)
DEFEND_ALONE_ACTION = Action(DEFEND_ALONE)
ORDER_UP_ACTIONS = (Action(ORDER_UP), Action(ORDER_UP, alone=True))
CALL_ACTIONS = tuple((Action(CALL, suit=s), Action(CALL, suit=s, alone=True)) for s in SUITS)
DISCARD_ACTIONS = tuple(Action(DISCARD, card=c) for c in DECK)
PLAY_ACTIONS = tuple(Action(PLAY, card=c) for c in DECK)

_FIELDS = {
    PASS: set(),
    ORDER_UP: {"alone"},
    CALL: {"suit", "alone"},
    DISCARD: {"card"},
    DEFEND_ALONE: set(),
    PLAY: {"card"},
}


def order_up(alone: bool = False) -> Action:
    return ORDER_UP_ACTIONS[alone]


def call(suit: int, alone: bool = False) -> Action:
    return CALL_ACTIONS[suit][alone]


def discard(c: int) -> Action:
    return DISCARD_ACTIONS[c]


def play(c: int) -> Action:
    return PLAY_ACTIONS[c]


def action_from_dict(data: object) -> Action:
    """Parse the JSON form; RuleError('invalid_action' / 'invalid_card' / ...) if malformed."""
    if not isinstance(data, dict):
        raise RuleError("invalid_action", "An action must be a JSON object with a 'type'.")
    kind = data.get("type")
    if kind not in _FIELDS:
        raise RuleError(
            "invalid_action", f"Unknown action type {kind!r}: use one of {', '.join(ACTION_TYPES)}."
        )
    extra = sorted(set(data) - _FIELDS[kind] - {"type"})
    if extra:
        raise RuleError("invalid_action", f"A {kind} action takes no field {', '.join(extra)}.")
    alone = data.get("alone", False)
    if type(alone) is not bool:
        raise RuleError("invalid_action", "'alone' must be true or false.")
    if kind == PASS:
        return PASS_ACTION
    if kind == DEFEND_ALONE:
        return DEFEND_ALONE_ACTION
    if kind == ORDER_UP:
        return order_up(alone)
    if kind == CALL:
        if "suit" not in data:
            raise RuleError("invalid_action", "A call names a suit: C, D, H or S.")
        return call(parse_suit(data["suit"]), alone)
    if "card" not in data:
        raise RuleError("invalid_action", f"A {kind} action names a card, as in 'JH'.")
    c = parse_card(data["card"])
    return discard(c) if kind == DISCARD else play(c)
