"""A match being played keeps about one hand as rows (issue 33): each hand over moves into a
compressed chunk (games.log.archive.compact_match, queued as the next hand is dealt). Every
reader gives the same answers from the chunks, the database still refuses to change or
lose an event, and the compaction is safe against itself, the readers and the archiver."""

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import threading
import zlib

import pytest
import redis
from celery import current_app
from django.db import connections
from django.urls import reverse

from games.http import feed
from games.log import archive, compression, eventlog
from games.log import events as V
from games.models import Event, EventArchive, EventChunk, Match
from games.play import later
from tests.bots.worker_support import use_broker
from tests.conftest import make_player
from tests.games import helpers
from tests.games.log.test_archive import ROOT, answers, fields, refused, rows_of
from tests.games.test_commands import play_to_the_end


@pytest.fixture
def alice(db):
    return make_player("alice")


@pytest.fixture
def finished(alice):
    """A finished match of two hands at least (a hand scores 4 points at most)."""
    user, _client = alice
    return play_to_the_end(user, seed=3, options={"target_score": 5})


def deals(match) -> list[int]:
    """The seqs of a match's (or match id's) deals."""
    return [e.seq for e in eventlog.events_of(match) if e.type == V.HAND_DEALT]


def test_the_hands_over_move_into_one_chunk_and_every_reader_answers_the_same(alice, finished):
    _user, client = alice
    before = answers(finished, client)
    whole = fields(eventlog.events_of(finished))
    newest_deal = deals(finished)[-1]
    eventlog._cache.clear()  # the state is folded from the log, not remembered

    assert archive.compact_match(finished.pk) == newest_deal - 1

    chunk = EventChunk.objects.get(match=finished)
    assert (chunk.first_seq, chunk.last_seq) == (1, newest_deal - 1)
    assert chunk.last_event_id == whole[newest_deal - 2][0]
    assert rows_of(finished) == finished.seq - newest_deal + 1  # the last hand's rows
    assert fields(eventlog.events_of(finished)) == whole
    for after, upto in ((0, 5), (3, newest_deal + 2), (newest_deal - 1, None), (7, 9)):
        assert fields(eventlog.events_of(finished, after=after, upto=upto)) == [
            e for e in whole if e[2] > after and (upto is None or e[2] <= upto)
        ]
    eventlog._cache.clear()
    assert answers(finished, client) == before
    assert archive.compact_match(finished.pk) == 0  # nothing more until another hand ends


def test_the_archive_takes_in_the_chunks(alice, finished, settings):
    _user, client = alice
    whole = fields(eventlog.events_of(finished))
    before = answers(finished, client)
    archive.compact_match(finished.pk)
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0

    assert archive.archive_due() == 1

    assert not EventChunk.objects.filter(match=finished).exists() and rows_of(finished) == 0
    stored = EventArchive.objects.get(match=finished)
    assert (stored.count, stored.last_seq) == (len(whole), finished.seq)
    eventlog._cache.clear()
    assert fields(eventlog.events_of(finished)) == whole
    assert answers(finished, client) == before


def test_a_match_being_played_keeps_one_hand_as_rows_and_its_state(db):
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = helpers.four_player_match(clients)
    compacted = 0
    while len(deals(match_id)) < 4:  # play on, compacting as each hand ends, as a worker does
        state = helpers.view(clients[0], match_id)
        turn = state["view"]["turn"]
        legal = helpers.view(clients[turn], match_id)["view"]["legal_actions"]
        assert helpers.act(clients[turn], match_id, legal[0]).status_code == 200
        compacted += archive.compact_match(match_id)
    match = Match.objects.get(pk=match_id)
    assert compacted == deals(match)[-1] - 1
    first_row = Event.objects.filter(match=match).order_by("seq").first()
    assert first_row.type == V.HAND_DEALT and first_row.seq == deals(match)[-1]
    assert EventChunk.objects.filter(match=match).count() == 3  # a chunk a hand over
    eventlog._cache.clear()
    assert eventlog.load(match).state.hand_number == 4
    state = helpers.view(clients[0], match_id)
    legal = helpers.view(clients[state["view"]["turn"]], match_id)["view"]["legal_actions"]
    assert helpers.act(clients[state["view"]["turn"]], match_id, legal[0]).status_code == 200


# ---------------------------------------------------------------- the database's promise


def test_the_database_refuses_to_delete_an_event_no_chunk_covers_or_to_change_a_chunk(finished):
    match = str(finished.pk)
    with connections["default"].cursor() as cursor:  # a chunk covering seqs 3..5 only
        cursor.execute(
            "INSERT INTO games_eventchunk (match_id, first_seq, last_seq, last_event_id, data,"
            " sha256) VALUES (%s, 3, 5, 0, '', '')",
            [match],
        )
    refused("DELETE FROM games_event WHERE match_id = %s AND seq IN (2, 6)", [match])
    refused("UPDATE games_event SET seat = 1 WHERE match_id = %s AND seq = 4", [match])
    refused("UPDATE games_eventchunk SET last_seq = 9 WHERE match_id = %s", [match])
    refused("DELETE FROM games_eventchunk WHERE match_id = %s", [match])
    with connections["default"].cursor() as cursor:
        cursor.execute("DELETE FROM games_event WHERE match_id = %s AND seq <= 5 AND seq >= 3",
                       [match])  # fmt: skip
        assert cursor.rowcount == 3


def test_the_orm_refuses_to_change_or_delete_a_chunk(finished):
    archive.compact_match(finished.pk)
    chunk = EventChunk.objects.get(match=finished)
    for attempt in (chunk.save, chunk.delete, EventChunk.objects.all().delete):
        with pytest.raises(TypeError, match="append-only"):
            attempt()
    with pytest.raises(TypeError, match="append-only"):
        EventChunk.objects.update(last_seq=1)


def test_a_chunk_is_compressed_with_the_preset_dictionary_it_names(finished):
    archive.compact_match(finished.pk)
    chunk = EventChunk.objects.get(match=finished)
    data = bytes(chunk.data)
    raw = archive.canonical(archive.decode(chunk))
    assert data[1] & 0x20  # zlib's FDICT: the header names the dictionary (its Adler-32)
    assert int.from_bytes(data[2:6], "big") == zlib.adler32(compression.CHUNK_DICTIONARY)
    assert len(data) < len(zlib.compress(raw, 9))  # (by about 30 % for one hand)
    unknown = zlib.compressobj(9, zdict=b"another dictionary")
    chunk.data = unknown.compress(raw) + unknown.flush()
    with pytest.raises(archive.ArchiveCorrupt, match="dictionary"):
        archive.decode(chunk)


def test_a_chunk_whose_bytes_were_changed_is_refused_not_read(finished):
    archive.compact_match(finished.pk)
    chunk = EventChunk.objects.get(match=finished)
    raw = archive.canonical(archive.decode(chunk))
    chunk.data = zlib.compress(raw.replace(b'"bid"', b'"bad"', 1))  # in memory only
    with pytest.raises(archive.ArchiveCorrupt):
        archive.decode(chunk)


def test_the_embedded_databases_triggers_keep_the_chunks_promise(tmp_path):
    """SQLite (the embedded default) after every migration: an event leaves only under a
    chunk or an archive of its match; a chunk is never changed, and leaves only under an
    archive."""
    path = tmp_path / "embedded.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{path}"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO games_event (match_id, seq, type, seat, payload, created_at) VALUES"
        " ('m', 1, 'bid', 0, '{}', '2026-01-01'), ('m', 2, 'bid', 0, '{}', '2026-01-01')"
    )
    db.execute(
        "INSERT INTO games_eventchunk (match_id, first_seq, last_seq, last_event_id, data,"
        " sha256) VALUES ('m', 1, 1, 1, x'', '')"
    )

    def refused(sql: str) -> None:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)

    refused("DELETE FROM games_event WHERE seq = 2")
    refused("UPDATE games_eventchunk SET last_seq = 2")
    refused("DELETE FROM games_eventchunk")
    db.execute("DELETE FROM games_event WHERE seq = 1")
    db.execute(
        "INSERT INTO games_eventarchive (match_id, data, count, last_seq, first_event_id,"
        " last_event_id, sha256, archived_at) VALUES ('m', x'', 2, 2, 1, 2, '', '2026-01-01')"
    )
    db.execute("DELETE FROM games_eventchunk")
    assert db.execute("SELECT count(*) FROM games_eventchunk").fetchone() == (0,)


EMBEDDED_MATCH = """
from django.core.management import call_command
from django.contrib.auth import get_user_model
from django.test import override_settings
from games.log import archive, compression, eventlog
from games.play import services
from games.models import EventArchive, EventChunk, Match
call_command("migrate", verbosity=0)
user = get_user_model().objects.create_user("alice")
seats = [services.SeatSpec("me")] + [services.SeatSpec("computer", "random")] * 3
match = services.match_create(user=user, seats=seats, options={"target_score": 5})
while (now := Match.objects.get(pk=match.pk)).status != "finished":
    state = eventlog.load(now).state
    services.action_submit(match_id=match.pk, action=state.legal_actions()[0].to_dict(),
                           user=user, idempotency_key=f"key-{now.seq}")
whole = [(e.id, e.seq, e.payload) for e in eventlog.events_of(match)]
assert archive.compact_match(match.pk) > 0 and EventChunk.objects.count() == 1
assert [(e.id, e.seq, e.payload) for e in eventlog.events_of(match)] == whole
with override_settings(EVENT_ARCHIVE_AFTER_MINUTES=0):
    assert archive.archive_due() == 1
assert not EventChunk.objects.exists() and EventArchive.objects.count() == 1
assert [(e.id, e.seq, e.payload) for e in eventlog.events_of(match)] == whole
print("embedded: OK")
"""


def test_the_embedded_database_chunks_and_archives_a_match_it_played(tmp_path):
    """SQLite (the embedded default, in-process mode with no timer threads here): a match
    played with keyed actions, compacted and archived, reads the same."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'embedded.sqlite3'}",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "TURN_TIMER_THREADS": "0",
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
    }
    script = "import django; django.setup()\n" + EMBEDDED_MATCH
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0 and "embedded: OK" in done.stdout, done.stderr[-3000:]


# ---------------------------------------------------------------- racing


@pytest.mark.django_db(transaction=True)
def test_two_compactions_at_once_write_one_chunk_and_readers_always_get_the_whole_log():
    user, _client = make_player("alice")
    matches = [play_to_the_end(user, seed=s, options={"target_score": 5}) for s in (1, 2)]
    whole = {m.pk: fields(eventlog.events_of(m)) for m in matches}
    start, moved, errors = threading.Barrier(2), [], []

    def compact() -> None:
        try:
            start.wait(10)
            moved.append(sum(archive.compact_match(m.pk) for m in matches))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=compact) for _ in range(2)]
    for worker in workers:
        worker.start()
    reads = 0
    while any(w.is_alive() for w in workers) or reads < 6:
        for match in matches:
            assert fields(eventlog.events_of(match)) == whole[match.pk]
            reads += 1
    for worker in workers:
        worker.join(30)
    assert not errors
    assert sum(moved) == sum(deals(m)[-1] - 1 for m in matches)  # each event moved once
    assert all(EventChunk.objects.filter(match=m).count() == 1 for m in matches)


@pytest.mark.django_db(transaction=True)
def test_a_compaction_that_the_archiver_overtook_writes_nothing(settings):
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    user, _client = make_player("alice")
    match = play_to_the_end(user, seed=5, options={"target_score": 5})
    whole = fields(eventlog.events_of(match))
    assert archive.archive_match(match.pk)

    assert archive.compact_match(match.pk) == 0

    assert not EventChunk.objects.exists()
    assert fields(eventlog.events_of(match)) == whole


# ---------------------------------------------------------------- asking for it


@pytest.mark.django_db(transaction=True)
def test_a_hand_dealt_after_one_ended_asks_the_default_queue_for_its_chunk(settings):
    """Where a worker runs the tasks: the commit of the action that ended a hand (and dealt
    the next) publishes compact_log, a few milliseconds of work, to the default queue (next
    to the computer turns, not behind the reviews); no other action does."""
    clients = [make_player(name)[1] for name in ("s", "w", "n", "e")]
    match_id = helpers.four_player_match(clients)  # people only: no computer turns queued
    previous, eager = current_app.conf.broker_url, current_app.conf.task_always_eager
    broker = settings.CELERY_BROKER_URL
    use_broker(broker)
    queues = redis.Redis.from_url(broker)
    default = current_app.conf.task_default_queue
    queues.delete(default)
    try:
        while len(deals(match_id)) < 2:
            state = helpers.view(clients[0], match_id)
            turn = state["view"]["turn"]
            legal = helpers.view(clients[turn], match_id)["view"]["legal_actions"]
            assert queues.llen(default) == 0  # nothing asked before the hand ended
            assert helpers.act(clients[turn], match_id, legal[0]).status_code == 200
        sent = [json.loads(m)["headers"] for m in queues.lrange(default, 0, -1)]
        assert [(h["task"], h["argsrepr"]) for h in sent] == [
            (later.COMPACT_LOG, repr((str(match_id),)))
        ]
        assert later.queue_of(later.COMPACT_LOG) is None  # the default queue
    finally:
        queues.delete(default)
        use_broker(previous)
        current_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = eager


@pytest.mark.django_db(transaction=True)
def test_the_feed_resumes_across_a_chunked_match_with_the_same_items(settings):
    user, client = make_player("alice")
    first = play_to_the_end(user, seed=3, options={"target_score": 5})
    cursor = 2 * Event.objects.filter(match=first).order_by("id")[3].id
    before = asyncio.run(feed._backlog(user, cursor))
    now = asyncio.run(feed._backlog(user, None))
    assert {item["match"] for _pos, item in before} == {str(first.pk)}

    assert archive.compact_match(first.pk) > 0

    assert asyncio.run(feed._backlog(user, cursor)) == before
    assert asyncio.run(feed._backlog(user, None)) == now


def test_the_admins_match_page_counts_the_chunked_events_and_checks_the_whole_log(
    admin_client, finished
):
    archive.compact_match(finished.pk)
    chunks = EventChunk.objects.filter(match=finished).count()
    page = admin_client.get(reverse("admin:games_match_change", args=[finished.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert f"{finished.seq} events: " in text and f"in {chunks} chunks" in text
    assert f"the newest {rows_of(finished)} as rows" in text
    assert f"OK: {finished.seq} events" in text  # the log check read the chunk and the rows
