"""Policy iteration for reference_plus's bids: bots/data/reference_plus.json.

    python -m bots.learn_reference_plus --chunk 20000 --deals 20000 --iterations 10 --seed 1

(the committed file: ten iterations of 20,000 deals from iteration 0, 127 s on one core;
`--chunk` smaller than `--deals` stops part way through an iteration and the next run
carries on from the file).

reference_plus (bots/players/reference_plus.py) bids when the fitted double-dummy
value of its best contract (bots/bidding_model.py) is above a threshold for its
(round, position from the dealer): the value of passing there. Iteration 0 is the fitted
model with every threshold 0. Each iteration deals `--deals` random hands and bids
them with the current policy at all four seats (self-play: each seat assumes the others
bid by the same model). At each decision where the seat's value is within `--band`
points of its threshold (the margin, where the threshold decides), it records the
model's value and what bidding is worth to the seat's side minus what passing is: each
the bidding continued by the policy (after the pass; or after its best contract), the
dealer's discard by the Medium rules, the play solved double-dummy (bots/solver.py),
the hand's points for the seat's side (0 when the hand is thrown in). The next
iteration's threshold moves half way (`STEP`) to where a least-squares line of that
difference on the value crosses 0, at most `--band` away (a key with fewer than
`MIN_ROWS` rows keeps its threshold; the stuck dealer has none). Going alone is the
model's choice here (alone when its fitted value beats the team's): the player decides
it by sampled solving, too slow for this.

Resumable in chunks: each run adds `--chunk` deals to the iteration under way and writes
the file (the sums so far under "pending"); once an iteration has its `--deals`, its
thresholds are written and the next begins. Deal i of iteration k is dealt from its own
seed, so the chunks' sizes do not change the result. `--iterations N` runs chunks until
N iterations are done.
"""

import argparse
import json
import random
import time

from games import engine as E

from . import bidding_model as M
from . import policy as P
from . import solver as S
from .fitted_bids import (
    DATA,
    load,
    model_bid,
    round_one_value,
    round_two_values,
    threshold_key,
)

MIN_ROWS = 100
STEP = 0.5  # how far a threshold moves toward its new estimate in one iteration


def _model_alone(hand: int, trump: int, round_: int, position: int, upcard: int, down) -> bool:
    mine = P.after_pickup(hand, upcard) if round_ == 1 and position == 0 else hand
    if round_ == 1:
        return M.best_alone(mine, trump, 1, position, upcard, None)
    return M.best_alone(mine, trump, 2, position, None, down)


def play_bidding(
    deck: list[int], dealer: int, table: dict[str, float], passes: int = 0, bid_at: int = -1
):
    """Bid `deck` by the policy, the first `passes` decisions forced to pass and the one
    at index `bid_at` forced to make its best contract. Returns
    (the decisions met: (seat, key, value, stuck), the hand's points for team 0)."""
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(deck)
    upcard = deck[20]
    decisions = []
    while state.phase in (E.BID1, E.BID2, E.DISCARD):
        seat = state.turn
        if state.phase == E.DISCARD:
            hand = state.hands[seat]
            state.apply_action(seat, E.discard(P.best_discard(hand, state.trump)))
            continue
        position = (seat - dealer) % 4
        hand = state.hands[seat]
        round_ = 1 if state.phase == E.BID1 else 2
        stuck = round_ == 2 and E.PASS not in state.legal_actions()
        if round_ == 1:
            value = round_one_value(hand, upcard, position, True)
        else:
            value = max(round_two_values(hand, upcard // 6, position, True).values())
        decisions.append((seat, threshold_key(round_, position), value, stuck))
        trump = None
        if len(decisions) - 1 == bid_at:
            trump = model_bid(hand, round_, position, upcard, upcard // 6, True, True, table)
            trump = upcard // 6 if round_ == 1 else trump
        elif len(decisions) > passes:
            trump = model_bid(hand, round_, position, upcard, upcard // 6, stuck, True, table)
        if trump is None:
            state.apply_action(seat, E.PASS)
            continue
        alone = _model_alone(hand, trump, round_, position, upcard, upcard // 6)
        if round_ == 1:
            state.apply_action(seat, E.order_up(alone))
        else:
            state.apply_action(seat, E.call(trump, alone))
    if state.phase != E.PLAY:
        return decisions, 0  # thrown in
    points = S.solve_points(state)
    return decisions, points if state.maker % 2 == 0 else -points


def margin_rows(deck: list[int], dealer: int, table: dict[str, float], band: float):
    """(key, the seat's value, bidding's points minus passing's for the seat's side) at
    each decision of the policy's bidding of `deck` within `band` of its threshold."""
    decisions, team0 = play_bidding(deck, dealer, table)
    rows = []
    for i, (seat, key, value, stuck) in enumerate(decisions):
        if stuck or abs(value - table[key]) > band:
            continue
        if i == len(decisions) - 1:  # it bid (the stuck dealer is not a decision here)
            bid = team0
            _, passed = play_bidding(deck, dealer, table, passes=i + 1)
        else:  # it passed: what bidding would have led to
            passed = team0
            _, bid = play_bidding(deck, dealer, table, passes=i, bid_at=i)
        sign = 1 if seat % 2 == 0 else -1
        rows.append((key, value, sign * (bid - passed)))
    return rows


def deal_for(seed: int, iteration: int, i: int) -> tuple[list[int], int]:
    rng = random.Random(f"{seed}:{iteration}:{i}")
    return E.seeded_deck(rng), rng.randrange(4)


def new_threshold(old: float, sums: list[float], band: float) -> float:
    """Where bidding starts to beat passing: the root of the least-squares line of
    (bidding's points minus passing's) on the model's value, kept within `band` of the
    old threshold (without a rising line, the old threshold moved by the mean
    difference); the threshold moves `STEP` of the way there (the rows are few where
    the bidding seldom reaches)."""
    n, sv, sd, svv, svd = sums
    if n < MIN_ROWS:
        return old
    spread = n * svv - sv * sv
    slope = (n * svd - sv * sd) / spread if spread > 1e-9 else 0.0
    if slope > 0.05:
        root = -((sd - slope * sv) / n) / slope
    else:
        root = old - sd / n
    target = min(old + band, max(old - band, root))
    return round(old + STEP * (target - old), 4)


def run_chunk(data: dict, chunk: int, deals: int, seed: int, band: float) -> dict:
    """Add up to `chunk` deals to the iteration under way; close it when it is full."""
    table = data["thresholds"]
    pending = data.get("pending") or {"deals_done": 0, "sums": {}}
    iteration = data["iteration"] + 1
    start = pending["deals_done"]
    for i in range(start, min(deals, start + chunk)):
        deck, dealer = deal_for(seed, iteration, i)
        for key, value, diff in margin_rows(deck, dealer, table, band):
            sums = pending["sums"].setdefault(key, [0, 0.0, 0.0, 0.0, 0.0])
            for j, add in enumerate((1, value, diff, value * value, value * diff)):
                sums[j] += add
        pending["deals_done"] = i + 1
    if pending["deals_done"] < deals:
        return {**data, "pending": pending}
    new = dict(table)
    for key, sums in pending["sums"].items():
        new[key] = new_threshold(table[key], sums, band)
    rows = {key: sums[0] for key, sums in sorted(pending["sums"].items())}
    history = [*data.get("history", []), {"iteration": iteration, "deals": deals, "rows": rows}]
    return {
        **data,
        "iteration": iteration,
        "thresholds": new,
        "seed": seed,
        "band": band,
        "history": history,
        "pending": None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunk", type=int, default=500, help="deals in this run")
    parser.add_argument("--deals", type=int, default=2000, help="deals an iteration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--band", type=float, default=1.0)
    parser.add_argument("--iterations", type=int, default=0, help="run until this many")
    parser.add_argument("--path", default=str(DATA))
    args = parser.parse_args()
    start = time.perf_counter()
    with open(args.path) as f:
        data = json.load(f)
    while True:
        data = run_chunk(data, args.chunk, args.deals, args.seed, args.band)
        with open(args.path, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        done = (data.get("pending") or {}).get("deals_done", 0)
        print(
            f"iteration {data['iteration']} done, {done} deals into the next, "
            f"{time.perf_counter() - start:.0f} s: {data['thresholds']}",
            flush=True,
        )
        if data["iteration"] >= args.iterations:
            break
    load.cache_clear()


if __name__ == "__main__":
    main()
