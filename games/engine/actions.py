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
    {"type": "name_suit", "suit": "H"}        the dealer names the suit of a joker upcard
    {"type": "farm", "card": "9C"}            a farmer's hand: one of the three cards put out
    {"type": "redeal"}                        no ace, no face, no trump: throw the hand in
"""

from typing import Any, NamedTuple

from .cards import (
    CARD_TEXT,
    CARDS,
    SUIT_LETTERS,
    SUITS,
    card_str,
    check_card,
    check_suit,
    parse_card,
    parse_suit,
    suit_str,
)
from .errors import RuleError, shown

PASS, ORDER_UP, CALL, DISCARD, DEFEND_ALONE, PLAY = (
    "pass",
    "order_up",
    "call",
    "discard",
    "defend_alone",
    "play",
)
# The variants' actions (options joker, farmers_hand, no_ace_no_face_no_trump).
NAME_SUIT, FARM, REDEAL = "name_suit", "farm", "redeal"
ACTION_TYPES = (PASS, ORDER_UP, CALL, DISCARD, DEFEND_ALONE, PLAY, NAME_SUIT, FARM, REDEAL)


class Action(NamedTuple):
    type: str
    card: int | None = None
    suit: int | None = None
    alone: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; RuleError('invalid_card' / 'invalid_suit') for an Action
        built by hand with a field that is not a card or a suit."""
        out: dict[str, Any] = {"type": self.type}
        if self.card is not None:
            out["card"] = card_str(self.card)
        if self.suit is not None:
            out["suit"] = suit_str(self.suit)
        if self.type in (ORDER_UP, CALL):
            out["alone"] = self.alone
        return out

    def __str__(self) -> str:
        # str() never raises: a field that is not a card or a suit is shown by its kind.
        card, suit = self.card, self.suit
        parts = [self.type if type(self.type) is str else shown(self.type)]
        if card is not None:
            parts.append(CARD_TEXT[card] if type(card) is int and 0 <= card < 25 else shown(card))
        if suit is not None:
            parts.append(SUIT_LETTERS[suit] if type(suit) is int and 0 <= suit < 4 else shown(suit))
        if self.alone is True:
            parts.append("alone")
        return " ".join(parts)


PASS_ACTION = Action(PASS)
DEFEND_ALONE_ACTION = Action(DEFEND_ALONE)
ORDER_UP_ACTIONS = (Action(ORDER_UP), Action(ORDER_UP, alone=True))
CALL_ACTIONS = tuple((Action(CALL, suit=s), Action(CALL, suit=s, alone=True)) for s in SUITS)
DISCARD_ACTIONS = tuple(Action(DISCARD, card=c) for c in CARDS)
PLAY_ACTIONS = tuple(Action(PLAY, card=c) for c in CARDS)
NAME_SUIT_ACTIONS = tuple(Action(NAME_SUIT, suit=s) for s in SUITS)
FARM_ACTIONS = tuple(Action(FARM, card=c) for c in CARDS)
REDEAL_ACTION = Action(REDEAL)

# The fields each type of action takes besides its type (the API's schema is made from it).
ACTION_FIELDS: dict[str, set[str]] = {
    PASS: set(),
    ORDER_UP: {"alone"},
    CALL: {"suit", "alone"},
    DISCARD: {"card"},
    DEFEND_ALONE: set(),
    PLAY: {"card"},
    NAME_SUIT: {"suit"},
    FARM: {"card"},
    REDEAL: set(),
}


def _check_alone(alone: object) -> bool:
    if type(alone) is not bool:
        raise RuleError("invalid_action", "'alone' must be true or false.")
    return alone


def order_up(alone: bool = False) -> Action:
    return ORDER_UP_ACTIONS[_check_alone(alone)]


def call(suit: int, alone: bool = False) -> Action:
    return CALL_ACTIONS[check_suit(suit)][_check_alone(alone)]


def discard(c: int) -> Action:
    return DISCARD_ACTIONS[check_card(c)]


def play(c: int) -> Action:
    return PLAY_ACTIONS[check_card(c)]


def name_suit(suit: int) -> Action:
    return NAME_SUIT_ACTIONS[check_suit(suit)]


def farm(c: int) -> Action:
    return FARM_ACTIONS[check_card(c)]


def action_from_dict(data: object) -> Action:
    """Parse the JSON form; RuleError('invalid_action' / 'invalid_card' / ...) if malformed."""
    if not isinstance(data, dict):
        raise RuleError("invalid_action", "An action must be a JSON object with a 'type'.")
    if not all(type(key) is str for key in data):  # JSON keys are text; sorting needs them so
        raise RuleError("invalid_action", "An action's field names are text.")
    kind = data.get("type")
    if type(kind) is not str or kind not in ACTION_FIELDS:
        raise RuleError(
            "invalid_action",
            f"Unknown action type {shown(kind)}: use one of {', '.join(ACTION_TYPES)}.",
        )
    extra = sorted(set(data) - ACTION_FIELDS[kind] - {"type"})
    if extra:
        names = ", ".join(k if len(k) <= 20 else shown(k) for k in extra[:5])
        raise RuleError("invalid_action", f"A {kind} action takes no field {names}.")
    alone = data.get("alone", False)
    if type(alone) is not bool:
        raise RuleError("invalid_action", "'alone' must be true or false.")
    if kind == PASS:
        return PASS_ACTION
    if kind == DEFEND_ALONE:
        return DEFEND_ALONE_ACTION
    if kind == REDEAL:
        return REDEAL_ACTION
    if kind == ORDER_UP:
        return order_up(alone)
    if kind in (CALL, NAME_SUIT):
        if "suit" not in data:
            what = "A call" if kind == CALL else "Naming the joker's suit"
            raise RuleError("invalid_action", f"{what} names a suit: C, D, H or S.")
        if kind == NAME_SUIT:
            return name_suit(parse_suit(data["suit"]))
        return call(parse_suit(data["suit"]), alone)
    if "card" not in data:
        raise RuleError("invalid_action", f"A {kind} action names a card, as in 'JH'.")
    c = parse_card(data["card"])
    if kind == FARM:
        return farm(c)
    return discard(c) if kind == DISCARD else play(c)
