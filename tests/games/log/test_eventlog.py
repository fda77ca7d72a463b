"""games.log.eventlog.load: the state a match row stands for."""

import pytest
from django.test import TestCase

from games.log import eventlog
from games.models import Event, Match
from games.play import services
from games.play.services import SeatSpec

pytestmark = pytest.mark.django_db


def test_a_state_is_folded_only_up_to_the_seq_of_the_match_row_read(django_user_model):
    """A row read before another request's commit stands for the state before it: folding
    the newer events too would answer that request with a position it never saw."""
    alice = django_user_model.objects.create_user("alice")
    seats = [SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
    with TestCase.captureOnCommitCallbacks(execute=False):  # computer turns wait
        match = services.match_create(user=alice, seats=seats)
    stale = Match.objects.get(pk=match.pk)
    turn = eventlog.load(stale).state.turn
    services.action_submit(match_id=match.pk, seat_index=turn, action={"type": "pass"})

    assert eventlog.load(stale).state.turn == turn
    fresh = Match.objects.get(pk=match.pk)
    assert fresh.seq == stale.seq + 1
    assert eventlog.load(fresh).state.turn == (turn + 1) % 4


def test_nothing_replays_after_match_abandoned(django_user_model):
    alice = django_user_model.objects.create_user("alice")
    seats = [SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(user=alice, seats=seats)
        services.match_leave(match_id=match.pk, user=alice)
    events = list(Event.objects.filter(match=match).order_by("seq"))
    assert events[-1].type == "match_abandoned"
    replayer = eventlog.Replayer()
    for event in events:
        replayer.feed(event.type, event.seat, event.payload)
    assert replayer.abandoned
    with pytest.raises(eventlog.LogError) as error:
        replayer.feed("bid", 1, {"action": {"type": "pass"}})
    assert error.value.code == "event_after_abandoned"
