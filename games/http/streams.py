"""GET /api/v1/matches/{id}/stream: the match's new events as Server-Sent Events.

An async view (DRF has none), so that under an ASGI server an idle client costs a
coroutine, not a worker. It authenticates with the same tokens as the API, sends
the events after `Last-Event-ID` (or `?after=N`) from the log, then each new one
as the caller's seat (or a spectator of a public match) may see it
(games.log.events.event_for_seat), its seq as the
SSE id, and a comment every STREAM_KEEPALIVE_SECONDS while nothing happens. The
stream ends once a finished match's log is all sent (reconnecting then answers 204),
when the caller leaves their seat, and after STREAM_MAX_SECONDS (the client
reconnects with Last-Event-ID, and is authenticated again).
"""

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions

from games.http.api_classes import TokenAuthentication
from games.http.api_errors import is_database_unavailable
from games.http.api_support import error_response
from games.live import live, presence
from games.log import events as V
from games.models import MatchStatus
from games.play import selectors
from games.play.errors import BadInput, ServiceError

log = logging.getLogger(__name__)


class Unauthenticated(ServiceError):
    status = 401


@csrf_exempt  # a token in a header, never a cookie: nothing for a forged request to ride on
async def match_stream(request: HttpRequest, match_id: str) -> HttpResponse:
    if request.method != "GET":
        response = _error(
            ServiceError("method_not_allowed", f'Method "{request.method}" not allowed.'), 405
        )
        response["Allow"] = "GET"  # RFC 9110: a 405 lists the methods the resource takes
        return response
    try:
        after = _after(request)
        match, seat = await live.in_pool(_match_for_caller)(request, match_id)
    except ServiceError as exc:
        return _error(exc, exc.status)
    if match.status == MatchStatus.FINISHED and after >= match.seq:
        return HttpResponse(status=204)  # tells an EventSource to stop reconnecting
    if not isinstance(request, ASGIRequest):
        # Under WSGI an endless response would hold a worker thread for ever.
        return _error(
            ServiceError(
                "stream_needs_asgi",
                "Live streams are served by the ASGI server (uvicorn); this process is WSGI. "
                "Route /api/v1/matches/{id}/stream there (docs/operations.md).",
            ),
            503,
        )
    response = StreamingHttpResponse(
        _messages(str(match.pk), seat, after), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


def authenticated_user(request: HttpRequest) -> Any:
    """The caller of a stream, by the API's token (401 as the API answers it)."""
    try:
        found = TokenAuthentication().authenticate(request)
    except exceptions.AuthenticationFailed as exc:
        raise Unauthenticated("authentication_failed", str(exc.detail)) from exc
    if found is None:
        raise Unauthenticated("not_authenticated", str(exceptions.NotAuthenticated.default_detail))
    return found[0]


def _match_for_caller(request: HttpRequest, match_id: str) -> tuple[Any, int | None]:
    """The match and the caller's seat, or no seat (a spectator) at a public match."""
    return selectors.match_for_viewer(match_id=match_id, user=authenticated_user(request))


_SEQ = re.compile(r"[0-9]{1,12}")


def _after(request: HttpRequest) -> int:
    """Last-Event-ID wins: a browser's EventSource sends it with the original URL. Both are
    checked as the schema states them (schema_hook): ASCII digits only (str.isdigit would
    take "²", which int() then refuses), `after` once and not empty, an empty
    Last-Event-ID the same as none."""
    header = request.headers.get("Last-Event-ID", "")
    afters = request.GET.getlist("after")
    if (
        (header and not _SEQ.fullmatch(header))
        or len(afters) > 1
        or (afters and not _SEQ.fullmatch(afters[0]))
    ):
        raise BadInput(
            "invalid_input",
            "Last-Event-ID and after (once) are the seq of the last event you have: "
            "a whole number.",
        )
    return int(header or (afters[0] if afters else "0"))


def _counted(match_id: str, seat: int | None) -> Any:
    """The seat marked present while its stream is open; a spectator counted as watching."""
    if seat is V.SPECTATOR:
        return presence.watching(match_id)
    return presence.at_table(match_id, seat)


async def _messages(match_id: str, seat: int | None, after: int) -> AsyncIterator[str]:
    keepalive = settings.STREAM_KEEPALIVE_SECONDS
    # A stream ends now and then, so that the client reconnects and its token and seat
    # are checked again (a revoked token stops getting events within this time).
    ends_at = time.monotonic() + settings.STREAM_MAX_SECONDS
    async with live.hub().watching(match_id) as watch, _counted(match_id, seat) as here:
        yield "retry: 2000\n\n"
        last, poll = after, False
        while time.monotonic() < ends_at:
            try:
                events = await watch.events_after(last, poll=poll)
            except Exception as exc:
                if not is_database_unavailable(exc):
                    raise
                # The database is away: keep the stream (a reconnecting EventSource would
                # get a 503 and give up), and read again after a keep-alive interval.
                log.warning("stream of match %s: database unavailable (%s)", match_id, exc)
                await asyncio.sleep(max(0.0, min(keepalive, ends_at - time.monotonic())))
                yield ": keep-alive\n\n"
                poll = True
                continue
            for event in events:
                item = V.event_for_seat(event, seat, watch.finished)
                yield f"id: {event.seq}\nevent: match_event\ndata: {json.dumps(item)}\n\n"
                last = event.seq
                if event.type == V.SEAT_LEFT and seat is not None and event.seat == seat:
                    return  # the seat is a computer player's now: its cards are not the caller's
            if watch.finished and last >= watch.latest:
                return  # the whole log is sent; it will never grow
            poll = not await watch.wait_beyond(last, min(keepalive, ends_at - time.monotonic()))
            if poll:
                yield ": keep-alive\n\n"
                await here()


def _error(exc: ServiceError, status: int) -> JsonResponse:
    response = error_response(exc.code, exc.detail, status)
    if status == 401:
        response["WWW-Authenticate"] = "Token"
    return response


def schema_hook(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing: this async view is not a DRF view, so describe it
    in the OpenAPI document by hand (its error answers: games.http.api_schema.schema_hook)."""
    result["paths"]["/api/v1/matches/{match_id}/stream"] = {
        "get": {
            "operationId": "matches_stream",
            "summary": "Live events of a match (Server-Sent Events)",
            "description": (
                "Each new event as your seat may see it (the same objects as GET .../events; a "
                "spectator of a public match sees what a spectator may), "
                "as `id: <seq>`, `event: match_event`, `data: <json>`; `: keep-alive` "
                "comments while idle. Resume with Last-Event-ID (or ?after=N): exactly the "
                "events after it, then live ones. Ends once a finished match's log is all "
                "sent; 204 when there is nothing left. Served by the ASGI server only."
            ),
            "tags": ["matches"],
            "parameters": [
                {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}},
                {
                    "name": "after",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 0, "maximum": 10**12 - 1},
                },
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "description": "The seq of the last event you have (empty: none).",
                    "schema": {"type": "string", "pattern": "^[0-9]{0,12}$"},
                },
            ],
            "security": [{"knoxApiToken": []}],
            "responses": {
                "200": {"description": "The stream", "content": {"text/event-stream": {}}},
                "204": {"description": "A finished match with nothing after the given seq."},
            },
        }
    }
    return result
