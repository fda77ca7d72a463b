"""How fast the double-dummy solver (bots/solver.py) solves a hand, on one core.

    .venv/bin/python benchmarks/solver.py              # 1,000 deals
    .venv/bin/python benchmarks/solver.py --deals 300

Deals seeded hands, bid by the Medium rules, and solves each from its first lead
(a full five-trick deal): the exact number of the makers' tricks, and the hand's
points (two null-window searches: three tricks? five?), each with an empty
transposition table ("cold": every deal from nothing; emptying it is timed too) and
with the table kept from the deals before ("warm": as Hard and the reference player
use it). The baseline, measured in the same run on the same deals, is the same
search in Python (PySolver).
The goal: a full deal in well under a millisecond. Times are the process's CPU time
(on a machine shared with other work the wall clock counts the time others had the
core).
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots import solver as S  # noqa: E402
from bots.players import PLAYERS  # noqa: E402
from games import engine as E  # noqa: E402


def deals(count: int, seed: int) -> list[E.MatchState]:
    rng = random.Random(seed)
    medium = PLAYERS["medium"]
    found = []
    while len(found) < count:
        state = E.MatchState(E.Options(), first_dealer=rng.randrange(4))
        state.deal(E.seeded_deck(rng))
        while state.turn is not None and state.phase != E.PLAY:
            action = medium(E.player_view(state, state.turn), rng)
            state.apply_action(state.turn, E.action_from_dict(action))
        if state.phase == E.PLAY:
            found.append(state)
    return found


def timed(states, make, points: bool, cold: bool) -> list[float]:
    solvers = {}
    times = []
    for state in states:
        key = (state.trump, state.maker % 2, tuple(state.out))
        if key not in solvers:
            solvers[key] = make(*key)
        solver = solvers[key]
        start = time.process_time()
        if cold:
            solver.clear()
        if points:
            S.solve_points(state, solver)
        else:
            S.solve(state, solver)
        times.append(time.process_time() - start)
    return times


def line(name: str, times: list[float], base: list[float] | None) -> str:
    ms = 1000
    mean = statistics.fmean(times)
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    ratio = f"   {statistics.fmean(base) / mean:6.1f}x the Python search" if base else ""
    return (
        f"  {name:30} mean {mean * ms:7.3f} ms   p50 {ordered[len(ordered) // 2] * ms:7.3f} ms"
        f"   p95 {p95 * ms:7.3f} ms{ratio}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--python-deals", type=int, default=100, help="for the baseline")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    states = deals(args.deals, args.seed)
    if S._c_library() is None:
        print("the C search is unavailable (no C compiler): Python only")
    few = states[: args.python_deals]
    print("Double-dummy solver, full five-trick deals from the first lead (one core)")
    for points in (False, True):
        what = "points (3? 5?)" if points else "exact tricks"
        base = timed(few, S.PySolver, points, cold=True)
        print(line(f"Python, {what}, cold", base, None) + f"   ({len(few)} deals)")
        if S._c_library() is not None:
            cold_few = timed(few, S.CSolver, points, cold=True)
            cold = timed(states, S.CSolver, points, cold=True)
            warm = timed(states, S.CSolver, points, cold=False)
            print(line(f"C, {what}, cold", cold, None) + f"   ({len(states)} deals)")
            print(line(f"C, {what}, cold, same deals", cold_few, base))
            print(line(f"C, {what}, warm", warm, None))
    if S._c_library() is not None:
        cold = timed(states, S.CSolver, False, cold=True)
        mean = statistics.fmean(cold)
        met = mean < 0.001
        print(
            f"  goal: a full deal, exact, cold, well under 1 ms: {'met' if met else 'NOT met'}"
            f" (mean {mean * 1000:.3f} ms CPU)"
        )


if __name__ == "__main__":
    main()
