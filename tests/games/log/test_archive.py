"""A finished match's log moved into one compressed archive row (games.log.archive, issue 15's
storage goal): every reader gives the same answers as before, the database still refuses
to change or lose an event, and the archiver is safe to run twice or twice at once."""

import asyncio
import io
import json
import os
import sqlite3
import subprocess
import sys
import threading
import zlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, connections, transaction
from django.test import AsyncClient, RequestFactory
from django.utils import timezone

from bots.services import review_build
from games import engine as E
from games.admin import hand_record
from games.http import feed
from games.log import archive, eventlog, hands, log_check, projections
from games.models import Event, EventArchive, Hand, Match, MatchStatus
from games.play import later, selectors
from games.tasks import archive_events
from tests.conftest import make_player
from tests.games import helpers
from tests.games.people.test_records import _four_again, _snapshot, four_people, play_all, quick
from tests.games.test_commands import play_to_the_end

ROOT = Path(__file__).resolve().parents[3]
FIELDS = ("id", "match_id", "seq", "type", "seat", "payload", "created_at")


def fields(events: list[Event]) -> list[tuple]:
    return [tuple(getattr(e, f) for f in FIELDS) for e in events]


def rows_of(match: Match) -> int:
    return Event.objects.filter(match=match).count()


@pytest.fixture
def alice(db):
    return make_player("alice")


@pytest.fixture
def finished(alice):
    user, _client = alice
    return play_to_the_end(user, seed=3, options={"target_score": 3})


@pytest.fixture
def archive_now(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0


# ---------------------------------------------------------------- the archive itself


def test_an_archived_log_gives_back_every_field_of_every_event(finished, archive_now):
    before = eventlog.events_of(finished)
    assert rows_of(finished) == len(before) == finished.seq

    assert archive_events() == 1

    assert rows_of(finished) == 0
    assert Match.objects.get(pk=finished.pk).log_archived
    stored = EventArchive.objects.get(match=finished)
    assert (stored.count, stored.last_seq) == (len(before), finished.seq)
    assert (stored.first_event_id, stored.last_event_id) == (before[0].id, before[-1].id)
    after = eventlog.events_of(finished)
    assert fields(after) == fields(before)
    assert [list(e.payload) for e in after] == [list(e.payload) for e in before]  # key order
    assert fields(eventlog.events_of(finished, after=10, upto=20)) == fields(before[10:20])
    with pytest.raises(TypeError):
        after[0].save()  # as a row read from the table: never updated


def test_an_archive_whose_bytes_were_changed_is_refused_not_read(finished, archive_now):
    archive_events()
    stored = EventArchive.objects.get(match=finished)

    raw = zlib.decompress(bytes(stored.data)).replace(b'"bid"', b'"bad"', 1)
    stored.data = zlib.compress(raw)  # in memory only: the row cannot be updated
    with pytest.raises(archive.ArchiveCorrupt):
        archive.decode(stored)


def test_a_match_being_played_or_just_finished_is_left_untouched(alice, finished, settings):
    _user, client = alice
    playing = helpers.create_match(client)["id"]
    helpers.act(client, playing, helpers.view(client, playing)["view"]["legal_actions"][0])
    playing_rows = rows_of(playing)

    assert archive_events() == 0  # finished a moment ago: kept as rows for an hour
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    assert archive.archive_match(playing) is False
    assert archive_events() == 1  # the finished one only

    assert rows_of(playing) == playing_rows > 0
    assert not EventArchive.objects.filter(match_id=playing).exists()
    assert helpers.view(client, playing)["status"] == "active"


def test_the_matches_to_archive_are_found_by_an_index_not_a_scan_of_every_match(db):
    """Run every few minutes for ever: it reads only the ended matches not yet archived."""
    due = archive.Match.objects.filter(
        status__in=archive.ENDED, log_archived=False, finished_at__lt=timezone.now()
    ).order_by("finished_at")[:10]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty table is scanned anyway
        plan = due.explain()
    assert "match_log_to_archive" in plan


def test_archiving_again_changes_nothing(finished, archive_now):
    assert archive_events() == 1
    stored = EventArchive.objects.values().get(match=finished)
    assert archive_events() == 0
    assert archive.archive_match(finished.pk) is False
    assert EventArchive.objects.values().get(match=finished) == stored


def test_an_abandoned_match_is_archived_too(alice, archive_now):
    _user, client = alice
    match_id = helpers.create_match(client)["id"]
    assert client.post(f"/api/v1/matches/{match_id}/leave").status_code == 200
    before = fields(eventlog.events_of(match_id))
    assert Match.objects.get(pk=match_id).status == MatchStatus.ABANDONED
    assert archive_events() == 1
    assert fields(eventlog.events_of(match_id)) == before


# ---------------------------------------------------------------- the database's promise


def refused(sql: str, params=()) -> None:
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def test_the_database_refuses_to_delete_an_event_no_archive_covers(finished):
    match = str(finished.pk)
    refused("DELETE FROM games_event WHERE match_id = %s", [match])
    refused("UPDATE games_event SET type = 'bid' WHERE match_id = %s AND seq = 1", [match])
    with connection.cursor() as cursor:  # an archive row covering seqs 1..5 only
        cursor.execute(
            "INSERT INTO games_eventarchive (match_id, data, count, last_seq, first_event_id,"
            " last_event_id, sha256, archived_at) VALUES (%s, '', 5, 5, 0, 0, '', now())",
            [match],
        )
    refused("DELETE FROM games_event WHERE match_id = %s AND seq = 6", [match])
    refused("UPDATE games_event SET seat = 1 WHERE match_id = %s AND seq = 2", [match])
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM games_event WHERE match_id = %s AND seq <= 5", [match])
        assert cursor.rowcount == 5
    assert rows_of(finished) == finished.seq - 5


def test_the_database_refuses_to_change_or_delete_an_archive(finished, archive_now):
    archive_events()
    match = str(finished.pk)
    refused("UPDATE games_eventarchive SET count = 1 WHERE match_id = %s", [match])
    refused("DELETE FROM games_eventarchive WHERE match_id = %s", [match])


def test_the_orm_refuses_to_change_or_delete_an_event_or_an_archive(alice, finished, archive_now):
    _user, client = alice
    playing = helpers.create_match(client)["id"]
    archive_events()
    event = Event.objects.filter(match_id=playing).first()
    stored = EventArchive.objects.get(match=finished)
    for row in (event, stored):
        rows = type(row).objects.all()
        for attempt in (row.save, row.delete, rows.delete, rows.update):
            with pytest.raises(TypeError, match="append-only"):
                attempt()


# ---------------------------------------------------------------- every reader, the same answers


def answers(match: Match, client) -> dict:
    """What every reader of the log says of the match."""
    match.refresh_from_db()
    export = log_check.export_match_log(match)
    export.pop("exported_at")
    log = hands.log_by_hand(match)
    url = f"/api/v1/matches/{match.pk}"
    return {
        "export": export,
        "verify": str(log_check.check_log(export["events"])),
        "replay": selectors.replay_get(match=match),
        "events for the seat": selectors.events_for_seat(match=match, seat=0, after=7),
        "events for a spectator": selectors.events_for_seat(match=match, seat=None),
        "hands": [(h.number, h.start, h.end, fields(h.events)) for h in log.hands],
        "hand pages": [hand_record(match, h.number) for h in log.hands],
        "state": E.full_view(eventlog.load(match).state),
        "events endpoint": client.get(f"{url}/events").json(),
        "replay endpoint": client.get(f"{url}/replay").json(),
        "view": client.get(url).json(),
    }


def test_every_reader_answers_the_same_before_and_after_archiving(alice, finished, archive_now):
    _user, client = alice
    before = answers(finished, client)
    eventlog._cache.clear()  # the state is folded from the log, not remembered
    archive_events()
    assert rows_of(finished) == 0
    eventlog._cache.clear()
    assert answers(finished, client) == before


def test_the_review_of_an_archived_match_is_the_same(alice, finished, archive_now, settings):
    _user, client = alice
    settings.REVIEW_SAMPLES = 4
    assert review_build(match_id=finished.pk, force=True)
    url = f"/api/v1/matches/{finished.pk}/review"
    built = ("seconds", "built_at")  # when and how fast it was built: not what it says
    before = {k: v for k, v in client.get(url).json().items() if k not in built}
    assert before["status"] == "ready" and before["players"]
    archive_events()
    assert review_build(match_id=finished.pk, force=True)  # rebuilt from the archive
    assert {k: v for k, v in client.get(url).json().items() if k not in built} == before


def exported_and_verified(match: Match, path, capsys) -> tuple[dict, str]:
    out = io.StringIO()
    call_command("export_match", str(match.pk), stdout=out)
    path.write_text(out.getvalue())
    call_command("verify_log", str(path))
    document = json.loads(out.getvalue())
    document.pop("exported_at")
    return document, capsys.readouterr().out


def test_export_match_and_verify_log_read_an_archived_log(finished, archive_now, tmp_path, capsys):
    before = exported_and_verified(finished, tmp_path / "before.json", capsys)
    assert "OK" in before[1]
    archive_events()
    assert exported_and_verified(finished, tmp_path / "after.json", capsys) == before


def test_projections_rebuilt_from_an_archived_log_are_the_same(finished, archive_now):
    hands_before = list(Hand.objects.filter(match=finished).values())
    summary = Match.objects.values().get(pk=finished.pk)
    archive_events()
    projections.rebuild(finished)
    assert list(Hand.objects.filter(match=finished).values()) != []
    strip = [{k: v for k, v in h.items() if k != "id"} for h in hands_before]
    after = [
        {k: v for k, v in h.items() if k != "id"}
        for h in Hand.objects.filter(match=finished).values()
    ]
    assert after == strip
    rebuilt = Match.objects.values().get(pk=finished.pk)
    not_of_the_log = ("updated_at", "log_archived")
    assert {k: v for k, v in rebuilt.items() if k not in not_of_the_log} == {
        k: v for k, v in summary.items() if k not in not_of_the_log
    }
    assert rebuilt["log_archived"]


@pytest.mark.django_db(transaction=True)
def test_records_and_ratings_rebuilt_from_archived_logs_are_the_same(settings):
    clients, first = four_people(target=1)
    play_all(clients, first)
    play_all(clients, _four_again(clients))
    quick(clients[0])
    names = ("alice", "bob", "carol", "dave")
    before = _snapshot(clients[0], names)
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    assert archive.archive_match(first) is True  # one archived, the others still rows
    assert archive.archive_due(limit=1) == 1
    assert EventArchive.objects.count() == 2 and Event.objects.exists()

    call_command("rebuild_projections", "--all", stdout=open("/dev/null", "w"))

    assert _snapshot(clients[0], names) == before


# ---------------------------------------------------------------- readers racing the archiver


@pytest.mark.django_db(transaction=True)
def test_a_reader_during_the_archivers_transaction_reads_the_rows_then_the_archive(settings):
    """READ COMMITTED: until the archiver commits, a reader sees every row; from its commit
    on, no row and the archive (inserted in the same transaction)."""
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, _client = make_player("alice")
    match = play_to_the_end(user, seed=5, options={"target_score": 1})
    whole = fields(eventlog.events_of(match))
    archived, go, errors = threading.Event(), threading.Event(), []

    def archiver() -> None:
        try:
            with transaction.atomic():
                assert archive.archive_match(match.pk)
                archived.set()
                go.wait(10)
        except Exception as exc:  # reported by the test below
            errors.append(exc)
        finally:
            connections.close_all()

    worker = threading.Thread(target=archiver)
    worker.start()
    assert archived.wait(10)
    assert fields(eventlog.events_of(match)) == whole and rows_of(match) == len(whole)
    go.set()
    worker.join(10)
    assert not errors
    assert rows_of(match) == 0
    assert fields(eventlog.events_of(match)) == whole


@pytest.mark.django_db(transaction=True)
def test_readers_while_the_archiver_runs_always_get_the_whole_log(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, _client = make_player("alice")
    matches = [play_to_the_end(user, seed=s, options={"target_score": 1}) for s in (1, 2, 3)]
    whole = {m.pk: fields(eventlog.events_of(m)) for m in matches}
    done, errors = threading.Event(), []

    def archiver() -> None:
        try:
            for match in matches:
                archive.archive_match(match.pk)
        except Exception as exc:
            errors.append(exc)
        finally:
            done.set()
            connections.close_all()

    worker = threading.Thread(target=archiver)
    worker.start()
    reads = 0
    while not done.is_set() or reads < 6:
        for match in matches:
            assert fields(eventlog.events_of(match)) == whole[match.pk]
            reads += 1
    worker.join(10)
    assert not errors and EventArchive.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_two_archivers_at_once_archive_each_match_once(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, _client = make_player("alice")
    matches = [play_to_the_end(user, seed=s, options={"target_score": 1}) for s in (1, 2)]
    start, counts, errors = threading.Barrier(2), [], []

    def run() -> None:
        try:
            start.wait(10)
            counts.append(archive.archive_due())
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=run) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert not errors
    assert sum(counts) == 2 and EventArchive.objects.count() == 2
    assert all(rows_of(m) == 0 for m in matches)


# ---------------------------------------------------------------- the stream and the feed


def stream_body(match_id, token: str, after: int = 0) -> bytes:
    async def read() -> bytes:
        response = await AsyncClient().get(
            f"/api/v1/matches/{match_id}/stream",
            {"after": after},
            headers={"Authorization": token},
        )
        assert response.status_code == 200
        return b"".join([chunk async for chunk in response.streaming_content])

    return asyncio.run(read())


@pytest.mark.django_db(transaction=True)
def test_a_stream_of_an_archived_match_sends_the_same_log(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, client = make_player("alice")
    token = client._credentials["HTTP_AUTHORIZATION"]
    match = play_to_the_end(user, seed=3, options={"target_score": 1})
    before = [stream_body(match.pk, token), stream_body(match.pk, token, after=9)]
    assert b"match_finished" in before[0] and b"id: 9\n" not in before[1]
    assert archive_events() == 1
    assert [stream_body(match.pk, token), stream_body(match.pk, token, after=9)] == before


@pytest.mark.django_db(transaction=True)
def test_the_feed_resumes_across_an_archived_match_with_the_same_items(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, client = make_player("alice")
    helpers.create_match(client)  # your turn there; its events are older than the others
    first = play_to_the_end(user, seed=3, options={"target_score": 1})
    second = play_to_the_end(user, seed=4, options={"target_score": 1})
    cursor = 2 * Event.objects.filter(match=first).order_by("id")[5].id
    before = asyncio.run(feed._backlog(user, cursor))
    now = asyncio.run(feed._backlog(user, None))
    assert {item["match"] for _pos, item in before} >= {str(first.pk), str(second.pk)}
    assert [item["type"] for _pos, item in now] == ["your_turn"]

    assert archive.archive_match(first.pk) and archive.archive_match(second.pk)

    assert asyncio.run(feed._backlog(user, cursor)) == before
    assert asyncio.run(feed._backlog(user, None)) == now  # its position never goes back


def test_the_embedded_databases_triggers_keep_the_same_promise(tmp_path):
    """SQLite (the embedded default) after every migration: an event is never changed, and
    deleted only under an archive row of its match; an archive is never changed."""
    path = tmp_path / "embedded.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO games_event (match_id, seq, type, seat, payload, created_at)"
        " VALUES ('m', 1, 'bid', 0, '{}', '2026-01-01'), ('m', 2, 'bid', 0, '{}', '2026-01-01')"
    )

    def refused(sql: str) -> None:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)

    refused("UPDATE games_event SET seat = 1")
    refused("DELETE FROM games_event")
    db.execute(
        "INSERT INTO games_eventarchive (match_id, data, count, last_seq, first_event_id,"
        " last_event_id, sha256, archived_at) VALUES ('m', x'', 1, 1, 1, 1, '', '2026-01-01')"
    )
    refused("DELETE FROM games_event WHERE seq = 2")
    refused("UPDATE games_event SET seat = 1 WHERE seq = 1")
    db.execute("DELETE FROM games_event WHERE seq = 1")
    refused("UPDATE games_eventarchive SET count = 2")
    refused("DELETE FROM games_eventarchive")
    assert db.execute("SELECT seq FROM games_event").fetchall() == [(2,)]


def test_beat_sends_the_archiver_to_the_review_queue(settings):
    """Background work nobody waits for: never in a computer turn's queue."""
    from euchre_service.celery import app

    entry = app.conf.beat_schedule["archive-events"]
    assert entry["task"] == later.ARCHIVE_EVENTS
    assert entry["options"]["queue"] == settings.CELERY_REVIEW_QUEUE
    assert later.queue_of(later.ARCHIVE_EVENTS) == settings.CELERY_REVIEW_QUEUE
    assert app.tasks[later.ARCHIVE_EVENTS].run is archive_events


@pytest.mark.django_db(transaction=True)
def test_a_cursor_whose_next_events_were_archived_long_ago_is_told_to_resync(settings):
    """The feed's retention (FEED_RETENTION_SECONDS) counts archived events too: the rows
    after the cursor are gone, and a newer match's rows must not make it look fresh."""
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, client = make_player("alice")
    old = play_to_the_end(user, seed=3, options={"target_score": 1})
    cursor = 2 * Event.objects.filter(match=old).order_by("id")[3].id
    archive.archive_match(old.pk)
    helpers.create_match(client)  # events of now, after the cursor
    request = RequestFactory().get(
        "/", HTTP_AUTHORIZATION=client._credentials["HTTP_AUTHORIZATION"]
    )

    assert asyncio.run(feed._start(request, cursor)) == user  # ended a moment ago: kept
    long_ago = timezone.now() - timedelta(seconds=settings.FEED_RETENTION_SECONDS + 60)
    Match.objects.filter(pk=old.pk).update(finished_at=long_ago)
    with pytest.raises(feed.Gone) as expired:
        asyncio.run(feed._start(request, cursor))
    assert expired.value.code == "feed_cursor_expired"
