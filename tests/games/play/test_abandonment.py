"""A match at which no person sits any more ends as abandoned (event match_abandoned), and
no computer player plays it out for nobody (issue 9, item 6)."""

import datetime

import pytest
from django.utils import timezone

from bots.tasks import play_computer_turn
from games.models import Event, Match, Seat
from games.play import services
from games.tasks import sweep_waiting_matches
from tests.games.helpers import COMPUTERS, OPEN, act, create_match, view

pytestmark = pytest.mark.django_db(transaction=True)


def types_after(match_id: str, seq: int) -> list[tuple[str, int | None]]:
    events = Event.objects.filter(match_id=match_id, seq__gt=seq).order_by("seq")
    return [(e.type, e.seat) for e in events]


def long_ago(match_id: str) -> None:
    """The match has waited on a computer player for a while (the sweep's cut-off)."""
    Match.objects.filter(pk=match_id).update(
        updated_at=timezone.now() - datetime.timedelta(minutes=5)
    )


def test_the_last_person_leaving_abandons_the_match_and_no_computer_plays_it_out(player, settings):
    _user, client = player
    match_id = create_match(client, COMPUTERS)["id"]
    seq = view(client, match_id)["seq"]

    response = client.post(f"/api/v1/matches/{match_id}/leave")

    assert response.status_code == 200, response.content
    assert types_after(match_id, seq) == [("seat_left", 0), ("match_abandoned", None)]
    match = Match.objects.get(pk=match_id)
    assert match.status == "abandoned" and match.finished_at is not None
    assert not match.awaiting_computer and match.turn_deadline is None
    assert match.winner_team is None
    abandoned = Event.objects.get(match_id=match_id, type="match_abandoned")
    assert abandoned.payload == {"scores": [0, 0]}
    # The sweep does not queue a turn for it, and a turn task already queued does nothing.
    settings.COMPUTER_TURN_STALE_AFTER = 0
    long_ago(match_id)
    assert sweep_waiting_matches() == 0
    assert play_computer_turn.apply((match_id, match.seq)).get() is False
    assert Match.objects.get(pk=match_id).seq == match.seq


def test_a_match_one_of_two_people_leaves_goes_on(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer", "level": "random"}] * 2
    match_id = create_match(alice, seats)["id"]
    assert bob.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    assert bob.post(f"/api/v1/matches/{match_id}/leave").status_code == 200
    body = view(alice, match_id)
    assert body["status"] == "active"
    assert not Event.objects.filter(match_id=match_id, type="match_abandoned").exists()
    assert act(alice, match_id, body["view"]["legal_actions"][0]).status_code == 200


def test_a_person_whose_turn_timer_ran_out_still_counts_as_a_person(player, other_player):
    """South is away (a computer plays for south); north leaves: south is still seated,
    so the match goes on, played for south until south comes back."""
    _alice, alice = player
    _bob, bob = other_player
    seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer", "level": "random"}] * 2
    match_id = create_match(alice, seats, turn_seconds=30, options={"target_score": 1})["id"]
    assert bob.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    Match.objects.filter(pk=match_id).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=1)
    )
    assert services.seat_time_out(match_id=match_id) is True
    assert Seat.objects.get(match_id=match_id, index=0).away

    assert bob.post(f"/api/v1/matches/{match_id}/leave").status_code == 200

    match = Match.objects.get(pk=match_id)
    assert not Event.objects.filter(match_id=match_id, type="match_abandoned").exists()
    assert match.status == "finished"  # tasks run in-process: played out for south
    assert view(alice, match_id)["status"] == "finished"


def test_a_person_who_leaves_while_away_leaves_cleanly(player):
    """Leaving while a computer plays for you (away) used to break the away-is-human
    constraint: a 500."""
    _user, client = player
    match_id = create_match(client, COMPUTERS, turn_seconds=30)["id"]
    Seat.objects.filter(match_id=match_id, index=0).update(away=True, bot_level="medium")
    response = client.post(f"/api/v1/matches/{match_id}/leave")
    assert response.status_code == 200, response.content
    assert Match.objects.get(pk=match_id).status == "abandoned"
    assert not Seat.objects.get(match_id=match_id, index=0).away


def test_a_waiting_match_its_creator_leaves_is_abandoned_and_cannot_be_joined(player, other_player):
    _alice, alice = player
    _bob, bob = other_player
    match_id = create_match(alice, OPEN)["id"]
    assert alice.post(f"/api/v1/matches/{match_id}/leave").status_code == 200
    assert Match.objects.get(pk=match_id).status == "abandoned"
    assert bob.post(f"/api/v1/matches/{match_id}/join").status_code == 404
    assert not Event.objects.filter(match_id=match_id, type="match_started").exists()


def test_a_match_with_no_person_seated_is_abandoned_by_the_sweep_not_played(player, settings):
    """A match that lost its last person some other way (rows from before abandoning
    existed): the sweep abandons it instead of re-queuing its computer turn."""
    _user, client = player
    match_id = create_match(client, COMPUTERS)["id"]
    Seat.objects.filter(match_id=match_id, index=0).update(kind="computer", user=None)
    Match.objects.filter(pk=match_id).update(awaiting_computer=True)
    long_ago(match_id)
    seq = Match.objects.get(pk=match_id).seq
    settings.COMPUTER_TURN_STALE_AFTER = 0

    assert sweep_waiting_matches() == 1

    assert types_after(match_id, seq) == [("match_abandoned", None)]
    assert Match.objects.get(pk=match_id).status == "abandoned"
    assert sweep_waiting_matches() == 0


def test_a_computer_turn_for_a_match_with_no_person_abandons_it_instead_of_moving(player):
    _user, client = player
    match_id = create_match(client, COMPUTERS)["id"]
    Seat.objects.filter(match_id=match_id, index=0).update(kind="computer", user=None)
    seq = Match.objects.get(pk=match_id).seq
    assert play_computer_turn.apply((match_id, seq)).get() is False
    assert types_after(match_id, seq) == [("match_abandoned", None)]


def test_nothing_can_be_done_in_an_abandoned_match(player):
    _user, client = player
    match_id = create_match(client, COMPUTERS)["id"]
    client.post(f"/api/v1/matches/{match_id}/leave")
    assert services.match_abandon(match_id=match_id) is False  # once is enough
    with pytest.raises(services.Conflict) as error:
        services.action_submit(match_id=match_id, seat_index=1, action={"type": "pass"})
    assert error.value.code == "match_finished"
