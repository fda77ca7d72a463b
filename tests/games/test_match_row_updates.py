"""A move's UPDATE of its match's row is written in place (issue 15): PostgreSQL makes it
a HOT update, with no new index entry and no dead one left behind, only when no indexed
column changed. Each move changes the columns of games.models.MATCH_MOVE_FIELDS; before
migration 0016 updated_at was in three of the table's indexes, and none of the 6,859
match-row updates of a benchmarks/api.py run was HOT."""

import re

import pytest
from django.db import connection

from games.models import MATCH_MOVE_FIELDS, Match
from tests.conftest import make_player
from tests.games.helpers import act, create_match, four_player_match, view


def _match_columns() -> dict[str, str]:
    return {Match._meta.get_field(name).column: name for name in MATCH_MOVE_FIELDS}


def _indexes() -> list[tuple[str, str]]:
    """Each index of the match table: its name and its definition (columns, predicate)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s",
            [Match._meta.db_table],
        )
        return cursor.fetchall()


def _match_row_updates() -> tuple[int, int]:
    """(updates, HOT updates) of the match table so far, this backend's own included: the
    flush is forced at the end of the first statement, and the second reads afresh."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s",
            [Match._meta.db_table],
        )
        return cursor.fetchone()


def test_no_index_of_the_match_table_holds_a_column_a_move_changes(db):
    columns = _match_columns()
    for name, definition in _indexes():
        used = {word for word in re.findall(r"\w+", definition) if word in columns}
        assert not used, f"{name} holds {sorted(used)}: {definition}"


def test_the_match_table_leaves_room_on_each_page_for_the_next_version_of_a_row(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", ["games_match"])
        assert "fillfactor=70" in (cursor.fetchone()[0] or [])


def _play(client, match_id: str, moves: int) -> int:
    """`moves` of the client's first legal actions (computer players answer in-process)."""
    played = 0
    body = view(client, match_id)
    while played < moves and body["status"] == "active":
        legal = body["view"]["legal_actions"]
        assert legal, "the client's seat is to act after its computer players' moves"
        response = act(client, match_id, {**legal[0], "expected_seq": body["seq"]})
        assert response.status_code == 200, response.content
        body = response.json()
        played += 1
    return played


@pytest.mark.parametrize(
    "table",
    ["four people", "four people with a turn timer", "one person and three computers"],
)
def test_a_move_updates_its_match_row_in_place(transactional_db, table):
    if table == "one person and three computers":
        client = make_player("solo")[1]
        clients, match_id = [client], create_match(client)["id"]
    else:
        clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
        timer = {"turn_seconds": 60} if "timer" in table else {}
        match_id = four_player_match(clients, **timer)
    before = _match_row_updates()
    moves = 0
    for _ in range(12):  # bids, a discard and cards: seats and phases of every kind
        seat = view(clients[0], match_id)["view"]["turn"]
        moves += _play(clients[seat if len(clients) == 4 else 0], match_id, 1)
    updates, hot = (a - b for a, b in zip(_match_row_updates(), before, strict=True))
    assert moves == 12 and updates >= moves  # computer players' moves update it too
    assert hot == updates, f"{hot} of {updates} updates of the match row were HOT"
