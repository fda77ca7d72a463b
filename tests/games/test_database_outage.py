"""PostgreSQL goes away under a running production-settings server: every request that
needs the database answers 503 `service_unavailable` JSON with Retry-After within a
second (not a 500 page, not a hang), an open live stream stays open, and once the
database is back the same process serves everything again without a restart.

The server is a real uvicorn process on a private PostgreSQL that this test starts,
stops and starts again on a spare port (never the shared one)."""

import time
import uuid

import pytest
import requests

from tests.games.helpers import OPEN
from tests.games.postgres_support import PrivatePostgres
from tests.games.server_support import Player


@pytest.fixture
def postgres():
    server = PrivatePostgres().init()
    server.start()
    server.migrate()
    yield server
    server.destroy()


def production_server(servers, database_url: str):
    return servers(
        DJANGO_SETTINGS_MODULE="euchre_service.settings_production",
        DATABASE_URL=database_url,
        SECRET_KEY=uuid.uuid4().hex + uuid.uuid4().hex,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        STREAM_KEEPALIVE_SECONDS="1",
        LOG_LEVEL="WARNING",
    )


def requests_of_every_kind(alice: Player, bob: Player, match_id: str) -> dict[str, tuple]:
    """name -> (method, path, body, headers): DRF views with and without a token, the
    async stream, each reading or writing the database."""
    hint = uuid.uuid4()
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
def test_with_postgresql_down_every_request_is_a_quick_503_json_and_the_process_recovers(
    postgres, servers
):
    server = production_server(servers, postgres.url)
    alice, bob = Player(server), Player(server)
    match = alice.call("POST", "matches", {"seats": OPEN}, status=201)
    match_id = match["id"]
    live = alice.stream(match_id)
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
        assert elapsed < 1.0, (name, elapsed)
    health, elapsed = send(server, "GET", "/healthz", None, {})
    assert (health.status_code, health.json()["database"]) == (503, "unreachable")
    assert elapsed < 1.0 and "Retry-After" in health.headers
    # What needs no database still answers: an unknown path, the web client's page.
    assert send(server, "GET", "/api/v1/nope", None, {})[0].json()["code"] == "not_found"
    assert send(server, "GET", "/play/", None, {})[0].status_code == 200
    # The open stream rides the outage out on keep-alives.
    seen = len(live.comments)
    live.wait_for(lambda c: len(c.comments) >= seen + 2, 10, "keep-alives during the outage")
    assert not live.ended
    print(f"slowest 503 while PostgreSQL was down: {slowest * 1000:.0f} ms")

    postgres.start()
    pid = server.proc.pid
    joined = bob.call("POST", f"matches/{match_id}/join", {"seat": 1})
    live.wait_for_seq(joined["seq"], timeout=10)  # the stream opened before the outage
    for name, (method, path, body, headers) in kinds.items():
        response, _elapsed = send(server, method, path, body, headers)
        assert response.status_code < 500, (name, response.status_code, response.text[:300])
    assert send(server, "GET", "/healthz", None, {})[0].status_code == 200
    assert server.proc.pid == pid and server.proc.poll() is None  # no restart
    live.close()
    assert "Traceback" not in server.log(), server.log()[-3000:]
