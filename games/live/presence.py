"""Who is at the table: a person is present while a live stream of theirs is open; and
how many are watching a public match (spectators' streams).

Kept in Django's cache (Redis in production, shared by every API process; the
process's memory in the embedded default, which is one process), not in the event
log: presence is not part of the game. A stream marks its seat when it opens and
at every keep-alive; the mark lapses after two keep-alive intervals without one,
and this process removes it when its last stream for the seat closes (another
process's stream puts it back at its next keep-alive).

A spectator's stream takes one of SPECTATOR_SLOTS slots of the match in the cache (an
atomic add of a free one), refreshed and lapsing the same way; the number watching is the
number of slots taken (one read of them all). Spectators past the last slot watch
uncounted.

A process answers from its own read of a match's marks for PRESENCE_READ_SECONDS, and
reads again at once after one of its own streams changed them (at_match).
"""

import contextlib
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

from django.conf import settings

from games.live import shared_cache
from games.live.live import in_pool

_open: Counter = Counter()  # this process's open streams per (match, seat); loop thread only


def _key(match_id: Any, seat: int) -> str:
    return f"presence:{match_id}:{seat}"


# Presence must never break a stream or a match summary: with the cache down
# (games.live.shared_cache) marks are skipped and nobody is known to be present, with one
# warning for the outage rather than one per keep-alive or per request.


def _nothing() -> None:
    return None


@in_pool
def _mark(match_id: str, seat: int) -> None:
    ttl = 2 * settings.STREAM_KEEPALIVE_SECONDS + 5
    shared_cache.run(lambda cache: cache.set(_key(match_id, seat), True, ttl), _nothing)
    _forget(match_id)


@in_pool
def _unmark(match_id: str, seat: int) -> None:
    shared_cache.run(lambda cache: cache.delete(_key(match_id, seat)), _nothing)
    _forget(match_id)


@contextlib.asynccontextmanager
async def at_table(match_id: str, seat: int) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """While a stream is open: marks the seat present, and yields the refresh to call at
    each keep-alive."""
    _open[(match_id, seat)] += 1
    await _mark(match_id, seat)
    try:
        yield lambda: _mark(match_id, seat)
    finally:
        _open[(match_id, seat)] -= 1
        if _open[(match_id, seat)] <= 0:
            del _open[(match_id, seat)]
            await _unmark(match_id, seat)


class AtMatch(NamedTuple):
    present: set[int]  # the seats whose person has a live stream open
    watching: int  # spectators' open streams (always 0 at a private match)


# What at_match last read, per (match, public): {key: (until, AtMatch)}. Kept for
# PRESENCE_READ_SECONDS (its marks are refreshed every STREAM_KEEPALIVE_SECONDS and lapse
# after twice that, so presence is seconds late anyway), and forgotten at once when a
# stream of this process changes the match's marks: only another process's stream is
# seen up to that long late. Without it every view and every action's answer read the
# shared cache: about a third of the CPU a move cost beyond a one-row insert (issue 15).
_read: dict[tuple[str, bool], tuple[float, "AtMatch"]] = {}
_READ_LIMIT = 10_000  # matches remembered at most; then forgotten all at once


def _forget(match_id: Any) -> None:
    _read.pop((str(match_id), True), None)
    _read.pop((str(match_id), False), None)


def at_match(match_id: Any, *, public: bool) -> AtMatch:
    """Who is at the table and, at a public match, how many watch: one cache read (a
    view's answer and its ETag are built from the same one), or what this process read
    less than PRESENCE_READ_SECONDS ago."""
    keep = settings.PRESENCE_READ_SECONDS
    key = (str(match_id), public)
    now = time.monotonic()
    kept = _read.get(key) if keep > 0 else None
    if kept is not None and kept[0] > now:
        return kept[1]
    at = _at_match_read(match_id, public)
    if keep > 0:
        if len(_read) >= _READ_LIMIT:
            _read.clear()
        _read[key] = (now + keep, at)
    return at


def _at_match_read(match_id: Any, public: bool) -> AtMatch:
    seat_keys = [_key(match_id, seat) for seat in range(4)]
    slot_keys = _slot_keys(match_id) if public else []
    found = shared_cache.run(lambda cache: cache.get_many(seat_keys + slot_keys), dict)
    present = {seat for seat, key in enumerate(seat_keys) if found.get(key)}
    return AtMatch(present, sum(1 for key in slot_keys if key in found))


# ---------------------------------------------------------------- spectators


def _slot_key(match_id: Any, slot: int) -> str:
    return f"watching:{match_id}:{slot}"


def _slot_keys(match_id: Any) -> list[str]:
    return [_slot_key(match_id, slot) for slot in range(settings.SPECTATOR_SLOTS)]


@in_pool
def _take_slot(match_id: str) -> int | None:
    ttl = 2 * settings.STREAM_KEEPALIVE_SECONDS + 5

    def take(cache: Any) -> int | None:
        taken = cache.get_many(_slot_keys(match_id))
        free = [s for s in range(settings.SPECTATOR_SLOTS) if _slot_key(match_id, s) not in taken]
        random.shuffle(free)  # two spectators arriving at once rarely try the same slot
        for slot in free[:8]:
            if cache.add(_slot_key(match_id, slot), True, ttl):
                return slot
        return None

    slot = shared_cache.run(take, _nothing)
    _forget(match_id)
    return slot


@in_pool
def _keep_slot(match_id: str, slot: int) -> None:
    ttl = 2 * settings.STREAM_KEEPALIVE_SECONDS + 5
    shared_cache.run(lambda cache: cache.set(_slot_key(match_id, slot), True, ttl), _nothing)


@in_pool
def _free_slot(match_id: str, slot: int) -> None:
    shared_cache.run(lambda cache: cache.delete(_slot_key(match_id, slot)), _nothing)
    _forget(match_id)


@contextlib.asynccontextmanager
async def watching(match_id: str) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """While a spectator's stream is open: counts them, and yields the refresh to call at
    each keep-alive."""
    slot = await _take_slot(match_id)

    async def refresh() -> None:
        if slot is not None:
            await _keep_slot(match_id, slot)

    try:
        yield refresh
    finally:
        if slot is not None:
            await _free_slot(match_id, slot)
