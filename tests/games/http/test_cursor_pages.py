"""The cursor lists (games.http.apis.CursorPages: GET /me/matches, GET /users/{username}/matches):
a cursor the list did not give is 400 invalid_cursor, never a 500 or a silent first page
(issue 33), and the cursors it gives page through it, forward and back."""

from base64 import b64encode

import pytest
from django.urls import get_resolver

from games.http.apis import CursorPages
from tests.games.helpers import COMPUTERS, OPEN, assert_error, create_match, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)  # computer turns run on commit


def cursor_lists() -> list[str]:
    """The path of every list paged by cursor, read from the URLs (alice's history)."""
    paths = []
    for pattern in get_resolver().url_patterns:
        pages = getattr(getattr(pattern.callback, "view_class", None), "pages", None)
        if isinstance(pages, type) and issubclass(pages, CursorPages):
            paths.append("/" + str(pattern.pattern).replace("<str:username>", "alice"))
    return sorted(paths)


def b64(text: str | bytes) -> str:
    return b64encode(text.encode() if isinstance(text, str) else text).decode("ascii")


HOSTILE = {
    "not base64": "!!!",
    "base64 without its padding": "0",
    "base64 with a space": "cD0x IDIw",
    "not ASCII": "é",
    "empty": "",
    "base64 of nothing": b64(""),
    "base64 of garbage": b64("garbage"),
    "base64 of random bytes": b64(bytes(range(0, 256, 7))),
    "not UTF-8": b64(b"\xff\xfe\xfd"),
    "a position not UTF-8": b64("p=%FF%FE"),
    "an unknown token": b64("o=1&x=2"),
    "a token twice": b64("o=1&o=2"),
    "a trailing separator": b64("o=1&"),
    "a bad date-time": b64("p=notadate"),
    "a position of one letter": b64("p=x"),
    "an empty position": b64("p="),
    "a UTC offset out of range": b64("p=2020-01-01T00:00:00+99:00"),
    "a date-time without its offset": b64("p=2020-01-01T00:00:00"),
    "a date-time out of range in UTC": b64("p=0001-01-01T00:00:00+14:00"),
    "a negative offset": b64("o=-1"),
    "an offset past the cutoff": b64(f"o={CursorPages.offset_cutoff + 1}"),
    "a signed offset": b64("o=+1"),
    "an offset of other digits": b64("o=١"),
    "a huge offset": b64("o=" + "9" * 300),
    "a huge position": b64("p=" + "2" * 1000),
    "huge": "A" * 100_000,
    "a direction other than 0 or 1": b64("r=2&p=2020-01-01T00:00:00+00:00"),
}


def test_the_cursor_lists_are_the_two_lists_of_matches():
    assert cursor_lists() == ["/api/v1/me/matches", "/api/v1/users/alice/matches"]


@pytest.mark.django_db  # no match is made: a plain transaction is enough
@pytest.mark.parametrize("path", cursor_lists())
@pytest.mark.parametrize("cursor", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_crafted_cursor_is_a_400_invalid_cursor(player, path, cursor):
    _alice, alice = player
    assert_error(alice.get(path, {"cursor": cursor}), 400, "invalid_cursor")
    assert_error(alice.get(path, {"cursor": cursor, "page_size": 1}), 400, "invalid_cursor")


def _follow(client, url: str, link: str) -> tuple[list[str], str | None]:
    """The ids on the page at `url`, and its `link` (next or previous)."""
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    page = response.json()
    return [item.get("match", item.get("id")) for item in page["results"]], page[link]


def _listed(client, path: str) -> str:
    """A new match the list shows (a history shows finished matches only)."""
    if path.startswith("/api/v1/users/"):
        match_id = create_match(client, COMPUTERS, options={"target_score": 1})["id"]
        return play_to_the_end(client, match_id)["id"]
    return create_match(client, OPEN)["id"]


@pytest.mark.parametrize("path", cursor_lists())
def test_the_cursors_a_list_gives_page_forward_and_back(player, path):
    _alice, alice = player
    made = [_listed(alice, path) for _ in range(3)]
    newest_first = made[::-1]
    pages, url = [], f"{path}?page_size=1"
    while url:
        ids, url = _follow(alice, url, "next")
        pages.append(ids)
    assert pages == [[m] for m in newest_first]
    ids, url = _follow(alice, f"{path}?page_size=2", "next")
    assert ids == newest_first[:2]
    ids, back = _follow(alice, url, "previous")
    assert ids == newest_first[2:]
    assert _follow(alice, back, "previous")[0] == newest_first[:2]
