"""benchmarks/stream.py keeps working, at tiny sizes (its figures are for people, not asserted)."""

import os
import re

import pytest

from tests.benchmarks.support import run_benchmark, server_args

TINY = "--max-clients 20 --matches 5 --keepalive 1 --probes 1 --actions 10 --stream-clients 20"


@pytest.mark.slow
def test_the_stream_benchmark_runs_and_prints_its_figures():
    out = run_benchmark(
        "stream.py",
        *TINY.split(),
        *server_args("stream_smoke"),
        timeout=120,
    )
    assert re.search(r"^\s+20\s+0\s+\d+\.\d", out, re.MULTILINE), out  # the step: 20, none failed
    for words in (
        f"{os.cpu_count()} cores, Python ",
        "idle clients held by one process: ",
        "after closing all 20: server RSS",
        "arrival - t_send (upper bound), every client",
        "arrival - t_resp (lower bound), every client",
        "10 actions on 1 match(es)",
        "0 missing after",
        "delay commit -> arrival at 20 clients: p50 between",
    ):
        assert words in out, out


@pytest.mark.slow
def test_the_stream_benchmark_with_api_load_runs_both_loads_and_prints_the_goal():
    out = run_benchmark(
        "stream.py",
        "--with-api-load",
        *"--actions 10 --stream-clients 10 --api-clients 4 --capacity-seconds 2".split(),
        *server_args("stream_load_smoke"),
        *("--workers", "1", "--threads", "4"),
        timeout=180,
    )
    for words in (
        "REST: gunicorn gthread 1 x 4",
        "1. API capacity: 4 clients flat out",
        "the load: 0.5 x ",
        "2. delivery alone: 10 streams, 10 actions",
        "3. delivery under the API load",
        "the API load meanwhile: ",
        "under the API load, ",
        "goal: p99 under load < 200 ms (upper bound from the event's insert): ",
    ):
        assert words in out, out
    assert out.count("10 actions on 1 match(es)") == 2, out
    assert re.search(r"^  alone\s+-?\d+\.\d+ \.\.\s+-?\d+\.\d+ \(", out, re.MULTILINE), out
