"""What a move leaves for Python's garbage collector: nothing of the match's own.

Objects in a reference cycle are freed only by the collector, whose passes take the
process's lock from every thread serving a request; the more a request leaves in
cycles, the more often they run (issue 15). The match and its seats, read or built from
the process's copy for every view and every action, are freed as soon as the request
lets go of them, and an answer's data (the view) once it is rendered."""

import gc
import weakref
from collections import Counter
from collections.abc import Callable

import pytest

from games.models import Match, Seat
from games.play import selectors
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, view


@pytest.fixture
def table(transactional_db):
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    return clients, four_player_match(clients)


def left_for_the_collector(do: Callable[[], object]) -> Counter:
    """The matches and seats that `do` left in reference cycles (found by a collection
    with the collector otherwise off), by type."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        do()
        gc.collect()
        return Counter(type(o).__name__ for o in gc.garbage if isinstance(o, (Match, Seat)))
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


def test_a_match_read_with_its_seats_is_freed_by_reference_counting(table):
    _clients, match_id = table
    gc.disable()
    try:
        match = selectors.match_with_seats(match_id)
        seat = selectors.seats_of(match)[0]
        gone_match, gone_seat = weakref.ref(match), weakref.ref(seat)
        del match, seat
        assert gone_match() is None and gone_seat() is None
    finally:
        gc.enable()


def test_a_seat_read_with_its_match_still_answers_its_match(table, django_assert_num_queries):
    _clients, match_id = table
    match = selectors.match_with_seats(match_id)
    with django_assert_num_queries(0):  # Django's prefetched seats, as read with the match
        seats = selectors.seats_of(match)
        assert list(match.seats.all()) == seats
        assert [s.user.username for s in match.seats.all()] == ["s", "w", "n", "e"]
    assert [seat.match.pk for seat in seats] == [match.pk] * 4
    assert match.seats.filter(index=2).get().user.username == "n"  # a new query, as Django's


def test_a_match_read_again_from_the_database_reads_its_seats_again(table):
    _clients, match_id = table
    match = selectors.match_with_seats(match_id)
    assert [seat.away for seat in selectors.seats_of(match)] == [False] * 4
    Seat.objects.filter(match_id=match_id, index=3).update(away=True)
    match.refresh_from_db()  # drops what was prefetched, as for any Django model
    assert [seat.away for seat in match.seats.all()] == [False, False, False, True]


def test_the_seats_alone_read_again_are_the_databases(table):
    _clients, match_id = table
    match = selectors.match_with_seats(match_id)
    assert [seat.away for seat in selectors.seats_of(match)] == [False] * 4
    Seat.objects.filter(match_id=match_id, index=1).update(away=True)
    match.refresh_from_db(fields=["seats"])  # Django drops the prefetched seats only
    assert [seat.away for seat in selectors.seats_of(match)] == [False, True, False, False]
    assert [seat.away for seat in match.seats.all()] == [False, True, False, False]


def test_a_view_and_an_action_leave_no_match_or_seat_for_the_collector(table):
    clients, match_id = table
    turn = view(clients[0], match_id)["view"]["turn"]

    def move() -> None:
        body = view(clients[turn], match_id)
        response = act(clients[turn], match_id, body["view"]["legal_actions"][0])
        assert response.status_code == 200, response.content

    assert left_for_the_collector(move) == Counter()


def test_an_answer_lets_go_of_its_data_once_rendered(table):
    clients, match_id = table
    response = clients[0].get(f"/api/v1/matches/{match_id}")
    assert response.status_code == 200
    assert response.data is None  # what the collector would otherwise have to free
    assert response.json()["id"] == match_id  # the answer is its bytes
