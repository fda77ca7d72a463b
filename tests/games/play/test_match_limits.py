"""Creating, joining and leaving matches are throttled per user, and a person sits at a
limited number of matches waiting or being played at once."""

import pytest

from tests.conftest import make_player
from tests.games.helpers import OPEN, create_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def matches_rate(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "matches": "5/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


def test_creating_matches_in_a_burst_is_throttled_per_user(matches_rate, player, other_player):
    _alice, alice = player
    statuses = [
        alice.post("/api/v1/matches", {"seats": OPEN}, format="json").status_code for _ in range(8)
    ]
    assert statuses == [201] * 5 + [429] * 3
    throttled = alice.post("/api/v1/matches", {"seats": OPEN}, format="json")
    assert throttled.json()["code"] == "throttled" and int(throttled.headers["Retry-After"]) > 0
    assert alice.get("/api/v1/matches").status_code == 200  # reading is not counted
    _bob, bob = other_player
    assert bob.post("/api/v1/matches", {"seats": OPEN}, format="json").status_code == 201


def test_joining_and_leaving_count_with_creating(matches_rate, player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    ids = [create_match(alice, OPEN)["id"] for _ in range(3)]
    # Bob joins and leaves, over and over: five in a minute, then 429.
    statuses = []
    for match_id in ids:
        statuses.append(bob.post(f"/api/v1/matches/{match_id}/join", {}, format="json").status_code)
        statuses.append(bob.post(f"/api/v1/matches/{match_id}/leave").status_code)
    assert statuses == [200] * 5 + [429]


def test_a_person_sits_at_no_more_than_max_active_matches(settings, player, other_player):
    settings.MAX_ACTIVE_MATCHES_PER_USER = 3
    _alice, alice = player
    _bob, bob = other_player
    mine = [create_match(alice, OPEN)["id"] for _ in range(3)]
    refused = alice.post("/api/v1/matches", {"seats": OPEN}, format="json")
    assert refused.status_code == 409
    assert refused.json()["code"] == "too_many_active_matches"
    assert "at most 3" in refused.json()["detail"]
    # Joining someone else's match is one more too.
    bobs = create_match(bob, OPEN)["id"]
    joined = alice.post(f"/api/v1/matches/{bobs}/join", {}, format="json")
    assert joined.status_code == 409 and joined.json()["code"] == "too_many_active_matches"
    # Leaving one makes room.
    assert alice.post(f"/api/v1/matches/{mine[0]}/leave").status_code == 200
    assert alice.post(f"/api/v1/matches/{bobs}/join", {}, format="json").status_code == 200
    assert alice.post("/api/v1/matches", {"seats": OPEN}, format="json").status_code == 409
    # Other people are not affected by alice's matches.
    carol = make_player("carol")[1]
    assert carol.post("/api/v1/matches", {"seats": OPEN}, format="json").status_code == 201
