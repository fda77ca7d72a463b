"""The literature's plain determinized search, bids included (bots/players/pimc.py): legal in
every phase and variant, blind to the hidden cards, every later bid chosen with every card
shown by its bidder for its own side, and offered to simulations only."""

import random
from functools import partial

import pytest

from bots.players import PLAYERS
from bots.players import pimc as M
from bots.players.medium import medium_player
from bots.simulation import SIMULATION_PLAYERS, simulate_duplicate
from games import engine as E
from games.log.levels import LEVELS

from .positions import new_hand
from .test_every_option import BASE_SETS, VARIANTS
from .test_players import POSITIONS, twin
from .test_variants import farm_redeal_state, farm_state, joker_up_state, redeal_state

SMALL = partial(M.pimc_player, samples=4)
OPTION_SETS = [
    BASE_SETS[0],
    BASE_SETS[1],  # no stick the dealer, the Canadian loner, defending alone
    {**BASE_SETS[0], "going_alone": False},
    *({**BASE_SETS[1], **variant} for variant in VARIANTS),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_pimc_plays_a_match_with_legal_actions_only_under_these_options(options):
    rng = random.Random(5)
    players = [SMALL, medium_player, SMALL, medium_player]
    state = E.MatchState(E.Options.from_dict(options), first_dealer=2)
    phases = set()
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng, options.get("joker", False)))
        while state.turn is not None:
            view = E.player_view(state, state.turn)
            action = players[state.turn](view, rng)
            assert action in view["legal_actions"], (view["phase"], action)
            phases.add(view["phase"])
            state.apply_action(state.turn, E.action_from_dict(action))
    assert state.winner in (0, 1) and {"bid1", "play"} <= phases


@pytest.mark.parametrize("make", [farm_state, farm_redeal_state, joker_up_state, redeal_state])
def test_pimc_takes_a_legal_action_in_each_variant_decision(make):
    state = make()
    rng = random.Random(1)
    while state.phase in (E.FARM, E.NAME_SUIT, E.REDEAL):
        view = E.player_view(state, state.turn)
        action = SMALL(view, rng)
        assert action in view["legal_actions"]
        state.apply_action(state.turn, E.action_from_dict(action))


def test_pimc_cannot_see_other_hands():
    for i, state in enumerate(POSITIONS):
        other = twin(state, i)
        seat = state.turn
        view = E.player_view(state, seat)
        assert E.player_view(other, seat) == view
        a = SMALL(view, random.Random(i))
        b = SMALL(E.player_view(other, seat), random.Random(i))
        assert a == b and a in view["legal_actions"], state.phase


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
