"""benchmarks/strength.py at a tiny size: every match of the ladder, each split by where it
was decided, and the goal's verdict."""

from .support import run_benchmark


def test_the_strength_benchmark_plays_the_ladder_and_says_whether_the_goal_is_met():
    out = run_benchmark("strength.py", "--pairs", "3", "--workers", "1", timeout=300)
    for a, b in (("hard", "reference_plus"), ("hard", "pimc"), ("reference_plus", "pimc")):
        assert f"{a} against {b}: " in out and "over 3 deal pairs" in out
    assert out.count("the play decided") == 3 and out.count("the bids") == 3
    # Three pairs are far short of the goal's 4,000, whatever they score.
    assert "goal, Hard over reference_plus >= +0.10 a hand over 4000 pairs or more: NOT met" in out
