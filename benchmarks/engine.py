"""How fast the rules engine plays: complete random hands per second on one core.

    .venv/bin/python benchmarks/engine.py                 # default: 20,000 hands, best of 5
    .venv/bin/python benchmarks/engine.py --hands 50000 --repeats 7
    .venv/bin/python benchmarks/engine.py --seconds 2     # each repeat runs about 2 s instead

A hand runs from the deal to the score under the default options, through the
engine's public functions only: `MatchState.deal`, then `legal_actions()` and
`apply_action(turn, action)` with the action chosen uniformly among the legal
ones, until the hand is scored; a finished match is replaced by a new one. The
first figure includes making a seeded deck for every hand (`seeded_deck(rng)`),
the second deals from decks made beforehand. Then the time of one
`legal_actions()` call (cold: as the first call after an action) and of one
`apply_action()` call (after `legal_actions()`, as in a playout), over the
states met in random play.

The machine may be a noisy shared VM, so every figure is the best of several
repeats (the least disturbed run), and the output says so.
"""

import argparse
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
    state = MatchState(options, first_dealer=3)
    start = time.perf_counter()
    for i in range(hands):
        if state.phase == FINISHED:
            state = MatchState(options, first_dealer=3)
        state.deal(seeded_deck(rng) if decks is None else decks[i])
        while state.turn is not None:  # None between hands and at the end of the match
            legal = state.legal_actions()
            state.apply_action(state.turn, legal[int(rand() * len(legal))])
    return time.perf_counter() - start


def hands_for(seconds: float, rng: random.Random) -> int:
    """How many hands take about `seconds` on this machine."""
    n = 2000
    elapsed = play_hands(n, rng)
    return max(1000, int(n * seconds / elapsed))


def recorded_steps(count: int, rng: random.Random) -> list:
    """(state before the action, action) pairs met in random play; states are cold clones."""
    steps = []
    state = E.MatchState(E.Options(), first_dealer=3)
    while len(steps) < count:
        if state.phase == E.FINISHED:
            state = E.MatchState(E.Options(), first_dealer=3)
        state.deal(E.seeded_deck(rng))
        while state.turn is not None:
            snapshot = state.clone()
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
            steps.append((snapshot, action))
            state.apply_action(state.turn, action)
    return steps[:count]


def per_call_us(steps: list, batch: int, repeats: int) -> tuple[float, float]:
    """Median over batches of the mean time per call, for legal_actions and apply_action."""
    perf = time.perf_counter
    legal_us, apply_us = [], []
    for _ in range(repeats):
        for i in range(0, len(steps) - batch + 1, batch):
            chunk = steps[i : i + batch]
            states = [s.clone() for s, _ in chunk]
            start = perf()
            for s in states:
                s.legal_actions()
            legal_us.append((perf() - start) / batch * 1e6)
            pairs = [(s, s.turn, a) for s, (_, a) in zip(states, chunk, strict=True)]
            start = perf()
            for s, seat, a in pairs:
                s.apply_action(seat, a)
            apply_us.append((perf() - start) / batch * 1e6)
    return statistics.median(legal_us), statistics.median(apply_us)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per repeat")
    parser.add_argument("--seconds", type=float, help="instead of --hands: seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; the best is reported")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    play_hands(500, rng)  # warm up the caches the engine fills as it meets hands
    hands = hands_for(args.seconds, rng) if args.seconds else args.hands
    print(f"Python {sys.version.split()[0]}, one core, {hands:,} random hands per repeat,")
    print(f"best of {args.repeats} repeats (the machine is a noisy VM: the best run is the")
    print("least disturbed one; the median is given too).")

    with_deck = [hands / play_hands(hands, rng) for _ in range(args.repeats)]
    decks = [E.seeded_deck(rng) for _ in range(hands)]
    pre_made = [hands / play_hands(hands, rng, decks) for _ in range(args.repeats)]
    print(
        f"hands/s, seeded deck made each hand: {max(with_deck):>9,.0f}"
        f"   (median {statistics.median(with_deck):,.0f})"
    )
    print(
        f"hands/s, decks made beforehand:      {max(pre_made):>9,.0f}"
        f"   (median {statistics.median(pre_made):,.0f})"
    )

    steps = recorded_steps(20000, rng)
    legal_us, apply_us = per_call_us(steps, batch=1000, repeats=3)
    print(f"one legal_actions() call (cold):   {legal_us:6.2f} µs   (median of batch means)")
    print(f"one apply_action() call:           {apply_us:6.2f} µs   (median of batch means)")
    deck_us = min(timed_decks(rng) for _ in range(args.repeats))
    print(f"one seeded_deck(rng):              {deck_us:6.2f} µs   (best of {args.repeats})")


def timed_decks(rng: random.Random, n: int = 20000) -> float:
    seeded_deck = E.seeded_deck
    start = time.perf_counter()
    for _ in range(n):
        seeded_deck(rng)
    return (time.perf_counter() - start) / n * 1e6


if __name__ == "__main__":
    main()
