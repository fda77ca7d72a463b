import pytest
from django.contrib.auth import get_user_model
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
    assert taken.status_code == 409
    assert taken.json()["code"] == "username_taken"


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
    statuses = [  # a new name each time: this is the limit per address, not per name
        client.post(
            "/api/v1/auth/token", {"username": f"x{i}", "password": "y"}, format="json"
        ).status_code
        for i in range(25)
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


# ---------------------------------------------------------------- who the client is


PASSWORD = "correct horse battery"


def sign_in(username: str, password: str, **meta):
    return APIClient().post(
        "/api/v1/auth/token", {"username": username, "password": password}, format="json", **meta
    )


@pytest.mark.django_db
def test_forwarded_for_header_does_not_reset_signin_throttle():
    """Forty guesses, each with a new X-Forwarded-For, from one address: the header is
    the client's own word, so the address throttle still counts them as one client."""
    get_user_model().objects.create_user("victim", password=PASSWORD)
    statuses = [
        sign_in(f"guess{i}", "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code
        for i in range(40)
    ]
    assert statuses[:20] == [401] * 20
    assert set(statuses[20:]) == {429}
    right = sign_in("victim", PASSWORD, HTTP_X_FORWARDED_FOR="10.0.1.1")
    assert right.status_code == 429 and "token" not in right.json()


@pytest.mark.django_db
def test_a_guess_at_one_account_spread_over_many_addresses_is_throttled_per_username():
    get_user_model().objects.create_user("victim", password=PASSWORD)
    statuses = [
        sign_in("victim", f"guess {i}", REMOTE_ADDR=f"198.51.100.{i}").status_code
        for i in range(1, 16)
    ]
    assert statuses[:10] == [401] * 10  # THROTTLE_SIGNIN_FAILURES: 10/hour
    assert set(statuses[10:]) == {429}
    # Every spelling of the name counts as the name, and the right password is refused
    # too until the window has passed (it is not even checked).
    for spelling in ("victim", "VICTIM", "ｖｉｃｔｉｍ"):
        refused = sign_in(spelling, PASSWORD, REMOTE_ADDR="198.51.100.200")
        assert refused.status_code == 429, spelling
        assert refused.json()["code"] == "throttled"
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
    # Other accounts are not affected, from the same addresses.
    get_user_model().objects.create_user("bystander", password=PASSWORD)
    assert sign_in("bystander", PASSWORD, REMOTE_ADDR="198.51.100.1").status_code == 200


@pytest.mark.django_db
def test_right_passwords_do_not_count_towards_the_per_username_limit():
    get_user_model().objects.create_user("carol", password=PASSWORD)
    for i in range(15):  # e.g. fifteen devices, from fifteen addresses
        assert sign_in("carol", PASSWORD, REMOTE_ADDR=f"198.51.100.{i + 1}").status_code == 200


@pytest.mark.django_db
def test_forwarded_for_is_believed_only_from_a_trusted_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.FORWARDED_ALLOW_IPS = "10.9.0.0/16"
    proxy = {"REMOTE_ADDR": "10.9.0.7"}
    # Through the proxy: the address the proxy appended, whatever the client put first.
    statuses = [
        sign_in(f"g{i}", "x", HTTP_X_FORWARDED_FOR=f"1.1.1.{i}, 203.0.113.9", **proxy).status_code
        for i in range(21)
    ]
    assert statuses[:20] == [401] * 20 and statuses[20] == 429
    # Another client behind the same proxy has its own count.
    other = sign_in("g", "x", HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy)
    assert other.status_code == 401
    # Straight to the server, past the proxy: the header is ignored.
    statuses = [
        sign_in(
            f"h{i}", "x", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR=f"1.1.1.{i}"
        ).status_code
        for i in range(21)
    ]
    assert statuses[20] == 429


class _Request:
    def __init__(self, remote: str, forwarded: str | None = None) -> None:
        self.META = {"REMOTE_ADDR": remote}
        if forwarded is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded


def test_the_client_address_counts_trusted_hops_from_the_right(settings):
    from games.http.throttling import client_address

    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(_Request("192.0.2.1", "1.2.3.4")) == "192.0.2.1"
    settings.TRUSTED_PROXY_COUNT = 1
    settings.FORWARDED_ALLOW_IPS = "127.0.0.1"
    assert client_address(_Request("127.0.0.1", "6.6.6.6, 1.2.3.4")) == "1.2.3.4"
    assert client_address(_Request("127.0.0.1")) == "127.0.0.1"
    assert client_address(_Request("192.0.2.1", "1.2.3.4")) == "192.0.2.1"  # not the proxy
    settings.TRUSTED_PROXY_COUNT = 2  # a load balancer, then nginx
    settings.FORWARDED_ALLOW_IPS = "*"
    assert client_address(_Request("172.18.0.5", "6.6.6.6, 1.2.3.4, 10.0.0.2")) == "1.2.3.4"
    settings.FORWARDED_ALLOW_IPS = "::1, 10.0.0.0/8, not-an-address"
    assert client_address(_Request("::1", "1.2.3.4, 10.0.0.2")) == "1.2.3.4"
    assert client_address(_Request("10.200.0.1", "1.2.3.4, 10.0.0.2")) == "1.2.3.4"
    assert client_address(_Request("11.0.0.1", "1.2.3.4, 10.0.0.2")) == "11.0.0.1"


@pytest.mark.django_db
def test_guest_accounts_are_limited_per_real_address_whatever_forwarded_for_says():
    statuses = [
        APIClient().post("/api/v1/auth/guest", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").status_code
        for i in range(35)
    ]
    assert statuses[:30] == [201] * 30  # THROTTLE_GUESTS: 30/hour
    assert set(statuses[30:]) == {429}
    assert get_user_model().objects.filter(username__startswith="guest-").count() == 30
    elsewhere = APIClient().post("/api/v1/auth/guest", REMOTE_ADDR="198.51.100.7")
    assert elsewhere.status_code == 201


# ---------------------------------------------------------------- the admin's login


def admin_login(client, username: str, password: str, **meta):
    return client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}, **meta
    )


@pytest.mark.django_db
def test_wrong_admin_passwords_are_limited_per_address_then_the_right_one_is_refused(client):
    get_user_model().objects.create_superuser("root", password=PASSWORD)
    for i in range(10):  # THROTTLE_ADMIN_LOGIN: 10/hour
        failed = admin_login(client, "root", f"guess {i}")
        assert failed.status_code == 200 and "correct username and password" in failed.text
    refused = admin_login(client, "root", PASSWORD)
    assert refused.status_code == 200
    assert "Too many failed logins" in refused.text
    assert client.get("/admin/").status_code == 302  # still not logged in
    # Another name from the same address is refused too (the address is over its limit).
    get_user_model().objects.create_superuser("ops", password=PASSWORD)
    assert "Too many failed logins" in admin_login(client, "ops", PASSWORD).text


@pytest.mark.django_db
def test_wrong_admin_passwords_are_limited_per_username_across_addresses(client):
    get_user_model().objects.create_superuser("root", password=PASSWORD)
    for i in range(10):
        admin_login(client, "root", "wrong", REMOTE_ADDR=f"198.51.100.{i + 1}")
    refused = admin_login(client, "ROOT", PASSWORD, REMOTE_ADDR="198.51.100.99")
    assert "Too many failed logins" in refused.text
    assert client.get("/admin/").status_code == 302
    get_user_model().objects.create_superuser("ops", password=PASSWORD)
    ok = admin_login(client, "ops", PASSWORD, REMOTE_ADDR="198.51.100.99")
    assert ok.status_code == 302 and client.get("/admin/").status_code == 200


# ---------------------------------------------------------------- devices


@pytest.mark.django_db
def test_signing_in_on_a_51st_device_retires_the_oldest_token_instead_of_a_403():
    from knox.models import AuthToken

    user = get_user_model().objects.create_user("dana", password=PASSWORD)
    devices = [AuthToken.objects.create(user)[1] for _ in range(50)]  # TOKEN_LIMIT_PER_USER
    newest = sign_in("dana", PASSWORD)
    assert newest.status_code == 200, newest.content
    assert AuthToken.objects.filter(user=user).count() == 50

    def works(token: str) -> bool:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client.get("/api/v1/matches").status_code == 200

    assert works(newest.json()["token"])
    assert not works(devices[0])  # the oldest device signs in again
    assert all(works(token) for token in devices[1:3] + devices[-2:])
    again = sign_in("dana", PASSWORD)
    assert again.status_code == 200 and not works(devices[1])


def test_every_throttled_view_uses_the_one_fail_open_throttle_base():
    """So that every throttled endpoint keys on the real address and survives the cache
    going down (games.http.throttling.ServiceThrottle)."""
    from django.urls import get_resolver
    from rest_framework.settings import api_settings

    from games.http.throttling import ServiceThrottle

    assert api_settings.DEFAULT_THROTTLE_CLASSES == []
    throttled = {}
    for pattern in get_resolver().url_patterns:
        view = getattr(pattern.callback, "view_class", None)
        if view is not None and getattr(view, "throttle_classes", None):
            throttled[str(pattern.pattern)] = view.throttle_classes
    assert {
        "api/v1/auth/register",
        "api/v1/auth/token",
        "api/v1/auth/guest",
        "api/v1/matches",
        "api/v1/matches/<str:match_id>/join",
        "api/v1/matches/<str:match_id>/leave",
        "api/v1/matches/<str:match_id>/actions",
        "api/v1/matches/<str:match_id>/hints",
        # Each of these makes or joins a match too (issue 9 item 6).
        "api/v1/quickplay",
        "api/v1/matches/<str:match_id>/rematch",
        "api/v1/matches/<str:match_id>/rematch/accept",
        "api/v1/matches/<str:match_id>/rematch/decline",
    } <= set(throttled)
    for path, classes in throttled.items():
        assert all(issubclass(c, ServiceThrottle) for c in classes), path
