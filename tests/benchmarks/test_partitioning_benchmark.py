"""benchmarks/partitioning.py at tiny sizes: the event table partitioned by hash of the
match works with the service (matches played through it, the append-only trigger kept)
and a match's log read touches one partition. Its timings are for people, not asserted."""

import os
import re
import subprocess
import sys

import pytest

from tests.benchmarks.test_stream_benchmark import REPO, sibling_url

TINY = "--partitions 8 --matches 1 --background 20 --ops 20 --rounds 1"


@pytest.mark.slow
def test_the_partitioned_event_table_plays_matches_and_reads_one_partition_a_match():
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith("postgres"):
        database = "postgres://postgres@127.0.0.1:5432/euchre"
    redis = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    result = subprocess.run(
        [
            sys.executable,
            "benchmarks/partitioning.py",
            *TINY.split(),
            *("--database-url", sibling_url(database, "/euchre_bench_scale_smoke")),
            *("--redis-url", sibling_url(redis, "")),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    out = result.stdout
    assert result.returncode == 0, out[-3000:] + result.stderr[-3000:]
    for layout in ("plain", "part "):
        assert re.search(rf"{layout}: played 1 matches through the service, \d+ action POSTs", out)
        assert f"{layout}: append-only trigger: UPDATE refused" in out, out
    assert "EXPLAIN ANALYZE of a match's log read: 1 of 8 partitions" in out, out
    assert "on games_event_p" in out and "ratio" in out, out
