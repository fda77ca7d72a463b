"""The one exception type for anything the rules forbid, and how a message quotes input."""


class RuleError(Exception):
    """An action or input the rules do not allow.

    `code` is stable (clients and the API switch on it); `message` is a sentence
    for a person. Raising one never changes the state it was raised from.

    Every public function of the engine either answers or raises a RuleError,
    whatever it is given: a wrong type or an out-of-range number is a RuleError
    too (`invalid_seat`, `invalid_card`, ...), never a TypeError or IndexError.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

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
