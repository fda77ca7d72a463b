"""Easy: a beginner. Legal, but with a beginner's mistakes.

- bids loosely: round one and round two bars well below Medium's, and it counts
  any jack as a strong card;
- forgets what was played: only the cards of the current trick count as gone,
  so it cannot tell a boss card from a beaten one;
- throws high cards away on tricks it cannot win, half the time;
- now and then (one card in five) plays any legal card at all.
"""

import random
from dataclasses import replace
from typing import Any

from games.engine import BIT, CARD_BY_TEXT, card_str, read_view

from .. import policy as P
from .medium import bid_action, play_card

EASY = replace(
    P.MEDIUM,
    trump_values=(1.4, 1.5, 1.6, 1.8, 2.0, 2.6, 3.0),
    side_king=0.5,
    bid1_bar=(3.4, 4.4, 3.4, 4.4),
    upcard_share=0.3,
    bid2_bar=(3.6, 3.8, 3.8, 3.8),
)
EASY_HIGH = replace(EASY, throw_high=1.0)
RANDOM_PLAY = 0.2
THROW_HIGH = 0.5


def easy_player(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    seen = read_view(view)
    if seen.phase == "discard":
        if rng.random() < RANDOM_PLAY:
            return rng.choice(legal)
        return {"type": "discard", "card": card_str(P.best_discard(seen.hand, seen.trump))}
    if seen.phase != "play":
        return bid_action(seen, EASY)
    if rng.random() < RANDOM_PLAY:
        return rng.choice(legal)
    style = EASY_HIGH if rng.random() < THROW_HIGH else EASY
    in_trick = 0
    for c in seen.trick_cards:
        in_trick |= BIT[c]
    card = play_card(seen, style, gone=in_trick)
    assert card in {CARD_BY_TEXT[a["card"]] for a in legal}
    return {"type": "play", "card": card_str(card)}
