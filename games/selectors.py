"""Reads: each seat's view, the log as a seat may see it, replays.

Every outbound path goes through here so that no seat ever sees another's
hand, the kitty, or a deck before its hand is over.
"""

import json
import uuid
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet

from games import engine as E
from games import eventlog, events, fairness, hands, presence
from games.deal_view import seat_cards
from games.errors import NotFound
from games.models import Event, Match, MatchStatus, Seat


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
    sql = (
        f"SELECT {columns}, {seats_json} FROM {quote(Match._meta.db_table)} m"
        f" WHERE m.{quote(Match._meta.pk.column)} = %s"
    )
    return sql, fields


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
    if lock:
        sql += " FOR UPDATE OF m"
    with connection.cursor() as cursor:
        cursor.execute(sql, [uuid.UUID(str(match_id))])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for field, value in zip(fields, row, strict=False):
        for convert in field.get_db_converters(connection):
            value = convert(value, None, connection)
        values.append(value)
    match = Match.from_db(connection.alias, [f.attname for f in fields], values)
    seat_rows = row[-1]
    _attach_seats(match, json.loads(seat_rows) if isinstance(seat_rows, str) else seat_rows or [])
    return match


def _attach_seats(match: Match, rows: list[dict[str, Any]]) -> None:
    """Seat objects (with their users) from the rows read beside the match, put where
    Django's prefetch would put them, so `match.seats.all()` makes no query."""
    User = get_user_model()
    seats = []
    for row in rows:
        seat = Seat(
            id=row["id"],
            match_id=match.pk,
            index=row["index"],
            kind=row["kind"],
            user_id=row["user_id"],
            bot_level=row["bot_level"],
            away=row["away"],
        )
        seat._state.adding, seat._state.db = False, match._state.db
        Seat.match.field.set_cached_value(seat, match)
        if row["user_id"] is not None:
            user = User(pk=row["user_id"], **{User.USERNAME_FIELD: row["username"]})
            user._state.adding, user._state.db = False, match._state.db
            Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
    # As prefetch_related leaves it: a queryset holding the rows (so .filter() still
    # works, as a new query).
    prefetched = match.seats.get_queryset()
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    match._prefetched_objects_cache = {"seats": prefetched}


def seats_of(match: Match) -> list[Seat]:
    """The match's seats in order, with their users: the ones read with the match
    (match_with_seats), else one query."""
    prefetched = getattr(match, "_prefetched_objects_cache", {}).get("seats")
    if prefetched is not None:
        return sorted(prefetched, key=lambda seat: seat.index)
    return list(match.seats.all().select_related("user").order_by("index"))


def seat_of_user(match: Match, user: AbstractBaseUser) -> Seat | None:
    return next((seat for seat in seats_of(match) if seat.user_id == user.pk), None)


def is_match_id(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def matches_for_user(*, user: AbstractBaseUser, status: str | None = None) -> QuerySet[Match]:
    qs = Match.objects.filter(seats__user=user).prefetch_related("seats__user")
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-created_at")


def seats_summary(match: Match, viewer: int | None = None) -> list[dict[str, Any]]:
    present = presence.present_seats(match.pk)
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


def match_summary(match: Match, viewer: int | None = None) -> dict[str, Any]:
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
        "seats": seats_summary(match, viewer),
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def player_view_get(
    *, match: Match, seat: int, folded: eventlog.Folded | None = None
) -> dict[str, Any]:
    """The match as the player at `seat` sees it: summary, the engine's view with the
    commitment to the current deal, and the newest sequence number."""
    if folded is None:
        folded = eventlog.load(match)
    view = E.player_view(folded.state, seat)
    if view["hand"] is not None:
        view["hand"]["commitment"] = folded.commitment
    return {**match_summary(match, seat), "you": seat, "view": view}


# ---------------------------------------------------------------- the log, per seat


def event_for_seat(event: Event, seat: int | None, finished: bool) -> dict[str, Any]:
    """One event as `seat` may see it (None: a spectator), by games.events.redact. Once
    the match is finished, everything is shown (not once it is abandoned: the hand being
    played stays secret)."""
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "payload": events.redact(event, seat, finished),
        "created_at": event.created_at.isoformat(),
    }


def events_for_seat(*, match: Match, seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    finished = match.status == MatchStatus.FINISHED
    logged = Event.objects.filter(match=match, seq__gt=after).order_by("seq")
    return [event_for_seat(e, seat, finished) for e in logged]


def replay_get(*, match: Match) -> dict[str, Any]:
    """A finished match hand by hand: each deal (deck, salt, commitment, whether they
    agree, every seat's cards) and the events of the hand in order."""
    log = hands.log_by_hand(match)
    return {
        **match_summary(match),
        "setup": [event_for_seat(e, None, True) for e in log.setup],
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
        "events": [event_for_seat(e, None, True) for e in hand.events],
    }
