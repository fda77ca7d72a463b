"""Reads: each seat's view, the log as a seat may see it, replays.

Every outbound path goes through here so that no seat ever sees another's
hand, the kitty, or a deck before its hand is over.
"""

import json
import threading
import uuid
from collections import OrderedDict
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, connections
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Mod
from django.utils import timezone

from games import engine as E
from games.live import presence
from games.log import eventlog, events, fairness, hands, replica, server
from games.log.deal_view import seat_cards
from games.models import (
    COMMITTED_FIELDS,
    Match,
    MatchStatus,
    RematchOffer,
    RematchStatus,
    Seat,
    Visibility,
)
from games.play.errors import NotFound


def match_for_user(*, match_id: Any, user: AbstractBaseUser) -> tuple[Match, int]:
    """The match (its seats loaded with it) and the caller's seat; NotFound if there is
    no such match or no seat for the caller at it (the two are indistinguishable from
    outside)."""
    match = match_with_seats(match_id) if is_match_id(match_id) else None
    seat = None if match is None else seat_of_user(match, user)
    if seat is None:
        raise NotFound()
    return match, seat.index


# The match's seats, each with its user's id and name, as one JSON array beside the
# match's row: the match and its table in one round trip (and under the row lock, for
# an action: the seats are then the committed ones, whichever process changed them).
# Plain SQL rather than the ORM: this runs on every action and view, and composing the
# query through the ORM cost more CPU than the rest of the action's own work.
_SEATS_JSON = """(
    SELECT jsonb_agg(jsonb_build_object(
        'id', s.id, 'index', s.index, 'kind', s.kind, 'user_id', s.user_id,
        'username', u.{username}, 'bot_level', s.bot_level, 'away', s.away
    ) ORDER BY s.index)
    FROM {seats} s LEFT JOIN {users} u ON u.{user_pk} = s.{seat_user}
    WHERE s.{seat_match} = m.{match_pk}
)"""


@lru_cache(maxsize=1)
def _match_with_seats_sql() -> tuple[str, list[Any]]:
    """The read of a match with its seats, and the match's fields in its columns' order."""
    head, tail, fields = _match_with_seats_parts()
    return f"{head}{tail}", fields


@lru_cache(maxsize=1)
def _locked_sql() -> str:
    """The same read under the row lock, with one more column: the match's seq as the
    statement's snapshot saw it, which differs from the locked row's when the lock waited
    for a transaction that committed a change to the match."""
    head, tail, _fields = _match_with_seats_parts()
    quote = connection.ops.quote_name
    table, pk = quote(Match._meta.db_table), quote(Match._meta.pk.column)
    seq = quote(Match._meta.get_field("seq").column)
    seen = f"(SELECT snap.{seq} FROM {table} snap WHERE snap.{pk} = m.{pk})"
    return f"{head}, {seen}{tail} FOR UPDATE OF m"


@lru_cache(maxsize=1)
def _match_with_seats_parts() -> tuple[str, str, list[Any]]:
    """SELECT with the match's columns and its seats' JSON; FROM and WHERE; the fields."""
    User = get_user_model()
    quote = connection.ops.quote_name
    fields = list(Match._meta.concrete_fields)
    seats_json = _SEATS_JSON.format(
        username=quote(User._meta.get_field(User.USERNAME_FIELD).column),
        users=quote(User._meta.db_table),
        user_pk=quote(User._meta.pk.column),
        seats=quote(Seat._meta.db_table),
        seat_user=quote(Seat._meta.get_field("user").column),
        seat_match=quote(Seat._meta.get_field("match").column),
        match_pk=quote(Match._meta.pk.column),
    )
    columns = ", ".join(f"m.{quote(f.column)}" for f in fields)
    head = f"SELECT {columns}, {seats_json}"
    tail = f" FROM {quote(Match._meta.db_table)} m WHERE m.{quote(Match._meta.pk.column)} = %s"
    return head, tail, fields


@lru_cache(maxsize=4)
def _converters(alias: str) -> list[tuple[int, list[Any]]]:
    """The match's columns that the database's values go through converters for (the
    JSON options), each with its converters, looked up once per connection alias."""
    _sql, fields = _match_with_seats_sql()
    found = [(i, field.get_db_converters(connections[alias])) for i, field in enumerate(fields)]
    return [(i, converters) for i, converters in found if converters]


def match_with_seats(match_id: Any, *, lock: bool = False) -> Match | None:
    """The match with its seats (and their users' names) read in the same query;
    `lock`: SELECT ... FOR UPDATE of the match's row (not the seats'). `match.seats.all()`
    then answers from what was read (see `seats_of`). `match_id` is a match id
    (is_match_id)."""
    if connection.vendor != "postgresql":  # the embedded default (SQLite): the ORM's way
        matches = Match.objects.select_for_update() if lock else Match.objects
        match = matches.filter(pk=match_id).prefetch_related("seats__user").first()
        return match
    sql, fields = _match_with_seats_sql()
    key = uuid.UUID(str(match_id))
    with connection.cursor() as cursor:
        cursor.execute(_locked_sql() if lock else sql, [key])
        row = cursor.fetchone()
        if row is not None and lock:
            *row, seen_seq = row
            if seen_seq != row[_field_index("seq")]:
                # The lock waited for another transaction that changed the match: the row
                # is its newest version, but the seats come from the statement's snapshot,
                # taken before (PostgreSQL re-reads only the locked row). Read them again,
                # now that the row is ours (a new statement sees what was committed).
                cursor.execute(sql, [key])
                row = cursor.fetchone()
    if row is None:
        return None
    values, seat_rows = list(row[: len(fields)]), row[-1]
    seat_rows = json.loads(seat_rows) if isinstance(seat_rows, str) else seat_rows or []
    if not lock and not connection.in_atomic_block:
        # Read in autocommit: one statement, one snapshot of what was committed, so the
        # row and its seats agree (a locked read may see a row newer than its seats).
        _remember_row(values, seat_rows)
    match = _built_match(values, seat_rows)
    if lock:
        # The row and seats as of the lock (read again above if the lock waited): with the
        # row as this transaction writes it, the copy once it commits (remember_written),
        # if the caller changes no seat.
        match._copied_from = (values, seat_rows)
    return match


def _built_match(values: list[Any], seat_rows: list[dict[str, Any]]) -> Match:
    """A Match with its seats from the values of its columns as read (before converters)."""
    values = list(values)
    for i, converters in _converters(connection.alias):  # the fields that have any
        for convert in converters:
            values[i] = convert(values[i], None, connection)
    _sql, fields = _match_with_seats_sql()
    match = Match.from_db(connection.alias, [f.attname for f in fields], values)
    _attach_seats(match, seat_rows)
    return match


# ---------------------------------------------------------------- the process's copies

# The newest committed row and seats of a match this process read or wrote, for an
# action decided without the row lock (games.play.services: the cached path). A copy holds for
# its seq only: every change to a match's row or seats is made under its row lock with at
# least one event appended, in the same transaction, so (match, seq) names one row and
# one set of seats; the cached path writes only if the match is still at that seq. That
# holds on one server: when the process's connections reach another (a failover, which
# may have lost events), every copy is dropped, and none read or written on the server
# before is kept after (games.log.server).
_ROWS_SIZE = 512
_rows: "OrderedDict[uuid.UUID, tuple[list[Any], list[dict[str, Any]]]]" = OrderedDict()
_rows_lock = threading.Lock()  # a process's threads (gthread) share the copies


def _drop_rows() -> None:
    with _rows_lock:
        _rows.clear()


server.on_change(_drop_rows)


def _remember_row(values: list[Any], seat_rows: list[dict[str, Any]]) -> None:
    key, seq = values[_field_index("id")], values[_field_index("seq")]
    with _rows_lock:
        if server.of(connection) != server.current():
            return  # read or written on the server before a change: dropped with the rest
        held = _rows.get(key)
        if held is not None and held[0][_field_index("seq")] > seq:
            return  # an older read, answered after a newer one was kept
        _rows[key] = (values, seat_rows)
        _rows.move_to_end(key)
        while len(_rows) > _ROWS_SIZE:
            _rows.popitem(last=False)


def cached_match_with_seats(match_id: Any) -> Match | None:
    """The match with its seats as this process last read or wrote them (a new object
    each time), or None; its seq may be behind the database's."""
    # Connected first (no query; nothing to do when a request's token was read): a new
    # connection may find another server, which drops the copies (games.log.server).
    connection.ensure_connection()
    held = _rows.get(_uuid_or_none(match_id))
    if held is None:
        return None
    match = _built_match(*held)
    match._copied_from = held  # for remember_written
    return match


def copied(match: Match) -> bool:
    """Whether `match` came from a copy (cached_match_with_seats) or a locked read
    (match_with_seats(lock=True)): what remember_written takes its other columns from."""
    return getattr(match, "_copied_from", None) is not None


def remember_written(match: Match) -> None:
    """After a write of events to a match from cached_match_with_seats, at the seq its copy
    was at, or from a locked read, and leaving its seats as they were: the match's row as
    written, for the next action here. Only the columns a commit of events changes are
    taken from `match` (none of them has a converter: asserted in the tests)."""
    held = match._copied_from
    values = list(held[0])
    for name in COMMITTED_FIELDS:
        values[_field_index(name)] = getattr(match, Match._meta.get_field(name).attname)
    _remember_row(values, held[1])


def forget_row(match_id: Any) -> None:
    with _rows_lock:
        _rows.pop(match_id, None)


@lru_cache(maxsize=32)
def _field_index(name: str) -> int:
    _sql, fields = _match_with_seats_sql()
    return next(i for i, f in enumerate(fields) if f.name == name)


def _uuid_or_none(value: Any) -> uuid.UUID | None:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _attach_seats(match: Match, rows: list[dict[str, Any]]) -> None:
    """Seat objects (with their users) from the rows read beside the match, put where
    Django's prefetch would put them, so `match.seats.all()` makes no query.

    Nothing here points back at the match (a seat's `.match` is read if ever asked
    for), so the match and its seats form no reference cycle and are freed as soon as a
    request lets go of them. Django's own prefetch makes a cycle (the seats' queryset
    keeps the match for its filter, each seat keeps it as its related object), which
    only the garbage collector frees: two matches and eight seats, about 80 objects, a
    move (a GET and a POST), and the collections they set off (issue 15)."""
    User = get_user_model()
    db, user_fields = match._state.db, [User._meta.pk.attname, User.USERNAME_FIELD]
    seats = []
    for row in rows:
        # Model.from_db: every field given in order takes Model.__init__'s quick path; the
        # user's other fields are deferred (read if ever asked for, never made up).
        values = [row[k] for k in ("id", "index", "kind", "user_id", "bot_level", "away")]
        seat = Seat.from_db(db, None, [values[0], match.pk, *values[1:]])
        if row["user_id"] is not None:
            user = User.from_db(db, user_fields, [row["user_id"], row["username"]])
            Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
    match._prefetched_objects_cache = _SeatsRead(db, match.pk, seats)


class _SeatsRead(dict):
    """A match's `_prefetched_objects_cache` when its seats were read with it: "seats" is
    there, as prefetch_related leaves it, and Django's `match.seats` finds a queryset
    holding them (so `.filter()` still works, as a new query), filtered by the match's
    key rather than by the match. The queryset is made the first time it is asked for:
    a filtered queryset costs about 40 µs to make, twice a move, and the view and the
    action read the seats themselves (`seats_of`). Once Django removes or replaces what
    is here (refresh_from_db, a prefetch), `seats` is None and the dict is Django's."""

    _NOT_YET = object()

    def __init__(self, db: str, match_pk: Any, seats: list[Seat]) -> None:
        super().__init__(seats=self._NOT_YET)
        self.seats: list[Seat] | None = seats
        self._db, self._match_pk = db, match_pk

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        if value is self._NOT_YET:
            value = Seat.objects.using(self._db).filter(match_id=self._match_pk)
            value._result_cache, value._prefetch_done = self.seats, True
            super().__setitem__(key, value)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: str, value: Any) -> None:
        self.seats = None
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.seats = None
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.seats = None
        return super().pop(key, *default)


def seats_of(match: Match) -> list[Seat]:
    """The match's seats in order, with their users: the ones read with the match
    (match_with_seats), else one query."""
    prefetched = getattr(match, "_prefetched_objects_cache", {})
    if isinstance(prefetched, _SeatsRead) and prefetched.seats is not None:
        return sorted(prefetched.seats, key=lambda seat: seat.index)
    if prefetched.get("seats") is not None:
        return sorted(prefetched["seats"], key=lambda seat: seat.index)
    return list(match.seats.all().select_related("user").order_by("index"))


def seat_of_user(match: Match, user: AbstractBaseUser) -> Seat | None:
    return next((seat for seat in seats_of(match) if seat.user_id == user.pk), None)


def match_for_viewer(*, match_id: Any, user: AbstractBaseUser) -> tuple[Match, int | None]:
    """The match and the caller's seat, or no seat (events.SPECTATOR) at a public match;
    NotFound for a private match the caller has no seat at, as for no match at all."""
    # One query: the match with its seats (which the view shows anyway), the caller's
    # seat found among them.
    match = match_with_seats(match_id) if is_match_id(match_id) else None
    seat = None if match is None else seat_of_user(match, user)
    if seat is not None:
        return match, seat.index
    if match is None or match.visibility != Visibility.PUBLIC:
        raise NotFound()
    return match, events.SPECTATOR


def public_matches() -> QuerySet[Match]:
    """Public matches being played now, the most recently moved first (the watch page)."""
    return (
        Match.objects.filter(visibility=Visibility.PUBLIC, status=MatchStatus.ACTIVE)
        .prefetch_related("seats__user")
        .order_by("-updated_at")
    )


def is_match_id(value: Any) -> bool:
    return _uuid_or_none(value) is not None


def matches_for_user(*, user: AbstractBaseUser, status: str | None = None) -> QuerySet[Match]:
    qs = Match.objects.filter(seats__user=user).prefetch_related("seats__user")
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-created_at")


def my_matches(
    *,
    user: AbstractBaseUser,
    status: str | None = None,
    my_turn: bool | None = None,
    opponent: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
) -> QuerySet[Match]:
    """The matches `user` sits at, each with `my_seat` and `is_my_turn` (from the summary's
    turn_seat: no log is read), newest first; the seats (and their users) prefetched."""
    mine = Seat.objects.filter(match=OuterRef("pk"), user=user)
    qs = (
        Match.objects.filter(seats__user=user)
        .annotate(my_seat=Subquery(mine.values("index")[:1]))
        .annotate(
            is_my_turn=ExpressionWrapper(
                Q(status=MatchStatus.ACTIVE, awaiting_computer=False, turn_seat=F("my_seat")),
                output_field=BooleanField(),
            )
        )
        .prefetch_related("seats__user")
    )
    if status:
        qs = qs.filter(status=status)
    if my_turn is not None:
        qs = qs.filter(is_my_turn=my_turn)
    if opponent:
        User = get_user_model()
        name = User.normalize_username(opponent)
        other_team = Seat.objects.filter(match=OuterRef("pk"), user__username__iexact=name).exclude(
            index__in=[OuterRef("my_seat"), Mod(OuterRef("my_seat") + 2, 4)]
        )
        qs = qs.filter(Exists(other_team))
    if created_after:
        qs = qs.filter(created_at__gte=created_after)
    if created_before:
        qs = qs.filter(created_at__lt=created_before)
    return qs.order_by("-created_at", "-id")


def _player(seat: Seat) -> dict[str, Any]:
    return {
        "seat": seat.index,
        "kind": seat.kind,
        "username": seat.user.get_username() if seat.user else None,
        "level": seat.bot_level or None,
        "away": seat.away,
    }


def my_match(match: Match) -> dict[str, Any]:
    """One of my_matches() as GET /me/matches shows it."""
    me = match.my_seat
    seats = {s.index: s for s in match.seats.all()}
    team = me % 2
    scores = [match.score_ns, match.score_we]
    return {
        "id": str(match.id),
        "status": match.status,
        "seq": match.seq,
        "your_seat": me,
        "your_team": team,
        "is_my_turn": bool(match.is_my_turn),
        "turn_seat": match.turn_seat if match.status == MatchStatus.ACTIVE else None,
        "turn_deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
        "partner": _player(seats[(me + 2) % 4]),
        "opponents": [_player(seats[i]) for i in sorted(((me + 1) % 4, (me + 3) % 4))],
        "scores": scores,
        "your_score": scores[team],
        "their_score": scores[1 - team],
        "winner_team": match.winner_team,
        "you_won": None if match.winner_team is None else match.winner_team == team,
        "hands_played": match.hands_played,
        "created_at": match.created_at.isoformat(),
        "updated_at": match.updated_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def seats_summary(match: Match, viewer: int | None, present: set[int]) -> list[dict[str, Any]]:
    return [
        {
            "index": seat.index,
            "name": E.SEAT_NAMES[seat.index],
            "kind": seat.kind,
            "username": seat.user.get_username() if seat.user else None,
            "level": seat.bot_level or None,
            "is_you": seat.index == viewer,
            "away": seat.away,
            "present": seat.index in present,  # a live stream of theirs is open
        }
        for seat in seats_of(match)
    ]


def match_summary(
    match: Match, viewer: int | None = None, at: presence.AtMatch | None = None
) -> dict[str, Any]:
    """The match as every view shows it; `at`: who is at the table, if already read."""
    if at is None:
        at = presence.at_match(match.pk, public=match.visibility == Visibility.PUBLIC)
    return {
        "id": str(match.id),
        "status": match.status,
        "seq": match.seq,
        "options": match.options,
        "hints_allowed": match.hints_allowed,
        "turn_seconds": match.turn_seconds,
        "turn_deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
        "scores": [match.score_ns, match.score_we],
        "winner_team": match.winner_team,
        "hands_played": match.hands_played,
        "seats": seats_summary(match, viewer, at.present),
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "visibility": match.visibility,
        # Spectators' open streams (a private match has none).
        "watching": at.watching,
        "quickplay": _quickplay(match),
        "rematch_of": str(match.rematch_of_id) if match.rematch_of_id else None,
        "rematch": rematch_body(match) if match.status == MatchStatus.FINISHED else None,
    }


def status_of(offer: RematchOffer) -> str:
    """Its status, an offer past its time being expired even before anyone touched it."""
    if offer.status == RematchStatus.PENDING and offer.expires_at <= timezone.now():
        return RematchStatus.EXPIRED
    return offer.status


def rematch_body(match: Match) -> dict[str, Any] | None:
    """The rematch of a finished match as its view shows it: the offer and its answers,
    and the new match once it started."""
    offer = RematchOffer.objects.filter(match=match).select_related("offered_by").first()
    if offer is None:
        return None
    started = Match.objects.filter(rematch_of=match).values_list("pk", flat=True).first()
    return {
        "status": status_of(offer),
        "offered_by": offer.offered_by.get_username(),
        "expires_at": offer.expires_at.isoformat(),
        "answers": [
            {"seat": int(seat), "answer": answer}
            for seat, answer in sorted(offer.answers.items(), key=lambda kv: int(kv[0]))
        ],
        "match": str(started) if started else None,
    }


def _quickplay(match: Match) -> dict[str, Any] | None:
    if not match.quickplay_key:
        return None
    starts = match.quickplay_starts_at
    return {
        "computers": bool(match.quickplay_fill_level),
        "level": match.quickplay_fill_level or None,
        "starts_at": starts.isoformat() if starts and match.status == "waiting" else None,
    }


def player_view_get(
    *,
    match: Match,
    seat: int,
    folded: eventlog.Folded | None = None,
    at: presence.AtMatch | None = None,
) -> dict[str, Any]:
    """The match as the player at `seat` sees it: summary, the engine's view with the
    commitment to the current deal, and the newest sequence number."""
    if folded is None:
        folded = eventlog.load(match)
    view = E.player_view(folded.state, seat)
    if view["hand"] is not None:
        view["hand"]["commitment"] = folded.commitment
    return {**match_summary(match, seat, at), "you": seat, "view": view}


def spectator_view_get(*, match: Match, at: presence.AtMatch | None = None) -> dict[str, Any]:
    """A public match as a spectator sees it: the summary and the engine's spectator view
    (bids, cards played, scores, whose turn; no cards of any hand, nothing of the kitty
    but the upcard, no discard), with the commitment to the current deal."""
    folded = eventlog.load(match)
    view = E.spectator_view(folded.state)
    del view["seat"], view["legal_actions"]  # (None and []: no seat, nothing to do)
    if view["hand"] is not None:
        view["hand"]["commitment"] = folded.commitment
    return {**match_summary(match, None, at), "you": None, "spectator_view": view}


def view_get(
    *, match: Match, seat: int | None, at: presence.AtMatch | None = None
) -> dict[str, Any]:
    """The caller's view: their seat's, or a spectator's (seat None)."""
    if seat is events.SPECTATOR:
        return spectator_view_get(match=match, at=at)
    return player_view_get(match=match, seat=seat, at=at)


# ---------------------------------------------------------------- the log, per seat


def events_for_seat(*, match: Match, seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    finished = match.status == MatchStatus.FINISHED
    logged = eventlog.events_of(match, after=after)
    return [events.event_for_seat(e, seat, finished) for e in logged]


def replay_get(*, match: Match) -> dict[str, Any]:
    """A finished match hand by hand: each deal (deck, salt, commitment, whether they
    agree, every seat's cards) and the events of the hand in order. The log is read from
    the replica (if any) when it holds the whole of it, else from the primary."""
    log = replica.read_caught_up(
        lambda: hands.log_by_hand(match),
        lambda log: bool(log.events) and log.events[-1].seq >= match.seq,
    )
    return {
        **match_summary(match),
        "setup": [events.event_for_seat(e, None, True) for e in log.setup],
        "hands": [_replayed_hand(hand) for hand in log.hands],
    }


def _replayed_hand(hand: hands.HandSlice) -> dict[str, Any]:
    p = hand.dealt
    return {
        "hand": p["hand"],
        "dealer": p["dealer"],
        "deck": p["deck"],
        "salt": p["salt"],
        "commitment": p["commitment"],
        "commitment_verified": fairness.verify(p["deck"], p["salt"], p["commitment"]),
        "hands": [seat_cards(p["deck"], p["dealer"], s) for s in range(4)],
        "kitty": p["deck"][20:],
        "events": [events.event_for_seat(e, None, True) for e in hand.events],
    }
