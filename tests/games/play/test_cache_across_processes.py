"""What a process keeps between requests (the folded state of a match, games.log.eventlog; the
match's row and seats, games.play.selectors) is never acted on once another process has moved
the match on or changed its seats: an action decided on the copy is written only if the
match is still at the copy's seq (one statement), and otherwise, as every action without
a copy, reads the match's row and seats under the row lock and folds whatever was
committed after the state it holds. Two real processes on the same PostgreSQL: this one
(the test client) and a second Python process acting through the same services."""

import json
import os
import subprocess
import sys

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.services import computer_turn_play
from games.log import log_check
from games.models import Event, Hand, Match, Seat, SeatKind
from tests.bots import worker_support
from tests.bots.worker_support import ROOT
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, to_the_first_card, view

SECOND_PROCESS = """
import json, sys, django
django.setup()
from django.contrib.auth import get_user_model
from games.log import eventlog
from games.play import services
from games import engine as E
from games.models import Event, Match
what, match_id, username = sys.argv[1:4]
if what == "computer":  # the computer's move at seq `username`, as a worker plays it
    from bots.services import computer_turn_play
    print(json.dumps({"moved": computer_turn_play(match_id=match_id, expected_seq=int(username))}))
    sys.exit(0)
user = get_user_model().objects.get(username=username)
if what == "act":
    match = Match.objects.get(pk=match_id)
    state = eventlog.load(match).state
    action = E.player_view(state, state.turn)["legal_actions"][0]
    services.action_submit(match_id=match_id, action=action, user=user)
    print(json.dumps({"seat": state.turn, "action": action}))
else:
    services.match_leave(match_id=match_id, user=user)
    print(json.dumps({}))
"""


def in_second_process(what: str, match_id: str, username: str) -> dict:
    database = worker_support.database_url_for_tests()
    env = {**os.environ, "DATABASE_URL": database, "CELERY_TASK_ALWAYS_EAGER": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS, what, match_id, username],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.django_db(transaction=True)
def test_a_process_never_acts_on_a_state_another_process_has_moved_on():
    names = ("s", "w", "n", "e")
    clients = [make_player(name)[1] for name in names]
    match_id = four_player_match(clients)
    first = view(clients[0], match_id)
    turn = first["view"]["turn"]
    # This process acts: it now holds the folded state at the new seq.
    answer = act(clients[turn], match_id, first["view"]["legal_actions"][0])
    assert answer.status_code == 200, answer.content
    held = answer.json()["seq"]

    moved = in_second_process("act", match_id, names[answer.json()["view"]["turn"]])
    assert Match.objects.get(pk=match_id).seq > held

    # The seat that just acted in the other process may not act again here (it would,
    # on the copy this process holds: it tries, writes nothing, and the lock decides), and
    # the next seat acts on the committed state.
    with CaptureQueriesContext(connection) as queries:
        again = act(clients[moved["seat"]], match_id, moved["action"])
    assert again.status_code == 409, again.content
    assert again.json()["code"] == "not_your_turn"
    assert _tried_the_copy_then_the_lock(queries)
    now = view(clients[0], match_id)
    assert now["seq"] == Match.objects.get(pk=match_id).seq
    nxt = now["view"]["turn"]
    mine = view(clients[nxt], match_id)["view"]["legal_actions"][0]
    answer = act(clients[nxt], match_id, {**mine, "expected_seq": now["seq"]})
    assert answer.status_code == 200, answer.content
    assert answer.json()["seq"] > now["seq"]
    log_check.check_events(list(Event.objects.filter(match_id=match_id).order_by("seq")))


@pytest.mark.django_db(transaction=True)
def test_a_seat_left_in_another_process_cannot_act_here():
    names = ("s", "w", "n", "e")
    clients = [make_player(name)[1] for name in names]
    match_id = four_player_match(clients)
    state = view(clients[0], match_id)
    turn = state["view"]["turn"]
    # This process has read the match and its seats (a view) before the other one changes
    # them: the person to act leaves there, and a computer player takes the seat.
    in_second_process("leave", match_id, names[turn])
    left = Match.objects.get(pk=match_id).seq  # the leave (and the computer's move there)
    with CaptureQueriesContext(connection) as queries:
        answer = act(clients[turn], match_id, {**state["view"]["legal_actions"][0]})
    assert answer.status_code == 404, answer.content
    assert _tried_the_copy_then_the_lock(queries)
    assert Match.objects.get(pk=match_id).seq == left  # nothing written here


@pytest.mark.django_db(transaction=True)
def test_a_computer_move_another_process_made_is_not_made_again_from_the_copy():
    names = ("s", "w", "n", "e")
    clients = [make_player(name)[1] for name in names]
    match_id = four_player_match(clients)
    to_the_first_card(clients, match_id)  # a card that ends no hand: a move of one statement
    match = Match.objects.get(pk=match_id)
    turn, seq = match.turn_seat, match.seq
    # The seat to act is a computer's (as after its person left, without the event: only
    # the two moves are looked at), and this process reads the match so: its copy.
    Seat.objects.filter(match=match, index=turn).update(
        kind=SeatKind.COMPUTER, bot_level="medium", user=None
    )
    view(clients[(turn + 1) % 4], match_id)
    # A worker makes the computer's move; then the same task reaches this process (a
    # duplicate delivery, or the API process's own run): it tries its copy, still at
    # `seq`, writes nothing, and the lock finds the match moved on.
    assert in_second_process("computer", match_id, str(seq)) == {"moved": True}
    moved = Match.objects.get(pk=match_id).seq
    with CaptureQueriesContext(connection) as queries:
        assert not computer_turn_play(match_id=match_id, expected_seq=seq)
    assert _tried_the_copy_then_the_lock(queries)
    assert Match.objects.get(pk=match_id).seq == moved
    assert Event.objects.filter(match_id=match_id, seq=seq + 1, seat=turn).count() == 1
    log_check.check_events(list(Event.objects.filter(match_id=match_id).order_by("seq")))


@pytest.mark.django_db(transaction=True)
def test_a_bid_naming_trump_on_a_copy_another_process_moved_on_writes_no_hands_row():
    names = ("s", "w", "n", "e")
    clients = [make_player(name)[1] for name in names]
    match_id = four_player_match(clients)
    body = view(clients[0], match_id)  # this process's copy, at the first bid
    turn = body["view"]["turn"]
    moved = in_second_process("act", match_id, names[turn])  # that seat bids there
    there = Match.objects.get(pk=match_id).seq
    assert there > body["seq"]
    # Here, the same seat orders up on the copy (its hand's trump in the same statement):
    # the match has moved on, so neither the event nor the hand's trump is written, and
    # the lock decides: it is not that seat's turn any more.
    with CaptureQueriesContext(connection) as queries:
        answer = act(clients[turn], match_id, {"type": "order_up", "alone": False})
    assert answer.status_code == 409 and answer.json()["code"] == "not_your_turn"
    assert _tried_the_copy_then_the_lock(queries)
    tried = next(q["sql"] for q in queries.captured_queries if q["sql"].startswith("WITH"))
    assert "UPDATE games_hand" in tried
    [hand] = Hand.objects.filter(match_id=match_id)
    if moved["action"]["type"] == "pass":
        assert (hand.trump, hand.maker) == ("", None)
    else:  # the other process's own bid named trump: its seat, not this request's
        assert hand.maker == moved["seat"]
    assert Match.objects.get(pk=match_id).seq == there  # nothing written here


def _tried_the_copy_then_the_lock(queries: CaptureQueriesContext) -> bool:
    """The action was first written on this process's copy (and wrote nothing: the match
    had moved on), then decided under the row lock."""
    sql = [q["sql"] for q in queries.captured_queries]
    tried = [i for i, q in enumerate(sql) if q.startswith("WITH moved AS (UPDATE games_match")]
    locked = [i for i, q in enumerate(sql) if "FOR UPDATE" in q and "games_seat" in q]
    return len(tried) == 1 and len(locked) == 1 and tried[0] < locked[0]


@pytest.mark.django_db
def test_a_match_read_with_its_seats_answers_them_without_a_query(django_assert_num_queries):
    from games.play import selectors

    names = ("s", "w", "n", "e")
    clients = [make_player(name)[1] for name in names]
    match_id = four_player_match(clients)
    with django_assert_num_queries(1):
        match = selectors.match_with_seats(match_id)
        seats = selectors.seats_of(match)
        assert [seat.user.get_username() for seat in seats] == list(names)
        assert [seat.index for seat in match.seats.all()] == [0, 1, 2, 3]
    with django_assert_num_queries(1):  # a filter is a query of its own, as after a prefetch
        assert match.seats.filter(index=2).select_related("user").get().user.username == "n"
