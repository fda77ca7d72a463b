"""Running a benchmark at tiny sizes, as its smoke test does."""

import os
import subprocess
import sys

from tests.benchmarks.test_stream_benchmark import REPO, sibling_url


def run_benchmark(script: str, *args: str, timeout: float = 300) -> str:
    """`benchmarks/<script>` with `args` and this run's Redis server (its own databases);
    its output, once it has exited 0."""
    redis = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    result = subprocess.run(
        [sys.executable, f"benchmarks/{script}", *args, "--redis-url", sibling_url(redis, "")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def postgres_url(database: str) -> str:
    """The test run's PostgreSQL server, another database on it."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        url = "postgres://postgres@127.0.0.1:5432/euchre"
    return sibling_url(url, f"/{database}")
