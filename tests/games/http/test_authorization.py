"""Nobody learns anything about a match they do not sit at, or acts for another seat."""

import pytest

from games.models import Event
from tests.conftest import make_player
from tests.games.helpers import OPEN, act, create_match, four_player_match, view


@pytest.mark.django_db
def test_a_stranger_gets_404_for_every_path_of_a_running_match(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice)["id"]
    before = Event.objects.filter(match_id=match_id).count()
    for method, path in [
        ("get", ""),
        ("get", "/events"),
        ("get", "/replay"),
        ("get", "/review"),
        ("post", "/actions"),
        ("post", "/join"),
        ("post", "/leave"),
    ]:
        response = getattr(bob, method)(f"/api/v1/matches/{match_id}{path}", {}, format="json")
        assert response.status_code == 404, (path, response.content)
        assert response.json() == {"code": "not_found", "detail": "No such match."}
    assert Event.objects.filter(match_id=match_id).count() == before


@pytest.mark.django_db
def test_a_missing_match_and_a_foreign_match_give_the_same_404(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice)["id"]
    foreign = bob.get(f"/api/v1/matches/{match_id}")
    missing = bob.get("/api/v1/matches/00000000-0000-0000-0000-000000000000")
    garbage = bob.get("/api/v1/matches/not-a-uuid")
    assert foreign.status_code == missing.status_code == garbage.status_code == 404
    assert foreign.json() == missing.json() == garbage.json()


@pytest.mark.django_db
def test_requests_without_a_token_get_401(client):
    response = client.get("/api/v1/matches")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_a_revoked_token_no_longer_works(player):
    _alice, alice = player
    assert alice.post("/api/v1/auth/logout").status_code == 204
    assert alice.get("/api/v1/matches").status_code == 401


@pytest.mark.django_db
def test_a_player_cannot_act_for_another_seat():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    state = view(clients[0], match_id)
    turn = state["view"]["turn"]
    other = (turn + 1) % 4
    before = state["seq"]

    out_of_turn = act(clients[other], match_id, {"type": "pass"})
    assert out_of_turn.status_code == 409
    assert out_of_turn.json()["code"] == "not_your_turn"

    naming_a_seat = act(clients[other], match_id, {"type": "pass", "seat": turn})
    assert naming_a_seat.status_code == 400
    assert "seat" in naming_a_seat.json()["errors"]
    assert view(clients[0], match_id)["seq"] == before


@pytest.mark.django_db
def test_the_match_list_shows_only_the_callers_matches_and_filters_by_status(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    mine = create_match(alice, OPEN)["id"]
    create_match(bob, OPEN)
    listed = alice.get("/api/v1/matches").json()
    assert [m["id"] for m in listed["results"]] == [mine]
    assert alice.get("/api/v1/matches", {"status": "finished"}).json()["results"] == []
    assert alice.get("/api/v1/matches", {"status": "waiting"}).json()["count"] == 1
