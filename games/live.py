"""Telling the API processes that a match has new events, for the live streams.

A commit that appends events publishes "match M now ends at seq N". With Redis
(REDIS_URL) that goes out on the pub/sub channel of the match, so every API
process that has a stream client on the match hears it, whichever process or
Celery worker made the commit; without Redis (the embedded default, one
process) it goes straight to this process's hub. The message carries no event:
clients read the events from the database, the source of truth, so a lost
message costs at most one keep-alive interval (each interval polls the log).

One hub per event loop (per ASGI process) keeps one Redis connection for all of
its clients, one watch per match however many clients follow it, and the
match's recent events, so that an event reaches a hundred clients with one
database read.
"""

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import redis
import redis.asyncio as aioredis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, transaction

from games.models import Event, Match, MatchStatus
from games.outage import Outage

log = logging.getLogger(__name__)

T = TypeVar("T")
CHANNEL_PREFIX = "euchre:match:"
_RECENT = 1000  # events a watch keeps for its clients
_POLL_AT_MOST_EVERY = 1.0  # seconds: a watch's fallback reads of the log


def channel(match_id: Any) -> str:
    return f"{CHANNEL_PREFIX}{match_id}"


# ---------------------------------------------------------------- publishing (sync)

_publisher: redis.Redis | None = None
_publisher_lock = threading.Lock()
# While Redis is down, commits skip publishing (a hung Redis would cost each person's
# action the socket timeout) and stream clients poll the log at their keep-alives.
publishing = Outage(
    "Redis for live updates",
    "commits are not published and stream clients poll the log at each keep-alive",
    lambda: settings.CACHE_RETRY_SECONDS,
)


def publish_on_commit(match: Match) -> None:
    match_id, seq = str(match.pk), match.seq
    transaction.on_commit(lambda: publish(match_id, seq))


def publish(match_id: str, seq: int) -> None:
    """Never raises: the commit has happened; a stream client polls if this is lost."""
    if not settings.REDIS_URL:
        _notify_local_hubs(match_id, seq)
        return
    if publishing.is_down():
        return
    try:
        _redis_publisher().publish(channel(match_id), seq)
    except redis.RedisError as exc:
        publishing.failed(exc)
        return
    publishing.succeeded()


def _redis_publisher() -> redis.Redis:
    global _publisher
    with _publisher_lock:
        if _publisher is None:
            _publisher = redis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1
            )
        return _publisher


# ---------------------------------------------------------------- the hub (async)

_hubs: dict[asyncio.AbstractEventLoop, "Hub"] = {}
_hubs_lock = threading.Lock()


def _notify_local_hubs(match_id: str, seq: int) -> None:
    with _hubs_lock:
        hubs = list(_hubs.values())
    for hub in hubs:
        with contextlib.suppress(RuntimeError):  # that loop has closed
            hub.loop.call_soon_threadsafe(hub.notify, match_id, seq)


def hub() -> "Hub":
    loop = asyncio.get_running_loop()
    with _hubs_lock:
        for old in [lp for lp in _hubs if lp.is_closed()]:
            del _hubs[old]
        if loop not in _hubs:
            _hubs[loop] = Hub(loop)
        return _hubs[loop]


class Watch:
    """One match followed by this process: the newest seq heard of, and recent events."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.clients = 0
        self.latest = 0  # the newest seq heard of or read
        # The log as read so far: `recent` holds every event in (read_from, read_to].
        self.read_from: int | None = None
        self.read_to = 0
        self.recent: list[Event] = []
        self.finished = False
        self.changed = asyncio.Condition()
        self.read_lock = asyncio.Lock()
        self.last_poll = 0.0
        self.reads = 0  # of the log, for the record

    async def heard(self, seq: int) -> None:
        if seq > self.latest:
            self.latest = seq
            async with self.changed:
                self.changed.notify_all()

    async def wait_beyond(self, seq: int, timeout: float) -> bool:
        """Until something newer than `seq` is heard of (True) or `timeout` passes."""
        # asyncio.timeout, not wait_for: on 3.11 wait_for runs the wait in a task of its own,
        # and a client hanging up (cancelling) mid-wait could leave the condition's lock
        # held or released twice.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout), self.changed:
                await self.changed.wait_for(lambda: self.latest > seq)
        return self.latest > seq

    async def events_after(self, seq: int, poll: bool = False) -> list[Event]:
        """Events after `seq`. The log is read only when what was read does not cover
        them, a newer seq was heard of, or `poll` asks to look for events no message told
        of (at most once a second for all of the match's clients)."""
        async with self.read_lock:
            covered = self.read_from is not None and self.read_from <= seq
            polling = poll and time.monotonic() - self.last_poll >= _POLL_AT_MOST_EVERY
            if not covered or self.read_to < self.latest or polling:
                if polling:
                    self.last_poll = time.monotonic()
                start = self.read_to if covered else seq
                fresh, self.finished = await _read_events(self.match_id, start)
                self.reads += 1
                if not covered:
                    self.read_from, self.recent = seq, []
                self.recent += fresh
                self.read_to = fresh[-1].seq if fresh else max(start, self.read_to)
                if len(self.recent) > _RECENT:
                    self.recent = self.recent[-_RECENT:]
                    self.read_from = self.recent[0].seq - 1
                if self.read_to > self.latest:  # found what no message told of: wake the others
                    await self.heard(self.read_to)
            return [e for e in self.recent if e.seq > seq]


def in_pool(fn: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """Run `fn` in the event loop's small thread pool rather than in a thread of the
    request's own, closing its connection as CONN_MAX_AGE says: an idle stream client
    must hold neither a thread's database connection nor a connection slot."""

    def run(*args: Any, **kwargs: Any) -> T:
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(run, thread_sensitive=False)


@in_pool
def _read_events(match_id: str, after: int) -> tuple[list[Event], bool]:
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    events = list(Event.objects.filter(match_id=match_id, seq__gt=after).order_by("seq"))
    return events, status == MatchStatus.FINISHED


class Hub:
    """This process's watches, and (with Redis) the one subscription feeding them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.watches: dict[str, Watch] = {}
        self.pubsub: Any = None
        self.listener: asyncio.Task | None = None
        self.subscribed = asyncio.Event()
        # One warning when the subscription is lost, one when it is back: not one a second.
        self.subscription = Outage(
            "Redis for this process's live-updates subscription",
            "stream clients poll the log at each keep-alive",
            lambda: 0.0,
        )

    def notify(self, match_id: str, seq: int) -> None:
        watch = self.watches.get(match_id)
        if watch is not None:
            self.loop.create_task(watch.heard(seq))

    @contextlib.asynccontextmanager
    async def watching(self, match_id: str) -> AsyncIterator[Watch]:
        watch = self.watches.get(match_id)
        if watch is None:
            watch = self.watches[match_id] = Watch(match_id)
        watch.clients += 1
        try:
            if watch.clients == 1 and settings.REDIS_URL:
                await self._subscribe(match_id)
            yield watch
        finally:
            watch.clients -= 1
            if watch.clients == 0 and self.watches.get(match_id) is watch:
                del self.watches[match_id]
                if settings.REDIS_URL:
                    await self._unsubscribe(match_id)

    async def _subscribe(self, match_id: str) -> None:
        if self.listener is None or self.listener.done():
            self.pubsub = aioredis.Redis.from_url(settings.REDIS_URL).pubsub()
            self.listener = self.loop.create_task(self._listen())
        try:
            await self.pubsub.subscribe(channel(match_id))
            self.subscribed.set()
        except redis.RedisError as exc:
            self.subscription.failed(exc)  # its clients poll; the listener subscribes again

    async def _unsubscribe(self, match_id: str) -> None:
        with contextlib.suppress(redis.RedisError):
            await self.pubsub.unsubscribe(channel(match_id))

    async def _listen(self) -> None:
        """Forward messages to the watches; after a lost connection, subscribe again and
        wake every watch so that its clients read what they missed from the log."""
        while True:
            try:
                await self.subscribed.wait()
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None and message["type"] == "message":
                    match_id = message["channel"].decode()[len(CHANNEL_PREFIX) :]
                    self.notify(match_id, int(message["data"]))
            except asyncio.CancelledError:
                raise
            except (redis.RedisError, OSError) as exc:
                self.subscription.failed(exc)
                await asyncio.sleep(1)
                await self._resubscribe()
            except Exception:  # a bug, not an outage: say where, then carry on
                log.exception("the live-updates listener failed; subscribing again")
                await asyncio.sleep(1)
                await self._resubscribe()

    async def _resubscribe(self) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        self.pubsub = aioredis.Redis.from_url(settings.REDIS_URL).pubsub()
        try:
            if self.watches:
                await self.pubsub.subscribe(*[channel(m) for m in self.watches])
        except redis.RedisError as exc:
            self.subscription.failed(exc)
            return  # the next round of the listener tries again
        self.subscription.succeeded()
        for watch in list(self.watches.values()):  # messages may have been lost meanwhile
            await watch.heard(await _newest_seq(watch.match_id))


@in_pool
def _newest_seq(match_id: str) -> int:
    return Match.objects.filter(pk=match_id).values_list("seq", flat=True).first() or 0
