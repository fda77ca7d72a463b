"""The computer players' and the hints' Celery tasks: a thin interface over
bots/services.py. Games asks for them by name (games.play.later); each is safe to run twice."""

from celery import shared_task

from bots.services import computer_turn_play, hint_compute, review_build
from games.play import later
from games.tasks import SAFE_TASK


@shared_task(name=later.PLAY_COMPUTER_TURN, **SAFE_TASK)
def play_computer_turn(match_id: str, expected_seq: int) -> bool:
    """Play one computer move if the match is still at `expected_seq`. Acknowledged only
    once done, and requeued if the worker dies, so a move is never lost; the expected
    sequence number makes a second delivery a no-op. (Its pacing delay, if any, is the
    countdown it was queued with: games.play.turns.)"""
    return computer_turn_play(match_id=match_id, expected_seq=expected_seq)


@shared_task(name=later.COMPUTE_HINT, **SAFE_TASK)
def compute_hint(hint_id: str) -> str:
    return hint_compute(hint_id=hint_id)


@shared_task(name=later.REVIEW_MATCH, **SAFE_TASK)
def review_match(match_id: str) -> bool:
    """Review a finished match (bots/review.py) and store it; on the review queue
    (games.play.later.BACKGROUND_TASKS), never in a computer turn's way. Safe to run twice: a
    review already built is kept."""
    return review_build(match_id=match_id)
