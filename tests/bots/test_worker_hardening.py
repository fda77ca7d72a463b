"""Issue 9 through real Celery workers, Redis and PostgreSQL: no option mix freezes a
match; a match for nobody costs the worker nothing; paced turns do not hold a worker; a
turn that hits a database error is retried at once, not left for the sweep."""

import time

import psycopg
import pytest
import redis
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection

from games.log import eventlog
from games.models import Hint, Match
from games.play import hints, services
from games.play.services import SeatSpec
from tests.bots import worker_support
from tests.bots.test_worker import real_broker  # noqa: F401 - a fixture
from tests.bots.worker_support import ARTIFACTS, QUEUE, Worker, logged_event, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 120  # seconds, at most, for what a worker does: generous for a busy machine

# Hard's search kept small: the tests are about matches ending, not about Hard's play.
SMALL_SEARCH = {"HARD_SAMPLES": "4", "HARD_PLAYOUTS": "16", "HINT_SAMPLES": "4"}
SMALL_SEARCH["HINT_PLAYOUTS"] = "16"

# One match per level, the options mixed so that the four cover each boolean both ways,
# each lone lead, and defending alone (the mix that froze Hard) at Hard's table.
LEVEL_MATCHES = [
    ("random", dict(stick_the_dealer=False, going_alone=False, defending_alone=True,
                    lone_lead="canadian", target_score=1)),
    ("easy", dict(stick_the_dealer=True, going_alone=True, defending_alone=True,
                  lone_lead="loner_left", target_score=1)),
    ("medium", dict(stick_the_dealer=False, going_alone=True, defending_alone=False,
                    lone_lead="dealer_left", target_score=1)),
    ("hard", dict(stick_the_dealer=True, going_alone=True, defending_alone=True,
                  lone_lead="canadian", target_score=2)),
]  # fmt: skip


@pytest.fixture(autouse=True)
def _empty_queue():
    """Turns an earlier test left queued (a worker stopped mid-match puts them back) would
    be counted here: start with this run's queue empty."""
    redis.Redis.from_url(django_settings.CELERY_BROKER_URL).delete(QUEUE)


def person(name: str):
    return get_user_model().objects.create_user(name, password="x" * 12)


def south_turn(match: Match) -> dict | None:
    """South's view if it is south's turn in an active match, else None."""
    match.refresh_from_db()
    if match.status != "active":
        return None
    view = services.player_view_get(match=match, seat=0)["view"]
    return view if view["turn"] == 0 else None


def test_every_level_and_hints_play_matches_to_the_end_through_a_worker(real_broker):  # noqa: F811
    """South asks for a hint on every turn (worked out by the worker) and plays it; the
    worker plays the three computer seats. Every match ends, every hint is done, and no
    seat ever needed its fallback."""
    worker = Worker(real_broker, **SMALL_SEARCH).start()
    started = time.monotonic()
    try:
        for i, (level, options) in enumerate(LEVEL_MATCHES):
            user = person(f"south-{level}")
            match = services.match_create(
                user=user,
                seats=[SeatSpec("me")] + [SeatSpec("computer", level)] * 3,
                options=options,
                first_dealer=i,
            )
            for _ in range(200):
                wait_until(
                    lambda m=match: south_turn(m) is not None or m.status != "active",
                    WAIT,
                    f"south's turn at {level} ({options})",
                )
                view = south_turn(match)
                if view is None:
                    break
                hint = hints.hint_request(match_id=match.pk, user=user)
                wait_until(
                    lambda h=hint: Hint.objects.get(pk=h.pk).status != "pending", WAIT, "a hint"
                )
                hint.refresh_from_db()
                assert hint.status == "done", (hint.status, hint.code)
                assert hint.action in view["legal_actions"]
                services.action_submit(
                    match_id=match.pk, seat_index=0, action=hint.action, user=user
                )
            match.refresh_from_db()
            assert match.status == "finished", (level, options)
            assert max(match.score_ns, match.score_we) >= options["target_score"]
    finally:
        worker.stop()
    elapsed = time.monotonic() - started
    log = worker.log()
    assert "computer player failed" not in log and "illegal action" not in log
    assert "hint failed" not in log
    # The figure, for people (under 90 s on a quiet machine), not asserted.
    (ARTIFACTS / "levels-and-hints-through-worker-seconds.txt").write_text(f"{elapsed:.3f}\n")


def test_a_user_who_creates_and_leaves_all_hard_matches_leaves_the_worker_idle(
    real_broker,  # noqa: F811
):
    """Issue 9: three all-Hard matches left by their creator kept the worker busy for
    35 s and slowed everyone else's computer players. Now they end when she leaves, and
    the worker plays only the moves of the match someone sits at."""
    worker = Worker(real_broker).start()
    try:
        mallory = person("mallory")
        left = []
        for _ in range(3):
            match = services.match_create(
                user=mallory, seats=[SeatSpec("me")] + [SeatSpec("computer", "hard")] * 3
            )
            services.match_leave(match_id=match.pk, user=mallory)
            left.append(Match.objects.get(pk=match.pk))
        alice = person("alice")
        match = services.match_create(
            user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "medium")] * 3
        )
        seq = match.seq
        started = time.monotonic()
        services.action_submit(match_id=match.pk, seat_index=0, action={"type": "pass"}, user=alice)
        wait_until(lambda: south_turn(match) is not None, WAIT, "alice's turn again")
        waited = time.monotonic() - started
        time.sleep(1)  # anything still queued for mallory's matches would run now
    finally:
        worker.stop()
    for before in left:
        after = Match.objects.get(pk=before.pk)
        assert after.status == "abandoned" and after.seq == before.seq
    logged = eventlog.events_of(match, after=seq + 1)  # rows or chunks: hands may be over
    computer_moves = sum(e.seat in (1, 2, 3) and e.type != "trick_won" for e in logged)
    # The worker ran alice's match's turns and nothing else (the proof; how long alice
    # waited is a figure for people, under 5 s on a quiet machine, not asserted).
    assert worker.log().count("play_computer_turn[") == 2 * computer_moves  # received+done
    (ARTIFACTS / "moves-beside-abandoned-matches-seconds.txt").write_text(f"{waited:.3f}\n")


def test_paced_turns_of_many_matches_wait_side_by_side_not_one_after_another(
    real_broker,  # noqa: F811
    settings,
):
    """COMPUTER_MOVE_DELAY is each turn's countdown: four matches' paced moves, on one
    worker process, all land about one delay after their people acted, not four delays
    (a sleep inside the task held the worker for each in turn). Read on the database's
    clock (the events' created_at), with a delay long enough that a busy machine's
    slowness is far from the difference: one delay late at most, where a worker held by
    each sleep in turn makes the last move three delays late."""
    delay = 5.0
    settings.COMPUTER_MOVE_DELAY = delay  # this process queues the first turns
    worker = Worker(real_broker, COMPUTER_MOVE_DELAY=str(delay)).start()
    try:
        tables = []
        for i in range(4):
            user = person(f"p{i}")
            match = services.match_create(
                user=user, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
            )
            tables.append((user, match))
        started = time.monotonic()
        for user, match in tables:
            services.action_submit(
                match_id=match.pk, seat_index=0, action={"type": "pass"}, user=user
            )
        seqs = [Match.objects.get(pk=m.pk).seq for _, m in tables]

        def west_moved() -> bool:
            return all(
                logged_event(m, s + 1) is not None for (_, m), s in zip(tables, seqs, strict=True)
            )

        wait_until(west_moved, WAIT, "every west to move")
        elapsed = time.monotonic() - started
    finally:
        worker.stop()
    (ARTIFACTS / "paced-moves-seconds.txt").write_text(f"{elapsed:.3f}\n")
    took = []  # each west's move after its person's pass, on the database's clock
    for (_, match), seq in zip(tables, seqs, strict=True):
        passed, moved = (logged_event(match, n).created_at for n in (seq, seq + 1))
        took.append((moved - passed).total_seconds())
    assert min(took) >= delay, took  # a countdown never ends early
    assert max(took) < 2 * delay, f"{took}: the paced moves waited one after another"


def test_a_computer_turn_cut_off_by_a_database_error_is_retried_not_left_for_the_sweep(
    real_broker,  # noqa: F811
    settings,
):
    """The worker's PostgreSQL backend is terminated while its turn waits for the match
    row (pg_terminate_backend, as a restart or a failover would): the task fails with
    OperationalError and is retried with back-off, so west moves within seconds, with no
    sweep running (before, the move waited for the sweep, 16 s and more)."""
    # West's turn is queued with a countdown: the test's time to take the row's lock
    # first (one statement; 5 s, so that a busy machine does not let the turn in first).
    settings.COMPUTER_MOVE_DELAY = 5
    worker = Worker(real_broker, COMPUTER_MOVE_DELAY="5").start()
    locker = psycopg.connect(worker_support.database_url_for_tests(), autocommit=False)
    try:
        alice = person("alice")
        match = services.match_create(
            user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
        )
        seq = match.seq + 1  # south's pass
        services.action_submit(match_id=match.pk, seat_index=0, action={"type": "pass"}, user=alice)
        # Hold the match row before the paced turn (5 s) reaches it.
        locker.execute("SELECT id FROM games_match WHERE id = %s FOR UPDATE", (match.pk,))
        holder = locker.info.backend_pid

        def waiting_backend() -> int | None:
            # Asked outside the locker's transaction: a transaction sees one snapshot of
            # pg_stat_activity for its whole length.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock' AND pid NOT IN (pg_backend_pid(), %s)",
                    (holder,),
                )
                row = cursor.fetchone()
            return row[0] if row else None

        wait_until(lambda: waiting_backend() is not None, WAIT, "the turn to wait for the row")
        cut = time.monotonic()
        pid = waiting_backend()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", (pid,))
        locker.rollback()  # the row is free again
        # No sweep runs here (no beat): a move at all is the task's own retry. Before, it
        # was left for the sweep, and never came in this test.
        wait_until(
            lambda: logged_event(match, seq + 1) is not None,
            WAIT,
            "west's move, retried",
        )
        waited = time.monotonic() - cut
    finally:
        locker.close()
        worker.stop()
    log = worker.log()
    assert "OperationalError" in log and "Retry in" in log
    assert logged_event(match, seq + 1).seat == 1
    assert len(eventlog.events_of(match, after=seq, upto=seq + 1)) == 1
    # The figure, for people (under 10 s on a quiet machine), not asserted.
    (ARTIFACTS / "turn-retried-after-database-error-seconds.txt").write_text(f"{waited:.3f}\n")


def test_a_hint_that_cannot_be_queued_ends_failed_with_a_code(real_broker):  # noqa: F811
    """The broker is unreachable from the API process: the hint is answered at once as
    failed, hint_service_unavailable, not left pending."""
    alice = person("alice")
    match = services.match_create(
        user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
    )
    worker_support.use_broker("redis://127.0.0.1:1/0")  # nothing listens on port 1
    try:
        hint = hints.hint_request(match_id=match.pk, user=alice)
    finally:
        worker_support.use_broker(real_broker)
    body = hints.hint_body(hint)
    assert (body["status"], body["code"]) == ("failed", "hint_service_unavailable")
