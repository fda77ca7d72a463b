"""GET /api/v1/matches/{id}/review: asked for when the match ends, 202 review_pending until
a worker built it, then each hand's biggest mistakes and each person's accuracy; for the
people seated at the match, and the spectators of a public one (404 to anyone else, as every
match endpoint)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from bots.services import people_and_decisions, review_build
from games.log import events as V
from games.models import Event, Match, MatchReview, ReviewStatus
from games.play import reviews
from games.tasks import sweep_waiting_matches
from tests.bots import worker_support
from tests.bots.worker_support import wait_until
from tests.conftest import make_player
from tests.games.helpers import COMPUTERS, assert_error, create_match, play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _small_review_budget(settings):
    settings.REVIEW_SAMPLES = 4


def finished_match(client) -> str:
    match_id = create_match(client, COMPUTERS, options={"target_score": 3})["id"]
    play_to_the_end(client, match_id)
    return match_id


def test_the_end_of_a_match_asks_for_its_review_and_it_is_pending_until_built(player):
    _user, alice = player
    match_id = finished_match(alice)
    assert MatchReview.objects.get(match_id=match_id).status == ReviewStatus.PENDING
    response = alice.get(f"/api/v1/matches/{match_id}/review")
    assert response.status_code == 202
    assert response["Retry-After"]
    body = response.json()
    assert body["status"] == "pending" and body["code"] == "review_pending"
    assert body["hands"] == [] and body["players"] == []


def test_a_built_review_names_each_persons_accuracy_and_each_hands_mistakes(player):
    _user, alice = player
    match_id = finished_match(alice)
    assert review_build(match_id=match_id)
    response = alice.get(f"/api/v1/matches/{match_id}/review")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready" and body["code"] is None
    (me,) = body["players"]  # the computer seats are not reviewed
    assert me["seat"] == 0 and me["username"] == "alice"
    assert me["decisions"] > 0 and 0 <= me["accuracy"] <= 100
    match = Match.objects.get(pk=match_id)
    assert {h["hand"] for h in body["hands"]} <= set(range(1, match.hands_played + 1))
    steps = {e.seq: e for e in Event.objects.filter(match_id=match_id)}
    for hand in body["hands"]:
        for mistake in hand["mistakes"]:
            logged = steps[mistake["seq"]]  # the step of the replay where it happened
            assert logged.seat == 0 and logged.payload["action"] == mistake["action"]
            assert mistake["loss"] >= body["threshold"]
            assert "gave up about" in mistake["sentence"]


def test_in_process_the_end_of_a_match_builds_its_review_in_a_process_of_its_own(
    player, settings, monkeypatch
):
    """The embedded default (no workers): `manage.py run_task` in a niced process of its
    own builds it, not the server's thread that answered the last action."""
    settings.TURN_TIMER_THREADS = True
    # The child process uses our (test) database.
    monkeypatch.setenv("DATABASE_URL", worker_support.database_url_for_tests())
    monkeypatch.setenv("REVIEW_SAMPLES", "4")
    _user, alice = player
    match_id = finished_match(alice)
    wait_until(
        lambda: MatchReview.objects.filter(match_id=match_id, status="ready").exists(),
        60,
        "the review built by the child process",
    )
    assert alice.get(f"/api/v1/matches/{match_id}/review").status_code == 200


def test_a_review_is_not_rebuilt_unless_asked_and_rebuilding_gives_the_same(player):
    _user, alice = player
    match_id = finished_match(alice)
    assert review_build(match_id=match_id)
    first = MatchReview.objects.get(match_id=match_id).body
    assert not review_build(match_id=match_id)  # a second delivery of the task: a no-op
    call_command("review_match", match_id)  # on demand: rebuilt, the same deals
    assert MatchReview.objects.get(match_id=match_id).body == first


def test_only_the_persons_own_moves_are_reviewed_not_those_a_computer_made_for_them(player):
    user, alice = player
    match_id = finished_match(alice)
    events = list(Event.objects.filter(match_id=match_id).order_by("seq"))
    people, decisions = people_and_decisions(events)
    assert people == {0: "alice"}
    assert decisions and {d.seat for d in decisions} == {0}
    # South times out after its first move: the moves made for it are not its own.
    first = decisions[0].seq
    cut = [
        *events[:first],
        Event(match_id=match_id, seq=first, type=V.SEAT_TIMED_OUT, seat=0, payload={"seat": 0}),
    ]
    _people, before_timeout = people_and_decisions(cut)
    assert [d.seq for d in before_timeout] == [first]


def test_a_review_is_404_to_anyone_not_seated_and_409_before_the_end(player, other_player):
    _user, alice = player
    _bob_user, bob = other_player
    match_id = finished_match(alice)
    review_build(match_id=match_id)
    assert_error(bob.get(f"/api/v1/matches/{match_id}/review"), 404, "not_found")
    assert_error(bob.get("/api/v1/matches/not-a-match/review"), 404, "not_found")
    _carol_user, carol = make_player("carol")
    active = create_match(carol, COMPUTERS)["id"]
    assert_error(carol.get(f"/api/v1/matches/{active}/review"), 409, "match_not_finished")
    assert_error(alice.get(f"/api/v1/matches/{active}/review"), 404, "not_found")


def test_a_review_whose_task_was_lost_is_queued_again_when_asked_for(player, settings):
    _user, alice = player
    match_id = finished_match(alice)
    MatchReview.objects.filter(match_id=match_id).update(
        requested_at=timezone.now() - timedelta(seconds=settings.REVIEW_STALE_AFTER + 1)
    )
    response = alice.get(f"/api/v1/matches/{match_id}/review")
    assert response.status_code == 202
    review = MatchReview.objects.get(match_id=match_id)
    assert timezone.now() - review.requested_at < timedelta(seconds=30)  # asked again


def lose_the_reviews_task(match_id: str, settings) -> None:
    """Its task never ran (in-process without timer threads, as on a worker killed or a
    broker down at the end), and REVIEW_STALE_AFTER has passed."""
    MatchReview.objects.filter(match_id=match_id).update(
        requested_at=timezone.now() - timedelta(seconds=settings.REVIEW_STALE_AFTER + 1)
    )


def test_the_sweep_queues_again_a_review_whose_task_was_lost(player, settings):
    _user, alice = player
    match_id = finished_match(alice)
    assert MatchReview.objects.get(match_id=match_id).attempts == 1
    assert sweep_waiting_matches() == 0  # not lost yet: pending for less than the timeout
    lose_the_reviews_task(match_id, settings)
    assert sweep_waiting_matches() == 1
    review = MatchReview.objects.get(match_id=match_id)
    assert (review.status, review.attempts) == (ReviewStatus.PENDING, 2)
    assert timezone.now() - review.requested_at < timedelta(seconds=30)  # queued again
    assert sweep_waiting_matches() == 0  # once, not at every sweep


def test_a_review_lost_at_every_attempt_ends_failed_as_review_timed_out(player, settings):
    _user, alice = player
    settings.REVIEW_MAX_ATTEMPTS = 3
    match_id = finished_match(alice)
    for attempts in (2, 3):
        lose_the_reviews_task(match_id, settings)
        assert sweep_waiting_matches() == 1
        assert MatchReview.objects.get(match_id=match_id).attempts == attempts
    lose_the_reviews_task(match_id, settings)
    assert sweep_waiting_matches() == 0  # the third attempt was the last
    review = MatchReview.objects.get(match_id=match_id)
    assert (review.status, review.code, review.attempts) == ("failed", "review_timed_out", 3)
    assert "lost" in review.error
    response = alice.get(f"/api/v1/matches/{match_id}/review")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["code"]) == ("failed", "review_timed_out")
    lose_the_reviews_task(match_id, settings)
    assert sweep_waiting_matches() == 0  # failed is the end: no loop


def test_a_request_for_a_lost_review_counts_as_an_attempt_as_the_sweep_does(player, settings):
    _user, alice = player
    settings.REVIEW_MAX_ATTEMPTS = 2
    match_id = finished_match(alice)
    lose_the_reviews_task(match_id, settings)
    assert alice.get(f"/api/v1/matches/{match_id}/review").status_code == 202
    lose_the_reviews_task(match_id, settings)
    body = alice.get(f"/api/v1/matches/{match_id}/review").json()
    assert (body["status"], body["code"]) == ("failed", "review_timed_out")


def test_the_sweep_asks_for_the_missing_review_of_a_match_that_ended_lately(player, settings):
    _user, alice = player
    lately, long_ago = finished_match(alice), finished_match(alice)
    MatchReview.objects.all().delete()  # as for matches that ended before reviews existed
    Match.objects.filter(pk=long_ago).update(
        finished_at=timezone.now() - timedelta(days=2),
        updated_at=timezone.now() - timedelta(days=2),
    )
    assert sweep_waiting_matches() == 1
    review = MatchReview.objects.get(match_id=lately)
    assert (review.status, review.attempts) == (ReviewStatus.PENDING, 1)
    assert not MatchReview.objects.filter(match_id=long_ago).exists()  # asked for on demand
    assert sweep_waiting_matches() == 0


def test_a_review_that_raised_fails_with_the_code_review_failed_and_is_not_retried(player):
    _user, alice = player
    match_id = finished_match(alice)
    reviews.review_failed(match_id=match_id, error="ValueError('a bug')")  # as review_build does
    MatchReview.objects.filter(match_id=match_id).update(
        requested_at=timezone.now() - timedelta(days=1)
    )
    assert sweep_waiting_matches() == 0
    body = alice.get(f"/api/v1/matches/{match_id}/review").json()
    assert (body["status"], body["code"]) == ("failed", "review_failed")


def test_the_admin_lists_reviews_with_a_failures_error_and_changes_nothing(player, admin_client):
    _user, alice = player
    match_id = finished_match(alice)
    MatchReview.objects.filter(match_id=match_id).update(
        status=ReviewStatus.FAILED, error="ValueError('a bug')"
    )
    page = admin_client.get("/admin/games/matchreview/")
    assert page.status_code == 200 and "failed" in page.content.decode()
    detail = admin_client.get(f"/admin/games/matchreview/{match_id}/change/")
    assert detail.status_code == 200 and "a bug" in detail.content.decode()
    assert admin_client.post(f"/admin/games/matchreview/{match_id}/delete/").status_code == 403


def test_a_public_matchs_review_is_read_by_its_spectators_a_private_ones_is_not(
    player, other_player
):
    _user, alice = player
    _bob_user, bob = other_player
    public = create_match(alice, COMPUTERS, options={"target_score": 3}, visibility="public")["id"]
    play_to_the_end(alice, public)
    review_build(match_id=public)
    response = bob.get(f"/api/v1/matches/{public}/review")
    assert response.status_code == 200, response.content
    assert [p["username"] for p in response.json()["players"]] == ["alice"]
    private = finished_match(alice)
    review_build(match_id=private)
    assert_error(bob.get(f"/api/v1/matches/{private}/review"), 404, "not_found")
