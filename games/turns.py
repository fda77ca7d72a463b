"""Asking for a computer player's turn, after the commit that made it its turn.

In production the turn goes to a Celery worker through the broker, with a short
timeout: if the broker is down, the person's action has committed all the same,
and the periodic sweep (bots.tasks.sweep_waiting_matches) queues the turn again
later. With tasks run in-process (the embedded default and most tests), turns
run one after another in a loop rather than nested inside each other's commits,
so a match of four computer players does not recurse once per card.
"""

import logging
import threading

from django.conf import settings
from django.db import transaction

from games import engine as E
from games.models import Match, Seat, SeatKind

log = logging.getLogger(__name__)
_local = threading.local()


def seat_to_act(match: Match, state: E.MatchState) -> Seat | None:
    return None if state.turn is None else match.seats.filter(index=state.turn).first()


def plays_for_computer(seat: Seat | None) -> bool:
    """A computer seat, or a person's seat whose turn timer ran out (games.timers) until
    they come back."""
    return seat is not None and (
        seat.kind == SeatKind.COMPUTER or (seat.kind == SeatKind.HUMAN and seat.away)
    )


def schedule_computer_turn(match: Match) -> None:
    """Queue the computer player's turn once the current transaction commits."""
    match_id, seq = match.pk, match.seq
    transaction.on_commit(lambda: enqueue_computer_turn(match_id, seq))


def enqueue_computer_turn(match_id: object, seq: int) -> bool:
    """Send the turn to a worker (or run it here, in-process mode). Never raises:
    returns False if the broker could not take it."""
    from bots.tasks import play_computer_turn

    if not settings.CELERY_TASK_ALWAYS_EAGER:
        # The pacing delay is a countdown, not a sleep in the worker: a match's turn waits
        # without holding a worker, so many paced matches do not queue behind each other.
        delay = settings.COMPUTER_MOVE_DELAY or None
        try:
            play_computer_turn.apply_async((str(match_id), seq), retry=False, countdown=delay)
        except Exception:
            log.warning("could not queue the computer turn of %s at %s", match_id, seq)
            return False
        return True
    pending = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((match_id, seq))
        return True
    _local.pending = [(match_id, seq)]
    try:
        while _local.pending:
            next_id, next_seq = _local.pending.pop(0)
            try:
                play_computer_turn.apply((str(next_id), next_seq))
            except Exception:  # the person's own action has committed; log, don't fail it
                log.exception("computer turn of %s at %s failed", next_id, next_seq)
    finally:
        _local.pending = None
    return True
