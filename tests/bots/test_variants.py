"""Computer players and hints with the table variants on (docs/rules.md, "Table
variants"): every level takes a legal action in each new decision, the rules' choices
are the documented ones, Hard's view of the hidden cards knows the 25th card and a
farmer's exchange, and the hints explain the new decisions."""

import random

import pytest

from bots import policy as P
from bots.hints import explain, recommend
from bots.knowledge import sample_hidden
from bots.players import PLAYERS
from games import engine as E
from tests.engine.helpers import EAST, N, S, W, cards

from .test_players import SMALL_PLAYERS


def deck_of(hands: dict[int, str], kitty: str, dealer: int = EAST) -> list[int]:
    deck: list[int] = []
    for i in range(4):
        deck += cards(hands[(dealer + 1 + i) % 4])
    return deck + cards(kitty)


FARM = {S: "9C TC 9D AS KS", W: "JH 9H QC KC AC", N: "TH QH KH TD AH", EAST: "JD QD KD AD JS"}
JOKER_UP = {S: "JH 9C TC AD KS", W: "QS 9H QC KC AC", N: "TH QH KH AH 9D", EAST: "JD TD QD KD AS"}
REDEAL = {S: "AH KH QH JH TH", W: "9C TC 9D TD 9S", N: "AC KC QC JC AD", EAST: "KD QD JD AS KS"}


def farm_state() -> E.MatchState:
    state = E.MatchState(E.Options(farmers_hand=True), first_dealer=EAST)
    state.deal(deck_of(FARM, "QS JC 9S TS"))
    return state


def farm_redeal_state(hands: dict[int, str] = REDEAL, kitty: str = "9H QS JS TS") -> E.MatchState:
    """A farmer's hand in the redeal form: west's five nines and tens are asked first."""
    options = E.Options(farmers_hand=True, farmers_hand_form="redeal")
    state = E.MatchState(options, first_dealer=EAST)
    state.deal(deck_of(hands, kitty))
    return state


def joker_up_state() -> E.MatchState:
    state = E.MatchState(E.Options(joker=True), first_dealer=EAST)
    state.deal(deck_of(JOKER_UP, "JK JC JS 9S TS"))
    return state


def redeal_state() -> E.MatchState:
    state = E.MatchState(E.Options(no_ace_no_face_no_trump=True), first_dealer=EAST)
    state.deal(deck_of(REDEAL, "9H QS JS TS"))
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    return state


@pytest.mark.parametrize("level", SMALL_PLAYERS)
@pytest.mark.parametrize("make", [farm_state, farm_redeal_state, joker_up_state, redeal_state])
def test_every_player_takes_a_legal_action_in_each_variant_decision(level, make):
    state = make()
    rng = random.Random(1)
    while state.phase in (E.FARM, E.NAME_SUIT, E.REDEAL):
        view = E.player_view(state, state.turn)
        action = SMALL_PLAYERS[level](view, rng)
        assert action in view["legal_actions"]
        state.apply_action(state.turn, E.action_from_dict(action))


def test_the_rules_exchange_a_farmers_hand_nines_first():
    state = farm_state()
    medium = PLAYERS["medium"]
    put_out = []
    while state.phase == E.FARM:
        action = medium(E.player_view(state, S), random.Random(0))
        put_out.append(action["card"])
        state.apply_action(S, E.action_from_dict(action))
    # nines before tens, the shortest suit first (diamonds: the 9♦ alone)
    assert put_out == ["9D", "9C", "TC"] and state.farmer == S


def test_the_rules_ask_for_a_new_deal_with_a_farmers_hand_not_worth_a_bid():
    """docs/bots.md: in the redeal form, the rules ask for a new deal unless they would
    bid with the hand in round one or two."""
    state = farm_redeal_state()  # west: five nines and tens
    assert state.phase == E.FARM and state.turn == W
    action = PLAYERS["medium"](E.player_view(state, W), random.Random(0))
    assert action == {"type": "redeal"}
    # South's 9C TC 9D with the ace and king of spades would call clubs (next) in round two.
    state = farm_redeal_state(FARM, "QS JC 9S TS")
    assert state.phase == E.FARM and state.turn == S
    action = PLAYERS["medium"](E.player_view(state, S), random.Random(0))
    assert action == {"type": "pass"}
    hand = E.BIT[E.parse_card("AS")] | E.BIT[E.parse_card("KS")]
    for c in cards("9C TC 9D"):
        hand |= E.BIT[c]
    assert P.bid_round_two(hand, E.SPADES, S, EAST, False)[0] == E.CLUBS
    assert not P.ask_for_new_deal(hand, E.parse_card("QS"), S, EAST)


def test_the_rules_call_a_redeal_against_the_other_sides_trump():
    state = redeal_state()  # South (west's opponent) made hearts: West calls the redeal
    action = PLAYERS["medium"](E.player_view(state, W), random.Random(0))
    assert action == {"type": "redeal"}


def test_hard_deals_the_joker_among_the_hidden_cards_and_the_farmer_knows_its_kitty():
    state = joker_up_state()
    state.apply_action(EAST, E.name_suit(E.HEARTS))
    seen = E.read_view(E.player_view(state, S))
    assert seen.upcard_suit == E.HEARTS
    hands, kitty = sample_hidden(seen, random.Random(2))
    everything = 0
    for mask in hands:
        everything |= mask
    for c in kitty:
        everything |= E.BIT[c]
    assert everything == E.deck_mask(True)  # the 25 cards, the joker (turned up) in the kitty
    assert E.JOKER in kitty

    farmed = farm_state()
    for card in ("9C", "9D", "TC"):
        farmed.apply_action(S, E.farm(E.parse_card(card)))
    mine = E.read_view(E.player_view(farmed, S))
    assert mine.my_farm is not None and mine.farmer == S
    assert mine.kitty_known & E.BIT[E.parse_card("9C")]  # what it put out is in the kitty
    theirs = E.read_view(E.player_view(farmed, W))
    assert theirs.farmer == S and theirs.my_farm is None
    assert not theirs.kitty_known & E.BIT[E.parse_card("9C")]


def test_hard_plays_a_joker_match_from_each_seat():
    state = E.MatchState(E.Options(joker=True, farmers_hand=True), first_dealer=1)
    rng = random.Random(5)
    state.deal(E.seeded_deck(rng, joker=True))
    hard = PLAYERS["hard"]
    while state.turn is not None:
        view = E.player_view(state, state.turn)
        action = hard(view, rng)
        assert action in view["legal_actions"]
        state.apply_action(state.turn, E.action_from_dict(action))


def test_hints_explain_the_variants_decisions():
    state = farm_state()
    hint = recommend(E.player_view(state, S), random.Random(0))
    assert hint["action"]["type"] == "farm" and "farmer" in hint["explanation"]

    state = redeal_state()
    hint = recommend(E.player_view(state, W), random.Random(0))
    assert hint["action"] == {"type": "redeal"} and "no ace" in hint["explanation"]

    state = joker_up_state()
    hint = recommend(E.player_view(state, EAST), random.Random(0))
    assert hint["action"]["type"] == "name_suit" and "joker" in hint["explanation"]

    state = farm_redeal_state()
    hint = recommend(E.player_view(state, W), random.Random(0))
    assert hint["action"] == {"type": "redeal"}
    assert hint["explanation"].startswith("ask for a new deal: 5 of your cards are nines")
    kept = E.read_view(E.player_view(farm_redeal_state(FARM, "QS JC 9S TS"), S))
    assert explain(kept, {"type": "pass"}).startswith("keep your hand: for all its 3 nines")
    assert explain(E.read_view(E.player_view(farm_state(), S)), {"type": "pass"}) == "pass"


def test_a_hint_lets_the_hand_stand_when_the_partner_made_trump():
    """The redeal's other decision (docs/bots.md): west holds no ace, no face, no trump,
    but its partner, the dealer, picked the upcard up."""
    state = E.MatchState(E.Options(no_ace_no_face_no_trump=True), first_dealer=EAST)
    state.deal(deck_of(REDEAL, "9H QS JS TS"))
    for seat in (S, W, N):
        state.apply_action(seat, E.PASS)
    state.apply_action(EAST, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    assert state.phase == E.REDEAL and state.turn == W
    hint = recommend(E.player_view(state, W), random.Random(0))
    assert hint["action"] == {"type": "pass"}
    assert "let the hand stand" in hint["explanation"] and "partner" in hint["explanation"]


# South, the maker in hearts, leads the first trick holding the right bower and two
# more trumps; the joker is in west's hand, unseen by south (docs/rules.md: the joker
# is the highest trump, above the right bower).
MAKER_LEADS = {
    S: "JH KH QH AS 9C",
    W: "JK 9S TS QS KS",
    N: "AC KC QC JC TC",
    EAST: "AD KD QD TD 9D",
}


def maker_leads_state(joker: bool = True) -> E.MatchState:
    hands = dict(MAKER_LEADS)
    if not joker:  # the same deal in a 24-card match: west holds the ace of hearts instead
        hands[W] = "AH 9S TS QS KS"
    state = E.MatchState(E.Options(joker=joker), first_dealer=EAST)
    state.deal(deck_of(hands, "9H JD JS TH" + ("" if not joker else " AH")))
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    assert state.phase == E.PLAY and state.turn == S
    return state


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_the_rules_do_not_take_the_right_bower_for_boss_while_the_joker_is_unseen(level):
    """With the joker out and unseen, the right bower can be beaten: the maker leads its
    lowest trump to draw the joker (docs/bots.md), not the right bower as a sure winner."""
    view = E.player_view(maker_leads_state(), S)
    action = PLAYERS[level](view, random.Random(0))  # (Easy plays by the rules with seed 0)
    assert action == {"type": "play", "card": "QH"}


def test_the_right_bower_is_boss_once_the_joker_is_gone_and_in_a_24_card_match():
    hand = E.BIT[E.parse_card("JH")] | E.BIT[E.parse_card("KH")] | E.BIT[E.parse_card("QH")]
    hand |= E.BIT[E.parse_card("AS")] | E.BIT[E.parse_card("9C")]
    hearts = E.parse_suit("H")
    joker_seen = E.BIT[E.JOKER]  # played in an earlier trick, or not in a 24-card deck
    lead = P.choose_lead(S, hand, hearts, S, joker_seen, None, None)
    assert E.card_str(lead) == "JH"
    assert E.card_str(P.choose_lead(S, hand, hearts, S, 0, None, None)) == "QH"
    view = E.player_view(maker_leads_state(joker=False), S)
    assert PLAYERS["medium"](view, random.Random(0)) == {"type": "play", "card": "JH"}


# South, first to bid, holds the two bowers and the ace of trump with two side aces: in
# a 24-card match nothing can beat its right bower, so the rules go alone; with the
# joker unseen (in the kitty here, which south cannot know) the right bower is no master.
LONER = {
    S: "JH JD AH AS AC",
    W: "9C TC JC QC KC",
    N: "9D TD QD KD AD",
    EAST: "9S TS JS QS KS",
}


def loner_state(joker: bool) -> E.MatchState:
    state = E.MatchState(E.Options(joker=joker), first_dealer=EAST)
    state.deal(deck_of(LONER, "9H TH QH KH" + (" JK" if joker else "")))
    assert state.phase == E.BID1 and state.turn == S
    return state


@pytest.mark.parametrize("joker, alone", [(False, True), (True, False)])
def test_the_rules_go_alone_on_the_right_bower_only_when_no_joker_can_beat_it(joker, alone):
    view = E.player_view(loner_state(joker), S)
    action = PLAYERS["medium"](view, random.Random(0))
    assert action == {"type": "order_up", "alone": alone}
    mask = sum(E.BIT[c] for c in cards(LONER[S]))
    hearts = E.parse_suit("H")
    absent = 0 if joker else E.BIT[E.JOKER]
    assert P.bid_round_two(mask, E.parse_suit("S"), S, EAST, False, P.MEDIUM, absent) == (
        hearts,
        alone,
    )
