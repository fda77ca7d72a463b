"""games.live: one read of the log serves every client of a match."""

import asyncio

import pytest
from django.test import TestCase

from games import live, services
from games.models import Match
from games.services import SeatSpec

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
    services.match_join(match_id=match.pk, user=bob)
