"""A private PostgreSQL server for tests that stop and start it (never the shared one):
benchmarks/_server.py's, which the benchmarks use too."""

from benchmarks._server import PrivatePostgres

__all__ = ["PrivatePostgres"]
