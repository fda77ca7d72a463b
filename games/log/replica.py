"""Reads that may lag go to a read-only replica, when one is configured.

`DATABASE_REPLICA_URL` (settings) adds the database alias `replica`: a streaming replica
of the primary, or on one machine the same PostgreSQL reached read-only. The reads that
may be a second behind (a finished match's replay, a person's history and statistics,
the leaderboard, a match's rating changes, the list of one's finished matches) run inside
`lagging_reads()`; everything else (actions, live views, streams, anything in a
transaction) reads the primary as before. With no replica configured nothing changes.

Why a router and a context rather than `.using()` in the selectors: the same models (a
match, its events) are read live and finished, so no rule by model can tell the two
apart; what can is the endpoint. The selectors stay as they are (callable from tasks and
tests with the primary's meaning), related rows read through an object follow it (the
router sees the same context), and an endpoint says in one line that its reads may lag.
The token's check and the throttles run before the handler, so they stay on the primary.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections

REPLICA = "replica"

# Per thread and per task (a ContextVar): a gunicorn thread's request, or one coroutine.
_lagging = ContextVar("lagging_reads", default=False)

T = TypeVar("T")


def configured() -> bool:
    return REPLICA in connections


@contextmanager
def lagging_reads() -> Iterator[None]:
    """The ORM's reads inside go to the replica (if any): only for answers that may lag."""
    token = _lagging.set(True)
    try:
        yield
    finally:
        _lagging.reset(token)


def read_caught_up(read: Callable[[], T], caught_up: Callable[[T], bool]) -> T:
    """`read()` on the replica; again on the primary if the replica had not caught up
    (`caught_up(result)` false): a replay must never be cut short by the replica's lag."""
    if configured():
        with lagging_reads():
            result = read()
        if caught_up(result):
            return result
    return read()


class ReplicaRouter:
    """Reads inside `lagging_reads()` to the replica, unless the primary's connection is
    in a transaction (then what it wrote, or locked, is what must be read); every write,
    and every migration, to the primary."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        if _lagging.get() and configured() and not connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return REPLICA
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model: type, **hints: Any) -> str:
        # Even for an object read from the replica (Django would otherwise write it back
        # where it came from).
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # one database, two ways in

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS
