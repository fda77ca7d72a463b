"""A computer player's turn, played through the same path as a person's action."""

import random
from typing import Any

from django.utils import timezone

from bots.hints import recommend
from bots.players import choose_action
from games import engine as E
from games import eventlog
from games.errors import Conflict
from games.models import Hint, HintStatus, Match
from games.services import action_submit
from games.turns import computer_seat


def computer_turn_play(*, match_id: Any, expected_seq: int) -> bool:
    """Play the computer seat's move if the match is still where the task expects it.
    Returns whether a move was applied; a stale or duplicated task does nothing."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.seq != expected_seq:
        return False
    state = eventlog.load(match).state
    if state.turn is None:
        return False
    seat = computer_seat(match, state.turn)
    if seat is None:
        return False
    view = E.player_view(state, seat.index)
    rng = random.Random(f"{match.pk}:{expected_seq}")
    action = choose_action(seat.bot_level, view, rng)
    try:
        action_submit(
            match_id=match.pk, seat_index=seat.index, action=action, expected_seq=expected_seq
        )
    except Conflict:
        return False  # someone else moved first: this task is stale
    return True


def hint_compute(*, hint_id: Any) -> str:
    """Work out a pending hint with the seat's own view, unless the match moved on."""
    hint = Hint.objects.select_related("match").filter(pk=hint_id).first()
    if hint is None or hint.status != HintStatus.PENDING:
        return "gone"
    if hint.match.seq != hint.seq:
        hint.status = HintStatus.STALE
    else:
        view = E.player_view(eventlog.load(hint.match).state, hint.seat)
        advice = recommend(view, random.Random(f"hint:{hint.pk}"))
        hint.status, hint.action, hint.explanation = (
            HintStatus.DONE,
            advice["action"],
            advice["explanation"],
        )
    hint.completed_at = timezone.now()
    hint.save(update_fields=["status", "action", "explanation", "completed_at"])
    return hint.status
