from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient


def make_player(username: str = "alice") -> tuple:
    """A user and an API client signed in with a real token from /auth/token."""
    user = get_user_model().objects.create_user(username=username, password="a-long-passphrase")
    client = APIClient()
    response = client.post(
        "/api/v1/auth/token",
        {"username": username, "password": "a-long-passphrase"},
        format="json",
    )
    assert response.status_code == 200, response.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return user, client


def pytest_collection_modifyitems(items):
    """Two tests with one id would be one test to pytest-xdist, which runs tests by id (as
    every schemathesis test was under pytest 9.2): refuse the run rather than skip silently."""
    shared = {nodeid: n for nodeid, n in Counter(item.nodeid for item in items).items() if n > 1}
    if shared:
        raise pytest.UsageError(f"tests that share an id (xdist would run one of each): {shared}")


@pytest.fixture
def player(db):
    return make_player("alice")


@pytest.fixture
def other_player(db):
    return make_player("bob")


@pytest.fixture(autouse=True)
def _fresh_throttle_counters():
    """Throttle counters live in the shared cache (Redis in the test run): start each test clean."""
    from django.core.cache import cache

    from games.live import shared_cache

    cache.clear()
    shared_cache.reset()
    yield


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's deliberate slowness is for production; tests create many accounts.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_turn_timer_threads(settings):
    # A timer thread would fire after its test's transaction is gone; tests enforce
    # deadlines by calling the service (or run a real server that uses the threads).
    settings.TURN_TIMER_THREADS = False


@pytest.fixture(autouse=True, scope="module")
def _no_event_loop_left_running():
    """A test module must not leave an event loop marked running on the main thread (as
    Playwright's sync API does while it is open): Django then refuses the ORM to every
    later test in the process ("cannot call this from an async context"), and under
    bin/test's two processes those are other files' tests."""
    import asyncio

    yield
    loop = asyncio._get_running_loop()
    assert loop is None, f"this module left an event loop running on the main thread: {loop!r}"
