"""Asking for a computer player's turn, after the commit that made it its turn.

In production the turn goes to a Celery worker through the broker, with a short
timeout: if the broker is down, the person's action has committed all the same,
and the periodic sweep (games.tasks.sweep_waiting_matches) queues the turn again
later. With tasks run in-process (the embedded default and most tests), turns
run one after another in a loop rather than nested inside each other's commits,
so a match of four computer players does not recurse once per card (games.play.later).
"""

from django.conf import settings
from django.db import transaction

from games import engine as E
from games.models import Match, Seat, SeatKind
from games.play import later, selectors


def seat_to_act(match: Match, state: E.MatchState) -> Seat | None:
    if state.turn is None:
        return None
    # Every seat (read with the match on the action path: no query then).
    return next((seat for seat in selectors.seats_of(match) if seat.index == state.turn), None)


def plays_for_computer(seat: Seat | None) -> bool:
    """A computer seat, or a person's seat whose turn timer ran out (games.play.timers) until
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
    # The pacing delay is a countdown, not a sleep in the worker: a match's turn waits
    # without holding a worker, so many paced matches do not queue behind each other.
    delay = settings.COMPUTER_MOVE_DELAY or None
    return later.run_soon(later.PLAY_COMPUTER_TURN, str(match_id), seq, countdown=delay)
