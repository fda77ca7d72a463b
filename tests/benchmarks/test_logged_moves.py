"""The benchmarks count a run's moves from the whole log (benchmarks/_server.py
`Stack.logged_moves`): the event rows and the chunks the hands over move into. They
counted the rows alone, so once the hands over moved into chunks a match of ten hands
showed about one hand's moves (capacity.py: 24 moves a match, 17 ms of PostgreSQL CPU
a move)."""

import pytest
from django.db import connection

from benchmarks._server import Stack
from games.log import eventlog
from games.log import events as V
from games.models import EventChunk
from tests.conftest import make_player
from tests.games.helpers import four_player_match, play_until_a_hand_is_chunked


def database_url() -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return f"postgres://{s['USER']}{password}@{s['HOST']}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_the_moves_of_hands_moved_into_chunks_are_counted(settings, tmp_path):
    settings.TURN_TIMER_THREADS = True  # the chunks are written as in-process mode does
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    play_until_a_hand_is_chunked(clients, match_id)

    stack = Stack(database_url=database_url(), redis_url="", port=0, log_dir=tmp_path)
    moves = stack.logged_moves()

    logged = [e for e in eventlog.events_of(match_id) if e.type in V.ACTION_EVENTS]
    rows = [e for e in logged if e.seq > EventChunk.objects.get(match_id=match_id).last_seq]
    assert len(logged) > len(rows)  # some of the moves are in the chunk only
    assert len(moves) == len(logged)
    assert sorted(m.seat for m in moves) == sorted(e.seat for e in logged)
    assert {m.match_id for m in moves} == {str(match_id)}
    times = sorted(m.at for m in moves)
    assert times == sorted(e.created_at.timestamp() for e in logged)
