"""The fitted reading of the others' plays (bots/play_model.py, bots/learn_play_model.py):
each legal card's chance under a searching player's policy, and Hard's deals weighed by it."""

import json
import math

import pytest

from bots import learn_play_model as L
from bots.play_model import DATA, FEATURES, KINDS, SIZE, card_features, play_model_odds
from bots.players.hard import Budget
from games import engine as E
from games.engine.cards import CARD_BY_TEXT, mask_of
from games.engine.seen import read_view
from tests.engine.helpers import cards

from .test_inference import after_a_low_club_lead, south_side_ace_share, with_south

F = {name: i for i, name in enumerate(FEATURES)}
FOLLOW = KINDS.index("follow") * len(FEATURES)
LEAD = KINDS.index("lead") * len(FEATURES)


def names(active: list[int], base: int) -> set[str]:
    return {FEATURES[i - base] for i in active}


def test_a_card_following_suit_is_described_against_the_partners_winner():
    # Spades are trump (East called). South led the nine of clubs and East took the lead
    # with the king; West, East's partner, holds the ace and ten of clubs.
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))
    west = mask_of(cards("AC TC 9H 9D QH"))
    nine, king = CARD_BY_TEXT["9C"], CARD_BY_TEXT["KC"]
    legal, features = card_features(seen, 3, west, [0, 1], [nine, king], 0, [0, 0, 0, 0])
    described = dict(zip(legal, features, strict=True))
    assert set(legal) == {CARD_BY_TEXT["AC"], CARD_BY_TEXT["TC"]}  # clubs must follow
    ace = names(described[CARD_BY_TEXT["AC"]], FOLLOW)
    ten = names(described[CARD_BY_TEXT["TC"]], FOLLOW)
    assert {"wins", "overtakes", "top", "boss", "side_ace", "cheapest_win"} <= ace
    assert "under_partner" not in ace and "wins_last" not in ace  # North still to play
    assert {"bottom", "under_partner", "low"} <= ten
    assert "wins" not in ten


def test_a_lead_is_described_as_a_lead():
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))
    south = mask_of(cards("9C QD KD 9D TD"))
    legal, features = card_features(seen, 0, south, [], [], 0, [0, 0, 0, 0])
    assert len(legal) == 5
    nine_of_clubs = features[legal.index(CARD_BY_TEXT["9C"])]
    assert all(LEAD <= i < LEAD + len(FEATURES) for i in nine_of_clubs)
    assert {"rules", "singleton", "low", "top", "bottom"} <= names(nine_of_clubs, LEAD)


def test_a_deal_is_weighed_by_the_chance_of_each_play_over_the_likeliest():
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))
    explained = with_south(seen, "QD KD 9D TD")  # the rules lead the nine of clubs
    unexplained = with_south(seen, "AD KD 9D TD")  # the rules lead the ace of diamonds
    rules_weighed = [0.0] * SIZE
    rules_weighed[LEAD + F["rules"]] = 2.0
    assert play_model_odds(seen, explained, 1.0, tuple(rules_weighed)) == 1.0
    assert play_model_odds(seen, unexplained, 1.0, tuple(rules_weighed)) == pytest.approx(
        math.exp(-2.0)
    )
    assert play_model_odds(seen, unexplained, 0.5, tuple(rules_weighed)) == pytest.approx(
        math.exp(-1.0)
    )
    assert play_model_odds(seen, unexplained, 1.0, tuple([0.0] * SIZE)) == 1.0  # no reading


def test_hard_reading_by_the_model_makes_deals_that_contradict_a_play_less_likely():
    unread = south_side_ace_share(1, Budget(play_belief=1.0))
    assert unread > 0.3  # dealt blind, South often holds a side ace
    assert south_side_ace_share(1, Budget(play_belief=1.0, play_model=1.0)) < unread - 0.1


def test_fitting_finds_the_known_odds_of_a_small_choice():
    # Two cards, the first with one feature: played 80 times in 100. The maximum
    # likelihood weight is log(80 / 20).
    feature = FOLLOW + F["wins"]
    rows = [([[feature], []], 0, "x")] * 80 + [([[feature], []], 1, "x")] * 20
    weights = L.fit(rows, steps=600, rate=0.05, l2=0.0)
    assert weights[feature] == pytest.approx(math.log(4), abs=0.02)
    assert L.log_likelihood(weights, rows)[0] > L.log_likelihood([0.0] * SIZE, rows)[0]


def test_the_shipped_model_matches_the_code_and_beats_the_rules_alone_on_held_out_plays():
    data = json.loads(DATA.read_text())
    assert data["features"] == list(FEATURES) and data["kinds"] == list(KINDS)
    assert len(data["weights"]) == SIZE
    for who in ("hard", "reference_plus"):
        held = data["held_out"][who]
        assert held["plays"] > 1000
        assert held["log_likelihood"] > held["rules_only_log_likelihood"]


def test_fresh_plays_are_likelier_under_the_shipped_model_than_at_random():
    rows = [row for i in range(4) for row in L.hand_rows(i, seed=77)]
    assert len(rows) > 10
    shipped = json.loads(DATA.read_text())["weights"]
    assert L.log_likelihood(shipped, rows)[0] > L.log_likelihood([0.0] * SIZE, rows)[0]
