"""Computer players: each a function of one seat's view and a random source.

A player gets exactly the view a person at that seat would get (games.engine
player_view): its own cards and what was played in the open, nothing else.
"""

import random
from collections.abc import Callable
from typing import Any

View = dict[str, Any]
Player = Callable[[View, random.Random], dict[str, Any]]


def random_player(view: View, rng: random.Random) -> dict[str, Any]:
    """Any legal action, uniformly."""
    return rng.choice(view["legal_actions"])


PLAYERS: dict[str, Player] = {"random": random_player}
DEFAULT_LEVEL = "random"


def choose_action(level: str, view: View, rng: random.Random) -> dict[str, Any]:
    return PLAYERS[level](view, rng)
