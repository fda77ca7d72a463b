"""Each person's record of a finished match, and the ratings: projections of the logs.

`match_finished` runs in the transaction that logs a match's match_finished event (from
games/log/projections.py): it writes the match's MatchRecord rows (one per person seated when
the match started) and then its ratings (games/log/ratings.py). `rebuild_all` wipes both and
derives them again from the logs alone, match by match in finish order, through the same
code: the same numbers to the last bit (tests/games/people/test_records.py).

Finish order: ratings depend on the order of the matches, so it is the order of the
match_finished events' times, ties broken by match id, both read from the log. Finishing
matches take one lock, `finishing()`, before their match_finished event is stamped, so one
finishes at a time and the live order is that order (on one database clock: the
app servers' clocks must agree to better than a finish's few milliseconds).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from games.log import eventlog, ratings
from games.log import events as V
from games.models import (
    Event,
    Match,
    MatchRecord,
    Opposition,
    Rating,
    RatingChange,
    SeatKind,
    is_guest,
)

# Any constant: the advisory lock taken by the transaction that finishes a match.
_FINISH_LOCK = 0x45_75_63_68  # "Euch"


def finishing() -> None:
    """Called before a match_finished event is appended: wait for any other match being
    finished to commit (a PostgreSQL transaction-level advisory lock; SQLite has one
    writer at a time anyway)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_FINISH_LOCK])


@dataclass
class _Seat:
    kind: str  # human or computer
    user_id: int | None = None
    username: str | None = None
    level: str | None = None
    left: bool = False


@dataclass
class _Counts:
    made_trump: int = 0
    euchred: int = 0
    alone_tried: int = 0
    alone_made: int = 0


def records_from_log(match: Match, log: Iterable[Event]) -> list[MatchRecord]:
    """The MatchRecord rows of a finished match, from its log alone (unsaved); none if
    the log does not end in match_finished."""
    seats: dict[int, _Seat] = {}
    started = False
    counts = [_Counts() for _ in range(4)]
    hands = 0
    maker: int | None = None
    alone = False
    finished: Event | None = None
    for event in log:
        p = event.payload
        if event.type == V.SEAT_TAKEN:
            seats[p["seat"]] = _Seat(p["kind"], p["user_id"], p["username"], p["level"])
        elif event.type == V.SEAT_LEFT:
            if started:
                seats[p["seat"]].left = True
            else:  # left before the start: a computer plays the whole match
                seats[p["seat"]] = _Seat(SeatKind.COMPUTER, level=p["level"])
        elif event.type == V.MATCH_STARTED:
            started = True
        elif event.type == V.HAND_DEALT:
            hands += 1
            maker, alone = None, False
        elif event.type == V.BID and p["action"]["type"] in ("order_up", "call"):
            maker, alone = event.seat, bool(p["action"].get("alone"))
        elif event.type == V.HAND_SCORED and maker is not None:
            c = counts[maker]
            euchred = p["result"].startswith("euchred")
            c.made_trump += 1
            c.euchred += euchred
            c.alone_tried += alone
            c.alone_made += alone and not euchred
        elif event.type == V.MATCH_FINISHED:
            finished = event
    if finished is None or not started:
        return []
    winner, scores = finished.payload["winner"], finished.payload["scores"]
    players = [
        {
            "seat": i,
            "kind": s.kind,
            "user_id": s.user_id,
            "username": s.username,
            "level": s.level,
            "left": s.left,
        }
        for i, s in sorted(seats.items())
    ]
    users = get_user_model().objects.in_bulk(
        [s.user_id for s in seats.values() if s.kind == SeatKind.HUMAN]
    )
    rows = []
    for i, s in sorted(seats.items()):
        if s.kind != SeatKind.HUMAN or s.user_id not in users:
            continue
        team = i % 2
        rows.append(
            MatchRecord(
                match=match,
                user=users[s.user_id],
                seat=i,
                team=team,
                won=winner == team,
                finished_at=finished.created_at,
                guest=is_guest(users[s.user_id]),
                left=s.left,
                opposition=_opposition([seats[(i + 1) % 4], seats[(i + 3) % 4]]),
                players=players,
                points_for=scores[team],
                points_against=scores[1 - team],
                hands=hands,
                **vars(counts[i]),
            )
        )
    return rows


def _opposition(opponents: list[_Seat]) -> str:
    if all(s.kind == SeatKind.HUMAN for s in opponents):
        return Opposition.PEOPLE
    levels = {s.level for s in opponents if s.kind != SeatKind.HUMAN}
    if len(levels) == 1 and all(s.kind != SeatKind.HUMAN for s in opponents):
        return Opposition(levels.pop())
    return Opposition.MIXED


def record_match(match: Match, *, fresh: bool = False) -> list[MatchRecord]:
    """(Re)write the match's MatchRecord rows from its log (`fresh`: it has none yet);
    its ratings are untouched."""
    if not fresh:
        MatchRecord.objects.filter(match=match).delete()
    rows = records_from_log(match, eventlog.events_of(match))
    return MatchRecord.objects.bulk_create(rows)


def match_finished(match: Match) -> None:
    """A match has just finished (its events are appended, in this transaction, after
    `finishing()`): its records, then its ratings."""
    rate_match(match, record_match(match, fresh=True))


def rate_match(match: Match, rows: list[MatchRecord]) -> None:
    """Apply one finished match to the ratings of its registered people."""
    rated = [r for r in rows if not r.guest]
    if not rated:
        return
    current = {
        r.user_id: r
        for r in Rating.objects.select_for_update().filter(user_id__in=[x.user_id for x in rated])
    }
    by_seat = {r.seat: r for r in rows}
    skills: list[ratings.Skill] = []
    for player in rows[0].players:
        row = by_seat.get(player["seat"])
        if player["kind"] != SeatKind.HUMAN:
            skills.append(ratings.computer(player["level"]))
        elif row is None or row.guest or row.user_id not in current:
            skills.append(ratings.NEWCOMER)  # a guest, or a person's first rated match
        else:
            skills.append(ratings.Skill(current[row.user_id].mu, current[row.user_id].sigma))
    winner = rows[0].team if rows[0].won else 1 - rows[0].team
    team0, team1 = ratings.rate(([skills[0], skills[2]], [skills[1], skills[3]]), winner)
    after = [team0[0], team1[0], team0[1], team1[1]]  # back in seat order
    changes, created, updated = [], [], []
    for row in rated:
        before, new = skills[row.seat], after[row.seat]
        rating = current.get(row.user_id)
        if rating is None:
            rating = Rating(user_id=row.user_id, matches=0)
            created.append(rating)
        else:
            updated.append(rating)
        rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal
        rating.matches += 1
        changes.append(
            RatingChange(
                match=match,
                user_id=row.user_id,
                seat=row.seat,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
            )
        )
    # A few rows, each a query or two were it saved alone: one query each way.
    Rating.objects.bulk_create(created)
    Rating.objects.bulk_update(updated, ["mu", "sigma", "ordinal", "matches"])
    RatingChange.objects.bulk_create(changes)


def rebuild_all() -> int:
    """Wipe every record and rating and derive them again from the logs, in finish order.
    Returns how many finished matches were recorded."""
    count = 0
    with transaction.atomic():
        finishing()
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        MatchRecord.objects.all().delete()
        for match_id in eventlog.finish_order():
            match = Match.objects.get(pk=match_id)
            rate_match(match, record_match(match))
            count += 1
    return count


def skill_of(change: RatingChange, before: bool) -> ratings.Skill:
    if before:
        return ratings.Skill(change.mu_before, change.sigma_before)
    return ratings.Skill(change.mu_after, change.sigma_after)


def change_body(change: RatingChange | None) -> dict[str, Any] | None:
    """A rating change as the API shows it."""
    if change is None:
        return None
    before, after = skill_of(change, True), skill_of(change, False)
    return {
        "before": before.ordinal,
        "after": after.ordinal,
        "change": after.ordinal - before.ordinal,
        "mu": after.mu,
        "sigma": after.sigma,
    }
