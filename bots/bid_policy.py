"""Bids learned by self-play: the average strategy of counterfactual regret minimisation
over the whole bidding (bots/learn_bids.py, bots/data/bid_cfr.json.gz).

The abstraction of a bidding decision (its information set, `decision`): the round, the
seat's position from the dealer (which, in Euchre's bidding, also fixes the bids before:
every seat before it passed), whether it is the stuck dealer, and two numbers read off its
hand and the upcard by the fitted double-dummy model (bots/bidding_model.py, its
features): the points of its best contract with the partner, in steps of `STEP` points
(round one: the upcard's suit, the dealer's hand after picking up; round two: its best
suit but the turned-down one), and what going alone adds to that, in four steps. The
actions: pass, make its best contract with the partner, make its best contract alone (in
round two each names the suit the model values most for it).

A second, richer abstraction (`abstraction=2`, its state bots/data/bid_cfr2.json.gz) adds
what a player bids on beyond the fitted value, for its team bid's suit (`hand_features`):
trumps held, the bowers, side aces, in round one the upcard's rank, in round two whether
trump is "next"; its team bucket is twice as wide (`STEP2`). An information set it never
met is read by the first abstraction's policy. Hard picks it with
`Budget(learned_abstraction=2)`.

The policy covers the standard bidding: no joker, no farmer's hand, going alone allowed,
stick the dealer (`applies`); other tables bid by the players' older rules.

    probs = probabilities(hand, round_, position, upcard, turned_down, stuck)
    action = best_action(...)           # the likeliest bid, as an engine action
    p = likelihood(hand, bid, ...)      # how likely the policy makes the view's `bid`
"""

import gzip
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.engine import PASS as PASS_ACTION
from games.engine import SUIT_BY_LETTER, call, order_up, same_color

from . import bidding_model as M
from . import policy as P

DATA = Path(__file__).with_name("data") / "bid_cfr.json.gz"
# The second, richer abstraction's state (`abstraction=2`; bots/learn_bids.py --abstraction 2)
DATA2 = Path(__file__).with_name("data") / "bid_cfr2.json.gz"
STATES = {1: DATA, 2: DATA2}
STEP = 0.25  # points: the width of a bucket of the team contract's fitted value
STEP2 = 0.5  # the same in the second abstraction, whose hand features say the rest
LOW, HIGH = -2.0, 3.5  # values below LOW (above HIGH) share the first (last) bucket
ALONE_EDGES = (-1.0, -0.25, 0.5)  # alone's value minus the team's: four buckets
PASS, TEAM, ALONE = 0, 1, 2
ACTIONS = (PASS, TEAM, ALONE)
STUCK_ACTIONS = (TEAM, ALONE)


def applies(options: dict[str, Any]) -> bool:
    """The learned bids were trained on the standard bidding only."""
    return (
        not options.get("joker", False)
        and not options.get("farmers_hand", False)
        and options.get("going_alone", True)
        and options.get("stick_the_dealer", True)
    )


def _bucket(team: float, alone: float) -> tuple[int, int]:
    t = int((min(max(team, LOW), HIGH) - LOW) // STEP)
    d = alone - team
    a = sum(d >= edge for edge in ALONE_EDGES)
    return t, a


TRUMP_BUCKETS = (0, 0, 1, 2, 3, 3)  # trumps held: at most one, two, three, four or five
UPCARD_KIND = (2, 2, 0, 2, 1, 1)  # by the upcard's rank (9 T J Q K A): a bower, ace-king, low


def hand_features(hand: int, trump: int, round_: int, upcard: int, turned_down: int | None) -> str:
    """The second abstraction's hand features with `trump` as trump (the hand the seat
    plays: the dealer's after its pickup in round one): trumps held (at most one, two,
    three, four or more), the bowers (b0 none, b1 the left only, b2 the right only, b3
    both), side aces (0, 1, 2 or more), and in round one the upcard's rank (u0 the jack,
    u1 ace or king, u2 nine, ten or queen), in round two whether trump is "next" (the
    turned-down suit's colour)."""
    trumps = hand & P.TRUMPS[trump]
    n = TRUMP_BUCKETS[trumps.bit_count()]
    bowers = 2 * bool(hand >> P.RIGHT[trump] & 1) + bool(hand >> P.LEFT[trump] & 1)
    aces = sum(hand >> (6 * s + 5) & 1 for s in range(4) if s != trump)
    head = f"n{n}:b{bowers}:x{min(aces, 2)}"
    if round_ == 1:
        return f"{head}:u{UPCARD_KIND[upcard % 6]}"
    return f"{head}:next{int(trump == same_color(turned_down))}"


@lru_cache(maxsize=65536)
def decision(
    hand: int,
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    abstraction: int = 1,
) -> tuple[str, int, int]:
    """(the information set's key, the suit the team bid makes, the suit the alone bid
    makes) for a seat holding `hand` (a bitmask) at `position` (0: the dealer). The
    second abstraction's key adds `hand_features` for the team bid's suit and has the
    team bucket wider ("T", `STEP2` points)."""
    if round_ == 1:
        trump = upcard // 6
        mine = P.after_pickup(hand, upcard) if position == 0 else hand
        team = M.predicted_points(mine, trump, 1, position, False, upcard, None)
        alone = M.predicted_points(mine, trump, 1, position, True, upcard, None)
        team_suit = alone_suit = trump
    else:
        team, alone, team_suit, alone_suit = -99.0, -99.0, -1, -1
        for trump in range(4):
            if trump == turned_down:
                continue
            v = M.predicted_points(hand, trump, 2, position, False, None, turned_down)
            if v > team:
                team, team_suit = v, trump
            v = M.predicted_points(hand, trump, 2, position, True, None, turned_down)
            if v > alone:
                alone, alone_suit = v, trump
    t, a = _bucket(team, alone)
    key = f"r{round_}:p{position}{':stuck' if stuck else ''}:t{t}:a{a}"
    if abstraction == 2:
        mine = P.after_pickup(hand, upcard) if round_ == 1 and position == 0 else hand
        features = hand_features(mine, team_suit, round_, upcard, turned_down)
        t = int((min(max(team, LOW), HIGH) - LOW) // STEP2)
        key = f"r{round_}:p{position}{':stuck' if stuck else ''}:T{t}:a{a}:{features}"
    return key, team_suit, alone_suit


def strategy_from(state: dict) -> dict[str, tuple[float, ...]]:
    """The average strategy (a probability per action) of a training state's sums."""
    out = {}
    for key, sums in state["strategy"].items():
        total = sum(sums)
        if total > 0:
            out[key] = tuple(s / total for s in sums)
    return out


def read_state(path: str | Path = DATA) -> dict:
    with gzip.open(path, "rt") as f:
        return json.load(f)


@lru_cache(maxsize=4)  # both abstractions' policies at once: a read falls back on the first's
def table(path: str = str(DATA)) -> dict[str, tuple[float, ...]]:
    return strategy_from(read_state(path))


def _fallback(key: str, policy: dict[str, tuple[float, ...]]) -> tuple[float, ...]:
    """An information set training never met: the nearest team bucket that it met with
    the same round, position and alone bucket; failing that, bid above 0 points."""
    head, t, a = key.rsplit(":", 2)
    t = int(t[1:])
    for step in range(1, 40):
        for near in (t - step, t + step):
            probs = policy.get(f"{head}:t{near}:{a}")
            if probs is not None:
                return probs
    bid = LOW + t * STEP > 0 or head.endswith("stuck")
    if head.endswith("stuck"):
        return (1.0, 0.0)
    return (0.0, 1.0, 0.0) if bid else (1.0, 0.0, 0.0)


def probabilities(
    hand: int,
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    policy: dict[str, tuple[float, ...]] | None = None,
    abstraction: int = 1,
) -> tuple[dict[int, float], int, int]:
    """({PASS, TEAM, ALONE: probability}, the team bid's suit, the alone bid's suit), by
    the policy of `abstraction` (its committed state unless `policy` is given). An
    information set of the second abstraction that training never met is read by the
    first's committed policy."""
    policy = table(str(STATES[abstraction])) if policy is None else policy
    args = (hand, round_, position, upcard, turned_down, stuck)
    key, team_suit, alone_suit = decision(*args, abstraction)
    probs = policy.get(key)
    if probs is None:
        if abstraction != 1:
            key, policy = decision(*args, 1)[0], table(str(DATA))
            probs = policy.get(key)
        if probs is None:
            probs = _fallback(key, policy)
    actions = STUCK_ACTIONS if stuck else ACTIONS
    return dict(zip(actions, probs, strict=True)), team_suit, alone_suit


def _engine_action(kind: int, round_: int, team_suit: int, alone_suit: int):
    if kind == PASS:
        return PASS_ACTION
    alone = kind == ALONE
    if round_ == 1:
        return order_up(alone)
    return call(alone_suit if alone else team_suit, alone)


def best_action(
    hand: int,
    round_: int,
    position: int,
    upcard: int,
    turned_down,
    stuck: bool,
    abstraction: int = 1,
):
    """The policy's likeliest bid, as an engine action."""
    probs, team_suit, alone_suit = probabilities(
        hand, round_, position, upcard, turned_down, stuck, abstraction=abstraction
    )
    kind = max(probs, key=probs.__getitem__)
    return _engine_action(kind, round_, team_suit, alone_suit)


def state_action(state, abstraction: int = 1):
    """The policy's bid for the seat to move on an engine state in round one or two."""
    seat = state.turn
    round_ = 1 if state.phase == "bid1" else 2
    position = (seat - state.dealer) % 4
    stuck = round_ == 2 and position == 0
    turned_down = state.upcard // 6 if round_ == 2 else None
    hand = state.hands[seat]
    return best_action(hand, round_, position, state.upcard, turned_down, stuck, abstraction)


def likelihood(
    hand: int,
    bid: dict[str, Any],
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    abstraction: int = 1,
) -> float:
    """How likely the policy makes `bid` (the view's bid record) holding `hand`."""
    probs, team_suit, alone_suit = probabilities(
        hand, round_, position, upcard, turned_down, stuck, abstraction=abstraction
    )
    kind = bid["type"]
    if kind == "pass":
        return probs.get(PASS, 0.0)
    alone = bool(bid.get("alone"))
    if kind == "call" and SUIT_BY_LETTER[bid["suit"]] != (alone_suit if alone else team_suit):
        return 0.0
    return probs[ALONE if alone else TEAM]
