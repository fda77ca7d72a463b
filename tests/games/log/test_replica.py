"""Reads that may lag go to a read-only replica (games/log/replica.py, issue 15).

The replica here is what production's DATABASE_REPLICA_URL makes (settings.replica_from_env),
pointed at the test database through a connection PostgreSQL holds read-only
(`default_transaction_read_only=on`): a second, real connection, so a write through it is
refused by PostgreSQL itself. A lagging replica is that connection inside a REPEATABLE
READ transaction begun earlier: it sees the database as it stood then, as a replica that
stopped replaying would.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connections, transaction
from django.test.utils import CaptureQueriesContext

from benchmarks._server import spare_port
from euchre_service.settings import replica_from_env
from games.log.replica import REPLICA, health
from tests.games.helpers import COMPUTERS, act, create_match, play_to_the_end, view
from tests.games.http.test_streams import assert_whole_log, play
from tests.games.http.test_streams import create_match as create_match_on
from tests.games.server_support import Player

# The replica's connection is a real one: the test case lets it open.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", REPLICA])

READ_ONLY = "options=" + quote("-c default_transaction_read_only=on")


@pytest.fixture(autouse=True, scope="module")
def replica_alias(django_db_setup) -> Iterator[None]:
    """The `replica` alias, added once the test database exists (it mirrors it) and
    before each test case starts (it must know every alias it may use)."""
    db = connections["default"].settings_dict
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    url = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}?{READ_ONLY}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DATABASE_REPLICA_URL", url)
        alias = replica_from_env(conn_max_age=0)
    aliases = {"default": dict(db), REPLICA: alias}  # Django checks for a default
    connections.settings[REPLICA] = connections.configure_settings(aliases)[REPLICA]
    yield
    connections[REPLICA].close()
    del connections[REPLICA]
    del connections.settings[REPLICA]


@pytest.fixture(autouse=True)
def replica_looked_at_afresh() -> Iterator[None]:
    """Each test starts with no look at the replica's health remembered from another."""
    health.reset()
    yield
    health.reset()


@contextmanager
def no_replica() -> Iterator[None]:
    """As with DATABASE_REPLICA_URL unset."""
    alias = connections.settings.pop(REPLICA)
    try:
        yield
    finally:
        connections.settings[REPLICA] = alias


@contextmanager
def queries_on(*aliases: str) -> Iterator[dict[str, CaptureQueriesContext]]:
    contexts = {alias: CaptureQueriesContext(connections[alias]) for alias in aliases}
    for context in contexts.values():
        context.__enter__()
    try:
        yield contexts
    finally:
        for context in contexts.values():
            context.__exit__(None, None, None)


def sql(context: CaptureQueriesContext) -> str:
    return " ".join(q["sql"] for q in context.captured_queries)


def finished_match(client) -> dict:
    body = create_match(client, COMPUTERS, options={"target_score": 1})
    return play_to_the_end(client, body["id"])


def lagging_endpoints(match_id: str) -> list[str]:
    return [
        f"/api/v1/matches/{match_id}/replay",
        f"/api/v1/matches/{match_id}/ratings",
        "/api/v1/users/alice/matches",
        "/api/v1/users/alice/stats",
        "/api/v1/leaderboard",
        "/api/v1/matches?status=finished",
    ]


def test_a_write_through_the_replica_is_refused_by_postgresql(player):
    replica = connections[REPLICA]
    with replica.cursor() as cursor:
        cursor.execute("SHOW transaction_read_only")
        assert cursor.fetchone() == ("on",)
    with pytest.raises(DatabaseError) as refused:
        get_user_model().objects.using(REPLICA).create(username="mallory")
    assert isinstance(refused.value.__cause__, psycopg.errors.ReadOnlySqlTransaction)
    # An object read from the replica is written back to the primary, not to where it
    # came from (Django's own fallback): the router sends every write to the primary.
    user = get_user_model().objects.using(REPLICA).get(username="alice")
    user.first_name = "Alice"
    user.save()
    assert get_user_model().objects.get(username="alice").first_name == "Alice"


def test_the_reads_that_may_lag_answer_the_same_through_the_replica(player):
    _user, client = player
    with no_replica():
        match_id = finished_match(client)["id"]
        before = {url: client.get(url) for url in lagging_endpoints(match_id)}
    for url, answer in before.items():
        with queries_on("default", REPLICA) as seen:
            response = client.get(url)
        assert response.status_code == answer.status_code == 200, url
        assert response.json() == answer.json(), url
        assert seen[REPLICA].captured_queries, f"{url} did not read the replica"
    with queries_on(REPLICA) as seen:
        client.get(f"/api/v1/matches/{match_id}/replay")
    assert "games_event" in sql(seen[REPLICA])  # the log itself came from the replica


def test_a_replay_reads_the_primary_while_the_replica_has_not_caught_up(player):
    _user, client = player
    replica = connections[REPLICA]
    match_id = create_match(client, COMPUTERS, options={"target_score": 1})["id"]
    with transaction.atomic(using=REPLICA):
        with replica.cursor() as cursor:  # the replica stops replaying here
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("SELECT count(*) FROM games_event")
        final = play_to_the_end(client, match_id)
        with queries_on("default", REPLICA) as seen:
            lagging = client.get(f"/api/v1/matches/{match_id}/replay")
        assert "games_event" in sql(seen[REPLICA])  # asked, found it behind,
        assert "games_event" in sql(seen["default"])  # and read the primary
    caught_up = client.get(f"/api/v1/matches/{match_id}/replay")
    assert lagging.status_code == caught_up.status_code == 200
    assert lagging.json() == caught_up.json()
    assert len(lagging.json()["hands"]) == final["hands_played"]  # not cut short


def test_actions_and_live_views_never_use_the_replica(player):
    _user, client = player
    with queries_on(REPLICA) as seen:
        match_id = create_match(client, COMPUTERS, options={"target_score": 1})["id"]
        body = view(client, match_id)
        assert act(client, match_id, body["view"]["legal_actions"][0]).status_code == 200
        for url in (
            f"/api/v1/matches/{match_id}/events",
            "/api/v1/matches",
            "/api/v1/matches?status=active",
            "/api/v1/matches/public",
            "/api/v1/me/matches",
        ):
            assert client.get(url).status_code == 200, url
        play_to_the_end(client, match_id)  # the computers' moves too (in-process here)
    assert seen[REPLICA].captured_queries == []


@pytest.mark.slow
def test_a_server_whose_replica_is_down_plays_and_streams_and_its_lagging_reads_read_the_primary(
    servers,
):
    """A real API process (uvicorn) whose DATABASE_REPLICA_URL leads nowhere: a match is
    created, played, streamed and listed without a single 503, so none of that reads the
    replica, in whichever thread it runs; the reads that may lag, which would go there,
    find it does not answer and read the primary (they answered 503 while it was down)."""
    nowhere = f"postgres://postgres@127.0.0.1:{spare_port()}/nothing?{READ_ONLY}"
    server = servers(DATABASE_REPLICA_URL=nowhere, DATABASE_CONNECT_TIMEOUT="2")
    alice = Player(server)
    match_id = create_match_on(alice, ["me", "computer", "computer", "computer"])
    stream = alice.stream(match_id)
    final = play([alice], match_id)
    assert_whole_log(stream, final["seq"])
    for path in (f"matches/{match_id}/events", "matches", "matches/public", "me/matches"):
        alice.call("GET", path)
    replay = alice.call("GET", f"matches/{match_id}/replay")
    assert replay["hands"][-1]["events"][-1]["seq"] == final["seq"]  # the whole log
    assert alice.call("GET", f"users/{alice.username}/stats")["all"]["matches"] == 1
