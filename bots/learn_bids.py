"""Learn the bids by self-play: counterfactual regret minimisation over the whole bidding.

    python -m bots.learn_bids --chunk 100000 --seed 1     # adds 100,000 deals to the state

writes bots/data/bid_cfr.json.gz (the state: every information set's summed regrets and
summed strategy, the iterations done, the figures after each chunk) and carries on from
it the next time: training is a run of chunks, each small enough to finish and commit
(`--chunk` deals, a few minutes each), and two chunks give exactly what one run of their
total gives (iteration t deals from its own seed, "seed:t"). `--abstraction 2`: the
richer information sets (bots/bid_policy.py), state bots/data/bid_cfr2.json.gz;
`--workers 2`: two processes deal and solve the deals ahead, the same state.

The game (`BiddingGame`): one deal (a seeded deck, a random dealer); the eight bidding
decisions in turn (round one from the dealer's left, then round two, the dealer stuck at
the end), each seat choosing, in its information set (bots/bid_policy.py: round,
position, stuck, buckets of its hand's fitted contract values), to pass, to make its
best contract with its partner or to make it alone. Making trump ends the bidding; the
dealer's discard is the Medium rules', and the hand is valued double-dummy
(bots/solver.py, the points for the makers' side, the other side's the negative). The
players are the four seats, partners sharing their side's points.

The method (`cfr`, generic: a test checks it on Kuhn poker): chance-sampled CFR. Each
iteration samples one deal and walks its whole bidding tree (every action of every seat:
the tree is a chain of eight decisions, every bid ending it), each seat's regrets
weighted by the others' chances of reaching the decision (its partner's included);
the strategy is regret matching, and the average strategy, the policy used in play,
weighs iteration t by t (linear averaging).
"""

import argparse
import functools
import gzip
import io
import json
import math
import multiprocessing
import random
import time
from pathlib import Path

from games import engine as E

from . import bid_policy as B
from .fitted_bids import bid as fitted_bid
from .learn_bidding import contract_value

# ---------------------------------------------------------------- CFR, for any small game


def regret_matching(regrets: list[float]) -> list[float]:
    positive = [r if r > 0 else 0.0 for r in regrets]
    total = sum(positive)
    if total <= 0:
        return [1.0 / len(regrets)] * len(regrets)
    return [r / total for r in positive]


def cfr(game, deal, h, reach: list[float], t: int, regret: dict, strategy: dict) -> list[float]:
    """One walk of the tree below history `h` of `deal`: every player's value of `h` under
    the current strategy; regrets and strategy sums updated on the way.

    `game` has `players`, and for a deal and history: `terminal` (the players' payoffs, or
    None), `to_move`, `infoset` (a string), `actions`, `child`."""
    payoff = game.terminal(deal, h)
    if payoff is not None:
        return payoff
    p = game.to_move(deal, h)
    key = game.infoset(deal, h)
    actions = game.actions(deal, h)
    r = regret.get(key)
    if r is None:
        r = regret[key] = [0.0] * len(actions)
        strategy[key] = [0.0] * len(actions)
    sigma = regret_matching(r)
    n = game.players
    node = [0.0] * n
    values = []
    for a, s in zip(actions, sigma, strict=True):
        child_reach = list(reach)
        child_reach[p] *= s
        v = cfr(game, deal, game.child(deal, h, a), child_reach, t, regret, strategy)
        values.append(v)
        for q in range(n):
            node[q] += s * v[q]
    others = math.prod(reach[q] for q in range(n) if q != p)
    sums = strategy[key]
    for i, s in enumerate(sigma):
        r[i] += others * (values[i][p] - node[p])
        sums[i] += t * reach[p] * s
    return node


def _dealt(game, seed: int, t: int, prepare: bool = False):
    """Iteration t's deal; with `prepare`, its values worked out (`deal.prepare()`, if
    the game's deals have one) so that a worker process can hand it over ready."""
    deal = game.sample(random.Random(f"{seed}:{t}"))
    if prepare and hasattr(deal, "prepare"):
        deal.prepare()
    return deal


def iterate(game, state: dict, iterations: int, seed: int, workers: int = 1) -> dict:
    """`iterations` more iterations of chance-sampled CFR on `state` (changed in place):
    iteration t samples its deal from random.Random(f"{seed}:{t}"). With `workers` above
    1, that many processes deal and prepare the deals ahead (the bidding game's: every
    contract solved) while this one walks them in order: the same state."""
    regret, strategy = state["regret"], state["strategy"]
    first = state["iteration"] + 1
    ts = range(first, first + iterations)
    pool = None
    if workers > 1:
        pool = multiprocessing.get_context("fork").Pool(workers)
        deals = pool.imap(functools.partial(_dealt, game, seed, prepare=True), ts, chunksize=16)
    else:
        deals = (_dealt(game, seed, t) for t in ts)
    try:
        for t, deal in zip(ts, deals, strict=True):
            cfr(game, deal, game.root(deal), [1.0] * game.players, t, regret, strategy)
            state["iteration"] = t
    finally:
        if pool is not None:
            pool.terminate()
    return state


def new_state() -> dict:
    return {"iteration": 0, "regret": {}, "strategy": {}}


# ---------------------------------------------------------------- the bidding game


class BiddingDeal:
    """One deal's eight decisions and the contracts' solved points, solved as needed."""

    __slots__ = ("deck", "dealer", "upcard", "decisions", "points")

    def __init__(self, deck: list[int], dealer: int, abstraction: int = 1):
        self.deck, self.dealer, self.upcard = deck, dealer, deck[20]
        # (seat, round, key, team suit, alone suit, the first abstraction's key)
        self.decisions = []
        hands = [0] * 4
        for i, c in enumerate(deck[:20]):
            hands[(dealer + 1 + i // 5) % 4] |= 1 << c
        turned_down = self.upcard // 6
        for i in range(8):
            seat = (dealer + 1 + i) % 4
            round_ = 1 if i < 4 else 2
            position = (seat - dealer) % 4
            down = turned_down if round_ == 2 else None
            args = (hands[seat], round_, position, self.upcard, down, i == 7)
            key, team_suit, alone_suit = B.decision(*args, abstraction)
            coarse = key if abstraction == 1 else B.decision(*args, 1)[0]
            self.decisions.append((seat, round_, key, team_suit, alone_suit, coarse))
        self.points: dict[tuple[int, int], float] = {}

    def prepare(self) -> None:
        """Solve every contract the bidding tree can end in (16: each decision's team and
        alone bids)."""
        for i in range(8):
            self.team0_points(i, B.TEAM)
            self.team0_points(i, B.ALONE)

    def team0_points(self, i: int, kind: int) -> float:
        got = self.points.get((i, kind))
        if got is None:
            seat, round_, _, team_suit, alone_suit, _ = self.decisions[i]
            alone = kind == B.ALONE
            trump = alone_suit if alone else team_suit
            _, points = contract_value(self.deck, self.dealer, seat, trump, round_, alone)
            got = self.points[(i, kind)] = points if seat % 2 == 0 else -points
        return got


class BiddingGame:
    """Euchre's bidding under the standard rules (stick the dealer, going alone allowed,
    no defending alone) as a four-player game for `cfr`. A history is the index of the
    decision to make (every one before it passed) or ("end", i, kind). `abstraction`:
    which information sets (bots/bid_policy.py's `decision`)."""

    players = 4

    def __init__(self, abstraction: int = 1):
        self.abstraction = abstraction

    def sample(self, rng: random.Random) -> BiddingDeal:
        dealer = rng.randrange(4)
        return BiddingDeal(E.seeded_deck(rng), dealer, self.abstraction)

    def root(self, deal: BiddingDeal):
        return 0

    def terminal(self, deal: BiddingDeal, h):
        if type(h) is int:
            return None
        v = deal.team0_points(h[1], h[2])
        return [v, -v, v, -v]

    def to_move(self, deal: BiddingDeal, h: int) -> int:
        return deal.decisions[h][0]

    def infoset(self, deal: BiddingDeal, h: int) -> str:
        return deal.decisions[h][2]

    def actions(self, deal: BiddingDeal, h: int) -> tuple[int, ...]:
        return B.STUCK_ACTIONS if h == 7 else B.ACTIONS

    def child(self, deal: BiddingDeal, h: int, a: int):
        return h + 1 if a == B.PASS else ("end", h, a)


# ---------------------------------------------------------------- figures


def _reference_plus_kind(deal: BiddingDeal, i: int) -> int:
    """reference_plus's bid at decision i of `deal` (its thresholds, alone by the model)."""
    seat, round_, _, _, _, _ = deal.decisions[i]
    hand = 0
    for j, c in enumerate(deal.deck[:20]):
        if (deal.dealer + 1 + j // 5) % 4 == seat:
            hand |= 1 << c
    position = (seat - deal.dealer) % 4
    down = deal.upcard // 6
    trump, alone = fitted_bid(hand, round_, position, deal.upcard, down, i == 7, True)
    if trump is None:
        return B.PASS
    return B.ALONE if alone else B.TEAM


def learned_probs(policy: dict, deal: BiddingDeal, i: int) -> tuple[float, ...]:
    """The policy's probabilities at decision i of `deal`; an information set it never
    met read as bots/bid_policy.py reads it (the second abstraction's by the first's
    committed policy)."""
    key, coarse = deal.decisions[i][2], deal.decisions[i][5]
    probs = policy.get(key)
    if probs is None and key != coarse:
        policy = B.table(str(B.DATA))
        probs = policy.get(coarse)
    return probs or B._fallback(coarse, policy)


def evaluate(policy: dict, deals: int = 2000, seed: int = 7, abstraction: int = 1) -> dict:
    """The learned bids (each decision the policy's likeliest) for one side against
    reference_plus's bids for the other, on `deals` fixed deals played from both sides,
    every contract solved double-dummy: the learned side's points a hand (mean, 95 %
    interval), and how often each side made trump and was euchred."""
    game = BiddingGame(abstraction)
    diffs = []
    made = [0, 0]
    euchred = [0, 0]
    for d in range(deals):
        deal = game.sample(random.Random(f"eval:{seed}:{d}"))
        total = 0.0
        for learned_team in (0, 1):

            def chooser(i, learned_team=learned_team, deal=deal):
                seat = deal.decisions[i][0]
                if seat % 2 == learned_team:
                    probs = learned_probs(policy, deal, i)
                    acts = B.STUCK_ACTIONS if i == 7 else B.ACTIONS
                    return acts[max(range(len(acts)), key=probs.__getitem__)]
                return _reference_plus_kind(deal, i)

            for i in range(8):
                kind = chooser(i)
                if kind != B.PASS:
                    points = deal.team0_points(i, kind)
                    ours = points if learned_team == 0 else -points
                    maker_learned = deal.decisions[i][0] % 2 == learned_team
                    side = 0 if maker_learned else 1
                    made[side] += 1
                    signed = ours if maker_learned else -ours
                    euchred[side] += signed < 0
                    total += ours
                    break
        diffs.append(total / 2)
    mean = sum(diffs) / len(diffs)
    var = sum((x - mean) ** 2 for x in diffs) / max(1, len(diffs) - 1)
    half = 1.96 * math.sqrt(var / len(diffs))
    return {
        "deals": deals,
        "learned_minus_reference_plus": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "made": {"learned": made[0], "reference_plus": made[1]},
        "euchred": {"learned": euchred[0], "reference_plus": euchred[1]},
    }


def policy_change(before: dict, after: dict) -> dict:
    """How much a chunk moved the average strategy: the information sets whose likeliest
    action changed, and the largest change of any action's probability."""
    changed, largest = 0, 0.0
    for key, probs in after.items():
        old = before.get(key)
        if old is None:
            continue
        changed += max(range(len(probs)), key=probs.__getitem__) != max(
            range(len(old)), key=old.__getitem__
        )
        largest = max(largest, *(abs(a - b) for a, b in zip(probs, old, strict=True)))
    return {"likeliest_changed": changed, "largest_probability_change": round(largest, 4)}


# ---------------------------------------------------------------- the state file


def write_state(state: dict, path: str | Path) -> None:
    """Gzipped JSON, the same bytes for the same state (no time stamp in the header)."""
    raw = json.dumps(state, separators=(",", ":"), sort_keys=True).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as f:
        f.write(raw)
    Path(path).write_bytes(buf.getvalue())


def run_chunk(state: dict, chunk: int, seed: int, abstraction: int = 1, workers: int = 1) -> dict:
    if state.get("seed", seed) != seed:
        raise ValueError(f"the state was trained with seed {state['seed']}, not {seed}")
    trained = state.get("abstraction", 1) if state["iteration"] else abstraction
    if trained != abstraction:
        raise ValueError(f"the state is of abstraction {trained}, not {abstraction}")
    state["seed"] = seed
    if abstraction != 1:
        state["abstraction"] = abstraction  # the first's state file is as it was
    return iterate(BiddingGame(abstraction), state, chunk, seed, workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunk", type=int, default=100000, help="deals (iterations) this run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-deals", type=int, default=2000)
    parser.add_argument(
        "--abstraction", type=int, choices=sorted(B.STATES), default=1, help="information sets"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes solving the deals")
    parser.add_argument("--path", help="the state (default: the abstraction's in bots/data/)")
    parser.add_argument("--new", action="store_true", help="start from nothing")
    args = parser.parse_args()
    start = time.perf_counter()
    path = Path(args.path or B.STATES[args.abstraction])
    state = new_state() if args.new or not path.exists() else B.read_state(path)
    before = B.strategy_from(state)
    state = run_chunk(state, args.chunk, args.seed, args.abstraction, args.workers)
    seconds = time.perf_counter() - start
    after = B.strategy_from(state)
    figures = evaluate(after, args.eval_deals, abstraction=args.abstraction)
    chunks = state.setdefault("chunks", [])
    chunks.append(
        {
            "iterations": state["iteration"],
            "deals_this_chunk": args.chunk,
            "seconds": round(seconds),
            "information_sets": len(state["regret"]),
            "policy_change": policy_change(before, after),
            "against_reference_plus_bids": figures,
        }
    )
    made_by = f"python -m bots.learn_bids --chunk {args.chunk} --seed {args.seed}"
    if args.abstraction != 1:
        made_by += f" --abstraction {args.abstraction}"
        chunks[-1]["workers"] = args.workers
    state["made_by"] = made_by
    write_state(state, path)
    B.table.cache_clear()
    print(json.dumps(chunks[-1]), flush=True)


if __name__ == "__main__":
    main()
