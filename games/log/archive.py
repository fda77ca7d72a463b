"""A match's log compacted: the hands over of a match being played moved into chunks
(EventChunk), and an ended match's whole log into one compressed row (EventArchive), and
read back.

A row per event costs about 150 bytes (row header, ids, two index entries) before its
payload, about 270 with it: a match of ~400 events took 110 KB as rows. Soon after each
hand ends (games.tasks.compact_log, queued as the next hand is dealt), compact_match
moves the events before the newest deal into one zlib-compressed chunk, so a match being
played keeps about one hand as rows (~9 KB) and a chunk of about 1 KB a hand over. Some
time after a match ended (EVENT_ARCHIVE_AFTER_MINUTES), the periodic games.tasks.archive
moves its chunks and rows into one archive row (docs/operations/storage.md).
Each move is one transaction: the new row inserted and read back, the old ones deleted
(the database refuses the delete of any event or chunk that nothing covers). Readers
never see the difference: games.log.eventlog.events_of gives the same Event objects
(unsaved, the same ids) from any of the three.
"""

import hashlib
import json
import logging
import zlib
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games.log import events as V
from games.log.compression import ArchiveCorrupt, compress_chunk, decompress
from games.models import Event, EventArchive, EventChunk, Match, MatchStatus

log = logging.getLogger(__name__)

ENDED = (MatchStatus.FINISHED, MatchStatus.ABANDONED)


def canonical(events: list[Event]) -> bytes:
    """Every field of every event, in seq order: the bytes the sha256 is of."""
    rows = [[e.id, e.seq, e.type, e.seat, e.payload, e.created_at.isoformat()] for e in events]
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode()


def decode(archive: EventArchive | EventChunk) -> list[Event]:
    """The archived (or chunked) events as Event objects (as if read from their rows:
    saving one is refused like an update), after checking the bytes against the sha256
    stored with them."""
    raw = decompress(bytes(archive.data))
    if hashlib.sha256(raw).hexdigest() != archive.sha256:
        what = "archive" if isinstance(archive, EventArchive) else "chunk"
        raise ArchiveCorrupt(f"the {what} of match {archive.match_id} fails its sha256")
    names = ["id", "match_id", "seq", "type", "seat", "payload", "created_at"]
    return [
        Event.from_db(
            "default",
            names,
            [id_, archive.match_id, seq, type_, seat, payload, datetime.fromisoformat(at)],
        )
        for id_, seq, type_, seat, payload, at in json.loads(raw)
    ]


def read_log(match_id: Any, after: int = 0, upto: int | None = None) -> list[Event]:
    """A match's events with `after` < seq <= `upto`, in seq order, wherever they are: its
    rows, its chunks, its archive (games.log.eventlog.events_of, the one reader, is this).

    Race-free against compact_match and archive_match under READ COMMITTED, though it may
    take three statements: each moves the oldest events on, from rows to a chunk or from
    rows and chunks to the archive, in one transaction. So the rows read first are the
    newest events at that moment, and any seq before them had moved on by then: the
    chunks read next hold them, or, if the archive took those meanwhile (one statement:
    all of them or none), the archive read last."""
    if upto is not None and upto <= after:
        return []
    rows = Event.objects.filter(match_id=match_id, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    events = list(rows.order_by("seq"))
    if events and events[0].seq == after + 1:
        return events  # the usual case: a match being played, read from a recent seq
    # The seqs before the rows read, or every one up to `upto` if no row was.
    before = events[0].seq if events else (upto + 1 if upto is not None else None)
    earlier = _from_chunks(match_id, after, before)
    if not earlier or (before is not None and not _whole(earlier, after + 1, before - 1)):
        archive = EventArchive.objects.filter(match_id=match_id).first()
        if archive is not None:
            earlier = [e for e in decode(archive) if _between(e.seq, after, before)]
    return earlier + events


def _from_chunks(match_id: Any, after: int, before: int | None) -> list[Event]:
    chunks = EventChunk.objects.filter(match_id=match_id, last_seq__gt=after)
    if before is not None:
        chunks = chunks.filter(first_seq__lt=before)
    return [
        event
        for chunk in chunks.order_by("first_seq")
        for event in decode(chunk)
        if _between(event.seq, after, before)
    ]


def _between(seq: int, after: int, before: int | None) -> bool:
    return seq > after and (before is None or seq < before)


def archive_due(limit: int | None = None) -> int:
    """Archive the logs of matches ended more than EVENT_ARCHIVE_AFTER_MINUTES ago, at
    most `limit` (EVENT_ARCHIVE_BATCH) of them, each in its own transaction. Returns how
    many were archived. Safe to run twice at once (each match's row is locked, and one
    already locked is left to the other run)."""
    limit = settings.EVENT_ARCHIVE_BATCH if limit is None else limit
    cutoff = timezone.now() - timedelta(minutes=settings.EVENT_ARCHIVE_AFTER_MINUTES)
    due = (
        Match.objects.filter(status__in=ENDED, log_archived=False, finished_at__lt=cutoff)
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(archive_match(pk) for pk in list(due))


def archive_match(match_id: Any) -> bool:
    """Move one ended match's log (its chunks and rows) into its archive row (False: not
    ended, archived already, or being archived by another worker)."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True)
            .filter(pk=match_id, status__in=ENDED)
            .first()
        )
        if match is None or EventArchive.objects.filter(match_id=match_id).exists():
            return False
        events = read_log(match_id)
        if not _whole(events, 1, match.seq):
            log.error("match %s: its log does not end at seq %s: not archived", match_id, match.seq)
            return False
        raw = canonical(events)
        stored = EventArchive.objects.create(
            match_id=match_id,
            data=zlib.compress(raw, 9),
            count=len(events),
            last_seq=events[-1].seq,
            first_event_id=min(e.id for e in events),
            last_event_id=max(e.id for e in events),
            sha256=hashlib.sha256(raw).hexdigest(),
        )
        if canonical(decode(stored)) != raw:  # what is read back is what is deleted
            raise ArchiveCorrupt(f"the archive of match {match_id} does not read back")
        # The ORM refuses to delete events and chunks (models.AppendOnlyQuerySet); the
        # database lets these go because the archive row above covers them.
        with connection.cursor() as cursor:
            for table in (Event._meta.db_table, EventChunk._meta.db_table):
                cursor.execute(f"DELETE FROM {table} WHERE match_id = %s", [_db_id(match_id)])
        Match.objects.filter(pk=match_id).update(log_archived=True)
    return True


def compact_match(match_id: Any) -> int:
    """Move a match's events before its newest hand_dealt (the hands over, and what came
    before the first deal) from their rows into one chunk, once a hand over is among them;
    how many (0: nothing to move, or another worker, or the archiver, moved them first).
    Safe to run twice or twice at once: a second chunk at the same first seq is refused by
    the (match, first_seq) constraint, and the rows' DELETE must take every row the chunk
    holds, or nothing is written. Takes no lock of the match: its events before the newest
    deal never change."""
    try:
        with transaction.atomic():
            return _compact(match_id)
    except IntegrityError:  # another worker's chunk, committed first
        return 0


def _compact(match_id: Any) -> int:
    rows = list(Event.objects.filter(match_id=match_id).order_by("seq"))
    deals = [e.seq for e in rows if e.type == V.HAND_DEALT]
    if len(deals) < 2:  # no hand over among the rows
        return 0
    take = [e for e in rows if e.seq < deals[-1]]
    covered = EventChunk.objects.filter(match_id=match_id).order_by("-last_seq")
    start = (covered.values_list("last_seq", flat=True).first() or 0) + 1
    if not _whole(take, start, take[-1].seq):
        log.error("match %s: its rows do not follow its chunks from seq %s", match_id, start)
        return 0
    raw = canonical(take)
    stored = EventChunk.objects.create(
        match_id=match_id,
        first_seq=take[0].seq,
        last_seq=take[-1].seq,
        last_event_id=max(e.id for e in take),
        data=compress_chunk(raw),
        sha256=hashlib.sha256(raw).hexdigest(),
    )
    if canonical(decode(stored)) != raw:
        raise ArchiveCorrupt(f"a chunk of match {match_id} does not read back")
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Event._meta.db_table} WHERE match_id = %s AND seq <= %s",
            [_db_id(match_id), take[-1].seq],
        )
        if cursor.rowcount != len(take):  # archived (or compacted) meanwhile: write nothing
            transaction.set_rollback(True)
            return 0
    return len(take)


def _db_id(match_id: Any) -> Any:
    """A match id as the database takes it in plain SQL (SQLite: the UUID's hex)."""
    field = Match._meta.pk
    return field.get_db_prep_value(field.to_python(match_id), connection)


def _whole(events: list[Event], first: int, last: int) -> bool:
    """Whether `events` are exactly the seqs first..last, in order."""
    return [e.seq for e in events] == list(range(first, last + 1))
