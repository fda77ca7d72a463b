"""Helpers for the quick play, rematch and spectator tests: people with tokens a live
server takes, and a match played to its end by its people."""

import threading
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.games.helpers import act, create_match, view


def people(*names: str) -> list[tuple[Any, Any, str]]:
    """(user, in-process API client, a token for a live server) per name."""
    found = []
    for name in names:
        # No sign-in request (its throttle would count a crowd as an attack): the token
        # knox would give.
        user = get_user_model().objects.create_user(username=name, password="a-long-passphrase")
        _instance, token = AuthToken.objects.create(user)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        found.append((user, client, token))
    return found


def race(n: int, target) -> list:
    """`target(i)` in n threads released at once; their results (or exceptions)."""
    results: list = [None] * n
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = target(i)
        except Exception as exc:  # the test looks at each answer
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def finished_match(clients, computers: int = 0, **extra) -> str:
    """A match of these people (clients[0] creates it, the rest join) and `computers`
    random computer players, target 1, played to its end: each person plays their first
    legal action on their turn."""
    seats = [{"kind": "me"}] + [{"kind": "open"}] * (len(clients) - 1)
    seats += [{"kind": "computer", "level": "random"}] * computers
    options = {"target_score": 1, **extra.pop("options", {})}
    match_id = create_match(clients[0], seats, options=options, **extra)["id"]
    for client in clients[1:]:
        assert client.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    for _ in range(500):
        bodies = [view(c, match_id) for c in clients]
        if bodies[0]["status"] == "finished":
            return match_id
        for client, body in zip(clients, bodies, strict=True):
            if body["view"]["legal_actions"]:
                assert act(client, match_id, body["view"]["legal_actions"][0]).status_code == 200
                break
    raise AssertionError("the match did not end")
