"""Scoring: the seven worked examples of 000, defending alone (002), winning the match."""

import random

import pytest

from games import engine as E

from .helpers import EAST, N, S, W, cards, find_line, makers_reach, random_hand

# One deal for every worked example. East deals (as on Poozee, 000), so you (South)
# bid first. South: TH TS JS QC KS; West: JD 9C AD KC TD; North: TC JC 9H QD KD;
# East: QH AC 9D 9S KH; the Q♠ is turned up.
DECK = cards("TH TS JS QC KS  JD 9C AD KC TD  TC JC 9H QD KD  QH AC 9D 9S KH  QS AS AH JH")

PASS = E.PASS
BIDS = {
    "North orders up": [(S, PASS), (W, PASS), (N, E.order_up())],
    "You go alone": [(S, E.order_up(alone=True))],
    "West calls clubs": [(S, PASS), (W, PASS), (N, PASS), (EAST, PASS), (S, PASS)]
    + [(W, E.call(E.CLUBS))],
    "East goes alone": [(S, PASS), (W, PASS), (N, PASS), (EAST, E.order_up(alone=True))],
}

# The table "Worked examples" of 000, as printed, then the makers' tricks the row
# describes and the expected hand_scored (team 0 is you and North).
SCORING_TABLE = [
    ("North orders up, your team takes 3 tricks", "You and North +1", 3, 0, 1, "made"),
    ("North orders up, your team takes 4 tricks", "You and North +1", 4, 0, 1, "made"),
    ("North orders up, your team takes all 5 (a march)", "You and North +2", 5, 0, 2, "march"),
    ("You go alone and take 4 tricks", "You and North +1", 4, 0, 1, "made"),
    ("You go alone and take all 5", "You and North +4", 5, 0, 4, "lone_march"),
    ("West calls clubs, their team takes 2 tricks", "You and North +2", 2, 1, 2, "euchred"),
    ("East goes alone and takes 1 trick", "You and North +2", 1, 1, 2, "euchred"),
]


def bid(state: E.MatchState, example: str) -> None:
    for opening, bids in BIDS.items():
        if example.startswith(opening):
            for seat, action in bids:
                state.apply_action(seat, action)
    if state.phase == E.DISCARD:
        state.apply_action(state.dealer, state.legal_actions()[0])
    assert state.phase == E.PLAY


@pytest.mark.parametrize("example, score, tricks, makers, points, result", SCORING_TABLE)
def test_scoring_worked_example(example, score, tricks, makers, points, result):
    state = E.MatchState(E.Options(), first_dealer=EAST)
    state.deal(DECK)
    bid(state, example)
    assert state.maker % 2 == makers
    # A legal line of play that gives the makers exactly that many tricks.
    found = find_line(state, makers_reach(tricks))
    assert found, "no legal line gives the makers that many tricks"
    _, outcomes, final = found
    scored = outcomes[-1]
    assert scored["type"] == "hand_scored"
    assert scored["makers"] == makers and scored["makers_tricks"] == tricks
    assert (scored["team"], scored["points"], scored["result"]) == (0, points, result)
    assert score == f"You and North +{points}"
    assert final.scores == [points, 0]


def test_going_alone_pays_extra_only_for_a_march_and_a_euchred_loner_gives_the_usual_2():
    points = {row[0]: row[4] for row in SCORING_TABLE}
    assert (
        points["You go alone and take 4 tricks"]
        == points["North orders up, your team takes 4 tricks"]
    )
    assert points["East goes alone and takes 1 trick"] == 2


# ---------------------------------------------------------------- defending alone (002)


def defended_hand(bids: str, declare: bool) -> E.MatchState:
    """The deal above with defending alone on: the first defender asked declares or passes."""
    state = E.MatchState(E.Options(defending_alone=True), first_dealer=EAST)
    state.deal(DECK)
    for seat, action in BIDS[bids]:
        state.apply_action(seat, action)
    if state.phase == E.DISCARD:
        state.apply_action(EAST, state.legal_actions()[0])
    state.apply_action(state.turn, E.DEFEND_ALONE if declare else PASS)
    if state.phase == E.DEFEND:
        state.apply_action(state.turn, PASS)
    return state


@pytest.mark.parametrize(
    "bids, tricks, team, points, result",
    [
        ("West calls clubs", 2, 0, 4, "euchred_by_lone_defender"),
        ("West calls clubs", 0, 0, 4, "euchred_by_lone_defender"),
        ("West calls clubs", 3, 1, 1, "made"),
        ("West calls clubs", 4, 1, 1, "made"),
        ("North orders up", 5, 0, 2, "march"),
        ("You go alone", 5, 0, 4, "lone_march"),
    ],
)
def test_a_euchre_by_a_lone_defender_scores_4_and_other_results_are_unchanged(
    bids, tricks, team, points, result
):
    state = defended_hand(bids, declare=True)
    assert state.defender_alone is not None
    assert state.out[(state.defender_alone + 2) % 4]
    _, outcomes, _ = find_line(state, makers_reach(tricks))
    scored = outcomes[-1]
    assert (scored["team"], scored["points"], scored["result"]) == (team, points, result)


def test_a_euchre_with_both_defenders_playing_scores_2_under_the_option():
    state = defended_hand("West calls clubs", declare=False)
    assert state.defender_alone is None
    _, outcomes, _ = find_line(state, makers_reach(1))
    assert outcomes[-1]["points"] == 2 and outcomes[-1]["result"] == "euchred"


# ---------------------------------------------------------------- the match


def test_only_one_team_scores_per_hand_and_the_deal_passes_left():
    rng = random.Random(3)
    state = E.MatchState(E.Options(), first_dealer=EAST)
    dealers = []
    for hand_number in range(1, 6):
        dealers.append(state.dealer)
        before = state.scores[:]
        state.deal(E.seeded_deck(rng))
        outcomes = random_hand(state, rng)
        scored = [o for o in outcomes if o["type"] == "hand_scored"]
        assert len(scored) == 1 and scored[0]["hand"] == hand_number
        gained = [state.scores[t] - before[t] for t in (0, 1)]
        assert sorted(gained) == [0, scored[0]["points"]]
        if state.phase == E.FINISHED:
            break
    assert dealers[:4] == [EAST, S, W, N]


def test_the_match_ends_when_a_team_reaches_the_target_checked_after_each_hand():
    rng = random.Random(4)
    state = E.MatchState(E.Options(target_score=5), first_dealer=S)
    while state.phase != E.FINISHED:
        assert max(state.scores) < 5
        state.deal(E.seeded_deck(rng))
        outcomes = random_hand(state, rng)
    assert outcomes[-1] == {
        "type": "match_finished",
        "winner": state.winner,
        "scores": state.scores,
    }
    assert state.scores[state.winner] >= 5 > state.scores[1 - state.winner]
    assert state.turn is None and state.legal_actions() == ()
    with pytest.raises(E.RuleError) as err:
        state.deal(E.seeded_deck(1))
    assert err.value.code == "wrong_phase"


def test_scores_can_pass_the_target_a_team_at_8_that_marches_alone_finishes_at_12():
    state = E.MatchState(E.Options(), first_dealer=EAST)
    state.scores = [8, 0]
    state.deal(DECK)
    bid(state, "You go alone")
    _, outcomes, final = find_line(state, makers_reach(5))
    assert final.scores == [12, 0]
    assert final.winner == 0 and final.phase == E.FINISHED
    assert outcomes[-1] == {"type": "match_finished", "winner": 0, "scores": [12, 0]}


@pytest.mark.parametrize("target", [1, 15])
def test_target_score_is_set_at_setup_from_1_to_15(target):
    # 003: "10 unless you change it at setup (1 to 15)"
    rng = random.Random(target)
    state = E.MatchState(E.Options(target_score=target), first_dealer=EAST)
    hands = 0
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng))
        random_hand(state, rng)
        hands += 1
    assert state.scores[state.winner] >= target
    if target == 1:
        assert hands == 1


def test_a_thrown_in_hand_scores_nothing():
    state = E.MatchState(E.Options(stick_the_dealer=False), first_dealer=EAST)
    state.deal(DECK)
    outcomes = []
    for _ in range(8):
        outcomes += state.apply_action(state.turn, PASS)
    assert outcomes == [{"type": "hand_thrown_in", "hand": 1}]
    assert state.scores == [0, 0] and state.last_hand == outcomes[0]
