"""The literature's plain determinized search, bids included (bots/players/pimc.py): its bids
as every card shown makes them, and offered to simulations only. That it plays legally
under every option and variant and cannot see the hidden cards is checked with every other
player (test_every_option.py, test_variants.py, test_players.py)."""

import random

from bots.players import PLAYERS
from bots.players import pimc as M
from bots.simulation import SIMULATION_PLAYERS, simulate_duplicate
from games import engine as E
from games.log.levels import LEVELS

from .positions import new_hand


def test_pimc_goes_alone_with_the_five_best_trumps():
    state = new_hand(3, {0: "JH JD AH KH QH"}, "9H")
    action = M.pimc_player(E.player_view(state, 0), random.Random(4))
    assert action == {"type": "order_up", "alone": True}


def test_the_dealer_picks_up_the_right_bower_whatever_else_it_holds():
    # The blog's finding ("pass on the bower"): on every deal the dealer sees, taking the
    # jack is worth it with every card shown, so plain determinized search always does.
    state = new_hand(3, {3: "9C TC 9D TD QS"}, "JH")
    for _ in range(3):
        state.apply_action(state.turn, E.PASS)
    assert state.turn == 3
    action = M.pimc_player(E.player_view(state, 3), random.Random(2))
    assert action["type"] == "order_up"


def test_pimc_is_for_simulations_only():
    assert SIMULATION_PLAYERS["pimc"] is M.pimc_player
    assert "pimc" not in PLAYERS and "pimc" not in LEVELS
    results = simulate_duplicate(1, "pimc", "medium", seed=1)
    assert results.hands == 2
