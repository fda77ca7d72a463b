"""Fit bots/data/play_bias.json: what a contract's double-dummy value misses in play.

    python -m bots.learn_play_bias --contracts 80000 --seed 3 --workers 2

For each random deal (a seeded deck, a random dealer) one random contract is set up on
an engine state (a random maker; round one, ordering the upcard up, or round two,
naming another suit, at even odds; alone one time in four; the dealer discarding by the
Medium rules: bots.learn_bidding.contract_state). It is solved double-dummy
(bots/solver.py), then played out by the reference opponent's search at all four seats
(bots/players/reference.py: each card from 40 deals of the cards that seat cannot see),
and the target is the points the play gave the makers minus the solver's. For each
(round, position from the dealer, alone) a ridge least-squares fit
(bots.learn_bidding.fit) from the features of bots/play_bias.py. The file records the
contracts, the seed, each model's mean squared error and, beside it, the error of
taking the solver's value as it is (no correction). About 15 minutes for 40,000
contracts on one core of this machine.
"""

import argparse
import random
import time

from games import engine as E

from . import solver as S
from .learn_bidding import contract_state, fit_models, gather, write_data
from .play_bias import DATA, FEATURES, contract_key, features
from .players.reference import reference_player

Row = tuple[str, list[float], float]  # model key, features, table points - solver points


def contract_row(i: int, seed: int) -> Row | None:
    """Contract i of the seed: its key, features and the play's points over the solver's
    (None: the contract could not be set up, e.g. a lone hand from a seat that passes)."""
    rng = random.Random(f"{seed}:bias:{i}")
    dealer = rng.randrange(4)
    deck = E.seeded_deck(rng)
    up_suit = deck[20] // 6
    maker = rng.randrange(4)
    round_ = rng.choice((1, 2))
    alone = rng.random() < 0.25
    trump = up_suit if round_ == 1 else rng.choice([s for s in range(4) if s != up_suit])
    state = contract_state(deck, dealer, maker, trump, round_, alone)
    if state.phase != E.PLAY:
        return None
    solved = S.solve_points(state.clone())
    key, x = contract_key(state), features(state, solved)
    makers = state.maker % 2
    while state.phase == E.PLAY:
        seat = state.turn
        action = reference_player(E.player_view(state, seat), rng)
        state.apply_action(seat, E.action_from_dict(action))
    played = state.scores[makers] - state.scores[1 - makers]
    return key, x, played - solved


def _rows(job: tuple[range, int]) -> list[Row]:
    indices, seed = job
    return [row for i in indices if (row := contract_row(i, seed)) is not None]


def learn(contracts: int, seed: int, workers: int = 1) -> dict:
    jobs = [(range(k, min(k + 500, contracts)), seed) for k in range(0, contracts, 500)]
    rows: list[Row] = gather(_rows, jobs, workers, "contracts")
    by_key: dict[str, list[tuple[list[float], float]]] = {}
    for key, x, y in rows:
        by_key.setdefault(key, []).append((x, y))
    models, errors = fit_models(by_key)
    uncorrected = {  # the error of taking the solver's value as it is
        key: round(sum(y * y for _x, y in data) / len(data), 4)
        for key, data in sorted(by_key.items())
    }
    return {
        "made_by": "python -m bots.learn_play_bias",
        "contracts": len(rows),
        "seed": seed,
        "features": list(FEATURES),
        "models": models,
        "mean_squared_error": errors,
        "mean_squared_error_uncorrected": uncorrected,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--contracts", type=int, default=80000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=str(DATA))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = learn(args.contracts, args.seed, args.workers)
    write_data(out, args.out, start)


if __name__ == "__main__":
    main()
