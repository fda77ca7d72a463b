"""The one exception type for anything the rules forbid."""


class RuleError(Exception):
    """An action or input the rules do not allow.

    `code` is stable (clients and the API switch on it); `message` is a sentence
    for a person. Raising one never changes the state it was raised from.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"
