"""The requests /play/ makes per move of a whole match against three computer players.

The page follows the match's stream; each request it makes is counted by kind. The view
(GET matches/{id}) is read when the page needs it, not on every event of the stream, and
the cards shown are the stream's own events (GET matches/{id}/events only to fill a gap).
"""

import re
from collections import Counter

import pytest

from tests.web.support import guest_page, table_snapshot, wait_for_my_move, wait_for_seq_change
from tests.web.test_table_e2e import click_move, create_match, open_match

pytestmark = pytest.mark.slow

TARGET = 5  # points: a few hands, every kind of move
MAX_MOVES = 400
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f-]{27}")

# Per move of ours (one action POST each). The client before issue 15 read the view 2.7
# times and the events 2.2 times a move here (it read both on every event); now about 1
# view read (the computer players' moves that follow ours) and no events read.
CEILINGS = {"GET view": 1.25, "GET events": 0.2, "POST action": 1.0}


def kind_of(method: str, url: str) -> str | None:
    """A request of the page's to the match, by kind (None: not the match's)."""
    path = _ID.sub("{id}", url.split("/api/v1/", 1)[-1].split("?", 1)[0])
    kinds = {
        ("GET", "matches/{id}"): "GET view",
        ("GET", "matches/{id}/events"): "GET events",
        ("POST", "matches/{id}/actions"): "POST action",
        ("GET", "matches/{id}/stream"): "GET stream",
    }
    if "/api/v1/" not in url:
        return None
    return kinds.get((method, path), f"{method} {path}")


def test_a_whole_match_reads_the_view_only_when_it_needs_to(server, browser):
    context, page, errors = guest_page(browser, f"{server}/play/")
    counts: Counter = Counter()
    counting = {"on": False}

    def seen(request) -> None:
        kind = kind_of(request.method, request.url)
        if counting["on"] and kind:
            counts[kind] += 1

    page.on("request", seen)
    try:
        match_id = create_match(page, TARGET, levels=("easy", "easy", "easy"))
        counting["on"] = True
        open_match(page, match_id)
        moves = 0
        for _ in range(MAX_MOVES):
            wait_for_my_move(page)
            snap = table_snapshot(page)
            if snap["status"] == "finished":
                break
            click_move(page, snap)
            moves += 1
            wait_for_seq_change(page, snap["seq"])
        else:
            raise AssertionError(f"the match did not end in {MAX_MOVES} moves")
        page.get_by_test_id("match-over").wait_for()
        counting["on"] = False
        errors.check()
    finally:
        context.close()

    per_move = {kind: n / moves for kind, n in sorted(counts.items())}
    print(
        f"\n{moves} moves of ours; requests per move: "
        + ", ".join(f"{kind} {v:.2f} ({counts[kind]})" for kind, v in per_move.items())
    )
    assert counts["POST action"] == moves
    for kind, ceiling in CEILINGS.items():
        assert per_move.get(kind, 0) <= ceiling, f"{kind}: {per_move.get(kind, 0):.2f} a move"
