"""benchmarks/partitioning.py at tiny sizes: the event table partitioned by hash of the
match works with the service (matches played through it, the append-only trigger kept)
and a match's log read touches one partition. Its timings are for people, not asserted."""

import re

import pytest

from tests.benchmarks.support import postgres_url, run_benchmark

TINY = "--partitions 8 --matches 1 --background 20 --ops 20 --rounds 1"


@pytest.mark.slow
def test_the_partitioned_event_table_plays_matches_and_reads_one_partition_a_match():
    database = ("--database-url", postgres_url("partitioning_smoke"))
    out = run_benchmark("partitioning.py", *TINY.split(), *database)
    for layout in ("plain", "part "):
        assert re.search(rf"{layout}: played 1 matches through the service, \d+ action POSTs", out)
        assert f"{layout}: append-only trigger: UPDATE refused" in out, out
    assert "EXPLAIN ANALYZE of a match's log read: 1 of 8 partitions" in out, out
    assert "on games_event_p" in out and "ratio" in out, out
