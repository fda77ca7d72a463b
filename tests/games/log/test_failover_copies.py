"""A process's copies of a match after a failover that lost acknowledged events (issue 36):
the promoted standby's log is shorter, another process writes other events at the lost
seqs, and this process's connections now reach another server (another host:port, as a
multi-host DATABASE_URL lands after a failover). Its copies made on the old server (the
folded state, the row and seats) must not answer: the view and the next action are
decided from the new server's log (games/log/server.py).

Real servers, no mocks: the old primary is the test database on the shared PostgreSQL, the
promoted standby a PostgreSQL of this test's own on a spare port, given the old one's
database as it was before the last (lost) action; the other process is a subprocess. A
stream's watch of the match (its recent events) is checked the same way."""

import asyncio
import os
import subprocess
import sys
import uuid

import pytest
from django.db import connection

from benchmarks._server import ROOT, _postgres_binary
from games import engine as E
from games.live import live
from games.log import eventlog, log_check, server
from games.models import Match
from games.play import selectors, services
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


def _copy_database(name: str, to: PrivatePostgres) -> None:
    """The test database, as it is now, into a database of the same name on `to`."""
    shared = connection.settings_dict
    source = ["-h", shared["HOST"] or "127.0.0.1", "-p", str(shared["PORT"] or 5432)]
    target = ["-h", "127.0.0.1", "-p", str(to.port), "-U", "postgres"]
    psql = _postgres_binary("psql")
    subprocess.run([psql, *target, "-q", "-c", f'CREATE DATABASE "{name}"'], check=True)
    dump = subprocess.run(
        [_postgres_binary("pg_dump"), *source, "-U", shared["USER"] or "postgres", name],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    subprocess.run(
        [psql, *target, "-q", "-v", "ON_ERROR_STOP=1", "-d", name],
        input=dump.stdout, check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def _views(state: E.MatchState) -> list[dict]:
    return [E.player_view(state, seat) for seat in range(4)]


def test_copies_made_on_the_old_primary_never_answer_on_the_promoted_standby(
    transactional_db, standby
):
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = uuid.UUID(four_player_match(clients))
    name = connection.settings_dict["NAME"]
    at_failover = Match.objects.get(pk=match_id).seq

    # The standby has the log up to here. Another process on it, after the failover,
    # orders up where the lost action (below) passed.
    _copy_database(name, standby)
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{standby.port}/{name}",
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
    }
    other = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, str(match_id), "order_up"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert other.returncode == 0, other.stderr[-3000:]
    seq_after = int(other.stdout.split()[-1])
    assert seq_after > at_failover

    # On the old primary, acknowledged and then lost: passes up to the same seq. This
    # process keeps its copies of the match there.
    while Match.objects.get(pk=match_id).seq < seq_after:
        _act(match_id, {"type": "pass"})
    assert Match.objects.get(pk=match_id).seq == seq_after
    assert selectors.cached_match_with_seats(match_id).seq == seq_after
    assert eventlog._cache[match_id][0] == seq_after
    loop = asyncio.new_event_loop()  # a stream process's: its watch keeps the events read
    watch = live.Watch(str(match_id))
    lost = loop.run_until_complete(watch.events_after(at_failover))
    assert [e.type for e in lost] == ["bid"] * (seq_after - at_failover)
    before = server.current()

    shared = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(standby.port))
    try:
        # The failover: this process's next connection reaches the promoted standby.
        copy = selectors.cached_match_with_seats(match_id)
        match = selectors.match_with_seats(match_id)
        assert match.seq == seq_after  # the match's seq is back at the copies' own
        assert copy is None or (copy.turn_seat, copy.seq) == (match.turn_seat, match.seq)

        # The view: the standby's log folded, not the old primary's copy.
        logged = list(eventlog.events_of(match))
        assert _views(eventlog.load(match).state) == _views(eventlog.fold(logged))
        assert E.player_view(eventlog.fold(logged), 0)["phase"] == E.DISCARD
        streamed = loop.run_until_complete(watch.events_after(at_failover))
        assert [(e.seq, e.payload) for e in streamed] == [
            (e.seq, e.payload) for e in logged if e.seq > at_failover
        ]

        # The next action is decided on the standby's log: the dealer discards (after a
        # pass a discard is refused) and the log still checks.
        dealer_view = E.player_view(eventlog.fold(logged), match.turn_seat)
        discard = next(a for a in dealer_view["legal_actions"] if a["type"] == E.ACTION_DISCARD)
        _act(match_id, discard)
        match = Match.objects.get(pk=match_id)
        assert match.seq > seq_after
        log_check.check_events(list(eventlog.events_of(match)))
        assert server.current() == before + 1  # one change seen, at the first connection
    finally:
        loop.close()
        connection.close()
        connection.settings_dict.update(HOST=shared["HOST"], PORT=shared["PORT"])
