"""The deal is data: a deck order in, the same hands out (deal.py's convention)."""

import pytest

from games import engine as E
from games.engine.deal import hands_from_deck

from .helpers import names

DECK = E.seeded_deck(42)


@pytest.mark.parametrize("dealer", range(4))
def test_five_cards_each_from_the_dealer_left_then_the_kitty_with_the_upcard_on_top(dealer):
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(DECK)
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        assert sorted(state.hand_of(seat)) == sorted(DECK[5 * i : 5 * i + 5])
    assert state.hand_of(dealer) == sorted(DECK[15:20])
    assert state.kitty == list(DECK[20:24])
    assert state.upcard == DECK[20] and state.upcard_fate == "face_up"
    assert state.phase == E.BID1 and state.turn == (dealer + 1) % 4
    assert state.deck == DECK and state.hand_number == 1


@pytest.mark.parametrize("dealer", range(4))
def test_hands_from_deck_is_the_same_convention(dealer):
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(DECK)
    hands, kitty = hands_from_deck(DECK, dealer)
    assert hands == state.hands and kitty == state.kitty


def test_the_same_deck_deals_the_same_hands_as_a_list_a_tuple_or_text():
    by_tuple = E.MatchState(E.Options(), 3)
    by_tuple.deal(tuple(DECK))
    by_list = E.MatchState(E.Options(), 3)
    by_list.deal(list(DECK))
    by_text = E.MatchState(E.Options(), 3)
    by_text.deal([E.parse_card(c) for c in names(DECK)])
    assert by_tuple.hands == by_list.hands == by_text.hands
    assert E.full_view(by_tuple) == E.full_view(by_list) == E.full_view(by_text)


def test_validate_deck_returns_the_deck_as_a_tuple():
    assert E.validate_deck(list(DECK)) == tuple(DECK)
    assert isinstance(E.validate_deck(list(DECK)), tuple)


def test_each_hand_gets_a_new_deck_and_the_deal_moves_left():
    state = E.MatchState(E.Options(stick_the_dealer=False), first_dealer=1)
    for hand in range(1, 6):
        assert state.dealer == (hand) % 4
        state.deal(E.seeded_deck(hand))
        for _ in range(8):
            state.apply_action(state.turn, E.PASS)
    assert state.hand_number == 5


def test_east_deals_south_west_north_east_in_packets_of_five():
    # deck[0:5] the dealer's left, [5:10] the dealer's partner, [10:15] the dealer's right
    state = E.MatchState(E.Options(), first_dealer=3)
    state.deal(DECK)
    south, west, north, east = (sorted(state.hand_of(s)) for s in range(4))
    assert south == sorted(DECK[0:5])
    assert west == sorted(DECK[5:10])  # east's partner
    assert north == sorted(DECK[10:15])
    assert east == sorted(DECK[15:20])
