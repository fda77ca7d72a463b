"""The HTTP conventions client developers know (issue 11): CORS, ETags and 304, rate-limit
headers, Idempotent-Replayed, Location on 201 (docs/api-versioning.md, "HTTP conventions")."""

import copy
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from rest_framework.test import APIClient

from tests.games.helpers import (
    COMPUTERS,
    OPEN,
    act,
    assert_error,
    create_match,
    play_to_the_end,
    view,
)

APP = "https://app.example.com"
ROOT = Path(__file__).resolve().parents[3]
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def schema_operations() -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) for every operation of the committed schema (the served
    one, tests/games/http/test_schema_contract.py)."""
    schema = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return [
        (method.upper(), path, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    ]


OPERATIONS = schema_operations()
OPERATION_IDS = [f"{method} {path}" for method, path, _ in OPERATIONS]


@pytest.fixture
def allowed_origin(settings):
    settings.CORS_ALLOWED_ORIGINS = [APP]


# ---------------------------------------------------------------- CORS


@pytest.mark.django_db
def test_an_allowed_origin_may_call_the_api_and_read_its_headers(allowed_origin, player):
    _user, client = player
    response = client.post("/api/v1/matches", {"seats": COMPUTERS}, format="json", HTTP_ORIGIN=APP)
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == APP
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {
        "etag",
        "location",
        "retry-after",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "idempotent-replayed",
    } <= exposed
    assert "Access-Control-Allow-Credentials" not in response  # tokens, never cookies


@pytest.mark.django_db
def test_a_preflight_from_an_allowed_origin_names_the_methods_and_headers(allowed_origin):
    response = APIClient().options(
        "/api/v1/matches/x/actions",
        HTTP_ORIGIN=APP,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, idempotency-key, content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == APP
    methods = {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "POST", "DELETE"} <= methods
    headers = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "idempotency-key", "last-event-id", "content-type"} <= headers
    assert int(response["Access-Control-Max-Age"]) > 0


def _concrete(path: str) -> str:
    """A URL of the schema's path (a preflight is answered before any view looks it up)."""
    names = {"{match_id}": str(uuid.uuid4()), "{hint_id}": str(uuid.uuid4())}
    for name, value in {**names, "{username}": "alice"}.items():
        path = path.replace(name, value)
    assert "{" not in path, f"a path parameter this test does not fill: {path}"
    return path


def _headers_sent(operation: dict[str, Any]) -> set[str]:
    """The headers a client sends that are not CORS-safelisted: its token (an operation that
    takes one), its body's type, and each header parameter the operation declares."""
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    if any(requirement for requirement in operation.get("security", [])):
        headers.add("authorization")
    if "requestBody" in operation:
        headers.add("content-type")
    return headers


def _preflight(method: str, path: str, operation: dict[str, Any], origin: str) -> Any:
    """What a browser asks before it makes the operation's request from `origin`."""
    return APIClient().options(
        _concrete(path),
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=", ".join(sorted(_headers_sent(operation))),
    )


def test_the_schema_has_operations_of_each_method_the_api_takes():
    assert {method for method, _path, _op in OPERATIONS} == {"GET", "POST", "DELETE"}
    assert ("DELETE", "/api/v1/quickplay") in {(m, p) for m, p, _op in OPERATIONS}


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=OPERATION_IDS)
def test_a_web_app_on_an_allowed_origin_may_make_every_operation_of_the_schema(
    allowed_origin, method, path, operation
):
    """The checks a browser makes of a preflight's answer (Fetch, "CORS-preflight fetch"):
    the origin, the method (case-sensitive) and every non-safelisted header it will send.
    Before, DELETE was not allowed: a web app could not leave quick play's queue."""
    response = _preflight(method, path, operation, APP)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == APP
    methods = {m.strip() for m in response["Access-Control-Allow-Methods"].split(",")}
    assert method in methods, f"{method} {path}: the preflight allows {sorted(methods)}"
    allowed = {h.strip().lower() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert _headers_sent(operation) <= allowed


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=OPERATION_IDS)
def test_an_origin_not_listed_may_make_no_operation_of_the_schema(
    allowed_origin, method, path, operation
):
    response = _preflight(method, path, operation, "https://evil.example.com")
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Methods" not in response


@pytest.mark.django_db
def test_a_web_app_may_leave_the_quick_play_queue_and_read_the_answer(allowed_origin, player):
    _user, client = player
    response = client.delete("/api/v1/quickplay", HTTP_ORIGIN=APP)
    assert_error(response, 409, "not_in_queue")  # its answer reaches the page's script
    assert response["Access-Control-Allow-Origin"] == APP


@pytest.mark.django_db
def test_the_feed_stream_answers_a_preflight_too(allowed_origin):
    response = APIClient().options(
        "/api/v1/me/stream",
        HTTP_ORIGIN=APP,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, last-event-id",
    )
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == APP


@pytest.mark.django_db
def test_an_origin_not_listed_gets_no_cors_headers(allowed_origin, player):
    _user, client = player
    response = client.get("/api/v1/matches", HTTP_ORIGIN="https://evil.example.com")
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response
    preflight = APIClient().options(
        "/api/v1/matches",
        HTTP_ORIGIN="https://evil.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )
    assert "Access-Control-Allow-Origin" not in preflight


@pytest.mark.django_db
def test_no_origin_is_allowed_by_default(player):
    _user, client = player
    response = client.get("/api/v1/matches", HTTP_ORIGIN=APP)
    assert "Access-Control-Allow-Origin" not in response


# ---------------------------------------------------------------- ETag and 304


def _conditional(client, url: str):
    first = client.get(url)
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag.startswith('W/"') and first["Cache-Control"] == "private, no-cache"
    again = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == tag and again["Cache-Control"] == "private, no-cache"
    return tag


@pytest.mark.django_db(transaction=True)  # computer turns run on commit
def test_a_finished_matchs_tag_changes_with_its_rematch_offer(player):
    """A rematch offer adds no event to the finished match: its view's tag must still
    change, or a page polling with If-None-Match never sees the offer (the Chromium
    rematch test found it when the ETags met the rematches)."""
    _user, client = player
    match_id = create_match(client, COMPUTERS, options={"target_score": 1})["id"]
    play_to_the_end(client, match_id)
    url = f"/api/v1/matches/{match_id}"
    tag = _conditional(client, url)
    assert client.post(f"{url}/rematch").status_code == 200
    changed = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200 and changed["ETag"] != tag
    assert changed.json()["rematch"] is not None


@pytest.mark.django_db(transaction=True)
def test_the_match_view_is_not_sent_again_until_an_event_changes_its_tag(player):
    _user, client = player
    match_id = create_match(client)["id"]
    url = f"/api/v1/matches/{match_id}"
    tag = _conditional(client, url)
    assert client.get(url, HTTP_IF_NONE_MATCH=f'"other", {tag}').status_code == 304
    assert client.get(url, HTTP_IF_NONE_MATCH="*").status_code == 304
    legal = view(client, match_id)["view"]["legal_actions"]
    assert act(client, match_id, legal[0]).status_code == 200
    changed = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200 and changed["ETag"] != tag
    assert changed.json()["seq"] > 0


@pytest.mark.django_db(transaction=True)
def test_another_seat_gets_another_tag_for_the_same_match(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice, OPEN)["id"]
    assert bob.post(f"/api/v1/matches/{match_id}/join", format="json").status_code == 200
    url = f"/api/v1/matches/{match_id}"
    alices, bobs = alice.get(url), bob.get(url)
    assert alices.json()["seq"] == bobs.json()["seq"]
    assert alices["ETag"] != bobs["ETag"]
    assert bob.get(url, HTTP_IF_NONE_MATCH=alices["ETag"]).status_code == 200  # not his cards


@pytest.mark.django_db(transaction=True)
def test_the_events_list_and_the_replay_answer_304(player):
    from tests.games.helpers import play_to_the_end

    _user, client = player
    match_id = create_match(client, options={"target_score": 1})["id"]
    events = f"/api/v1/matches/{match_id}/events"
    tag = _conditional(client, events)
    assert client.get(events + "?after=1")["ETag"] != tag  # the query is in the tag
    play_to_the_end(client, match_id)
    assert client.get(events, HTTP_IF_NONE_MATCH=tag).status_code == 200
    _conditional(client, events)
    _conditional(client, f"/api/v1/matches/{match_id}/replay")


# ---------------------------------------------------------------- rate limits


@pytest.fixture
def three_guests_an_hour(settings):
    rest = copy.deepcopy(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"]["guests"] = "3/hour"
    settings.REST_FRAMEWORK = rest


@pytest.mark.django_db
def test_every_throttled_answer_says_the_limit_what_is_left_and_when_it_resets(
    three_guests_an_hour,
):
    answers = [APIClient().post("/api/v1/auth/guest") for _ in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert [a["RateLimit-Limit"] for a in answers] == ["3"] * 4
    assert [a["RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    for answer in answers:
        assert 0 < int(answer["RateLimit-Reset"]) <= 3600
    refused = answers[-1]
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert refused.json()["code"] == "throttled"


@pytest.mark.django_db
def test_an_answer_no_throttle_counted_has_no_rate_limit_headers(player):
    _user, client = player
    response = client.get("/api/v1/matches")  # creating is throttled, listing is not
    assert response.status_code == 200 and "RateLimit-Limit" not in response


@pytest.mark.django_db(transaction=True)
def test_an_action_answer_carries_its_rate_limit(player):
    _user, client = player
    match_id = create_match(client)["id"]
    legal = view(client, match_id)["view"]["legal_actions"]
    response = act(client, match_id, legal[0])
    assert response.status_code == 200
    assert int(response["RateLimit-Limit"]) >= int(response["RateLimit-Remaining"]) >= 0


# ---------------------------------------------------------------- idempotency and Location


@pytest.mark.django_db(transaction=True)
def test_a_replayed_action_says_so_and_the_first_answer_does_not(player):
    _user, client = player
    match_id = create_match(client)["id"]
    legal = view(client, match_id)["view"]["legal_actions"]
    key = str(uuid.uuid4())
    first = act(client, match_id, legal[0], HTTP_IDEMPOTENCY_KEY=key)
    again = act(client, match_id, legal[0], HTTP_IDEMPOTENCY_KEY=key)
    assert first.status_code == again.status_code == 200
    assert "Idempotent-Replayed" not in first
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()


@pytest.mark.django_db(transaction=True)
def test_every_201_says_where_the_new_thing_is(player):
    _user, client = player
    made = client.post("/api/v1/matches", {"seats": COMPUTERS}, format="json")
    assert made.status_code == 201
    assert made["Location"] == f"/api/v1/matches/{made.json()['id']}"
    assert client.get(made["Location"]).json()["id"] == made.json()["id"]

    guest = APIClient().post("/api/v1/auth/guest")
    assert guest.status_code == 201 and guest["Location"] == "/api/v1/me"
    as_guest = APIClient()
    as_guest.credentials(HTTP_AUTHORIZATION=f"Token {guest.json()['token']}")
    me = as_guest.get(guest["Location"]).json()
    assert me["username"] == guest.json()["username"] and me["is_guest"] is True

    registered = APIClient().post(
        "/api/v1/auth/register",
        {"username": "carol", "password": "correct horse battery"},
        format="json",
    )
    assert registered.status_code == 201 and registered["Location"] == "/api/v1/me"

    hint = client.post(f"/api/v1/matches/{made.json()['id']}/hints")
    assert hint.status_code == 202
    assert hint["Location"] == f"/api/v1/hints/{hint.json()['id']}"
