"""A process's copies of a match after a failover that lost acknowledged events (issue 36):
the promoted standby's log is shorter, another process writes other events at the lost
seqs, and this process's copies made on the old primary (the folded state, the row and
seats, a stream's recent events) must not answer: the view and the next action are
decided from the new primary's log.

Two ways the process knows: its connections reach another host:port (a multi-host
DATABASE_URL after a failover: games/log/server.py drops every copy), or, where it cannot
tell (a floating IP: the new primary at the old one's host and port), the copies' stamps
(the row's updated_at and the events' created_at their commit wrote) no longer match.

Real servers, no mocks: PostgreSQL servers of the test's own on spare ports, given the
test database as it was before the last (lost) action; the other process is a
subprocess."""

import asyncio
import os
import subprocess
import sys
import uuid
from typing import Any

import pytest
from django.db import connection

from benchmarks._server import ROOT, _postgres_binary
from games import engine as E
from games.live import live
from games.log import eventlog, log_check, server
from games.models import Match
from games.play import selectors, services
from games.play.errors import ServiceError
from tests.conftest import make_player
from tests.games.helpers import four_player_match
from tests.games.postgres_support import PrivatePostgres

# The other process: one action by the seat to act, on the promoted standby.
OTHER_PROCESS = """
import sys, django
django.setup()
from games.models import Match
from games.play import services
match = Match.objects.get(pk=sys.argv[1])
user = match.seats.get(index=match.turn_seat).user
services.action_submit(match_id=match.pk, action={"type": sys.argv[2]}, user=user)
print(Match.objects.get(pk=match.pk).seq)
"""


@pytest.fixture
def standby():
    postgres = PrivatePostgres().init()
    postgres.start()
    yield postgres
    postgres.destroy()


def _act(match_id, action: dict) -> None:
    match = Match.objects.get(pk=match_id)
    user = match.seats.get(index=match.turn_seat).user
    services.action_submit(match_id=match_id, action=action, user=user)


def _psql(port: Any, *args: str, **kwargs: Any) -> None:
    command = [_postgres_binary("psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]
    subprocess.run([*command, "-q", "-v", "ON_ERROR_STOP=1", *args], check=True,
                   capture_output=True, timeout=120, **kwargs)  # fmt: skip


def _copy_database(name: str, port: Any, into: str) -> None:
    """The test database, as it is now, into a database `into` on the server at `port`."""
    shared = connection.settings_dict
    _psql(port, "-c", f'CREATE DATABASE "{into}"')
    dump = subprocess.run(
        [_postgres_binary("pg_dump"), "-h", shared["HOST"] or "127.0.0.1",
         "-p", str(shared["PORT"] or 5432), "-U", shared["USER"] or "postgres", name],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    _psql(port, "-d", into, input=dump.stdout)


def _views(state: E.MatchState) -> list[dict]:
    return [E.player_view(state, seat) for seat in range(4)]


def _orders_up_elsewhere(match_id, port: Any, name: str) -> int:
    """Another process, on database `name` at `port`, orders up (the seat to act): the
    match's seq after."""
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/{name}",
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
    }
    other = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, str(match_id), "order_up"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert other.returncode == 0, other.stderr[-3000:]
    return int(other.stdout.split()[-1])


def _passes_to(match_id, seq: int) -> None:
    """Passes up to `seq` on the server this process is on: its copies are there after."""
    while Match.objects.get(pk=match_id).seq < seq:
        _act(match_id, {"type": "pass"})
    assert Match.objects.get(pk=match_id).seq == seq
    assert selectors.cached_match_with_seats(match_id).seq == seq
    assert eventlog._cache[match_id].seq == seq


def _decided_from_the_log(match_id, seq: int) -> None:
    """On the server after the failover, at `seq` (where this process's copies are, of the
    lost passes): the copies do not answer; the dealer discards (the log ordered up)."""
    copy = selectors.cached_match_with_seats(match_id)
    match = selectors.match_with_seats(match_id)
    assert match.seq == seq  # the match's seq is back at the copies' own
    if copy is not None:  # the copy held may be offered: then the write's gate refuses it
        assert copy.seq == seq
    logged = list(eventlog.events_of(match))
    assert _views(eventlog.load(match).state) == _views(eventlog.fold(logged))
    assert E.player_view(eventlog.fold(logged), 0)["phase"] == E.DISCARD
    # The next action through the service (the copy's path first): decided on the log.
    dealer_view = E.player_view(eventlog.fold(logged), match.turn_seat)
    discard = next(a for a in dealer_view["legal_actions"] if a["type"] == E.ACTION_DISCARD)
    _act(match_id, discard)
    match = Match.objects.get(pk=match_id)
    assert match.seq > seq
    log_check.check_events(list(eventlog.events_of(match)))


def _point_at(port: Any, name: str, host: str | None = None) -> None:
    """This process's next connection goes to database `name` at `port` (and `host`, if
    given): what libpq does at a failover."""
    connection.close()
    connection.settings_dict.update(PORT=str(port), NAME=name)
    if host is not None:
        connection.settings_dict["HOST"] = host


def test_copies_made_on_the_old_primary_never_answer_on_the_promoted_standby(
    transactional_db, standby
):
    """The failover seen: the process's connections reach another host:port."""
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = uuid.UUID(four_player_match(clients))
    name = connection.settings_dict["NAME"]
    at_failover = Match.objects.get(pk=match_id).seq

    # The standby has the log up to here. Another process on it, after the failover,
    # orders up where the lost actions (below) passed.
    _copy_database(name, standby.port, name)
    seq_after = _orders_up_elsewhere(match_id, standby.port, name)
    assert seq_after > at_failover
    # On the old primary (the test database), acknowledged and then lost.
    _passes_to(match_id, seq_after)
    loop = asyncio.new_event_loop()  # a stream process's: its watch keeps the events read
    watch = live.Watch(str(match_id))
    lost = loop.run_until_complete(watch.events_after(at_failover))
    assert [e.type for e in lost] == ["bid"] * (seq_after - at_failover)
    before = server.current()

    shared = dict(connection.settings_dict)
    _point_at(standby.port, name, "127.0.0.1")
    try:
        connection.ensure_connection()  # as a request's token check does first
        assert selectors.cached_match_with_seats(match_id) is None  # dropped
        streamed = loop.run_until_complete(watch.events_after(at_failover))
        logged = list(eventlog.events_of(match_id, after=at_failover))
        assert [(e.seq, e.payload) for e in streamed] == [(e.seq, e.payload) for e in logged]
        _decided_from_the_log(match_id, seq_after)
        assert server.current() == before + 1  # one change seen, at the first connection
    finally:
        loop.close()
        connection.close()
        connection.settings_dict.update(HOST=shared["HOST"], PORT=shared["PORT"], NAME=name)


def test_copies_made_on_the_old_primary_never_answer_at_the_same_address(transactional_db):
    """The failover not seen (a floating IP): the promoted standby's log at the old
    primary's host and port. Here both logs are databases of the shared server (the test
    database, and a copy of it made before the lost actions): to the process, what a
    floating IP makes of a failover, the same address answering with another log. The
    copies' stamps tell."""
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = uuid.UUID(four_player_match(clients))
    shared = dict(connection.settings_dict)
    name, port = shared["NAME"], shared["PORT"] or 5432
    standby = f"{name}_standby"
    _psql(port, "-c", f'DROP DATABASE IF EXISTS "{standby}" WITH (FORCE)')
    try:
        _copy_database(name, port, standby)
        seq_after = _orders_up_elsewhere(match_id, port, standby)
        _passes_to(match_id, seq_after)  # on the old primary, acknowledged and then lost
        before = server.current()
        _point_at(shared["PORT"], standby)
        connection.ensure_connection()
        assert server.current() == before  # not seen
        # The copy of the row is still held; its turn seat passes, as it may on the lost
        # log: decided on the copy, its write's gate (the row's seq and updated_at) finds
        # another row, and under the lock the log refuses a pass (the dealer discards).
        copy = selectors.cached_match_with_seats(match_id)
        assert copy is not None and copy.seq == seq_after
        passer = selectors.seats_of(copy)[copy.turn_seat].user
        with pytest.raises(ServiceError):
            services.action_submit(match_id=match_id, action={"type": "pass"}, user=passer)
        assert Match.objects.get(pk=match_id).seq == seq_after
        _decided_from_the_log(match_id, seq_after)
    finally:
        connection.close()
        connection.settings_dict.update(HOST=shared["HOST"], PORT=shared["PORT"], NAME=name)
        _psql(port, "-c", f'DROP DATABASE IF EXISTS "{standby}" WITH (FORCE)')
