"""A finished match's log moved into one compressed row (EventArchive), and read back.

A row per event costs about 150 bytes (row header, ids, two index entries) before its
payload; a finished match's ~370 events in one zlib-compressed row take a tenth of their
rows (docs/operations.md, "Storage per match"). Some time after a match ended
(EVENT_ARCHIVE_AFTER_MINUTES), the periodic games.tasks.archive moves its log here: the
archive row is inserted and the Event rows deleted in one transaction (the database
refuses the delete of any event that no archive row covers). Readers never see the
difference: games.eventlog.events_of gives the same Event objects (unsaved, the same
ids) from either place.
"""

import hashlib
import json
import logging
import zlib
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from games.models import Event, EventArchive, Match, MatchStatus

log = logging.getLogger(__name__)

ENDED = (MatchStatus.FINISHED, MatchStatus.ABANDONED)


class ArchiveCorrupt(Exception):
    """An archive whose bytes do not hash to the sha256 stored with them."""


def canonical(events: list[Event]) -> bytes:
    """Every field of every event, in seq order: the bytes the sha256 is of."""
    rows = [[e.id, e.seq, e.type, e.seat, e.payload, e.created_at.isoformat()] for e in events]
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode()


def decode(archive: EventArchive) -> list[Event]:
    """The archived events as Event objects (as if read from their rows: saving one is
    refused like an update), after checking the bytes against the archive's sha256."""
    raw = zlib.decompress(bytes(archive.data))
    if hashlib.sha256(raw).hexdigest() != archive.sha256:
        raise ArchiveCorrupt(f"the archive of match {archive.match_id} fails its sha256")
    names = ["id", "match_id", "seq", "type", "seat", "payload", "created_at"]
    return [
        Event.from_db(
            "default",
            names,
            [id_, archive.match_id, seq, type_, seat, payload, datetime.fromisoformat(at)],
        )
        for id_, seq, type_, seat, payload, at in json.loads(raw)
    ]


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
    """Move one ended match's log into its archive row (False: not ended, archived
    already, or being archived by another worker)."""
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True)
            .filter(pk=match_id, status__in=ENDED)
            .first()
        )
        if match is None or EventArchive.objects.filter(match_id=match_id).exists():
            return False
        events = list(Event.objects.filter(match_id=match_id).order_by("seq"))
        if not events or events[-1].seq != match.seq or len(events) != match.seq:
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
        # The ORM refuses to delete events (models.AppendOnlyQuerySet); the database lets these
        # go because the archive row above covers them.
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {Event._meta.db_table} WHERE match_id = %s", [match_id])
        Match.objects.filter(pk=match_id).update(log_archived=True)
    return True
