"""benchmarks/api.py keeps working, at tiny sizes (its figures are for people, not
asserted): the action and ceiling loops in turn, each round's ratio, the match row's
updates and the WAL a move, the SQL census, and each round's ratios with their median."""

import re

import pytest

from tests.benchmarks.support import run_benchmark, server_args

TINY = "--bots none --clients 2 --rounds 2 --seconds 2 --warmup 0.5 --skip-post-only"


@pytest.mark.slow
def test_the_api_benchmark_takes_turns_and_prints_each_round_and_the_goals():
    out = run_benchmark(
        "api.py",
        *TINY.split(),
        *server_args("api_smoke"),
        # Generous: the phases take fixed seconds, but the server's start and the census
        # slow down with the cores busy elsewhere (about 50 s with the load at 4).
        timeout=600,
    )
    assert "the action and ceiling loops in turn, 2 rounds of 0.5 s warm-up + 1 s" in out, out
    rounds = re.search(r"each round \(actions/s / ceiling POSTs/s\): (.*)", out)
    assert rounds and len(rounds.group(1).split(", ")) == 2, out
    assert re.search(r"KiB of WAL a move .* in place \(HOT, \d+%\)", out), out
    assert "matches whose sequence numbers have a gap: 0" in out, out
    for words in ("goal >= 0.80", "goal <= 1.25", "goal <= 1.3"):
        assert words in out, out
    # The census lists the statement every action runs, on either path: the events'
    # insert. (Which requests take the locked path, with its
    # `SELECT games_match FOR UPDATE`, depends on timing: a match finished or a copy
    # outrun within the census's seconds. tests/benchmarks/test_query_census.py names
    # that statement.)
    census = re.search(
        r"  POST /api/v1/matches/\{id\}/actions: \d+\.\d\d a request \(over (\d+) requests\)\n"
        r"((?: {4,}\d+\.\d\d  .*\n)+)",
        out,
    )
    assert census and int(census.group(1)) > 0, out
    assert "INSERT games_event" in census.group(2), out
    # Each round against the ceiling's right after it, and the median of the pairs.
    assert "each round against the ceiling's right after it (2 pairs):" in out, out
    for name in ("throughput", "p99", "cpu"):
        paired = re.search(rf"  {name} +median \d+\.\d\d \(from .*; (.*)\)  goal", out)
        assert paired and len(paired.group(1).split(", ")) == 2, out
