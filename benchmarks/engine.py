"""How fast the rules engine plays: complete random hands per second on one core.

    .venv/bin/python benchmarks/engine.py                 # 60 repeats of 1,000 hands each
    .venv/bin/python benchmarks/engine.py --hands 10000 --repeats 10
    .venv/bin/python benchmarks/engine.py --seconds 0.5   # each repeat runs about 0.5 s

A hand runs from the deal to the score under the default options, through the
engine's public functions only: `MatchState.deal`, then `legal_actions()` and
`apply_action(turn, action)` with the action chosen uniformly among the legal
ones, until the hand is scored; a finished match is replaced by a new one. The
first figure includes making a seeded deck for every hand (`seeded_deck(rng)`),
the second deals from decks made beforehand. Then the time of one
`legal_actions()` call (the first call after an action, as a caller meets it;
and the same with the engine's cache of it cleared, i.e. worked out from
scratch) and of one `apply_action()` call (after `legal_actions()`, as in a
playout), each the median over every call of 5,000 random hands, timed one by
one with the timer's own cost taken off.

The machine may be a noisy shared VM, so the hands-per-second figures are the
best of many short repeats (the least disturbed run), with the median beside it;
the output says so.
"""

import argparse
import math
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games import engine as E  # noqa: E402


def play_hands(hands: int, rng: random.Random, decks: list | None = None) -> float:
    """Play `hands` complete random hands; return the seconds it took."""
    options = E.Options()
    MatchState = E.MatchState
    seeded_deck = E.seeded_deck
    FINISHED = E.FINISHED
    rand = rng.random
    floor = math.floor
    state = MatchState(options, first_dealer=3)
    start = time.perf_counter()
    for i in range(hands):
        if state.phase == FINISHED:
            state = MatchState(options, first_dealer=3)
        state.deal(seeded_deck(rng) if decks is None else decks[i])
        while state.turn is not None:  # None between hands and at the end of the match
            legal = state.legal_actions()
            state.apply_action(state.turn, legal[floor(rand() * len(legal))])  # uniform
    return time.perf_counter() - start


def hands_for(seconds: float, rng: random.Random) -> int:
    """How many hands take about `seconds` on this machine."""
    n = 2000
    elapsed = play_hands(n, rng)
    return max(200, int(n * seconds / elapsed))


def per_call_us(hands: int, rng: random.Random) -> dict[str, float]:
    """Median microseconds of one call in random play, each call timed on its own and
    the timer's own cost (its median, also returned) taken off:

    legal_actions   as a caller meets it: the first call after the previous action
    from_scratch    legal_actions() with the engine's cache of it cleared first
    apply_action    after legal_actions(), as in a playout
    """
    clock = time.perf_counter_ns
    times: dict[str, list[int]] = {"legal_actions": [], "from_scratch": [], "apply_action": []}
    timer_ns = []
    options = E.Options()
    state = E.MatchState(options, first_dealer=3)
    rand = rng.random
    for _ in range(hands):
        if state.phase == E.FINISHED:
            state = E.MatchState(options, first_dealer=3)
        state.deal(E.seeded_deck(rng))
        while state.turn is not None:
            seat = state.turn
            t0 = clock()
            legal = state.legal_actions()
            t1 = clock()
            state._legal = None  # private: only to time the work the cache saves
            t2 = clock()
            state.legal_actions()
            t3 = clock()
            action = legal[math.floor(rand() * len(legal))]
            t4 = clock()
            state.apply_action(seat, action)
            t5 = clock()
            t6 = clock()
            times["legal_actions"].append(t1 - t0)
            times["from_scratch"].append(t3 - t2)
            times["apply_action"].append(t5 - t4)
            timer_ns.append(t6 - t5)
    timer = statistics.median(timer_ns)
    result = {name: (statistics.median(ns) - timer) / 1000 for name, ns in times.items()}
    result["timer"] = timer / 1000
    return result


def timed_decks(rng: random.Random, n: int = 5000) -> float:
    seeded_deck = E.seeded_deck
    start = time.perf_counter()
    for _ in range(n):
        seeded_deck(rng)
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per repeat")
    parser.add_argument("--seconds", type=float, help="instead of --hands: seconds per repeat")
    parser.add_argument("--repeats", type=int, default=60, help="repeats; the best is reported")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    play_hands(20000, rng)  # warm up: fills the shared tables of legal actions by card set
    hands = hands_for(args.seconds, rng) if args.seconds else args.hands
    print(f"Python {sys.version.split()[0]}, one core, {args.repeats} repeats of {hands:,} random")
    print("hands each, default options. The machine is a noisy VM: each figure is the best")
    print("repeat (the least disturbed run), with the median repeat beside it.")

    with_deck, pre_made = [], []
    for _ in range(args.repeats):  # interleaved, so both see the same disturbances
        with_deck.append(hands / play_hands(hands, rng))
        decks = [E.seeded_deck(rng) for _ in range(hands)]
        pre_made.append(hands / play_hands(hands, rng, decks))
    print(
        f"hands/s, a seeded deck made each hand: {max(with_deck):>8,.0f}"
        f"   (median {statistics.median(with_deck):,.0f})"
    )
    print(
        f"hands/s, decks made beforehand:        {max(pre_made):>8,.0f}"
        f"   (median {statistics.median(pre_made):,.0f})"
    )

    us = per_call_us(5000, rng)
    rows = [
        ("one legal_actions() call:", us["legal_actions"], "median of every call"),
        ("  the same worked out from scratch:", us["from_scratch"], "cache cleared first"),
        ("one apply_action() call:", us["apply_action"], "median of every call"),
    ]
    for label, value, how in rows:
        print(f"{label:<37}{value:6.2f} µs   ({how})")
    print(f"{'  (timer cost taken off each:':<37}{us['timer']:6.2f} µs)")
    print("  (within a trick, apply_action works out the next seat's legal plays, so the")
    print("   legal_actions() that follows only returns them)")
    deck_us = min(timed_decks(rng) for _ in range(args.repeats))
    print(f"{'one seeded_deck(rng):':<37}{deck_us:6.2f} µs   (best repeat)")


if __name__ == "__main__":
    main()
