"""A move's UPDATE of its match's row is written in place (issue 15): PostgreSQL makes it
a HOT update, with no new index entry and no dead one left behind, only when no indexed
column changed. Each move changes the columns of games.models.MATCH_MOVE_FIELDS; before
migration 0016 updated_at was in three of the table's indexes, and none of the 6,859
match-row updates of a benchmarks/api.py run was HOT."""

import re

import pytest
from django.db import connection, transaction

from bots.services import computer_turn_play
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
    """(updates, HOT updates) of the match table in this transaction, by this backend
    alone (the table's totals would count other processes' updates as they report them)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_stat_get_xact_tuples_updated(%s::regclass),"
            " pg_stat_get_xact_tuples_hot_updated(%s::regclass)",
            [Match._meta.db_table] * 2,
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


def _move(clients: list, match_id: str) -> None:
    """The seat to act moves: its person (their first legal action, over HTTP), or its
    computer player (the task's own service). Inside one transaction, nothing runs on
    commit: the computer players' turns are played here, one by one."""
    match = Match.objects.get(pk=match_id)
    seat = match.turn_seat
    if match.awaiting_computer:
        assert computer_turn_play(match_id=match_id, expected_seq=match.seq)
        return
    client = clients[seat] if len(clients) == 4 else clients[0]
    body = view(client, match_id)
    response = act(
        client, match_id, {**body["view"]["legal_actions"][0], "expected_seq": body["seq"]}
    )
    assert response.status_code == 200, response.content


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
    with transaction.atomic():  # each move's transaction a savepoint of this one
        before = _match_row_updates()
        for _ in range(12):  # bids, a discard and cards: seats and phases of every kind
            _move(clients, match_id)
        updates, hot = (a - b for a, b in zip(_match_row_updates(), before, strict=True))
    assert updates == 12, updates
    assert hot == updates, f"{hot} of {updates} updates of the match row were HOT"
