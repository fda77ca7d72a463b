"""Quick play: a seat at a public table of people who asked for the same options.

`quickplay_join` seats the caller at the one table waiting for people with the same
options (the rules preset, whether computer players may fill seats and their level,
the turn timer: `Ask.key`), or opens it. Requests for the same options are serialized
by a PostgreSQL advisory lock on the key, held to the end of the transaction, so there
is never a second waiting table for one key, a seat given twice, or a seat lost; other
options' queues do not wait (no lock on SQLite, the embedded default: it has one writer
at a time anyway). The table's fourth person starts it (services._commit_events).

A person waits in one queue at a time: asking with other options moves them, in one
transaction, out of the table they wait at (nobody else's seat there is touched) and
into the new queue, and joining a quick play table by its id (`match_join`) does
the same. The rule is per person while the queue's lock is per queue, so every change to
where a person waits (an ask, a join by id, leaving) first takes a second advisory lock,
the person's (`hold_person`): one person's requests run one after another, whichever
process serves them, and each sees where the one before left them. Locks are always
taken in one order, so that no two requests wait for each other: the person's, then
the queues' involved in order of their lock key (`_lock_queues`), then tables' rows,
then the person's row (services.room_for_another_match). Since a table starts only
while it waits, and a person waits at one table at most, no two tables ever start with
the same person; a table that started is a match (left with POST /matches/{id}/leave),
and a further ask seats its person in a queue as anyone's would.

When the table's wait (QUICKPLAY_WAIT_SECONDS from its opening) is over, the task
games.tasks.start_quickplay (asked for through games.play.later when the table opens; the
periodic sweep for a lost one) gives its open seats to computer players of the asked
level, and it starts; if the people asked for no computer players it waits on for
people. `quickplay_leave` takes the caller out of the queue before the start: the seat
is open again (event seat_vacated), and a table nobody waits at is abandoned.
"""

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from games import engine as E
from games.log.levels import DEFAULT_LEVEL, LEVELS
from games.models import Match, MatchStatus, Seat, SeatKind, Visibility
from games.play import later, selectors, services
from games.play.errors import BadInput, Conflict
from games.play.selectors import is_match_id
from games.play.services import ME, OPEN, SeatSpec

# The rules a quick play table is played under (engine options, docs/rules.md).
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},  # Poozee (000): to 10, stick the dealer, going alone
    "short": {"target_score": 5},
    "no_stick": {"stick_the_dealer": False},
    "canadian": {"lone_lead": "canadian", "defending_alone": True},
}
DEFAULT_PRESET = "standard"


@dataclass(frozen=True)
class Ask:
    """What a person asks quick play for."""

    preset: str = DEFAULT_PRESET
    computers: bool = True  # computer players may take the seats left open after the wait
    level: str = DEFAULT_LEVEL  # theirs
    turn_seconds: int | None = None

    def checked(self) -> "Ask":
        if self.preset not in PRESETS:
            raise BadInput("invalid_option", f"preset is one of {', '.join(PRESETS)}.")
        if self.level not in LEVELS:
            raise BadInput("invalid_level", f"level is one of {', '.join(LEVELS)}.")
        seconds = self.turn_seconds
        if seconds is not None and not (
            services.MIN_TURN_SECONDS <= seconds <= services.MAX_TURN_SECONDS
        ):
            raise BadInput(
                "invalid_turn_seconds",
                f"A turn timer is {services.MIN_TURN_SECONDS} to "
                f"{services.MAX_TURN_SECONDS} seconds (or none).",
            )
        return self

    @property
    def fill_level(self) -> str:
        return self.level if self.computers else ""

    def key(self) -> str:
        """The queue: people asking with the same key sit at the same table."""
        return f"{self.preset}/{self.fill_level or '-'}/{self.turn_seconds or 0}"


def quickplay_join(*, user: AbstractBaseUser, ask: Ask) -> tuple[Match, int]:
    """The caller's seat at the table waiting for `ask`'s options (the one they already
    wait at, if any), or a new one; out of any other queue they waited in. Answers the
    table with its seats and the caller's seat (`_answer`)."""
    ask = ask.checked()
    key = ask.key()
    with transaction.atomic():
        enter_queue(user, key)
        waiting = Match.objects.filter(status=MatchStatus.WAITING, quickplay_key=key)
        mine = waiting.filter(seats__user=user).first()
        if mine is not None:
            return _answer(mine, user)  # asking again is no second seat
        table = waiting.select_for_update().order_by("created_at").first()
        if table is not None:
            services.seat_join(table, user)
            return _answer(table, user)
        services.room_for_another_match(user)
        wait = settings.QUICKPLAY_WAIT_SECONDS
        table = services.new_match(
            created_by=user,
            seats=[(user, SeatSpec(ME)), *[(None, SeatSpec(OPEN))] * 3],
            rules=E.Options.from_dict(PRESETS[ask.preset]),
            hints_allowed=True,
            first_dealer=3,
            turn_seconds=ask.turn_seconds,
            visibility=Visibility.PUBLIC,
            quickplay_key=key,
            quickplay_fill_level=ask.fill_level,
            quickplay_starts_at=timezone.now() + timedelta(seconds=wait),
        )
        if ask.fill_level:
            match_id = str(table.pk)
            transaction.on_commit(
                lambda: later.run_after(later.START_QUICKPLAY, match_id, seconds=wait)
            )
        return _answer(table, user)


def enter_queue(user: AbstractBaseUser, key: str) -> None:
    """Before `user` is seated at a table of the queue `key`, in the caller's transaction:
    hold their lock and the queues' involved, and take them out of every other quick play
    table they wait at (one queue at a time). Rolled back with the seat if it is refused."""
    hold_person(user)
    tables = _waiting_at(user)
    _lock_queues([key, *tables.values()])
    for match_id, queue in tables.items():
        if queue != key:
            _vacate(match_id, user)


def match_join(
    *, match_id: Any, user: AbstractBaseUser, seat_index: int | None = None
) -> tuple[Match, int]:
    """Take an open seat at a match by its id (the first one unless `seat_index` names
    one). At a quick play table this is asking for its queue: you leave the one you wait
    in, if another (one queue at a time). It lives here, above services, because any
    table may be a quick play table. Answers as quickplay_join."""
    with transaction.atomic():
        if key := _quickplay_key(match_id):  # read before its locks, which come first
            enter_queue(user, key)
        match = services.locked_match(match_id)
        services.seat_join(match, user, seat_index)
        return _answer(match, user)


def _answer(match: Match, user: AbstractBaseUser) -> tuple[Match, int]:
    """The table `user` was just seated at, with its seats, and their seat: read in the
    transaction that seated them, before their lock is let go. Their next request (an ask
    with other options, a join by id), waiting for that lock, may move them out of it the
    moment this one commits, and the table be abandoned: read after the commit, this
    request, which did seat them, would find no seat of theirs and answer 404."""
    return selectors.match_for_user(match_id=match.pk, user=user)


def _quickplay_key(match_id: Any) -> str:
    """The quick play queue of a match ("" for none; a match's never changes)."""
    if not is_match_id(match_id):
        return ""
    keys = Match.objects.filter(pk=match_id).values_list("quickplay_key", flat=True)
    return keys.first() or ""


def quickplay_leave(*, user: AbstractBaseUser) -> list[str]:
    """Leave every quick play table the caller waits at (before its start): the ids."""
    with transaction.atomic():
        hold_person(user)
        tables = _waiting_at(user)
        _lock_queues(tables.values())  # the order a join takes them in
        left = [match_id for match_id in tables if _vacate(match_id, user)]
    if not left:
        raise Conflict(
            "not_in_queue",
            "You wait at no quick play table (if it has started, leave the match instead).",
        )
    return left


def hold_person(user: AbstractBaseUser) -> None:
    """Serialize the changes to where `user` waits until this transaction ends (taken
    before any queue's lock)."""
    # Two 32-bit keys: a namespace of ours, and the person's id folded into 32 bits (two
    # people sharing one only wait for each other).
    _advisory_lock(_PERSON_NAMESPACE, user.pk % 2**32 - 2**31)


def _lock_queues(keys: Iterable[str]) -> None:
    """Serialize the requests for these queues until this transaction ends: taken in the
    order of their lock keys, so that two transactions needing the same two never wait
    for each other."""
    for lock_key in sorted({zlib.crc32(key.encode()) - 2**31 for key in keys}):
        _advisory_lock(_NAMESPACE, lock_key)


def _advisory_lock(namespace: int, lock_key: int) -> None:
    if connection.vendor == "postgresql":  # SQLite has one writer at a time anyway
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [namespace, lock_key])


_NAMESPACE = 0x51_50  # "QP": a queue's lock
_PERSON_NAMESPACE = 0x51_55  # "QU": a person's


def _waiting_at(user: AbstractBaseUser) -> dict[str, str]:
    """The quick play tables `user` waits at: their queue by id."""
    seats = Seat.objects.filter(
        user=user, match__status=MatchStatus.WAITING, match__quickplay_key__gt=""
    ).order_by("match_id")
    return {str(m): key for m, key in seats.values_list("match_id", "match__quickplay_key")}


def _vacate(match_id: str, user: AbstractBaseUser) -> bool:
    """Open `user`'s seat at this waiting table (in the caller's transaction, the queue's
    lock held); False if it started, or they left it, meanwhile."""
    match = Match.objects.select_for_update().get(pk=match_id)
    seat = match.seats.filter(user=user).first()
    if match.status != MatchStatus.WAITING or seat is None:
        return False
    services.seat_vacate(match, seat)
    return True


def quickplay_start(*, match_id: Any) -> bool:
    """The wait of a quick play table is over: computer players take its open seats and
    it starts. False if there is nothing to do (it started, was left, or waits longer)."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.WAITING or not match.quickplay_fill_level:
            return False
        if match.quickplay_starts_at is None or match.quickplay_starts_at > timezone.now():
            return False
        if not match.seats.filter(kind=SeatKind.HUMAN).exists():
            return False  # the sweep abandons it
        return services.seats_fill(match, match.quickplay_fill_level) > 0


def due_tables(grace: float) -> list[str]:
    """Tables whose wait ended `grace` seconds ago and which still wait (a lost task)."""
    late = timezone.now() - timedelta(seconds=grace)
    return [
        str(pk)
        for pk in Match.objects.filter(status=MatchStatus.WAITING, quickplay_starts_at__lt=late)
        .exclude(quickplay_fill_level="")
        .values_list("pk", flat=True)
    ]
