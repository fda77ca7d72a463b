"""Django's Redis cache with one bounded connection pool per process.

Django's RedisCache makes a connection pool per cache object, and Django keeps a cache
object per thread and, under ASGI, per async context: in the stream process every stream
got its own (presence marks from the loop's thread pool), so each stream opened a new
Redis connection, held until the garbage collector freed its pool (the soak: 16 to 111
per uvicorn process). Here every cache object of the process draws on the same pool per
server URL: a BlockingConnectionPool of REDIS_POOL_SIZE connections (32), which waits up
to the socket timeout for a free connection rather than opening more. A connection is
held for one command, and a process has at most gunicorn's threads (4) or the event
loop's thread pool (at most 32) issuing commands at once, so 32 is never waited on in
practice. redis-py re-creates a pool's connections after a fork.
"""

import threading
from typing import Any

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import BlockingConnectionPool

_pools: dict[tuple[str, int], BlockingConnectionPool] = {}
_lock = threading.Lock()


def shared_pool(url: str, **options: Any) -> BlockingConnectionPool:
    """The process's one pool for `url` (made on first use)."""
    size = settings.REDIS_POOL_SIZE
    with _lock:
        pool = _pools.get((url, size))
        if pool is None:
            timeout = options.pop("socket_timeout", None)
            pool = BlockingConnectionPool.from_url(
                url,
                max_connections=size,
                timeout=timeout,
                socket_timeout=timeout,
                **options,
            )
            _pools[url, size] = pool
        return pool


class SharedPoolClient(RedisCacheClient):
    def _get_connection_pool(self, write: bool) -> BlockingConnectionPool:
        index = self._get_connection_pool_index(write)
        return shared_pool(self._servers[index], **self._pool_options)


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolClient
