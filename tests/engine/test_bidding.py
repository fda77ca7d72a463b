"""Bidding: round one (order up or pass), the dealer's discard, round two, stick the dealer."""

import pytest

from games import engine as E

from .helpers import EAST, N, S, W, cards, names, new_hand, pass_round


def dealt(dealer=EAST, **options) -> E.MatchState:
    state = E.MatchState(E.Options(**options), first_dealer=dealer)
    state.deal(E.seeded_deck(11))
    return state


def test_round_one_starts_at_the_dealer_left_and_moves_left():
    for dealer in range(4):
        state = dealt(dealer)
        assert state.phase == E.BID1
        seen = []
        for _ in range(4):
            seen.append(state.turn)
            state.apply_action(state.turn, E.PASS)
        assert seen == [(dealer + k) % 4 for k in (1, 2, 3, 4)]


def test_round_one_offers_pass_order_up_and_order_up_alone():
    state = dealt()
    assert state.legal_actions() == (E.PASS, E.order_up(), E.order_up(alone=True))


def test_ordering_up_makes_the_upcard_suit_trump_and_the_dealer_takes_the_card():
    state = new_hand(EAST, {S: "9C TC JC QC KC", EAST: "9D TD JD QD KD"}, upcard="AH")
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.order_up())
    assert state.trump == E.HEARTS
    assert state.maker == W and state.maker_round == 1 and not state.alone
    assert state.upcard_fate == "picked_up"
    assert state.phase == E.DISCARD and state.turn == EAST
    assert names(state.hand_of(EAST)) == ["9D", "TD", "JD", "QD", "KD", "AH"]
    assert E.parse_card("AH") not in state.kitty and len(state.kitty) == 3


def test_the_dealer_discards_one_card_face_down_and_may_discard_any_of_six():
    state = new_hand(EAST, {EAST: "9D TD JD QD KD"}, upcard="AH")
    state.apply_action(S, E.order_up())
    assert {a.card for a in state.legal_actions()} == set(cards("9D TD JD QD KD AH"))
    assert all(a.type == "discard" for a in state.legal_actions())
    state.apply_action(EAST, E.discard(E.parse_card("AH")))  # even the upcard itself
    assert names(state.hand_of(EAST)) == ["9D", "TD", "JD", "QD", "KD"]
    assert state.discarded == E.parse_card("AH")
    assert len(state.kitty) == 4 and E.parse_card("AH") in state.kitty
    assert state.phase == E.PLAY and state.turn == S


def test_the_dealer_picking_it_up_is_ordering_up_by_the_dealer():
    state = new_hand(EAST, {EAST: "9D TD JD QD KD"}, upcard="AH")
    pass_round(state, 3)
    assert state.turn == EAST
    state.apply_action(EAST, E.order_up())
    assert state.maker == EAST and state.phase == E.DISCARD and state.turn == EAST
    assert state.hands[EAST].bit_count() == 6


def test_four_passes_turn_the_card_down_and_start_round_two_at_the_dealer_left():
    state = new_hand(EAST, {}, upcard="AH")
    pass_round(state)
    assert state.phase == E.BID2
    assert state.turned_down == E.HEARTS
    assert state.upcard_fate == "turned_down"
    assert state.turn == S


def test_round_two_names_any_suit_but_the_turned_down_one():
    state = new_hand(EAST, {}, upcard="AH")
    pass_round(state)
    legal = state.legal_actions()
    assert E.PASS in legal
    calls = {(a.suit, a.alone) for a in legal if a.type == "call"}
    assert calls == {(s, alone) for s in (E.CLUBS, E.DIAMONDS, E.SPADES) for alone in (0, 1)}


def test_calling_in_round_two_fixes_trump_without_a_pickup_and_play_starts():
    state = new_hand(EAST, {EAST: "9D TD JD QD KD"}, upcard="AH")
    pass_round(state)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.SPADES))
    assert state.trump == E.SPADES and state.maker == W and state.maker_round == 2
    assert names(state.hand_of(EAST)) == ["9D", "TD", "JD", "QD", "KD"]
    assert state.discarded is None
    assert state.phase == E.PLAY and state.turn == S


def test_stick_the_dealer_is_on_by_default_the_dealer_cannot_pass_in_round_two():
    state = dealt()
    assert E.Options().stick_the_dealer is True
    pass_round(state, 4 + 3)
    assert state.turn == state.dealer
    legal = state.legal_actions()
    assert E.PASS not in legal
    assert {a.suit for a in legal} == {0, 1, 2, 3} - {state.turned_down}
    with pytest.raises(E.RuleError) as err:
        state.apply_action(state.dealer, E.PASS)
    assert err.value.code == "dealer_must_call"


def test_without_stick_the_dealer_eight_passes_throw_the_hand_in_and_the_deal_moves_left():
    # 002's redeal option, and 003's default: stick_the_dealer=False
    state = dealt(EAST, stick_the_dealer=False)
    outcomes = ()
    for _ in range(8):
        outcomes = state.apply_action(state.turn, E.PASS)
    assert outcomes == ({"type": "hand_thrown_in", "hand": 1},)
    assert state.phase == E.DEAL and state.turn is None
    assert state.dealer == S  # one seat to the left of east
    assert state.scores == [0, 0]
    state.deal(E.seeded_deck(12))
    assert state.hand_number == 2 and state.turn == W


def test_every_bid_is_recorded_in_order():
    state = new_hand(EAST, {}, upcard="AH")
    pass_round(state)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.CLUBS, alone=True))
    assert state.bids == [
        (S, E.PASS),
        (W, E.PASS),
        (N, E.PASS),
        (EAST, E.PASS),
        (S, E.PASS),
        (W, E.call(E.CLUBS, alone=True)),
    ]


def test_deal_only_between_hands():
    state = dealt()
    with pytest.raises(E.RuleError) as err:
        state.deal(E.seeded_deck(1))
    assert err.value.code == "wrong_phase"
