"""Hostile headers and query strings, signed in or not, get a 4xx with a code: token
bytes that are not ASCII text, Unicode digits where a seq belongs, a Content-Length
that is not a number. Checked with Django's test client and through a real uvicorn."""

import pytest
import requests
from django.test import Client

from tests.games.helpers import OPEN, assert_error, create_match
from tests.games.server_support import Player

NO_MATCH = "00000000-0000-0000-0000-000000000000"
BAD_TOKENS = [
    "Token \xff\xfe",  # Latin-1 bytes that are not UTF-8
    "Token \xc3\xa9" + "a" * 62,  # UTF-8 for "é": text, but not a token's
    "Token \xb2\xb3",
    "Token abc\x00def",
    "Token \x7f",
    "Token " + "z" * 64,  # ASCII, but not hex
]


@pytest.mark.django_db
@pytest.mark.parametrize("authorization", BAD_TOKENS)
@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/api/v1/matches"),
        ("POST", "/api/v1/matches"),
        ("GET", f"/api/v1/matches/{NO_MATCH}"),
        ("POST", "/api/v1/auth/logout"),
        ("POST", "/api/v1/auth/logout-all"),
        ("GET", f"/api/v1/hints/{NO_MATCH}"),
        ("GET", f"/api/v1/matches/{NO_MATCH}/stream"),
    ],
)
def test_a_token_that_is_not_ascii_text_is_a_401_not_a_crash(method, path, authorization):
    client = Client(raise_request_exception=False)
    response = client.generic(method, path, HTTP_AUTHORIZATION=authorization)
    assert_error(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == "Token"


SEQS = ["\u00b2", "\u0663", "\uff11", "1\u00b2", "-1", "+1", " 1", "1 ", "1.0", "0x1", "1e3",
        "1" * 13, "１２"]  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("value", SEQS)
def test_the_stream_takes_only_ascii_digits_for_after_and_last_event_id(player, value):
    _user, client = player
    match_id = create_match(client, OPEN)["id"]
    stream = f"/api/v1/matches/{match_id}/stream"
    client.raise_request_exception = False
    for response in (
        client.get(stream, {"after": value}),
        client.get(stream, HTTP_LAST_EVENT_ID=value),
        Client(raise_request_exception=False).get(stream, {"after": value}),  # no sign-in
    ):
        body = assert_error(response, 400, "invalid_input")
        assert "whole number" in body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["\u00b2", "-1", "9" * 30, str(2**63), "1.5"])
def test_the_events_list_takes_only_whole_numbers_for_after(player, value):
    _user, client = player
    match_id = create_match(client, OPEN)["id"]
    response = client.get(f"/api/v1/matches/{match_id}/events", {"after": value})
    assert_error(response, 400, "invalid_input")


@pytest.mark.django_db
@pytest.mark.parametrize("length", ["\u00b2", "\u0663", "-1", "abc", "1e9", ""])
def test_a_content_length_that_is_not_ascii_digits_is_not_a_crash(player, length):
    _user, client = player
    client.raise_request_exception = False
    response = client.generic(
        "POST", "/api/v1/matches", b'{"seats": []}', content_type="application/json",
        CONTENT_LENGTH=length,
    )  # fmt: skip
    assert 400 <= response.status_code < 500, response.content
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "page=0", "page=-1", "page=\u00b2", "page=99999999999999999999999", "page=1e400",
        "page_size=0", "page_size=\u00b2", "page_size=101", "page_size=" + "9" * 50,
        "status=\x00", "status=\u00e9", "status=active&status=x", "page=1&page=x",
        "format=xml", "format=\u00b2",
    ],
)  # fmt: skip
def test_malformed_repeated_and_huge_list_filters_are_4xx_with_a_code(player, query):
    _user, client = player
    for caller in (client, Client(raise_request_exception=False)):  # signed in, and not
        response = caller.get(f"/api/v1/matches?{query}")
        assert 400 <= response.status_code < 500, response.content
        codes = {"invalid_input", "not_found", "not_authenticated", "bad_request"}
        assert response.json()["code"] in codes


@pytest.mark.django_db(transaction=True)  # the stream reads in threads of its own
@pytest.mark.parametrize(
    "match_id",
    ["x", "1" * 2000, "%00", "%ff", "..%2f..", f"{NO_MATCH}%00", "urn:uuid:" + NO_MATCH],
)
@pytest.mark.parametrize("suffix", ["", "/events", "/actions", "/join", "/stream", "/replay"])
def test_a_malformed_match_id_in_the_path_is_a_404(player, match_id, suffix):
    _user, client = player
    method = "post" if suffix in ("/actions", "/join") else "get"
    response = getattr(client, method)(f"/api/v1/matches/{match_id}{suffix}", format="json")
    assert_error(response, 404, "not_found")


@pytest.mark.django_db(transaction=True)
def test_through_a_real_uvicorn_hostile_headers_get_json_4xx(servers):
    server = servers()
    alice = Player(server)
    match_id = alice.call("POST", "matches", {"seats": OPEN}, status=201)["id"]
    stream = f"{server.url}/api/v1/matches/{match_id}/stream"
    token = alice.headers["Authorization"].encode()
    cases = [
        ("GET", f"{server.url}/api/v1/matches", {"Authorization": b"Token \xff\xfe"}, 401),
        ("GET", stream, {"Authorization": b"Token \xff\xfe"}, 401),
        ("GET", stream + "?after=%C2%B2", {"Authorization": token}, 400),
        ("GET", stream, {"Authorization": token, "Last-Event-ID": b"\xb2"}, 400),
        ("POST", stream, {"Authorization": token}, 405),
        ("TRACE", stream, {}, 405),
        ("GET", f"{server.url}/api/v1/matches", {"Host": b"evil.example"}, 400),
        ("GET", f"{server.url}/api/v1/matches/", {"Authorization": token}, 404),
    ]
    for method, url, headers, status in cases:
        response = requests.request(method, url, headers=headers, timeout=10)
        assert response.status_code == status, (method, url, headers, response.text[:300])
        assert response.headers["Content-Type"] == "application/json", (method, url, headers)
        assert set(response.json()) == {"code", "detail"}
        if status == 405:
            assert response.headers["Allow"] == "GET"
    # (Django logs the refused Host with its traceback, as a security event: no 500.)
    assert "Internal Server Error" not in server.log(), server.log()[-3000:]


HEADERS = ["Authorization", "Idempotency-Key", "Last-Event-ID", "X-Forwarded-For", "Host",
           "Content-Type", "Accept", "Cookie", "User-Agent", "Accept-Language", "Origin",
           "Referer", "X-CSRFToken", "X-HTTP-Method-Override"]  # fmt: skip
VALUES = [b"\xff\xfe", b"Token \xc3\xa9\xb2", b"%00'\"<>;", b"a" * 4000]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_through_a_real_uvicorn_no_header_value_makes_a_5xx_or_a_non_json_error(servers):
    """Every listed header, with bytes that are not UTF-8 or ASCII text, quoting, a long
    value, sent alone (so the token still signs the request in when it is not the header
    under attack) to a signed-in read, an action and the stream."""
    server = servers()
    alice = Player(server)
    match_id = alice.call("POST", "matches", {"seats": OPEN}, status=201)["id"]
    requests_ = [
        ("GET", f"/api/v1/matches/{match_id}", None),
        ("POST", f"/api/v1/matches/{match_id}/actions", b'{"type": "pass"}'),
        ("GET", f"/api/v1/matches/{match_id}/stream", None),
        ("POST", "/api/v1/auth/token", b'{"username": "x", "password": "y"}'),
    ]
    for header in HEADERS:
        for value in VALUES:
            for method, path, body in requests_:
                headers = {**alice.headers, "Content-Type": "application/json", header: value}
                response = requests.request(method, server.url + path, data=body,
                                            headers=headers, timeout=10, stream=True)  # fmt: skip
                what = (header, value, method, path, response.status_code)
                assert response.status_code < 500, what
                if response.status_code >= 400:
                    assert response.headers["Content-Type"] == "application/json", what
                    assert {"code", "detail"} <= set(response.json()), what
                response.close()
    assert "Internal Server Error" not in server.log(), server.log()[-3000:]
