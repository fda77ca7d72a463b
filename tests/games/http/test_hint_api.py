"""POST /matches/{id}/hints and GET /hints/{id} (tasks run in-process here; tests/bots/
test_worker.py asks for one through a real worker)."""

import pytest

from tests.conftest import make_player
from tests.games.helpers import create_match, four_player_match, view


def ask(client, match_id):
    return client.post(f"/api/v1/matches/{match_id}/hints")


@pytest.mark.django_db(transaction=True)
def test_a_hint_on_your_turn_suggests_a_legal_action_and_says_why(player):
    _user, client = player
    match_id = create_match(client)["id"]
    state = view(client, match_id)
    assert state["view"]["turn"] == 0
    response = ask(client, match_id)
    assert response.status_code == 202
    hint = client.get(f"/api/v1/hints/{response.json()['id']}").json()
    assert hint["status"] == "done"
    assert hint["seq"] == state["seq"]
    assert hint["action"] in state["view"]["legal_actions"]
    assert isinstance(hint["explanation"], str) and len(hint["explanation"]) > 10


@pytest.mark.django_db(transaction=True)
def test_asking_twice_at_the_same_position_gives_the_same_hint(player):
    _user, client = player
    match_id = create_match(client)["id"]
    assert ask(client, match_id).json()["id"] == ask(client, match_id).json()["id"]


@pytest.mark.django_db
def test_no_hint_when_it_is_not_your_turn():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    assert view(clients[0], match_id)["view"]["turn"] == 0
    response = ask(clients[1], match_id)
    assert response.status_code == 409
    assert response.json()["code"] == "not_your_turn"


@pytest.mark.django_db
def test_no_hint_where_the_match_switched_hints_off(player):
    _user, client = player
    match_id = create_match(client, hints_allowed=False)["id"]
    response = ask(client, match_id)
    assert response.status_code == 422
    assert response.json()["code"] == "hints_disabled"


@pytest.mark.django_db(transaction=True)
def test_only_the_player_who_asked_can_read_a_hint(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice)["id"]
    hint_id = ask(alice, match_id).json()["id"]
    assert bob.get(f"/api/v1/hints/{hint_id}").status_code == 404
    assert ask(bob, match_id).status_code == 404
    assert alice.get("/api/v1/hints/not-a-uuid").status_code == 404


def _broken_search(view, rng, budget=None):
    raise TypeError("a bug in the search")


@pytest.mark.django_db(transaction=True)
def test_a_hint_whose_working_out_raises_is_answered_as_failed_with_a_code(
    player, monkeypatch, caplog
):
    """Issue 9: a hint that hit Hard's bug stayed `pending` for ever."""
    monkeypatch.setattr("bots.services.recommend", _broken_search)
    _user, client = player
    match_id = create_match(client)["id"]
    response = ask(client, match_id)
    assert response.status_code == 202
    hint = client.get(f"/api/v1/hints/{response.json()['id']}").json()
    assert hint["status"] == "failed"
    assert hint["code"] == "hint_failed"
    assert hint["action"] is None and hint["explanation"]
    assert any(
        r.levelname == "ERROR" and "hint failed" in r.getMessage() and match_id in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.django_db(transaction=True)
def test_a_hint_left_pending_by_a_lost_task_is_ended_by_the_sweep(player, settings):
    from games.models import Hint
    from games.tasks import sweep_waiting_matches

    _user, client = player
    match_id = create_match(client)["id"]
    hint_id = ask(client, match_id).json()["id"]
    Hint.objects.filter(pk=hint_id).update(status="pending", action=None)  # the task was lost
    settings.HINT_STALE_AFTER = 0
    sweep_waiting_matches()
    hint = client.get(f"/api/v1/hints/{hint_id}").json()
    assert (hint["status"], hint["code"]) == ("failed", "hint_timed_out")


@pytest.mark.django_db(transaction=True)
def test_a_done_hint_has_no_code(player):
    _user, client = player
    match_id = create_match(client)["id"]
    hint = client.get(f"/api/v1/hints/{ask(client, match_id).json()['id']}").json()
    assert hint["status"] == "done" and hint["code"] is None
