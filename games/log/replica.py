"""Reads that may lag go to a read-only replica, when one is configured.

`DATABASE_REPLICA_URL` (settings) adds the database alias `replica`: a streaming replica
of the primary, or on one machine the same PostgreSQL reached read-only. The reads that
may be a second behind (a finished match's replay, a person's history and statistics,
the leaderboard, a match's rating changes, the list of one's finished matches) run inside
`lagging_reads()`; everything else (actions, live views, streams, anything in a
transaction) reads the primary as before. With no replica configured nothing changes.

A replica is read only while it is usable: it answered, and it was at most
DATABASE_REPLICA_MAX_LAG seconds behind the primary, when this process last looked (at
most once a second; a replica that did not answer, once every REPLICA_RETRY seconds).
Otherwise the reads that may lag read the primary: a replica that is down, or paused,
or far behind costs them nothing but the primary's work, and play never reads it.

Why a router and a context rather than `.using()` in the selectors: the same models (a
match, its events) are read live and finished, so no rule by model can tell the two
apart; what can is the endpoint. The selectors stay as they are (callable from tasks and
tests with the primary's meaning), related rows read through an object follow it (the
router sees the same context), and an endpoint says in one line that its reads may lag.
The token's check and the throttles run before the handler, so they stay on the primary.
"""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

REPLICA = "replica"

# Per thread and per task (a ContextVar): a gunicorn thread's request, or one coroutine.
_lagging = ContextVar("lagging_reads", default=False)

T = TypeVar("T")


def configured() -> bool:
    return REPLICA in connections


# Seconds between two looks at the replica's lag (per process), and after a replica that
# did not answer (its connection may take DATABASE_CONNECT_TIMEOUT to fail).
REPLICA_CHECK = 1.0
REPLICA_RETRY = 5.0
# How far behind the primary a PostgreSQL standby is, in seconds: 0 when it has replayed
# all it received (or is no standby: the primary read-only), else the time since the
# newest commit it replayed.
LAG_SQL = (
    "SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0"
    " WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0"
    " ELSE COALESCE(EXTRACT(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)


class _Health:
    """This process's last look at the replica: whether it may be read, and when to look
    again. One thread looks at a time; the others take the last answer meanwhile."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.usable = True
        self.next_look = 0.0
        self.lag: float | None = None  # seconds, at the last look (None: no answer)

    def reset(self) -> None:
        with self.lock:
            self.usable, self.next_look, self.lag = True, 0.0, None


health = _Health()


def usable() -> bool:
    """Whether the reads that may lag may go to the replica now (see the module's doc)."""
    now = time.monotonic()
    with health.lock:
        if now < health.next_look:
            return health.usable
        health.next_look = now + REPLICA_CHECK  # the others meanwhile: the last answer
    lag = replica_lag()
    ok = lag is not None and lag <= settings.DATABASE_REPLICA_MAX_LAG
    with health.lock:
        health.usable, health.lag = ok, lag
        if lag is None:
            health.next_look = time.monotonic() + REPLICA_RETRY
    return ok


def replica_lag() -> float | None:
    """The replica's lag in seconds (0 for a database that is not a PostgreSQL standby),
    or None if it did not answer."""
    connection = connections[REPLICA]
    if connection.vendor != "postgresql":
        return 0.0
    try:
        with connection.cursor() as cursor:
            cursor.execute(LAG_SQL)
            return float(cursor.fetchone()[0])
    except DatabaseError:
        connection.close()  # the next look connects again
        return None


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
    in a transaction (then what it wrote, or locked, is what must be read) or the replica
    is not usable (down, or too far behind); every write, and every migration, to the
    primary."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        if (
            _lagging.get()
            and configured()
            and not connections[DEFAULT_DB_ALIAS].in_atomic_block
            and usable()
        ):
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
