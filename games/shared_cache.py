"""Django's cache (Redis in production, shared by every process), used so that its
being down never fails a request.

`run(use, fallback)` calls `use(cache)` on the shared cache. When the cache is
unreachable (or hung past the socket timeouts in settings.CACHE_OPTIONS), it
calls the fallback instead: the throttles count in this process's own memory
(`local`), presence answers "nobody known". The shared cache is then left alone
for CACHE_RETRY_SECONDS, so an outage costs one failed connection per process
every few seconds, not one per request, and logs one warning when it starts and
one when it ends, not one per request.
"""

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
T = TypeVar("T")

# What an unreachable or broken cache server raises (redis-py wraps socket errors;
# OSError covers a backend that does not).
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)

# This process's stand-in for the shared cache while that is down.
local = LocMemCache("while-the-shared-cache-is-down", {"OPTIONS": {"MAX_ENTRIES": 100_000}})

_lock = threading.Lock()
_down = False
_retry_at = 0.0  # time.monotonic(): leave the shared cache alone until then


def is_down() -> bool:
    return _down and time.monotonic() < _retry_at


def run(use: Callable[[BaseCache], T], fallback: Callable[[], T] | None = None) -> T:
    """`use(the shared cache)`, or, while it is unreachable, `fallback()` (default:
    `use(local)`)."""
    if fallback is None:
        fallback = lambda: use(local)  # noqa: E731
    if is_down():
        return fallback()
    try:
        result = use(caches["default"])
    except CACHE_ERRORS as exc:
        _went_down(exc)
        return fallback()
    if _down:
        _came_back()
    return result


def reset() -> None:
    """Forget an outage and the local counts (tests start each one clean)."""
    global _down, _retry_at
    with _lock:
        _down, _retry_at = False, 0.0
    local.clear()


def _went_down(exc: BaseException) -> None:
    global _down, _retry_at
    with _lock:
        first, _down = not _down, True
        _retry_at = time.monotonic() + settings.CACHE_RETRY_SECONDS
    if first:
        log.warning(
            "the cache is unreachable (%s: %s): throttles count in each process's memory, "
            "presence is unknown, until it answers again",
            type(exc).__name__,
            exc,
        )


def _came_back() -> None:
    global _down
    with _lock:
        was_down, _down = _down, False
    if was_down:
        log.warning("the cache answers again")
