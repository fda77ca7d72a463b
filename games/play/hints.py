"""Asking for a hint: recorded here, worked out by a worker (the task later.COMPUTE_HINT)."""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games.log import eventlog
from games.models import Hint, HintStatus, MatchStatus
from games.play import later, selectors
from games.play.errors import Conflict, NotFound, RuleViolation


def hint_request(*, match_id: Any, user: AbstractBaseUser) -> Hint:
    """A hint for the caller's seat at the match's current position (the same one again if
    already asked there). Only on the caller's own turn, and only where hints are allowed."""
    match, seat = selectors.match_for_user(match_id=match_id, user=user)
    if not match.hints_allowed:
        raise RuleViolation("hints_disabled", "Hints are switched off in this match.")
    if match.status != MatchStatus.ACTIVE:
        raise Conflict("match_not_active", "Hints are given while a match is being played.")
    if eventlog.load(match).state.turn != seat:
        raise Conflict("not_your_turn", "A hint is for your own turn.", seq=match.seq)
    with transaction.atomic():
        hint, created = Hint.objects.get_or_create(
            match=match, seat=seat, seq=match.seq, defaults={"user": user}
        )
        if created:
            transaction.on_commit(lambda: _enqueue(hint.pk))
    hint.refresh_from_db()
    return hint


def hint_get(*, hint_id: Any, user: AbstractBaseUser) -> Hint:
    hint = None
    if selectors.is_match_id(hint_id):  # hint ids are UUIDs too
        hint = Hint.objects.filter(pk=hint_id, user=user).first()
    if hint is None:
        raise NotFound()
    return hint


def hint_body(hint: Hint) -> dict[str, Any]:
    return {
        "id": str(hint.pk),
        "match": str(hint.match_id),
        "seat": hint.seat,
        "seq": hint.seq,
        "status": hint.status,
        "action": hint.action,
        "explanation": hint.explanation or None,
        "code": hint.code or None,  # why a failed hint failed
    }


def _enqueue(hint_id: Any) -> None:
    if not later.run_soon(later.COMPUTE_HINT, str(hint_id)):
        Hint.objects.filter(pk=hint_id).update(
            status=HintStatus.FAILED,
            code="hint_service_unavailable",
            explanation="The hint service is unavailable; try again.",
        )
