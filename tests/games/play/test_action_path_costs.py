"""What the hot paths cost in round trips (issue 15): a view is the token and one read of
the match with its seats; a person's action, on the copy of the match this process holds
(read by a view or written by its last action), is the token and one statement that
writes its events and the match's row if the match is still at that seq; without a copy,
the token, the row lock with the seats and that statement in a transaction; a
computer's move (but Hard's, which searches) is that one statement on the copy, else reads
the match only under its lock; the cache (throttles, presence) is one Redis client per
process, not a new one per command."""

import threading
import uuid

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.services import computer_turn_play
from games.log import log_check, projections
from games.models import COMMITTED_FIELDS, Event, Hand, Match, Seat, SeatKind
from games.play import selectors
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, to_the_first_card, view


def _statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements sent, BEGIN and COMMIT included (a hand's row written by a bid naming
    trump is in the events' statement)."""
    return [q["sql"] for q in queries.captured_queries]


@pytest.fixture
def table(transactional_db):  # committed: the state cache is filled on commit
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    return clients, four_player_match(clients)


def test_a_view_is_the_token_and_one_read_of_the_match_with_its_seats(table):
    clients, match_id = table
    view(clients[1], match_id)  # warm: nothing below depends on a first request's work
    with CaptureQueriesContext(connection) as queries:
        body = view(clients[1], match_id)
    assert body["you"] == 1 and [s["username"] for s in body["seats"]] == ["s", "w", "n", "e"]
    sql = _statements(queries)
    assert len(sql) == 2, [q[:70] for q in sql]
    assert "knox_authtoken" in sql[0]
    assert "games_match" in sql[1] and "games_seat" in sql[1]  # the seats beside the match


def _a_pass(clients, match_id) -> tuple[dict, int, dict]:
    """The match's view, the seat to act and its pass (a bid that deals and scores nothing)."""
    body = view(clients[0], match_id)
    seat = body["view"]["turn"]
    legal = view(clients[seat], match_id)["view"]["legal_actions"]
    return body, seat, next(a for a in legal if a["type"] == "pass")


def test_an_action_on_the_copy_this_process_holds_is_the_token_and_one_statement(table):
    clients, match_id = table
    body, seat, bid = _a_pass(clients, match_id)  # the views leave this process a copy
    with CaptureQueriesContext(connection) as queries:
        response = act(clients[seat], match_id, {**bid, "expected_seq": body["seq"]})
    assert response.status_code == 200, response.content
    sql = _statements(queries)
    assert len(sql) == 2, [q[:70] for q in sql]  # no BEGIN, no lock, no COMMIT
    assert "knox_authtoken" in sql[0]
    # The match's row is updated only where it is still the copy's (its seq and updated_at:
    # another row at that seq, after a failover that lost events, is not), and the events
    # are inserted only from that update's row: both or neither.
    assert sql[1].startswith("WITH moved AS (UPDATE games_match"), sql[1][:70]
    assert f"AND seq = {body['seq']} AND updated_at = " in sql[1]
    assert "RETURNING 1) INSERT INTO games_event" in sql[1]
    match = Match.objects.get(pk=match_id)
    assert match.seq == body["seq"] + 1 and match.turn_seat == (seat + 1) % 4
    assert response.json()["seq"] == match.seq
    # The copy moved on with the write: the next seat acts on it too, with no read.
    nxt = response.json()["view"]["turn"]
    with CaptureQueriesContext(connection) as queries:
        again = act(clients[nxt], match_id, {"type": "pass", "expected_seq": match.seq})
    assert again.status_code == 200, again.content
    assert len(_statements(queries)) == 2
    assert Match.objects.get(pk=match_id).seq == match.seq + 1


def test_an_action_without_a_copy_takes_the_row_lock_with_the_seats(table):
    clients, match_id = table
    body, seat, bid = _a_pass(clients, match_id)
    selectors.forget_row(uuid.UUID(match_id))  # as a process that has not read the match
    with CaptureQueriesContext(connection) as queries:
        response = act(clients[seat], match_id, {**bid, "expected_seq": body["seq"]})
    assert response.status_code == 200, response.content
    sql = _statements(queries)
    assert len(sql) == 5, [q[:70] for q in sql]
    assert "knox_authtoken" in sql[0] and sql[1] == "BEGIN" and sql[4] == "COMMIT"
    assert "FOR UPDATE" in sql[2] and "games_seat" in sql[2]  # the lock, the seats with it
    assert sql[3].startswith("WITH appended AS (INSERT INTO games_event")
    assert "UPDATE games_match" in sql[3]
    match = Match.objects.get(pk=match_id)
    assert match.seq == body["seq"] + 1 and match.turn_seat == (seat + 1) % 4
    assert response.json()["seq"] == match.seq


def test_an_error_is_decided_under_the_lock_not_on_the_copy(table):
    clients, match_id = table
    body, seat, bid = _a_pass(clients, match_id)
    other = (seat + 1) % 4  # not their turn: the copy says so, the database decides it
    with CaptureQueriesContext(connection) as queries:
        response = act(clients[other], match_id, {**bid, "expected_seq": body["seq"]})
    assert response.status_code == 409 and response.json()["code"] == "not_your_turn"
    sql = _statements(queries)
    assert not any(q.startswith("WITH moved") for q in sql), [q[:70] for q in sql]
    assert any("FOR UPDATE" in q for q in sql)
    assert Match.objects.get(pk=match_id).seq == body["seq"]


def _hand_rows(match_id: str) -> list[dict]:
    """The match's hands' rows, every column but the id (which a rebuild makes anew)."""
    rows = Hand.objects.filter(match_id=match_id).order_by("number").values()
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def _as_rebuilt(match_id: str) -> list[dict]:
    """The hands' rows projections.rebuild makes from the log (the match's row as it was)."""
    match = Match.objects.get(pk=match_id)
    projections.rebuild(match)
    return _hand_rows(match_id)


def test_a_bid_naming_trump_on_the_copy_is_one_statement_with_its_hands_row(table):
    clients, match_id = table
    body = view(clients[0], match_id)
    seat = body["view"]["turn"]
    view(clients[seat], match_id)
    with CaptureQueriesContext(connection) as queries:
        response = act(clients[seat], match_id, {"type": "order_up", "alone": False})
    assert response.status_code == 200, response.content
    sql = _statements(queries)
    # The token, then the match's row, the hand's trump and the event in one statement.
    assert len(sql) == 2, [q[:70] for q in sql]
    assert sql[1].startswith("WITH moved AS (UPDATE games_match"), sql[1][:70]
    assert "UPDATE games_hand SET" in sql[1] and "FROM moved" in sql[1]
    [hand] = _hand_rows(match_id)
    upcard = body["view"]["hand"]["upcard"]
    assert (hand["trump"], hand["maker"], hand["alone"]) == (upcard[-1], seat, False)
    assert _hand_rows(match_id) == _as_rebuilt(match_id)


def test_a_hands_end_on_the_copy_is_one_statement_with_the_reveal_and_the_next_deal(table):
    clients, match_id = table
    body = to_the_first_card(clients, match_id)
    while body["view"]["hand_number"] == 1:  # each card on the copy; the last ends the hand
        seat = body["view"]["turn"]
        legal = view(clients[seat], match_id)["view"]["legal_actions"]
        with CaptureQueriesContext(connection) as queries:
            response = act(clients[seat], match_id, {**legal[0], "expected_seq": body["seq"]})
        assert response.status_code == 200, response.content
        body = response.json()
    sql = _statements(queries)
    # The last card of the hand: the token, then one statement with the match's row, the
    # hand scored, the next hand's row and the events (the card, the trick, the score, the
    # reveal, the next deal). No read of the deal to reveal it, no BEGIN, no COMMIT.
    assert len(sql) == 2, [q[:70] for q in sql]
    assert sql[1].startswith("WITH moved AS (UPDATE games_match"), sql[1][:70]
    assert "UPDATE games_hand SET" in sql[1] and "INSERT INTO games_hand" in sql[1]
    types = [e.type for e in Event.objects.filter(match_id=match_id).order_by("-seq")[:3]]
    assert types == ["hand_dealt", "hand_revealed", "hand_scored"], types
    dealt, revealed = (
        Event.objects.get(match_id=match_id, type=t, payload__hand=1)
        for t in ("hand_dealt", "hand_revealed")
    )
    for key in ("deck", "salt", "commitment"):
        assert revealed.payload[key] == dealt.payload[key]
    rows = _hand_rows(match_id)
    assert [h["number"] for h in rows] == [1, 2] and rows[0]["result"]
    assert rows[0]["last_seq"] == revealed.seq - 1 and rows[1]["first_seq"] == revealed.seq + 1
    assert rows == _as_rebuilt(match_id)
    log_check.check_events(list(Event.objects.filter(match_id=match_id).order_by("seq")))


def test_a_copy_takes_from_the_written_match_only_columns_read_without_converters():
    # remember_written puts the match's attributes where the database's values go, so
    # none of the columns a commit writes may be one whose values need converting.
    fields = [f.name for f in selectors._match_with_seats_sql()[1]]
    converted = {fields[i] for i, _c in selectors._converters(connection.alias)}
    assert converted and not converted & set(COMMITTED_FIELDS), converted


@pytest.mark.parametrize("level", ["random", "easy", "medium"])
def test_a_computer_move_that_chooses_at_once_reads_the_match_only_under_its_lock(table, level):
    clients, match_id = table
    match = Match.objects.get(pk=match_id)
    # The seat to act becomes a computer's (as after its person left, without the event:
    # only the reads and writes of the move are looked at here).
    Seat.objects.filter(match=match, index=match.turn_seat).update(
        kind=SeatKind.COMPUTER, bot_level=level, user=None
    )
    with CaptureQueriesContext(connection) as queries:
        assert computer_turn_play(match_id=str(match.pk), expected_seq=match.seq)
    sql = _statements(queries)  # an order up writes its hand's trump in the same statement
    assert len(sql) == 4, [q[:70] for q in sql]
    assert sql[0] == "BEGIN" and sql[3] == "COMMIT"
    assert "FOR UPDATE" in sql[1] and "games_seat" in sql[1]
    assert sql[2].startswith("WITH appended AS (INSERT INTO games_event")
    assert Match.objects.get(pk=match_id).seq == match.seq + 1
    # The task run again (a duplicate delivery) finds the match moved on: nothing happens.
    assert not computer_turn_play(match_id=str(match.pk), expected_seq=match.seq)
    assert Match.objects.get(pk=match_id).seq == match.seq + 1


@pytest.mark.parametrize("level", ["random", "easy", "medium"])
def test_a_computer_move_on_the_copy_this_process_holds_is_one_statement(table, level):
    clients, match_id = table
    body = to_the_first_card(clients, match_id)
    match = Match.objects.get(pk=match_id)
    Seat.objects.filter(match=match, index=match.turn_seat).update(
        kind=SeatKind.COMPUTER, bot_level=level, user=None
    )
    view(clients[(match.turn_seat + 1) % 4], match_id)  # this process's copy: the seat as now
    with CaptureQueriesContext(connection) as queries:
        assert computer_turn_play(match_id=str(match.pk), expected_seq=match.seq)
    sql = _statements(queries)
    # A card that ends no hand writes the match's row only: no BEGIN, no lock, no COMMIT.
    assert len(sql) == 1, [q[:70] for q in sql]
    assert sql[0].startswith("WITH moved AS (UPDATE games_match"), sql[0][:70]
    assert Match.objects.get(pk=match_id).seq == body["seq"] + 1
    last = Event.objects.filter(match_id=match_id).order_by("-seq").first()
    assert last.type == "card_played" and last.seat == match.turn_seat
    # The task run again (a duplicate delivery): the copy has moved on, the lock says so.
    with CaptureQueriesContext(connection) as queries:
        assert not computer_turn_play(match_id=str(match.pk), expected_seq=match.seq)
    assert not any(q.startswith(("INSERT", "UPDATE", "WITH")) for q in _statements(queries))
    assert Match.objects.get(pk=match_id).seq == body["seq"] + 1


def test_a_searching_computer_chooses_without_holding_the_lock(table, settings):
    settings.HARD_SAMPLES, settings.HARD_PLAYOUTS = 2, 2
    clients, match_id = table
    match = Match.objects.get(pk=match_id)
    Seat.objects.filter(match=match, index=match.turn_seat).update(
        kind=SeatKind.COMPUTER, bot_level="hard", user=None
    )
    with CaptureQueriesContext(connection) as queries:
        assert computer_turn_play(match_id=str(match.pk), expected_seq=match.seq)
    sql = _statements(queries)
    # The lock taken to look (and let go: Hard searches), the read it chooses from, then
    # the move submitted under the lock.
    begins = [i for i, q in enumerate(sql) if q == "BEGIN"]
    assert len(begins) == 2, [q[:70] for q in sql]
    read = sql[begins[0] + 3]
    assert "games_seat" in read and "FOR UPDATE" not in read
    assert Match.objects.get(pk=match_id).seq == match.seq + 1


def test_the_cache_is_one_redis_client_per_process(settings):
    # bin/test always sets REDIS_URL: without the Redis cache this is a failure, not a skip.
    assert "redis_cache" in settings.CACHES["default"]["BACKEND"], "the tests need REDIS_URL"
    clients = []

    def client_of_this_thread() -> None:
        cache = caches["default"]  # each thread has a cache object of its own
        clients.append(cache._cache.get_client())
        clients.append(cache._cache.get_client(write=True))

    threads = [threading.Thread(target=client_of_this_thread) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    client_of_this_thread()
    assert len({id(client) for client in clients}) == 1
