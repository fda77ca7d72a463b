"""Who is at the table, as a process answers it (games/live/presence.py): from the shared
cache at most once every PRESENCE_READ_SECONDS a match, and at once after a change made by
a stream of its own. A mark written straight into the cache stands for another process's
stream (tests/games/http/test_streams.py has real ones in other processes)."""

import asyncio
import time
import uuid

import pytest
from django.core.cache import caches

from games.live import presence


@pytest.fixture(autouse=True)
def nothing_remembered():
    presence._read.clear()
    yield
    presence._read.clear()


def marked_elsewhere(match_id: str, seat: int) -> None:
    """What another process's stream writes when it opens (presence._mark)."""
    caches["default"].set(presence._key(match_id, seat), True, 30)


def present(match_id: str) -> set[int]:
    return presence.at_match(match_id, public=False).present


def test_another_process_s_stream_is_shown_once_this_process_s_read_is_presence_read_seconds_old(
    settings,
):
    settings.PRESENCE_READ_SECONDS = 60
    match_id = str(uuid.uuid4())
    before = time.monotonic()
    assert present(match_id) == set()
    after = time.monotonic()
    marked_elsewhere(match_id, 2)
    # Read less than PRESENCE_READ_SECONDS ago: answered from that read, the cache not
    # asked again; the read is kept for PRESENCE_READ_SECONDS from when it was made.
    assert present(match_id) == set()
    until, kept = presence._read[(match_id, False)]
    assert before + 60 <= until <= after + 60
    # Once that long has passed (the read made as long ago, rather than waited for: the
    # test does not depend on how fast the machine is), the cache is read again.
    presence._read[(match_id, False)] = (time.monotonic(), kept)
    assert present(match_id) == {2}


def test_a_stream_of_this_process_is_shown_at_once_and_its_end_too(settings):
    settings.PRESENCE_READ_SECONDS = 60
    match_id = str(uuid.uuid4())
    assert present(match_id) == set()

    async def at_the_table() -> set[int]:
        async with presence.at_table(match_id, 1):
            return present(match_id)

    assert asyncio.run(at_the_table()) == {1}
    assert present(match_id) == set()


def test_a_spectator_of_this_process_is_counted_at_once(settings):
    settings.PRESENCE_READ_SECONDS = 60
    match_id = str(uuid.uuid4())
    assert presence.at_match(match_id, public=True).watching == 0

    async def watching() -> int:
        async with presence.watching(match_id):
            return presence.at_match(match_id, public=True).watching

    assert asyncio.run(watching()) == 1
    assert presence.at_match(match_id, public=True).watching == 0


def test_with_presence_read_seconds_0_every_answer_reads_the_cache(settings):
    settings.PRESENCE_READ_SECONDS = 0
    match_id = str(uuid.uuid4())
    assert present(match_id) == set()
    marked_elsewhere(match_id, 3)
    assert present(match_id) == {3}
    assert presence._read == {}


def test_a_process_remembers_a_bounded_number_of_matches(settings, monkeypatch):
    settings.PRESENCE_READ_SECONDS = 60
    monkeypatch.setattr(presence, "_READ_LIMIT", 5)
    for _ in range(12):
        present(str(uuid.uuid4()))
        assert len(presence._read) <= 5
