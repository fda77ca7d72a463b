"""Computer turns through real Celery worker processes, real Redis and real PostgreSQL."""

import time

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model

from euchre_service.celery import app as celery_app
from games.log import eventlog, log_check
from games.models import Event, Hint, Match, MatchReview
from games.play import hints, selectors, services
from games.play.services import SeatSpec
from games.tasks import sweep_waiting_matches
from tests.bots.worker_support import (
    ARTIFACTS,
    Beat,
    Worker,
    logged_event,
    use_broker,
    wait_until,
)

pytestmark = pytest.mark.django_db(transaction=True)

BROKER = django_settings.CELERY_BROKER_URL
UNREACHABLE = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def real_broker(settings):
    """Publish to the test Redis for real (not in-process) for the length of a test."""
    eager, url = celery_app.conf.task_always_eager, celery_app.conf.broker_url
    queue = celery_app.conf.task_default_queue
    use_broker(BROKER)
    yield BROKER
    use_broker(url)
    celery_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = eager
    celery_app.conf.task_default_queue = queue


def person_and_computers(level: str = "medium", **options) -> tuple:
    user = get_user_model().objects.create_user("person", password="x" * 12)
    match = services.match_create(
        user=user,
        seats=[SeatSpec("me")] + [SeatSpec("computer", level)] * 3,
        options=options or None,
    )
    return user, match


def person_passes(match: Match, user) -> int:
    """South bids first (east deals the first hand): pass, handing the turn to west."""
    view = selectors.player_view_get(match=match, seat=0)
    assert view["view"]["turn"] == 0
    services.action_submit(match_id=match.pk, seat_index=0, action={"type": "pass"}, user=user)
    return Match.objects.get(pk=match.pk).seq


def play_through_the_worker(match: Match, user) -> None:
    """South plays its first legal action on its turns; the worker plays the others (or
    this process, in-process)."""
    for _ in range(500):
        wait_until(
            lambda: (
                Match.objects.get(pk=match.pk).status == "finished"
                or not Match.objects.get(pk=match.pk).awaiting_computer
            ),
            30,
            "south's turn or the end",
        )
        match.refresh_from_db()
        if match.status == "finished":
            return
        view = selectors.player_view_get(match=match, seat=0)["view"]
        services.action_submit(
            match_id=match.pk, seat_index=0, action=view["legal_actions"][0], user=user
        )


def test_a_worker_plays_the_computer_seats_of_a_match_to_the_end(real_broker):
    """South plays its first legal action on its turns; the worker plays the others.
    (A match that everyone left is not played: tests/bots/test_worker_hardening.py.)"""
    user, match = person_and_computers(target_score=5)
    worker = Worker(real_broker).start()
    try:
        play_through_the_worker(match, user)
    finally:
        worker.stop()
    match.refresh_from_db()
    assert max(match.score_ns, match.score_we) >= 5
    seqs = [event.seq for event in eventlog.events_of(match)]  # rows, chunks or archive
    assert sorted(seqs) == list(range(1, match.seq + 1))
    assert "play_computer_turn" in worker.log()


def test_a_finished_match_is_reviewed_on_the_review_queue(real_broker):
    """The match_finished commit queues the review by name on the review queue; the test
    worker consumes it (as docker-compose's review-worker does) at the service's own
    budget (REVIEW_SAMPLES). Prints the figure: the end of the match to the review
    (within 30 s on a quiet machine; the wait is generous for a busy one)."""
    user, match = person_and_computers(target_score=10)
    worker = Worker(real_broker).start()
    try:
        play_through_the_worker(match, user)
        ended = time.monotonic()
        wait_until(
            lambda: MatchReview.objects.filter(match=match, status="ready").exists(),
            300,
            "the review",
        )
        took = time.monotonic() - ended
    finally:
        worker.stop()
    review = MatchReview.objects.get(match=match)
    decisions = sum(p["decisions"] for p in review.body["players"])
    print(
        f"\nreview of a {match.hands_played}-hand match ({decisions} decisions of one person): "
        f"ready {took:.1f} s after its end, built in {review.seconds:.1f} s on one worker"
    )
    assert "review_match" in worker.log()
    assert [p["username"] for p in review.body["players"]] == ["person"]


def test_a_review_whose_task_was_lost_is_queued_again_by_the_sweep_and_built_by_a_worker(
    real_broker, settings
):
    """The match ends while nothing takes the review's task (played here, in-process, with
    no process for background tasks: as with the broker down at the end, or the review
    worker killed before it took it). The sweep, once REVIEW_STALE_AFTER has passed,
    queues it again on the review queue, and a real worker builds it."""
    settings.CELERY_TASK_ALWAYS_EAGER = celery_app.conf.task_always_eager = True
    settings.TURN_TIMER_THREADS = False
    user, match = person_and_computers(level="easy", target_score=3)
    play_through_the_worker(match, user)  # the computers play in this process
    assert MatchReview.objects.get(match=match).status == "pending"  # and never built
    use_broker(real_broker)  # workers and a broker from here on
    settings.REVIEW_STALE_AFTER = 0
    worker = Worker(real_broker, REVIEW_SAMPLES="4").start()
    try:
        assert sweep_waiting_matches() == 1
        wait_until(
            lambda: MatchReview.objects.filter(match=match, status="ready").exists(),
            60,
            "the review queued again by the sweep",
        )
    finally:
        worker.stop()
    review = MatchReview.objects.get(match=match)
    assert review.attempts == 2 and review.body["players"][0]["username"] == "person"
    assert "review_match" in worker.log()


def test_a_move_whose_worker_was_killed_is_applied_exactly_once_after_a_restart(
    real_broker, settings
):
    user, match = person_and_computers()
    settings.COMPUTER_MOVE_DELAY = 4  # west's turn is queued with a countdown: time to kill
    slow = Worker(real_broker, COMPUTER_MOVE_DELAY="4", CELERY_VISIBILITY_TIMEOUT="2").start()
    try:
        seq = person_passes(match, user)
        slow.wait_for_log("play_computer_turn[", 20)
    finally:
        slow.kill()  # mid-task: west has not moved
    assert Match.objects.get(pk=match.pk).seq == seq

    fresh = Worker(
        real_broker,
        CELERY_VISIBILITY_TIMEOUT="2",
        CELERY_UNACKED_RESTORE_INTERVAL="1",
        CELERY_UNACKED_RESTORE_THROTTLE="1",
    ).start()
    try:
        wait_until(
            lambda: Match.objects.get(pk=match.pk).awaiting_computer is False,
            60,
            "the computer players to move until south's turn",
        )
    finally:
        fresh.stop()
    west_moves = eventlog.events_of(match, after=seq, upto=seq + 1)  # a row or a chunk
    assert [(e.seat, e.type) for e in west_moves] == [(1, "bid")]
    after_south = eventlog.events_of(match, after=seq, upto=seq + 3)
    first_round = [e for e in after_south if e.type == "bid"]
    assert sorted(e.seat for e in first_round) == [1, 2, 3][: len(first_round)]
    # Nothing applied twice: the whole log replays by the rules (a move of west's applied
    # again would be out of turn). Counting west's events is no test of it: when north goes
    # alone, south sits the hand out and west plays it through before south's turn (CI
    # once saw seven).
    log_check.check_events(eventlog.events_of(match))
    seqs = [event.seq for event in eventlog.events_of(match)]  # rows, chunks or archive
    assert sorted(seqs) == list(range(1, Match.objects.get(pk=match.pk).seq + 1))


def test_a_persons_action_commits_while_the_broker_is_down_and_the_computer_moves_later(
    real_broker, settings
):
    """The API process loses the broker (it publishes to a port where nothing answers,
    as in a network partition or a Redis outage); the worker keeps its own connection."""
    worker = Worker(real_broker).start()
    try:
        user, match = person_and_computers()
        use_broker(UNREACHABLE)

        started = time.monotonic()
        seq = person_passes(match, user)
        elapsed = time.monotonic() - started
        # The publish waits out the broker's connection timeout (2 s) once, not retried;
        # the 10 s beyond are for a busy machine, not a figure.
        limit = settings.CELERY_BROKER_CONNECTION_TIMEOUT + 10
        assert elapsed < limit, f"the action took {elapsed:.1f}s with the broker down"
        assert Event.objects.filter(match=match, seq=seq, seat=0, type="bid").exists()
        assert Match.objects.get(pk=match.pk).awaiting_computer
        time.sleep(1)
        assert Match.objects.get(pk=match.pk).seq == seq  # the turn never reached a worker

        use_broker(real_broker)  # the broker is back
        settings.COMPUTER_TURN_STALE_AFTER = 0
        assert sweep_waiting_matches() == 1  # what celery beat runs every few seconds
        wait_until(
            lambda: Match.objects.get(pk=match.pk).seq > seq, 60, "the computer player to move"
        )
        assert logged_event(match, seq + 1).seat == 1
    finally:
        worker.stop()


def test_the_sweep_runs_on_a_beat_schedule():
    schedule = celery_app.conf.beat_schedule
    assert schedule["sweep-waiting-matches"]["task"] == "games.tasks.sweep_waiting_matches"
    assert sweep_waiting_matches.name == "games.tasks.sweep_waiting_matches"


def test_a_hint_comes_back_through_a_real_worker(real_broker):
    user, match = person_and_computers()
    worker = Worker(real_broker).start()
    try:
        started = time.monotonic()
        hint = hints.hint_request(match_id=match.pk, user=user)
        wait_until(
            lambda: Hint.objects.get(pk=hint.pk).status != "pending",
            120,  # generous: a busy machine
            "the hint to be worked out",
        )
        elapsed = time.monotonic() - started
    finally:
        worker.stop()
    done = Hint.objects.get(pk=hint.pk)
    assert done.status == "done"
    legal = selectors.player_view_get(match=match, seat=0)["view"]["legal_actions"]
    assert done.action in legal
    assert "compute_hint" in worker.log()
    (ARTIFACTS / "hint-through-worker-seconds.txt").write_text(f"{elapsed:.3f}\n")


def test_a_turn_timer_runs_out_on_a_worker_and_a_computer_plays_for_the_person(real_broker):
    """The timer is a task with a countdown, queued when the turn came to the person."""
    user = get_user_model().objects.create_user("person", password="x" * 12)
    worker = Worker(real_broker).start()
    try:
        match = services.match_create(
            user=user, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3,
            turn_seconds=5, options={"target_score": 1},
        )  # fmt: skip
        deadline = match.turn_deadline  # south's, 5 s after the deal
        # Generous waits: when it came is read on the database's clock below.
        wait_until(
            lambda: Event.objects.filter(match=match, type="seat_timed_out").exists(),
            120,
            "the turn timer",
        )
        timed_out = Event.objects.get(match=match, type="seat_timed_out")
        wait_until(lambda: Match.objects.get(pk=match.pk).status == "finished", 120, "the end")
    finally:
        worker.stop()
    assert deadline is not None and deadline > match.created_at
    assert timed_out.seat == 0 and timed_out.created_at >= deadline  # never early
    south = Event.objects.filter(match=match, seat=0, type__in=["bid", "card_played"])
    assert south.filter(seq__gt=timed_out.seq).exists()  # the computer played for south
    assert "time_out_turn" in worker.log()


def test_a_beat_process_sends_the_sweep_that_requeues_a_lost_turn(real_broker):
    """The turn's message is lost (the API process could not reach the broker); nobody
    calls the sweep by hand: a running `celery beat` sends it, a worker runs it, and the
    computer player moves."""
    user, match = person_and_computers()
    use_broker(UNREACHABLE)
    seq = person_passes(match, user)  # the computer's turn is never queued
    use_broker(real_broker)
    stale_after = {"COMPUTER_TURN_STALE_AFTER": "1", "COMPUTER_TURN_SWEEP_EVERY": "1"}
    worker = Worker(real_broker, **stale_after).start()
    beat = Beat(real_broker, **stale_after)
    try:
        beat.start()
        wait_until(
            lambda: Match.objects.get(pk=match.pk).seq > seq, 60, "the computer player to move"
        )
    finally:
        beat.stop()
        worker.stop()
    assert logged_event(match, seq + 1).seat == 1
    assert "Sending due task sweep-waiting-matches" in beat.log()
    assert "games.tasks.sweep_waiting_matches" in worker.log()


def _sessions_so_far() -> int:
    """PostgreSQL sessions ever opened to the test database (pg_stat_database)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_a_worker_keeps_its_database_connection_across_tasks(real_broker):
    """Celery's Django fixup closed the connection around every task: one new PostgreSQL
    session per task. With CONN_MAX_AGE, a worker now keeps its connection as an API
    process does (euchre_service/celery.py)."""
    worker = Worker(real_broker, DATABASE_CONN_MAX_AGE="60").start()
    try:
        before = _sessions_so_far()
        tasks = 60
        for _ in range(tasks):
            sweep_waiting_matches.delay()
        wait_until(lambda: worker.log().count("succeeded") >= tasks, 120, "every sweep run")
        time.sleep(1.5)  # the worker's session statistics are flushed within a second
        opened = _sessions_so_far() - before
    finally:
        worker.stop()
    assert opened <= 3, f"{opened} new sessions for {tasks} tasks"
