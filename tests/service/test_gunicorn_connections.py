"""A keep-alive connection to the API's gunicorn ends after GUNICORN_MAX_REQUESTS_PER_CONNECTION
requests (euchre_service/gunicorn.conf.py), so clients connect again and the kernel spreads
them over the processes, a freshly recycled one included (issue 15; benchmarks/spread.py
shows the spread). Run against a real gunicorn, as production starts it."""

import http.client
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.games.server_support import GunicornServer

# The server answers /healthz from the test database (its tables are not needed, but the
# database must exist: a clean machine has no other).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@contextmanager
def gunicorn(**env: str) -> Iterator[int]:
    """One gunicorn process (the production config file) on the test database, on a spare
    port, until the end."""
    server = GunicornServer(GUNICORN_ACCESS_LOG="", **env).start()
    try:
        yield server.port
    finally:
        server.stop()


def answers_on_one_client(port: int, requests: int) -> list[tuple[int, str, int]]:
    """Each answer's status, Connection header and the client's local port (a new port is a
    new connection), for `requests` GET /healthz on one keep-alive client."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    seen = []
    try:
        for _ in range(requests):
            conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
            local_port = conn.sock.getsockname()[1]
            response = conn.getresponse()
            response.read()
            seen.append((response.status, response.getheader("Connection"), local_port))
    finally:
        conn.close()
    return seen


def test_the_server_closes_a_keep_alive_connection_after_the_default_50_requests():
    with gunicorn() as port:
        seen = answers_on_one_client(port, 52)
    assert all(status == 200 for status, _, _ in seen), seen
    assert [c for _, c, _ in seen[:49]] == ["keep-alive"] * 49
    assert seen[49][1] == "close"  # the 50th answer says so, and the server closes
    assert len({p for _, _, p in seen[:50]}) == 1  # the first 50 on one connection
    assert seen[50][2] != seen[49][2]  # the 51st on a new one, kept alive again
    assert [c for _, c, _ in seen[50:]] == ["keep-alive"] * 2


def test_the_limit_is_a_setting_and_zero_turns_it_off():
    with gunicorn(GUNICORN_MAX_REQUESTS_PER_CONNECTION="3") as port:
        seen = answers_on_one_client(port, 7)
    assert [c for _, c, _ in seen] == ["keep-alive", "keep-alive", "close"] * 2 + ["keep-alive"]
    assert len({p for _, _, p in seen}) == 3  # three connections: 3 + 3 + 1 requests
    with gunicorn(GUNICORN_MAX_REQUESTS_PER_CONNECTION="0") as port:
        seen = answers_on_one_client(port, 60)
    assert {c for _, c, _ in seen} == {"keep-alive"}
    assert len({p for _, _, p in seen}) == 1
