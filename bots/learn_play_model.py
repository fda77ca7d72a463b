"""Fit bots/data/play_model.json: the chance of each card a player who searches plays.

    python -m bots.learn_play_model --hands 4000 --seed 1 --workers 2

Plays hands at 0-0 from seeded deals, Hard at two seats and reference_plus at the other
two (the table the issue's yardstick sets), each bidding and playing as it does. At the
last card of each hand, the seat to play reads every play of the other three this hand
with the real cards (bots/inference.py `others_plays`, the walk Hard's reading makes
over a sampled deal), and each play becomes a row: the features of every legal card
(bots/play_model.py `card_features`) and which was played. A conditional logit (softmax
over the legal cards) is fitted by gradient ascent on the rows of the first four
fifths; the last fifth is held out, and the file records its mean log-likelihood a play
and how often the likeliest card was the one played, beside the same for a model with
the Medium rules' card alone. About 17 minutes for 4,000 hands on two cores.
"""

import argparse
import math
import random
import time

from games import engine as E
from games.engine import read_view

from .inference import others_plays
from .learn_bidding import gather, write_data
from .play_model import DATA, FEATURE_INDEX, FEATURES, KINDS, SIZE, card_features, scores
from .simulation import SIMULATION_PLAYERS

LEVELS = ("hard", "reference_plus")
Row = tuple[list[list[int]], int, str]  # each legal card's features, the one played, whose


def hand_rows(i: int, seed: int) -> list[Row]:
    """The rows of hand i of the seed (none if it was thrown in or ended early)."""
    rng = random.Random(f"{seed}:play_model:{i}")
    dealer = rng.randrange(4)
    deck = E.seeded_deck(rng)
    hard_seats = (0, 2) if i % 2 == 0 else (1, 3)
    levels = [LEVELS[0] if s in hard_seats else LEVELS[1] for s in range(4)]
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(deck)
    while state.turn is not None and state.phase not in (E.DEAL, E.FINISHED):
        seat = state.turn
        view = E.player_view(state, seat)
        if state.phase == E.PLAY:
            seen = read_view(view)
            if len(seen.tricks) == 4 and len(seen.trick_cards) == seen.trick_size - 1:
                return _rows(seen, [state.hands[s] for s in range(4)], levels)
        action = SIMULATION_PLAYERS[levels[seat]](view, rng)
        state.apply_action(seat, E.action_from_dict(action))
    return []


def _rows(seen: E.Seen, hands: list[int], levels: list[str]) -> list[Row]:
    rows = []
    for s, hand, seats, cards, gone, voids, c in others_plays(seen, hands):
        legal, features = card_features(seen, s, hand, seats, cards, gone, voids)
        if len(legal) > 1:
            rows.append((features, legal.index(c), levels[s]))
    return rows


def _chunk(job: tuple[range, int]) -> list[Row]:
    indices, seed = job
    return [row for i in indices for row in hand_rows(i, seed)]


def log_likelihood(weights: list[float], rows: list[Row]) -> tuple[float, float]:
    """The mean log-likelihood a play and the share of plays that were the likeliest card."""
    total = top = 0.0
    for features, chosen, _ in rows:
        values = scores(weights, features)
        peak = max(values)
        total += values[chosen] - peak - math.log(sum(math.exp(v - peak) for v in values))
        top += values[chosen] == peak
    return total / len(rows), top / len(rows)


def fit(rows: list[Row], steps: int = 400, rate: float = 0.05, l2: float = 1e-3) -> list[float]:
    """Weights maximising the mean log-likelihood (less an L2 penalty), by Adam."""
    w = [0.0] * SIZE
    m = [0.0] * SIZE
    v = [0.0] * SIZE
    for t in range(1, steps + 1):
        grad = [-l2 * x for x in w]
        for features, chosen, _ in rows:
            values = scores(w, features)
            peak = max(values)
            exps = [math.exp(x - peak) for x in values]
            norm = sum(exps)
            for active, e in zip(features, exps, strict=True):
                p = e / norm / len(rows)
                for f in active:
                    grad[f] -= p
            for f in features[chosen]:
                grad[f] += 1 / len(rows)
        for k in range(SIZE):
            m[k] = 0.9 * m[k] + 0.1 * grad[k]
            v[k] = 0.999 * v[k] + 0.001 * grad[k] ** 2
            step = m[k] / (1 - 0.9**t) / (math.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)
            w[k] += rate * step
    return w


def rules_only(rows: list[Row]) -> list[Row]:
    """The rows with the Medium rules' card as the only feature (the baseline reading)."""
    keep = {k * len(FEATURES) + FEATURE_INDEX["rules"] for k in range(len(KINDS))}
    return [([[f for f in a if f in keep] for a in feats], c, who) for feats, c, who in rows]


def learn(hands: int, seed: int, workers: int = 1, steps: int = 400) -> dict:
    jobs = [(range(k, min(k + 100, hands)), seed) for k in range(0, hands, 100)]
    rows: list[Row] = gather(_chunk, jobs, workers, "plays")
    cut = len(rows) * 4 // 5
    train, held = rows[:cut], rows[cut:]
    weights = fit(train, steps)
    baseline = fit(rules_only(train), steps)
    held_out = {}
    for who in (*LEVELS, "all"):
        part = [r for r in held if who in ("all", r[2])]
        ll, top = log_likelihood(weights, part)
        base_ll, base_top = log_likelihood(baseline, rules_only(part))
        held_out[who] = {
            "plays": len(part),
            "log_likelihood": round(ll, 4),
            "likeliest_played": round(top, 4),
            "rules_only_log_likelihood": round(base_ll, 4),
            "rules_only_likeliest_played": round(base_top, 4),
        }
        print(f"  {who}: {held_out[who]}", flush=True)
    return {
        "made_by": "python -m bots.learn_play_model",
        "hands": hands,
        "seed": seed,
        "plays": len(rows),
        "kinds": list(KINDS),
        "features": list(FEATURES),
        "weights": [round(x, 4) for x in weights],
        "held_out": held_out,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--out", default=str(DATA))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    out = learn(args.hands, args.seed, args.workers, args.steps)
    write_data(out, args.out, start)


if __name__ == "__main__":
    main()
