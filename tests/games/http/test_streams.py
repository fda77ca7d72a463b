"""GET /matches/{id}/stream: live events through real uvicorn processes, PostgreSQL and Redis."""

import os
import signal
import time
from collections.abc import Callable

import pytest
import requests
from django.test import Client

from tests.games import helpers
from tests.games.server_support import ApiServer, Player, SseClient

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SHORT = {"target_score": 3}


def create_match(creator: Player, seats: list[str], options=SHORT) -> str:
    body = {
        "seats": [{"kind": "computer"} if s == "computer" else {"kind": s} for s in seats],
        "options": options,
    }
    return creator.call("POST", "matches", body, status=201)["id"]


def play(players: list[Player], match_id: str, until: Callable[[], bool] = lambda: False) -> dict:
    """Each person takes the first legal action whenever it is their turn, until the match
    is over or `until()`; returns the last view seen."""
    for _ in range(5000):
        moved = False
        for player in players:
            view = player.call("GET", f"matches/{match_id}")
            if view["status"] == "finished" or until():
                return view
            legal = view["view"]["legal_actions"]
            if legal:
                player.call("POST", f"matches/{match_id}/actions", legal[0])
                moved = True
        if not moved:
            time.sleep(0.02)
    raise AssertionError("the match did not end")


def server_in(servers, mode: str) -> ApiServer:
    """An API process publishing through Redis, or (embedded) to its own hub."""
    return servers() if mode == "redis" else servers(REDIS_URL="")


def alice_and_bob(server: ApiServer, west: str, north: str) -> tuple[Player, Player, str]:
    """Alice creates a match with an open seat (west or north) and bob takes it."""
    alice, bob = Player(server), Player(server)
    match_id = create_match(alice, ["me", west, north, "computer"])
    bob.call("POST", f"matches/{match_id}/join")
    return alice, bob, match_id


def assert_whole_log(client: SseClient, final_seq: int) -> None:
    client.wait_for(lambda c: c.ended, what="the end of the stream")
    assert client.ids == list(range(1, final_seq + 1))
    assert [e["seq"] for e in client.events] == client.ids
    assert "match_finished" in [e["type"] for e in client.events[-3:]]


# ---------------------------------------------------------------- live events


@pytest.mark.parametrize("mode", ["redis", "embedded"])
def test_a_second_client_sees_every_event_of_a_match_in_order(servers, mode):
    alice, bob, match_id = alice_and_bob(server_in(servers, mode), "computer", "open")
    bobs_stream = bob.stream(match_id)

    final = play([alice, bob], match_id)

    assert_whole_log(bobs_stream, final["seq"])
    dealt = [e for e in bobs_stream.events if e["type"] == "hand_dealt"]
    assert dealt  # each deal as bob may see it: his own five cards, not the deck
    assert all("deck" not in e["payload"] and len(e["payload"]["cards"]) == 5 for e in dealt)
    log = bob.call("GET", f"matches/{match_id}/events")["events"]
    assert [(e["seq"], e["type"], e["seat"]) for e in bobs_stream.events] == [
        (e["seq"], e["type"], e["seat"]) for e in log
    ]


def test_a_client_disconnected_mid_hand_resumes_with_exactly_the_missed_events(servers):
    server = servers()
    alice = Player(server)
    match_id = create_match(alice, ["me", "computer", "computer", "computer"])
    first = alice.stream(match_id)
    play([alice], match_id, until=lambda: any(e["type"] == "card_played" for e in first.events))
    first.close()
    seen = first.ids[-1]
    assert "match_finished" not in [e["type"] for e in first.events]

    # Moves the client misses while it is away: at least one more card of this hand.
    view = play([alice], match_id, until=lambda: _seq(alice, match_id) > seen + 2)
    missed_up_to = view["seq"]

    resumed = alice.stream(match_id, last_event_id=seen)
    resumed.wait_for_seq(missed_up_to)
    assert resumed.ids == list(range(seen + 1, missed_up_to + 1))  # nothing twice, no gap
    final = play([alice], match_id)
    resumed.wait_for(lambda c: c.ended, what="the end")
    assert first.ids + resumed.ids == list(range(1, final["seq"] + 1))


def test_after_in_the_query_resumes_like_last_event_id(servers):
    server = servers()
    alice = Player(server)
    match_id = create_match(alice, ["me", "computer", "computer", "computer"])
    seq = alice.call("GET", f"matches/{match_id}")["seq"]
    client = SseClient(f"{server.url}/api/v1/matches/{match_id}/stream?after=3", alice.headers)
    client.wait_for_seq(seq)
    assert client.ids == list(range(4, seq + 1))
    # Last-Event-ID wins over ?after (a browser's EventSource resends its first URL).
    client.close()
    both = SseClient(
        f"{server.url}/api/v1/matches/{match_id}/stream?after=1",
        {**alice.headers, "Last-Event-ID": str(seq - 1)},
    )
    both.wait_for_seq(seq)
    assert both.ids == [seq]
    both.close()


def test_two_api_processes_serve_one_match_and_a_client_on_either_sees_all_events(servers):
    a, b = servers(), servers()
    alice = Player(a)
    match_id = create_match(alice, ["me", "open", "computer", "computer"])
    bob = Player(b)
    bob.call("POST", f"matches/{match_id}/join")
    on_a, on_b = bob.on(a).stream(match_id), alice.on(b).stream(match_id)

    final = play([alice, bob], match_id)  # alice's moves through A, bob's through B

    assert_whole_log(on_a, final["seq"])
    assert_whole_log(on_b, final["seq"])


def test_an_idle_stream_gets_keep_alive_comments(servers):
    server = servers(STREAM_KEEPALIVE_SECONDS="0.3")
    alice = Player(server)
    match_id = create_match(alice, ["me", "open", "computer", "computer"])
    client = alice.stream(match_id)
    client.wait_for(lambda c: len(c.comments) >= 2, timeout=60, what="two keep-alives")
    assert client.comments[0] == ": keep-alive"
    client.close()


def _seq(player: Player, match_id: str) -> int:
    return player.call("GET", f"matches/{match_id}")["seq"]


# ---------------------------------------------------------------- refusals (in-process)


@pytest.fixture
def finished_match(player):
    from tests.games.test_commands import play_to_the_end

    user, client = player
    return play_to_the_end(user, seed=3, options={"target_score": 1}), client


def stream_url(match_id) -> str:
    return f"/api/v1/matches/{match_id}/stream"


def test_a_stream_without_a_token_is_refused_with_401(finished_match):
    match, _client = finished_match
    response = Client().get(stream_url(match.pk))
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_a_stream_with_a_bad_token_is_refused_with_401(finished_match):
    match, _client = finished_match
    response = Client().get(stream_url(match.pk), HTTP_AUTHORIZATION="Token nope")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_someone_elses_match_and_a_missing_one_are_both_404(finished_match, other_player):
    match, _client = finished_match
    _bob, bobs_client = other_player
    for match_id in (match.pk, "not-a-uuid", "00000000-0000-0000-0000-000000000000"):
        response = bobs_client.get(stream_url(match_id))
        assert response.status_code == 404
        assert response.json() == {"code": "not_found", "detail": "No such match."}


def test_a_last_event_id_that_is_not_a_number_is_a_400(finished_match):
    match, client = finished_match
    for bad in ("x", "-1", "1.5"):
        response = client.get(stream_url(match.pk), HTTP_LAST_EVENT_ID=bad)
        assert response.status_code == 400
        assert response.json()["code"] == "invalid_input"


def test_only_get_is_allowed(finished_match):
    match, client = finished_match
    response = client.post(stream_url(match.pk))
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_reconnecting_after_the_end_of_a_finished_match_is_204(finished_match):
    match, client = finished_match
    assert client.get(stream_url(match.pk), {"after": match.seq}).status_code == 204


def test_a_wsgi_process_refuses_to_hold_a_stream_open(player):
    """gunicorn (WSGI) would hold a worker thread for the life of the stream: it says where
    streams are served instead."""
    _user, client = player
    match_id = helpers.create_match(client, helpers.OPEN)["id"]
    response = client.get(stream_url(match_id))
    assert response.status_code == 503
    assert response.json()["code"] == "stream_needs_asgi"
    assert "uvicorn" in response.json()["detail"]


def test_the_stream_is_in_the_openapi_schema(client):
    schema = client.get("/api/v1/schema?format=json").json()
    stream = schema["paths"]["/api/v1/matches/{match_id}/stream"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    assert {p["name"] for p in stream["parameters"]} == {"match_id", "after", "Last-Event-ID"}


def test_idle_streams_hold_no_thread_and_no_database_connection_each(servers):
    server = servers()
    alice = Player(server)
    match_id = create_match(alice, ["me", "open", "computer", "computer"])
    threads_before = _threads(server.proc.pid)
    connections_before = _database_connections()
    clients = [alice.stream(match_id) for _ in range(40)]
    for client in clients:
        client.wait_for_seq(1)
    pool = min(32, (os.cpu_count() or 1) + 4)  # the event loop's thread pool, at its largest
    assert _threads(server.proc.pid) <= threads_before + pool + 1  # not one per stream
    assert _database_connections() < connections_before + 5
    for client in clients:
        client.close()


def _threads(pid: int) -> int:
    status = open(f"/proc/{pid}/status").read()
    return int(status.split("Threads:")[1].split()[0])


def _database_connections() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_a_stream_process_that_loses_its_redis_subscription_resubscribes_and_catches_up(
    servers,
):
    """Redis drops the subscriber connection mid-match: the process subscribes again and its
    clients get the events published meanwhile from the log (not a keep-alive poll later)."""
    import redis
    from django.conf import settings

    server = servers(STREAM_KEEPALIVE_SECONDS="120")
    alice = Player(server)
    match_id = create_match(alice, ["me", "computer", "computer", "computer"])
    client = alice.stream(match_id)
    client.wait_for_seq(alice.call("GET", f"matches/{match_id}")["seq"])

    # Only the subscribers on this run's Redis database: another test process's stream
    # servers share the Redis server (tests/parallel.py).
    ours = redis.Redis.from_url(settings.REDIS_URL)
    database = ours.connection_pool.connection_kwargs.get("db", 0)
    subscribers = [c for c in ours.client_list(_type="pubsub") if int(c["db"]) == database]
    killed = sum(ours.client_kill_filter(_id=c["id"]) for c in subscribers)
    assert killed >= 1
    view = play([alice], match_id, until=lambda: _seq(alice, match_id) > client.ids[-1] + 3)
    client.wait_for_seq(view["seq"], timeout=60)  # a keep-alive poll would be at 120 s
    assert client.ids == list(range(1, view["seq"] + 1))
    client.close()


def test_a_person_who_leaves_gets_no_event_after_leaving(servers):
    """The seat is a computer player's from then on: its next deals are not the caller's."""
    server = servers()
    alice = Player(server)
    match_id = create_match(alice, ["me", "computer", "computer", "computer"])
    client = alice.stream(match_id)
    client.wait_for_seq(_seq(alice, match_id))

    alice.call("POST", f"matches/{match_id}/leave")

    client.wait_for(lambda c: c.ended, timeout=60, what="the end of the stream")
    assert (client.events[-1]["type"], client.events[-1]["seat"]) == ("seat_left", 0)
    response = requests.get(
        f"{server.url}/api/v1/matches/{match_id}/stream", headers=alice.headers, timeout=10
    )
    assert response.status_code == 404


def test_a_stream_ends_after_its_longest_time_and_the_client_resumes(servers):
    server = servers(STREAM_MAX_SECONDS="1", STREAM_KEEPALIVE_SECONDS="0.4")
    alice = Player(server)
    match_id = create_match(alice, ["me", "open", "computer", "computer"])
    seq = _seq(alice, match_id)
    first = alice.stream(match_id)
    first.wait_for(lambda c: c.ended, timeout=60, what="the end of the stream")
    assert first.ids == list(range(1, seq + 1)) and first.comments
    again = alice.stream(match_id, last_event_id=first.ids[-1])
    again.wait_for(lambda c: c.ended, timeout=60, what="the end of the stream")
    assert again.ids == []


@pytest.mark.parametrize("mode", ["redis", "embedded"])
def test_a_person_with_a_stream_open_is_shown_present_to_the_others(servers, mode):
    alice, bob, match_id = alice_and_bob(server_in(servers, mode), "open", "computer")

    def present() -> list[bool]:
        return [s["present"] for s in alice.call("GET", f"matches/{match_id}")["seats"]]

    assert present() == [False, False, False, False]
    bobs = bob.stream(match_id)
    bobs.wait_for_seq(1)
    assert present() == [False, True, False, False]
    bobs.close()
    _until(lambda: present() == [False, False, False, False], "bob to be gone")


def test_presence_is_shared_by_the_api_processes_and_lapses_when_one_dies(servers):
    """Bob's stream on B makes him present in A's views, within A's PRESENCE_READ_SECONDS
    (A answers from what it read that recently); B is killed (no chance to say he left):
    the mark lapses after two keep-alive intervals."""
    a, b = servers(STREAM_KEEPALIVE_SECONDS="0.5"), servers(STREAM_KEEPALIVE_SECONDS="0.5")
    alice = Player(a)
    match_id = create_match(alice, ["me", "open", "computer", "computer"])
    bob = Player(b)
    bob.call("POST", f"matches/{match_id}/join")
    on_b = bob.stream(match_id)
    on_b.wait_for_seq(1)

    def bob_present() -> bool:
        return alice.call("GET", f"matches/{match_id}")["seats"][1]["present"]

    # PRESENCE_READ_SECONDS (1) and a request or two (generous for a busy machine; a
    # mark's lapse would take 35 s).
    _until(bob_present, "A to show bob present", timeout=30)
    os.killpg(b.proc.pid, signal.SIGKILL)
    killed = time.monotonic()
    _until(lambda: not bob_present(), "bob's mark to lapse", timeout=60)
    assert time.monotonic() - killed > 3  # it lapsed; nobody removed it
    on_b.close()


def _until(predicate, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_a_stream_server_told_to_stop_closes_its_open_streams_and_exits(servers):
    """A deploy's SIGTERM with a stream open: the process closes the stream once its grace
    is over (`--timeout-graceful-shutdown`, as docker-compose.yml runs it) and exits; the
    client reconnects to another process with Last-Event-ID. Without the grace, uvicorn
    waited for the stream to end for as long as it stayed open (compose then killed it)."""
    server = servers()
    alice = Player(server)
    match_id = create_match(alice, ["me", "computer", "computer", "computer"])
    client = alice.stream(match_id)
    client.wait_for_seq(_seq(alice, match_id))

    os.killpg(server.proc.pid, signal.SIGTERM)

    server.proc.wait(60)  # the grace is 5 s; a process that waits for its streams never exits
    client.wait_for(lambda c: c.ended, timeout=60, what="the end of the stream")
