"""The cache (Redis) going down: every request still answers, the throttles count in
the process's memory meanwhile, and count in Redis again once it is back.

Against a real Redis server that the test starts on a spare port, kills and starts
again; the service's cache is pointed at it for the test."""

import logging
import time

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games.models import Match, Seat
from tests.games.helpers import OPEN, act, create_match, view
from tests.games.server_support import Player, SseClient
from tests.games.social_support import finished_match, people
from tests.redis_server import RedisServer

PASSWORD = "correct horse battery"


@pytest.fixture
def cache_server(settings, tmp_path):
    """The service's cache on a Redis server of the test's own."""
    server = RedisServer(tmp_path)
    try:
        server.start()
        settings.CACHES = {
            "default": {
                "BACKEND": "games.live.redis_cache.SharedPoolRedisCache",
                "LOCATION": server.url,
                "OPTIONS": settings.CACHE_OPTIONS,
            }
        }
        settings.CACHE_RETRY_SECONDS = 0.5
        rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "5/min"}
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
        yield server
    finally:
        server.stop()


def sign_in(address: str, password: str = PASSWORD):
    return APIClient().post(
        "/api/v1/auth/token",
        {"username": "carol", "password": password},
        format="json",
        REMOTE_ADDR=address,
    )


def outage_warnings(caplog, what: str = "the cache") -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "games.live.outage" and r.getMessage().startswith(what + " ")
    ]


@pytest.mark.django_db(transaction=True)
def test_actions_and_sign_ins_answer_while_the_cache_is_down(
    cache_server, player, other_player, caplog
):
    caplog.set_level(logging.WARNING)
    get_user_model().objects.create_user("carol", password=PASSWORD)
    _alice, client = player
    match_id = create_match(client)["id"]
    first = view(client, match_id)["view"]["legal_actions"][0]
    assert act(client, match_id, first).status_code == 200

    cache_server.stop()
    # A person's action commits, their view and the match list answer (nobody is known
    # to be present), a hint can be asked for.
    legal = view(client, match_id)["view"]["legal_actions"]
    acted = act(client, match_id, legal[0])
    assert acted.status_code == 200, acted.content
    body = view(client, match_id)
    assert body["seq"] >= acted.json()["seq"]
    assert [s["present"] for s in body["seats"]] == [False] * 4
    assert client.get("/api/v1/matches").status_code == 200
    if body["status"] == "active" and body["view"]["legal_actions"]:
        assert client.post(f"/api/v1/matches/{match_id}/hints").status_code == 202
    # Signing in, up and as a guest, and creating, joining and leaving matches.
    signed = sign_in("198.51.100.1")
    assert signed.status_code == 200 and signed.json()["token"]
    assert sign_in("198.51.100.1", "wrong").status_code == 401
    assert APIClient().post("/api/v1/auth/guest").status_code == 201
    second = create_match(client, OPEN)["id"]
    _bob, bob = other_player
    assert bob.post(f"/api/v1/matches/{second}/join", {}, format="json").status_code == 200
    assert client.post(f"/api/v1/matches/{second}/leave").status_code == 200
    # One warning for the outage, not one per request.
    assert len(outage_warnings(caplog)) == 1
    assert "unreachable" in outage_warnings(caplog)[0]


# The endpoints added after the first outage tests: every read answers, while the cache
# is down, as it does with the cache up (the review may still be being worked out).
READS_OF_NEWER_ENDPOINTS = {
    "the review": ("matches/{finished}/review", (200, 202)),
    "the match's rating changes": ("matches/{finished}/ratings", (200,)),
    "a history": ("users/alice/matches", (200,)),
    "statistics": ("users/alice/stats", (200,)),
    "the leaderboard": ("leaderboard", (200,)),
    "me": ("me", (200,)),
    "my matches": ("me/matches", (200,)),
    "public matches": ("matches/public", (200,)),
}


@pytest.mark.django_db(transaction=True)
def test_rematches_quick_play_records_and_me_answer_and_commit_while_the_cache_is_down(
    cache_server, caplog
):
    """Each of these is throttled or reads what the cache holds (presence): none may turn
    into a 500 while Redis is away, and what a person does still commits."""
    caplog.set_level(logging.WARNING)
    (_, alice, _), (_, bob, _), (carol_user, carol, _) = people("alice", "bob", "carol")
    finished = finished_match([alice, bob], computers=2)

    cache_server.stop()
    for name, (path, statuses) in READS_OF_NEWER_ENDPOINTS.items():
        response = alice.get("/api/v1/" + path.format(finished=finished))
        assert response.status_code in statuses, (name, response.status_code, response.content)
    # A rematch offered, declined, offered again and accepted: each answer is committed.
    offered = alice.post(f"/api/v1/matches/{finished}/rematch")
    assert offered.status_code == 200 and offered.json()["rematch"]["status"] == "pending"
    declined = bob.post(f"/api/v1/matches/{finished}/rematch/decline")
    assert declined.status_code == 200 and declined.json()["rematch"]["status"] == "declined"
    assert alice.post(f"/api/v1/matches/{finished}/rematch").status_code == 200
    accepted = bob.post(f"/api/v1/matches/{finished}/rematch/accept")
    assert accepted.status_code == 200, accepted.content
    rematch = accepted.json()["rematch"]["match"]
    assert Match.objects.get(pk=rematch).rematch_of_id is not None
    # Quick play: a seat at a table, then the seat given back.
    queued = carol.post("/api/v1/quickplay", {}, format="json")
    assert queued.status_code == 200, queued.content
    assert Seat.objects.filter(match_id=queued.json()["id"], user=carol_user).exists()
    assert carol.delete("/api/v1/quickplay").status_code == 200
    assert not Seat.objects.filter(match_id=queued.json()["id"], user=carol_user).exists()
    assert len(outage_warnings(caplog)) == 1


@pytest.mark.django_db
def test_throttles_count_in_the_process_while_the_cache_is_down_and_in_redis_once_back(
    cache_server, caplog
):
    caplog.set_level(logging.WARNING)
    get_user_model().objects.create_user("carol", password=PASSWORD)
    sign_in("198.51.100.1")
    assert cache_server.client().keys("*throttle_auth_198.51.100.1*")

    cache_server.stop()
    # THROTTLE_AUTH is 5/min here: still 5 a minute per address, counted in memory.
    statuses = [sign_in("198.51.100.2").status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    # Wrong passwords per username too.
    assert {sign_in(f"198.51.100.{i}", "wrong").status_code for i in range(10, 20)} == {401}
    assert sign_in("198.51.100.30").status_code == 429

    cache_server.start()
    time.sleep(0.6)  # CACHE_RETRY_SECONDS
    statuses = [sign_in("198.51.100.3").status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    assert cache_server.client().keys("*throttle_auth_198.51.100.3*")
    messages = outage_warnings(caplog)
    assert len(messages) == 2 and "answers again" in messages[1]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_server_plays_and_streams_while_redis_is_down_and_after(servers, tmp_path):
    """A uvicorn process whose cache and pub/sub are a Redis server that dies and comes
    back: actions, views, sign-ins, live streams and players' feeds (/me/stream, one
    opened before the outage, one during it) keep answering throughout."""
    redis_server = RedisServer(tmp_path)
    try:
        redis_server.start()
        server = servers(
            REDIS_URL=redis_server.url, STREAM_KEEPALIVE_SECONDS="0.5", CACHE_RETRY_SECONDS="0.5"
        )
        alice, bob = Player(server), Player(server)
        seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer"}] * 2
        match_id = alice.call("POST", "matches", {"seats": seats}, status=201)["id"]
        bob.call("POST", f"matches/{match_id}/join")
        bobs = bob.stream(match_id)
        bobs.wait_for_seq(bob.call("GET", f"matches/{match_id}")["seq"])
        feeds = {bob.username: _feed(bob)}  # the player's own feed, GET /me/stream

        redis_server.stop()
        before = alice.call("GET", f"matches/{match_id}")
        moved = _move_once([alice, bob], match_id)
        bobs.wait_for_seq(moved, timeout=60)  # found by the keep-alive's poll of the log
        alices = alice.stream(match_id)  # a stream opened while Redis is down
        alices.wait_for_seq(moved, timeout=60)
        feeds[alice.username] = _feed(alice)  # and a feed
        _wait_for_your_turn(feeds, [alice, bob], match_id, moved)
        assert moved > before["seq"]
        assert Player(server).username.startswith("guest-")

        redis_server.start()
        moved = _move_once([alice, bob], match_id)
        bobs.wait_for_seq(moved, timeout=60)
        alices.wait_for_seq(moved, timeout=60)
        _wait_for_your_turn(feeds, [alice, bob], match_id, moved)
        for stream in [bobs, alices, *feeds.values()]:
            stream.close()
        log = server.log()
        assert "Internal Server Error" not in log, log[-3000:]
        assert log.count("the cache is unreachable") == 1  # one warning for the outage
    finally:
        redis_server.stop()


def _feed(player: Player) -> SseClient:
    feed = SseClient(f"{player.server.url}/api/v1/me/stream", player.headers)
    feed.wait_for(lambda c: ": live" in c.comments, 60, "the feed to be live")
    return feed


def _wait_for_your_turn(
    feeds: dict[str, SseClient], players: list[Player], match_id: str, seq: int
) -> None:
    """The person to act after `seq` (the computers play on) hears it is their turn."""
    deadline = time.monotonic() + 60

    def to_act() -> list[Player]:
        return [p for p in players if p.call("GET", f"matches/{match_id}")["view"]["legal_actions"]]

    while not (found := to_act()):
        assert time.monotonic() < deadline, "nobody's turn"
        time.sleep(0.05)
    feeds[found[0].username].wait_for(
        lambda c: any(
            e["type"] == "your_turn" and e["match"] == match_id and e["seq"] >= seq
            for e in c.events
        ),
        60,
        f"your_turn after seq {seq}",
    )


def _move_once(players: list[Player], match_id: str) -> int:
    """Whoever of `players` is to act takes their first legal action: the new seq."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for player in players:
            body = player.call("GET", f"matches/{match_id}")
            if body["view"]["legal_actions"]:
                after = player.call(
                    "POST", f"matches/{match_id}/actions", body["view"]["legal_actions"][0]
                )
                return after["seq"]
        time.sleep(0.05)
    raise AssertionError("nobody could move")


@pytest.mark.django_db
def test_a_hung_cache_costs_a_request_at_most_its_socket_timeout(
    cache_server, player, caplog, settings, monkeypatch
):
    """Redis frozen (it accepts connections and never answers): the first request waits
    out the one-second socket timeout, the next ones do not ask it at all until it is
    tried again. (Counted, not timed: each command asked of the frozen server is one
    socket timeout, whatever the machine's speed.)"""
    _alice, client = player
    match_id = create_match(client)["id"]
    settings.CACHE_RETRY_SECONDS = 3600  # not tried again within the test
    asked = count_cache_commands(monkeypatch)
    cache_server.pause()
    try:
        for _ in range(3):
            legal = view(client, match_id)["view"]["legal_actions"]
        assert act(client, match_id, legal[0]).status_code == 200
    finally:
        cache_server.resume()
    assert asked == [1]  # the first request's first command, which timed out
    assert "unreachable (TimeoutError" in outage_warnings(caplog)[0]


def count_cache_commands(monkeypatch) -> list[int]:
    """[how many commands the service's cache client has been asked for], from now on:
    each takes a client of the shared pool (games.live.redis_cache.SharedPoolClient)."""
    from games.live.redis_cache import SharedPoolClient

    asked = [0]
    get_client = SharedPoolClient.get_client

    def counted(self, *args, **kwargs):
        asked[0] += 1
        return get_client(self, *args, **kwargs)

    monkeypatch.setattr(SharedPoolClient, "get_client", counted)
    return asked


@pytest.mark.django_db(transaction=True)
def test_commits_while_live_updates_redis_is_down_warn_once_and_do_not_wait(
    settings, tmp_path, player, caplog, monkeypatch
):
    """Every commit publishes "match M is at seq N". With that Redis frozen, the first
    commit waits out the socket timeout; the next ones skip publishing (stream clients
    poll the log) instead of each waiting a second, and the outage is one warning, not
    one per commit. Once Redis answers, commits publish again. (Publications asked of
    the frozen server are counted, not timed: each is one socket timeout.)"""
    from games.live import live

    server = RedisServer(tmp_path).start()
    try:
        settings.REDIS_URL = server.url
        settings.CACHE_RETRY_SECONDS = 3600  # not tried again until the test says so
        live._publisher = None  # the publisher connects to the test's own server
        _forget_publishing_outage(live)
        _alice, client = player
        match_id = create_match(client)["id"]
        published = count_publications(monkeypatch)
        server.pause()
        for _ in range(4):
            legal = view(client, match_id)["view"]["legal_actions"]
            assert act(client, match_id, legal[0]).status_code == 200
        assert published == [1]  # the first commit's, which timed out
        assert len(outage_warnings(caplog, "Redis for live updates")) == 1
        server.resume()
        # CACHE_RETRY_SECONDS have passed (made so, rather than waited for).
        live.publishing._retry_at = time.monotonic()
        with server.client().pubsub() as pubsub:
            pubsub.subscribe(live.channel(match_id))
            pubsub.get_message(timeout=1)  # the subscription's confirmation
            legal = view(client, match_id)["view"]["legal_actions"]
            assert act(client, match_id, legal[0]).status_code == 200
            message = pubsub.get_message(timeout=2)
        assert message is not None and message["type"] == "message"
        assert outage_warnings(caplog, "Redis for live updates")[-1].endswith("answers again")
    finally:
        live._publisher = None
        _forget_publishing_outage(live)
        server.stop()


def count_publications(monkeypatch) -> list[int]:
    """[how many publications were asked of Redis], from now on (games.live.live._publish)."""
    import redis

    asked = [0]
    publish = redis.Redis.publish

    def counted(self, *args, **kwargs):
        asked[0] += 1
        return publish(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "publish", counted)
    return asked


def _forget_publishing_outage(live) -> None:
    if hasattr(live, "publishing"):
        live.publishing.reset()
