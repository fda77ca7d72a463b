"""Who is at the table: a person is present while a live stream of theirs is open.

Kept in Django's cache (Redis in production, shared by every API process; the
process's memory in the embedded default, which is one process), not in the event
log: presence is not part of the game. A stream marks its seat when it opens and
at every keep-alive; the mark lapses after two keep-alive intervals without one,
and this process removes it when its last stream for the seat closes (another
process's stream puts it back at its next keep-alive).
"""

import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from django.conf import settings

from games import shared_cache
from games.live import in_pool

_open: Counter = Counter()  # this process's open streams per (match, seat); loop thread only


def _key(match_id: Any, seat: int) -> str:
    return f"presence:{match_id}:{seat}"


# Presence must never break a stream or a match summary: with the cache down
# (games.shared_cache) marks are skipped and nobody is known to be present, with one
# warning for the outage rather than one per keep-alive or per request.


def _nothing() -> None:
    return None


@in_pool
def _mark(match_id: str, seat: int) -> None:
    ttl = 2 * settings.STREAM_KEEPALIVE_SECONDS + 5
    shared_cache.run(lambda cache: cache.set(_key(match_id, seat), True, ttl), _nothing)


@in_pool
def _unmark(match_id: str, seat: int) -> None:
    shared_cache.run(lambda cache: cache.delete(_key(match_id, seat)), _nothing)


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


def present_seats(match_id: Any) -> set[int]:
    keys = [_key(match_id, seat) for seat in range(4)]
    found = shared_cache.run(lambda cache: cache.get_many(keys), dict)
    return {seat for seat in range(4) if found.get(_key(match_id, seat))}
