"""A learned reading of the others' plays: how likely a player who searches was to play
each of its legal cards (issue 34: the play read by the players' own policies).

`Budget.play_belief` reads a play as the Medium rules' card or not. Hard and the
reference opponents search, and their cards are the Medium rules' less often (the odds a
miss, benchmarks/play_reading.py: 0.28 for Hard, 0.53 for reference_plus). This model
gives each legal card a chance instead: a conditional logit (a softmax over the legal
cards) over a few yes-or-no features of the card in its place (the rules' card, a trump,
the highest or lowest of its suit in the hand, the best card left, winning the trick,
overtaking the partner, ...), one weight per feature and kind of play (leading,
following suit, void). The weights are fitted to Hard's and reference_plus's own plays
by bots/learn_play_model.py and shipped in bots/data/play_model.json.

A deal is weighed by how well it explains the others' plays this hand: for each play,
the chance of the card played over the chance of the likeliest card from the hand the
deal gives that seat (1 when the play is the model's first choice), raised to the
reading's strength. Only the view is read, through bots/inference.py `others_plays`.
"""

import json
import math
from functools import cache
from pathlib import Path

from games.engine import ACE, BIT, EFFECTIVE_SUIT, JOKER, STRENGTH, SUIT_MASK, Seen, cards_of

from . import policy as P
from .inference import others_plays, rules_card

DATA = Path(__file__).resolve().parent / "data" / "play_model.json"
KINDS = ("lead", "follow", "void")
FEATURES = (
    "rules",  # the Medium rules' card from this hand
    "trump",
    "top",  # the highest card of its suit in the hand
    "bottom",  # the lowest card of its suit in the hand
    "boss",  # no card of its suit left out that beats it
    "wins",  # it beats the trick's cards so far
    "overtakes",  # it beats the partner's winning card
    "wins_last",  # it wins as the trick's last card
    "cheapest_win",  # the lowest legal card that wins
    "under_partner",  # the lowest of its suit, under the partner's winning card
    "singleton",  # the only card of its suit in the hand (a side suit)
    "side_ace",
    "low",  # a side nine or ten
    "makers_trump",  # a trump played by the makers' side
)
SIZE = len(KINDS) * len(FEATURES)
FEATURE_INDEX = {name: i for i, name in enumerate(FEATURES)}


def card_features(
    seen: Seen,
    s: int,
    hand: int,
    seats: list[int],
    cards: list[int],
    gone: int,
    voids: list[int],
) -> tuple[list[int], list[list[int]]]:
    """Seat s's legal cards from `hand` at this point of the trick, and each one's active
    features (indices into the weights)."""
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump]
    mine = cards_of(hand)
    legal = mine
    kind = 0
    partner_winning = False
    winning: list[int] = []  # the legal cards that beat the trick so far, weakest first
    if cards:
        led = eff[cards[0]]
        legal = [c for c in mine if eff[c] == led] or mine
        kind = 1 if eff[legal[0]] == led else 2
        strength = STRENGTH[trump][led]
        top = max(range(len(cards)), key=lambda k: strength[cards[k]])
        partner_winning = seats[top] == (s + 2) % 4
        winning = sorted(
            (c for c in legal if strength[c] > strength[cards[top]]), key=strength.__getitem__
        )
    on_table = 0
    for c in cards:
        on_table |= BIT[c]
    live = P.ALL & ~gone & ~on_table & ~hand
    rules = rules_card(seen, s, hand, seats, cards, gone, voids) if len(legal) > 1 else legal[0]
    last = len(cards) == seen.trick_size - 1
    makers = seen.maker is not None and s % 2 == seen.maker % 2
    higher = P.HIGHER[trump]
    masks = SUIT_MASK[trump]
    cheapest = winning[0] if winning else None
    base = kind * len(FEATURES)
    out = []
    for c in legal:
        suit = eff[c]
        in_suit = hand & masks[suit]
        active = []
        if c == rules:
            active.append(FEATURE_INDEX["rules"])
        if suit == trump:
            active.append(FEATURE_INDEX["trump"])
            if makers:
                active.append(FEATURE_INDEX["makers_trump"])
        else:
            if c != JOKER and c % 6 == ACE:
                active.append(FEATURE_INDEX["side_ace"])
            if c != JOKER and c % 6 < 2:
                active.append(FEATURE_INDEX["low"])
            if in_suit == BIT[c]:
                active.append(FEATURE_INDEX["singleton"])
        if not higher[c] & hand:
            active.append(FEATURE_INDEX["top"])
        is_bottom = not in_suit & ~BIT[c] & ~higher[c]
        if is_bottom:
            active.append(FEATURE_INDEX["bottom"])
        if not higher[c] & live:
            active.append(FEATURE_INDEX["boss"])
        if c in winning:
            active.append(FEATURE_INDEX["wins"])
            if partner_winning:
                active.append(FEATURE_INDEX["overtakes"])
            if last:
                active.append(FEATURE_INDEX["wins_last"])
            if c == cheapest:
                active.append(FEATURE_INDEX["cheapest_win"])
        elif partner_winning and is_bottom:
            active.append(FEATURE_INDEX["under_partner"])
        out.append([base + f for f in active])
    return legal, out


def scores(weights: list[float], features: list[list[int]]) -> list[float]:
    return [sum(weights[i] for i in active) for active in features]


@cache
def fitted_weights() -> tuple[float, ...]:
    """The shipped weights (bots/data/play_model.json)."""
    return tuple(json.loads(DATA.read_text())["weights"])


def play_model_odds(
    seen: Seen, hands: list[int], strength: float, weights: tuple[float, ...] | None = None
) -> float:
    """The odds of keeping the deal `hands` by the model's reading of the others' plays
    this hand: the product, over their plays, of the card's chance over the likeliest
    card's, to the power `strength`."""
    w = weights or fitted_weights()
    total = 0.0  # the log of the product, in the model's units
    for s, hand, seats, cards, gone, voids, c in others_plays(seen, hands):
        legal, features = card_features(seen, s, hand, seats, cards, gone, voids)
        if len(legal) == 1:
            continue  # a forced card: nothing to read
        values = scores(w, features)
        total += values[legal.index(c)] - max(values) if c in legal else -30.0
    return math.exp(strength * total)
