"""games.live.live's channel names: one namespace per deployment on a Redis server."""

import time
import uuid

import pytest
import redis

from games.live import live


@pytest.fixture
def listener(settings):
    if not settings.REDIS_URL:
        pytest.fail("the channel tests publish through Redis (REDIS_URL, as bin/test sets it)")
    connection = redis.Redis.from_url(settings.REDIS_URL)
    pubsub = connection.pubsub()
    yield connection, pubsub
    pubsub.close()
    connection.close()


def _heard_until(pubsub, sentinel: str) -> set[tuple[str, bytes]]:
    """Every message before `sentinel`'s: Redis delivers a PUBLISH before answering it, so
    what was published before the sentinel is all there."""
    heard: set[tuple[str, bytes]] = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
        if message is None:
            continue
        if message["channel"].decode() == sentinel:
            return heard
        heard.add((message["channel"].decode(), message["data"]))
    pytest.fail("the sentinel message never came back")


def test_a_deployment_publishes_only_under_its_own_channel_prefix(settings, listener):
    connection, pubsub = listener
    match_id, user_id = uuid.uuid4().hex, str(uuid.uuid4().int % 10**6)
    settings.LIVE_CHANNEL_PREFIX = "tenant-a:"
    ours = {f"tenant-a:match:{match_id}", f"tenant-a:user:{user_id}"}
    theirs = {f"tenant-b:match:{match_id}", f"tenant-b:user:{user_id}"}
    sentinel = f"sentinel:{match_id}"
    pubsub.subscribe(*ours, *theirs, sentinel)

    live.publish(match_id, 5)
    live.publish_seated(user_id, match_id)
    connection.publish(sentinel, "end")

    assert _heard_until(pubsub, sentinel) == {
        (f"tenant-a:match:{match_id}", b"5"),
        (f"tenant-a:user:{user_id}", match_id.encode()),
    }


def test_the_listener_reads_a_channel_back_under_its_prefix(settings):
    settings.LIVE_CHANNEL_PREFIX = "euchre-gw1:"
    assert live.channel_parts(live.channel("m-1")) == ("match", "m-1")
    assert live.channel_parts(live.user_channel(42)) == ("user", "42")
