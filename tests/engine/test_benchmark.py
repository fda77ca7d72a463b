"""benchmarks/engine.py keeps working (its figures are for people, not asserted)."""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_the_engine_benchmark_runs_and_prints_its_figures():
    result = subprocess.run(
        [sys.executable, "benchmarks/engine.py", "--hands", "200", "--repeats", "2"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for words in (
        "hands/s, a seeded deck made each hand:",
        "hands/s, decks made beforehand:",
        "one legal_actions() call:",
        "one apply_action() call:",
        "best",
    ):
        assert words in out
