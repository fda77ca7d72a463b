"""Bids by the fitted double-dummy value of each contract against a threshold.

A model of a bidder who bids by a hand's worth: a seat orders up, or names its best suit
in round two, when the fitted points of its best contract (bots/bidding_model.py, with the
partner or alone) are above the value of passing from its place at the table, a
threshold for each (round, position from the dealer) improved by policy iteration
against this same bidding (bots/learn_reference_plus.py, bots/data/reference_plus.json);
the stuck dealer names its best suit. reference_plus bids by it
(bots/players/reference_plus.py), and Hard can read and continue its opponents' bids by
it (`Budget.fitted_opponents`, bots/players/hard.py). The standard 24-card deck only.
"""

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.engine import PASS as PASS_ACTION
from games.engine import SUIT_BY_LETTER, call, order_up

from . import bidding_model as M
from . import policy as P

DATA = Path(__file__).with_name("data") / "reference_plus.json"

TEMPERATURE = 0.5  # points: how sharply a bid's likelihood turns around its threshold


@lru_cache(maxsize=1)
def load(path: str = str(DATA)) -> dict:
    with open(path) as f:
        return json.load(f)


def thresholds() -> dict[str, float]:
    """The value of passing, per "r{round}:p{position}", of the latest iteration."""
    return load()["thresholds"]


def threshold_key(round_: int, position: int) -> str:
    return f"r{round_}:p{position}"


# ------------------------------------------------------------------ the model's bids


def round_one_value(hand: int, upcard: int, position: int, alone_ok: bool) -> float:
    """The fitted points of ordering the upcard up from `position` (0 the dealer), the
    better of with the partner and alone."""
    trump = upcard // 6
    mine = P.after_pickup(hand, upcard) if position == 0 else hand
    team = M.predicted_points(mine, trump, 1, position, False, upcard, None)
    if not alone_ok:
        return team
    return max(team, M.predicted_points(mine, trump, 1, position, True, upcard, None))


def round_two_values(
    hand: int, turned_down: int, position: int, alone_ok: bool
) -> dict[int, float]:
    """The fitted points of naming each suit but the turned-down one, as above."""
    values = {}
    for trump in range(4):
        if trump == turned_down:
            continue
        team = M.predicted_points(hand, trump, 2, position, False, None, turned_down)
        if alone_ok:
            team = max(team, M.predicted_points(hand, trump, 2, position, True, None, turned_down))
        values[trump] = team
    return values


def model_bid(
    hand: int,
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    alone_ok: bool,
    table: dict[str, float],
) -> int | None:
    """The model's bid: the trump it makes (the upcard's suit in round one), or None to
    pass. The stuck dealer always names its best suit."""
    threshold = table[threshold_key(round_, position)]
    if round_ == 1:
        value = round_one_value(hand, upcard, position, alone_ok)
        return upcard // 6 if value > threshold else None
    values = round_two_values(hand, turned_down, position, alone_ok)
    best = max(values, key=values.__getitem__)
    return best if stuck or values[best] > threshold else None


def _sigmoid(x: float) -> float:
    if x < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def bid_likelihood(
    hand: int,
    bid: dict[str, Any],
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    alone_ok: bool,
    table: dict[str, float],
) -> float:
    """How likely the model makes `bid` (the view's bid record) with `hand`."""
    if stuck:
        return 1.0  # the stuck dealer had to name a suit
    threshold = table[threshold_key(round_, position)]
    if round_ == 1:
        value = round_one_value(hand, upcard, position, alone_ok)
    else:
        values = round_two_values(hand, turned_down, position, alone_ok)
        if bid["type"] == "call":
            value = values.get(SUIT_BY_LETTER[bid["suit"]], max(values.values()))
        else:
            value = max(values.values())
    p = _sigmoid((value - threshold) / TEMPERATURE)
    return 1.0 - p if bid["type"] == "pass" else p


def bid(
    hand: int,
    round_: int,
    position: int,
    upcard: int,
    turned_down: int | None,
    stuck: bool,
    alone_ok: bool,
) -> tuple[int | None, bool]:
    """The model's bid with its "alone": the trump it makes, or None to pass, and whether
    it goes alone (the fitted points alone above those with the partner)."""
    trump = model_bid(hand, round_, position, upcard, turned_down, stuck, alone_ok, thresholds())
    if trump is None or not alone_ok:
        return trump, False
    mine = P.after_pickup(hand, upcard) if round_ == 1 and position == 0 else hand
    up = upcard if round_ == 1 else None
    return trump, M.best_alone(
        mine, trump, round_, position, up, None if round_ == 1 else turned_down
    )


def state_action(state):
    """The model's bid for the seat to move on an engine state in round one or two, as an
    engine action (stick the dealer and going alone as the state's options say)."""
    seat = state.turn
    round_ = 1 if state.phase == "bid1" else 2
    position = (seat - state.dealer) % 4
    stuck = round_ == 2 and position == 0 and state.options.stick_the_dealer
    turned_down = state.upcard // 6 if round_ == 2 else None
    alone_ok = state.options.going_alone
    trump, alone = bid(
        state.hands[seat], round_, position, state.upcard, turned_down, stuck, alone_ok
    )
    if trump is None:
        return PASS_ACTION
    return order_up(alone) if round_ == 1 else call(trump, alone)
