"""benchmarks/capacity.py keeps working, at tiny sizes (its figures are for people, not
asserted): the production shape on a PostgreSQL server of its own, a match at a person's
pace, a real Celery worker's throughput."""

import os
import re
import subprocess
import sys

import pytest

from tests.benchmarks.test_stream_benchmark import REPO, free_port, sibling_url

TINY = "--matches 1 --think 0 --busy 1 --busy-seconds 1 --levels medium"


@pytest.mark.slow
def test_the_capacity_benchmark_runs_and_prints_its_figures():
    redis = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    result = subprocess.run(
        [
            sys.executable,
            "benchmarks/capacity.py",
            *TINY.split(),
            *("--port", str(free_port()), "--stream-port", str(free_port())),
            *("--redis-url", sibling_url(redis, "")),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    out = result.stdout
    assert result.returncode == 0, out[-3000:] + result.stderr[-3000:]
    for pattern in (
        r"idle, after one match: resident memory API \d+ MiB, worker \d+ MiB",
        r"moves a match: \d+ \(\d+ the person's, \d+ the computers'\)",
        r"CPU a match: API \d+ ms \([\d.]+ ms a move\), worker \d+ ms",
        r"PostgreSQL: [\d.]+ ms of CPU a move, \d+ bytes of WAL a move \(\d+ KiB a match\),"
        r" [\d.]+ write transactions",
        r"worker throughput, medium: .*\n.*[\d.]+ computer moves a second on one worker process",
    ):
        assert re.search(pattern, out), (pattern, out)
