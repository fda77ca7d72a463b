"""The Idempotency-Key answers are the ones docs/errors.md documents (issue 33): a key used
before with another request, another body or another match, is 422
idempotency_key_mismatch (the IETF httpapi draft's status for it), and it is the one code
documented for that; 409 idempotency_key_reused is a key in use right now by another
request. docs/errors.md listed the 409 for "a key used for another match"."""

import re
from pathlib import Path

import pytest

from games.http.error_codes import CATALOGUE
from tests.games.helpers import act, assert_error, create_match

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


def documented() -> dict[str, tuple[tuple[int, ...], str]]:
    """docs/errors.md's table: code -> (statuses, meaning), as a client developer reads it."""
    page = (ROOT / "docs" / "errors.md").read_text()
    rows = re.findall(r"^\| `([a-z0-9_]+)` \| ([0-9, ]+) \| (.+) \|$", page, re.MULTILINE)
    return {
        code: (tuple(int(s) for s in statuses.split(", ")), meaning)
        for code, statuses, meaning in rows
    }


def test_the_page_lists_every_code_of_the_catalogue_with_its_statuses():
    docs = documented()
    assert {code: statuses for code, (statuses, _) in docs.items()} == {
        code: entry.statuses for code, entry in CATALOGUE.items()
    }


def test_a_key_used_before_with_another_request_is_answered_as_documented(player):
    _user, client = player
    match_id, other_match = create_match(client)["id"], create_match(client)["id"]
    key = {"HTTP_IDEMPOTENCY_KEY": "issue-33-key"}
    assert act(client, match_id, {"type": "pass"}, **key).status_code == 200
    docs = documented()
    for where, body in ((match_id, {"type": "order_up"}), (other_match, {"type": "pass"})):
        answer = act(client, where, body, **key)
        code = answer.json()["code"]
        statuses, meaning = docs[code]
        assert_error(answer, statuses[0], code)
        assert answer.status_code == 422  # a key reused with another request (IETF draft)
        assert "another request" in meaning and "another match" in meaning
    # ... and that is the one code documented for a key used before: the 409 is a key in
    # use at that moment (before, the page listed it for "used for another match").
    used_before = {c for c, (_, meaning) in docs.items() if "Idempotency-Key was used" in meaning}
    assert used_before == {"idempotency_key_mismatch"}
    assert "in use right now" in docs["idempotency_key_reused"][1]
