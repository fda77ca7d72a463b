"""Shared helpers for the service tests: matches set up and played over HTTP."""

import time
from typing import Any

COMPUTERS = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3
OPEN = [{"kind": "me"}] + [{"kind": "open"}] * 3


def create_match(client, seats=None, **extra) -> dict[str, Any]:
    response = client.post("/api/v1/matches", {"seats": seats or COMPUTERS, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def four_player_match(clients, **extra) -> str:
    """A match with four people: clients[0] creates it, the others join in order."""
    match_id = create_match(clients[0], OPEN, **extra)["id"]
    for seat, client in enumerate(clients[1:], start=1):
        response = client.post(f"/api/v1/matches/{match_id}/join", {"seat": seat}, format="json")
        assert response.status_code == 200, response.content
    return match_id


def view(client, match_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/matches/{match_id}")
    assert response.status_code == 200, response.content
    return response.json()


def act(client, match_id: str, action: dict[str, Any], **headers) -> Any:
    return client.post(f"/api/v1/matches/{match_id}/actions", action, format="json", **headers)


def to_the_first_card(clients, match_id: str) -> dict[str, Any]:
    """The first seat to bid orders up (not alone), the dealer discards, nobody defends
    alone; the view once the first card is to be played."""
    body = view(clients[0], match_id)
    while body["view"]["phase"] != "play":
        seat = body["view"]["turn"]
        legal = view(clients[seat], match_id)["view"]["legal_actions"]
        wanted = [a for a in legal if a == {"type": "order_up", "alone": False}]
        wanted += [a for a in legal if a["type"] == "pass"] + legal
        assert act(clients[seat], match_id, wanted[0]).status_code == 200
        body = view(clients[0], match_id)
    return body


def play_to_the_end(client, match_id: str, max_actions: int = 3000) -> dict[str, Any]:
    """The client's seat plays its first legal action whenever it is its turn."""
    body = view(client, match_id)
    for _ in range(max_actions):
        if body["status"] == "finished":
            return body
        legal = body["view"]["legal_actions"]
        assert legal, "the only person at the table must be the one to act"
        response = act(client, match_id, legal[0])
        assert response.status_code == 200, response.content
        body = view(client, match_id)
    raise AssertionError("the match did not end")


def play_until_a_hand_is_chunked(clients, match_id: str, seconds: float = 120) -> None:
    """Each seat (`clients[seat]`) plays its first legal action until a hand over has been
    moved into a chunk (by a thread after the hand's end: TURN_TIMER_THREADS)."""
    from games.models import EventChunk

    deadline = time.monotonic() + seconds
    while not EventChunk.objects.filter(match_id=match_id).exists():
        assert time.monotonic() < deadline, "no hand over was moved into a chunk"
        state = view(clients[0], match_id)
        turn = state["view"]["turn"]
        legal = view(clients[turn], match_id)["view"]["legal_actions"]
        answer = act(clients[turn], match_id, {**legal[0], "expected_seq": state["seq"]})
        assert answer.status_code == 200, answer.content
        time.sleep(0.05)  # the chunk is written by a thread after the hand's end


def assert_error(response, status: int, code: str) -> dict[str, Any]:
    """The API's error body: the status, JSON, the code, and a sentence for a person."""
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"].endswith((".", "?", "!")), body
    return body
