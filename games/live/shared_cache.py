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

from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError

from games.live.outage import Outage

T = TypeVar("T")

# What an unreachable or broken cache server raises (redis-py wraps socket errors;
# OSError covers a backend that does not).
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)

# This process's stand-in for the shared cache while that is down.
local = LocMemCache("while-the-shared-cache-is-down", {"OPTIONS": {"MAX_ENTRIES": 100_000}})

outage = Outage(
    "the cache",
    "throttles count in each process's memory, presence is unknown",
    lambda: settings.CACHE_RETRY_SECONDS,
)


def is_down() -> bool:
    return outage.is_down()


def run(use: Callable[[BaseCache], T], fallback: Callable[[], T] | None = None) -> T:
    """`use(the shared cache)`, or, while it is unreachable, `fallback()` (default:
    `use(local)`)."""
    if fallback is None:
        fallback = lambda: use(local)  # noqa: E731
    if outage.is_down():
        return fallback()
    try:
        result = use(caches["default"])
    except CACHE_ERRORS as exc:
        outage.failed(exc)
        return fallback()
    outage.succeeded()
    return result


def reset() -> None:
    """Forget an outage and the local counts (tests start each one clean)."""
    outage.reset()
    local.clear()
