"""Turn timers: when a person's turn must end, and asking for it to be enforced.

With the match option turn_seconds, every time the turn comes to a person (or they
come back to their seat) the match gets a deadline. When it passes,
games.play.services.seat_time_out puts a computer player in for them (an event records
it) until they take the seat back. Enforcing it: a Celery task with a countdown,
queued on commit; in-process mode (the embedded default) a timer thread; and the
periodic sweep for any deadline whose task was lost.
"""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from games.log import events as V
from games.log.events import NewEvent
from games.models import Match, MatchStatus, Seat, SeatKind
from games.play import later

# Events after which the person to act gets the full time again.
_RESTART = {*V.ACTION_EVENTS, V.HAND_DEALT, V.MATCH_STARTED, V.SEAT_RETURNED}


def deadline(match: Match, to_act: Seat | None, events: list[NewEvent]) -> datetime | None:
    """The match's deadline after `events`: none unless a person (not away) is to act."""
    if not match.turn_seconds or match.status != MatchStatus.ACTIVE:
        return None
    if to_act is None or to_act.kind != SeatKind.HUMAN or to_act.away:
        return None
    if match.turn_deadline is not None and not any(e.type in _RESTART for e in events):
        return match.turn_deadline
    return timezone.now() + timedelta(seconds=match.turn_seconds)


def schedule_timeout(match: Match) -> None:
    """Ask, once the transaction commits, for the deadline to be enforced."""
    match_id, delay = match.pk, max(0.0, (match.turn_deadline - timezone.now()).total_seconds())
    transaction.on_commit(lambda: enqueue_timeout(match_id, delay))


def enqueue_timeout(match_id: object, delay: float) -> None:
    later.run_after(later.TIME_OUT_TURN, str(match_id), seconds=delay)
