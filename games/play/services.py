"""Everything that changes a match, each in one transaction.

Every change appends events through games.log.eventlog, updates the projections in
the same transaction, and after the commit caches the new state and asks for
the next computer player's turn. People's and computer players' actions take
the same path: action_submit.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from games import engine as E
from games.live import live
from games.log import eventlog, fairness, projections
from games.log import events as V
from games.log.events import NewEvent
from games.log.levels import DEFAULT_LEVEL, LEVELS
from games.models import (
    COMMITTED_FIELDS,
    Match,
    MatchStatus,
    Seat,
    SeatKind,
    Visibility,
)
from games.play import idempotency, later, reviews, selectors, timers
from games.play.errors import BadInput, Conflict, NotFound, Unprocessable, from_rule_error
from games.play.selectors import (
    is_match_id,
    match_with_seats,
    player_view_get,
    seat_of_user,
    seats_of,
)
from games.play.turns import plays_for_computer, schedule_computer_turn, seat_to_act

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 3600
# What the creator of a match may ask for at a seat (SeatSpec.kind).
ME, OPEN, COMPUTER = "me", "open", "computer"
SEAT_SPEC_KINDS = (ME, OPEN, COMPUTER)


@dataclass(frozen=True)
class SeatSpec:
    """What the creator asks for at one seat."""

    kind: str  # ME, OPEN or COMPUTER
    level: str = ""  # a computer's (games.log.levels); none: DEFAULT_LEVEL

    def checked(self) -> "SeatSpec":
        """The seat as the match gets it (a computer's level filled in); BadInput for an
        unknown kind or level, or a level asked of a seat that is not a computer."""
        if self.kind not in SEAT_SPEC_KINDS:
            raise BadInput(
                "invalid_seats", f"A seat's kind is one of {', '.join(SEAT_SPEC_KINDS)}."
            )
        if self.kind != COMPUTER:
            if self.level:
                raise BadInput("invalid_level", "Only a computer seat has a level.")
            return self
        if self.level and self.level not in LEVELS:
            raise BadInput(
                "invalid_level",
                f"Unknown computer level {self.level!r}: use one of {', '.join(LEVELS)}.",
            )
        return SeatSpec(COMPUTER, self.level or DEFAULT_LEVEL)


def seats_check(seats: list[SeatSpec]) -> list[SeatSpec]:
    """The four seats a match is created with, each checked; BadInput if not four, or not
    exactly one of them the creator's own (ME)."""
    if len(seats) != 4:
        raise BadInput("invalid_seats", "A match has exactly four seats.")
    if sum(spec.kind == ME for spec in seats) != 1:
        raise BadInput("invalid_seats", "Take exactly one seat yourself (kind 'me').")
    return [spec.checked() for spec in seats]


@dataclass(frozen=True)
class ActionResponse:
    status: int
    body: dict[str, Any]
    replayed: bool = False  # the stored answer to an Idempotency-Key seen before


# ---------------------------------------------------------------- creating and joining


def match_create(
    *,
    user: AbstractBaseUser,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    hints_allowed: bool = True,
    first_dealer: int = 3,
    turn_seconds: int | None = None,
    visibility: str = Visibility.PRIVATE,
) -> Match:
    seats = seats_check(seats)
    rules = _checked_rules(options, turn_seconds, visibility)
    with transaction.atomic():
        room_for_another_match(user)
        return new_match(
            created_by=user,
            seats=[(user if spec.kind == ME else None, spec) for spec in seats],
            rules=rules,
            hints_allowed=hints_allowed,
            first_dealer=first_dealer,
            turn_seconds=turn_seconds,
            visibility=visibility,
        )


def _checked_rules(
    options: dict[str, Any] | None, turn_seconds: int | None, visibility: str
) -> E.Options:
    if turn_seconds is not None and not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
        raise BadInput(
            "invalid_turn_seconds",
            f"A turn timer is {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS} seconds (or none).",
        )
    if visibility not in Visibility.values:
        raise BadInput("invalid_input", f"visibility is one of {', '.join(Visibility.values)}.")
    try:
        return E.Options.from_dict(options)
    except E.RuleError as exc:
        raise from_rule_error(exc) from exc


def new_match(
    *,
    created_by: AbstractBaseUser,
    seats: list[tuple[AbstractBaseUser | None, SeatSpec]],
    rules: E.Options,
    hints_allowed: bool,
    first_dealer: int,
    turn_seconds: int | None,
    visibility: str = Visibility.PRIVATE,
    rematch_of: Match | None = None,
    **fields: Any,
) -> Match:
    """Create a match with its seats (a person, given with a ME spec; an open seat; a
    computer with its level), in the caller's transaction; it starts at once if every seat
    is taken. For quick play and rematches (games/people/quickplay.py,
    games/people/rematch.py) as for match_create; `fields` are further Match fields (quick
    play's)."""
    match = Match.objects.create(
        created_by=created_by,
        options=rules.to_dict(),
        hints_allowed=hints_allowed,
        first_dealer=first_dealer,
        turn_seconds=turn_seconds,
        visibility=visibility,
        rematch_of=rematch_of,
        **fields,
    )
    events = [
        V.match_created(
            options=rules.to_dict(),
            first_dealer=first_dealer,
            hints_allowed=hints_allowed,
            turn_seconds=turn_seconds,
            visibility=visibility,
            rematch_of=str(rematch_of.pk) if rematch_of is not None else None,
        )
    ]
    for index, (person, spec) in enumerate(seats):
        if spec.kind == ME:
            seat = Seat.objects.create(match=match, index=index, kind=SeatKind.HUMAN, user=person)
        elif spec.kind == COMPUTER:
            seat = Seat.objects.create(
                match=match, index=index, kind=SeatKind.COMPUTER, bot_level=spec.level
            )
        else:
            Seat.objects.create(match=match, index=index, kind=SeatKind.OPEN)
            continue
        events.append(_seat_taken(seat))
    _commit_events(match, eventlog.Folded(E.MatchState(rules, first_dealer), None), events)
    for person, spec in seats:
        if spec.kind == ME:  # each person's feed follows the new match from its commit
            live.publish_seated_on_commit(person.pk, match)
    return match


def _seat_taken(seat: Seat) -> NewEvent:
    return V.seat_taken(
        seat=seat.index,
        kind=seat.kind,
        user_id=seat.user_id,
        username=seat.user.get_username() if seat.user else None,
        level=seat.bot_level or None,
    )


def seat_join(match: Match, user: AbstractBaseUser, seat_index: int | None = None) -> Seat:
    """Seat `user` at the locked `match` (in the caller's transaction)."""
    seated = match.seats.filter(user=user).exists()
    if match.status != MatchStatus.WAITING and not seated:
        if match.visibility != Visibility.PUBLIC:
            raise NotFound()  # an invite is good only while the match waits for players
        # A public match is no secret (anyone signed in may watch it): say why not.
        if match.status == MatchStatus.ACTIVE:
            raise Conflict("match_started", "The match has started: its seats are taken.")
        raise Conflict("match_finished", "The match is over.")
    if seated:
        raise Conflict("already_seated", "You already have a seat at this match.")
    open_seats = match.seats.filter(kind=SeatKind.OPEN)
    if seat_index is not None:
        open_seats = open_seats.filter(index=seat_index)
    seat = open_seats.order_by("index").first()
    if seat is None:
        raise Conflict("seat_taken", "That seat is not open.")
    room_for_another_match(user)
    seat.kind, seat.user = SeatKind.HUMAN, user
    seat.save(update_fields=["kind", "user"])
    _commit_events(match, eventlog.load(match), [_seat_taken(seat)])
    live.publish_seated_on_commit(user.pk, match)  # the joiner's feed follows it
    return seat


def room_for_another_match(user: AbstractBaseUser) -> None:
    """Refuses a seat at one more match to a person who already sits at
    MAX_ACTIVE_MATCHES_PER_USER matches waiting or being played (each one can keep a
    worker busy with computer turns). Locks the user's row first, so that two requests
    of theirs at once cannot both take the last place."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    limit = settings.MAX_ACTIVE_MATCHES_PER_USER
    active = Seat.objects.filter(
        user=user, match__status__in=[MatchStatus.WAITING, MatchStatus.ACTIVE]
    ).count()
    if active >= limit:
        raise Conflict(
            "too_many_active_matches",
            f"You already sit at {active} matches that are waiting or being played "
            f"(at most {limit}): finish or leave one first.",
        )


def match_leave(*, match_id: Any, user: AbstractBaseUser, level: str = "") -> Match:
    """Leave a match: a computer player takes over the seat (an event records it). When
    the last person leaves, the match is abandoned: computers never play on for nobody."""
    level = level or DEFAULT_LEVEL
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _callers_seat(match, user)
        seat.kind, seat.user, seat.bot_level, seat.away = SeatKind.COMPUTER, None, level, False
        seat.save(update_fields=["kind", "user", "bot_level", "away"])
        events = [V.seat_left(seat=seat.index, level=level)]
        if not _anyone_seated(match):
            events.append(_abandoned(match))
        _commit_events(match, eventlog.load(match), events)
    return match


def seat_vacate(match: Match, seat: Seat) -> None:
    """Before the start (quick play's queue): the person's seat is open again, and no
    computer takes it; when nobody is left the match is abandoned. In the caller's
    transaction, `match` locked."""
    seat.kind, seat.user, seat.bot_level, seat.away = SeatKind.OPEN, None, "", False
    seat.save(update_fields=["kind", "user", "bot_level", "away"])
    events = [V.seat_vacated(seat=seat.index)]
    if not _anyone_seated(match):
        events.append(_abandoned(match))
    _commit_events(match, eventlog.load(match), events)


def seats_fill(match: Match, level: str) -> int:
    """Computer players of `level` take every open seat of the locked `match` (which then
    starts); how many. In the caller's transaction."""
    events = []
    for seat in match.seats.filter(kind=SeatKind.OPEN).order_by("index"):
        seat.kind, seat.bot_level = SeatKind.COMPUTER, level
        seat.save(update_fields=["kind", "bot_level"])
        events.append(_seat_taken(seat))
    if events:
        _commit_events(match, eventlog.load(match), events)
    return len(events)


def match_abandon(*, match_id: Any) -> bool:
    """End a match at which no person sits (a seat merely away still counts as one):
    log match_abandoned, after which no computer turn is queued for it. False if the
    match is over already or someone still sits at it."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status not in (MatchStatus.WAITING, MatchStatus.ACTIVE):
            return False
        if _anyone_seated(match):
            return False
        _commit_events(match, eventlog.load(match), [_abandoned(match)])
    return True


def _anyone_seated(match: Match) -> bool:
    return match.seats.filter(kind=SeatKind.HUMAN).exists()


def _abandoned(match: Match) -> NewEvent:
    return V.match_abandoned(scores=[match.score_ns, match.score_we])


def seat_time_out(*, match_id: Any) -> bool:
    """Enforce a passed turn deadline: a computer player takes over the person's seat
    (an event records it) until they come back. False if there is nothing to do."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.ACTIVE:
            return False
        if match.turn_deadline is None or match.turn_deadline > timezone.now():
            return False
        folded = eventlog.load(match)
        seat = match.seats.filter(index=folded.state.turn, kind=SeatKind.HUMAN).first()
        if seat is None or seat.away:
            return False
        seat.away, seat.bot_level = True, DEFAULT_LEVEL
        seat.save(update_fields=["away", "bot_level"])
        seconds = match.turn_seconds
        timed_out = V.seat_timed_out(seat=seat.index, level=DEFAULT_LEVEL, seconds=seconds)
        _commit_events(match, folded, [timed_out])
    return True


def seat_return(*, match_id: Any, user: AbstractBaseUser) -> Match:
    """Take your seat back from the computer player that your turn timer put in."""
    with transaction.atomic():
        match = locked_match(match_id)
        seat = _callers_seat(match, user)
        if not seat.away:
            raise Conflict("not_away", "You are in your seat: no computer player plays for you.")
        _commit_events(match, eventlog.load(match), _back_if_away(match, seat.index))
    return match


def _callers_seat(match: Match, user: AbstractBaseUser) -> Seat:
    """The caller's seat at a match still being played (404 if none, as for any match)."""
    seat = match.seats.filter(user=user).first()
    if seat is None:
        raise NotFound()
    if match.status in (MatchStatus.FINISHED, MatchStatus.ABANDONED):
        raise Conflict("match_finished", "The match is over.")
    return seat


def _back_if_away(match: Match, seat_index: int) -> list[NewEvent]:
    # The seat object the match holds (seats_of), so that the view answered after the
    # action shows it back.
    seat = next((s for s in seats_of(match) if s.index == seat_index and s.away), None)
    if seat is None:
        return []
    seat.away, seat.bot_level = False, ""
    seat.save(update_fields=["away", "bot_level"])
    return [V.seat_returned(seat=seat.index)]


# ---------------------------------------------------------------- actions


def action_submit(
    *,
    match_id: Any,
    seat_index: int | None = None,
    action: dict[str, Any],
    expected_seq: int | None = None,
    idempotency_key: str | None = None,
    user: AbstractBaseUser | None = None,
) -> ActionResponse:
    """Apply one seat's action. `user` is the person acting (None for a computer player,
    whose answer is an empty body); their seat is found under the match's row lock
    (`seat_index` need not be given; NotFound if they have none). With an idempotency
    key, a repeated request gets the first response again.

    The match's row, locked, and its seats come in one query; with the folded state
    cached in this process for the seq just read (games.log.eventlog), an action is that
    query, the events' insert, the match's update and the commit. Most of a person's
    actions are decided on this process's copy of the match instead (_submit_on_copy):
    one statement, written only if the match has not moved on."""
    if user is not None and idempotency_key is None:
        answer = _submit_on_copy(match_id, seat_index, action, expected_seq, user)
        if answer is not None:
            return answer
    with transaction.atomic():
        match = locked_match(match_id, with_seats=True)
        if user is not None:
            seat = seat_of_user(match, user)
            if seat is None or (seat_index is not None and seat.index != seat_index):
                raise NotFound()
            seat_index = seat.index
        if idempotency_key is not None:
            fingerprint = request_fingerprint("match_action", match.pk, action, expected_seq)
            held = idempotency.hold(user, idempotency_key)
            if held is None:  # in use at another match now
                raise Conflict("idempotency_key_reused", "Retry with the same key.")
            stored = idempotency.stored(user, idempotency_key)
            if stored is not None:
                if held == idempotency.WAITED and stored.match_id != match.pk:
                    # kept just now by the transaction waited for, at another match
                    raise Conflict("idempotency_key_reused", "Retry with the same key.")
                if stored.match_id != match.pk or not stored.same_request(fingerprint):
                    raise Unprocessable(
                        "idempotency_key_mismatch",
                        "This Idempotency-Key was already used for a different request: "
                        "use a new key for a new request.",
                    )
                body = idempotency.answer(match, seat_index, stored)
                return ActionResponse(200, body, replayed=True)
        if match.status in (MatchStatus.FINISHED, MatchStatus.ABANDONED):
            raise Conflict("match_finished", "The match is over.", seq=match.seq)
        if match.status != MatchStatus.ACTIVE:
            raise Conflict("match_not_started", "The match starts when every seat is taken.")
        if expected_seq is not None and expected_seq != match.seq:
            raise Conflict(
                "stale_sequence",
                f"The match has moved on: its newest event is {match.seq}, not {expected_seq}.",
                seq=match.seq,
            )
        folded = eventlog.load(match)
        _apply(match, folded, seat_index, action, coming_back=user is not None)
        # A computer player's move answers nobody: skip building a view for it.
        body = player_view_get(match=match, seat=seat_index, folded=folded) if user else {}
        if idempotency_key is not None:
            idempotency.store(user, idempotency_key, match, fingerprint, match.turn_deadline)
    return ActionResponse(200, body)


def _submit_on_copy(
    match_id: Any,
    seat_index: int | None,
    action: dict[str, Any],
    expected_seq: int | None,
    user: AbstractBaseUser,
) -> ActionResponse | None:
    """A person's action decided on the copy of the match this process holds (its row and
    seats as last read or written here, selectors.cached_match_with_seats, and the folded
    state at its seq) and written in one statement that appends only if the match is still
    at that seq (eventlog.append(at_seq=...)): no row lock, no transaction. The copy is
    right for its seq (every change to a match's row or seats appends an event under the
    row lock), so a write at that seq is what the locked path would have written.

    None, having written nothing, whenever the copy cannot answer alone: no copy, another
    seq expected, an answer that is an error (the locked path decides every error from
    the database), a seat away (it comes back first), or the end of the match (its records
    are written in a transaction of several statements: projections.deferrable); and when
    the match had moved on. The locked path then runs as if this had not. A bid that makes
    trump, or a hand's end with the next deal, writes its hands' rows in the same
    statement."""
    if connection.vendor != "postgresql":
        return None
    match = selectors.cached_match_with_seats(match_id)
    if match is None or match.status != MatchStatus.ACTIVE:
        return None
    seat = seat_of_user(match, user)
    if seat is None or seat.away or (seat_index is not None and seat.index != seat_index):
        return None
    if expected_seq is not None and expected_seq != match.seq:
        return None
    folded = eventlog.load(match)
    if not _written_on_copy(match, folded, seat.index, action):
        return None
    return ActionResponse(200, player_view_get(match=match, seat=seat.index, folded=folded))


def _written_on_copy(
    match: Match, folded: eventlog.Folded, seat_index: int, action: dict[str, Any]
) -> bool:
    """The seat's action applied to the copy `match` (from cached_match_with_seats) and its
    events written if the match is still at the copy's seq. False, having written nothing,
    when the copy cannot answer alone: the action is refused (the locked path decides every
    error from the database), its events write more than the match's row, or the match has
    moved on. `folded.state` is changed either way."""
    try:
        events = _action_events(folded.state, seat_index, action)
    except E.RuleError:
        return False
    if not projections.deferrable(events):
        return False
    try:
        _commit_events(match, folded, events, at_seq=match.seq)
    except eventlog.Moved:
        selectors.forget_row(match.pk)
        return False
    return True


def _apply(
    match: Match,
    folded: eventlog.Folded,
    seat_index: int,
    action: dict[str, Any],
    coming_back: bool,
) -> None:
    """Apply the seat's action (a dict, as posted) to the locked match and commit its events
    (`coming_back`: a person acting at a seat played for them comes back first)."""
    try:
        events = _action_events(folded.state, seat_index, action)
    except E.RuleError as exc:
        raise from_rule_error(exc, seq=match.seq) from exc
    back = _back_if_away(match, seat_index) if coming_back and match.turn_seconds else []
    # Coming back changes the seat: else the seats are as read under the lock, and the
    # row as written with them is this process's copy for the next action.
    _commit_events(match, folded, back + events, keep_copy=not back)


# What computer_move did.
MOVED, NOT_MOVED, NOBODY_SEATED, NOT_CHOSEN = "moved", "not moved", "nobody seated", "not chosen"


def computer_move(
    *,
    match_id: Any,
    expected_seq: int,
    choose: Callable[[Seat, E.MatchState], dict[str, Any] | None],
) -> str:
    """A computer seat's move chosen at once, for players that choose at once (Medium in a
    tenth of a millisecond). `choose(seat, state)` answers the seat's action, or None for a
    player that searches (Hard: seconds) and must not hold the lock: NOT_CHOSEN, nothing
    done. NOT_MOVED: the match is not at `expected_seq` (a stale or repeated task), or not
    active, or no computer is to act. NOBODY_SEATED: no person sits at the match any more
    (the caller abandons it).

    Decided first on this process's copy of the match, as a person's action is
    (_submit_on_copy): in the API process (eager) the copy is the one the move before
    wrote, and the move is one statement. Otherwise, and whenever the copy cannot answer
    alone, under the match's row lock: one read of the match, the lock."""
    if not is_match_id(match_id):
        return NOT_MOVED
    chosen, chosen_for = None, None
    match = None
    if connection.vendor == "postgresql":  # the embedded default keeps no copies
        match = selectors.cached_match_with_seats(match_id)
    if _at(match, expected_seq):
        to_act = _computer_to_act(match)
        if not isinstance(to_act, str):  # else the locked path says so, from the database
            folded, seat = to_act
            chosen, chosen_for = choose(seat, folded.state), seat.index
            if chosen is None:
                return NOT_CHOSEN
            if _written_on_copy(match, folded, seat.index, chosen):
                return MOVED
    with transaction.atomic():
        match = match_with_seats(match_id, lock=True)
        if not _at(match, expected_seq):
            return NOT_MOVED
        to_act = _computer_to_act(match)
        if isinstance(to_act, str):
            return to_act
        folded, seat = to_act
        # At expected_seq, as the copy was: the same state, so the copy's choice stands
        # (chosen once: a level drawing from its random generator would draw again).
        if chosen is not None and chosen_for == seat.index:
            action = chosen
        else:
            action = choose(seat, folded.state)
        if action is None:
            return NOT_CHOSEN
        _apply(match, folded, seat.index, action, coming_back=False)
    return MOVED


def _at(match: Match | None, expected_seq: int) -> bool:
    return match is not None and match.seq == expected_seq and match.status == MatchStatus.ACTIVE


def _computer_to_act(match: Match) -> tuple[eventlog.Folded, Seat] | str:
    """The match's folded state and the computer seat to act, or why there is none:
    NOBODY_SEATED (no person left at the match) or NOT_MOVED (a person is to act)."""
    seats = seats_of(match)
    if not any(s.kind == SeatKind.HUMAN for s in seats):
        return NOBODY_SEATED
    folded = eventlog.load(match)
    seat = next((s for s in seats if s.index == folded.state.turn), None)
    if seat is None or not plays_for_computer(seat):
        return NOT_MOVED
    return folded, seat


# ---------------------------------------------------------------- idempotency keys


def request_fingerprint(endpoint: str, match_id: Any, *parts: Any) -> str:
    """sha256 of a request as the service understood it (its endpoint, match and input,
    as canonical JSON), stored beside an idempotent response."""
    text = json.dumps([endpoint, str(match_id), *parts], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def locked_match(match_id: Any, with_seats: bool = False) -> Match:
    match = None
    if is_match_id(match_id) and with_seats:
        match = match_with_seats(match_id, lock=True)
    elif is_match_id(match_id):
        match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise NotFound()
    return match


def _commit_events(
    match: Match,
    folded: eventlog.Folded,
    events: list[NewEvent],
    at_seq: int | None = None,
    keep_copy: bool = False,
) -> None:
    """Append `events` (and what follows from them: the start of the match, the next
    deal, the reveal of a finished hand's deck), project, and schedule what comes next.
    `at_seq`: the match is not locked; write only if it is still at that seq, else raise
    eventlog.Moved (for events projections.deferrable allows: all in one statement).
    `keep_copy`: the match was read under its row lock (match_with_seats) and nothing in
    this transaction changed its seats, so once committed, the row as written and the
    seats as read are the match at its new seq: this process's copy of it."""
    state = folded.state
    events = list(events)
    abandoning = any(e.type == V.MATCH_ABANDONED for e in events)
    if match.status == MatchStatus.WAITING and not abandoning and _all_seats_taken(match):
        events.append(V.match_started())
    hand_over = any(e.type in V.HAND_OVER for e in events)
    if hand_over:
        events.append(_reveal(folded))
    starting = any(e.type == V.MATCH_STARTED for e in events)
    if (starting or hand_over) and state.phase == E.DEAL:
        events.append(_deal(state))
        folded.deal = eventlog.newest_deal(events[-1].payload)
    projections.before_append(events)
    previous_deadline = match.turn_deadline

    def settle(rows: list[Any], state_after: E.MatchState | None = None) -> list[Any]:
        """What the events make of the match: its projections (the hands' rows written, or
        with `state_after` returned to write) and whose turn it is."""
        hands = projections.project(match, rows, state=state_after)
        # Only an active match has a seat to act (an abandoned one never queues a turn).
        to_act = seat_to_act(match, state) if match.status == MatchStatus.ACTIVE else None
        match.awaiting_computer = plays_for_computer(to_act)
        match.turn_seat = to_act.index if to_act is not None else None
        match.turn_deadline = timers.deadline(match, to_act, events)
        return hands

    def settled_statements(rows: list[Any], gate: str | None) -> list[tuple[str, list[Any]]]:
        hands = settle(rows, state)
        return [_match_update(match), *projections.hand_statements(match, hands, gate)]

    deferrable = projections.deferrable(events)
    if at_seq is not None and not deferrable:
        raise ValueError("events written at_seq must be deferrable (_written_on_copy)")
    if not deferrable or connection.vendor != "postgresql":
        # A finishing match's records read its whole log (records.match_finished), these
        # events included: they are written first, then the match's row.
        rows = eventlog.append(match, events)
        settle(rows)
        _save_match(match)
    else:
        # The match's row and its hands' are written by the events' INSERT statement: one
        # round trip. On a copy, only over the row the copy was made of (its seq and its
        # updated_at: another row at that seq, after a failover that lost events, is not it).
        copied_at = match.updated_at if at_seq is not None else None
        rows = eventlog.append(
            match, events, along=settled_statements, at_seq=at_seq, at_updated_at=copied_at
        )
    eventlog.remember_on_commit(match, folded, rows)
    if at_seq is not None or (keep_copy and selectors.copied(match)):
        transaction.on_commit(lambda: selectors.remember_written(match))
    else:  # seats changed here, or not read with the row
        transaction.on_commit(lambda: selectors.forget_row(match.pk))
    live.publish_on_commit(match)
    if hand_over and events[-1].type == V.HAND_DEALT:
        _compact_on_commit(match.pk)  # the hand over leaves its rows for a chunk
    if any(e.type == V.MATCH_FINISHED for e in events):
        reviews.review_request_on_commit(match)  # by task name: games never imports bots
    if match.awaiting_computer:
        schedule_computer_turn(match)
    elif match.turn_deadline is not None and match.turn_deadline != previous_deadline:
        timers.schedule_timeout(match)


def _compact_on_commit(match_id: Any) -> None:
    """Ask, once this transaction (which dealt a new hand after one ended) commits, for the
    match's hands over to move into a chunk (games.log.archive.compact_match): the task
    games.tasks.compact_log, on a worker or, in in-process mode, in a thread of this
    process."""
    key = str(match_id)
    transaction.on_commit(lambda: later.run_after(later.COMPACT_LOG, key, seconds=0))


def _save_match(match: Match) -> None:
    """UPDATE the match's row with what a commit of events changed, in plain SQL (Model.save
    composing its query cost more CPU than the engine's work for an action)."""
    if connection.vendor != "postgresql":  # the embedded default (SQLite)
        match.save(update_fields=COMMITTED_FIELDS)
        return
    with connection.cursor() as cursor:
        cursor.execute(*_match_update(match))


def _match_update(match: Match) -> tuple[str, list[Any]]:
    """The UPDATE of the match's row (PostgreSQL), its updated_at now."""
    match.updated_at = timezone.now()
    return _UPDATE_MATCH, [getattr(match, f) for f in COMMITTED_FIELDS] + [match.pk]


_UPDATE_MATCH = "UPDATE {table} SET {columns} WHERE {pk} = %s".format(
    table=Match._meta.db_table,
    columns=", ".join(f"{Match._meta.get_field(f).column} = %s" for f in COMMITTED_FIELDS),
    pk=Match._meta.pk.column,
)


def _all_seats_taken(match: Match) -> bool:
    return not match.seats.filter(kind=SeatKind.OPEN).exists()


def _deal(state: E.MatchState) -> NewEvent:
    deck = E.shuffled_deck(state.options.joker)
    cards = fairness.deck_text(deck)
    salt = fairness.new_salt()
    state.deal(deck)
    return V.hand_dealt(
        hand=state.hand_number,
        dealer=state.dealer,
        upcard=E.card_str(state.upcard),
        commitment=fairness.commitment(cards, salt),
        deck=cards.split(),
        salt=salt,
        # The joker turned up for the dealer to name: its hand_dealt shows the dealer no
        # cards, and the naming brings them (_action_event).
        dealer_names_suit=state.phase == E.NAME_SUIT,
    )


def _action_events(state: E.MatchState, seat: int, action: dict[str, Any]) -> list[NewEvent]:
    """The seat's action (a dict, as posted) applied to `state`: the action's event and its
    outcomes. Raises the engine's RuleError."""
    parsed = E.action_from_dict(action)
    outcomes = state.apply_action(seat, parsed)
    return [_action_event(state, seat, parsed), *V.outcomes(outcomes)]


def _action_event(state: E.MatchState, seat: int, chosen: E.Action) -> NewEvent:
    """The action as logged (`state`: after it). Naming a joker upcard's suit is when the
    dealer first looks at their hand: its event carries the dealer's cards, which only the
    dealer sees (games.log.events.bid_seen)."""
    if chosen.type == E.NAME_SUIT:
        return V.action(seat, chosen, cards=[E.card_str(c) for c in state.hand_of(seat)])
    return V.action(seat, chosen)


def _reveal(folded: eventlog.Folded) -> NewEvent:
    """The deck of the hand just over, as dealt: the folded state's newest deal (no read of
    the log, so that a hand's end can be written on the process's copy of the match)."""
    payload = folded.deal
    return V.hand_revealed(
        hand=payload["hand"],
        deck=payload["deck"],
        salt=payload["salt"],
        commitment=payload["commitment"],
    )
