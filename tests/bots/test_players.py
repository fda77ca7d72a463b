"""The computer players: legal, deterministic for a seed, blind to what their seat cannot see,
and Medium's rules in clear positions."""

import random
from dataclasses import replace
from functools import partial

import pytest

from bots.knowledge import sample_hidden
from bots.players import DEFAULT_LEVEL, PLAYERS, choose_action
from bots.players.hard import Budget, _bid_odds, bid_misses, make_hard, match_equity
from bots.players.pimc import pimc_player
from bots.players.reference import reference_player
from bots.players.reference_plus import reference_plus_player
from bots.simulation import SIMULATION_PLAYERS
from games import engine as E
from games.engine.cards import cards_of, mask_of
from games.engine.sampling import state_from_view
from games.engine.seen import read_view
from tests.engine.helpers import cards

from .positions import new_hand, play, states_met

LEVELS = ["random", "easy", "medium", "hard"]
SMALL_HARD = make_hard(Budget(samples=6, playouts=30))
# Every player a simulation can seat, the searching ones on small budgets: the levels people
# choose and the reference opponents.
SMALL_PLAYERS = {
    **PLAYERS,
    "hard": SMALL_HARD,
    "reference": partial(reference_player, samples=8),
    "reference_plus": partial(reference_plus_player, samples=6),
    "pimc": partial(pimc_player, samples=4),
}


def test_the_levels_and_the_default():
    assert list(PLAYERS) == LEVELS
    assert DEFAULT_LEVEL in PLAYERS


@pytest.mark.parametrize("levels", [("easy", "medium"), ("medium", "hard")])
def test_a_whole_match_is_played_with_legal_actions_only(levels):
    rng = random.Random(7)
    players = [PLAYERS[levels[s % 2]] for s in range(4)]
    if "hard" in levels:
        players = [SMALL_HARD if levels[s % 2] == "hard" else players[s] for s in range(4)]
    state = E.MatchState(E.Options(target_score=5), first_dealer=0)
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng))
        while state.turn is not None:
            view = E.player_view(state, state.turn)
            action = players[state.turn](view, rng)
            assert action in view["legal_actions"]
            state.apply_action(state.turn, E.action_from_dict(action))
    assert state.winner in (0, 1)


def twin(state: E.MatchState, seed: int) -> E.MatchState:
    """Another state that gives the seat to move the same view, with the hidden cards dealt
    differently (a different hand for some other seat)."""
    seat = state.turn
    view = E.player_view(state, seat)
    seen = read_view(view)
    rng = random.Random(seed)
    for _ in range(100):
        hands, kitty = sample_hidden(seen, rng)
        if hands != state.hands:
            hidden = {s: cards_of(hands[s]) for s in range(4) if s != seat}
            return state_from_view(seen, hidden, kitty)
    raise AssertionError("every deal is the real one")


def positions(per_phase: int) -> list[E.MatchState]:
    """A few decisions of each kind (more than one legal action), from seeded matches."""
    chosen: dict[str, list[E.MatchState]] = {}
    for seed in range(11, 40):
        for state in states_met(seed, 60):
            found = chosen.setdefault(state.phase, [])
            if len(state.legal_actions()) > 1 and len(found) < per_phase:
                found.append(state)
        if all(len(chosen.get(p, ())) >= per_phase for p in ("bid1", "bid2", "discard", "play")):
            break
    return [s for found in chosen.values() for s in found]


POSITIONS = positions(3)


def test_the_positions_cover_every_kind_of_decision():
    assert {s.phase for s in POSITIONS} == {"bid1", "bid2", "discard", "play"}


def test_every_player_a_simulation_can_seat_is_checked_here():
    assert SMALL_PLAYERS.keys() == SIMULATION_PLAYERS.keys()


@pytest.mark.parametrize("level", SMALL_PLAYERS)
def test_a_player_cannot_see_other_hands(level):
    player = SMALL_PLAYERS[level]
    for i, state in enumerate(POSITIONS):
        other = twin(state, i)
        seat = state.turn
        assert other.hands != state.hands and other.hands[seat] == state.hands[seat]
        view = E.player_view(state, seat)
        assert E.player_view(other, seat) == view
        a = player(view, random.Random(i))
        b = player(E.player_view(other, seat), random.Random(i))
        assert a == b and a in view["legal_actions"], (level, state.phase)


@pytest.mark.parametrize(
    "budget",
    [
        Budget(samples=6, playouts=30, solver=False),  # playouts, as before the solver
        Budget(samples=6, playouts=30, learned_alone=True),
        Budget(samples=6, playouts=30, play_belief=0.1),  # reads the others' plays
        Budget(samples=6, playouts=30, belief=0.05, belief_partner=0.25),
        Budget(samples=6, playouts=30, maker_bonus=0.3, alone_bonus=0.5),
        Budget(samples=6, playouts=30, play_bias=True),  # contracts valued as in play
        Budget(samples=6, playouts=30, learned_bids=True),  # bids and reading learned
        Budget(samples=6, playouts=30, learned_bids=True, learned_mix=0.5),
        Budget(samples=6, playouts=30, next_choice=5),  # the next card, one for alike deals
        Budget(samples=6, playouts=30, play_belief=0.1, play_belief_partner=0.5),
        Budget(samples=6, playouts=30, fitted_opponents=True, fitted_partner=True),
        Budget(samples=6, playouts=30, play_model=1.0),  # plays read by the fitted model
    ],
    ids=[
        "playouts",
        "learned_alone",
        "reading_plays",
        "partner_read_apart",
        "bid_bonuses",
        "play_bias",
        "learned_bids",
        "learned_bids_mixed",
        "next_choice",
        "partner_plays_read_apart",
        "every_bid_by_the_fitted_model",
        "plays_read_by_the_fitted_model",
    ],
)
def test_every_kind_of_hard_search_cannot_see_other_hands(budget):
    # The default Hard (the solver on each deal) is in test_a_player_cannot_see_other_hands:
    # the solver sees every card of a *sampled* deal, never the real one.
    player = make_hard(budget)
    for i, state in enumerate(POSITIONS):
        other = twin(state, i)
        seat = state.turn
        view = E.player_view(state, seat)
        assert E.player_view(other, seat) == view
        assert player(view, random.Random(i)) == player(
            E.player_view(other, seat), random.Random(i)
        )


def test_hard_with_learned_bids_orders_the_top_trumps_up_alone():
    state = new_hand(3, {0: "JH JD AH KH QH"}, "9H")
    view = E.player_view(state, 0)
    action = make_hard(Budget(samples=8, playouts=40, learned_alone=True))(view, random.Random(1))
    assert action == {"type": "order_up", "alone": True}


def test_a_bonus_for_making_trump_or_going_alone_moves_hards_bid():
    # Two trumps and a side ace beside the dealer: Hard passes; paid a point for making
    # trump it orders up, and paid four more for going alone it goes alone.
    state = new_hand(3, {0: "JH 9H AC TD 9S"}, "QH")
    view = E.player_view(state, 0)
    budget = Budget(samples=8, playouts=40)
    assert make_hard(budget)(view, random.Random(1)) == {"type": "pass"}
    paid = make_hard(replace(budget, maker_bonus=1.0))(view, random.Random(1))
    assert paid == {"type": "order_up", "alone": False}
    alone = make_hard(replace(budget, maker_bonus=1.0, alone_bonus=4.0))(view, random.Random(1))
    assert alone == {"type": "order_up", "alone": True}


def test_the_partners_bids_are_read_at_their_own_odds():
    # West deals; North (South's partner) passes, East orders the ace of hearts up. A deal
    # giving North both bowers is one its pass does not explain, and a deal giving East
    # no heart one its order does not.
    state = new_hand(1, {0: "9C TC QS 9S TD"}, "AH")
    state.apply_action(2, E.action_from_dict({"type": "pass"}))
    state.apply_action(3, E.action_from_dict({"type": "order_up"}))
    seen = read_view(E.player_view(state, 0))
    hands = [0, *(mask_of(cards(text)) for text in ("AD KC AS KS JC", "JH JD KH QH AC"))]
    hands.append(mask_of(cards("9D TS JS QC KD")))
    assert bid_misses(seen, hands) == [0, 0, 1, 1]
    budget = Budget(belief=0.5, belief_partner=0.1)
    assert _bid_odds(seen, hands, budget) == pytest.approx(0.5 * 0.1)
    assert _bid_odds(seen, hands, Budget(belief=0.5)) == pytest.approx(0.25)


def test_hard_gives_the_same_action_for_the_same_seed():
    player = make_hard(Budget(samples=24, playouts=120))
    for i, state in enumerate(POSITIONS[::2]):
        view = E.player_view(state, state.turn)
        assert player(view, random.Random(i)) == player(view, random.Random(i))


# ---------------------------------------------------------------- Medium's rules


def medium(state: E.MatchState) -> dict:
    return choose_action("medium", E.player_view(state, state.turn), random.Random(0))


def test_medium_orders_up_with_both_bowers_and_an_ace_and_passes_with_rubbish():
    # South (left of the dealer East) with the right and left bower and the ace of clubs.
    state = new_hand(3, {0: "JH JD AC 9S TC"}, "9H")
    assert medium(state) == {"type": "order_up", "alone": False}
    state = new_hand(3, {0: "9C TD QS 9S TC"}, "9H")
    assert medium(state) == {"type": "pass"}


def test_medium_dealer_picks_up_what_it_needs_and_its_partner_gives_the_card():
    state = new_hand(3, {3: "JH AH 9C TS AD"}, "KH")
    for _ in range(3):
        state.apply_action(state.turn, E.PASS)
    assert medium(state) == {"type": "order_up", "alone": False}


def test_medium_goes_alone_with_a_hand_that_takes_all_five():
    state = new_hand(3, {0: "JH JD AH AC AS"}, "9H")
    assert medium(state) == {"type": "order_up", "alone": True}


def test_medium_calls_next_in_round_two():
    # Spades turned down; South (left of the dealer) holds the left-to-be and clubs.
    state = new_hand(3, {0: "JC JS AC 9D TH"}, "QS")
    for _ in range(4):
        state.apply_action(state.turn, E.PASS)
    assert medium(state) == {"type": "call", "suit": "C", "alone": False}


def test_medium_discards_to_be_void_in_a_suit():
    state = new_hand(3, {0: "9S TS QS KS AS", 3: "JH AH 9C KD QD"}, "KH")
    state.apply_action(0, E.order_up())
    assert medium(state) == {"type": "discard", "card": "9C"}


def test_medium_does_not_trump_its_partners_winning_trick():
    # Hearts trump. North leads the ace of clubs, East follows; South has no club and a trump.
    state = new_hand(
        1,
        {2: "AC 9D TD QD KD", 3: "9C AS KS QS JS", 0: "9H 9S TS AD KH", 1: "JH JD AH TC QC"},
        "TH",
    )
    state.apply_action(2, E.order_up())
    state.apply_action(1, E.discard(E.parse_card("TC")))
    play(state, "AC 9C")
    action = medium(state)
    assert action["type"] == "play" and action["card"] not in ("9H", "KH")


def test_medium_wins_with_its_lowest_winning_card_as_the_last_to_play():
    # Spades trump; East leads the king of diamonds, South and West follow; North, last,
    # holds the ace and the queen of diamonds... only the ace wins: and with ace and
    # a trump, it follows with the ace.
    state = new_hand(
        3,
        {0: "9D TS QS KS AS", 1: "TD 9C TC QC KC", 2: "AD QD 9H TH JH", 3: "KD JS JC AH KH"},
        "9S",
    )
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(E.parse_card("AH")))
    # South leads the ace of spades; everyone follows or throws.
    play(state, "AS")
    assert state.turn == 1
    play(state, "9C 9H JS")
    assert state.tricks[-1][2] == 3  # East's right bower won; East leads.
    play(state, "KD 9D TD")
    assert medium(state) == {"type": "play", "card": "AD"}


# ---------------------------------------------------------------- Hard


def hard(state: E.MatchState) -> dict:
    return choose_action("hard", E.player_view(state, state.turn), random.Random(0))


def test_hard_orders_up_a_monster_and_passes_rubbish():
    assert hard(new_hand(3, {0: "JH JD AH KH AC"}, "9H"))["type"] == "order_up"
    assert hard(new_hand(3, {0: "9C TD QS 9S TC"}, "AH")) == {"type": "pass"}


def test_hard_does_not_throw_away_a_trick_it_must_win():
    # Spades trump; North, last to play, can win East's king of diamonds with the ace.
    state = new_hand(
        3,
        {0: "9D TS QS KS AS", 1: "TD 9C TC QC KC", 2: "AD QD 9H TH JH", 3: "KD JS JC AH KH"},
        "9S",
    )
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(E.parse_card("AH")))
    play(state, "AS 9C 9H JS KD 9D TD")
    assert hard(state) == {"type": "play", "card": "AD"}


def test_match_equity_is_even_at_even_scores_and_grows_with_the_lead():
    equity = match_equity(10)
    assert equity(0, 0) == pytest.approx(0.5) and equity(9, 9) == pytest.approx(0.5)
    assert equity(9, 0) > equity(8, 6) > equity(5, 5) > equity(6, 8) > equity(0, 9)
    assert equity(10, 3) == 1.0 and equity(3, 12) == 0.0
    assert equity(6, 6) + equity(6, 6) == pytest.approx(1.0)
