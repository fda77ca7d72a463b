"""The one exception type for anything the rules forbid, its kinds, and how a message
quotes input."""

from enum import StrEnum


class RuleKind(StrEnum):
    """What kind of wrong a RuleError is (as python-chess tells an invalid move from an
    illegal one); the service answers each kind with its own HTTP status."""

    # Not a well-formed action, card, suit, seat, option or deck at all, whatever the position.
    MALFORMED = "malformed"
    # A well-formed action from a seat that may not act now (another's turn, sitting out).
    OUT_OF_TURN = "out_of_turn"
    # Well-formed and the seat's turn, but the rules forbid it here: the wrong kind of
    # action for the phase, a card not held, not following suit, ...
    ILLEGAL = "illegal"


# Every code the engine raises, and its kind: the one table (tests/games/http/test_error_codes.py
# checks that every code raised in games/engine is here).
KINDS: dict[str, RuleKind] = {
    "invalid_action": RuleKind.MALFORMED,
    "invalid_card": RuleKind.MALFORMED,
    "invalid_suit": RuleKind.MALFORMED,
    "invalid_seat": RuleKind.MALFORMED,
    "invalid_option": RuleKind.MALFORMED,
    "invalid_deck": RuleKind.MALFORMED,
    "invalid_seed": RuleKind.MALFORMED,
    "invalid_state": RuleKind.MALFORMED,
    "inconsistent_sample": RuleKind.MALFORMED,
    "not_your_turn": RuleKind.OUT_OF_TURN,
    "sitting_out": RuleKind.OUT_OF_TURN,
    "wrong_phase": RuleKind.ILLEGAL,
    "going_alone_disabled": RuleKind.ILLEGAL,
    "dealer_must_call": RuleKind.ILLEGAL,
    "cannot_name_turned_down_suit": RuleKind.ILLEGAL,
    "card_not_in_hand": RuleKind.ILLEGAL,
    "must_follow_suit": RuleKind.ILLEGAL,
    "illegal_action": RuleKind.ILLEGAL,
    "farm_under_way": RuleKind.ILLEGAL,
    "not_a_farmers_card": RuleKind.ILLEGAL,
}


class RuleError(Exception):
    """An action or input the rules do not allow.

    `code` is stable (clients and the API switch on it); `message` is a sentence
    for a person; `kind` (from KINDS) says which kind of wrong it is. Raising one
    never changes the state it was raised from.

    Every public function of the engine either answers or raises a RuleError,
    whatever it is given: a wrong type or an out-of-range number is a RuleError
    too (`invalid_seat`, `invalid_card`, ...), never a TypeError or IndexError.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def kind(self) -> RuleKind:
        """KeyError for a code missing from KINDS: loud, never a guessed status."""
        return KINDS[self.code]

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"


def shown(value: object) -> str:
    """`value` as an error message may quote it: short text and small numbers as
    written, anything else by its kind (a message never carries a megabyte of
    input, and quoting a nested list or a huge int cannot itself fail)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 20 else repr(value[:20] + "…")
    if value is None or type(value) is bool or type(value) is float:
        return repr(value)
    if type(value) is int:
        return repr(value) if value.bit_length() <= 64 else "a very large number"
    return f"a {type(value).__name__}"
