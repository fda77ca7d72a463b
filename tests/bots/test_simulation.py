"""Engine-only matches between computer players, and the simulate command."""

import json

import pytest
from django.core.management import CommandError, call_command

from bots.hard_variants import compare_variants
from bots.players import PLAYERS
from bots.players.hard import Budget
from bots.simulation import SIMULATION_PLAYERS, simulate, simulate_duplicate, wilson
from games.log.levels import LEVELS


def test_wilson_interval():
    low, high = wilson(60, 100)
    assert low == pytest.approx(0.502, abs=0.001) and high == pytest.approx(0.691, abs=0.001)
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_few_matches_give_the_whole_table():
    results = simulate(6, "medium", "easy", seed=3)
    d = results.as_dict()
    assert d["matches"] == 6 and 0 <= d["wins_a"] <= 6
    t, s = d["trump"], d["scoring"]
    assert t["turned_card"] + t["round_two"] == pytest.approx(1.0)
    assert t["dealer_picked_up"] + t["partner_ordered"] + t["beside_ordered"] == pytest.approx(
        t["turned_card"]
    )
    assert sum(s.values()) == pytest.approx(1.0)
    assert d["hands_per_match"] >= 3
    # Points: every hand scores for exactly one side.
    assert results.points_a + results.points_b >= results.hands


def test_a_farmers_new_deal_is_counted_as_the_variant_not_as_four_passes():
    """The redeal form of the farmer's hand throws a hand in: a variant firing, not the
    bidding's "thrown in (all passed twice)" (stick the dealer is on here)."""
    options = {"target_score": 3, "farmers_hand": True, "farmers_hand_form": "redeal"}
    results = simulate(6, "medium", "easy", seed=3, options=options)
    assert results.counts["farm_redeal"] > 0 and results.counts["thrown_in"] == 0
    assert results.counts["farm_on"] == 0 and results.counts["farm_redeal_on"] > 0
    assert results.as_dict()["variants"]["farm_redeal"] > 0
    assert "a farmer's hand: a new deal asked for" in results.report()


def test_the_same_seed_gives_the_same_figures_and_mirrored_self_play_is_even():
    a = simulate(4, "easy", "medium", seed=5).as_dict()
    b = simulate(4, "easy", "medium", seed=5).as_dict()
    assert a == b
    # Medium is deterministic: each deal played from both sides gives the mirror result.
    assert simulate(4, "medium", "medium", seed=5).wins_a == 2


def test_the_command_prints_the_table(capsys):
    call_command("simulate", "--games", "2", "--levels", "medium,random", "--seed", "1")
    out = capsys.readouterr().out
    assert "match win rate of A" in out and "95% CI" in out
    assert "the dealer picked it up" in out and "lone march" in out and "hands per match" in out


def test_the_command_takes_options_and_prints_json(capsys):
    call_command(
        "simulate",
        "--games",
        "2",
        "--levels",
        "easy,easy",
        "--options",
        '{"target_score": 3}',
        "--json",
    )
    d = json.loads(capsys.readouterr().out)
    assert d["matches"] == 2 and d["level_a"] == "easy"


def test_the_command_refuses_bad_levels():
    with pytest.raises(CommandError):
        call_command("simulate", "--games", "2", "--levels", "medium,expert")
    with pytest.raises(CommandError):
        call_command("simulate", "--games", "2", "--levels", "medium")


def test_the_figures_do_not_depend_on_the_number_of_workers():
    one = simulate(4, "medium", "easy", seed=8, workers=1).as_dict()
    two = simulate(4, "medium", "easy", seed=8, workers=2).as_dict()
    assert one == two


# ---------------------------------------------------------------- duplicate play


def test_duplicate_play_scores_each_deal_from_both_sides():
    results = simulate_duplicate(6, "medium", "easy", seed=3)
    d = results.as_dict()
    assert d["deal_pairs"] == 6 and d["hands"] == 12
    low, high = d["a_minus_b_ci95"]
    assert low <= d["a_minus_b_per_hand"] <= high
    # The mean of the pairs is A's points per hand minus B's.
    assert d["a_minus_b_per_hand"] == pytest.approx(d["points_per_hand_a"] - d["points_per_hand_b"])


def test_duplicate_self_play_of_a_deterministic_level_is_exactly_even():
    # Medium is deterministic: each deal played from both sides gives the mirror result,
    # so every pair is 0 and the interval is a point.
    results = simulate_duplicate(8, "medium", "medium", seed=4)
    assert results.mean == 0 and results.interval() == (0, 0)
    assert results.points_a == results.points_b > 0


def test_a_level_against_itself_plays_the_same_contract_at_both_tables():
    results = simulate_duplicate(8, "medium", "medium", seed=4).as_dict()
    assert results["same_contract"]["pairs"] == 8 and results["other_contract"]["pairs"] == 0


def test_the_edge_splits_into_the_pairs_decided_by_the_play_and_by_the_bids():
    results = simulate_duplicate(30, "medium", "easy", seed=3)
    d = results.as_dict()
    same, other = d["same_contract"], d["other_contract"]
    assert same["pairs"] + other["pairs"] == 30
    assert 0 < same["pairs"] < 30  # Easy bids loosely: some deals end in other contracts
    assert same["share_of_mean"] + other["share_of_mean"] == pytest.approx(results.mean)
    for part in (same, other):
        own_mean_weighed = part["a_minus_b_per_hand"] * part["pairs"] / 30
        assert part["share_of_mean"] == pytest.approx(own_mean_weighed)
        low, high = part["share_ci95"]
        assert low <= part["share_of_mean"] <= high
    out = results.report()
    assert "the same contract at both tables" in out and "other contracts" in out


def test_duplicate_figures_do_not_depend_on_the_number_of_workers():
    one = simulate_duplicate(10, "easy", "medium", seed=8, workers=1).as_dict()
    two = simulate_duplicate(10, "easy", "medium", seed=8, workers=2).as_dict()
    assert one == two


def test_the_reference_opponent_is_for_simulations_only():
    assert "reference" in SIMULATION_PLAYERS
    assert "reference" not in PLAYERS and "reference" not in LEVELS
    results = simulate_duplicate(2, "reference", "medium", seed=1)
    assert results.hands == 4


def test_the_command_plays_duplicate(capsys):
    call_command(
        "simulate", "--duplicate", "--games", "3", "--levels", "medium,easy", "--seed", "2"
    )
    out = capsys.readouterr().out
    assert "3 deal pairs (6 hands)" in out and "A - B:" in out and "95% CI" in out


# ---------------------------------------------------------------- Hard variants, paired


SMALL = Budget(samples=4, playouts=20)


def test_a_variant_the_same_as_the_baseline_differs_by_exactly_zero_on_every_deal():
    # The same seeds for the baseline and each variant: only a change of choice can move d.
    comparison = compare_variants(3, "medium", [SMALL, Budget(samples=4, playouts=20, margin=0)],
                                  baseline=SMALL, seed=2)  # fmt: skip
    same, other = comparison.paired
    assert comparison.pairs == 3 and same.n == other.n == 3
    assert same.mean == 0 and same.interval() == (0, 0) and same.changed == 0
    # Each variant's own figures are a duplicate run of its own, on the same deals.
    assert comparison.own[0].as_dict() == comparison.base.as_dict()
    assert comparison.own[1].mean - comparison.base.mean == pytest.approx(other.mean)


def test_the_command_compares_hard_variants(capsys):
    call_command(
        "simulate", "--duplicate", "--games", "2", "--levels", "hard,medium", "--seed", "2",
        "--hard-samples", "4", "--hard-playouts", "20",
        "--hard-variants", '[{"margin": 0.5}, {"play_belief": 0.5}]',
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "variant {'margin': 0.5}" in out and "variant {'play_belief': 0.5}" in out
    assert out.count("variant - baseline, paired:") == 2


def test_the_command_refuses_an_unknown_hard_option():
    with pytest.raises(CommandError, match="unknown Hard budget fields"):
        call_command(
            "simulate", "--duplicate", "--games", "2", "--levels", "hard,medium",
            "--hard-options", '{"cleverness": 11}',
        )  # fmt: skip
