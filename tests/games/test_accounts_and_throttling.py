import pytest
from rest_framework.test import APIClient

from tests.games.helpers import create_match, view


@pytest.mark.django_db
def test_register_then_sign_in_on_two_devices_and_revoke_one():
    client = APIClient()
    registered = client.post(
        "/api/v1/auth/register",
        {"username": "carol", "password": "correct horse battery"},
        format="json",
    )
    assert registered.status_code == 201
    assert registered.json()["username"] == "carol"
    tokens = [
        client.post(
            "/api/v1/auth/token",
            {"username": "carol", "password": "correct horse battery"},
            format="json",
        ).json()["token"]
        for _device in range(2)
    ]
    phone, laptop = APIClient(), APIClient()
    phone.credentials(HTTP_AUTHORIZATION=f"Token {tokens[0]}")
    laptop.credentials(HTTP_AUTHORIZATION=f"Token {tokens[1]}")
    assert phone.post("/api/v1/auth/logout").status_code == 204
    assert phone.get("/api/v1/matches").status_code == 401
    assert laptop.get("/api/v1/matches").status_code == 200


@pytest.mark.django_db
def test_a_weak_or_taken_registration_is_refused_with_reasons():
    client = APIClient()
    weak = client.post(
        "/api/v1/auth/register", {"username": "dave", "password": "password"}, format="json"
    )
    assert weak.status_code == 400
    assert "password" in weak.json()["errors"]
    client.post(
        "/api/v1/auth/register",
        {"username": "erin", "password": "correct horse battery"},
        format="json",
    )
    taken = client.post(
        "/api/v1/auth/register",
        {"username": "ERIN", "password": "correct horse battery"},
        format="json",
    )
    assert taken.status_code == 400
    assert "username" in taken.json()["errors"]


@pytest.mark.django_db
def test_wrong_password_is_a_401_with_a_code():
    client = APIClient()
    response = client.post(
        "/api/v1/auth/token", {"username": "nobody", "password": "whatever"}, format="json"
    )
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


@pytest.mark.django_db
def test_too_many_sign_in_attempts_get_a_429_that_says_when_to_retry():
    client = APIClient()
    statuses = [
        client.post(
            "/api/v1/auth/token", {"username": "x", "password": "y"}, format="json"
        ).status_code
        for _ in range(25)
    ]
    assert statuses[:20] == [401] * 20
    last = client.post("/api/v1/auth/token", {"username": "x", "password": "y"}, format="json")
    assert last.status_code == 429
    body = last.json()
    assert body["code"] == "throttled"
    assert body["retry_after"] > 0
    assert f"retry in {body['retry_after']} seconds" in body["detail"]
    assert int(last.headers["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_a_player_who_leaves_is_replaced_by_a_computer_player(player):
    _user, client = player
    match_id = create_match(client)["id"]
    response = client.post(f"/api/v1/matches/{match_id}/leave")
    assert response.status_code == 200
    from games.models import Event, Match

    left = Event.objects.get(match_id=match_id, type="seat_left")
    assert left.seat == 0
    match = Match.objects.get(pk=match_id)
    assert match.seats.get(index=0).kind == "computer"
    # No person is left: the match is abandoned, not played out by computers for nobody.
    assert match.status == "abandoned"
    assert client.get(f"/api/v1/matches/{match_id}").status_code == 404


@pytest.mark.django_db
def test_an_invite_lets_another_player_take_an_open_seat(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice, [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer"}] * 2)[
        "id"
    ]
    assert view(alice, match_id)["status"] == "waiting"
    joined = bob.post(f"/api/v1/matches/{match_id}/join", {}, format="json")
    assert joined.status_code == 200
    assert joined.json()["you"] == 1
    assert joined.json()["status"] == "active"
    again = bob.post(f"/api/v1/matches/{match_id}/join", {}, format="json")
    assert again.status_code == 409
    assert again.json()["code"] == "already_seated"


@pytest.mark.django_db
def test_a_guest_gets_an_account_and_a_token_with_no_password_and_can_play():
    response = APIClient().post("/api/v1/auth/guest")
    assert response.status_code == 201
    body = response.json()
    assert body["username"].startswith("guest-") and body["token"] and body["expiry"]
    guest = APIClient()
    guest.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    match = create_match(guest)
    assert view(guest, match["id"])["you"] == 0
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.get(username=body["username"]).has_usable_password()
    signin = APIClient().post(
        "/api/v1/auth/token", {"username": body["username"], "password": ""}, format="json"
    )
    assert signin.status_code == 400  # no password signs a guest in


@pytest.mark.django_db
def test_two_guests_get_two_accounts():
    names = {APIClient().post("/api/v1/auth/guest").json()["username"] for _ in range(2)}
    assert len(names) == 2


@pytest.mark.django_db
def test_registering_a_guest_name_is_refused():
    response = APIClient().post(
        "/api/v1/auth/register",
        {"username": "Guest-12345678", "password": "correct horse battery"},
        format="json",
    )
    assert response.status_code == 400
    assert "kept for guests" in response.json()["errors"]["username"][0]
