"""The copies of matches a process keeps for an action decided without the row lock
(games.play.selectors: cached_match_with_seats): taken only from what was committed, never
older than the one held, bounded, forgotten by a commit under the lock that changes a
seat, and moved on by an action under the lock (its seats as read with the lock)."""

import uuid

import pytest
from django.db import transaction

from games.models import Event, Match, Seat
from games.play import selectors, services
from tests.conftest import make_player
from tests.games.helpers import four_player_match


@pytest.fixture
def match_id(transactional_db) -> uuid.UUID:
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    key = uuid.UUID(four_player_match(clients))
    selectors.forget_row(key)
    return key


def test_a_read_in_autocommit_leaves_a_copy_at_the_read_seq(match_id):
    read = selectors.match_with_seats(match_id)
    copy = selectors.cached_match_with_seats(str(match_id))
    assert copy is not None and copy is not read
    assert copy.seq == read.seq == Match.objects.get(pk=match_id).seq
    assert [s.user.username for s in selectors.seats_of(copy)] == ["s", "w", "n", "e"]


def test_a_read_inside_a_transaction_or_under_the_lock_leaves_no_copy(match_id):
    # Inside a transaction the read may see this transaction's own writes, which a
    # rollback would make a seq that never was.
    with transaction.atomic():
        selectors.match_with_seats(match_id)
        selectors.match_with_seats(match_id, lock=True)
    assert selectors.cached_match_with_seats(match_id) is None


def test_an_older_read_never_replaces_a_newer_copy(match_id):
    selectors.match_with_seats(match_id)
    held = selectors._rows[match_id]
    older = list(held[0])
    older[selectors._field_index("seq")] -= 1
    selectors._remember_row(older, held[1])
    assert selectors.cached_match_with_seats(match_id).seq == held[0][selectors._field_index("seq")]


def test_the_copies_are_bounded(match_id):
    selectors.match_with_seats(match_id)
    values, seats = selectors._rows[match_id]
    for _ in range(selectors._ROWS_SIZE + 10):
        other = list(values)
        other[selectors._field_index("id")] = uuid.uuid4()
        selectors._remember_row(other, seats)
    assert len(selectors._rows) == selectors._ROWS_SIZE
    assert selectors.cached_match_with_seats(match_id) is None  # the oldest went first


def test_a_commit_under_the_lock_that_changes_a_seat_forgets_the_copy(match_id):
    selectors.match_with_seats(match_id)
    match = Match.objects.get(pk=match_id)
    user = match.seats.get(index=2).user
    services.match_leave(match_id=match_id, user=user)  # a seat changes, under the lock
    assert selectors.cached_match_with_seats(match_id) is None


def test_an_action_under_the_lock_leaves_the_copy_at_its_new_seq(match_id):
    selectors.forget_row(match_id)  # no copy: the action takes the row lock
    match = Match.objects.get(pk=match_id)
    seat, seq = match.turn_seat, match.seq
    action = {"type": "pass"}
    services.action_submit(match_id=match_id, action=action, user=match.seats.get(index=seat).user)
    copy = selectors.cached_match_with_seats(match_id)
    now = selectors.match_with_seats(match_id)  # as read from the database
    assert copy is not None and copy.seq == now.seq == seq + 1
    assert copy.turn_seat == now.turn_seat == (seat + 1) % 4
    columns = [f.attname for f in selectors._match_with_seats_sql()[1]]
    assert [getattr(copy, c) for c in columns] == [getattr(now, c) for c in columns]
    assert [(s.index, s.kind, s.user_id, s.away) for s in selectors.seats_of(copy)] == [
        (s.index, s.kind, s.user_id, s.away) for s in selectors.seats_of(now)
    ]


def test_a_person_coming_back_under_the_lock_forgets_the_copy(match_id):
    # Acting at a seat a computer plays for (the turn timer ran out) brings the person
    # back: a seat changes in the action's transaction, so no copy is kept from it.
    match = Match.objects.get(pk=match_id)
    seat = match.seats.get(index=match.turn_seat)
    Match.objects.filter(pk=match_id).update(turn_seconds=30)
    Seat.objects.filter(pk=seat.pk).update(away=True)
    services.action_submit(match_id=match_id, action={"type": "pass"}, user=seat.user)
    assert not Seat.objects.get(pk=seat.pk).away
    assert Event.objects.filter(match_id=match_id, type="seat_returned").exists()
    assert selectors.cached_match_with_seats(match_id) is None
