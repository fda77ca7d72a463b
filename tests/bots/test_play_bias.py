"""What a contract's double-dummy value misses in play (bots/play_bias.py,
bots/data/play_bias.json, bots/learn_play_bias.py), and Hard's bids valued with it."""

import json
import random

import pytest

from bots import play_bias as B
from bots.learn_bidding import contract_state
from bots.learn_play_bias import contract_row, main
from bots.players.hard import Budget, search
from games import engine as E
from tests.engine.helpers import deck_for

from .positions import new_hand


def test_the_shipped_file_has_a_model_for_every_round_position_and_alone():
    data = json.loads(B.DATA.read_text())
    assert data["features"] == list(B.FEATURES)
    assert data["contracts"] >= 40_000 and data["made_by"] == "python -m bots.learn_play_bias"
    for round_ in (1, 2):
        for position in range(4):
            for alone in (False, True):
                key = B.model_key(round_, position, alone)
                assert len(data["models"][key]) == len(B.FEATURES)
                # Each fit is closer to what the table gave than the solver alone is.
                assert data["mean_squared_error"][key] < data["mean_squared_error_uncorrected"][key]


def _made_one(dealer: int, maker: int) -> E.MatchState:
    """Hearts ordered up by `maker`, who holds the right bower, the ace and the nine of
    trump with two side aces, at the start of the play."""
    deck = deck_for(dealer, {maker: "JH AH 9H AC AS"}, "TH")
    return contract_state(deck, dealer, maker, E.parse_suit("H"), 1, False)


def test_a_contract_made_double_dummy_is_worth_less_at_the_table_when_the_makers_lead():
    # The maker left of the dealer leads the first trick, and its lead is a guess where the
    # solver's is not; when the dealer makes trump, the defenders' first lead is the guess.
    makers_lead = _made_one(dealer=3, maker=0)
    defenders_lead = _made_one(dealer=0, maker=0)
    assert makers_lead.leader == 0 and defenders_lead.leader == 1
    assert B.bias(makers_lead, 1) < B.bias(defenders_lead, 1) <= 0.1
    assert B.bias(makers_lead, 1) < -0.2


def test_a_euchre_double_dummy_is_often_made_at_the_table_by_a_strong_hand():
    dealer_made = _made_one(dealer=0, maker=0)
    assert B.bias(dealer_made, -2) > 0.3  # of the -2 the solver gives, a fair part comes back


def test_the_rules_the_model_was_fitted_on_and_a_table_variant():
    assert B.applies(E.Options()) and B.applies(E.Options(target_score=5, stick_the_dealer=False))
    assert not B.applies(E.Options(joker=True))
    assert not B.applies(E.Options(lone_lead="loner_left"))


def test_a_contract_is_set_up_solved_and_played_the_same_for_the_same_seed():
    row = contract_row(7, seed=1)
    assert row == contract_row(7, seed=1)
    key, x, gained = row
    assert key in json.loads(B.DATA.read_text())["models"] and len(x) == len(B.FEATURES)
    assert sum(x[:4]) == 1  # one of the solver's results: euchred, 1, 2 or 4 points
    assert isinstance(gained, int) and -6 <= gained <= 6  # from {-2, 1, 2, 4}, twice


def test_the_script_writes_a_file_the_model_reads(tmp_path):
    out = tmp_path / "play_bias.json"
    main(["--contracts", "24", "--seed", "2", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["made_by"] == "python -m bots.learn_play_bias" and data["seed"] == 2
    assert 0 < data["contracts"] <= 24
    assert all(len(w) == len(B.FEATURES) for w in data["models"].values())


def _scores(state: E.MatchState, budget: Budget) -> list[float]:
    return search(E.player_view(state, state.turn), random.Random(3), budget).scores


def test_hard_values_its_bids_with_the_play_bias_and_its_cards_without():
    budget = Budget(samples=8, playouts=40)
    biased = Budget(samples=8, playouts=40, play_bias=True)
    bid = new_hand(3, {0: "JH 9H AC TD 9S"}, "QH")  # South bids first
    plain, moved = _scores(bid, budget), _scores(bid, biased)
    assert plain != moved
    # The same deals: each bid's value moves by a fraction of a point (in the chance of
    # winning the match), never by a whole hand's swing.
    assert all(abs(a - b) < 0.1 for a, b in zip(plain, moved, strict=True))
    play = new_hand(3, {0: "JH 9H AC TD 9S"}, "QH")
    for _ in range(4):
        play.apply_action(play.turn, E.PASS)
    play.apply_action(0, E.call(E.parse_suit("S"), False))  # South names spades, and leads
    assert play.phase == E.PLAY and play.turn == 0
    assert _scores(play, budget) == pytest.approx(_scores(play, biased))
