"""One bounded Redis connection pool per process for the cache (games/live/redis_cache.py):
many threads and async contexts, each with its own Django cache object (as stream
clients and request threads have), share REDIS_POOL_SIZE connections at most."""

import asyncio
import threading

import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches

THREADS = 40


def _clients_on_our_database() -> int:
    url = settings.CACHES["default"]["LOCATION"]
    server = redis.Redis.from_url(url)
    try:
        db = server.connection_pool.connection_kwargs.get("db", 0)
        return sum(1 for c in server.client_list() if int(c["db"]) == db) - 1  # not this one
    finally:
        server.close()


def test_many_threads_and_async_contexts_share_one_bounded_pool(settings):
    # bin/test always sets REDIS_URL: without the Redis cache this is a failure, not a skip.
    assert "redis_cache" in settings.CACHES["default"]["BACKEND"], "the tests need REDIS_URL"
    settings.REDIS_POOL_SIZE = 6
    before = _clients_on_our_database()
    barrier = threading.Barrier(THREADS + 1)

    def use_the_cache(i: int) -> None:
        cache = caches["default"]  # a cache object of this thread's own
        cache.set(f"pool-test:{i}", i, 30)
        assert cache.get(f"pool-test:{i}") == i
        barrier.wait(30)  # all alive (with their cache objects) while counted

    threads = [threading.Thread(target=use_the_cache, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    barrier.wait(30)
    with_threads = _clients_on_our_database() - before
    for thread in threads:
        thread.join()

    async def streams() -> None:  # as stream clients use it: from the loop's thread pool
        mark = sync_to_async(
            lambda i: caches["default"].set(f"pool-test:a{i}", i, 30), thread_sensitive=False
        )
        await asyncio.gather(*(mark(i) for i in range(THREADS)))

    asyncio.run(streams())
    with_contexts = _clients_on_our_database() - before
    assert with_threads <= 6, f"{with_threads} connections for {THREADS} threads"
    assert with_contexts <= 6, f"{with_contexts} connections after {THREADS} async contexts"
