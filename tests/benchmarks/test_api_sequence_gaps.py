"""benchmarks/api.py's check that no match's log has a gap counts the hands over that
were moved into chunks (it counted the event rows alone, so every match with a hand over
had a "gap")."""

import pytest
from django.db import connection

from benchmarks.api import SEQUENCE_GAPS
from tests.conftest import make_player
from tests.games.helpers import four_player_match, play_until_a_hand_is_chunked


def gaps() -> int:
    with connection.cursor() as cursor:
        cursor.execute(SEQUENCE_GAPS)
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_hand_over_in_a_chunk_is_no_gap_and_a_missing_seq_is_one(settings):
    settings.TURN_TIMER_THREADS = True  # the chunks are written as in-process mode does
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    play_until_a_hand_is_chunked(clients, match_id)
    assert gaps() == 0

    with connection.cursor() as cursor:  # the seq after the newest left out
        cursor.execute(
            "INSERT INTO games_event (match_id, seq, type, seat, payload, created_at)"
            " SELECT match_id, max(seq) + 2, 'bid_passed', 1, '{}'::jsonb, now()"
            " FROM games_event WHERE match_id = %s GROUP BY match_id",
            [match_id],
        )
    assert gaps() == 1
