"""Engine states rebuilt from a seat's view (games.engine.sampling) and deals of the
hidden cards (bots.knowledge)."""

import random

import pytest

from bots.knowledge import sample_hidden
from games import engine as E
from games.engine.cards import BIT, EFFECTIVE_SUIT, cards_of
from games.engine.sampling import state_from_view, with_hands
from games.engine.seen import read_view

from .positions import hidden_of, new_hand, states_met

STATES = [s for seed in (1, 2, 3) for s in states_met(seed, 25)]


def random_playout(state: E.MatchState, rng: random.Random) -> list:
    outcomes = []
    while state.turn is not None:
        legal = state.legal_actions()
        outcomes.append(state.apply_action(state.turn, legal[rng.randrange(len(legal))]))
    return outcomes


@pytest.mark.parametrize("index", range(len(STATES)))
def test_a_state_rebuilt_from_a_view_and_the_real_hidden_cards_plays_like_the_real_one(index):
    real = STATES[index]
    seat = real.turn
    view = E.player_view(real, seat)
    rebuilt = state_from_view(read_view(view), hidden_of(real, seat), real.kitty)
    assert E.player_view(rebuilt, seat) == view
    for s in range(4):
        assert E.player_view(rebuilt, s)["legal_actions"] == E.player_view(real, s)["legal_actions"]
    assert rebuilt.hands == real.hands
    assert sorted(rebuilt.kitty) == sorted(real.kitty)
    for k in range(3):
        a, b = real.clone(), rebuilt.clone()
        assert random_playout(a, random.Random(k)) == random_playout(b, random.Random(k))
        assert (a.scores, a.phase, a.dealer) == (b.scores, b.phase, b.dealer)
    # A copy with other hands is the same as a fresh rebuild with them.
    seen = read_view(view)
    hands, kitty = sample_hidden(seen, random.Random(index))
    fresh = state_from_view(seen, {s: cards_of(hands[s]) for s in range(4) if s != seat}, kitty)
    copied = with_hands(rebuilt, hands, kitty)
    assert copied.hands == fresh.hands
    assert copied.legal_actions() == fresh.legal_actions()
    assert random_playout(copied, random.Random(9)) == random_playout(fresh, random.Random(9))


@pytest.mark.parametrize("index", range(0, len(STATES), 3))
def test_every_deal_of_the_hidden_cards_agrees_with_what_the_seat_saw(index):
    real = STATES[index]
    seat = real.turn
    view = E.player_view(real, seat)
    seen = read_view(view)
    rng = random.Random(index)
    for _ in range(30):
        hands, kitty = sample_hidden(seen, rng)
        assert hands[seat] == real.hands[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in real.hands]
        assert len(kitty) == len(real.kitty)
        every = sum(hands) | sum(BIT[c] for c in kitty) | seen.played
        assert every == (1 << 24) - 1
        for s in range(4 if real.trump is not None else 0):
            for c in cards_of(hands[s] & ~seen.known[s]):
                assert not seen.voids[s] >> EFFECTIVE_SUIT[real.trump][c] & 1
        state_from_view(seen, {s: cards_of(hands[s]) for s in range(4) if s != seat}, kitty)


def test_the_dealer_keeps_the_upcard_and_a_seat_out_of_a_suit_gets_none_of_it():
    # East deals the A of hearts, South orders it up; East discards.
    state = new_hand(3, {0: "JH JD KH 9C TC", 1: "9S TS QS KS AS", 2: "QC KC AC 9D TD"}, "AH")
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(state.hand_of(3)[0]))
    # South leads the right bower; West shows out of hearts (trump).
    state.apply_action(0, E.play(E.parse_card("JH")))
    state.apply_action(1, E.play(E.parse_card("9S")))
    view = E.player_view(state, 2)
    seen = read_view(view)
    assert seen.known[3] == BIT[E.parse_card("AH")]
    assert seen.voids[1] == 1 << E.HEARTS
    trumps = sum(BIT[c] for c in E.trump_order(E.HEARTS))
    rng = random.Random(5)
    for _ in range(50):
        hands, kitty = sample_hidden(seen, rng)
        assert hands[3] & BIT[E.parse_card("AH")]
        assert not hands[1] & trumps


def test_cards_that_cannot_be_the_rest_of_the_hand_are_refused():
    real = STATES[10]
    seat = real.turn
    view = E.player_view(real, seat)
    hidden = hidden_of(real, seat)
    other = next(s for s in hidden if hidden[s])
    hidden[other] = hidden[other][1:]
    with pytest.raises(E.RuleError) as error:
        state_from_view(read_view(view), hidden)
    assert error.value.code == "inconsistent_sample"
