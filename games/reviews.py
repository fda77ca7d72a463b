"""The review of a finished match: asked for when the match ends, worked out by a worker
(the task later.REVIEW_MATCH, bots/services.py review_build, bots/review.py), stored as a
MatchReview, read through the API (GET /matches/{id}/review).

Who may read a review is one function, `may_see_review`: today the people seated at the
match; spectators of public matches are one more line there.
"""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import later, selectors
from games.errors import Conflict, NotFound
from games.models import Match, MatchReview, MatchStatus, ReviewStatus, Seat, Visibility


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
        defaults={"status": ReviewStatus.PENDING, "requested_at": timezone.now(), "error": ""},
    )
    match_id = str(match.pk)
    transaction.on_commit(lambda: later.run_in_background(later.REVIEW_MATCH, match_id))


def review_get(*, match_id: Any, user: AbstractBaseUser) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of the match's review for `user`: 200 when ready (or failed,
    with its code), 202 review_pending while it is worked out. A review that was never
    asked for (a match that ended before reviews existed) or whose task was lost (pending
    longer than REVIEW_STALE_AFTER) is queued again here."""
    match = Match.objects.filter(pk=match_id).first() if selectors.is_match_id(match_id) else None
    if match is None or not may_see_review(match, user):
        raise NotFound()
    if match.status != MatchStatus.FINISHED:
        raise Conflict("match_not_finished", "A review is available once the match is over.")
    review = MatchReview.objects.filter(match=match).first()
    stale = timezone.now() - timedelta(seconds=settings.REVIEW_STALE_AFTER)
    if review is None or (review.status == ReviewStatus.PENDING and review.requested_at < stale):
        with transaction.atomic():
            review_request_on_commit(match)
        review = MatchReview.objects.get(match=match)
    body = review_body(review)
    return (202 if review.status == ReviewStatus.PENDING else 200), body


def review_body(review: MatchReview) -> dict[str, Any]:
    stored = review.body if review.status == ReviewStatus.READY else None
    code = {ReviewStatus.PENDING: "review_pending", ReviewStatus.FAILED: "review_failed"}
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
            "error": error[:2000],
            "built_at": timezone.now(),
            "requested_at": timezone.now(),
        },
    )


def review_is_current(match_id: Any, version: int) -> bool:
    return MatchReview.objects.filter(
        match_id=match_id, status=ReviewStatus.READY, version=version
    ).exists()
