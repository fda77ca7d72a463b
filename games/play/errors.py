"""Errors the service raises; the API turns each into {"code", "detail"} and a status."""

from typing import Any

from games.engine import RuleError, RuleKind


class ServiceError(Exception):
    status = 400

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class BadInput(ServiceError):
    status = 400


class NotFound(ServiceError):
    status = 404

    def __init__(self) -> None:
        # The same words whether the match is missing or the caller has no seat at it.
        super().__init__("not_found", "No such match.")


class Conflict(ServiceError):
    status = 409


class RuleViolation(ServiceError):
    status = 422


class Unprocessable(ServiceError):
    """Well-formed, but cannot be done as asked (e.g. a key reused for another request)."""

    status = 422


# The service's answer to each kind of rules-engine error (the catalogue, games/http/error_codes.py,
# agrees: tests/games/http/test_error_codes.py).
ERROR_OF_KIND: dict[RuleKind, type[ServiceError]] = {
    RuleKind.MALFORMED: BadInput,  # 400
    RuleKind.OUT_OF_TURN: Conflict,  # 409
    RuleKind.ILLEGAL: RuleViolation,  # 422
}


def from_rule_error(exc: RuleError, **extra: Any) -> ServiceError:
    """The API's error for a rules-engine error, by its kind."""
    return ERROR_OF_KIND[exc.kind](exc.code, exc.message, **extra)
