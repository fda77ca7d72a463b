"""Schemathesis against the OpenAPI schema: no server errors, no response that breaks it.

Runs in-process against the WSGI app, authenticated, with a real running match as
the {match_id} of every generated request.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import checks

from euchre_service.wsgi import application
from tests.conftest import make_player
from tests.games.helpers import create_match


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
# The live stream needs an ASGI server (a WSGI process answers 503): tests/games/test_streams.py
# runs it under uvicorn.
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
    case.call_and_validate(
        headers={"Authorization": f"Token {token}"},
        checks=[
            checks.not_a_server_error,
            checks.status_code_conformance,
            checks.content_type_conformance,
            checks.response_schema_conformance,
        ],
        excluded_checks=[
            checks.negative_data_rejection,
            checks.positive_data_acceptance,
            checks.missing_required_header,
            checks.unsupported_method,
            checks.ignored_auth,
        ],
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
