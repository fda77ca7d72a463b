"""Spectators: a public match is watched by anyone signed in (the spectator's view, its
events, stream and replay); a private one stays 404; how many watch; the watch list.
The leak check over every event is in test_visibility.py."""

import time

import pytest

from games.models import Match, MatchStatus
from tests.conftest import make_player
from tests.games.helpers import assert_error, create_match, play_to_the_end, view
from tests.games.server_support import Player


@pytest.mark.django_db(transaction=True)
def test_a_private_match_stays_404_to_anyone_not_seated():
    _, alice = make_player("alice")
    _, carol = make_player("carol")
    match_id = create_match(alice)["id"]
    assert view(alice, match_id)["visibility"] == "private"
    for path in ("", "/events", "/replay", "/stream"):
        assert_error(carol.get(f"/api/v1/matches/{match_id}{path}"), 404, "not_found")
    play_to_the_end(alice, match_id)
    assert_error(carol.get(f"/api/v1/matches/{match_id}/replay"), 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_a_spectator_of_a_public_match_sees_the_table_but_no_cards_and_cannot_act():
    _, alice = make_player("alice")
    _, carol = make_player("carol")
    match_id = create_match(alice, visibility="public")["id"]
    body = view(carol, match_id)
    assert body["you"] is None and "view" not in body
    seen = body["spectator_view"]
    assert seen["hand"]["upcard"] and "cards" not in seen["hand"] and "seat" not in seen
    assert seen["hand"]["hand_sizes"] == [5, 5, 5, 5] and "legal_actions" not in seen
    assert not any(seat["is_you"] for seat in body["seats"])
    turn = seen["turn"]
    assert turn is not None  # whose turn is shown
    action = view(alice, match_id)["view"]["legal_actions"]
    assert_error(
        carol.post(f"/api/v1/matches/{match_id}/actions", action[0] if action else {"type": "pass"},
                   format="json"), 404, "not_found",
    )  # fmt: skip
    assert_error(carol.post(f"/api/v1/matches/{match_id}/hints"), 404, "not_found")
    assert_error(carol.post(f"/api/v1/matches/{match_id}/leave"), 404, "not_found")
    events = carol.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    dealt = [e for e in events if e["type"] == "hand_dealt"]
    assert dealt and all("cards" not in e["payload"] and "deck" not in e["payload"] for e in dealt)


@pytest.mark.django_db(transaction=True)
def test_joining_a_public_match_that_started_or_ended_is_a_409_that_says_so_not_a_404():
    """Anyone signed in may watch a public match: a 404 on joining it would deny what
    GET answers. A private one stays 404 (its id is the invitation)."""
    _, alice = make_player("alice")
    _, carol = make_player("carol")
    started = create_match(alice, visibility="public")["id"]
    assert view(carol, started)["status"] == "active"
    assert_error(carol.post(f"/api/v1/matches/{started}/join"), 409, "match_started")
    finished = create_match(alice, visibility="public", options={"target_score": 1})["id"]
    play_to_the_end(alice, finished)
    assert_error(carol.post(f"/api/v1/matches/{finished}/join"), 409, "match_finished")
    Match.objects.filter(pk=started).update(status=MatchStatus.ABANDONED)
    assert_error(carol.post(f"/api/v1/matches/{started}/join"), 409, "match_finished")
    private = create_match(alice)["id"]
    assert_error(carol.post(f"/api/v1/matches/{private}/join"), 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_the_public_matches_being_played_are_listed_for_watching():
    _, alice = make_player("alice")
    _, carol = make_player("carol")
    public = create_match(alice, visibility="public")["id"]
    create_match(alice)  # private
    waiting = create_match(alice, [{"kind": "me"}] + [{"kind": "open"}] * 3, visibility="public")
    finished = create_match(alice, visibility="public")["id"]
    play_to_the_end(alice, finished)
    listed = carol.get("/api/v1/matches/public").json()
    assert [m["id"] for m in listed["results"]] == [public] and listed["count"] == 1
    assert listed["results"][0]["visibility"] == "public"
    assert waiting["status"] == "waiting"
    Match.objects.filter(pk=public).update(status=MatchStatus.ABANDONED)
    assert carol.get("/api/v1/matches/public").json()["count"] == 0
    assert_error(carol.get("/api/v1/matches/public?page=2"), 404, "not_found")
    assert_error(carol.get("/api/v1/matches/public?page_size=0"), 400, "invalid_input")


@pytest.mark.django_db(transaction=True)
def test_a_spectator_sees_a_finished_public_match_in_full_with_its_replay():
    _, alice = make_player("alice")
    _, carol = make_player("carol")
    match_id = create_match(alice, visibility="public", options={"target_score": 1})["id"]
    play_to_the_end(alice, match_id)
    replay = carol.get(f"/api/v1/matches/{match_id}/replay")
    assert replay.status_code == 200 and replay.json()["hands"][0]["commitment_verified"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_spectators_stream_shows_no_cards_and_is_counted_as_watching(servers):
    server = servers()
    alice, carol, dave = Player(server), Player(server), Player(server)
    body = {"seats": [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3,
            "options": {"target_score": 2}, "visibility": "public"}  # fmt: skip
    match_id = alice.call("POST", "matches", body, status=201)["id"]
    assert alice.call("GET", f"matches/{match_id}")["watching"] == 0
    streams = [carol.stream(match_id), dave.stream(match_id)]
    streams[0].wait_for_seq(1)
    streams[1].wait_for_seq(1)
    assert alice.call("GET", f"matches/{match_id}")["watching"] == 2
    assert [s["present"] for s in alice.call("GET", f"matches/{match_id}")["seats"]] == [False] * 4
    # Alice plays to the end; the spectators' streams carry every event, no hidden card.
    for _ in range(2000):
        view_ = alice.call("GET", f"matches/{match_id}")
        if view_["status"] == "finished":
            break
        if view_["view"]["legal_actions"]:
            alice.call("POST", f"matches/{match_id}/actions", view_["view"]["legal_actions"][0])
    final = alice.call("GET", f"matches/{match_id}")["seq"]
    streams[0].wait_for(lambda c: c.ended, what="the end of the stream")
    assert streams[0].ids == list(range(1, final + 1))
    for event in streams[0].events:
        if event["type"] == "hand_dealt":
            assert not {"cards", "deck", "salt"} & set(event["payload"])
        if event["type"] == "discard":
            assert "card" not in event["payload"]["action"]
    for stream in streams:
        stream.close()
    deadline = time.monotonic() + 60
    while alice.call("GET", f"matches/{match_id}")["watching"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alice.call("GET", f"matches/{match_id}")["watching"] == 0


@pytest.mark.django_db(transaction=True)
def test_the_spectator_quick_play_and_rematch_answers_are_what_the_schema_says():
    from drf_spectacular.generators import SchemaGenerator

    from tests.games.http.test_schema_contract import validator
    from tests.games.social_support import finished_match, people

    served = SchemaGenerator().get_schema(request=None, public=True)
    check_view = validator(served, "MatchView")
    (_, alice, _), (_, bob, _), (_, carol, _) = people("alice", "bob", "carol")
    public = create_match(alice, visibility="public")["id"]
    watched = view(carol, public)
    check_view.validate(watched)
    assert not check_view.is_valid({**watched, "spectator_view": {"phase": "bid1"}})
    validator(served, "PublicMatchPage").validate(carol.get("/api/v1/matches/public").json())
    check_view.validate(carol.post("/api/v1/quickplay", {}, format="json").json())
    finished = finished_match([alice, bob], computers=2)
    check_view.validate(alice.post(f"/api/v1/matches/{finished}/rematch").json())
    check_view.validate(bob.post(f"/api/v1/matches/{finished}/rematch/accept").json())
