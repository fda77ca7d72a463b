"""Hard's strength against the yardsticks, in duplicate play: issue 34's ladder in one run.

    .venv/bin/python benchmarks/strength.py --pairs 4000 --seed 401 --workers 2
    .venv/bin/python benchmarks/strength.py --pairs 1000 --matches hard:reference_plus

Plays each match of the ladder on the same deals (`bots.simulation.simulate_duplicate`:
one hand at 0-0 a deal, every deal from both sides, so the luck of the cards cancels):

- hard against reference_plus, the learned-bid yardstick (the goal: +0.10 a hand);
- hard against pimc, the literature's plain determinized search with its bids searched
  too, the baseline of the published +0.10 of learned bidding;
- reference_plus against pimc: the learned-bid yardstick's own margin over that baseline,
  measured in the same run, which Hard's margin is compared with.

Prints each match's A − B a hand with its 95 % interval, split by where it was decided
(the pairs that ended in the same contract at both tables, where the play decided, and the
others, where the bids did), Hard's margin over pimc as a ratio to reference_plus's, and
whether the goal is met. Engine only, no database; it takes minutes a thousand pairs on
two cores.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.simulation import Duplicate, simulate_duplicate  # noqa: E402

LADDER = ("hard:reference_plus", "hard:pimc", "reference_plus:pimc")
GOAL = 0.10  # issue 34: Hard over reference_plus, points a hand,
GOAL_PAIRS = 4000  # over this many deal pairs at least


def describe(result: Duplicate, seconds: float) -> str:
    """A match's heading, then `simulate --duplicate`'s own report of it, indented."""
    heading = (
        f"{result.level_a} against {result.level_b}: over {result.pairs} deal pairs "
        f"({seconds:.0f} s)"
    )
    return "\n".join([heading, *(f"  {line}" for line in result.report().splitlines())])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=4000, help="deal pairs a match")
    parser.add_argument("--seed", type=int, default=401)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--matches", default=",".join(LADDER), help="A:B pairs of levels, comma-separated"
    )
    args = parser.parse_args(argv)
    results = {}
    for match in args.matches.split(","):
        a, b = match.split(":")
        start = time.monotonic()
        result = simulate_duplicate(args.pairs, a, b, seed=args.seed, workers=args.workers)
        results[match] = result
        print(describe(result, time.monotonic() - start), flush=True)
    hard_pimc, plus_pimc = results.get("hard:pimc"), results.get("reference_plus:pimc")
    if hard_pimc and plus_pimc and plus_pimc.mean > 0:
        print(
            f"Hard's margin over pimc is {hard_pimc.mean / plus_pimc.mean:.2f}x reference_plus's "
            f"(the published learned bidding: +0.10 over its baseline)"
        )
    goal = results.get("hard:reference_plus")
    if goal:
        met = goal.mean >= GOAL and goal.pairs >= GOAL_PAIRS
        low, high = goal.interval()
        print(
            f"goal, Hard over reference_plus >= +{GOAL:.2f} a hand over {GOAL_PAIRS} pairs or "
            f"more: {'met' if met else 'NOT met'} ({goal.mean:+.3f}, {low:+.3f} to {high:+.3f}, "
            f"{goal.pairs} pairs)"
        )


if __name__ == "__main__":
    main()
