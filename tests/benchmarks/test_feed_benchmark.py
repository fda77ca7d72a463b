"""benchmarks/feed.py keeps working, at tiny sizes (its figures are for people, not
asserted): per-user feeds held by one uvicorn process, and commit -> your_turn on the
right person's feed."""

import re

import pytest

from tests.benchmarks.support import run_benchmark, server_args

TINY = "--max-feeds 8 --actions 4 --matches-played 2 --keepalive 1"


@pytest.mark.slow
def test_the_feed_benchmark_holds_feeds_and_delivers_each_turn_to_its_person():
    out = run_benchmark("feed.py", *TINY.split(), *server_args("feed_smoke"), timeout=180)
    assert "actions measured: 4; your_turn missing (10 s): 0; on the wrong feed: 0" in out, out
    assert re.search(r"feeds held by one process: 8 \(threads \d+ before any", out), out
    # The lower bound (arrival - answer read) is below zero when the feed's event arrives
    # before the POST's answer has been read, as on a quiet machine: -0.5..25.6 ms.
    delay = r"commit -> the right person's your_turn: p50 -?[\d.]+\.\.-?[\d.]+ ms"
    assert re.search(delay, out), out
