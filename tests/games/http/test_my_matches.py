"""GET /api/v1/me/matches: the caller's matches with whose turn, the score and who plays;
filters and cursor pagination (issue 11, the player's own)."""

import pytest
from django.utils import timezone

from tests.games.helpers import COMPUTERS, OPEN, assert_error, create_match, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)  # computer turns run on commit


def _mine(client, query: str = "") -> list[dict]:
    response = client.get(f"/api/v1/me/matches{query}")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def _ids(items: list[dict]) -> list[str]:
    return [m["id"] for m in items]


def test_each_match_says_whose_turn_the_score_and_who_plays(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    against_computers = create_match(alice, COMPUTERS)["id"]  # seat 0 bids first
    with_bob = create_match(alice, OPEN)["id"]
    joined = bob.post(f"/api/v1/matches/{with_bob}/join", {"seat": 1}, format="json")
    assert joined.status_code == 200

    items = {m["id"]: m for m in _mine(alice)}
    assert set(items) == {against_computers, with_bob}
    playing = items[against_computers]
    assert playing["status"] == "active" and playing["is_my_turn"] is True
    assert playing["your_seat"] == 0 and playing["turn_seat"] == 0
    assert playing["partner"]["kind"] == "computer" and playing["partner"]["seat"] == 2
    assert [o["seat"] for o in playing["opponents"]] == [1, 3]
    assert playing["scores"] == [0, 0] and playing["you_won"] is None
    waiting = items[with_bob]
    assert waiting["status"] == "waiting" and waiting["is_my_turn"] is False
    assert waiting["opponents"][0]["username"] == "bob"
    assert waiting["partner"]["kind"] == "open"

    bobs = _mine(bob)
    assert _ids(bobs) == [with_bob]
    assert bobs[0]["your_seat"] == 1 and bobs[0]["partner"]["seat"] == 3
    assert bobs[0]["opponents"][0]["username"] == "alice"


def test_another_users_matches_never_appear(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    bobs = {create_match(bob, COMPUTERS)["id"], create_match(bob, OPEN)["id"]}
    alices = {create_match(alice, OPEN)["id"]}
    assert set(_ids(_mine(alice))) == alices
    assert set(_ids(_mine(bob))) == bobs
    for query in ("?status=waiting", "?my_turn=true", "?my_turn=false", "?opponent=bob"):
        assert not set(_ids(_mine(alice, query))) & bobs


def test_filters_by_status_turn_opponent_and_date(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    finished = create_match(alice, COMPUTERS, options={"target_score": 1})["id"]
    final = play_to_the_end(alice, finished)
    my_turn = create_match(alice, COMPUTERS)["id"]
    since = timezone.now()
    bob_opposite = create_match(alice, OPEN)["id"]
    bob.post(f"/api/v1/matches/{bob_opposite}/join", {"seat": 3}, format="json")
    bob_partner = create_match(alice, OPEN)["id"]
    bob.post(f"/api/v1/matches/{bob_partner}/join", {"seat": 2}, format="json")

    assert _ids(_mine(alice, "?status=finished")) == [finished]
    done = _mine(alice, "?status=finished")[0]
    assert done["you_won"] == (final["winner_team"] == 0) and max(done["scores"]) >= 1
    assert _ids(_mine(alice, "?my_turn=true")) == [my_turn]
    assert set(_ids(_mine(alice, "?my_turn=false"))) == {finished, bob_opposite, bob_partner}
    assert _ids(_mine(alice, "?opponent=bob")) == [bob_opposite]
    assert _ids(_mine(alice, "?opponent=BOB")) == [bob_opposite]  # usernames ignore case
    after = since.isoformat().replace("+00:00", "Z")
    assert set(_ids(_mine(alice, f"?created_after={after}"))) == {bob_opposite, bob_partner}
    assert set(_ids(_mine(alice, f"?created_before={after}"))) == {finished, my_turn}
    assert_error(alice.get("/api/v1/me/matches?my_turn=maybe"), 400, "invalid_input")
    assert_error(alice.get("/api/v1/me/matches?status=lost"), 400, "invalid_input")


def test_pages_follow_the_cursor_newest_first_without_gaps_or_repeats(player):
    _alice, alice = player
    made = [create_match(alice, OPEN)["id"] for _ in range(5)]
    seen, url, pages = [], "/api/v1/me/matches?page_size=2", 0
    while url:
        page = alice.get(url).json()
        seen += _ids(page["results"])
        url, pages = page["next"], pages + 1
        if url:
            create_match(alice, OPEN)  # a match made meanwhile does not shift the pages
    assert pages == 3
    assert seen == list(reversed(made))
    assert_error(alice.get("/api/v1/me/matches?cursor=bogus"), 400, "invalid_cursor")


def test_the_list_needs_a_token(client):
    assert_error(client.get("/api/v1/me/matches"), 401, "not_authenticated")
