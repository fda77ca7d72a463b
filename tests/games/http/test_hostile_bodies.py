"""Hostile JSON bodies, signed in or not, get a 4xx with a code and change nothing:
nesting deep enough to exhaust Python's recursion, strings that are not Unicode text,
other encodings and charsets, NaN and Infinity, numbers too big for any column."""

import json

import pytest
from rest_framework.test import APIClient

from games.models import Match
from tests.games.helpers import COMPUTERS, OPEN, assert_error, create_match

DEEP = {
    "arrays": "[" * 2000,
    "objects": '{"a":' * 2000,
    "arrays, closed": "[" * 900 + "]" * 900,  # parses, but deeper than any request needs
    "in a field": json.dumps({"seats": COMPUTERS}).replace('"me"', "[" * 100 + "]" * 100),
}


def post(client, path: str, body, content_type: str = "application/json"):
    client.raise_request_exception = False
    return client.generic("POST", path, body, content_type=content_type)


@pytest.fixture
def match_id(player):
    _user, client = player
    return create_match(client, OPEN)["id"]


def endpoints(match_id: str) -> list[tuple[str, bool]]:
    """(path, needs a token)"""
    return [
        ("/api/v1/auth/register", False),
        ("/api/v1/auth/token", False),
        ("/api/v1/matches", True),
        (f"/api/v1/matches/{match_id}/actions", True),
        (f"/api/v1/matches/{match_id}/join", True),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("shape", list(DEEP))
def test_deeply_nested_json_is_a_400_malformed_json_not_a_recursion_error(player, match_id, shape):
    _user, client = player
    for path, signed_in in endpoints(match_id):
        response = post(client if signed_in else APIClient(), path, DEEP[shape])
        body = assert_error(response, 400, "malformed_json")
        assert "levels deep" in body["detail"], (path, body)
    assert Match.objects.count() == 1


@pytest.mark.django_db
def test_a_guest_sign_up_ignores_a_deeply_nested_body(db):
    assert post(APIClient(), "/api/v1/auth/guest", DEEP["arrays"]).status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        '{"\\ud800": 1}',
        '{"seats": [{"kind": "\\ud800"}]}',
        '{"seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"\\udfff": 1}]}',
        '{"type": "\\udc80"}',
        '{"username": "\\ud83d", "password": "a-long-passphrase"}',
    ],
)
def test_an_unpaired_surrogate_in_a_string_or_a_name_is_a_400_malformed_json(
    player, match_id, body
):
    _user, client = player
    for path, signed_in in endpoints(match_id):
        response = post(client if signed_in else APIClient(), path, body)
        assert_error(response, 400, "malformed_json")


@pytest.mark.django_db
def test_a_paired_surrogate_escape_is_an_ordinary_character():
    response = post(APIClient(), "/api/v1/auth/register",
                    '{"username": "\\ud83c\\udccf", "password": "a-long-passphrase"}')  # fmt: skip
    assert_error(response, 400, "invalid_input")  # 🃏 is not a letter: refused by the rules


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body, content_type, status, code",
    [
        (b'{"seats": "\xe9"}', "application/json", 400, "malformed_json"),  # Latin-1 bytes
        (b"\xff\xfe{\x00}\x00", "application/json", 400, "malformed_json"),  # UTF-16 BOM
        (b'\xef\xbb\xbf{"seats": []}', "application/json", 400, "malformed_json"),  # UTF-8 BOM
        (b'{"seats": []}', "application/json; charset=bz2_codec", 400, "malformed_json"),
        (b'{"seats": []}', "application/json; charset=rot13", 400, "malformed_json"),
        (b'{"seats": []}', "application/json; charset=no-such", 400, "invalid_input"),
        (b'{"seats": "\xe9"}', "application/json; charset=latin-1", 400, "invalid_input"),
        (b'{"seats": []}', "application/json; charset=utf-8", 400, "invalid_input"),
        (b"seats=4", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
        (b"--x--", "multipart/form-data; boundary=x", 415, "unsupported_media_type"),
        (b"{}", "application/json-patch+json", 415, "unsupported_media_type"),
        (b"{}", "", 415, "unsupported_media_type"),
        (b'{"hints_allowed": NaN, "seats": []}', "application/json", 400, "malformed_json"),
        (b'{"seats": [], "x": Infinity}', "application/json", 400, "malformed_json"),
        (b'{"seats": [], "x": -Infinity}', "application/json", 400, "malformed_json"),
        (b'{"seats": [], "turn_seconds": 1e400}', "application/json", 400, "malformed_json"),
        (b'{"seats": [], "x": [-1e999]}', "application/json", 400, "malformed_json"),
        (b'{"seats": [], "turn_seconds": ' + b"9" * 5000 + b"}", "application/json",
         400, "malformed_json"),  # more digits than Python converts
        (b'{"seats": [], "turn_seconds": 1208925819614629174706176}', "application/json",
         400, "invalid_input"),
        (b'{"seats": [], "hints_allowed": "\\u0000"}', "application/json", 400, "invalid_input"),
        (b"", "application/json", 400, "invalid_input"),
        (b"null", "application/json", 400, "invalid_input"),
        (b"[]", "application/json", 400, "invalid_input"),
        (b'"seats"', "application/json", 400, "invalid_input"),
    ],
)  # fmt: skip
def test_bodies_in_other_encodings_types_and_numbers_are_refused_with_a_code(
    player, body, content_type, status, code
):
    _user, client = player
    assert_error(post(client, "/api/v1/matches", body, content_type), status, code)
    assert Match.objects.count() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "field, value",
    [
        ("expected_seq", "1e400"),
        ("expected_seq", str(2**80)),
        ("expected_seq", "-1"),
        ("expected_seq", "NaN"),
        ("card", '"A\\u0000"'),
        ("suit", '"\\u0000"'),
        ("type", '"pass\\u0000"'),
    ],
)
def test_huge_numbers_and_null_characters_in_an_action_are_refused(player, field, value):
    _user, client = player
    match_id = create_match(client, COMPUTERS)["id"]
    before = Match.objects.get(pk=match_id).seq
    body = f'{{"type": {value}}}' if field == "type" else f'{{"type": "pass", "{field}": {value}}}'
    response = post(client, f"/api/v1/matches/{match_id}/actions", body)
    assert 400 <= response.status_code < 500, response.content
    assert Match.objects.get(pk=match_id).seq == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "username",
    ["a\u0000b", "a" * 151, "", " ", "a b", "\u202e", "\u0000"],
)
def test_hostile_usernames_at_sign_up_and_sign_in_are_4xx(username):
    for path in ("/api/v1/auth/register", "/api/v1/auth/token"):
        response = post(
            APIClient(), path, json.dumps({"username": username, "password": "a-long-passphrase"})
        )
        assert response.status_code in (400, 401), (path, response.content)
