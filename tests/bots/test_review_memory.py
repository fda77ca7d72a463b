"""A review worker's process must not grow with the matches it reviews (issue 33: the
review worker's pool child grew 0.45 to 0.6 GB an hour and was replaced by its memory cap
every ten minutes: the C solver kept a memo of the moves of every deal it had solved).

Measured in a fresh process, by the memory blocks Python's allocator holds
(sys.getallocatedblocks, exact and independent of the machine's speed) after reviewing
matches it never saw, with what is bounded by design already at its bound: the engine's
memo of the play actions of each set of one to five cards (games/engine/state.py
`_PLAYS`, at most 68,405 sets with the joker) is filled first, so that what is left is
what grows without a bound."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WARM_UP = 2  # matches reviewed before measuring: the solvers and the sampling set up
MEASURED = 6  # matches reviewed after: each one the process never saw
# Blocks kept per reviewed match. Each kept nothing here (0 to 1); the solver's memo of
# moves kept about 1,000 a match at this budget (about 3,000 at the service's 32 deals).
BLOCKS_PER_MATCH = 100

SCRIPT = textwrap.dedent(
    f"""
    import gc, sys
    from itertools import combinations

    from benchmarks.review import play_match
    from bots import solver
    from bots.review import ReviewBudget, review_match
    from games.engine import BIT, DECK_WITH_JOKER
    from games.engine import state as engine_state

    assert solver._c_library() is not None, "the C search did not build"
    for size in range(1, 6):  # the engine's bounded memo, at its bound
        for cards in combinations(DECK_WITH_JOKER, size):
            engine_state._PLAYS[sum(BIT[c] for c in cards)]
    budget = ReviewBudget(samples=8)

    def review(i):
        decisions = play_match(7000 + i, {{0}})  # seat 0 a careless person (Easy)
        review_match(decisions, {{0: "south"}}, budget, match_seed=str(i))

    for i in range({WARM_UP}):
        review(i)
    gc.collect()
    before = sys.getallocatedblocks()
    for i in range({WARM_UP}, {WARM_UP + MEASURED}):
        review(i)
    gc.collect()
    print((sys.getallocatedblocks() - before) / {MEASURED})
    """
)


def test_reviewing_matches_it_never_saw_keeps_nothing_per_match_in_the_process():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    kept = float(done.stdout.split()[-1])
    assert kept < BLOCKS_PER_MATCH, f"{kept:.0f} memory blocks kept per reviewed match"
