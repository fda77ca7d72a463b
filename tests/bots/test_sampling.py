"""Engine states rebuilt from a seat's view (games.engine.sampling) and deals of the
hidden cards (bots.knowledge)."""

import random

import pytest

from bots.knowledge import deal_states, sample_hidden
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


# ---------------------------------------------------------------- the variants' decisions
# (issue 33: the review, a hint and Hard's search rebuild the seat's view; each of these
# raised inconsistent_sample)


def rebuilt_for(state: E.MatchState, seat: int, rng: random.Random) -> E.MatchState:
    seen = read_view(E.player_view(state, seat))
    hands, kitty = sample_hidden(seen, rng)
    return state_from_view(seen, {s: cards_of(hands[s]) for s in range(4)}, kitty)


def test_the_dealer_naming_a_joker_upcards_suit_is_dealt_five_cards_it_has_not_seen():
    from .test_variants import joker_up_state

    state = joker_up_state()
    dealer = state.dealer
    seen = read_view(E.player_view(state, dealer))
    assert seen.hand_hidden and seen.hand == 0 and seen.need[dealer] == 5
    rng = random.Random(3)
    for _ in range(20):
        hands, _kitty = sample_hidden(seen, rng)
        assert [h.bit_count() for h in hands] == [5, 5, 5, 5]
        rebuilt = state_from_view(seen, {s: cards_of(hands[s]) for s in range(4)}, _kitty)
        assert E.player_view(rebuilt, dealer) == E.player_view(state, dealer)
        assert rebuilt.hands[dealer] == hands[dealer]


def test_a_farmers_exchange_under_way_keeps_the_cards_put_out_out_of_every_hand():
    from .test_variants import farm_state

    state = farm_state()
    nine = E.parse_card("9C")
    state.apply_action(0, E.farm(nine))  # south has put out one of its three
    mine = read_view(E.player_view(state, 0))
    assert mine.farming == 1 and mine.kitty_known & BIT[nine]
    theirs = read_view(E.player_view(state, 2))
    assert theirs.low_need == (2, 0, 0, 0, 1)  # two more for south, one aside in the kitty
    rng = random.Random(4)
    for _ in range(20):
        rebuilt = rebuilt_for(state, 0, rng)
        assert rebuilt.farm_out == [nine] and not any(h & BIT[nine] for h in rebuilt.hands)
        assert E.player_view(rebuilt, 0) == E.player_view(state, 0)
        other = rebuilt_for(state, 2, rng)
        assert E.player_view(other, 2) == E.player_view(state, 2)
        assert (other.hands[0] & E.LOW_MASK).bit_count() >= 2


def test_a_farmers_exchange_done_is_replayed_for_the_farmer_and_the_others():
    from .test_variants import farm_state

    state = farm_state()
    for card in ("9C", "TC", "9D"):
        state.apply_action(0, E.farm(E.parse_card(card)))
    rng = random.Random(5)
    for seat in range(4):
        rebuilt = rebuilt_for(state, seat, rng)
        assert rebuilt.farmer == 0 and E.player_view(rebuilt, seat) == E.player_view(state, seat)
    assert rebuilt_for(state, 0, rng).farm_in == state.farm_in  # the farmer's own, exactly


def test_a_seat_asked_about_a_redeal_is_dealt_only_nines_and_tens_that_are_not_trump():
    from .test_variants import redeal_state

    state = redeal_state()  # south made hearts; west holds no ace, no face, no trump
    asked = state.turn
    seen = read_view(E.player_view(state, 2))
    plain_lows = E.LOW_MASK & ~E.SUIT_MASK[state.trump][state.trump]
    assert seen.allowed[asked] == plain_lows
    rng = random.Random(6)
    for _ in range(20):
        hands, _kitty = sample_hidden(seen, rng)
        assert not hands[asked] & ~plain_lows
        assert E.player_view(rebuilt_for(state, 2, rng), 2) == E.player_view(state, 2)


def test_each_sampled_deal_becomes_the_state_rebuilt_from_the_view_with_its_cards():
    state = new_hand(3, {0: "JH JD AH KH QH"}, "9H")
    seen = read_view(E.player_view(state, 0))
    rng = random.Random(5)
    deals = [(*sample_hidden(seen, rng), weight) for weight in (1.0, 0.5, 0.25)]
    got = list(deal_states(seen, deals))
    assert [deal for _, deal in got] == deals
    for built, (hands, kitty, _) in got:
        rebuilt = state_from_view(seen, {s: cards_of(hands[s]) for s in range(4)}, kitty)
        assert built.hands == rebuilt.hands and built.kitty == rebuilt.kitty
        assert built.hands[0] == state.hands[0]
