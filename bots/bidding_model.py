"""Bids learned offline: the double-dummy value of each contract, fitted to a hand's features.

`bots/learn_bidding.py` deals many random hands and, for every seat and every contract
that seat could make (round one: the upcard's suit, with or without its partner; round
two: each other suit, with or without), solves the hand double-dummy
(bots/solver.py) with the dealer discarding by the Medium rules. It fits, for each
(round, seat position from the dealer, alone), a least-squares line from the maker's
hand features to the hand's points for the makers (+1, +2, +4; -2 when euchred), and
writes the coefficients to `bots/data/bidding.json` (small, in the repository; nothing
is fetched at run time).

    value = predicted_points(hand, trump, round_, position, alone, upcard, turned_down)

Features (`features`): the trumps held (right bower, left bower, ace, king, queen, ten,
nine), side aces and side kings, void and single side suits, in round one the
upcard's rank in trump (it joins the dealer's hand), in round two whether trump is
"next" (the colour of the turned-down suit); and, for going alone, which a line
cannot read off the single cards: four or more trumps, five, the side cards that are
not aces, and whether the Medium rules judge that the hand takes all five.
"""

import json
from functools import lru_cache
from pathlib import Path

from games.engine import EFFECTIVE_SUIT, STRENGTH, SUIT_MASK, cards_of, same_color

from . import policy as P

DATA = Path(__file__).with_name("data") / "bidding.json"
FEATURES = (
    "bias",
    "right",
    "left",
    "ace",
    "king",
    "queen",
    "ten",
    "nine",
    "side_aces",
    "side_kings",
    "voids",
    "singletons",
    "upcard_rank",
    "next",
    "four_trumps_or_more",
    "five_trumps",
    "side_losers",
    "takes_all",
)


def features(
    hand: int, trump: int, round_: int, upcard: int | None, turned_down: int | None
) -> list[float]:
    """The features of a five-card hand (bitmask) with `trump` as trump."""
    eff = EFFECTIVE_SUIT[trump]
    trump_strength = STRENGTH[trump][trump]
    held = [0.0] * 7  # right, left, ace, king, queen, ten, nine: strengths 107..101
    side = {}
    side_aces = side_kings = 0
    for c in cards_of(hand):
        s = eff[c]
        if s == trump:
            held[107 - trump_strength[c]] = 1.0
        else:
            side[s] = side.get(s, 0) + 1
            rank = STRENGTH[trump][s][c]  # 6 ace, 5 king
            side_aces += rank == 6
            side_kings += rank == 5
    others = [s for s in range(len(SUIT_MASK[trump])) if s != trump]
    voids = sum(1 for s in others if not side.get(s))
    singletons = sum(1 for s in others if side.get(s) == 1)
    upcard_rank = 0.0
    if round_ == 1 and upcard is not None:
        upcard_rank = (trump_strength[upcard] - 100) / 7
    nxt = float(round_ == 2 and turned_down is not None and trump == same_color(turned_down))
    trumps = sum(held)
    losers = sum(side.values()) - side_aces
    takes_all = float(P.can_take_all(hand, trump))
    return [
        1.0,
        *held,
        side_aces,
        side_kings,
        voids,
        singletons,
        upcard_rank,
        nxt,
        float(trumps >= 4),
        float(trumps == 5),
        losers,
        takes_all,
    ]


def model_key(round_: int, position: int, alone: bool) -> str:
    return f"r{round_}:p{position}:{'alone' if alone else 'team'}"


@lru_cache(maxsize=1)
def load(path: str = str(DATA)) -> dict:
    with open(path) as f:
        return json.load(f)


def predicted_points(
    hand: int,
    trump: int,
    round_: int,
    position: int,
    alone: bool,
    upcard: int | None = None,
    turned_down: int | None = None,
) -> float:
    """The fitted double-dummy points for the makers if this hand makes `trump` from
    `position` (seats after the dealer: 0 the dealer, 2 its partner)."""
    weights = load()["models"][model_key(round_, position, alone)]
    x = features(hand, trump, round_, upcard, turned_down)
    return sum(w * v for w, v in zip(weights, x, strict=True))


def best_alone(
    hand: int, trump: int, round_: int, position: int, upcard: int | None, turned_down: int | None
) -> bool:
    """Going alone: when the fitted points alone beat the fitted points with the partner."""
    alone = predicted_points(hand, trump, round_, position, True, upcard, turned_down)
    team = predicted_points(hand, trump, round_, position, False, upcard, turned_down)
    return alone > team
