"""games.live.live: one read of the log serves every client of a match."""

import asyncio
import random
import threading

import pytest
from django.test import TestCase

from games.live import live
from games.models import Match
from games.people import quickplay
from games.play import services
from games.play.services import SeatSpec

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def match(django_user_model) -> Match:
    alice = django_user_model.objects.create_user("alice")
    with TestCase.captureOnCommitCallbacks(execute=False):
        return services.match_create(user=alice, seats=[SeatSpec("me")] + [SeatSpec("open")] * 3)


def test_idle_clients_of_a_match_read_the_log_once_between_them(match):
    async def scenario() -> tuple[int, list[list[int]]]:
        watch = live.Watch(str(match.pk))
        seen = [[e.seq for e in await watch.events_after(0)] for _client in range(50)]
        for _keepalive in range(3):  # every client polls at its keep-alive, all at once
            for _client in range(50):
                assert await watch.events_after(match.seq, poll=True) == []
        return watch.reads, seen

    reads, seen = asyncio.run(scenario())
    assert seen == [list(range(1, match.seq + 1))] * 50
    assert reads == 2  # the catch-up, and one poll: the others fall within the same second


def test_a_client_caught_up_with_no_new_event_does_not_read_again(match):
    async def scenario() -> int:
        watch = live.Watch(str(match.pk))
        await watch.events_after(match.seq)  # nothing after it: an empty read
        for _ in range(20):
            assert await watch.events_after(match.seq) == []
        return watch.reads

    assert asyncio.run(scenario()) == 1


def test_news_of_a_new_event_is_read_once_for_every_client(match, django_user_model):
    async def scenario() -> tuple[int, list[list[int]]]:
        watch = live.Watch(str(match.pk))
        await watch.events_after(match.seq)
        await asyncio.to_thread(_join, match, django_user_model)
        await watch.heard(match.seq + 1)
        got = [[e.seq for e in await watch.events_after(match.seq)] for _client in range(30)]
        return watch.reads, got

    reads, got = asyncio.run(scenario())
    assert reads == 2
    assert got == [[match.seq + 1]] * 30


def _join(match: Match, django_user_model) -> None:
    bob = django_user_model.objects.create_user("bob")
    quickplay.match_join(match_id=match.pk, user=bob)


def test_clients_hanging_up_mid_wait_leave_the_watch_usable():
    """Clients waiting with short timeouts, news arriving, and every client cancelled at
    a random moment (hanging up), round after round: no client fails or hangs, and the
    condition's lock ends free, so the next client still hears of the next event."""
    rng = random.Random(7)

    async def client(watch: live.Watch, errors: list[str]) -> None:
        last = watch.latest
        try:
            while True:
                if await watch.wait_beyond(last, 0.02):
                    last = watch.latest
                await asyncio.sleep(0)
        except RuntimeError as exc:
            errors.append(str(exc))

    async def scenario() -> tuple[list[str], int, bool, bool]:
        watch, errors, hung = live.Watch("m"), [], 0
        for _round in range(60):
            clients = [asyncio.create_task(client(watch, errors)) for _ in range(20)]
            await asyncio.sleep(rng.random() * 0.05)
            if rng.random() < 0.5:
                asyncio.get_running_loop().create_task(watch.heard(watch.latest + 1))
            await asyncio.sleep(rng.random() * 0.005)
            for task in clients:
                task.cancel()
            _done, pending = await asyncio.wait(clients, timeout=30)
            hung += len(pending)
        locked = watch.changed.locked()
        waiter = asyncio.create_task(watch.wait_beyond(watch.latest, timeout=60))
        await asyncio.sleep(0.01)
        await watch.heard(watch.latest + 1)
        return errors, hung, locked, await waiter

    outcome: list = []  # in a thread of its own, so that a watch that hangs fails the test
    runner = threading.Thread(target=lambda: outcome.append(asyncio.run(scenario())), daemon=True)
    runner.start()
    runner.join(60)
    assert outcome, "the clients hung"
    errors, hung, locked, heard = outcome[0]
    assert (errors, hung, locked, heard) == ([], 0, False, True)


def test_a_poll_that_finds_an_unannounced_event_wakes_the_other_clients(match, django_user_model):
    """A message lost on the way: the first client to poll finds the event in the log, and
    the others, waiting for news, wake at once rather than at their own keep-alive."""

    async def scenario() -> bool:
        watch = live.Watch(str(match.pk))
        await watch.events_after(match.seq)
        # Its own keep-alive an hour away: woken within the generous minute below, it was
        # the poll that woke it.
        waiting = asyncio.create_task(watch.wait_beyond(match.seq, timeout=3600))
        await asyncio.to_thread(_join, match, django_user_model)  # no message reaches `watch`
        assert [e.seq for e in await watch.events_after(match.seq, poll=True)] == [match.seq + 1]
        done, _pending = await asyncio.wait({waiting}, timeout=60)
        woke = waiting in done and waiting.result()
        waiting.cancel()
        return woke

    assert asyncio.run(scenario())
