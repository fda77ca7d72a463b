"""Every error under /api/ is the {"code", "detail"} JSON body, whoever answers it: DRF,
Django's own handlers (unknown path, bad Host, uncaught exception), the CSRF check, or
the async stream. Outside /api/ (the admin, /play/) Django's pages stay."""

import json
import logging
import socket

import pytest
from django.db import close_old_connections
from django.test import Client

from tests.games.error_urls import Boom


def assert_json_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json", response.content[:200]
    body = response.json()
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"].endswith("."), body
    return body


def assert_html(response, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "delete"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v2/matches", "/api/", "/api"])
def test_an_unknown_path_under_the_api_is_a_json_404(method, path):
    assert_json_error(getattr(Client(), method)(path), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    "path", ["/api/v1/matches/", "/api/v1/auth/token/", "/api/v1/matches/x/actions/"]
)
def test_a_trailing_slash_under_the_api_is_a_json_404_that_says_so_not_a_redirect(method, path):
    body = assert_json_error(getattr(Client(), method)(path), 404, "not_found")
    assert "no trailing slash" in body["detail"]


@pytest.mark.django_db
def test_outside_the_api_django_pages_stay_html():
    client = Client()
    assert_html(client.get("/no-such-page"), 404)
    assert_html(client.get("/play/", HTTP_HOST="evil.example"), 400)
    assert client.get("/admin").status_code == 301  # APPEND_SLASH still works there


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "TRACE", "OPTIONS", "HEAD"])
def test_any_method_but_get_on_the_stream_is_a_405_with_allow_not_a_csrf_page(method):
    client = Client(enforce_csrf_checks=True)  # as a browser or curl: no CSRF token
    response = client.generic(method, "/api/v1/matches/00000000-0000-0000-0000-000000000000/stream")
    assert response.status_code == 405, response.content
    assert response["Allow"] == "GET"
    if method != "HEAD":
        assert_json_error(response, 405, "method_not_allowed")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_what_uvicorn_cannot_parse_on_the_streams_is_a_json_400_not_its_text_page(servers):
    """uvicorn serves the streams under /api/ and answers what its parser refuses itself,
    before the service's code runs: with euchre_service.uvicorn_errors, in JSON. Found by
    the hostile suite (BREW /api/v1/me/stream was a text/plain 400)."""
    server = servers()
    for request in (
        b"BREW /api/v1/me/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        b"GET /api/v1/me/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: 1\r\n\r\n",
        b"GET /api/v1/matches/x/stream HTTP/9\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn:
            conn.sendall(request)
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 "), answer
        assert b"content-type: application/json" in head.lower(), answer
        assert json.loads(body)["code"] == "malformed_request"
        assert json.loads(body)["detail"].endswith(".")


@pytest.mark.django_db
@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1:abc", "a b", "localhost\u00ff"])
@pytest.mark.parametrize("path", ["/api/v1/matches", "/api/v1/auth/guest", "/api/v1/nope"])
def test_a_bad_host_header_under_the_api_is_a_json_400_bad_host(host, path):
    assert_json_error(Client().post(path, HTTP_HOST=host), 400, "bad_host")


@pytest.mark.django_db
@pytest.mark.urls("tests.games.error_urls")
def test_a_csrf_failure_under_the_api_is_json_and_outside_it_the_admin_keeps_its_page():
    client = Client(enforce_csrf_checks=True)
    body = assert_json_error(client.post("/api/v1/test-cookie-form"), 403, "csrf_failed")
    assert "CSRF" in body["detail"]
    assert_html(client.post("/admin/login/", {"username": "a", "password": "b"}), 403)


@pytest.mark.django_db
@pytest.mark.urls("tests.games.error_urls")
@pytest.mark.parametrize("path", ["/api/v1/test-failing-drf", "/api/v1/test-failing-plain"])
def test_an_unexpected_exception_under_the_api_is_a_json_500_and_its_traceback_is_logged(
    path, caplog
):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        assert_json_error(client.get(path), 500, "server_error")
    logged = [r for r in caplog.records if r.name == "django.request" and r.exc_info]
    assert logged and isinstance(logged[0].exc_info[1], Boom), caplog.text


@pytest.mark.django_db
@pytest.mark.urls("tests.games.error_urls")
def test_an_unexpected_exception_outside_the_api_keeps_the_html_500_page():
    assert_html(Client(raise_request_exception=False).get("/test-failing-page"), 500)


@pytest.mark.django_db
def test_too_many_query_parameters_under_the_api_is_a_json_400():
    query = "&".join(f"a{i}=1" for i in range(1100))  # over DATA_UPLOAD_MAX_NUMBER_FIELDS
    body = assert_json_error(Client().get(f"/api/v1/matches?{query}"), 400, "bad_request")
    assert "parameters" in body["detail"]


@pytest.mark.django_db
def test_a_null_character_in_a_query_string_is_a_400_not_a_database_error(admin_client):
    """The admin's list filter passed "\\x00" to PostgreSQL, which refuses it in text."""
    admin_client.raise_request_exception = False
    assert_html(admin_client.get("/admin/games/match/?status=%00"), 400)
    assert_html(admin_client.get("/admin/games/event/?type=%00"), 400)
    assert_json_error(Client().get("/api/v1/matches?status=%00"), 400, "bad_request")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path, headers, status",
    [
        ("GET", "/api/v1/schema?format=xml", {}, 404),
        ("POST", "/api/v1/schema", {}, 405),
        ("GET", "/api/v1/schema", {"HTTP_ACCEPT": "application/xml"}, 406),
        ("GET", "/api/v1/schema", {"HTTP_AUTHORIZATION": "Token \xff"}, 401),
        ("GET", "/api/v1/docs?format=xml", {}, 404),
        ("DELETE", "/api/v1/docs", {}, 405),
        ("GET", "/api/v1/docs", {"HTTP_AUTHORIZATION": "Token nope"}, 401),
    ],
)
def test_the_openapi_document_and_its_docs_page_answer_errors_in_json(
    method, path, headers, status
):
    response = Client().generic(method, path, **headers)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == {"code", "detail"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.games.error_urls")
def test_a_connection_the_database_ends_is_a_503_and_a_cancelled_statement_a_logged_500(caplog):
    """Only an outage is a 503: a statement PostgreSQL cancels is an OperationalError
    too, but one to look into, so it is a 500 with its traceback logged."""
    client = Client(raise_request_exception=False)
    response = client.get("/api/v1/test-connection-killed")
    assert_json_error(response, 503, "service_unavailable")
    assert response["Retry-After"] == "5"
    # What Django does after each request (the test client leaves it out): the broken
    # connection is closed, and the next request opens a new one.
    close_old_connections()
    with caplog.at_level(logging.ERROR, logger="django.request"):
        assert_json_error(client.get("/api/v1/test-slow-query"), 500, "server_error")
    assert any(r.exc_info for r in caplog.records if r.name == "django.request")
