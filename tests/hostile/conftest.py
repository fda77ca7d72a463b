"""A live, production-shaped service for the hostile-client suite.

gunicorn (euchre_service/gunicorn.conf.py) for the API and uvicorn for the live streams,
both with euchre_service.settings_production over plain HTTP (SECURE_SSL_REDIRECT=false,
no TLS proxy on the loopback), a real Celery worker and celery beat, on the test
PostgreSQL database and this test run's Redis databases (CELERY_BROKER_URL, REDIS_URL),
with a queue and a cache key prefix of its own. Started once for the module, through
benchmarks/_server.Stack (the benchmarks' process plumbing).
"""

import time
import uuid
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings
from django.core.management import call_command

from benchmarks._server import Stack, spare_port
from tests.bots.worker_support import ARTIFACTS, QUEUE, REVIEW_QUEUE, database_url_for_tests


def _redis_parts(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}", int(parts.path.lstrip("/") or 0)


@pytest.fixture(scope="module")
def stack(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        database_url = database_url_for_tests()
    redis, broker_db = _redis_parts(settings.CELERY_BROKER_URL)
    _same, cache_db = _redis_parts(settings.REDIS_URL or settings.CELERY_BROKER_URL)
    log_dir = ARTIFACTS / f"hostile-{uuid.uuid4().hex[:8]}"
    log_dir.mkdir(parents=True, exist_ok=True)
    live = Stack(
        database_url=database_url,
        redis_url=redis,
        broker_db=broker_db,
        cache_db=cache_db,
        port=spare_port(),
        stream_port=spare_port(),
        log_dir=log_dir,
        workers=2,
        threads=4,
        extra_env={
            "DJANGO_SETTINGS_MODULE": "euchre_service.settings_production",
            "BENCHMARK_ENDPOINTS": "0",
            "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
            "CELERY_REVIEW_QUEUE": REVIEW_QUEUE,
            "CACHE_KEY_PREFIX": f"hostile-{uuid.uuid4().hex[:8]}",
            "COMPUTER_TURN_SWEEP_EVERY": "5",
            # High enough for the fuzzing to reach the views behind the throttles.
            "THROTTLE_GUESTS": "100000/hour",
            "THROTTLE_MATCHES": "100000/min",
            # gunicorn's control socket is one path per user: concurrent test runs share none.
            "GUNICORN_CMD_ARGS": "--no-control-socket",
        },
    )
    try:
        live.start_gunicorn()
        live.start_uvicorn()
        live.start_worker()
        live.start_beat()
        yield live
    finally:
        live.stop()
        # The tests talk to the service only over HTTP, so they hold no database mark; what
        # they made is flushed here once the servers are gone (flushing after each test, as
        # transactional tests do, deadlocks with a worker in the middle of a computer turn).
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)


class Guest:
    """A guest account on the live service, and what it can do over plain HTTP."""

    def __init__(self, stack: Stack) -> None:
        self.api = f"http://127.0.0.1:{stack.port}/api/v1"
        self.streams = f"http://127.0.0.1:{stack.stream_port}/api/v1"
        response = requests.post(f"{self.api}/auth/guest", timeout=10)
        assert response.status_code == 201, response.text
        self.token = response.json()["token"]
        self.username = response.json()["username"]
        self.headers = {"Authorization": f"Token {self.token}"}

    def call(self, method: str, path: str, body=None, status: int = 200):
        response = requests.request(
            method, f"{self.api}/{path}", json=body, headers=self.headers, timeout=30
        )
        assert response.status_code == status, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def new_match(self, seats: list[dict], **extra) -> str:
        return self.call("POST", "matches", {"seats": seats, **extra}, status=201)["id"]

    def play_to_the_end(self, match_id: str, timeout: float = 120) -> None:
        """Play the first legal action on each of this seat's turns; the worker plays the
        computer seats."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            view = self.call("GET", f"matches/{match_id}")
            if view["status"] == "finished":
                return
            legal = view["view"]["legal_actions"]
            if legal:
                self.call("POST", f"matches/{match_id}/actions", legal[0])
            else:
                time.sleep(0.1)
        raise AssertionError(f"match {match_id} did not end in {timeout} s")


COMPUTERS = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3
OPEN = [{"kind": "me"}] + [{"kind": "open"}] * 3
