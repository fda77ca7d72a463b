"""The second reference opponent (bots/players/reference_plus.py) and the policy iteration of
its bids (bots/learn_reference_plus.py): bidding by the fitted model, reading a pass as a
hand the model would not have bid with, and offered to simulations only. That it plays
legally under every option and variant and cannot see the hidden cards is checked with
every other player (test_every_option.py, test_variants.py, test_players.py)."""

import random
from functools import partial

import pytest

from bots import fitted_bids as F
from bots import learn_reference_plus as L
from bots.players import PLAYERS
from bots.players import reference_plus as R
from bots.simulation import SIMULATION_PLAYERS, simulate_duplicate
from games import engine as E
from games.engine.cards import mask_of
from games.engine.seen import read_view
from games.log.levels import LEVELS
from tests.engine.helpers import cards

from .positions import new_hand

SMALL = partial(R.reference_plus_player, samples=6)


def bid(state: E.MatchState) -> dict:
    return SMALL(E.player_view(state, state.turn), random.Random(0))


def test_reference_plus_orders_up_a_monster_and_passes_rubbish_as_the_model_says():
    monster = new_hand(3, {0: "JH JD AH KH AC"}, "9H")
    rubbish = new_hand(3, {0: "9C TD QS 9S TC"}, "AH")
    table = F.thresholds()
    for state, wanted in ((monster, True), (rubbish, False)):
        hand = state.hands[0]
        value = F.round_one_value(hand, state.upcard, 1, True)
        assert (value > table["r1:p1"]) is wanted
        assert (bid(state)["type"] == "order_up") is wanted


def test_reference_plus_names_its_best_suit_in_round_two_and_the_stuck_dealer_must():
    state = new_hand(3, {0: "JS JC AS KS AD", 3: "9D TD QH 9C TH"}, "9H")
    for _ in range(4):
        state.apply_action(state.turn, E.PASS)
    assert bid(state)["type"] == "call" and bid(state)["suit"] == "S"
    for _ in range(3):
        state.apply_action(state.turn, E.PASS)
    assert state.turn == 3 and bid(state)["type"] == "call"


def test_a_pass_weighs_down_the_deals_where_the_passer_held_a_hand_the_model_bids():
    # West (seat 1, the dealer's left) passed the nine of hearts; north is to bid.
    state = new_hand(0, {1: "9C TC 9D TD QS", 2: "9S TS KS QC KD"}, "9H")
    state.apply_action(1, E.PASS)
    assert state.turn == 2
    seen = read_view(E.player_view(state, 2))
    strong, weak = mask_of(cards("JH JD AH KH AC")), mask_of(cards("9C TC 9D TD QS"))
    east = seen.unknown & ~strong & ~weak & ~(1 << seen.upcard)
    east = mask_of(E.cards_of(east)[:5])
    mine = seen.hand
    west_strong = [weak, strong, mine, east]  # the same deal, west's and south's swapped
    west_weak = [strong, weak, mine, east]
    assert F.round_one_value(strong, seen.upcard, 1, True) > F.thresholds()["r1:p1"]
    assert R.deal_weight(seen, west_strong) < 0.1 * R.deal_weight(seen, west_weak)
    # Its own bids are never read, and before any bid every deal weighs 1.
    assert R.deal_weight(read_view(E.player_view(state, 1)), west_strong) == 1.0
    before = read_view(E.player_view(new_hand(0, {}, "9H"), 1))
    assert R.deal_weight(before, west_strong) == 1.0


def test_reference_plus_is_for_simulations_only():
    assert SIMULATION_PLAYERS["reference_plus"] is R.reference_plus_player
    assert "reference_plus" not in PLAYERS and "reference_plus" not in LEVELS
    results = simulate_duplicate(1, "reference_plus", "medium", seed=1)
    assert results.hands == 2


# ---------------------------------------------------------------- the policy iteration


def test_a_threshold_moves_toward_where_bidding_starts_to_beat_passing():
    # bidding minus passing = value - 0.4 on every row: the root is 0.4
    rows = [(v / 10, v / 10 - 0.4) for v in range(-10, 11)] * 10
    sums = [len(rows), 0.0, 0.0, 0.0, 0.0]
    for v, d in rows:
        sums[1] += v
        sums[2] += d
        sums[3] += v * v
        sums[4] += v * d
    assert L.new_threshold(0.0, sums, band=1.0) == pytest.approx(L.STEP * 0.4, abs=1e-3)
    assert L.new_threshold(0.0, sums, band=0.1) == pytest.approx(L.STEP * 0.1, abs=1e-3)
    assert L.new_threshold(0.3, [5, 0.0, 0.0, 0.0, 0.0], band=1.0) == 0.3  # too few rows


def test_the_policy_iteration_resumes_in_chunks_to_the_same_result():
    start = {"iteration": 0, "thresholds": {f"r{r}:p{p}": 0.0 for r in (1, 2) for p in range(4)}}
    whole = L.run_chunk(start, 12, 12, 5, 1.0)
    first = L.run_chunk(start, 5, 12, 5, 1.0)
    assert first["iteration"] == 0 and first["pending"]["deals_done"] == 5
    second = L.run_chunk(L.run_chunk(first, 5, 12, 5, 1.0), 5, 12, 5, 1.0)
    assert second == whole and whole["iteration"] == 1 and whole["pending"] is None
