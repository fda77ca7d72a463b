"""Bad input gets a clear 4xx with a stable code and a sentence, and changes nothing."""

import json

import pytest

from games.models import Event, Match
from tests.games.helpers import COMPUTERS, act, assert_error, create_match, view


def seq_of(match_id: str) -> int:
    return Event.objects.filter(match_id=match_id).count()


@pytest.fixture
def running(player):
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    return client, match_id


@pytest.mark.django_db
def test_malformed_json_is_a_400(player):
    _user, client = player
    response = client.generic(
        "POST", "/api/v1/matches", "{not json", content_type="application/json"
    )
    assert_error(response, 400, "malformed_json")
    assert Match.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "payload, field",
    [
        ({"seats": COMPUTERS, "colour": "blue"}, "colour"),
        ({"seats": [{"kind": "me"}] * 4}, "seats"),
        ({"seats": COMPUTERS[:3]}, "seats"),
        ({"seats": "four"}, "seats"),
        ({"seats": [{"kind": "me"}, *[{"kind": "computer", "level": "genius"}] * 3]}, "seats"),
        ({"seats": COMPUTERS, "options": {"target_score": 16}}, "options"),
        ({"seats": COMPUTERS, "options": {"target_score": "ten"}}, "options"),
        ({"seats": COMPUTERS, "options": {"stick_the_dealer": "maybe"}}, "options"),
        ({"seats": COMPUTERS, "options": {"jokers": True}}, "options"),
    ],
)
def test_creating_a_match_with_bad_fields_is_a_400_naming_the_field(player, payload, field):
    _user, client = player
    response = client.post("/api/v1/matches", payload, format="json")
    body = assert_error(response, 400, "invalid_input")
    assert field in body["errors"]
    assert Match.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "action, status, code",
    [
        ({"type": "play", "card": "ZZ"}, 400, "invalid_card"),
        ({"type": "play", "card": 7}, 400, "invalid_input"),  # a JSON number is no string
        ({"type": "call", "suit": "X"}, 400, "invalid_suit"),
        ({"type": "dance"}, 400, "invalid_input"),
        ({"type": "pass", "extra": 1}, 400, "invalid_input"),
        ({"type": "order_up", "alone": "yes"}, 400, "invalid_input"),
        ({"type": "pass", "expected_seq": "latest"}, 400, "invalid_input"),
        ({"type": "play", "card": "AS"}, 422, "wrong_phase"),
        ({"type": "call", "suit": "S"}, 422, "wrong_phase"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(player, action, status, code):
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "computer"}] * 3)["id"]
    for _ in range(20):  # let the computers bid until it is south's turn in round one
        state = view(client, match_id)
        if state["view"]["turn"] == 0 and state["view"]["phase"] == "bid1":
            break
        act(client, match_id, state["view"]["legal_actions"][0])
    before = seq_of(match_id)
    if state["view"]["turn"] != 0 or state["view"]["phase"] != "bid1":
        pytest.fail("south never got a round-one bid")
    assert_error(act(client, match_id, action), status, code)
    assert seq_of(match_id) == before


@pytest.mark.django_db
def test_an_oversized_body_is_a_413(player):
    _user, client = player
    body = json.dumps({"seats": COMPUTERS, "pad": "x" * 100_000})
    response = client.generic("POST", "/api/v1/matches", body, content_type="application/json")
    assert_error(response, 413, "payload_too_large")
    assert Match.objects.count() == 0


@pytest.mark.django_db
def test_actions_before_the_match_starts_are_a_409(running):
    client, match_id = running
    before = seq_of(match_id)
    assert_error(act(client, match_id, {"type": "pass"}), 409, "match_not_started")
    assert seq_of(match_id) == before


@pytest.mark.django_db(transaction=True)
def test_actions_on_a_finished_match_are_a_409(player):
    from tests.games.helpers import play_to_the_end

    _user, client = player
    match_id = create_match(client, options={"target_score": 1})["id"]
    play_to_the_end(client, match_id)
    before = seq_of(match_id)
    assert_error(act(client, match_id, {"type": "pass"}), 409, "match_finished")
    assert seq_of(match_id) == before


@pytest.mark.django_db(transaction=True)
def test_a_stale_expected_seq_is_a_409_with_the_current_seq(player):
    _user, client = player
    match_id = create_match(client)["id"]
    state = view(client, match_id)
    response = act(client, match_id, {"type": "pass", "expected_seq": state["seq"] - 1})
    body = assert_error(response, 409, "stale_sequence")
    assert body["seq"] == state["seq"]
    assert seq_of(match_id) == state["seq"]


@pytest.mark.django_db
def test_a_non_json_content_type_is_a_415(player):
    _user, client = player
    response = client.generic("POST", "/api/v1/matches", "seats=4", content_type="text/plain")
    assert_error(response, 415, "unsupported_media_type")


@pytest.mark.django_db(transaction=True)
def test_an_illegal_left_bower_play_over_http_says_why_and_changes_nothing(player):
    """South plays matches against computer players, keeping jacks, and at every turn in
    the play taps each illegal card, until one is refused because of the left bower."""
    _user, client = player
    for _match in range(10):  # the case comes up within a few hands; 10 matches bound it
        match_id = create_match(client, COMPUTERS)["id"]
        body = view(client, match_id)
        while body["status"] == "active":
            legal = body["view"]["legal_actions"]
            plays = [a["card"] for a in legal if a["type"] == "play"]
            for card in body["view"]["hand"]["cards"] if plays else []:
                if card in plays:
                    continue
                before = seq_of(match_id)
                refused = assert_error(
                    act(client, match_id, {"type": "play", "card": card}), 422, "must_follow_suit"
                )
                assert seq_of(match_id) == before
                if "left bower" in refused["detail"]:
                    assert "must follow suit" in refused["detail"]
                    return
            keep_jacks = sorted(legal, key=lambda a: a.get("card", "")[:1] == "J")
            assert act(client, match_id, keep_jacks[0]).status_code == 200
            body = view(client, match_id)
    raise AssertionError("no left bower refusal in 10 matches")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/api/v1/matches?format=xml", "/api/v1/matches?format=api", "/api/v1/schema?format=x"]
)
def test_an_unknown_format_override_is_a_json_404_not_a_500(player, path):
    """DRF's ?format= override with no such renderer raises Django's Http404, which has no
    .detail: the error handler crashed on it (a 500 HTML page), and the schema endpoint
    rendered its error as YAML. Found by the hostile-client suite."""
    _user, client = player
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "detail": "Not found."}


@pytest.mark.django_db
def test_an_idempotency_key_reused_with_a_different_request_is_a_422(player):
    _user, client = player
    match_id = create_match(client)["id"]
    other_match = create_match(client)["id"]
    key = {"HTTP_IDEMPOTENCY_KEY": "6f1c2a9e-key-1"}
    first = act(client, match_id, {"type": "pass"}, **key)
    assert first.status_code == 200
    seq = seq_of(match_id)
    again = act(client, match_id, {"type": "pass"}, **key)
    assert again.status_code == 200 and again.json() == first.json()
    for body in (
        {"type": "order_up"},
        {"type": "pass", "expected_seq": first.json()["seq"] - 1},
        {"type": "pass", "alone": False},
    ):
        mismatch = act(client, match_id, body, **key)
        assert_error(mismatch, 422, "idempotency_key_mismatch")
    assert_error(act(client, other_match, {"type": "pass"}, **key), 422, "idempotency_key_mismatch")
    assert seq_of(match_id) == seq and seq_of(other_match) == view(client, other_match)["seq"]
    assert view(client, other_match)["view"]["legal_actions"]  # nothing was applied there


@pytest.mark.django_db
@pytest.mark.parametrize(
    "key", ["", "x" * 129, "has space", "tab\there", "clé", "\u202e", "line\nbreak"]
)
def test_an_idempotency_key_of_the_wrong_length_or_characters_is_a_400(player, key):
    _user, client = player
    match_id = create_match(client)["id"]
    seq = seq_of(match_id)
    response = act(client, match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert_error(response, 400, "invalid_idempotency_key")
    assert seq_of(match_id) == seq


@pytest.mark.django_db
def test_an_idempotency_key_of_128_visible_characters_is_fine(player):
    _user, client = player
    match_id = create_match(client)["id"]
    key = ("A-z0-9_.:+/=~!" * 10)[:128]
    assert act(client, match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key).status_code == 200
