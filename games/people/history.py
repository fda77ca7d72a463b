"""Reads of the records and ratings (games/log/records.py writes them): a person's history of
finished matches, their statistics, the leaderboard, a match's rating changes.

Who sees what: the record of a registered person (their finished matches, statistics and
rating) is shown to anyone signed in, guests too; a guest's record to that guest alone
(to anyone else the name is `user_not_found`, as a name that does not exist). A match in a
history shows what a result table shows: when, the rules, who sat where, the score, who
won, the hands played and the rating change; never a card, a bid or a hand: those are in
the match's replay, for the people who sat at it.
"""

import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum

from games import engine as E
from games.log import ratings
from games.log.records import change_body
from games.models import MatchRecord, Opposition, Rating, RatingChange, is_guest
from games.people.accounts import normalize_username
from games.play.errors import ServiceError


class UserNotFound(ServiceError):
    status = 404

    def __init__(self) -> None:
        super().__init__("user_not_found", "No such user.")


def user_for_record(*, username: str, viewer: AbstractBaseUser) -> AbstractBaseUser:
    """The user whose record `viewer` asks for; UserNotFound if there is none or it is
    another's guest account (the two answers are the same)."""
    name = normalize_username(username)
    user = None
    if _could_be_a_name(name):  # else no query: PostgreSQL refuses a NUL in text, say
        user = get_user_model().objects.filter(username__iexact=name).first()
    if user is None or (is_guest(user) and user.pk != viewer.pk):
        raise UserNotFound()
    return user


def _could_be_a_name(name: str) -> bool:
    field = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD)
    try:
        field.run_validators(name)
    except DjangoValidationError:
        return False
    return True


def _opponent_or_partner(username: str, *, partner: bool) -> Exists:
    other = MatchRecord.objects.filter(
        match=OuterRef("match"), user__username__iexact=normalize_username(username)
    ).exclude(user=OuterRef("user"))
    return Exists(
        other.filter(team=OuterRef("team")) if partner else other.exclude(team=OuterRef("team"))
    )


def history(
    *,
    user: AbstractBaseUser,
    result: str | None = None,
    opponent: str | None = None,
    partner: str | None = None,
    opposition: str | None = None,
    since: datetime.date | None = None,
    until: datetime.date | None = None,
    rules: dict[str, Any] | None = None,
) -> QuerySet[MatchRecord]:
    """The user's finished matches, newest first, filtered. A date is a UTC day, both
    ends included; `rules` are match options that must be as given."""
    qs = MatchRecord.objects.filter(user=user).select_related("match")
    if result:
        qs = qs.filter(won=result == "won")
    if opponent:
        qs = qs.filter(_opponent_or_partner(opponent, partner=False))
    if partner:
        qs = qs.filter(_opponent_or_partner(partner, partner=True))
    if opposition:
        qs = qs.filter(opposition=opposition)
    if since:
        qs = qs.filter(finished_at__gte=_day_start(since))
    if until and until < datetime.date.max:  # the last day there is: no upper bound
        qs = qs.filter(finished_at__lt=_day_start(until + datetime.timedelta(days=1)))
    for name, value in (rules or {}).items():
        qs = qs.filter(**{f"match__options__{name}": value})
    return qs.order_by("-finished_at", "-id")


def _day_start(day: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)


def history_items(rows: list[MatchRecord]) -> list[dict[str, Any]]:
    changes = {
        (c.match_id, c.user_id): c
        for c in RatingChange.objects.filter(
            match_id__in=[r.match_id for r in rows], user_id__in={r.user_id for r in rows}
        )
    }
    return [_item(r, changes.get((r.match_id, r.user_id))) for r in rows]


def _item(row: MatchRecord, change: RatingChange | None) -> dict[str, Any]:
    return {
        "match": str(row.match_id),
        "finished_at": row.finished_at.isoformat(),
        "options": row.match.options,
        "seat": row.seat,
        "team": row.team,
        "result": "won" if row.won else "lost",
        "scores": [row.points_for, row.points_against],
        "hands": row.hands,
        "opposition": row.opposition,
        "left": row.left,
        "players": [
            {
                "seat": p["seat"],
                "name": E.SEAT_NAMES[p["seat"]],
                "kind": p["kind"],
                "username": p["username"],
                "level": p["level"],
                "left": p["left"],
            }
            for p in row.players
        ],
        "rating": change_body(change),
    }


# ---------------------------------------------------------------- statistics

GROUPS = ("all", *Opposition.values)


def stats(*, user: AbstractBaseUser) -> dict[str, Any]:
    """The user's figures over their finished matches: all of them, and by opposition
    (people, each computer level, mixed)."""
    totals = {
        row["opposition"]: row
        for row in MatchRecord.objects.filter(user=user)
        .values("opposition")
        .annotate(
            matches=Count("id"),
            wins=Count("id", filter=Q(won=True)),
            hands=Sum("hands"),
            points=Sum("points_for"),
            made_trump=Sum("made_trump"),
            euchred=Sum("euchred"),
            alone_tried=Sum("alone_tried"),
            alone_made=Sum("alone_made"),
        )
    }
    fields = ("matches", "wins", "hands", "points", "made_trump", "euchred", "alone_tried",
              "alone_made")  # fmt: skip
    groups = {g: {f: totals.get(g, {}).get(f) or 0 for f in fields} for g in Opposition.values}
    groups = {"all": {f: sum(g[f] for g in groups.values()) for f in fields}, **groups}
    return {
        "username": user.get_username(),
        "guest": is_guest(user),
        "rating": rating_body(user),
        **{name: _figures(g) for name, g in groups.items()},
    }


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def _figures(g: dict[str, int]) -> dict[str, Any]:
    return {
        **g,
        "losses": g["matches"] - g["wins"],
        "win_rate": _ratio(g["wins"], g["matches"]),
        "points_per_hand": _ratio(g["points"], g["hands"]),
        "made_trump_rate": _ratio(g["made_trump"], g["hands"]),
        "euchred_rate": _ratio(g["euchred"], g["made_trump"]),
        "alone_made_rate": _ratio(g["alone_made"], g["alone_tried"]),
    }


# ---------------------------------------------------------------- ratings


def rating_body(user: AbstractBaseUser) -> dict[str, Any] | None:
    rating = Rating.objects.filter(user=user).first()
    if rating is None:
        return None
    return {**_rating(rating), "place": _place(rating)}


def _rating(rating: Rating) -> dict[str, Any]:
    return {
        "username": rating.user.get_username(),
        "rating": rating.ordinal,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "matches": rating.matches,
    }


# The leaderboard's order: rating, then more matches, then the name.
_ORDER = ("-ordinal", "-matches", "user__username")


def _place(rating: Rating) -> int:
    o, m, name = rating.ordinal, rating.matches, rating.user.get_username()
    ahead = Rating.objects.filter(
        Q(ordinal__gt=o)
        | Q(ordinal=o, matches__gt=m)
        | Q(ordinal=o, matches=m, user__username__lt=name)
    )
    return ahead.count() + 1


def leaderboard(*, viewer: AbstractBaseUser, limit: int) -> dict[str, Any]:
    top = Rating.objects.select_related("user").order_by(*_ORDER)[:limit]
    return {
        "count": Rating.objects.count(),
        "top": [{"place": i, **_rating(r)} for i, r in enumerate(top, start=1)],
        "you": rating_body(viewer),
        "newcomer": ratings.NEWCOMER.ordinal,
    }


def match_ratings(*, match_id: Any) -> list[dict[str, Any]]:
    """The rating changes one finished match made, by seat."""
    changes = RatingChange.objects.filter(match_id=match_id).select_related("user")
    return [
        {"seat": c.seat, "username": c.user.get_username(), **change_body(c)}
        for c in changes.order_by("seat")
    ]
