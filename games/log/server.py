"""Which PostgreSQL server this process's connections reach, and the process's copies of
the log, which hold for that server only.

A process keeps copies of matches (games.log.eventlog's folded states, games.play.selectors'
rows and seats, games.live.live's recent events of a watched match). Each holds for a
(match, seq) because the log only grows. After a failover that lost acknowledged events
(asynchronous replication, or while the synchronous keeper had stopped waiting) the
promoted standby's log is shorter, and new actions write other events at the lost seqs:
a copy of a lost event would answer again once the match's seq reaches its own.

So every new connection of the default alias (Django's connection_created) looks at the
server it reached: libpq's host, port and resolved address, which psycopg has without a
query (a multi-host DATABASE_URL with target_session_attrs=read-write lands on another
host:port after a failover). When that differs from the one before, the process's
`generation` moves on and every copy is dropped; each copy also carries the generation of
the connection that made it and is used only while that is the process's generation, so a
copy made on the old server by another thread after the change is never used either.

Not seen: a new primary at the same host, port and address, i.e. an IP address that moves
to it (a floating IP); a DNS name moved to it is seen (libpq resolves it to another
address). Nothing PostgreSQL tells a client at connection time names the server (a
promoted standby even keeps the primary's system identifier; its timeline takes a
query). With a floating IP the operator restarts the processes after a lossy failover
(docs/operations/several-nodes.md).
"""

import logging
import threading
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS

log = logging.getLogger(__name__)

_lock = threading.Lock()
_server: tuple[Any, ...] | None = None  # the server the newest connection reached
_drops: list[Callable[[], None]] = []

# How many times this process's connections have reached another server than the one
# before: a copy made at another generation is not used.
generation = 0


def current() -> int:
    return generation


def of(connection: Any) -> int:
    """The generation of the server `connection` (a Django connection) reached when it
    connected: what a copy made from its reads or writes is stamped with."""
    return getattr(connection, "log_server_generation", generation)


def on_change(drop: Callable[[], None]) -> None:
    """Call `drop` (which drops a kind of copies) whenever the server changes."""
    _drops.append(drop)


def identity(connection: Any) -> tuple[Any, ...] | None:
    """The server a PostgreSQL connection reached, as libpq tells it without a query:
    host, port and the address it resolved to (None for another database)."""
    if connection.vendor != "postgresql" or connection.connection is None:
        return None
    info = connection.connection.info
    try:
        address = info.hostaddr  # libpq 12 and later
    except Exception:  # noqa: BLE001 (psycopg.NotSupportedError on an older libpq)
        address = None
    return (info.host, info.port, address)


def connected(sender: Any = None, connection: Any = None, **kwargs: Any) -> None:
    """connection_created's receiver (games.apps): no query, a tuple compared."""
    global _server, generation
    if connection is None or connection.alias != DEFAULT_DB_ALIAS:
        return
    server = identity(connection)
    if server is None:
        return
    with _lock:
        changed = _server is not None and server != _server
        if changed:
            generation += 1
            log.warning(
                "the database is now %s:%s (%s), was %s:%s (%s): dropping this process's "
                "copies of matches",
                *server,
                *_server,
            )
        _server = server
        connection.log_server_generation = generation
    if changed:
        for drop in _drops:
            drop()
