"""Fit bots/data/bidding.json: the double-dummy value of every contract on random deals.

    python -m bots.learn_bidding --deals 4000 --seed 1      # writes bots/data/bidding.json

For each random deal (a seeded deck, a random dealer) and each seat, every contract
it could make is set up on an engine state and solved double-dummy (bots/solver.py):
round one, ordering the upcard's suit up from that seat (the dealer picks up and
discards by the Medium rules; the dealer's partner alone leaves it in the kitty);
round two, naming each other suit; each with and without the partner. The target is
the hand's points for the makers. For each (round, position from the dealer, alone)
a ridge least-squares fit (pure Python: the normal equations, a tiny ridge for
stability) from the maker's features (bots/bidding_model.py) to the points. The file
records the deals, seed and each model's mean squared error.
"""

import argparse
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from games import engine as E

from . import policy as P
from . import solver as S
from .bidding_model import DATA, FEATURES, features, model_key


def contract_state(deck, dealer: int, maker: int, trump: int, round_: int, alone: bool):
    """An engine state at the start of the play: `deck` dealt, the seats before `maker`
    passing, `maker` ordering up (round one) or naming `trump` (round two), the dealer
    discarding by the Medium rules."""
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(deck)
    if round_ == 2:
        for _ in range(4):
            state.apply_action(state.turn, E.PASS)
    while state.turn != maker:
        state.apply_action(state.turn, E.PASS)
    if round_ == 1:
        state.apply_action(maker, E.order_up(alone))
        if state.phase == E.DISCARD:
            hand = state.hands[dealer]
            state.apply_action(dealer, E.discard(P.best_discard(hand, trump)))
    else:
        state.apply_action(maker, E.call(trump, alone))
    return state


def contract_value(deck, dealer: int, maker: int, trump: int, round_: int, alone: bool):
    """(the maker's five cards as it plays, the hand's double-dummy points for makers)."""
    state = contract_state(deck, dealer, maker, trump, round_, alone)
    return state.hands[maker], S.solve_points(state)


def fit_models(
    rows: dict[str, list[tuple[list[float], float]]],
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """A ridge fit for each model key of `rows`: (its rounded weights, its mean squared
    error), as the data files hold them."""
    models, errors = {}, {}
    for key, data in sorted(rows.items()):
        w, mse = fit(data)
        models[key] = [round(v, 5) for v in w]
        errors[key] = round(mse, 4)
    return models, errors


def gather(work: Callable[[Any], list], jobs: list, workers: int, what: str) -> list:
    """The rows of every job, in order, by `workers` processes (forked) or this one, with
    the count so far after each job."""
    if workers <= 1:
        return _gathered(map(work, jobs), what)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return _gathered(pool.imap(work, jobs), what)


def _gathered(parts: Iterable[list], what: str) -> list:
    rows: list = []
    start = time.perf_counter()
    for part in parts:
        rows.extend(part)
        print(f"  {len(rows)} {what}, {time.perf_counter() - start:.0f} s", flush=True)
    return rows


def write_data(out: dict, path: str, start: float) -> None:
    """Write a fitted data file as the repository keeps it, and say how long it took."""
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {path} ({time.perf_counter() - start:.0f} s)")


def solve_linear(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit(rows: list[tuple[list[float], float]], ridge: float = 1e-3) -> tuple[list[float], float]:
    n = len(rows[0][0])
    xtx = [[0.0] * n for _ in range(n)]
    xty = [0.0] * n
    for x, y in rows:
        for i in range(n):
            xty[i] += x[i] * y
            xi = x[i]
            if xi:
                row = xtx[i]
                for j in range(n):
                    row[j] += xi * x[j]
    for i in range(n):
        xtx[i][i] += ridge * len(rows)
    w = solve_linear(xtx, xty)
    mse = sum((sum(a * b for a, b in zip(w, x, strict=True)) - y) ** 2 for x, y in rows)
    return w, mse / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(DATA))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: dict[str, list[tuple[list[float], float]]] = {}
    start = time.perf_counter()
    for i in range(args.deals):
        dealer = rng.randrange(4)
        deck = E.seeded_deck(rng)
        upcard = deck[20]
        up_suit = upcard // 6
        for maker in range(4):
            position = (maker - dealer) % 4
            for alone in (False, True):
                hand, points = contract_value(deck, dealer, maker, up_suit, 1, alone)
                x = features(hand, up_suit, 1, upcard, None)
                rows.setdefault(model_key(1, position, alone), []).append((x, points))
                for trump in range(4):
                    if trump == up_suit:
                        continue
                    hand, points = contract_value(deck, dealer, maker, trump, 2, alone)
                    x = features(hand, trump, 2, None, up_suit)
                    rows.setdefault(model_key(2, position, alone), []).append((x, points))
        if (i + 1) % 500 == 0:
            print(f"  {i + 1} deals, {time.perf_counter() - start:.0f} s", flush=True)
    models, errors = fit_models(rows)
    out = {
        "made_by": "python -m bots.learn_bidding",
        "deals": args.deals,
        "seed": args.seed,
        "features": list(FEATURES),
        "models": models,
        "mean_squared_error": errors,
    }
    write_data(out, args.out, start)


if __name__ == "__main__":
    main()
