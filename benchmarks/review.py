"""How long the review of a whole match takes, on one core (the goal: ready within 30 s of
the match's end on one worker).

    .venv/bin/python benchmarks/review.py                      # 6 matches to 10, 1 and 4 people
    .venv/bin/python benchmarks/review.py --matches 10 --samples 32 --people 4

Plays seeded matches to 10 points on the engine alone: the people's seats by the Easy
rules (careless players make mistakes to find), the others by Medium; then times
`bots.review.review_match` over every decision of the people, at the service's budget
(REVIEW_SAMPLES deals per decision). Prints, per number of people at the table, the
seconds per match (median, max) and per decision. The baseline, measured in the same run
on the same decisions: Hard's own decision (48 deals / 240 playouts, as a computer seat
plays), so the review's cost reads as "n Hard moves". The database and the queue add
well under a second (tests/bots/test_worker.py prints the end-to-end figure through a
real worker). The process runs on one core; run it when the machine is quiet.
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.players import PLAYERS  # noqa: E402
from bots.players.hard import DEFAULT_BUDGET, search  # noqa: E402
from bots.review import Decision, ReviewBudget, review_match  # noqa: E402
from games import engine as E  # noqa: E402


def play_match(seed: int, people: set[int]) -> list[Decision]:
    rng = random.Random(seed)
    state = E.MatchState(E.Options(), first_dealer=rng.randrange(4))
    decisions, seq = [], 0
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng))
        while state.turn is not None:
            seat = state.turn
            level = "easy" if seat in people else "medium"
            action = PLAYERS[level](E.player_view(state, seat), rng)
            seq += 1
            if seat in people:
                decisions.append(Decision(seq, state.hand_number, seat, state.clone(), action))
            state.apply_action(seat, E.action_from_dict(action))
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--samples", type=int, default=ReviewBudget().samples)
    parser.add_argument("--people", default="1,4", help="people at the table, e.g. 1,4")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    budget = ReviewBudget(samples=args.samples)
    print(f"Match review, {args.samples} deals a decision, matches to 10 (one core)")
    for count in (int(c) for c in args.people.split(",")):
        people = {0, 2, 1, 3}.intersection(range(count)) if count < 4 else {0, 1, 2, 3}
        per_match, per_decision, hard, reviewed = [], [], [], 0
        for m in range(args.matches):
            decisions = play_match(args.seed * 1000 + m, people)
            names = {s: E.SEAT_NAMES[s] for s in people}
            started = time.perf_counter()
            review = review_match(decisions, names, budget, match_seed=str(m))
            took = time.perf_counter() - started
            choices = sum(p["decisions"] for p in review["players"])
            per_match.append(took)
            per_decision.append(took / max(1, choices))
            reviewed += choices
            for d in decisions:  # the baseline: Hard deciding the same positions
                view = E.player_view(d.state, d.seat)
                if len(view["legal_actions"]) > 1:
                    t = time.perf_counter()
                    search(view, random.Random(d.seq), DEFAULT_BUDGET)
                    hard.append(time.perf_counter() - t)
        mean_hard = statistics.mean(hard)
        mean_review = sum(per_match) / reviewed
        print(
            f"  {count} {'person' if count == 1 else 'people'}: {args.matches} matches, "
            f"{reviewed / args.matches:.0f} decisions with a choice a match\n"
            f"    a match   median {statistics.median(per_match):6.2f} s   "
            f"max {max(per_match):6.2f} s   (goal: ready within 30 s)\n"
            f"    a decision mean {1000 * mean_review:6.1f} ms; Hard's own decision on the "
            f"same positions {1000 * mean_hard:6.1f} ms: the review costs "
            f"{mean_review / mean_hard:.2f} Hard moves a decision"
        )
        print(f"    goal <= 30 s a match: {'met' if max(per_match) <= 30 else 'NOT met'}")


if __name__ == "__main__":
    main()
