"""Hints: Hard's choice with a sentence a person understands, in clear positions."""

import random

import pytest

from bots.hints import recommend
from games import engine as E

from .positions import new_hand, play


def hint(state: E.MatchState) -> dict:
    return recommend(E.player_view(state, state.turn), random.Random(1))


def test_order_it_up_names_the_bowers_trumps_and_side_aces():
    # East deals the 9 of hearts; South, first to speak, holds the right bower, the ace and
    # queen of hearts and the ace of clubs.
    state = new_hand(3, {0: "JH AH QH AC 9S"}, "9H")
    h = hint(state)
    assert h["action"] == {"type": "order_up", "alone": False}
    assert h["explanation"] == (
        "order it up: you hold the right bower, the ace of trump, the queen of trump "
        "and the ace of clubs"
    )


def test_pass_with_nothing_says_why():
    state = new_hand(3, {0: "9C TD QS 9S TC"}, "AH")
    h = hint(state)
    assert h["action"] == {"type": "pass"}
    assert h["explanation"].startswith("pass: you hold no hearts")


def test_discard_to_be_void_in_a_suit():
    state = new_hand(3, {0: "9S TS QS KS AS", 3: "JH AH 9C KD AD"}, "KH")
    state.apply_action(0, E.order_up())
    h = hint(state)
    assert h["action"] == {"type": "discard", "card": "9C"}
    assert h["explanation"].startswith("discard the 9 of clubs to be void in clubs")


def test_play_low_when_the_partner_is_already_winning():
    # Hearts trump. North leads the ace of spades and East follows; South holds the king
    # and the 9 of spades and should play the 9.
    state = new_hand(
        1,
        {2: "AS 9D TD QD KD", 3: "TS 9C TC QC KC", 0: "KS 9S JH AH AC", 1: "JD QH KH JS QS"},
        "TH",
    )
    state.apply_action(2, E.order_up())
    state.apply_action(1, E.discard(E.parse_card("JS")))
    play(state, "AS TS")
    assert state.turn == 0
    h = hint(state)
    assert h["action"] == {"type": "play", "card": "9S"}
    assert h["explanation"] == "play the 9 of spades: your partner is already winning the trick"


def test_lowest_winning_card_as_the_last_to_play():
    # Spades trump; East leads the king of diamonds, South and West follow low; North,
    # last, holds the ace of diamonds and wins with it.
    state = new_hand(
        3,
        {0: "9D TS QS KS AS", 1: "TD 9C TC QC KC", 2: "AD QD 9H TH JH", 3: "KD JS JC AH KH"},
        "9S",
    )
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(E.parse_card("AH")))
    play(state, "AS 9C 9H JS")
    play(state, "KD 9D TD")
    h = hint(state)
    assert h["action"] == {"type": "play", "card": "AD"}
    assert h["explanation"] == "play the ace of diamonds: the lowest card that wins the trick"


def test_a_hint_only_on_the_seats_turn():
    state = new_hand(3, {0: "JH AH QH AC 9S"}, "9H")
    with pytest.raises(ValueError):
        recommend(E.player_view(state, 1), random.Random(0))


def test_the_dealer_turns_down_a_card_it_cannot_use():
    state = new_hand(3, {3: "9C TD QS 9S TC"}, "9H")
    for _ in range(3):
        state.apply_action(state.turn, E.PASS)
    h = hint(state)
    assert h["action"] == {"type": "pass"}
    assert h["explanation"].startswith("turn it down: even after picking up the 9 of hearts")


def test_leading_a_side_ace_calls_it_the_highest_card_of_its_suit_in_the_singular():
    # Hearts trump, picked up by East, the dealer; South leads first with the ace and
    # king of clubs and no trump. The two touch, so the king is as good as the ace and is
    # "the highest club left" (the ace being in South's own hand).
    state = new_hand(
        3,
        {0: "AC KC 9D TD QD", 1: "9C TC QC 9S TS", 2: "KD AD QS KS AS", 3: "JH AH KH QH JS"},
        "9H",
    )
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(E.parse_card("JS")))
    h = hint(state)
    assert h["action"] == {"type": "play", "card": "KC"}
    assert h["explanation"] == "lead the king of clubs: it is the highest club left"
