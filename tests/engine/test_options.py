"""Match options: defaults from 000, the differing rules of 002 and 003, validation."""

import dataclasses
import random

import pytest

from games import engine as E

from .helpers import random_hand

# 002's table ("kawu"): redeal instead of stick the dealer, Canadian loner, defending alone.
RULES_002 = {"stick_the_dealer": False, "lone_lead": "canadian", "defending_alone": True}
# 003's table ("Vanikar"): target 1..15 at setup, stick the dealer off by default,
# going alone switchable off.
RULES_003 = {"target_score": 7, "stick_the_dealer": False, "going_alone": False}


def test_defaults_follow_000():
    assert E.Options().to_dict() == {
        "target_score": 10,
        "stick_the_dealer": True,
        "going_alone": True,
        "lone_lead": "dealer_left",
        "defending_alone": False,
    }


@pytest.mark.parametrize("data", [{}, RULES_002, RULES_003, {"target_score": 1}])
def test_options_round_trip_through_their_json_form(data):
    options = E.Options.from_dict(data)
    assert E.Options.from_dict(options.to_dict()) == options
    assert {k: v for k, v in options.to_dict().items() if k in data} == data


def test_from_dict_of_nothing_is_the_defaults():
    assert E.Options.from_dict(None) == E.Options()


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        E.Options().target_score = 5  # type: ignore[misc]


@pytest.mark.parametrize("target", range(1, 16))
def test_target_score_may_be_any_whole_number_from_1_to_15(target):
    assert E.Options(target_score=target).target_score == target


@pytest.mark.parametrize(
    "data, words",
    [
        ({"target_score": 0}, "target_score must be a whole number from 1 to 15."),
        ({"target_score": 16}, "target_score must be a whole number from 1 to 15."),
        ({"target_score": 7.0}, "target_score must be a whole number from 1 to 15."),
        ({"target_score": "10"}, "target_score must be a whole number from 1 to 15."),
        ({"target_score": True}, "target_score must be a whole number from 1 to 15."),
        ({"stick_the_dealer": "yes"}, "stick_the_dealer must be true or false."),
        ({"going_alone": 1}, "going_alone must be true or false."),
        ({"defending_alone": None}, "defending_alone must be true or false."),
        ({"lone_lead": "left"}, "lone_lead must be one of dealer_left, loner_left, canadian."),
        ({"jokers": True}, "unknown option: jokers."),
        ([1, 2], "options must be an object."),
    ],
)
def test_invalid_option(data, words):
    with pytest.raises(E.RuleError) as err:
        E.Options.from_dict(data)
    assert err.value.code == "invalid_option"
    assert err.value.message == words


def test_a_match_needs_real_options():
    with pytest.raises(E.RuleError) as err:
        E.MatchState({"target_score": 5}, first_dealer=0)  # type: ignore[arg-type]
    assert err.value.code == "invalid_option"


@pytest.mark.parametrize("rules", [RULES_002, RULES_003], ids=["002", "003"])
def test_whole_matches_play_under_the_rules_of_each_document(rules):
    rng = random.Random(2)
    options = E.Options(**rules)
    for _ in range(5):
        state = E.MatchState(options, first_dealer=rng.randrange(4))
        while state.phase != E.FINISHED:
            state.deal(E.seeded_deck(rng))
            random_hand(state, rng)
            assert options.going_alone or not any(action.alone for _, action in state.bids)
        assert state.scores[state.winner] >= options.target_score
