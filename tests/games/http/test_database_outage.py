"""PostgreSQL goes away under a running production-settings server: every request that
needs the database answers 503 `service_unavailable` JSON with Retry-After (not a 500
page, not a hang: each request has 10 s, and the slowest is printed, 12 ms measured on a
quiet machine; a busy one may be slower), an open live stream stays open, and once the
database is back the same process serves everything again without a restart.

The server is a real uvicorn process on a private PostgreSQL that this test starts,
stops and starts again on a spare port (never the shared one)."""

import time
import uuid

import pytest
import requests

from tests.games.helpers import OPEN
from tests.games.postgres_support import PrivatePostgres
from tests.games.server_support import ApiServer, GunicornServer, Player


@pytest.fixture
def postgres():
    server = PrivatePostgres().init()
    server.start()
    server.migrate()
    yield server
    server.destroy()


@pytest.fixture
def production_server(request, postgres):
    """uvicorn (as production serves live streams) or gunicorn (as it serves the rest),
    with the production settings, on the private PostgreSQL."""
    kind = GunicornServer if request.param == "gunicorn" else ApiServer
    server = kind(
        DJANGO_SETTINGS_MODULE="euchre_service.settings_production",
        SECRET_KEY=uuid.uuid4().hex + uuid.uuid4().hex,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        STREAM_KEEPALIVE_SECONDS="1",
        LOG_LEVEL="WARNING",
        DATABASE_URL=postgres.url,
    ).start()
    yield server
    server.stop()


def requests_of_every_kind(alice: Player, bob: Player, match_id: str) -> dict[str, tuple]:
    """name -> (method, path, body, headers): DRF views with and without a token, the
    async stream, each reading or writing the database."""
    hint = uuid.uuid4()
    match = f"/api/v1/matches/{match_id}"
    user = f"/api/v1/users/{alice.username}"
    return {
        "list matches": ("GET", "/api/v1/matches", None, alice.headers),
        "a match": ("GET", f"/api/v1/matches/{match_id}", None, alice.headers),
        "its events": ("GET", f"/api/v1/matches/{match_id}/events", None, alice.headers),
        "an action": ("POST", f"/api/v1/matches/{match_id}/actions", {"type": "pass"},
                      alice.headers),
        "create a match": ("POST", "/api/v1/matches", {"seats": OPEN}, alice.headers),
        "a hint": ("GET", f"/api/v1/hints/{hint}", None, bob.headers),
        "play as a guest": ("POST", "/api/v1/auth/guest", None, {}),
        "register": ("POST", "/api/v1/auth/register",
                     {"username": f"u{uuid.uuid4().hex[:8]}", "password": "a-long-passphrase"},
                     {}),
        "sign in": ("POST", "/api/v1/auth/token",
                    {"username": "nobody", "password": "a-long-passphrase"}, {}),
        "the stream": ("GET", f"/api/v1/matches/{match_id}/stream", None, bob.headers),
        # The endpoints added after the first outage tests.
        "public matches": ("GET", "/api/v1/matches/public", None, alice.headers),
        "join": ("POST", f"{match}/join", None, bob.headers),
        "leave": ("POST", f"{match}/leave", None, bob.headers),
        "quick play": ("POST", "/api/v1/quickplay", {}, bob.headers),
        "leave quick play": ("DELETE", "/api/v1/quickplay", None, bob.headers),
        "offer a rematch": ("POST", f"{match}/rematch", None, alice.headers),
        "accept a rematch": ("POST", f"{match}/rematch/accept", None, alice.headers),
        "decline a rematch": ("POST", f"{match}/rematch/decline", None, alice.headers),
        "a review": ("GET", f"{match}/review", None, alice.headers),
        "a match's ratings": ("GET", f"{match}/ratings", None, alice.headers),
        "a history": ("GET", f"{user}/matches", None, alice.headers),
        "statistics": ("GET", f"{user}/stats", None, alice.headers),
        "the leaderboard": ("GET", "/api/v1/leaderboard", None, alice.headers),
        "me": ("GET", "/api/v1/me", None, alice.headers),
        "my matches": ("GET", "/api/v1/me/matches", None, alice.headers),
        "my feed": ("GET", "/api/v1/me/stream", None, alice.headers),
    }  # fmt: skip


def send(server, method: str, path: str, body, headers) -> tuple[requests.Response, float]:
    started = time.monotonic()
    response = requests.request(
        method, server.url + path, json=body, headers=headers, timeout=10, stream=True
    )
    elapsed = time.monotonic() - started
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        response.close()  # only the status matters here
    return response, elapsed


@pytest.mark.slow
@pytest.mark.parametrize("production_server", ["uvicorn", "gunicorn"], indirect=True)
def test_with_postgresql_down_every_request_is_a_503_json_and_the_process_recovers(
    postgres, production_server
):
    server = production_server
    streams = not isinstance(server, GunicornServer)  # WSGI serves no live stream
    alice, bob = Player(server), Player(server)
    match = alice.call("POST", "matches", {"seats": OPEN}, status=201)
    match_id = match["id"]
    live = alice.stream(match_id) if streams else None
    if live:
        live.wait_for_seq(match["seq"])

    postgres.stop()
    slowest = 0.0
    kinds = requests_of_every_kind(alice, bob, match_id)
    for name, (method, path, body, headers) in kinds.items():
        response, elapsed = send(server, method, path, body, headers)
        slowest = max(slowest, elapsed)
        assert response.status_code == 503, (name, response.status_code, response.text[:300])
        assert response.headers["Content-Type"] == "application/json", name
        assert response.json()["code"] == "service_unavailable", name
        assert int(response.headers["Retry-After"]) > 0, name
    health, elapsed = send(server, "GET", "/healthz", None, {})
    slowest = max(slowest, elapsed)
    assert (health.status_code, health.json()["database"]) == (503, "unreachable")
    assert "Retry-After" in health.headers
    # Outside /api/ (here the admin, reading a session) the 503 is plain text.
    admin, elapsed = send(server, "GET", "/admin/", None, {"Cookie": "sessionid=" + "a" * 32})
    slowest = max(slowest, elapsed)
    assert (admin.status_code, admin.headers["Content-Type"]) == (503, "text/plain; charset=utf-8")
    assert "Retry-After" in admin.headers
    # What needs no database still answers: an unknown path, the web client's page.
    assert send(server, "GET", "/api/v1/nope", None, {})[0].json()["code"] == "not_found"
    assert send(server, "GET", "/play/", None, {})[0].status_code == 200
    if live:  # the open stream rides the outage out on keep-alives
        seen = len(live.comments)
        live.wait_for(lambda c: len(c.comments) >= seen + 2, 60, "keep-alives during the outage")
        assert not live.ended
    print(f"slowest 503 while PostgreSQL was down: {slowest * 1000:.0f} ms")

    postgres.start()
    pid = server.proc.pid
    joined = bob.call("POST", f"matches/{match_id}/join", {"seat": 1})
    if live:
        live.wait_for_seq(joined["seq"], timeout=60)  # the stream opened before the outage
    for name, (method, path, body, headers) in kinds.items():
        response, _elapsed = send(server, method, path, body, headers)
        if name in ("the stream", "my feed") and not streams:
            assert response.json()["code"] == "stream_needs_asgi"
            continue
        assert response.status_code < 500, (name, response.status_code, response.text[:300])
    assert send(server, "GET", "/healthz", None, {})[0].status_code == 200
    assert server.proc.pid == pid and server.proc.poll() is None  # no restart
    if live:
        live.close()
    assert "Traceback" not in server.log(), server.log()[-3000:]
