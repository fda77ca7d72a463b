"""Errors the service raises; the API turns each into {"code", "detail"} and a status."""

from typing import Any

from games.engine import RuleError
from games.error_codes import status_of


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


def from_rule_error(exc: RuleError, **extra: Any) -> ServiceError:
    """The API's error for a rules-engine error: its status comes from the catalogue
    (games/error_codes.py); a code not (yet) there is a rule broken, 422."""
    status = status_of(exc.code, RuleViolation.status)
    kind = {400: BadInput, 409: Conflict}.get(status, RuleViolation)
    return kind(exc.code, exc.message, **extra)
