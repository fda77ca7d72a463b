"""Every level, and hints, under every combination of the rules options, on the engine alone.

Issue 9: with `defending_alone` on, a defender declining to defend alone is logged
as a "pass" bid; Hard read it as a round-two pass and raised TypeError, and the
match froze. Each level plays whole matches (a low target score keeps them short)
under each of the 24 combinations of the boolean and choice options.
"""

import itertools
import random

import pytest

from bots.hints import recommend
from bots.knowledge import sample_hidden
from bots.players import PLAYERS
from bots.players.hard import Budget, bid_misses, hard_player, make_hard
from games import engine as E
from games.engine.options import LONE_LEAD_CHOICES
from games.engine.seen import bid_phases, read_view

from .positions import new_hand
from .test_players import SMALL_PLAYERS

SMALL = Budget(samples=4, playouts=16)
OPTION_SETS = [
    {
        "stick_the_dealer": stick,
        "going_alone": alone,
        "defending_alone": defend,
        "lone_lead": lead,
        "target_score": 2,
    }
    for stick, alone, defend, lead in itertools.product(
        (True, False), (True, False), (True, False), LONE_LEAD_CHOICES
    )
]
# The table variants (docs/rules.md), each on, and all together, beside the defaults and
# beside the rules of 002 (no stick the dealer, the Canadian loner, defending alone).
VARIANTS = [
    {"joker": True},
    {"joker": True, "joker_upcard": "hearts"},
    {"farmers_hand": True},
    {"farmers_hand": True, "farmers_hand_form": "redeal"},
    {"no_ace_no_face_no_trump": True},
    {"joker": True, "farmers_hand": True, "no_ace_no_face_no_trump": True},
]
BASE_SETS = [
    OPTION_SETS[0],
    {**OPTION_SETS[0], "stick_the_dealer": False, "defending_alone": True, "lone_lead": "canadian"},
]
OPTION_SETS += [{**base, **variant} for base in BASE_SETS for variant in VARIANTS]
# Fewer, for the slower searching players of simulations: both bases, no going alone, and
# each variant on the second base.
SEARCHER_SETS = [
    *BASE_SETS,
    {**BASE_SETS[0], "going_alone": False},
    *({**BASE_SETS[1], **variant} for variant in VARIANTS),
]


def option_id(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items() if k != "target_score")


def test_the_option_sets_cover_every_boolean_and_choice_option():
    names = {f for f in E.Options.__dataclass_fields__ if f != "target_score"}
    covered = set().union(*OPTION_SETS) - {"target_score"}
    assert covered == names
    every = 2 * 2 * 2 * len(LONE_LEAD_CHOICES) + len(BASE_SETS) * len(VARIANTS)
    assert len({option_id(o) for o in OPTION_SETS}) == every


def play_to_the_end(
    options: dict,
    players: list,
    seed: int,
    hint_seat: int | None = None,
    phases: set[str] | None = None,
):
    """A whole match; every action must be legal. With `hint_seat`, that seat plays the
    hint's action on each of its turns; with `phases`, the phase of every action is added
    to it. Returns the final state and the hints given."""
    rng = random.Random(seed)
    state = E.MatchState(E.Options.from_dict(options), first_dealer=seed % 4)
    hints = 0
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng, options.get("joker", False)))
        while state.turn is not None:
            seat = state.turn
            view = E.player_view(state, seat)
            if seat == hint_seat:
                advice = recommend(view, rng, SMALL)
                assert advice["explanation"]
                action = advice["action"]
                hints += 1
            else:
                action = players[seat](view, rng)
            assert action in view["legal_actions"], (view["phase"], action)
            if phases is not None:
                phases.add(view["phase"])
            state.apply_action(seat, E.action_from_dict(action))
    return state, hints


@pytest.mark.parametrize("options", OPTION_SETS, ids=option_id)
def test_every_level_plays_a_match_to_the_end_under_these_options(options):
    small_hard = make_hard(SMALL)
    levels = {**PLAYERS, "hard": small_hard}
    for i, (a, b) in enumerate(itertools.combinations(levels, 2)):
        players = [levels[a], levels[b], levels[a], levels[b]]
        state, _ = play_to_the_end(options, players, seed=i)
        assert state.winner in (0, 1) and max(state.scores) >= options["target_score"]


@pytest.mark.parametrize("options", SEARCHER_SETS, ids=option_id)
@pytest.mark.parametrize("level", [level for level in SMALL_PLAYERS if level not in PLAYERS])
def test_every_reference_opponent_plays_a_match_to_the_end_under_these_options(level, options):
    phases: set[str] = set()
    players = [SMALL_PLAYERS[level], PLAYERS["medium"]] * 2
    state, _ = play_to_the_end(options, players, seed=3, phases=phases)
    assert state.winner in (0, 1) and {"bid1", "play"} <= phases
    if options.get("defending_alone"):
        assert "defend" in phases


@pytest.mark.parametrize("options", OPTION_SETS, ids=option_id)
def test_hints_are_given_on_every_turn_of_a_match_under_these_options(options):
    # Hard beside the hinted seat, so that the hints meet Hard's bids (and its defends).
    players = [None, make_hard(SMALL), PLAYERS["easy"], make_hard(SMALL)]
    for seed in (5, 6, 7):
        state, hints = play_to_the_end(options, players, seed=seed, hint_seat=0)
        assert state.winner in (0, 1) and hints > 0


def test_a_declined_defend_alone_is_read_as_a_defend_decision_not_a_round_two_pass():
    state = new_hand(
        3,
        {0: "9S TS QS 9C TC", 1: "KS AS 9H KC TD", 2: "QD KH QC AD KD", 3: "JH AH QH AC 9D"},
        "TH",
        defending_alone=True,
    )
    for seat in (0, 1, 2):
        state.apply_action(seat, E.PASS)
    state.apply_action(3, E.order_up())  # the dealer picks the ten of hearts up
    state.apply_action(3, E.discard(E.parse_card("9D")))
    assert state.phase == "defend"
    state.apply_action(state.turn, E.PASS)  # south declines to defend alone
    assert state.phase == "defend"
    view = E.player_view(state, state.turn)  # north, the other defender
    bids = view["hand"]["bids"]
    assert [b["type"] for b in bids] == ["pass", "pass", "pass", "order_up", "pass"]
    assert bid_phases(bids) == ["bid1", "bid1", "bid1", "bid1", "defend"]
    seen = read_view(view)
    assert seen.turned_down is None  # no round two: nothing to read a round-two pass against
    rng = random.Random(1)
    hands, _ = sample_hidden(seen, rng)
    assert min(bid_misses(seen, hands)) >= 0  # raised TypeError before the fix
    action = hard_player(view, rng, SMALL)
    assert action in view["legal_actions"]
    assert recommend(view, rng, SMALL)["action"] in view["legal_actions"]


def test_bid_phases_follow_the_engine_through_round_two_and_the_defence():
    bids = [{"seat": s, "type": "pass"} for s in (0, 1, 2, 3, 0)]
    bids += [{"seat": 1, "type": "call", "suit": "S", "alone": False}]
    bids += [{"seat": 2, "type": "pass"}, {"seat": 0, "type": "defend_alone"}]
    assert bid_phases(bids) == ["bid1"] * 4 + ["bid2"] * 2 + ["defend"] * 2


def test_a_hint_to_defend_alone_says_defend_alone_not_pass():
    from bots.hints import explain

    state = new_hand(
        3,
        {0: "JD AD KD AS AC", 1: "KS JS 9H KC TD", 2: "QD KH QC 9S 9D", 3: "JH QH 9C TS TH"},
        "AH",
        defending_alone=True,
    )
    state.apply_action(0, E.PASS)
    state.apply_action(1, E.order_up())  # west orders the dealer (east) up: hearts
    state.apply_action(3, E.discard(E.parse_card("9C")))
    assert state.phase == "defend" and state.turn == 0
    seen = read_view(E.player_view(state, 0))
    assert explain(seen, {"type": "defend_alone"}).startswith("defend alone: you hold")
    assert explain(seen, {"type": "pass"}).startswith("pass: ")
