"""A real Redis server of the test's own, on a spare port, that the test can stop and
start again (the shared Redis on 6379 is never touched): benchmarks/_server.py's, which
the cluster harness (benchmarks/_cluster.py) uses too."""

from benchmarks._server import RedisServer

__all__ = ["RedisServer"]
