"""The game's own Celery tasks: turn deadlines and the periodic sweep. Each is safe to
run twice. Games queues tasks only by name, through games.play.later (which names these
too); the computer players' and the hints' tasks are bots.tasks (bots sits above games)."""

from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from knox.models import get_token_model

from games.log import archive
from games.models import (
    Hint,
    HintStatus,
    IdempotencyKeys,
    IdempotentResponse,
    Match,
    MatchStatus,
    SeatKind,
)
from games.people import quickplay
from games.play import later, reviews
from games.play.services import match_abandon, seat_time_out
from games.play.turns import enqueue_computer_turn

# A database that is restarting, a connection cut, a lock not had in time: the task
# is retried with back-off (1, 2, 4, ... seconds, jittered, bounded) rather than left
# for the sweep. A retry carries the same arguments (a turn its expected seq), so a
# move is never doubled.
DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_ON_DATABASE_ERRORS = {
    "autoretry_for": DATABASE_ERRORS,
    "retry_backoff": True,
    "retry_backoff_max": settings.COMPUTER_TURN_RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": settings.COMPUTER_TURN_MAX_RETRIES,
}
# Acknowledged once done and requeued if the worker dies: nothing is lost.
SAFE_TASK = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "ignore_result": True,
    **RETRY_ON_DATABASE_ERRORS,
}


def sweep() -> int:
    """Abandon the matches at which no person sits any more; re-queue the turn of every
    match that has waited on a computer player for longer than COMPUTER_TURN_STALE_AFTER
    seconds (a lost message, a broker outage); enforce turn deadlines passed by
    TURN_TIMER_SWEEP_GRACE seconds (a lost timer); end hints pending for longer than
    HINT_STALE_AFTER seconds (a lost task) as failed; queue again the match reviews pending
    for longer than REVIEW_STALE_AFTER seconds (a lost task; failed, review_timed_out, after
    REVIEW_MAX_ATTEMPTS) and ask for those of lately finished matches that have none
    (games.play.reviews.reviews_sweep); start the quick play tables whose wait ended
    TURN_TIMER_SWEEP_GRACE seconds ago (a lost start_quickplay)."""
    live = Match.objects.filter(status__in=(MatchStatus.WAITING, MatchStatus.ACTIVE))
    unattended = live.exclude(seats__kind=SeatKind.HUMAN).values_list("pk", flat=True)
    abandoned = sum(match_abandon(match_id=pk) for pk in unattended)
    cutoff = timezone.now() - timedelta(seconds=settings.COMPUTER_TURN_STALE_AFTER)
    waiting = Match.objects.filter(
        status=MatchStatus.ACTIVE, awaiting_computer=True, updated_at__lt=cutoff
    ).values_list("pk", "seq")
    queued = sum(enqueue_computer_turn(pk, seq) for pk, seq in waiting.iterator())
    late = timezone.now() - timedelta(seconds=settings.TURN_TIMER_SWEEP_GRACE)
    overdue = Match.objects.filter(status=MatchStatus.ACTIVE, turn_deadline__lt=late)
    timed_out = sum(seat_time_out(match_id=pk) for pk in overdue.values_list("pk", flat=True))
    hint_cutoff = timezone.now() - timedelta(seconds=settings.HINT_STALE_AFTER)
    Hint.objects.filter(status=HintStatus.PENDING, created_at__lt=hint_cutoff).update(
        status=HintStatus.FAILED,
        code="hint_timed_out",
        explanation="The hint was not worked out in time; ask again or play on.",
        completed_at=timezone.now(),
    )
    reviewed = reviews.reviews_sweep()
    grace = settings.TURN_TIMER_SWEEP_GRACE
    started = sum(quickplay.quickplay_start(match_id=pk) for pk in quickplay.due_tables(grace))
    return abandoned + queued + timed_out + reviewed + started


def start_table(match_id: str) -> bool:
    """A quick play table's wait is over (games.people.quickplay.quickplay_start)."""
    return quickplay.quickplay_start(match_id=match_id)


PRUNE_BATCH = 5000


def prune() -> dict[str, int]:
    """Delete what has expired: a person's Idempotency-Keys at a match once the newest is
    older than IDEMPOTENCY_KEY_HOURS (and the rows of the table before it), and device
    tokens past their expiry (a request checks only its own token's expiry:
    games.http.api_classes). In batches, so that no one statement holds many row locks."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    # created_at is indexed (BRIN) and never later than updated_at.
    expired = IdempotencyKeys.objects.filter(created_at__lt=cutoff, updated_at__lt=cutoff)
    responses = _delete_in_batches(expired)
    responses += _delete_in_batches(IdempotentResponse.objects.filter(created_at__lt=cutoff))
    tokens = _delete_in_batches(get_token_model().objects.filter(expiry__lt=timezone.now()))
    return {"idempotent_responses": responses, "tokens": tokens}


def _delete_in_batches(rows: Any) -> int:
    deleted = 0
    while True:
        batch = list(rows.values_list("pk", flat=True)[:PRUNE_BATCH])
        if not batch:
            return deleted
        deleted += rows.model.objects.filter(pk__in=batch).delete()[0]


def archive_events() -> int:
    """Move the logs of matches ended EVENT_ARCHIVE_AFTER_MINUTES ago into their archive
    rows (games.log.archive), EVENT_ARCHIVE_BATCH at most; the rest at the next run."""
    return archive.archive_due()


def compact_log(match_id: str) -> int:
    """Move the hands over of a match into a chunk (games.log.archive.compact_match), queued as
    the next hand is dealt; how many events moved."""
    return archive.compact_match(match_id)


def time_out(match_id: str) -> bool:
    """Enforce the match's turn deadline if it has passed (a later deadline: no-op)."""
    return seat_time_out(match_id=match_id)


sweep_waiting_matches = shared_task(name=later.SWEEP_WAITING_MATCHES, ignore_result=True)(sweep)
time_out_turn = shared_task(name=later.TIME_OUT_TURN, **SAFE_TASK)(time_out)
start_quickplay = shared_task(name=later.START_QUICKPLAY, **SAFE_TASK)(start_table)
prune_expired = shared_task(name=later.PRUNE, ignore_result=True)(prune)
archive_events_task = shared_task(name=later.ARCHIVE_EVENTS, ignore_result=True)(archive_events)
compact_log_task = shared_task(name=later.COMPACT_LOG, **SAFE_TASK)(compact_log)
# The names these tasks had in bots.tasks before they moved here: a message queued under
# one before the release that moved them (a timer's countdown, a sweep sent by beat) still
# runs. Drop them a release later.
shared_task(name="bots.tasks.sweep_waiting_matches", ignore_result=True)(sweep)
shared_task(name="bots.tasks.time_out_turn", **SAFE_TASK)(time_out)
