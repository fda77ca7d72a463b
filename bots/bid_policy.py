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
from games.engine import SUIT_BY_LETTER, call, order_up

from . import bidding_model as M
from . import policy as P

DATA = Path(__file__).with_name("data") / "bid_cfr.json.gz"
STEP = 0.25  # points: the width of a bucket of the team contract's fitted value
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


@lru_cache(maxsize=65536)
def decision(
    hand: int, round_: int, position: int, upcard: int, turned_down: int | None, stuck: bool
) -> tuple[str, int, int]:
    """(the information set's key, the suit the team bid makes, the suit the alone bid
    makes) for a seat holding `hand` (a bitmask) at `position` (0: the dealer)."""
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


@lru_cache(maxsize=1)
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
) -> tuple[dict[int, float], int, int]:
    """({PASS, TEAM, ALONE: probability}, the team bid's suit, the alone bid's suit)."""
    policy = table() if policy is None else policy
    key, team_suit, alone_suit = decision(hand, round_, position, upcard, turned_down, stuck)
    probs = policy.get(key) or _fallback(key, policy)
    actions = STUCK_ACTIONS if stuck else ACTIONS
    return dict(zip(actions, probs, strict=True)), team_suit, alone_suit


def _engine_action(kind: int, round_: int, team_suit: int, alone_suit: int):
    if kind == PASS:
        return PASS_ACTION
    alone = kind == ALONE
    if round_ == 1:
        return order_up(alone)
    return call(alone_suit if alone else team_suit, alone)


def best_action(hand: int, round_: int, position: int, upcard: int, turned_down, stuck: bool):
    """The policy's likeliest bid, as an engine action."""
    probs, team_suit, alone_suit = probabilities(hand, round_, position, upcard, turned_down, stuck)
    kind = max(probs, key=probs.__getitem__)
    return _engine_action(kind, round_, team_suit, alone_suit)


def state_action(state):
    """The policy's bid for the seat to move on an engine state in round one or two."""
    seat = state.turn
    round_ = 1 if state.phase == "bid1" else 2
    position = (seat - state.dealer) % 4
    stuck = round_ == 2 and position == 0
    turned_down = state.upcard // 6 if round_ == 2 else None
    return best_action(state.hands[seat], round_, position, state.upcard, turned_down, stuck)


def likelihood(
    hand: int,
    bid: dict[str, Any],
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
) -> float:
    """How likely the policy makes `bid` (the view's bid record) holding `hand`."""
    probs, team_suit, alone_suit = probabilities(hand, round_, position, upcard, turned_down, stuck)
    kind = bid["type"]
    if kind == "pass":
        return probs.get(PASS, 0.0)
    alone = bool(bid.get("alone"))
    if kind == "call" and SUIT_BY_LETTER[bid["suit"]] != (alone_suit if alone else team_suit):
        return 0.0
    return probs[ALONE if alone else TEAM]
