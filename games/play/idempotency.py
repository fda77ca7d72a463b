"""Idempotency-Keys of actions: what is kept of each, and the first answer given again.

A request with an Idempotency-Key that acted is kept as little as a replay needs (issue
33): the key's 64-bit digest, the request's hash (128 bits of services.request_fingerprint),
the match's seq after the action, when (to the second: it expires after
IDEMPOTENCY_KEY_HOURS), and the turn deadline the answer showed (the one thing of the
answer the log does not say). A person's keys at one match share a row, 32 to a row
(IdempotencyKeys): about 40 bytes a key, where a row a key cost 150 bytes or more before
anything was in it. The answer is rebuilt from the log: the seat's view folded up to that
seq, the match's summary as the log says it was then (status, scores, hands, seats,
finished_at), the presence as it is now.

The key's digest stands for the key: two keys of one person with the same 64 bits (odds
of about 1 in 10^19 a pair) would count as one key. Rows stored before this release
(IdempotentResponse, a row a key with the summary or the whole body) are still replayed
until they expire.

Two requests with the same key at once: on one match, the match's row lock makes the
second wait and then replay the first's answer (waiting, if need be, the moment the
first's advisory lock outlives its row lock: hold()); on two matches, the second finds the
key's advisory lock taken and is answered 409 idempotency_key_reused ("retry with the
same key"), as the unique index of the row-a-key table answered it before.
"""

import hashlib
import struct
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from games.log import eventlog
from games.log import events as V
from games.models import IdempotencyKeys, IdempotentResponse, Match, MatchStatus
from games.play.selectors import player_view_get

DIGEST_BYTES = 8
# An entry: the request's hash (16 bytes), the seq after the action, when it was used
# (seconds since the epoch) and the answer's turn deadline (microseconds since the epoch,
# 0 for none).
ENTRY = struct.Struct(">16sIIq")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Stored:
    """A key's record: the match it acted at and what its answer is rebuilt from."""

    match_id: Any
    request_hash: str  # hex, 32 digits: the first half of the request's fingerprint
    seq: int
    used_at: datetime
    turn_deadline: datetime | None
    legacy: IdempotentResponse | None = None  # a row stored before IdempotencyKeys

    def same_request(self, fingerprint: str) -> bool:
        """Whether `fingerprint` (services.request_fingerprint) is the stored request's (a
        legacy row stored before request hashes were kept matches any)."""
        if self.legacy is not None:
            return self.legacy.request_hash in ("", fingerprint)
        return fingerprint[: len(self.request_hash)] == self.request_hash


def digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()[:DIGEST_BYTES]


# hold()'s answers: the key's lock taken at once, or after waiting for another transaction.
FREE, WAITED = "free", "waited"
# How long a request waits for another transaction's hold of its key before it is
# answered 409 idempotency_key_reused.
WAIT_FOR_KEY_MS = 2000


def hold(user: AbstractBaseUser, key: str) -> str | None:
    """Take the key's transaction-level lock (PostgreSQL; SQLite runs one writing
    transaction at a time): FREE if no one held it; WAITED if another transaction did and
    ended within WAIT_FOR_KEY_MS; None if it still holds it (it uses the same key at
    another match right now).

    The wait is for the request that repeats an action at the same match: it waited for
    the first one's row lock, and PostgreSQL, committing a transaction, frees the row lock
    before that transaction's advisory locks, so for a moment the key looks held by a
    transaction that is already over."""
    if connection.vendor != "postgresql":
        return FREE
    ident = hashlib.sha256(f"idempotency-key:{user.pk}:{key}".encode()).digest()[:8]
    lock = int.from_bytes(ident, "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock])
        if cursor.fetchone()[0]:
            return FREE
        cursor.execute("SELECT current_setting('lock_timeout')")
        before = cursor.fetchone()[0]
        try:
            with transaction.atomic():  # a savepoint: a timeout undoes this alone
                cursor.execute(
                    "SELECT set_config('lock_timeout', %s, true)", [f"{WAIT_FOR_KEY_MS}ms"]
                )
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock])
        except OperationalError:  # the lock timed out (or a deadlock was broken)
            return None
        finally:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [before])
    return WAITED


def stored(user: AbstractBaseUser, key: str) -> Stored | None:
    """The key's record, unless it has expired (IDEMPOTENCY_KEY_HOURS): then the key is
    new again."""
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    found = _newest(user, digest(key), cutoff)
    if found is not None:
        return found
    return _legacy(user, key, cutoff)


def _newest(user: AbstractBaseUser, wanted: bytes, cutoff: datetime) -> Stored | None:
    newest = None
    for match_id, keys, entries in _rows_with(user, wanted, cutoff):
        keys, entries = bytes(keys), bytes(entries)
        for i in range(0, len(keys), DIGEST_BYTES):
            if keys[i : i + DIGEST_BYTES] != wanted:
                continue  # (a match of the bytes across two digests, or another key)
            record = _record(match_id, entries, i // DIGEST_BYTES)
            if record.used_at >= cutoff and (newest is None or record.used_at > newest.used_at):
                newest = record
    return newest


def _rows_with(user: AbstractBaseUser, wanted: bytes, cutoff: datetime) -> list[tuple]:
    """The person's rows used since `cutoff` whose keys hold the digest's bytes."""
    table = IdempotencyKeys._meta.db_table
    found = (
        "position(%s::bytea IN keys) > 0"
        if connection.vendor == "postgresql"
        else ("instr(keys, %s) > 0")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT match_id, keys, entries FROM {table}"
            f" WHERE user_id = %s AND updated_at >= %s AND {found}",
            [user.pk, cutoff, wanted],
        )
        return cursor.fetchall()


def _record(match_id: Any, entries: bytes, index: int) -> Stored:
    hashed, seq, used, deadline = ENTRY.unpack_from(entries, index * ENTRY.size)
    return Stored(
        match_id=_match_key(match_id),
        request_hash=hashed.hex(),
        seq=seq,
        used_at=EPOCH + timedelta(seconds=used),
        turn_deadline=EPOCH + timedelta(microseconds=deadline) if deadline else None,
    )


def records_of(row: IdempotencyKeys) -> list[tuple[bytes, Stored]]:
    """Every key a row keeps: its digest and its record, in the order they were used."""
    keys, entries = bytes(row.keys), bytes(row.entries)
    return [
        (keys[i * DIGEST_BYTES : (i + 1) * DIGEST_BYTES], _record(row.match_id, entries, i))
        for i in range(len(keys) // DIGEST_BYTES)
    ]


def _match_key(value: Any) -> Any:
    """A match id as the ORM gives it (a UUID; SQLite's raw rows give its hex)."""
    return Match._meta.pk.to_python(value)


def _legacy(user: AbstractBaseUser, key: str, cutoff: datetime) -> Stored | None:
    row = IdempotentResponse.objects.filter(user=user, key=key).first()
    if row is None:
        return None
    if row.created_at < cutoff:  # expired, not yet pruned: the key is new again
        row.delete()
        return None
    return Stored(row.match_id, row.request_hash, row.seq or 0, row.created_at, None, row)


def store(
    user: AbstractBaseUser,
    key: str,
    match: Match,
    fingerprint: str,
    turn_deadline: datetime | None,
) -> None:
    """Keep the key's record: the match is at the seq the action made (`match.seq`). In
    the action's transaction (the key held: hold())."""
    now = timezone.now()
    entry = ENTRY.pack(
        bytes.fromhex(fingerprint)[:16],
        match.seq,
        int((now - EPOCH).total_seconds()),
        _microseconds(turn_deadline) if turn_deadline is not None else 0,
    )
    if connection.vendor != "postgresql":  # the embedded default (SQLite): one writer
        _store_here(user, match, digest(key) + entry, now)
        return
    with connection.cursor() as cursor:
        cursor.execute(
            _UPSERT,
            {"user": user.pk, "match": match.pk, "key": digest(key), "entry": entry, "now": now},
        )


def _store_here(user: AbstractBaseUser, match: Match, record: bytes, now: datetime) -> None:
    """store() through the ORM (SQLite, which runs one writing transaction at a time)."""
    key, entry = record[:DIGEST_BYTES], record[DIGEST_BYTES:]
    rows = IdempotencyKeys.objects.filter(user=user, match=match)
    newest = rows.order_by("-page").first()
    if newest is None or len(newest.keys) >= IdempotencyKeys.PAGE_KEYS * DIGEST_BYTES:
        page = newest.page + 1 if newest is not None else 0
        IdempotencyKeys.objects.create(
            user=user, match=match, page=page, keys=key, entries=entry, created_at=now,
            updated_at=now,
        )  # fmt: skip
        return
    rows.filter(page=newest.page).update(
        keys=bytes(newest.keys) + key, entries=bytes(newest.entries) + entry, updated_at=now
    )


# The key goes into the person's newest page at the match, or a new page once that one is
# full: one statement (the match's row lock, held, makes the person's keys there wait).
_TABLE = IdempotencyKeys._meta.db_table
_UPSERT = f"""
    WITH newest AS (
        SELECT page, length(keys) AS used FROM {_TABLE}
        WHERE user_id = %(user)s AND match_id = %(match)s ORDER BY page DESC LIMIT 1
    )
    INSERT INTO {_TABLE} (user_id, match_id, page, keys, entries, created_at, updated_at)
    SELECT %(user)s, %(match)s,
        CASE WHEN newest.page IS NULL THEN 0
             WHEN newest.used >= {IdempotencyKeys.PAGE_KEYS * DIGEST_BYTES} THEN newest.page + 1
             ELSE newest.page END,
        %(key)s, %(entry)s, %(now)s, %(now)s
    FROM (SELECT 1) AS one LEFT JOIN newest ON true
    ON CONFLICT (user_id, match_id, page) DO UPDATE SET
        keys = {_TABLE}.keys || EXCLUDED.keys,
        entries = {_TABLE}.entries || EXCLUDED.entries,
        updated_at = EXCLUDED.updated_at
"""


def _microseconds(moment: datetime) -> int:
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# ---------------------------------------------------------------- the answer again


def answer(match: Match, seat: int, record: Stored) -> dict[str, Any]:
    """The first answer again: the seat's view folded from the log up to the stored seq,
    the match's summary as the log says it was then, the presence as it is now."""
    if record.legacy is not None:
        return _legacy_answer(match, record.legacy)
    events = eventlog.events_of(match, upto=record.seq)
    replayer = eventlog.Replayer()
    for event in events:
        replayer.feed(event.type, event.seat, event.payload)
    folded = eventlog.Folded(replayer.state, replayer.deal)
    body = player_view_get(match=match, seat=seat, folded=folded)
    then = summary_then(events)
    seats_then = then.pop("seats")
    deadline = record.turn_deadline
    body.update(then, seq=record.seq, turn_deadline=deadline.isoformat() if deadline else None)
    # An action's answer never shows a rematch: one is offered only after the match ended.
    body["rematch"] = None
    for row, values in zip(body["seats"], seats_then, strict=True):
        row.update(values)
    return body


def summary_then(events: list[Any]) -> dict[str, Any]:
    """What a match's summary said after `events` (its log from the start), as
    games.log.projections and the seat services make it: status, scores, hands played, the
    winner, when it ended, and each seat's kind, username, level and whether away."""
    summary: dict[str, Any] = {
        "status": MatchStatus.WAITING,
        "scores": [0, 0],
        "winner_team": None,
        "hands_played": 0,
        "finished_at": None,
    }
    seats = [_seat("open") for _ in range(4)]
    for event in events:
        p = event.payload
        if event.type == V.MATCH_STARTED:
            summary["status"] = MatchStatus.ACTIVE
        elif event.type in (V.HAND_SCORED, V.HAND_THROWN_IN):
            summary["hands_played"] = p["hand"]
            if event.type == V.HAND_SCORED:
                summary["scores"] = list(p["scores"])
        elif event.type in (V.MATCH_FINISHED, V.MATCH_ABANDONED):
            finished = event.type == V.MATCH_FINISHED
            summary["status"] = MatchStatus.FINISHED if finished else MatchStatus.ABANDONED
            summary["winner_team"] = p["winner"] if finished else None
            summary["finished_at"] = event.created_at.isoformat()
        elif event.type == V.SEAT_TAKEN:
            seats[p["seat"]] = _seat(p["kind"], p["username"], p["level"])
        elif event.type == V.SEAT_LEFT:
            seats[p["seat"]] = _seat("computer", None, p["level"])
        elif event.type == V.SEAT_VACATED:
            seats[p["seat"]] = _seat("open")
        elif event.type == V.SEAT_TIMED_OUT:
            seats[p["seat"]].update(away=True, level=p["level"])
        elif event.type == V.SEAT_RETURNED:
            seats[p["seat"]].update(away=False, level=None)
    return {**summary, "seats": seats}


def _seat(kind: str, username: str | None = None, level: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "username": username, "level": level or None, "away": False}


# A legacy row's seats: each seat's changing fields, in this order.
_LEGACY_SEAT_FIELDS = ("kind", "username", "level", "away")


def _legacy_answer(match: Match, row: IdempotentResponse) -> dict[str, Any]:
    if row.body is not None:  # stored whole, before issue 15
        return row.body
    body = player_view_get(match=match, seat=row.seat, folded=eventlog.load(match, upto=row.seq))
    then = dict(row.summary)
    seats_then = then.pop("seats")
    body.update(then, seq=row.seq)
    for seat_row, values in zip(body["seats"], seats_then, strict=True):
        seat_row.update(zip(_LEGACY_SEAT_FIELDS, values, strict=True))
    return body
