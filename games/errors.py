"""Errors the service raises; the API turns each into {"code", "detail"} and a status."""

from typing import Any

from games.engine import RuleError


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


# Engine codes that are about malformed input or timing rather than the rules.
_BAD_INPUT_CODES = {"invalid_action", "invalid_card", "invalid_suit", "invalid_option"}
_CONFLICT_CODES = {"not_your_turn", "sitting_out"}


def from_rule_error(exc: RuleError, **extra: Any) -> ServiceError:
    if exc.code in _BAD_INPUT_CODES:
        return BadInput(exc.code, exc.message, **extra)
    if exc.code in _CONFLICT_CODES:
        return Conflict(exc.code, exc.message, **extra)
    return RuleViolation(exc.code, exc.message, **extra)
