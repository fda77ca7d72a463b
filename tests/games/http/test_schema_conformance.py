"""Schemathesis against the OpenAPI schema: no server errors, no response that breaks it.

Runs in-process against the WSGI app, authenticated, with a real running match as
the {match_id} of every generated request.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import checks

from tests.conftest import make_player
from tests.games.helpers import create_match

# Django's WSGI application, not euchre_service.wsgi's module: that one also freezes what
# the process holds out of the garbage collector (euchre_service/heap.py), which is for a
# server's process, not this test run's.
application = get_wsgi_application()


def keep_the_test_connection_open():
    """Django's test client keeps the test's connection open across requests (and puts
    the closing handlers back after each); the WSGI client schemathesis uses does not."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)


@pytest.fixture
def signed_in_with_a_match(db):
    from knox.models import AuthToken

    user, client = make_player("schema-tester")
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    _instance, token = AuthToken.objects.create(user=user)
    keep_the_test_connection_open()  # after the last test-client request
    yield token, match_id
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


# The schema page needs no database, so it can be loaded when the module is collected.
# The live stream needs an ASGI server (a WSGI process answers 503):
# tests/games/http/test_streams.py runs it under uvicorn.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema?format=json", application).exclude(
    operation_id="matches_stream"
)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.django_db
def test_the_api_keeps_to_its_schema(case, signed_in_with_a_match):
    token, match_id = signed_in_with_a_match
    if "match_id" in (case.path_parameters or {}):
        case.path_parameters["match_id"] = match_id
    # Changed on the case itself, not passed to the call: schemathesis then checks again
    # whether a case made to break the schema still does (a missing Authorization header
    # given back here, or a query parameter the transport drops: requests sends nothing
    # for a None or an empty list, so a case whose only fault was that parameter is valid).
    case.headers["Authorization"] = f"Token {token}"
    for name in [k for k, v in (case.query or {}).items() if v is None or v == []]:
        del case.query[name]
    case.call_and_validate(
        checks=[
            checks.not_a_server_error,
            checks.status_code_conformance,
            checks.content_type_conformance,
            checks.response_schema_conformance,
            checks.negative_data_rejection,
            checks.missing_required_header,
            checks.unsupported_method,
        ],
        # Schema-valid data can break rules the schema cannot state (a password's strength,
        # one seat of kind 'me'): the live suite (tests/hostile) runs this check with the
        # statuses those operations answer; ignored_auth needs a server of its own.
        excluded_checks=[checks.positive_data_acceptance, checks.ignored_auth],
    )


@pytest.mark.django_db
def test_the_schema_and_docs_pages_are_served(client):
    schema_response = client.get("/api/v1/schema?format=json")
    assert schema_response.status_code == 200
    paths = schema_response.json()["paths"]
    for path in [
        "/api/v1/auth/register",
        "/api/v1/auth/token",
        "/api/v1/matches",
        "/api/v1/matches/{match_id}",
        "/api/v1/matches/{match_id}/join",
        "/api/v1/matches/{match_id}/actions",
        "/api/v1/matches/{match_id}/events",
        "/api/v1/matches/{match_id}/replay",
    ]:
        assert path in paths
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


# ------------------------------------------------ issue 9, item 9: the mismatches schemathesis
# found, each checked on both sides: what the schema says, and that the server does it.


@pytest.fixture
def the_schema(client):
    return client.get("/api/v1/schema?format=json").json()


def request_body_schema(schema: dict, path: str, method: str = "post") -> dict:
    ref = schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    return component(schema, ref)


def component(schema: dict, ref: dict) -> dict:
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[-1]]


@pytest.mark.django_db
def test_the_schema_says_a_match_has_exactly_four_seats(the_schema, player):
    seats = request_body_schema(the_schema, "/api/v1/matches")["properties"]["seats"]
    assert (seats["minItems"], seats["maxItems"]) == (4, 4)
    _user, client = player
    for count in (3, 5):
        body = {"seats": [{"kind": "me"}] + [{"kind": "open"}] * (count - 1)}
        response = client.post("/api/v1/matches", body, format="json")
        assert response.status_code == 400 and "seats" in response.json()["errors"]


STRICT_BODIES = [
    ("/api/v1/auth/register", {"username": "zed", "password": "a-long-passphrase"}),
    ("/api/v1/auth/token", {"username": "alice", "password": "a-long-passphrase"}),
    ("/api/v1/matches", {"seats": [{"kind": "me"}] + [{"kind": "open"}] * 3}),
    ("/api/v1/matches/{match_id}/join", {}),
    ("/api/v1/matches/{match_id}/actions", {"type": "pass"}),
]


@pytest.mark.django_db
@pytest.mark.parametrize("path, body", STRICT_BODIES, ids=[p for p, _ in STRICT_BODIES])
def test_every_strict_request_body_says_it_refuses_other_fields(the_schema, player, path, body):
    schema = request_body_schema(the_schema, path)
    for variant in (
        [component(the_schema, v) for v in schema["oneOf"]] if "oneOf" in schema else [schema]
    ):
        assert variant["additionalProperties"] is False
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    response = client.post(path.format(match_id=match_id), {**body, "surprise": 1}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"]["surprise"] == ["This field is not allowed."]


def test_nested_strict_bodies_say_it_too(the_schema):
    match = request_body_schema(the_schema, "/api/v1/matches")["properties"]
    assert component(the_schema, match["seats"]["items"])["additionalProperties"] is False
    assert component(the_schema, match["options"])["additionalProperties"] is False


@pytest.mark.django_db
def test_an_empty_status_filter_is_refused_as_the_schema_says(player):
    _user, client = player
    response = client.get("/api/v1/matches?status=")
    assert response.status_code == 400
    assert response.json()["errors"]["status"] == ["This parameter may not be empty."]


@pytest.mark.django_db
def test_a_repeated_after_is_refused_as_the_schema_says(player):
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    response = client.get(f"/api/v1/matches/{match_id}/events?after=0&after=1")
    assert response.status_code == 400
    assert response.json()["errors"]["after"] == ["Give this parameter once."]
    stream = client.get(f"/api/v1/matches/{match_id}/stream?after=0&after=1")
    assert stream.status_code == 400 and stream.json()["code"] == "invalid_input"


@pytest.mark.django_db
def test_json_numbers_are_not_taken_for_strings_nor_strings_for_integers(player):
    """The schema says string or integer; DRF alone takes 5.9e-302 as the username
    "5.9e-302" and "2" as the seat 2."""
    _user, client = player
    response = client.post(
        "/api/v1/auth/register",
        {"username": 5.9e-302, "password": "a-long-passphrase"},
        format="json",
    )
    assert response.status_code == 400 and "username" in response.json()["errors"]
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    for seat in ("2", 2.0):
        joined = client.post(f"/api/v1/matches/{match_id}/join", {"seat": seat}, format="json")
        assert joined.status_code == 400 and "seat" in joined.json()["errors"]


@pytest.mark.django_db
def test_strings_are_taken_as_sent_not_trimmed(player):
    """A password of spaces is a password (the schema's minLength is 1), and a username
    with a space around it breaks the schema's pattern rather than being trimmed to fit."""
    _user, client = player
    spaces = client.post(
        "/api/v1/auth/token", {"username": "alice", "password": "   "}, format="json"
    )
    assert spaces.status_code == 401  # a wrong password, not a "blank" 400
    padded = client.post(
        "/api/v1/auth/register",
        {"username": "zed ", "password": "a-long-passphrase"},
        format="json",
    )
    assert padded.status_code == 400 and "username" in padded.json()["errors"]


@pytest.mark.django_db(transaction=True)  # the stream reads the database in another thread
def test_last_event_id_is_typed_as_the_server_parses_it(the_schema, player):
    stream = the_schema["paths"]["/api/v1/matches/{match_id}/stream"]["get"]
    header = next(p for p in stream["parameters"] if p["name"] == "Last-Event-ID")
    assert header["schema"] == {"type": "string", "pattern": "^[0-9]{0,12}$"}
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    url = f"/api/v1/matches/{match_id}/stream"
    # Digits that are not ASCII: str.isdigit() says yes to both, the pattern says no.
    for bad in ("\u0663", "\u00b2", "1" * 13):
        response = client.get(url, HTTP_LAST_EVENT_ID=bad)
        assert response.status_code == 400, bad
        assert response.json()["code"] == "invalid_input"
    # Empty is allowed by the pattern: the same as no header (a WSGI process then says
    # where streams are served).
    assert client.get(url, HTTP_LAST_EVENT_ID="").json()["code"] == "stream_needs_asgi"
    assert client.get(url + "?after=").status_code == 400  # an integer is not empty


@pytest.mark.django_db
def test_trace_on_the_stream_answers_405_with_allow(player):
    _user, client = player
    match_id = create_match(client, [{"kind": "me"}] + [{"kind": "open"}] * 3)["id"]
    for method in ("TRACE", "POST", "PUT", "DELETE", "HEAD"):
        response = client.generic(method, f"/api/v1/matches/{match_id}/stream")
        assert response.status_code == 405, method
        assert response["Allow"] == "GET"


def test_each_documented_error_status_lists_its_codes_with_that_status(the_schema):
    from games.http.error_codes import CATALOGUE

    for path, operations in the_schema["paths"].items():
        for method, operation in operations.items():
            if path.endswith(("/schema", "/docs")):
                continue
            assert operation.get("summary") and operation.get("description"), (method, path)
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                codes = response["x-error-codes"]
                assert codes, (method, path, status)
                for code in codes:
                    assert int(status) in CATALOGUE[code].statuses, (path, status, code)
                    assert f"`{code}`" in response["description"]
