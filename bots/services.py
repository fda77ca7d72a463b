"""A computer player's turn, played through the same path as a person's action."""

import logging
import random
import time
from typing import Any

from django.conf import settings
from django.utils import timezone

from bots.hints import recommend
from bots.players import choose_action
from bots.players.hard import Budget
from bots.review import VERSION as REVIEW_VERSION
from bots.review import Decision, ReviewBudget, review_match
from games import engine as E
from games.log import eventlog
from games.log import events as V
from games.log.levels import HARD
from games.models import Hint, HintStatus, Match, MatchStatus, SeatKind
from games.play import reviews
from games.play.errors import Conflict
from games.play.selectors import match_with_seats, seats_of
from games.play.services import (
    MOVED,
    NOBODY_SEATED,
    NOT_CHOSEN,
    action_submit,
    computer_move,
    match_abandon,
)
from games.play.turns import plays_for_computer

log = logging.getLogger(__name__)

# The simpler player a seat falls back to when its own raises (then the first legal action).
FALLBACK_LEVEL = "medium"


def hard_budget() -> Budget:
    # At least one deal and playout: a search of none has nothing to choose by.
    return Budget(samples=max(1, settings.HARD_SAMPLES), playouts=max(1, settings.HARD_PLAYOUTS))


def hint_budget() -> Budget:
    return Budget(samples=max(1, settings.HINT_SAMPLES), playouts=max(1, settings.HINT_PLAYOUTS))


def computer_turn_play(*, match_id: Any, expected_seq: int) -> bool:
    """Play the computer seat's move if the match is still where the task expects it.
    Returns whether a move was applied; a stale or duplicated task does nothing. A
    match at which no person sits any more is abandoned instead of played.

    Every level but Hard chooses in well under a millisecond: at once, on this process's
    copy of the match or under its row lock (games.play.services.computer_move: one statement
    on the copy, else one read of the match, the lock). Hard searches for a second or
    more, so it chooses from a read without the lock, and its move is submitted with
    `expected_seq` (refused if the match moved meanwhile)."""
    rng = random.Random(f"{match_id}:{expected_seq}")

    def at_once(seat: Any, state: E.MatchState) -> dict | None:
        if seat.bot_level == HARD:
            return None
        where = f"match {match_id} seat {seat.index}"
        return computer_action(seat.bot_level, E.player_view(state, seat.index), rng, where)

    try:
        done = computer_move(match_id=match_id, expected_seq=expected_seq, choose=at_once)
    except Conflict:
        return False
    if done == NOBODY_SEATED:
        match_abandon(match_id=match_id)
        return False
    if done != NOT_CHOSEN:
        return done == MOVED
    return _searched_move(match_id, expected_seq, rng)


def _searched_move(match_id: Any, expected_seq: int, rng: random.Random) -> bool:
    """A move chosen by a search, outside the row lock (Hard)."""
    match = match_with_seats(match_id)
    if match is None or match.seq != expected_seq or match.status != MatchStatus.ACTIVE:
        return False
    state = eventlog.load(match).state
    seat = next((s for s in seats_of(match) if s.index == state.turn), None)
    if seat is None or not plays_for_computer(seat):
        return False
    view = E.player_view(state, seat.index)
    action = computer_action(seat.bot_level, view, rng, where=f"match {match.pk} seat {seat.index}")
    try:
        action_submit(
            match_id=match.pk, seat_index=seat.index, action=action, expected_seq=expected_seq
        )
    except Conflict:
        return False  # someone else moved first: this task is stale
    return True


def computer_action(level: str, view: dict[str, Any], rng: random.Random, where: str) -> dict:
    """The seat's action by its level; never raises, so a match cannot freeze on a
    computer player's bug. A level that raises, or answers with an action that is not
    legal, is logged as an error and the seat falls back to Medium for this move, then
    to the first legal action."""
    legal = view["legal_actions"]
    for name in dict.fromkeys((level, FALLBACK_LEVEL)):
        try:
            action = choose_action(name, view, rng, hard_budget=hard_budget())
        except Exception:
            log.exception(
                "computer player failed: %s, level %s, phase %s; falling back",
                where,
                name,
                view.get("phase"),
            )
            continue
        if action in legal:
            return action
        log.error(
            "computer player chose an illegal action: %s, level %s, %r; falling back",
            where,
            name,
            action,
        )
    return legal[0]


def hint_compute(*, hint_id: Any) -> str:
    """Work out a pending hint with the seat's own view, unless the match moved on. A
    hint whose working out raises ends as failed (code hint_failed), never pending."""
    hint = Hint.objects.select_related("match").filter(pk=hint_id).first()
    if hint is None or hint.status != HintStatus.PENDING:
        return "gone"
    if hint.match.seq != hint.seq:
        hint.status = HintStatus.STALE
    else:
        view = E.player_view(eventlog.load(hint.match).state, hint.seat)
        try:
            advice = recommend(view, random.Random(f"hint:{hint.pk}"), hint_budget())
        except Exception:
            log.exception(
                "hint failed: hint %s, match %s seat %s", hint.pk, hint.match_id, hint.seat
            )
            hint.status, hint.code = HintStatus.FAILED, "hint_failed"
            hint.explanation = "The hint could not be worked out; ask again or play on."
        else:
            hint.status, hint.action, hint.explanation = (
                HintStatus.DONE,
                advice["action"],
                advice["explanation"],
            )
    hint.completed_at = timezone.now()
    hint.save(update_fields=["status", "code", "action", "explanation", "completed_at"])
    return hint.status


# ---------------------------------------------------------------- match reviews


def people_and_decisions(events: list[Any]) -> tuple[dict[int, str], list[Decision]]:
    """From a match's log: the seats a person sat at (with the username), and every
    decision a person made there, with the engine state just before it. A move a computer
    made for a person (after a seat_left, or while timed out until seat_returned) is not
    theirs and is not reviewed."""
    replayer = eventlog.Replayer()
    person: dict[int, bool] = {}
    names: dict[int, str] = {}
    decisions = []
    for event in events:
        p, seat = event.payload, event.seat
        if event.type == V.SEAT_TAKEN:
            person[p["seat"]] = p["kind"] == SeatKind.HUMAN
            if person[p["seat"]]:
                names[p["seat"]] = p.get("username") or E.SEAT_NAMES[p["seat"]]
        elif event.type in (V.SEAT_LEFT, V.SEAT_TIMED_OUT):
            person[p["seat"]] = False
        elif event.type == V.SEAT_RETURNED:
            person[p["seat"]] = True
        elif event.type in V.ACTION_EVENTS and person.get(seat):
            state = replayer.state
            decisions.append(
                Decision(event.seq, state.hand_number, seat, state.clone(), p["action"])
            )
        replayer.feed(event.type, seat, p, seq=event.seq)
    return names, decisions


def review_budget() -> ReviewBudget:
    return ReviewBudget(samples=max(2, settings.REVIEW_SAMPLES))


def review_build(*, match_id: Any, force: bool = False) -> bool:
    """Build (or rebuild) the review of a finished match and store it. Idempotent: a
    review already built by this version of the method is kept unless `force`. A
    failure is stored as a failed review (logged), never raised to the worker."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return False
    if not force and reviews.review_is_current(match.pk, REVIEW_VERSION):
        return False
    started = time.perf_counter()
    try:
        events = eventlog.events_of(match)
        people, decisions = people_and_decisions(events)
        body = review_match(decisions, people, review_budget(), match_seed=str(match.pk))
    except Exception as exc:
        log.exception("match review failed: match %s", match.pk)
        reviews.review_failed(match_id=match.pk, error=repr(exc))
        return False
    seconds = time.perf_counter() - started
    reviews.review_save(match_id=match.pk, body=body, version=REVIEW_VERSION, seconds=seconds)
    log.info("match %s reviewed in %.2f s (%d decisions)", match.pk, seconds, len(decisions))
    return True
