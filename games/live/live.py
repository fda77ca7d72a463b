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

from games.live.outage import Outage
from games.log import eventlog, server
from games.models import Event, Match, MatchStatus

log = logging.getLogger(__name__)

T = TypeVar("T")
_RECENT = 1000  # events a watch keeps for its clients
_POLL_AT_MOST_EVERY = 1.0  # seconds: a watch's fallback reads of the log


# Channels are named under settings.LIVE_CHANNEL_PREFIX (euchre:), one namespace per
# deployment on a Redis server: <prefix>match:<id> carries a match's new seq, and
# <prefix>user:<id> "user U now sits at match M" (creating or joining), so that the player's
# own feed (games/http/feed.py) follows M at once; only for those two rare operations.
def channel(match_id: Any) -> str:
    return f"{settings.LIVE_CHANNEL_PREFIX}match:{match_id}"


def user_channel(user_id: Any) -> str:
    return f"{settings.LIVE_CHANNEL_PREFIX}user:{user_id}"


def channel_parts(name: str) -> tuple[str, str]:
    """("match", id) or ("user", id) for a channel named by `channel` or `user_channel`."""
    kind, _, key = name[len(settings.LIVE_CHANNEL_PREFIX) :].partition(":")
    return kind, key


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
    _publish(channel(match_id), seq)


def publish_seated_on_commit(user_id: Any, match: Match) -> None:
    """After the commit that seats `user_id` at `match`: their feed follows it from now."""
    user, match_id = str(user_id), str(match.pk)
    transaction.on_commit(lambda: publish_seated(user, match_id))


def publish_seated(user_id: str, match_id: str) -> None:
    if not settings.REDIS_URL:
        _notify_local_hubs(match_id, None, user_id)
        return
    _publish(user_channel(user_id), match_id)


def _publish(name: str, message: Any) -> None:
    if publishing.is_down():
        return
    try:
        _redis_publisher().publish(name, message)
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


def _notify_local_hubs(match_id: str, seq: int | None, user_id: str | None = None) -> None:
    with _hubs_lock:
        hubs = list(_hubs.values())
    for hub in hubs:
        with contextlib.suppress(RuntimeError):  # that loop has closed
            if user_id is None:
                hub.loop.call_soon_threadsafe(hub.notify, match_id, seq)
            else:
                hub.loop.call_soon_threadsafe(hub.notify_user, user_id, match_id)


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
        # The match row as of the newest read (turn_seat, awaiting_computer, turn_deadline,
        # scores, winner_team, seq): what the player's feed says besides events.
        self.summary: dict[str, Any] = {}
        # Feed clients following the match: each one's wake-up, set when a newer seq is heard.
        self.followers: set[asyncio.Event] = set()
        # The database server the log was read from (games.log.server): on another one
        # (a failover, which may have lost the events read), the log is read again.
        self.generation = server.current()

    async def heard(self, seq: int) -> None:
        if seq > self.latest:
            self.latest = seq
            for wake in self.followers:
                wake.set()
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
            if self.generation != server.current():
                self.generation = server.current()
                self.read_from, self.read_to, self.recent, self.latest = None, 0, [], 0
            covered = self.read_from is not None and self.read_from <= seq
            polling = poll and time.monotonic() - self.last_poll >= _POLL_AT_MOST_EVERY
            if not covered or self.read_to < self.latest or polling:
                if polling:
                    self.last_poll = time.monotonic()
                start = self.read_to if covered else seq
                fresh, self.summary = await _read_events(self.match_id, start)
                self.finished = self.summary.get("status") == MatchStatus.FINISHED
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


SUMMARY_FIELDS = (
    "status",
    "seq",
    "turn_seat",
    "awaiting_computer",
    "turn_deadline",
    "score_ns",
    "score_we",
    "winner_team",
)


@in_pool
def _read_events(match_id: str, after: int) -> tuple[list[Event], dict[str, Any]]:
    """The match row, then its events up to the row's seq: the two agree (a later event
    is read next time; its commit's message says so)."""
    summary = Match.objects.filter(pk=match_id).values(*SUMMARY_FIELDS).first() or {}
    upto = summary["seq"] if summary else None
    return eventlog.events_of(match_id, after=after, upto=upto), summary


class Seating:
    """A feed client's news from its user's channel (identity-hashed, for the hub's sets)."""

    def __init__(self, matches: list[str], wake: asyncio.Event) -> None:
        self.matches, self.wake = matches, wake


class Hub:
    """This process's watches, and (with Redis) the one subscription feeding them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.watches: dict[str, Watch] = {}
        # Feed clients per user id: each one's list of matches the user just sat down at,
        # and its wake-up.
        self.seated: dict[str, set[Seating]] = {}
        self.refs: dict[str, int] = {}  # channel -> watches and feed clients needing it
        self.poller: asyncio.Task | None = None
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

    def notify_user(self, user_id: str, match_id: str) -> None:
        for seating in self.seated.get(user_id, ()):
            seating.matches.append(match_id)
            seating.wake.set()

    @contextlib.asynccontextmanager
    async def watching(self, match_id: str) -> AsyncIterator[Watch]:
        watch = self.watches.get(match_id)
        if watch is None:
            watch = self.watches[match_id] = Watch(match_id)
        watch.clients += 1
        try:
            if watch.clients == 1:
                await self._need(channel(match_id))
            yield watch
        finally:
            watch.clients -= 1
            if watch.clients == 0 and self.watches.get(match_id) is watch:
                del self.watches[match_id]
                await self._release(channel(match_id))

    @contextlib.asynccontextmanager
    async def seating(self, user_id: str, wake: asyncio.Event) -> AsyncIterator[list[str]]:
        """A feed client's list of the matches its user sits down at from now on (`wake`
        is set at each)."""
        entry = Seating([], wake)
        self.seated.setdefault(user_id, set()).add(entry)
        try:
            if len(self.seated[user_id]) == 1:
                await self._need(user_channel(user_id))
            if self.poller is None or self.poller.done():
                self.poller = self.loop.create_task(self._poll())
            yield entry.matches
        finally:
            self.seated[user_id].discard(entry)
            if not self.seated[user_id]:
                del self.seated[user_id]
                await self._release(user_channel(user_id))

    async def _poll(self) -> None:
        """While feed clients are open: every keep-alive interval, one read of the seq of
        every match this process follows, for messages lost on the way (a commit made while
        publishing was down). One query per process, not one per client or match."""
        while self.seated:
            await asyncio.sleep(settings.STREAM_KEEPALIVE_SECONDS)
            ids = list(self.watches)
            if not ids:
                continue
            with contextlib.suppress(Exception):
                for match_id, seq in await _newest_seqs(ids):
                    watch = self.watches.get(str(match_id))
                    if watch is not None:
                        await watch.heard(seq)

    async def _need(self, name: str) -> None:
        self.refs[name] = self.refs.get(name, 0) + 1
        if self.refs[name] == 1 and settings.REDIS_URL:
            await self._subscribe(name)

    async def _release(self, name: str) -> None:
        self.refs[name] -= 1
        if self.refs[name] <= 0:
            del self.refs[name]
            if settings.REDIS_URL:
                await self._unsubscribe(name)

    async def _subscribe(self, name: str) -> None:
        if self.listener is None or self.listener.done():
            self.pubsub = aioredis.Redis.from_url(settings.REDIS_URL).pubsub()
            self.listener = self.loop.create_task(self._listen())
        try:
            await self.pubsub.subscribe(name)
            self.subscribed.set()
        except redis.RedisError as exc:
            self.subscription.failed(exc)  # its clients poll; the listener subscribes again

    async def _unsubscribe(self, name: str) -> None:
        with contextlib.suppress(redis.RedisError):
            await self.pubsub.unsubscribe(name)

    async def _listen(self) -> None:
        """Forward messages to the watches; after a lost connection, subscribe again and
        wake every watch so that its clients read what they missed from the log."""
        while True:
            try:
                await self.subscribed.wait()
                message = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None and message["type"] == "message":
                    kind, key = channel_parts(message["channel"].decode())
                    if kind == "user":
                        self.notify_user(key, message["data"].decode())
                    else:
                        self.notify(key, int(message["data"]))
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
            if self.refs:
                await self.pubsub.subscribe(*self.refs)
        except redis.RedisError as exc:
            self.subscription.failed(exc)
            return  # the next round of the listener tries again
        self.subscription.succeeded()
        for watch in list(self.watches.values()):  # messages may have been lost meanwhile
            await watch.heard(await _newest_seq(watch.match_id))


@in_pool
def _newest_seq(match_id: str) -> int:
    return Match.objects.filter(pk=match_id).values_list("seq", flat=True).first() or 0


@in_pool
def _newest_seqs(match_ids: list[str]) -> list[tuple[Any, int]]:
    return list(Match.objects.filter(pk__in=match_ids).values_list("pk", "seq"))
