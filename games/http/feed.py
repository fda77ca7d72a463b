"""GET /api/v1/me/stream: the player's own feed, across every match they sit at.

What it says (Server-Sent Events; `event:` is the item's type, `data:` its JSON):
  your_turn       {match, seq, seat, deadline}       it is your turn (deadline: the turn timer's)
  seat_taken      {match, seq, seat, kind, username, level, you}
  seat_left       {match, seq, seat, level, you}
  seat_timed_out  {match, seq, seat, level, seconds, you}
  match_started   {match, seq}
  match_finished  {match, seq, winner, scores, you_won}
There are no invitations in this service (a match's id is its invitation): no item for them.

Where it comes from: the event log itself, not a table of its own (docs/api-versioning.md,
"The player's feed", says why). A match event is a feed item of every person seated at the
match; `your_turn` is derived from the match row's `turn_seat` (a projection saved with the
summary). So an action costs the feed nothing: no row, no query, no message of its own; the
commit's existing publish (games/live/live.py, after commit) wakes the feeds following the match.
Creating or joining a match publishes once more, on the user's channel, so that their feed
follows the new match at once.

The log of a match ended an hour ago is archived (games.log.archive), and the hands over of a
match being played are moved into chunks, their events keeping their ids: a resume reads
the user's archived and chunked matches past the cursor too (_with_archived).

The SSE id is an opaque, increasing position: 2 x the event's global id (+1 for a
`your_turn`, which follows the event that made it your turn). Resuming with Last-Event-ID
reads the items after it from the log (events of your matches, then your turn now where it
became yours later), then goes live. A position whose next events are older than
FEED_RETENTION_SECONDS is answered 410 `feed_cursor_expired`: resync with GET /me/matches
and reconnect without Last-Event-ID. On a resume `your_turn` is only said of turns that are
yours now (a turn that already passed is news of nothing).

One coroutine per client, no thread: the reads run in the event loop's small pool
(live.in_pool), and the process's one Hub shares a Watch (and its reads of the log) per
match between the feed and match streams, and one Redis subscription between all of them.
"""

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db.models import F, OuterRef, Q, Subquery
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from games.http.api_errors import is_database_unavailable
from games.http.streams import _error, authenticated_user
from games.live import live
from games.log import eventlog
from games.log import events as V
from games.models import Event, EventArchive, Match, MatchStatus, Seat
from games.play.errors import BadInput, ServiceError

log = logging.getLogger(__name__)

FEED_EVENT_TYPES = (
    V.SEAT_TAKEN,
    V.SEAT_LEFT,
    V.SEAT_TIMED_OUT,
    V.MATCH_STARTED,
    V.MATCH_FINISHED,
)
YOUR_TURN = "your_turn"
ITEM_TYPES = (YOUR_TURN, *FEED_EVENT_TYPES)
BACKLOG_LIMIT = 1000  # items sent on a resume; more than that: resync (feed_cursor_expired)
_FOLLOWED = (MatchStatus.WAITING, MatchStatus.ACTIVE)


class Gone(ServiceError):
    status = 410


def position(event_id: int, turn: bool = False) -> int:
    return 2 * event_id + (1 if turn else 0)


# ---------------------------------------------------------------- items


def event_item(event: Event, my_seat: int) -> dict[str, Any]:
    """A match event as a feed item: its payload as your seat may see it (events.redact,
    the one redaction path), the match, and whether it is about you."""
    item: dict[str, Any] = {
        "type": event.type,
        "match": str(event.match_id),
        "seq": event.seq,
        "created_at": event.created_at.isoformat(),
    }
    payload = V.redact(event, my_seat, finished=False)  # the match goes on for the feed
    payload.pop("user_id", None)  # the username says who; ids are not the API's currency
    if event.type == V.MATCH_FINISHED:
        item.update(payload)
        item["you_won"] = payload["winner"] == my_seat % 2
    elif event.type != V.MATCH_STARTED:
        item.update(payload)
        item["you"] = payload.get("seat") == my_seat
    return item


def turn_item(match_id: Any, seq: int, seat: int, deadline: Any) -> dict[str, Any]:
    return {
        "type": YOUR_TURN,
        "match": str(match_id),
        "seq": seq,
        "seat": seat,
        "deadline": deadline.isoformat() if deadline else None,
    }


def message(pos: int, item: dict[str, Any]) -> str:
    return f"id: {pos}\nevent: {item['type']}\ndata: {json.dumps(item)}\n\n"


# ---------------------------------------------------------------- reads (in the pool)


def parse_cursor(request: HttpRequest) -> int | None:
    header = request.headers.get("Last-Event-ID", "")
    if not header:
        return None
    if not (header.isascii() and header.isdigit() and len(header) <= 20):
        raise BadInput("invalid_input", "Last-Event-ID is the id of the last item you have.")
    return int(header)


@live.in_pool
def _start(request: HttpRequest, cursor: int | None) -> Any:
    """The caller; checks the cursor's age (410 feed_cursor_expired)."""
    user = authenticated_user(request)
    if cursor is not None:
        horizon = timezone.now() - timedelta(seconds=settings.FEED_RETENTION_SECONDS)
        first = (
            Event.objects.filter(id__gt=cursor // 2)
            .order_by("id")
            .values_list("created_at", flat=True)
            .first()
        )
        if (first is not None and first < horizon) or _archived_before(cursor // 2, horizon):
            raise _expired()
    return user


def _archived_before(after_id: int, horizon: Any) -> bool:
    """An archived match (games.log.archive) whose events run past the cursor and which ended
    before the horizon: the events right after the cursor are older still (ids follow
    time), though their rows are gone."""
    archives = EventArchive.objects.filter(last_event_id__gt=after_id)
    return archives.filter(match__finished_at__lt=horizon).exists()


@live.in_pool
def _to_follow(user: Any) -> dict[str, tuple[int, int]]:
    """The matches to follow (waiting or being played): match id -> (seat, seq)."""
    seats = Seat.objects.filter(user=user, match__status__in=_FOLLOWED).values_list(
        "match_id", "index", "match__seq"
    )
    return {str(m): (index, seq) for m, index, seq in seats}


def _expired() -> Gone:
    return Gone(
        "feed_cursor_expired",
        "Your Last-Event-ID is older than the feed keeps: resync with GET /api/v1/me/matches "
        "and reconnect without Last-Event-ID.",
    )


@live.in_pool
def _backlog(user: Any, cursor: int | None) -> list[tuple[int, dict[str, Any]]]:
    """The items after `cursor`, and `your_turn` of every match where it is your turn now
    (after `cursor`), in position order. Without a cursor: only the turns, each at the
    position of now (the newest event), so that the client's cursor never points before
    what it was told."""
    items: list[tuple[int, dict[str, Any]]] = []
    now = None
    if cursor is None:
        # A match's newest event is always a row (a chunk holds only what came before
        # its newest deal) until the match is archived: the chunks need no look here.
        now = max(
            Event.objects.order_by("-id").values_list("id", flat=True).first() or 0,
            EventArchive.objects.order_by("-last_event_id")
            .values_list("last_event_id", flat=True)
            .first()
            or 0,
        )
    if cursor is not None:
        events = (
            Event.objects.filter(
                match__seats__user=user, id__gt=cursor // 2, type__in=FEED_EVENT_TYPES
            )
            .annotate(my_seat=F("match__seats__index"))
            .order_by("id")[: BACKLOG_LIMIT + 1]
        )
        events = _with_archived(list(events), user, cursor // 2)
        if len(events) > BACKLOG_LIMIT:
            raise _expired()
        items += [(position(e.id), event_item(e, e.my_seat)) for e in events]
    last = Event.objects.filter(match=OuterRef("pk"), seq=OuterRef("seq")).values("id")[:1]
    turns = (
        Match.objects.filter(
            seats__user=user,
            status=MatchStatus.ACTIVE,
            awaiting_computer=False,
            turn_seat=F("seats__index"),
        )
        .annotate(last_id=Subquery(last))
        .values_list("pk", "seq", "turn_seat", "turn_deadline", "last_id")
    )
    for match_id, seq, seat, deadline, last_id in turns:
        pos = position(now if now is not None else last_id, turn=True)
        if cursor is None or pos > cursor:
            items.append((pos, turn_item(match_id, seq, seat, deadline)))
    return sorted(items, key=lambda pair: pair[0])


def _with_archived(events: list[Event], user: Any, after_id: int) -> list[Event]:
    """`events` (the rows read) and the feed's events after `after_id` of the user's
    matches whose logs were archived or chunked (games.log.archive) since: the same items, by
    the same ids. Read after the rows, so a match moved in between is read twice, kept
    once."""
    moved = Q(match__event_archive__last_event_id__gt=after_id) | Q(
        match__event_chunks__last_event_id__gt=after_id
    )
    seats = Seat.objects.filter(moved, user=user).distinct()
    seats = list(seats.values_list("match_id", "index")[: BACKLOG_LIMIT + 1])
    if len(seats) > BACKLOG_LIMIT:
        raise _expired()
    seen = {e.id for e in events}
    for match_id, index in seats:
        for event in eventlog.events_of(match_id):
            if event.id > after_id and event.type in FEED_EVENT_TYPES and event.id not in seen:
                event.my_seat = index
                events.append(event)
    return sorted(events, key=lambda e: e.id)


@live.in_pool
def _seated(user: Any, match_id: str) -> tuple[int, int] | None:
    """The user's seat at a match they just sat down at, and the seq before their
    seat_taken: the feed follows the match from there."""
    seat = Seat.objects.filter(match_id=match_id, user=user).values_list("index", flat=True)
    index = seat.first()
    if index is None:
        return None
    taken = (
        Event.objects.filter(match_id=match_id, type=V.SEAT_TAKEN, seat=index)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    )
    return index, (taken or 1) - 1


# ---------------------------------------------------------------- the view


@csrf_exempt  # a token in a header, never a cookie
async def me_stream(request: HttpRequest) -> HttpResponse:
    if request.method != "GET":
        response = _error(
            ServiceError("method_not_allowed", f'Method "{request.method}" not allowed.'), 405
        )
        response["Allow"] = "GET"
        return response
    try:
        cursor = parse_cursor(request)
        user = await _start(request, cursor)
    except ServiceError as exc:
        return _error(exc, exc.status)
    if not isinstance(request, ASGIRequest):
        return _error(
            ServiceError(
                "stream_needs_asgi",
                "Live streams are served by the ASGI server (uvicorn); this process is WSGI. "
                "Route /api/v1/me/stream there (docs/operations.md).",
            ),
            503,
        )
    response = StreamingHttpResponse(_feed(user, cursor), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


class _Followed:
    """One match this client follows: its watch (shared in the process), the caller's seat,
    the seq read up to, the seq of the last `your_turn` said, and whether it must be read
    once whatever was heard (a match just sat down at, or one that moved while subscribing)."""

    def __init__(self, watch: live.Watch, seat: int, seq: int, closer: Any) -> None:
        self.watch, self.seat, self.seq, self.closer = watch, seat, seq, closer
        self.turn_said, self.unread = 0, False

    def behind(self) -> bool:
        return self.unread or self.watch.latest > self.seq


async def _feed(user: Any, cursor: int | None) -> AsyncIterator[str]:
    hub = live.hub()
    wake = asyncio.Event()
    followed: dict[str, _Followed] = {}
    keepalive = settings.STREAM_KEEPALIVE_SECONDS
    ends_at = time.monotonic() + settings.STREAM_MAX_SECONDS

    async def start_following(match_id: str, seat: int, seq: int) -> _Followed:
        closer = hub.watching(match_id)
        watch = await closer.__aenter__()
        watch.followers.add(wake)
        entry = followed[match_id] = _Followed(watch, seat, seq, closer)
        return entry

    async def stop_following(match_id: str) -> None:
        entry = followed.pop(match_id)
        entry.watch.followers.discard(wake)
        await entry.closer.__aexit__(None, None, None)

    async with hub.seating(str(user.pk), wake) as seated:
        try:
            # Subscribe first (the user's channel, then each match's), then read: nothing
            # committed in between is lost.
            for match_id, (seat, seq) in (await _to_follow(user)).items():
                await start_following(match_id, seat, seq)
            if followed:
                for match_id, seq in await live._newest_seqs(list(followed)):
                    entry = followed[str(match_id)]
                    entry.unread = seq > entry.seq
            yield "retry: 2000\n\n"
            for pos, item in await _backlog(user, cursor):
                entry = followed.get(item["match"])
                if entry is not None:
                    if item["type"] == YOUR_TURN:
                        entry.turn_said = item["seq"]
                    else:
                        entry.seq = max(entry.seq, item["seq"])
                yield message(pos, item)
            yield ": live\n\n"  # what was missed is sent; from here on, live items
            next_keepalive = time.monotonic() + keepalive
            while time.monotonic() < ends_at:
                wake.clear()
                while seated:
                    match_id = seated.pop(0)
                    found = None if match_id in followed else await _seated(user, match_id)
                    if found is not None:
                        (await start_following(match_id, *found)).unread = True
                for match_id, entry in list(followed.items()):
                    if not entry.behind():
                        continue
                    try:
                        out = await _news(entry)
                    except Exception as exc:
                        if not is_database_unavailable(exc):
                            raise
                        log.warning("feed of user %s: database unavailable (%s)", user.pk, exc)
                        continue
                    entry.unread = False
                    for pos, item in out:
                        yield message(pos, item)
                    left = any(i["type"] == V.SEAT_LEFT and i.get("you") for _p, i in out)
                    over = entry.watch.summary.get("status") not in (*_FOLLOWED, None)
                    if left or (over and entry.seq >= entry.watch.summary.get("seq", 0)):
                        await stop_following(match_id)  # nothing more of it is yours
                if seated or any(e.behind() for e in followed.values()):
                    continue
                # A keep-alive after `keepalive` seconds without one, whatever woke us meanwhile.
                timeout = min(next_keepalive, ends_at) - time.monotonic()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.0, timeout)):
                        await wake.wait()
                        continue
                if time.monotonic() >= next_keepalive:
                    yield ": keep-alive\n\n"
                    next_keepalive = time.monotonic() + keepalive
        finally:
            for match_id in list(followed):
                await stop_following(match_id)


async def _news(entry: _Followed) -> list[tuple[int, dict[str, Any]]]:
    """The feed items of one followed match after what this client has: its events of the
    feed's types, then `your_turn` if the newest event made it yours."""
    events = await entry.watch.events_after(entry.seq)
    out = [
        (position(e.id), event_item(e, entry.seat)) for e in events if e.type in FEED_EVENT_TYPES
    ]
    if events:
        entry.seq = events[-1].seq
    summary = entry.watch.summary
    if (
        events
        and summary.get("seq") == events[-1].seq
        and summary.get("status") == MatchStatus.ACTIVE
        and summary.get("turn_seat") == entry.seat
        and not summary.get("awaiting_computer")
        and summary["seq"] > entry.turn_said
    ):
        entry.turn_said = summary["seq"]
        out.append(
            (
                position(events[-1].id, turn=True),
                turn_item(
                    entry.watch.match_id, summary["seq"], entry.seat, summary.get("turn_deadline")
                ),
            )
        )
    return out


# ---------------------------------------------------------------- the OpenAPI document

_MATCH = {"type": "string", "format": "uuid", "description": "The match."}
_SEQ = {"type": "integer", "minimum": 1, "description": "The match's event it follows."}
_SEAT = {"type": "integer", "minimum": 0, "maximum": 3}


def _item(kind: str, doc: str, fields: dict[str, Any]) -> dict[str, Any]:
    properties = {"type": {"type": "string", "enum": [kind]}, "match": _MATCH, "seq": _SEQ}
    properties.update(fields)
    if kind != YOUR_TURN:
        properties["created_at"] = {"type": "string", "format": "date-time"}
    return {
        "type": "object",
        "description": doc,
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }


def item_schemas() -> dict[str, dict[str, Any]]:
    """The `data:` of each feed item, and FeedItem, their oneOf on `type`."""
    you = {"type": "boolean", "description": "It is about your seat."}
    level = {"type": "string", "nullable": True}
    items = {
        YOUR_TURN: _item(YOUR_TURN, "It is your turn.", {
            "seat": _SEAT,
            "deadline": {"type": "string", "format": "date-time", "nullable": True,
                         "description": "The turn timer's deadline, if the match has one."},
        }),
        V.SEAT_TAKEN: _item(V.SEAT_TAKEN, "A person or computer sat down at your match.", {
            "seat": _SEAT, "kind": {"type": "string", "enum": ["human", "computer"]},
            "username": {"type": "string", "nullable": True}, "level": level, "you": you,
        }),
        V.SEAT_LEFT: _item(V.SEAT_LEFT, "A person left your match (a computer plays on).", {
            "seat": _SEAT, "level": level, "you": you,
        }),
        V.SEAT_TIMED_OUT: _item(V.SEAT_TIMED_OUT, "A turn timer ran out: a computer plays.", {
            "seat": _SEAT, "level": level, "seconds": {"type": "integer", "nullable": True},
            "you": you,
        }),
        V.MATCH_STARTED: _item(V.MATCH_STARTED, "Every seat is taken: play begins.", {}),
        V.MATCH_FINISHED: _item(V.MATCH_FINISHED, "Your match is over.", {
            "winner": {"type": "integer", "minimum": 0, "maximum": 1},
            "scores": {"type": "array", "items": {"type": "integer"}, "minItems": 2,
                       "maxItems": 2},
            "you_won": {"type": "boolean"},
        }),
    }  # fmt: skip
    names = {kind: f"Feed{''.join(p.capitalize() for p in kind.split('_'))}" for kind in items}
    components = {names[kind]: schema for kind, schema in items.items()}
    components["FeedItem"] = {
        "description": "The `data:` of an item of GET /api/v1/me/stream (its `event:` is the "
        "type).",
        "oneOf": [{"$ref": f"#/components/schemas/{n}"} for n in names.values()],
        "discriminator": {
            "propertyName": "type",
            "mapping": {k: f"#/components/schemas/{n}" for k, n in names.items()},
        },
    }
    return components


def schema_hook(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing: this async view, described by hand (its error
    answers: games.http.api_schema.schema_hook), and the items it sends."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(item_schemas())
    result["paths"]["/api/v1/me/stream"] = {
        "get": {
            "operationId": "me_stream",
            "summary": "Your own feed: your turn, seats, starts and ends across your matches",
            "description": (
                "Server-Sent Events for everything addressed to you across the matches you sit "
                "at: `your_turn` (match, seq, deadline), `seat_taken`, `seat_left`, "
                "`seat_timed_out`, `match_started`, `match_finished` (with the result). Each "
                "is `id: <position>` (opaque, increasing), `event: <type>`, `data: <FeedItem "
                "JSON>`; `: keep-alive` comments while idle. Without Last-Event-ID it starts "
                "with `your_turn` of each match where it is your turn now, then live items; "
                "with it, the items after it first (a turn only if it is still yours). A "
                "Last-Event-ID older than the feed keeps is 410 feed_cursor_expired: resync "
                "with GET /me/matches. Served by the ASGI server only."
            ),
            "tags": ["me"],
            "parameters": [
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "description": "The id of the last item you have (empty: none).",
                    "schema": {"type": "string", "pattern": "^[0-9]{0,20}$"},
                },
            ],
            "security": [{"knoxApiToken": []}],
            "responses": {
                "200": {
                    "description": "The stream; each `data:` is a FeedItem.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
            },
        }
    }
    return result
