import pytest

from games import eventlog
from games.models import Match

COMPUTERS = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3


def play_to_the_end(client, match_id: str) -> dict:
    body = client.get(f"/api/v1/matches/{match_id}").json()
    for _ in range(2000):
        if body["status"] == "finished":
            return body
        legal = body["view"]["legal_actions"]
        assert legal, body
        response = client.post(f"/api/v1/matches/{match_id}/actions", legal[0], format="json")
        assert response.status_code == 200, response.content
        body = client.get(f"/api/v1/matches/{match_id}").json()
    raise AssertionError("the match did not end")


@pytest.mark.django_db(transaction=True)
def test_a_client_plays_a_whole_match_against_computer_players(player):
    _user, client = player
    created = client.post("/api/v1/matches", {"seats": COMPUTERS}, format="json")
    assert created.status_code == 201, created.content
    final = play_to_the_end(client, created.json()["id"])
    match = Match.objects.get(pk=final["id"])
    replayed = eventlog.fold(match.events.order_by("seq"))
    assert replayed.scores == final["scores"]
    assert max(final["scores"]) >= 10
