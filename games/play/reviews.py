"""The review of a finished match: asked for when the match ends, worked out by a worker
(the task later.REVIEW_MATCH, bots/services.py review_build, bots/review.py), stored as a
MatchReview, read through the API (GET /matches/{id}/review).

A review whose task was lost (a worker killed, the broker down when the match ended) stays
pending: the periodic sweep (`reviews_sweep`, from games.tasks) queues it again once it has
been pending REVIEW_STALE_AFTER seconds, and ends it as failed, code review_timed_out, once
its task was queued REVIEW_MAX_ATTEMPTS times; it also asks for the review of a match that
ended lately without one.

Who may read a review is one function, `may_see_review`: today the people seated at the
match; spectators of public matches are one more line there.
"""

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from games.models import Match, MatchReview, MatchStatus, ReviewStatus, Seat, Visibility
from games.play import later, selectors
from games.play.errors import Conflict, NotFound

# A finished match with no review at all (it ended before reviews existed, or its row was
# deleted) is asked for by the sweep if it ended within this; an older one when someone
# asks for it (review_get), so that a deploy does not queue the review of every old match.
MISSING_WITHIN = timedelta(days=1)
# Reviews queued by one sweep at most (it runs every few seconds): a backlog left by an
# outage drains a batch at a time instead of flooding the review queue.
SWEEP_BATCH = 20

log = logging.getLogger(__name__)


def may_see_review(match: Match, user: AbstractBaseUser) -> bool:
    """Whether `user` may read the match's review: a person seated at it, or anyone signed
    in for a public match (its spectators: the review is shown after the end, when every
    hand has been revealed anyway)."""
    if not user.is_authenticated:
        return False
    if match.visibility == Visibility.PUBLIC:
        return True
    return Seat.objects.filter(match=match, user=user).exists()


def review_request_on_commit(match: Match) -> None:
    """Called in the transaction that logs match_finished: the review row, pending, and
    its task queued once that commits (never before: the worker must see the whole log)."""
    MatchReview.objects.update_or_create(
        match=match,
        defaults={
            "status": ReviewStatus.PENDING,
            "requested_at": timezone.now(),
            "error": "",
            "attempts": 1,
        },
    )
    _queue_on_commit(match.pk)


def _queue_on_commit(match_id: Any) -> None:
    key = str(match_id)
    transaction.on_commit(lambda: later.run_in_background(later.REVIEW_MATCH, key))


def _lost() -> QuerySet:
    """The reviews pending longer than REVIEW_STALE_AFTER: their task was lost (a whole
    match is reviewed in seconds)."""
    stale = timezone.now() - timedelta(seconds=settings.REVIEW_STALE_AFTER)
    return MatchReview.objects.filter(status=ReviewStatus.PENDING, requested_at__lt=stale)


def review_retry(match_id: Any) -> bool:
    """Queue the review of `match_id` again if its task was lost (pending longer than
    REVIEW_STALE_AFTER); once its task was queued REVIEW_MAX_ATTEMPTS times, end it as
    failed, code review_timed_out, instead (as the sweep ends a lost hint). True if queued.
    Each step is one conditional UPDATE, so two sweeps (or a sweep and a request) never
    both queue it."""
    now = timezone.now()
    lost = _lost().filter(match_id=match_id)
    if lost.filter(attempts__gte=settings.REVIEW_MAX_ATTEMPTS).update(
        status=ReviewStatus.FAILED,
        code="review_timed_out",
        error=f"pending longer than {settings.REVIEW_STALE_AFTER} s after each of "
        f"{settings.REVIEW_MAX_ATTEMPTS} attempts: its task was lost each time",
        built_at=now,
    ):
        log.warning("match review timed out: match %s", match_id)
        return False
    with transaction.atomic():
        if not lost.update(attempts=F("attempts") + 1, requested_at=now):
            return False
        _queue_on_commit(match_id)
    return True


def reviews_sweep() -> int:
    """Queue again the reviews whose task was lost (review_retry), and ask for the review
    of a match that ended within MISSING_WITHIN without one; SWEEP_BATCH of each at most.
    How many were queued."""
    lost = _lost().order_by("requested_at").values_list("match_id", flat=True)
    queued = sum(review_retry(pk) for pk in list(lost[:SWEEP_BATCH]))
    since = timezone.now() - MISSING_WITHIN
    missing = Match.objects.filter(
        status=MatchStatus.FINISHED,
        finished_at__gte=since,  # indexed with status (match_status_finished)
        review__isnull=True,
    )
    for match in missing[:SWEEP_BATCH]:
        with transaction.atomic():
            _, created = MatchReview.objects.get_or_create(
                match=match,
                defaults={"requested_at": timezone.now(), "attempts": 1},
            )
            if created:  # not asked for meanwhile by a request or another sweep
                _queue_on_commit(match.pk)
                queued += 1
    return queued


def review_get(*, match_id: Any, user: AbstractBaseUser) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of the match's review for `user`: 200 when ready (or failed,
    with its code), 202 review_pending while it is worked out. A review that was never
    asked for (a match that ended before reviews existed) is asked for here, and one whose
    task was lost is queued again (review_retry: the sweep's way, its attempts bounded)."""
    match = Match.objects.filter(pk=match_id).first() if selectors.is_match_id(match_id) else None
    if match is None or not may_see_review(match, user):
        raise NotFound()
    if match.status != MatchStatus.FINISHED:
        raise Conflict("match_not_finished", "A review is available once the match is over.")
    if not MatchReview.objects.filter(match=match).exists():
        with transaction.atomic():
            review_request_on_commit(match)
    else:
        review_retry(match.pk)
    review = MatchReview.objects.get(match=match)
    body = review_body(review)
    return (202 if review.status == ReviewStatus.PENDING else 200), body


def review_body(review: MatchReview) -> dict[str, Any]:
    stored = review.body if review.status == ReviewStatus.READY else None
    # `code` is read only when failed (every way to failed sets it); a review that failed
    # before failures had codes: review_failed.
    code = {
        ReviewStatus.PENDING: "review_pending",
        ReviewStatus.FAILED: review.code or "review_failed",
    }
    return {
        "match": str(review.match_id),
        "status": review.status,
        "code": code.get(review.status),
        "method": stored["method"] if stored else None,
        "threshold": stored["threshold"] if stored else None,
        "players": stored["players"] if stored else [],
        "hands": stored["hands"] if stored else [],
        "built_at": review.built_at.isoformat() if review.built_at else None,
        "seconds": review.seconds,
    }


def review_save(*, match_id: Any, body: dict[str, Any], version: int, seconds: float) -> None:
    MatchReview.objects.update_or_create(
        match_id=match_id,
        defaults={
            "status": ReviewStatus.READY,
            "body": body,
            "version": version,
            "seconds": seconds,
            "error": "",
            "built_at": timezone.now(),
            "requested_at": timezone.now(),
        },
    )


def review_failed(*, match_id: Any, error: str) -> None:
    MatchReview.objects.update_or_create(
        match_id=match_id,
        defaults={
            "status": ReviewStatus.FAILED,
            "code": "review_failed",
            "error": error[:2000],
            "built_at": timezone.now(),
            "requested_at": timezone.now(),
        },
    )


def review_is_current(match_id: Any, version: int) -> bool:
    return MatchReview.objects.filter(
        match_id=match_id, status=ReviewStatus.READY, version=version
    ).exists()
