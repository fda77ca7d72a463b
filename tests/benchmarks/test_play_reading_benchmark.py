"""benchmarks/play_reading.py on one match: its counts are what the readings promise.
Medium's own plays are explained by the real cards under the Medium rules' reading
every time, and a sampled deal often is not; the fitted model's and the double-dummy
readings count too."""

import re

from tests.benchmarks.support import run_benchmark

READING_ROW = r"(medium|fitted model|solver, outcome|solver, tricks)\s+(\d+)\s+(\d+)\s"


def test_the_medium_reading_explains_every_medium_play_on_the_real_deal():
    out = run_benchmark("play_reading.py", "--level", "medium", "--matches", "1", timeout=120)
    assert re.search(r"1 matches of medium: \d+ positions, \d+ plays read", out), out
    rows = {}
    for line in out.splitlines():
        m = re.match(READING_ROW, line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    assert set(rows) == {"medium", "fitted model", "solver, outcome", "solver, tricks"}, out
    real, sampled = rows["medium"]
    assert real == 0 and sampled > 0, out
    # The fitted model's likeliest card is mostly the rules' card: the real deal explains
    # Medium's plays by it far more often than a sampled deal does.
    assert rows["fitted model"][0] < rows["fitted model"][1] / 2, out
    # A card best in tricks is best in the hand's outcome: tricks miss at least as often.
    assert rows["solver, tricks"][0] >= rows["solver, outcome"][0], out
