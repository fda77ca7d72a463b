"""Running a benchmark at tiny sizes, as its smoke test does."""

import os
import pathlib
import subprocess
import sys
from urllib.parse import urlsplit

from benchmarks._server import with_path

REPO = pathlib.Path(__file__).resolve().parents[2]


def run_benchmark(script: str, *args: str, timeout: float = 300) -> str:
    """`benchmarks/<script>` with `args` (on a Redis server of its own, as every benchmark
    runs by default); its output, once it has exited 0."""
    result = subprocess.run(
        [sys.executable, f"benchmarks/{script}", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def server_args(database: str) -> list[str]:
    """A benchmark that starts the service (on spare ports, as they all do by default): a
    database of its own (`postgres_url(database)`)."""
    return ["--database-url", postgres_url(database)]


def postgres_url(suffix: str) -> str:
    """The test run's PostgreSQL server, a database of the benchmark's own named after the
    run's (so two runs side by side do not share it)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        url = "postgres://postgres@127.0.0.1:5432/euchre"
    name = urlsplit(url).path.lstrip("/") or "euchre"
    return with_path(url, f"/{name}_{suffix}")
