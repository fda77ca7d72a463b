"""benchmarks/capacity.py keeps working, at tiny sizes (its figures are for people, not
asserted): the production shape on a PostgreSQL server of its own, a match at a person's
pace, a real Celery worker's throughput."""

import re

import pytest

from tests.benchmarks.support import run_benchmark

TINY = "--matches 1 --think 0 --busy 1 --busy-seconds 1 --levels medium"


@pytest.mark.slow
def test_the_capacity_benchmark_runs_and_prints_its_figures():
    out = run_benchmark("capacity.py", *TINY.split())
    for pattern in (
        r"idle, after one match: resident memory API \d+ MiB, worker \d+ MiB",
        r"moves a match: \d+ \(\d+ the person's, \d+ the computers'\)",
        r"CPU a match: API \d+ ms \([\d.]+ ms a move\), worker \d+ ms",
        r"PostgreSQL: [\d.]+ ms of CPU a move, \d+ bytes of WAL a move \(\d+ KiB a match\),"
        r" [\d.]+ write transactions",
        r"worker throughput, medium: .*\n.*[\d.]+ computer moves a second on one worker process",
    ):
        assert re.search(pattern, out), (pattern, out)
    # A match to 10 is three hands at least (four points at most a hand), each a bid and
    # fifteen cards at least: the moves of the hands over, moved into chunks, count too.
    moves = int(re.search(r"moves a match: (\d+)", out).group(1))
    assert moves >= 48, out
