"""The table variants (docs/rules.md, "Table variants"): worked examples written from
the rules as documented, and random matches with each option on checked against the
independent oracle (tests/engine/oracle.py)."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import engine as E
from tests.engine import oracle as O
from tests.engine.helpers import EAST, N, S, W, cards, new_hand
from tests.engine.test_properties import property_test

JK = E.JOKER


def deck25(dealer: int, hands: dict[int, str], kitty: str) -> list[int]:
    """A 25-card deck dealing `hands` (all four, five cards each) and `kitty` (five
    cards, the upcard first)."""
    deck: list[int] = []
    for i in range(4):
        deck += cards(hands[(dealer + 1 + i) % 4])
    deck += cards(kitty)
    assert sorted(deck) == list(E.DECK_WITH_JOKER)
    return deck


# East deals; south, west, north, east in that order from the dealer's left.
HANDS = {
    S: "JK 9C TC AD KS",
    W: "JH 9H QC KC AC",
    N: "TH QH KH AH 9D",
    EAST: "JD TD QD KD AS",
}
KITTY = "QS JC JS 9S TS"  # the Q♠ turned up


def joker_hand(**options) -> E.MatchState:
    state = E.MatchState(E.Options(joker=True, **options), first_dealer=EAST)
    state.deal(deck25(EAST, HANDS, KITTY))
    return state


# ---------------------------------------------------------------- the joker


def test_the_joker_beats_the_right_bower():
    # Hearts trump: West leads the right bower, South plays the joker and wins.
    state = joker_hand()
    for seat in (S, W, N, EAST):
        state.apply_action(seat, E.PASS)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.HEARTS))
    assert state.phase == E.PLAY and state.turn == S
    state.apply_action(S, E.play(E.parse_card("9C")))
    state.apply_action(W, E.play(E.parse_card("KC")))
    state.apply_action(N, E.play(E.parse_card("9D")))  # no clubs
    state.apply_action(EAST, E.play(E.parse_card("KD")))
    assert state.tricks[-1][2] == W
    state.apply_action(W, E.play(E.parse_card("JH")))  # the right bower
    state.apply_action(N, E.play(E.parse_card("TH")))
    assert state.legal_actions() == (E.play(E.parse_card("JD")),)  # the left bower follows
    state.apply_action(EAST, E.play(E.parse_card("JD")))
    assert state.legal_actions() == (E.play(JK),)  # the joker is South's only trump
    err = state.explain_illegal(S, E.play(E.parse_card("AD")))
    assert err.code == "must_follow_suit" and "joker" in err.message
    state.apply_action(S, E.play(JK))
    assert state.tricks[-1][2] == S
    assert E.trick_winner_index([E.parse_card("JH"), JK, E.parse_card("JD")], E.HEARTS) == 1


def test_the_joker_is_a_trump_and_cannot_follow_a_side_suit():
    state = joker_hand()
    for seat in (S, W, N, EAST, S):
        state.apply_action(seat, E.PASS)
    state.apply_action(W, E.call(E.HEARTS))
    state.apply_action(S, E.play(E.parse_card("AD")))
    # West has no diamonds; North must follow with the 9♦.
    state.apply_action(W, E.play(E.parse_card("9H")))
    assert state.legal_actions() == (E.play(E.parse_card("9D")),)
    err = state.explain_illegal(N, E.play(E.parse_card("AH")))
    assert err.code == "must_follow_suit"
    assert E.effective_suit(JK, E.CLUBS) == E.CLUBS
    assert E.trump_order(E.SPADES, joker=True)[:3] == [JK, *cards("JS JC")]
    assert E.trump_order(E.SPADES) == cards("JS JC AS KS QS TS 9S")


def test_joker_text_and_names():
    assert E.parse_card("JK") == E.parse_card("joker") == JK
    assert E.card_str(JK) == "JK" and E.card_name(JK) == "the joker"
    with pytest.raises(E.RuleError) as err:
        E.suit_of(JK)
    assert err.value.code == "invalid_card"


def test_a_joker_match_deals_25_cards_with_a_kitty_of_five():
    state = joker_hand()
    assert len(state.kitty) == 5 and state.upcard == E.parse_card("QS")
    assert sum(h.bit_count() for h in state.hands) == 20
    with pytest.raises(E.RuleError) as err:
        E.MatchState(E.Options(joker=True)).deal(E.seeded_deck(1))
    assert err.value.code == "invalid_deck"
    with pytest.raises(E.RuleError) as err:
        E.MatchState(E.Options()).deal(E.seeded_deck(1, joker=True))
    assert err.value.code == "invalid_deck"
    assert sorted(E.seeded_deck(3, joker=True)) == list(E.DECK_WITH_JOKER)
    assert E.seeded_deck(3) == E.seeded_deck(3, joker=False)  # old seeds deal as before


JOKER_UP = {
    S: "JH 9C TC AD KS",
    W: "QS 9H QC KC AC",
    N: "TH QH KH AH 9D",
    EAST: "JD TD QD KD AS",
}
JOKER_UP_KITTY = "JK JC JS 9S TS"


def test_a_joker_upcard_the_dealer_names_its_suit_before_looking():
    state = E.MatchState(E.Options(joker=True), first_dealer=EAST)
    state.deal(deck25(EAST, JOKER_UP, JOKER_UP_KITTY))
    assert state.phase == E.NAME_SUIT and state.turn == EAST
    dealer_view = E.player_view(state, EAST)
    assert dealer_view["hand"]["upcard"] == "JK"
    assert dealer_view["hand"]["cards"] == [] and dealer_view["hand"]["cards_hidden"]
    assert dealer_view["hand"]["upcard_suit"] is None
    assert dealer_view["legal_actions"] == [{"type": "name_suit", "suit": s} for s in "CDHS"]
    assert E.player_view(state, S)["hand"]["cards"] == ["9C", "TC", "AD", "JH", "KS"]
    state.apply_action(EAST, E.name_suit(E.SPADES))
    assert state.phase == E.BID1 and state.turn == S
    assert E.player_view(state, EAST)["hand"]["cards"] != []
    assert E.player_view(state, W)["hand"]["upcard_suit"] == "S"
    state.apply_action(S, E.order_up())  # spades are trump; the dealer takes the joker
    assert state.trump == E.SPADES and state.hands[EAST] & E.BIT[JK]
    state.apply_action(EAST, E.discard(E.parse_card("TD")))
    assert state.phase == E.PLAY
    assert not any(a for a in state.declarations if a[1].type != "name_suit")
    assert E.player_view(state, N)["hand"]["bids"] == [
        {"seat": S, "type": "order_up", "alone": False}
    ]


def test_a_joker_upcard_turned_down_makes_its_named_suit_the_turned_down_one():
    state = E.MatchState(E.Options(joker=True), first_dealer=EAST)
    state.deal(deck25(EAST, JOKER_UP, JOKER_UP_KITTY))
    state.apply_action(EAST, E.name_suit(E.DIAMONDS))
    for seat in (S, W, N, EAST):
        state.apply_action(seat, E.PASS)
    assert state.turned_down == E.DIAMONDS and state.upcard_fate == "turned_down"
    assert state.explain_illegal(S, E.call(E.DIAMONDS)).code == "cannot_name_turned_down_suit"


def test_a_joker_upcard_with_a_fixed_suit_counts_as_that_suit():
    state = E.MatchState(E.Options(joker=True, joker_upcard="hearts"), first_dealer=EAST)
    state.deal(deck25(EAST, JOKER_UP, JOKER_UP_KITTY))
    assert state.phase == E.BID1 and state.upcard_suit == E.HEARTS
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.PASS)
    state.apply_action(N, E.order_up())
    assert state.trump == E.HEARTS and state.hands[EAST] & E.BIT[JK]


# ---------------------------------------------------------------- the farmer's hand

FARM_HANDS = {
    S: "9C TC 9D AS KS",  # three nines and tens: a farmer's hand
    W: "JH 9H QC KC AC",
    N: "TH QH KH AH TD",  # three nines and tens too, but asked after south
    EAST: "JD QD KD AD JS",
}


def farm_hand(**options) -> E.MatchState:
    # 24 cards: the kitty is QS (up) and JC 9S TS under it.
    hands = dict(FARM_HANDS)
    hands[N] = "TH QH KH TD AH"
    deck: list[int] = []
    for i in range(4):
        deck += cards(hands[(EAST + 1 + i) % 4])
    deck += cards("QS JC 9S TS")
    state = E.MatchState(E.Options(farmers_hand=True, **options), first_dealer=EAST)
    state.deal(deck)
    return state


def test_a_farmers_exchange_and_what_each_seat_sees():
    state = farm_hand()
    # South (three nines and tens) is asked first, then North (TH TD 9... two: not asked).
    assert state.phase == E.FARM and state.turn == S and state.asking == (S,)
    legal = [a.to_dict() for a in state.legal_actions()]
    assert legal == [
        {"type": "pass"},
        {"type": "farm", "card": "9C"},
        {"type": "farm", "card": "TC"},
        {"type": "farm", "card": "9D"},
    ]
    assert state.explain_illegal(S, E.farm(E.parse_card("AS"))).code == "not_a_farmers_card"
    state.apply_action(S, E.farm(E.parse_card("9C")))
    assert state.explain_illegal(S, E.PASS).code == "farm_under_way"
    state.apply_action(S, E.farm(E.parse_card("TC")))
    state.apply_action(S, E.farm(E.parse_card("9D")))
    assert state.phase == E.BID1 and state.turn == S and state.farmer == S
    # South took the three cards under the upcard; its three went into the kitty.
    assert E.player_view(state, S)["hand"]["cards"] == ["JC", "9S", "TS", "KS", "AS"]
    assert E.player_view(state, S)["hand"]["my_farm"] == {
        "gave": ["9C", "TC", "9D"],
        "got": ["JC", "9S", "TS"],
    }
    assert [E.card_str(c) for c in state.kitty] == ["QS", "9C", "TC", "9D"]
    for seat in (W, N, EAST):  # the others see that South exchanged, never which cards
        view = E.player_view(state, seat)
        assert view["hand"]["farmer"] == S and "my_farm" not in view["hand"]
        text = repr(view)
        for card in ("9C", "TC", "9D", "JC", "9S", "TS"):
            assert f"'{card}'" not in text
    spectator = E.spectator_view(state)
    assert spectator["hand"]["farmer"] == S and "'9C'" not in repr(spectator)
    assert E.full_view(state)["hand"]["farm"] == {
        "seat": S,
        "gave": ["9C", "TC", "9D"],
        "got": ["JC", "9S", "TS"],
    }
    assert E.player_view(state, W)["hand"]["bids"] == []  # the exchange is not a bid


def test_the_last_hands_summary_names_the_farmer_and_shows_the_farmer_alone_its_cards():
    """docs/rules.md: once the hand is over, its summary (the view's last_hand) says who
    exchanged; which cards, only to the farmer; into the next hand, until a hand ends
    with no exchange."""
    state = farm_hand()
    for card in ("9C", "TC", "9D"):
        state.apply_action(S, E.farm(E.parse_card(card)))
    while state.phase != E.DEAL:  # the first legal action each time, to the hand's end
        state.apply_action(state.turn, state.legal_actions()[0])
    state.deal(E.seeded_deck(3))  # the next hand: the summary is still the last hand's
    mine = E.player_view(state, S)["last_hand"]
    assert mine["farmer"] == S
    assert mine["my_farm"] == {"gave": ["9C", "TC", "9D"], "got": ["JC", "9S", "TS"]}
    for seat in (W, N, EAST):
        last = E.player_view(state, seat)["last_hand"]
        assert last["farmer"] == S and "my_farm" not in last
        assert not {"9C", "TC", "9D", "JC", "9S", "TS"} & set(map(str, last.values()))
    assert E.spectator_view(state)["last_hand"]["farmer"] == S
    assert "my_farm" not in E.spectator_view(state)["last_hand"]

    while state.phase != E.DEAL:  # a hand with no farmer's hand asked (seed 3)
        assert state.phase != E.FARM
        state.apply_action(state.turn, state.legal_actions()[0])
    assert E.player_view(state, S)["last_hand"]["farmer"] is None
    assert "my_farm" not in E.player_view(state, S)["last_hand"]


def test_the_seat_to_act_after_a_farmers_exchange_does_not_see_the_farmers_cards():
    """A leak the HTTP leak test found: once the exchange was done, whoever's turn it was
    saw the farmer's `my_farm` (the rule showed it to the seat to act while cards had been
    put out, in any phase)."""
    state = farm_hand()
    for card in ("9C", "TC", "9D"):
        state.apply_action(S, E.farm(E.parse_card(card)))
    state.apply_action(S, E.PASS)  # South, the farmer, passes the bid: West to act
    assert state.turn == W
    view = E.player_view(state, W)
    assert "my_farm" not in view["hand"]
    for card in ("9C", "TC", "9D", "JC", "9S", "TS"):
        assert f"'{card}'" not in repr(view)
    assert E.player_view(state, S)["hand"]["my_farm"]["gave"] == ["9C", "TC", "9D"]


def test_a_seat_that_passes_its_farmers_hand_is_not_asked_again():
    state = farm_hand()
    state.apply_action(S, E.PASS)
    assert state.phase == E.BID1 and state.farmer is None
    assert sorted(state.hand_of(S)) == sorted(cards("9C TC 9D AS KS"))


def test_without_the_option_no_one_is_asked():
    state = E.MatchState(E.Options(), first_dealer=EAST)
    deck = farm_hand().deck
    state.deal(deck)
    assert state.phase == E.BID1 and "farmer" not in E.player_view(state, 0)["hand"]


# ---------------------------------------------------------------- a farmer's hand: the redeal form


def test_a_farmers_hand_in_the_redeal_form_asks_for_a_new_deal_and_the_deal_moves_left():
    """docs/rules.md: with farmers_hand_form "redeal", a seat holding three or more nines
    and tens may ask for a new deal before the bidding: the hand is thrown in, nobody
    scores, the deal passes one seat left, and the outcome shows the hand that let it."""
    state = farm_hand(farmers_hand_form="redeal")
    assert state.phase == E.FARM and state.turn == S and state.asking == (S,)
    assert [a.to_dict() for a in state.legal_actions()] == [{"type": "pass"}, {"type": "redeal"}]
    view = E.player_view(state, S)
    assert view["legal_actions"] == [{"type": "pass"}, {"type": "redeal"}]
    assert "farmer" not in view["hand"]  # no one ever exchanges in this form
    outcomes = state.apply_action(S, E.CALL_REDEAL)
    assert outcomes == (
        {
            "type": "hand_thrown_in",
            "hand": 1,
            "reason": "farmers_hand",
            "seat": S,
            "cards": ["9C", "TC", "9D", "KS", "AS"],
        },
    )
    assert outcomes[0]["reason"] == E.FARM_REDEAL_REASON
    assert state.scores == [0, 0] and state.phase == E.DEAL and state.dealer == S
    assert [(seat, a.type) for seat, a in state.declarations] == [(S, "redeal")]
    for seat in (W, N, EAST):
        last = E.player_view(state, seat)["last_hand"]
        assert last == {
            "type": "hand_thrown_in",
            "hand": 1,
            "reason": "farmers_hand",
            "seat": S,
            "cards": ["9C", "TC", "9D", "KS", "AS"],
        }
    state.deal(E.seeded_deck(3))  # south deals the next hand
    assert state.hand_number == 2 and state.dealer == S and state.last_hand["seat"] == S


def test_a_farmers_hand_kept_in_the_redeal_form_goes_on_to_the_bidding_as_dealt():
    state = farm_hand(farmers_hand_form="redeal")
    assert state.apply_action(S, E.PASS) == ()
    assert state.phase == E.BID1 and state.turn == S
    assert sorted(state.hand_of(S)) == sorted(cards("9C TC 9D AS KS"))
    assert [E.card_str(c) for c in state.kitty] == ["QS", "JC", "9S", "TS"]
    assert state.explain_illegal(S, E.CALL_REDEAL).code == "wrong_phase"


def test_in_the_redeal_form_a_farmers_hand_cannot_be_exchanged():
    state = farm_hand(farmers_hand_form="redeal")
    err = state.explain_illegal(S, E.farm(E.parse_card("9C")))
    assert err.code == "wrong_phase"
    assert err.message == "You cannot farm now: a farmer's hand: ask for a new deal, or pass."
    with pytest.raises(E.RuleError):
        state.apply_action(S, E.farm(E.parse_card("9C")))
    assert state.phase == E.FARM and state.turn == S  # nothing changed
    # ...and in the exchange form, a farmer's hand cannot ask for a new deal.
    assert farm_hand().explain_illegal(S, E.CALL_REDEAL).code == "wrong_phase"


def test_a_seat_with_two_nines_and_tens_cannot_ask_for_a_new_deal():
    # South holds two nines and tens, the others one each: no one is asked, bidding starts.
    hands = {S: "9C TC AD KD QD", W: "JH QH KH AH 9D", N: "QC KC AC JS TD", EAST: "QS KS AS JD 9H"}
    state = new_hand(EAST, hands, "JC", farmers_hand=True, farmers_hand_form="redeal")
    assert state.phase == E.BID1 and state.turn == S and state.asking == ()
    assert state.explain_illegal(S, E.CALL_REDEAL).code == "wrong_phase"
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.CALL_REDEAL)
    assert err.value.code == "wrong_phase" and state.phase == E.BID1 and state.turn == S
    # While another seat is asked, one with fewer nines and tens cannot ask instead.
    asked = farm_hand(farmers_hand_form="redeal")  # south asked; west holds one nine
    assert asked.explain_illegal(W, E.CALL_REDEAL).code == "not_your_turn"


def test_with_both_redeal_options_a_farmers_hand_is_asked_before_the_bidding_and_nanfnt_after():
    """The order of the questions with farmers_hand in the redeal form and no ace, no
    face, no trump: West's five nines and tens make a farmer's hand, asked before the
    bidding; kept, the bidding runs; once trump is fixed West (no ace, no face, no trump)
    is asked again, about the other redeal."""
    state = nanfnt_hand(farmers_hand=True, farmers_hand_form="redeal")
    assert state.phase == E.FARM and state.turn == W and state.asking == (W,)
    state.apply_action(W, E.PASS)
    assert state.phase == E.BID1 and state.turn == S
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    assert state.phase == E.REDEAL and state.turn == W
    outcomes = state.apply_action(W, E.CALL_REDEAL)
    assert outcomes[0]["reason"] == "no_ace_no_face_no_trump"
    assert [(s, a.type) for s, a in state.declarations] == [(W, "pass"), (W, "redeal")]
    # Asked for before the bidding, the new deal comes with the farmer's hand's reason.
    state = nanfnt_hand(farmers_hand=True, farmers_hand_form="redeal")
    outcomes = state.apply_action(W, E.CALL_REDEAL)
    assert outcomes[0]["reason"] == "farmers_hand" and state.dealer == S and not state.bids


# ---------------------------------------------------------------- no ace, no face, no trump

NANFNT = {
    S: "AH KH QH JH TH",
    W: "9C TC 9D TD 9S",  # no ace, no face and, with hearts trump, no trump
    N: "AC KC QC JC AD",
    EAST: "KD QD JD AS KS",
}


def nanfnt_hand(**options) -> E.MatchState:
    deck: list[int] = []
    for i in range(4):
        deck += cards(NANFNT[(EAST + 1 + i) % 4])
    deck += cards("9H QS JS TS")
    state = E.MatchState(E.Options(no_ace_no_face_no_trump=True, **options), first_dealer=EAST)
    state.deal(deck)
    return state


def test_a_no_ace_no_face_no_trump_redeal():
    state = nanfnt_hand()
    state.apply_action(S, E.order_up())  # hearts: East picks up the 9♥
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    assert state.phase == E.REDEAL and state.turn == W and state.asking == (W,)
    assert [a.to_dict() for a in state.legal_actions()] == [{"type": "pass"}, {"type": "redeal"}]
    outcomes = state.apply_action(W, E.CALL_REDEAL)
    assert outcomes == (
        {
            "type": "hand_thrown_in",
            "hand": 1,
            "reason": "no_ace_no_face_no_trump",
            "seat": W,
            "cards": ["9C", "TC", "9D", "TD", "9S"],
        },
    )
    assert state.scores == [0, 0] and state.phase == E.DEAL and state.dealer == S
    assert E.player_view(state, N)["last_hand"]["reason"] == "no_ace_no_face_no_trump"


def test_a_redeal_passed_lets_the_hand_go_on():
    state = nanfnt_hand(defending_alone=True)
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    state.apply_action(W, E.PASS)
    assert state.phase == E.DEFEND  # then defending alone is asked, as usual


def test_a_hand_with_a_trump_may_not_call_a_redeal():
    state = nanfnt_hand()
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.PASS)
    state.apply_action(N, E.PASS)
    state.apply_action(EAST, E.PASS)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.SPADES))  # West holds the 9♠: a trump
    assert state.phase == E.PLAY
    assert state.explain_illegal(S, E.CALL_REDEAL).code == "wrong_phase"


# ---------------------------------------------------------------- options


def test_variant_options_are_left_out_of_the_json_form_at_their_defaults():
    assert E.Options().to_dict() == {
        "target_score": 10,
        "stick_the_dealer": True,
        "going_alone": True,
        "lone_lead": "dealer_left",
        "defending_alone": False,
    }
    on = E.Options(
        joker=True, joker_upcard="hearts", farmers_hand=True, no_ace_no_face_no_trump=True
    )
    assert E.Options.from_dict(on.to_dict()) == on
    for bad in ({"joker": 1}, {"joker_upcard": "red"}, {"farmers_hand": "yes"}):
        with pytest.raises(E.RuleError) as err:
            E.Options.from_dict(bad)
        assert err.value.code == "invalid_option"


def test_the_farmers_hand_form_is_left_out_at_its_default_and_needs_the_option_on():
    """farmers_hand_form: "exchange" (default, left out of the JSON form: every match made
    before it reads as it did) or "redeal"; "redeal" with farmers_hand off is an error
    rather than a match that silently plays without it."""
    exchange = E.Options(farmers_hand=True)
    assert exchange.to_dict()["farmers_hand"] is True
    assert "farmers_hand_form" not in exchange.to_dict()
    assert E.Options.from_dict({"farmers_hand": True, "farmers_hand_form": "exchange"}) == exchange
    assert E.Options.from_dict({"farmers_hand_form": "exchange"}) == E.Options()
    redeal = E.Options.from_dict({"farmers_hand": True, "farmers_hand_form": "redeal"})
    assert redeal.to_dict()["farmers_hand_form"] == "redeal"
    assert E.Options.from_dict(redeal.to_dict()) == redeal
    assert (redeal.farm_redeal, redeal.farm_exchange) == (True, False)
    assert (exchange.farm_redeal, exchange.farm_exchange) == (False, True)
    assert E.FARMERS_HAND_FORMS == ("exchange", "redeal")
    for bad, words in (
        ({"farmers_hand_form": "redeal"}, "farmers_hand_form redeal needs farmers_hand true."),
        (
            {"farmers_hand_form": "REDEAL", "farmers_hand": True},
            "farmers_hand_form must be one of exchange, redeal.",
        ),
        (
            {"farmers_hand_form": True, "farmers_hand": True},
            "farmers_hand_form must be one of exchange, redeal.",
        ),
    ):
        with pytest.raises(E.RuleError) as err:
            E.Options.from_dict(bad)
        assert (err.value.code, err.value.message) == ("invalid_option", words)


# ---------------------------------------------------------------- against the oracle


def _variant_options(**fields) -> E.Options:
    if not fields["farmers_hand"]:  # a form other than the default needs the option on
        fields["farmers_hand_form"] = "exchange"
    return E.Options(**fields)


variant_options = st.builds(
    _variant_options,
    target_score=st.integers(3, 10),
    stick_the_dealer=st.booleans(),
    going_alone=st.booleans(),
    lone_lead=st.sampled_from(E.LONE_LEAD_CHOICES),
    defending_alone=st.booleans(),
    joker=st.booleans(),
    joker_upcard=st.sampled_from(E.JOKER_UPCARD_CHOICES),
    farmers_hand=st.booleans(),
    farmers_hand_form=st.sampled_from(E.FARMERS_HAND_FORMS),
    no_ace_no_face_no_trump=st.booleans(),
)


def text(cs) -> list[str]:
    return [E.card_str(c) for c in cs]


def play_checked_match(options: E.Options, seed: int, counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    state = E.MatchState(options, first_dealer=rng.randrange(4))
    size = 25 if options.joker else 24
    for _ in range(40):
        if state.phase == E.FINISHED:
            return
        before = state.scores[:]
        deck = E.seeded_deck(rng, joker=options.joker)
        dealer = state.dealer
        dealt, _kitty = O.deal(text(deck), dealer)
        state.deal(deck)
        if options.farmers_hand and state.phase in (E.FARM, E.BID1):
            first = (dealer + 1) % 4
            expected = [
                s for s in ((first + i) % 4 for i in range(4)) if O.is_farmers_hand(dealt[s])
            ]
            if state.phase == E.FARM:
                assert list(state.asking) == expected
            else:
                assert expected == []
        outcomes: list[dict] = []
        trick: list[str] = []
        while state.turn is not None:
            seat = state.turn
            legal = state.legal_actions()
            assert legal, "a seat on turn always has something to do"
            # 24 or 25 cards, each in exactly one place
            places = [*state.hands, *(E.BIT[c] for c in state.kitty)]
            places += [E.BIT[c] for _, cs, _ in state.tricks for c in cs]
            places += [E.BIT[c] for c in state.trick_cards]
            if not state.farm_in:  # a farmer's exchange under way: the cards put out so far
                places += [E.BIT[c] for c in state.farm_out]
            union = 0
            for p in places:
                assert not union & p
                union |= p
            assert union == E.deck_mask(options.joker) and union.bit_count() == size
            phase = state.phase
            trump = E.SUIT_LETTERS[state.trump] if state.trump is not None else None
            if phase == E.PLAY:
                hand = text(E.cards_of(state.hands[seat]))
                assert {E.card_str(a.card) for a in legal} == O.legal_plays(hand, trick, trump)
            if phase == E.REDEAL:
                hand = text(E.cards_of(state.hands[seat]))
                assert O.is_no_ace_no_face_no_trump(hand, trump)
            if phase == E.FARM:
                kinds = {a.type for a in legal}
                assert kinds <= O.FARMERS_HAND_CHOICES[options.farmers_hand_form]
                if options.farmers_hand_form == "redeal":  # asked with the hand as dealt
                    assert kinds == O.FARMERS_HAND_CHOICES["redeal"]
                    assert sorted(text(E.cards_of(state.hands[seat]))) == sorted(dealt[seat])
            action = legal[rng.randrange(len(legal))]
            if phase == E.PLAY:
                trick.append(E.card_str(action.card))
            was_trump_fixed = state.trump is None
            new = state.apply_action(seat, action)
            outcomes += new
            if was_trump_fixed and state.trump is not None and options.no_ace_no_face_no_trump:
                counts["trump_fixed"] += 1
            for o in new:
                if o["type"] == "trick_won":
                    seats, played, winner = state.tricks[-1] if state.tricks else (None,) * 3
                    assert winner == seats[O.trick_winner(text(played), trump)]
                    trick = []
            if phase == E.PLAY and state.phase == E.PLAY and not state.trick_cards:
                trick = []
        # after trump was fixed, exactly the qualifying seats that play were asked
        end = [o for o in outcomes if o["type"] in ("hand_scored", "hand_thrown_in")]
        assert len(end) == 1
        end = end[0]
        if state.farmer is not None:
            counts["farm"] += 1
        if JK in deck[20:21]:
            counts["joker_up"] += 1
        if end["type"] == "hand_thrown_in":
            assert state.scores == before
            assert state.dealer == O.dealer_after_throw_in(dealer)
            if end.get("reason") == "farmers_hand":  # asked for before the bidding
                counts["farm_redeal"] += 1
                assert options.farmers_hand and options.farmers_hand_form == "redeal"
                assert state.trump is None and not state.bids
                assert O.is_farmers_hand(end["cards"])
                assert sorted(end["cards"]) == sorted(dealt[end["seat"]])
            elif "reason" in end:
                counts["redeal"] += 1
                assert end["reason"] == "no_ace_no_face_no_trump"
                assert O.is_no_ace_no_face_no_trump(end["cards"], E.SUIT_LETTERS[state.trump])
            else:
                assert not options.stick_the_dealer
            continue
        makers = state.maker % 2
        taken = state.tricks_won[makers] + state.tricks_won[makers + 2]
        makers_score, points = O.hand_score(taken, state.alone, state.defender_alone is not None)
        team = makers if makers_score else 1 - makers
        assert (end["team"], end["points"]) == (team, points)
        assert state.scores[team] - before[team] == points
        assert state.scores[1 - team] == before[1 - team]
        if any(E.card_str(c) == "JK" for _, cs, _ in state.tricks for c in cs):
            counts["joker_played"] += 1


@property_test(300)
@given(options=variant_options, seed=st.integers(0, 2**32 - 1))
def test_random_matches_with_the_variants_agree_with_the_oracle(options, seed):
    counts = {"farm": 0, "farm_redeal": 0, "redeal": 0, "joker_up": 0, "joker_played": 0}
    counts["trump_fixed"] = 0
    play_checked_match(options, seed, counts)


@pytest.mark.parametrize(
    "options",
    [
        {"joker": True},
        {"joker": True, "joker_upcard": "spades"},
        {"farmers_hand": True},
        {"farmers_hand": True, "farmers_hand_form": "redeal"},
        {"no_ace_no_face_no_trump": True},
        {"joker": True, "farmers_hand": True, "no_ace_no_face_no_trump": True},
        {
            "joker": True,
            "farmers_hand": True,
            "farmers_hand_form": "redeal",
            "no_ace_no_face_no_trump": True,
        },
    ],
)
def test_each_variant_fires_and_agrees_with_the_oracle(options):
    counts = {"farm": 0, "farm_redeal": 0, "redeal": 0, "joker_up": 0, "joker_played": 0}
    counts["trump_fixed"] = 0
    for seed in range(60):
        play_checked_match(E.Options(**options), seed, counts)
    if options.get("joker"):
        assert counts["joker_up"] > 0 and counts["joker_played"] > 0
    if options.get("farmers_hand_form") == "redeal":
        assert counts["farm_redeal"] > 0 and counts["farm"] == 0
    elif options.get("farmers_hand"):
        assert counts["farm"] > 0
    if options.get("no_ace_no_face_no_trump") and not options.get("farmers_hand"):
        assert counts["redeal"] > 0  # (with farmers' exchanges, the hands for it are rarer)
