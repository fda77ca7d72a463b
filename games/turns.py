"""Asking for a computer player's turn, after the commit that made it its turn.

In production the turn goes to a Celery worker through the broker. With tasks
run in-process (the embedded default and most tests), turns are run one after
another in a loop rather than nested inside each other's commits, so a match
of four computer players does not recurse once per card.
"""

import logging
import threading

from django.conf import settings
from django.db import transaction

from games.models import Match, SeatKind

log = logging.getLogger(__name__)
_local = threading.local()


def schedule_computer_turn(match: Match, seat: int) -> None:
    """If a computer player sits at `seat`, queue its turn once the transaction commits."""
    if not match.seats.filter(index=seat, kind=SeatKind.COMPUTER).exists():
        return
    match_id, seq = match.pk, match.seq
    transaction.on_commit(lambda: enqueue_computer_turn(match_id, seq))


def enqueue_computer_turn(match_id: object, seq: int) -> None:
    from bots.tasks import play_computer_turn

    if not settings.CELERY_TASK_ALWAYS_EAGER:
        try:
            play_computer_turn.apply_async((str(match_id), seq), retry=False)
        except Exception:  # the broker is down: the periodic sweep re-queues the turn
            log.warning("could not queue the computer turn of %s at %s", match_id, seq)
        return
    pending = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((match_id, seq))
        return
    _local.pending = [(match_id, seq)]
    try:
        while _local.pending:
            next_id, next_seq = _local.pending.pop(0)
            play_computer_turn.apply((str(next_id), next_seq))
    finally:
        _local.pending = None
