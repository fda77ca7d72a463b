"""Bids learned offline (bots/bidding_model.py, bots/data/bidding.json, bots/learn_bidding.py)."""

import json

from bots import bidding_model as M
from bots.learn_bidding import contract_value, fit, main
from games import engine as E
from tests.engine.helpers import cards, deck_for


def hand(text: str) -> int:
    mask = 0
    for c in cards(text):
        mask |= E.BIT[c]
    return mask


def test_the_shipped_file_has_a_model_for_every_round_position_and_alone():
    data = json.loads(M.DATA.read_text())
    assert data["features"] == list(M.FEATURES)
    assert data["deals"] >= 1000 and data["made_by"] == "python -m bots.learn_bidding"
    for round_ in (1, 2):
        for position in range(4):
            for alone in (False, True):
                weights = data["models"][M.model_key(round_, position, alone)]
                assert len(weights) == len(M.FEATURES)


def test_a_strong_hand_is_worth_more_than_a_weak_one_and_goes_alone_with_the_top_trumps():
    hearts = E.parse_suit("H")
    top = hand("JH JD AH KH QH")
    weak = hand("9H TC 9S TS QD")
    for position in range(4):
        strong = M.predicted_points(top, hearts, 2, position, False, turned_down=0)
        assert strong > M.predicted_points(weak, hearts, 2, position, False, turned_down=0)
    assert M.best_alone(top, hearts, 2, 1, None, 0)
    assert not M.best_alone(weak, hearts, 2, 1, None, 0)


def test_a_contract_is_solved_from_the_deal():
    # South, left of the dealer East, holds the five top hearts and orders them up alone.
    deck = deck_for(3, {0: "JH JD AH KH QH"}, "9H")
    maker_hand, points = contract_value(deck, 3, 0, E.parse_suit("H"), 1, True)
    assert maker_hand == hand("JH JD AH KH QH") and points == 4


def test_least_squares_recovers_a_line():
    rows = [([1.0, float(x)], 2.0 + 3.0 * x) for x in range(10)]
    weights, mse = fit(rows, ridge=0.0)
    assert abs(weights[0] - 2.0) < 1e-9 and abs(weights[1] - 3.0) < 1e-9 and mse < 1e-12


def test_the_script_writes_a_file_the_model_reads(tmp_path, monkeypatch):
    out = tmp_path / "bidding.json"
    monkeypatch.setattr("sys.argv", ["learn_bidding", "--deals", "3", "--out", str(out)])
    main()
    data = json.loads(out.read_text())
    assert data["deals"] == 3 and len(data["models"]) == 16
