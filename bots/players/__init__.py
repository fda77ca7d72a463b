"""Computer players: each a function of one seat's view and a random source.

A player gets exactly the view a person at that seat would get (games.engine
player_view): its own cards and what was played in the open, nothing else. It
returns one of the view's legal actions, as its JSON dict.

Levels:
    random  any legal action, uniformly (for tests and load)
    easy    a beginner: bids loosely, throws high cards away, sometimes plays at random
    medium  sound rule-based play (bots/policy.py)
    hard    determinized Monte Carlo: deals the hidden cards many ways that agree with
            what the seat has seen and plays each out (bots/players/hard.py)

See docs/bots.md for how each plays and how strong it is.
"""

import random
from collections.abc import Callable
from typing import Any

from games.log.levels import DEFAULT_LEVEL, EASY, HARD, MEDIUM, RANDOM

from .easy import easy_player
from .hard import Budget, hard_player
from .medium import medium_player

View = dict[str, Any]
Player = Callable[[View, random.Random], dict[str, Any]]


def random_player(view: View, rng: random.Random) -> dict[str, Any]:
    """Any legal action, uniformly."""
    return rng.choice(view["legal_actions"])


# One player for each of the levels games offers (games.log.levels), in its order.
PLAYERS: dict[str, Player] = {
    RANDOM: random_player,
    EASY: easy_player,
    MEDIUM: medium_player,
    HARD: hard_player,
}
__all__ = ["DEFAULT_LEVEL", "PLAYERS", "Player", "View", "choose_action"]


def choose_action(
    level: str, view: View, rng: random.Random, hard_budget: Budget | None = None
) -> dict[str, Any]:
    """The action of the player of `level`; Hard with `hard_budget` if one is given."""
    player = PLAYERS[level]
    if player is hard_player and hard_budget is not None:
        return hard_player(view, rng, hard_budget)
    return player(view, rng)
