"""After every event of a full match, each seat sees only what a person at that seat may."""

import re
from typing import Any

import pytest

from games.models import Event
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, view

CARD = re.compile(r"^(?:[9TJQKA]|10)[CDHS]$")


def cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value)) if value else set()
    return set()


def allowed_cards(match_id: str, seat: int) -> set[str]:
    """What `seat` may know of the hand being played: its own dealt cards, the upcard,
    the cards played so far, and (for the dealer) its own discard."""
    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    deck, dealer = deal.payload["deck"], deal.payload["dealer"]
    position = (seat - dealer - 1) % 4
    allowed = set(deck[5 * position : 5 * position + 5]) | {deck[20]}
    later = Event.objects.filter(match_id=match_id, seq__gt=deal.seq)
    for event in later:
        if event.type == "card_played":
            allowed.add(event.payload["action"]["card"])
        if event.type == "discard" and event.seat == seat:
            allowed.add(event.payload["action"]["card"])
    return allowed


def check_seat(client, match_id: str, seat: int) -> None:
    body = view(client, match_id)
    if body["status"] == "finished":
        return
    allowed = allowed_cards(match_id, seat)
    assert cards_in(body) <= allowed, f"seat {seat} view shows {cards_in(body) - allowed}"
    assert not {"deck", "salt", "kitty", "hands"} & keys_in(body)

    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    events = client.get(f"/api/v1/matches/{match_id}/events", {"after": deal.seq - 1}).json()
    current = cards_in(events["events"])
    assert current <= allowed, f"seat {seat} events show {current - allowed}"
    assert not {"deck", "salt", "kitty", "hands"} & keys_in(events["events"][:1])
    whole_log = client.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    for event in whole_log:
        if event["type"] == "hand_dealt":
            assert "deck" not in event["payload"] and "salt" not in event["payload"]
        if event["type"] == "discard" and event["seat"] != seat:
            assert "card" not in event["payload"]["action"]


@pytest.mark.django_db(transaction=True)
def test_each_seat_sees_only_its_own_cards_after_every_event_of_a_match():
    clients = [make_player(name)[1] for name in ("south", "west", "north", "east")]
    match_id = four_player_match(clients, options={"target_score": 5})
    for _ in range(2000):
        bodies = [view(c, match_id) for c in clients]
        if bodies[0]["status"] == "finished":
            break
        for seat, client in enumerate(clients):
            check_seat(client, match_id, seat)
        turn = bodies[0]["view"]["turn"]
        legal = bodies[turn]["view"]["legal_actions"]
        assert act(clients[turn], match_id, legal[-1]).status_code == 200
    else:
        raise AssertionError("the match did not end")

    final = client.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    assert any("deck" in e["payload"] for e in final if e["type"] == "hand_dealt")
