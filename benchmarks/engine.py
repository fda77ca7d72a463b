"""How fast the rules engine plays: complete random hands per second on one core.

    .venv/bin/python benchmarks/engine.py                 # 30 repeats of 2,000 hands each
    .venv/bin/python benchmarks/engine.py --hands 10000 --repeats 10
    .venv/bin/python benchmarks/engine.py --seconds 0.5   # each repeat runs about 0.5 s

A hand runs from the deal to the score under the default options, through the
engine's public functions only: `MatchState.deal`, then `legal_actions()` and
`apply_action(turn, action)` with the action chosen uniformly among the legal
ones, until the hand is scored; a finished match is replaced by a new one. The
first figure includes making a seeded deck for every hand (`seeded_deck(rng)`),
the second deals from decks made beforehand. Then the time of one
`legal_actions()` call (cold: the first call after an action) and of one
`apply_action()` call (after `legal_actions()`, as in a playout), each the
median over every call of 5,000 random hands, timed one by one with the
timer's own cost taken off.

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


def per_call_us(hands: int, rng: random.Random) -> tuple[float, float, float]:
    """Median microseconds of one legal_actions() and one apply_action() call in random
    play, and the median cost of the timer itself (already taken off the other two)."""
    clock = time.perf_counter_ns
    legal_ns, apply_ns, timer_ns = [], [], []
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
            action = legal[int(rand() * len(legal))]
            t2 = clock()
            state.apply_action(seat, action)
            t3 = clock()
            t4 = clock()
            legal_ns.append(t1 - t0)
            apply_ns.append(t3 - t2)
            timer_ns.append(t4 - t3)
    timer = statistics.median(timer_ns)
    return (
        (statistics.median(legal_ns) - timer) / 1000,
        (statistics.median(apply_ns) - timer) / 1000,
        timer / 1000,
    )


def timed_decks(rng: random.Random, n: int = 5000) -> float:
    seeded_deck = E.seeded_deck
    start = time.perf_counter()
    for _ in range(n):
        seeded_deck(rng)
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per repeat")
    parser.add_argument("--seconds", type=float, help="instead of --hands: seconds per repeat")
    parser.add_argument("--repeats", type=int, default=30, help="repeats; the best is reported")
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

    legal_us, apply_us, timer_us = per_call_us(5000, rng)
    print(f"one legal_actions() call (cold):     {legal_us:6.2f} µs   (median of every call)")
    print(f"one apply_action() call:             {apply_us:6.2f} µs   (median of every call)")
    print(f"  (timer cost taken off both:        {timer_us:6.2f} µs)")
    deck_us = min(timed_decks(rng) for _ in range(args.repeats))
    print(f"one seeded_deck(rng):                {deck_us:6.2f} µs   (best repeat)")


if __name__ == "__main__":
    main()
