"""What a contract's double-dummy value misses at a table, learned offline.

The double-dummy solver (bots/solver.py) plays both sides with every card shown: the
opening lead is always the best one, and no side ever guesses where a card is. At a
table the seat that leads first does not know the hands, so a contract solved
double-dummy is worth more than it is in play when the makers lead, and less when the
defenders do (measured: `python -m bots.learn_play_bias`, docs/bots/hard.md). Hard values
each bid by solving the contracts it leads to (bots/players/hard.py); with
`Budget.play_bias` it adds this correction to each solved contract.

`bots/learn_play_bias.py` deals random hands and a random contract, solves it
double-dummy, then plays it out with the reference opponent's search at all four seats
(bots/players/reference.py: no seat sees another's cards), and fits, for each (round,
position of the maker from the dealer, alone), a least-squares line from the contract's
features (`features`) to the points the play gave the makers minus the solver's. The
coefficients are `bots/data/play_bias.json` (in the repository; nothing is fetched at
run time).

Features: which of the solver's results it was (euchred, 1, 2 or 4 points: what the
solver calls a euchre the table often makes, and the other way), and, apart for a
euchre and for a contract made, the maker's trumps and side aces.
"""

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.engine import MatchState, Options

from .bidding_model import features as hand_features
from .bidding_model import model_key

DATA = Path(__file__).with_name("data") / "play_bias.json"
FEATURES = (
    "euchred",
    "one",
    "two",
    "four",
    "trumps_if_euchred",
    "trumps_if_made",
    "side_aces_if_euchred",
    "side_aces_if_made",
)
_TRUMPS = slice(1, 8)  # right bower .. nine in bidding_model.features
_SIDE_ACES = 8


def contract_key(state: MatchState) -> str:
    """The model's key for a state at the start of the play."""
    position = (state.maker - state.dealer) % 4
    return model_key(state.maker_round, position, state.alone)


def features(state: MatchState, points: int) -> list[float]:
    """The features of a contract at the start of its play (`state`), solved double-dummy
    to `points` for the makers (negative: euchred)."""
    turned_down = state.turned_down if state.maker_round == 2 else None
    upcard = state.upcard if state.maker_round == 1 else None
    x = hand_features(state.hands[state.maker], state.trump, state.maker_round, upcard, turned_down)
    trumps, aces = sum(x[_TRUMPS]), x[_SIDE_ACES]
    euchred, made = float(points < 0), float(points > 0)
    return [
        euchred,
        float(points == 1),
        float(points == 2),
        float(points == 4),
        trumps * euchred,
        trumps * made,
        aces * euchred,
        aces * made,
    ]


@lru_cache(maxsize=1)
def load(path: str = str(DATA)) -> dict[str, Any]:
    with open(path) as f:
        return json.load(f)


def applies(options: Options) -> bool:
    """The model was fitted on the standard deck and rules of the play: under a table
    variant (the joker, a farmer's hand, another lone lead, defending alone) a contract is
    left as the solver values it. The target and stick the dealer do not change a play."""
    return replace(options, target_score=Options().target_score, stick_the_dealer=True) == (
        Options()
    )


def bias(state: MatchState, points: int) -> float:
    """The fitted points the makers gain at a table over the solver's `points`, for a
    state at the start of the play."""
    weights = load()["models"][contract_key(state)]
    return sum(w * v for w, v in zip(weights, features(state, points), strict=True))
