"""Turn timers and presence: a person who does not act in time is played for by a computer
player, the log records it, and the person takes the seat back."""

import datetime

import pytest
from django.utils import timezone

from games.models import Event, Match, Seat
from games.play import services
from games.tasks import sweep_waiting_matches
from tests.games.helpers import COMPUTERS, act, create_match, view
from tests.games.server_support import Player, SseClient

pytestmark = pytest.mark.django_db(transaction=True)


def timed_match(client, seconds: int = 30) -> str:
    return create_match(client, COMPUTERS, turn_seconds=seconds)["id"]


def time_passes(match_id: str) -> None:
    """The deadline is behind us (rather than sleeping through it)."""
    Match.objects.filter(pk=match_id).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=1)
    )


def types_after(match_id: str, seq: int) -> list[tuple[str, int | None]]:
    events = Event.objects.filter(match_id=match_id, seq__gt=seq).order_by("seq")
    return [(e.type, e.seat) for e in events]


def test_the_turn_coming_to_a_person_starts_their_clock(player):
    _user, client = player
    before = timezone.now()
    body = view(client, timed_match(client, 30))
    assert body["turn_seconds"] == 30 and body["view"]["turn"] == 0
    deadline = datetime.datetime.fromisoformat(body["turn_deadline"])
    assert before + datetime.timedelta(seconds=29) < deadline
    assert deadline <= timezone.now() + datetime.timedelta(seconds=30)


def test_without_a_timer_there_is_no_deadline(player):
    _user, client = player
    body = view(client, create_match(client, COMPUTERS)["id"])
    assert body["turn_seconds"] is None and body["turn_deadline"] is None


def test_a_person_who_does_not_act_in_time_is_played_for_by_a_computer(player):
    _user, client = player
    match_id = timed_match(client)
    seq = view(client, match_id)["seq"]
    time_passes(match_id)

    assert services.seat_time_out(match_id=match_id) is True

    after = types_after(match_id, seq)
    assert after[0] == ("seat_timed_out", 0)
    assert after[1] == ("bid", 0)  # the computer player made south's bid
    timed_out = Event.objects.get(match_id=match_id, type="seat_timed_out")
    assert timed_out.payload == {"seat": 0, "level": "medium", "seconds": 30}
    body = view(client, match_id)
    assert body["seats"][0]["away"] is True and body["seats"][0]["is_you"] is True
    assert body["turn_deadline"] is None  # nobody at the table is on the clock now


def test_a_deadline_not_yet_passed_changes_nothing(player):
    _user, client = player
    match_id = timed_match(client)
    seq = view(client, match_id)["seq"]
    assert services.seat_time_out(match_id=match_id) is False
    assert types_after(match_id, seq) == []
    assert not Seat.objects.get(match_id=match_id, index=0).away


def test_the_person_takes_the_seat_back_and_plays_their_next_turn(player, other_player):
    _user, client = player
    _bob, bobs_client = other_player
    seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer", "level": "random"}] * 2
    match_id = create_match(client, seats, turn_seconds=30)["id"]
    assert bobs_client.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    while view(client, match_id)["view"]["turn"] != 0:  # bob passes until south is to act
        act(bobs_client, match_id, view(bobs_client, match_id)["view"]["legal_actions"][0])
    time_passes(match_id)
    services.seat_time_out(match_id=match_id)  # the computer plays for south up to bob's turn
    assert view(client, match_id)["view"]["turn"] == 1
    seq = view(client, match_id)["seq"]

    response = client.post(f"/api/v1/matches/{match_id}/return")

    assert response.status_code == 200, response.content
    assert response.json()["seats"][0]["away"] is False
    assert types_after(match_id, seq) == [("seat_returned", 0)]
    while view(client, match_id)["view"]["turn"] != 0:
        act(bobs_client, match_id, view(bobs_client, match_id)["view"]["legal_actions"][0])
    body = view(client, match_id)
    assert body["view"]["legal_actions"]  # south's turn is south's own again
    assert body["turn_deadline"] is not None  # with the clock running
    assert Event.objects.filter(match_id=match_id, type="seat_timed_out").count() == 1


def test_acting_while_away_takes_the_seat_back_in_the_same_step(player):
    _user, client = player
    match_id = timed_match(client)
    Seat.objects.filter(match_id=match_id, index=0).update(away=True, bot_level="medium")
    body = view(client, match_id)
    assert body["view"]["turn"] == 0  # the computer's turn was not asked for: south still to act

    response = act(client, match_id, body["view"]["legal_actions"][0])

    assert response.status_code == 200, response.content
    assert types_after(match_id, body["seq"])[:2] == [("seat_returned", 0), ("bid", 0)]
    assert response.json()["seats"][0]["away"] is False


def test_taking_back_a_seat_you_have_is_a_409_that_changes_nothing(player):
    _user, client = player
    match_id = timed_match(client)
    seq = view(client, match_id)["seq"]
    response = client.post(f"/api/v1/matches/{match_id}/return")
    assert response.status_code == 409
    assert response.json()["code"] == "not_away"
    assert types_after(match_id, seq) == []


def test_someone_elses_match_cannot_be_returned_to(player, other_player):
    _user, client = player
    _bob, bobs_client = other_player
    match_id = timed_match(client)
    assert bobs_client.post(f"/api/v1/matches/{match_id}/return").status_code == 404


@pytest.mark.parametrize("seconds", [0, 4, 3601, "ten", True])
def test_a_turn_timer_out_of_range_is_refused(player, seconds):
    _user, client = player
    response = client.post(
        "/api/v1/matches", {"seats": COMPUTERS, "turn_seconds": seconds}, format="json"
    )
    assert response.status_code == 400
    assert "turn_seconds" in response.json()["errors"]
    assert Match.objects.count() == 0


def test_the_service_refuses_a_turn_timer_out_of_range(player):
    user, _client = player
    with pytest.raises(services.BadInput) as refused:
        services.match_create(
            user=user,
            seats=[services.SeatSpec("me")] * 1 + [services.SeatSpec("open")] * 3,
            turn_seconds=2,
        )
    assert refused.value.code == "invalid_turn_seconds"


def test_the_sweep_enforces_a_deadline_whose_timer_was_lost(player):
    _user, client = player
    match_id = timed_match(client)
    Match.objects.filter(pk=match_id).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=60)
    )
    assert sweep_waiting_matches() == 1
    assert Seat.objects.get(match_id=match_id, index=0).away


# ---------------------------------------------------------------- a real server's clock


@pytest.mark.slow
def test_on_a_real_server_the_clock_runs_out_and_the_person_comes_back(servers):
    """The embedded default's timer thread, with no test calling the service: south does
    not act for 5 s, a computer plays for them, and they take the seat back."""
    server = servers(REDIS_URL="")
    alice, bob = Player(server), Player(server)
    seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "computer", "level": "random"}] * 2
    match_id = alice.call("POST", "matches", {"seats": seats, "turn_seconds": 5}, 201)["id"]
    bob.call("POST", f"matches/{match_id}/join")
    stream = alice.stream(match_id)
    deadline = alice.call("GET", f"matches/{match_id}")["turn_deadline"]  # south's turn

    # Generous waits: the time-out's figure is the server's own clock, not the test's.
    stream.wait_for(lambda c: "seat_timed_out" in types(c), timeout=60, what="the time-out")
    stream.wait_for(lambda c: types(c)[-1:] == ["bid"], timeout=60, what="the computer's bid")
    after = stream.events[types(stream).index("seat_timed_out") :]
    assert (after[0]["seat"], after[1]["type"], after[1]["seat"]) == (0, "bid", 0)
    # Not before south's deadline, 5 s after the turn came to them.
    timed_out = datetime.datetime.fromisoformat(after[0]["created_at"])
    assert timed_out >= datetime.datetime.fromisoformat(deadline), (after[0], deadline)
    assert alice.call("GET", f"matches/{match_id}")["seats"][0]["away"] is True

    alice.call("POST", f"matches/{match_id}/return")
    stream.wait_for(lambda c: "seat_returned" in types(c), timeout=60, what="the return")
    assert alice.call("GET", f"matches/{match_id}")["seats"][0]["away"] is False
    stream.close()


def types(client: SseClient) -> list[str]:
    return [e["type"] for e in client.events]
