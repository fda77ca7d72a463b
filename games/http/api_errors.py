"""Errors answered outside DRF's views, in the API's error body under /api/.

Django answers some requests itself, before or after any DRF view: an unknown path
(404), a Host header not in ALLOWED_HOSTS (400), a CSRF failure (403), an uncaught
exception (500). Under /api/ each of those is {"code", "detail"} JSON; elsewhere (the
admin, /play/) Django's own pages stay. An unreachable database is a 503
`service_unavailable` with Retry-After, on every path, rather than a 500.
"""

import logging
import sys
from typing import Any

from django.core.exceptions import BadRequest, DisallowedHost, TooManyFieldsSent
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.views import csrf, defaults

from games.http.api_support import error_response

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5  # how soon a client may try again while the database is away


def is_api(request: HttpRequest) -> bool:
    path = request.path_info
    return path == "/api" or path.startswith("/api/")


# SQLSTATEs of a server that is going away or full: connection exceptions (class 08),
# admin or crash shutdown, starting up or shutting down, too many connections.
_OUTAGE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53300")


def is_database_unavailable(exc: BaseException | None) -> bool:
    """The database can't be reached, or the connection broke: an outage, not a bug.
    psycopg's errors come wrapped in Django's classes: one without a SQLSTATE is the
    client's own (connection refused, timed out, closed); a deadlock, a serialization
    failure or a cancelled statement is an OperationalError too, but not an outage."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(_OUTAGE_SQLSTATES)


def service_unavailable(request: HttpRequest, exc: BaseException) -> HttpResponse:
    log.warning("database unavailable for %s %s: %s", request.method, request.path, exc)
    if is_api(request):
        response: HttpResponse = error_response(
            "service_unavailable",
            f"The service can't reach its database; try again in {RETRY_AFTER_SECONDS} seconds.",
            503,
        )
    else:
        response = HttpResponse(
            "Service temporarily unavailable; try again shortly.\n",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """A view (DRF or not, sync or async) that fails because the database is unreachable
    answers 503 with Retry-After; the next request connects again, so the process
    recovers by itself once the database is back."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_unavailable(exception):
            return service_unavailable(request, exception)
        return None


class RefuseNullCharactersMiddleware:
    """A query string with a NUL character is a 400 (bad_request under /api/). No
    parameter means one, and PostgreSQL refuses NUL in text: the admin's list filters,
    for one, passed it to a query that failed with DataError (a 500)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "%00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in value for values in request.GET.lists() for value in values[1]
        ):
            raise BadRequest("The query string contains a null character.")
        return self.get_response(request)


# ---------------------------------------------------------------- Django's error handlers
# Named in euchre_service/urls.py as handler400/403/404/500.


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, DisallowedHost):
        return error_response(
            "bad_host", "The Host header names a host this service does not answer for.", 400
        )
    if isinstance(exception, BadRequest | TooManyFieldsSent):  # their words say what is wrong
        return error_response("bad_request", f"The request is malformed: {exception}", 400)
    return error_response("bad_request", "The request is malformed.", 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return error_response("permission_denied", "You may not do that.", 403)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    detail = "No such endpoint."
    path = request.path_info
    if path.endswith("/") and _resolves(path.rstrip("/")):
        # APPEND_SLASH never redirects under /api/ (no API path ends in "/"), so say why.
        detail = f"No such endpoint: API paths have no trailing slash ({path.rstrip('/')})."
    return error_response("not_found", detail, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django has logged the traceback (django.request) before calling this."""
    exc = sys.exc_info()[1]
    if is_database_unavailable(exc):  # raised outside a view (middleware), sync path
        return service_unavailable(request, exc)
    if not is_api(request):
        return defaults.server_error(request)
    return error_response(
        "server_error", "Something went wrong on our side; it has been logged.", 500
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW. API views take tokens, not cookies, and are exempt; a view
    under /api/ that is not still answers in the API's error body."""
    if not is_api(request):
        return csrf.csrf_failure(request, reason)
    return error_response(
        "csrf_failed", f"CSRF verification failed ({reason.rstrip('.') or 'no reason given'}).", 403
    )


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True
