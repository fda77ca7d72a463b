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

Django's client also makes a new redis.Redis object for every command, and redis-py's
constructor copies its table of about 170 response callbacks each time (a case-insensitive
dict, key by key): about 0.4 ms of CPU per cache call, three per action (the throttle's
two, presence's one), more than the action's own work. A redis.Redis object holds no
connection of its own (it takes one from its pool per command, and is documented safe to
share between threads), so here one is made per pool and shared.
"""

import threading
from typing import Any

from django.conf import settings
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import BlockingConnectionPool, Redis

_pools: dict[tuple[str, int], BlockingConnectionPool] = {}
_clients: dict[tuple[str, int], Redis] = {}
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
            _clients[url, size] = Redis(connection_pool=pool)
        return pool


def shared_client(url: str, **options: Any) -> Redis:
    """The process's one client of the pool for `url` (shared_pool)."""
    client = _clients.get((url, settings.REDIS_POOL_SIZE))
    if client is None:
        shared_pool(url, **options)
        client = _clients[url, settings.REDIS_POOL_SIZE]
    return client


class SharedPoolClient(RedisCacheClient):
    def _get_connection_pool(self, write: bool) -> BlockingConnectionPool:
        index = self._get_connection_pool_index(write)
        return shared_pool(self._servers[index], **self._pool_options)

    def get_client(self, key: Any = None, *, write: bool = False) -> Redis:
        index = self._get_connection_pool_index(write)
        return shared_client(self._servers[index], **self._pool_options)


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolClient
