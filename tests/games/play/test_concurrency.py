"""Racing actions on one match: exactly one applies, the log stays contiguous."""

import json
import threading
import uuid

import psycopg
import pytest
from django.db import connection, transaction

from games.models import Event
from games.play import selectors
from tests.bots.worker_support import database_url_for_tests
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, view


def race(n: int, target) -> list:
    results: list = [None] * n
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = target(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def contiguous(match_id: str) -> bool:
    seqs = list(Event.objects.filter(match_id=match_id).values_list("seq", flat=True))
    return sorted(seqs) == list(range(1, len(seqs) + 1))


@pytest.mark.django_db(transaction=True)
def test_conflicting_actions_from_many_threads_apply_exactly_once_each_round():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    for _round in range(12):
        state = view(clients[0], match_id)
        if state["status"] == "finished":
            break
        turn, seq = state["view"]["turn"], state["seq"]
        legal = view(clients[turn], match_id)["view"]["legal_actions"]
        mover = clients[turn]
        results = race(
            8,
            lambda i, legal=legal, seq=seq, mover=mover: act(
                mover, match_id, {**legal[i % len(legal)], "expected_seq": seq}
            ),
        )
        codes = sorted(r.status_code for r in results)
        assert codes.count(200) == 1, codes
        assert all(r.json()["code"] == "stale_sequence" for r in results if r.status_code == 409)
        assert codes.count(409) == 7
        assert Event.objects.filter(match_id=match_id, seq=seq + 1).count() == 1
        assert contiguous(match_id)


@pytest.mark.django_db(transaction=True)
def test_without_an_expected_seq_a_race_still_applies_one_action():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    state = view(clients[0], match_id)
    turn, seq = state["view"]["turn"], state["seq"]
    results = race(6, lambda i: act(clients[turn], match_id, {"type": "pass"}))
    assert sorted(r.status_code for r in results) == [200] + [409] * 5
    assert view(clients[0], match_id)["seq"] == seq + 1
    assert contiguous(match_id)


@pytest.mark.django_db(transaction=True)
def test_the_same_idempotency_key_twice_gives_the_same_response_and_one_event():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    state = view(clients[0], match_id)
    turn, seq = state["view"]["turn"], state["seq"]
    key = str(uuid.uuid4())

    first = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    again = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert Event.objects.filter(match_id=match_id).count() == seq + 1

    # Concurrently: the next seat fires the same keyed request from several threads.
    nxt = (turn + 1) % 4
    key2 = str(uuid.uuid4())
    results = race(
        5, lambda i: act(clients[nxt], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key2)
    )
    assert {r.status_code for r in results} == {200}
    assert len({json.dumps(r.json(), sort_keys=True) for r in results}) == 1
    assert Event.objects.filter(match_id=match_id).count() == seq + 2
    assert contiguous(match_id)


@pytest.mark.django_db(transaction=True)
def test_actions_on_different_matches_do_not_wait_for_each_other():
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    first = four_player_match(clients)
    second = four_player_match(clients)
    turn = view(clients[0], first)["view"]["turn"]
    # Hold the first match's lock in this thread; the second match must still accept actions.
    from django.db import transaction

    from games.models import Match

    def act_on_second(_i: int):
        t2 = view(clients[0], second)["view"]["turn"]
        return act(clients[t2], second, {"type": "pass"})

    with transaction.atomic():
        Match.objects.select_for_update().get(pk=first)
        results = race(1, act_on_second)
    assert results[0].status_code == 200
    assert act(clients[turn], first, {"type": "pass"}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_locked_read_that_waited_for_a_seat_change_sees_the_seats_as_committed():
    """PostgreSQL's row lock, having waited for another transaction, returns the row as
    that one committed it but reads the rest of the statement (here the seats) from the
    snapshot taken before the wait: a person who left in that transaction would still be
    seated. The read sees it and reads the seats again."""
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = four_player_match(clients)
    other = psycopg.connect(database_url_for_tests())  # another process's transaction
    other.execute(
        "UPDATE games_seat SET kind = 'computer', user_id = NULL, bot_level = 'medium'"
        " WHERE match_id = %s AND index = 2",
        [match_id],
    )
    other.execute("UPDATE games_match SET seq = seq + 1 WHERE id = %s", [match_id])
    read: dict = {}

    def locked_read() -> None:
        try:
            with transaction.atomic():
                match = selectors.match_with_seats(match_id, lock=True)
                read["seq"] = match.seq
                read["seats"] = [(s.kind, s.user_id) for s in selectors.seats_of(match)]
        finally:
            connection.close()

    reader = threading.Thread(target=locked_read)
    reader.start()
    reader.join(0.5)
    assert reader.is_alive()  # waiting for the other transaction's lock
    before = Event.objects.filter(match_id=match_id).count()
    other.commit()
    other.close()
    reader.join(10)
    assert read["seq"] == before + 1
    assert read["seats"][2] == ("computer", None), read["seats"]
