"""The play: who leads, following suit (the left bower counts as trump), trick winners."""

import pytest

from games import engine as E

from .helpers import (
    EAST,
    N,
    S,
    W,
    cards,
    first_trick_deck,
    legal_cards,
    new_hand,
    pass_round,
    play_cards,
)
from .test_cards import FIVE_TRICKS, SUIT_BY_WORD, parse_trick

# ---------------------------------------------------------------- following suit
#
# The table "Following suit" of 000: hearts are trump, East has led. Each spot is
# reached in a real hand: North deals, everyone passes round one (a spade or a
# club was turned up), East calls hearts in round two and leads; where your hand
# has three cards, East has won the first two tricks.

FOLLOWING_SUIT_TABLE = [
    ("East led 10♦", "J♦, K♦, A♣, 9♥", "K♦"),
    ("East led 10♦", "J♦, A♣, 9♠", "J♦, A♣, 9♠"),
    ("East led 10♥", "J♦, K♦, A♣", "J♦"),
]

# For each row: the deal (by seat), the upcard, and the tricks before East's lead.
FOLLOWING_SUIT_DEALS = [
    (
        {EAST: "AS TD AH KH QH", S: "JD KD AC 9H QS", W: "TS 9D QD KC QC", N: "JS AD TC JC TH"},
        "9C",
        "AS QS TS JS",
    ),
    (
        {EAST: "AH KH QH TD AS", S: "JD AC 9S 9H TH", W: "9D QD KC QC TS", N: "KD AD TC JC JS"},
        "9C",
        "AH 9H 9D TC  KH TH QD JC",
    ),
    (
        {EAST: "AS KS TH AH QH", S: "JD KD AC QS JS", W: "9D QD KC QC 9C", N: "AD TD TC JC 9H"},
        "9S",
        "AS QS 9C TC  KS JS QC JC",
    ),
]


def reach_spot(row: int) -> E.MatchState:
    hands, upcard, earlier = FOLLOWING_SUIT_DEALS[row]
    state = new_hand(N, hands, upcard)
    pass_round(state)  # round one: everyone passes
    state.apply_action(EAST, E.call(E.HEARTS))
    play_cards(state, earlier)
    situation = FOLLOWING_SUIT_TABLE[row][0]
    play_cards(state, situation.split()[-1])  # East leads the card of the table
    assert state.turn == S
    return state


@pytest.mark.parametrize("row", range(3))
def test_following_suit_table_legal_cards_are_exactly_as_printed(row):
    situation, hand, may_play = FOLLOWING_SUIT_TABLE[row]
    state = reach_spot(row)
    assert sorted(state.hand_of(S)) == sorted(cards(hand))
    assert legal_cards(state) == {E.card_str(c) for c in cards(may_play)}


def test_left_bower_does_not_follow_its_printed_suit():
    state = reach_spot(0)  # diamonds led, hearts trump, you hold J♦ and K♦
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.play(E.parse_card("JD")))
    assert err.value.code == "must_follow_suit"
    assert "left bower" in err.value.message


def test_without_the_led_suit_the_left_bower_may_be_played_as_a_trump():
    state = reach_spot(1)
    outcomes = play_cards(state, "JD TS AD")  # you trump the 10 of diamonds with J♦
    assert outcomes[0]["type"] == "trick_won" and outcomes[0]["seat"] == S


def test_left_bower_must_follow_trump_lead():
    state = reach_spot(2)  # hearts led; J♦ is your only heart
    for other in ("KD", "AC"):
        with pytest.raises(E.RuleError) as err:
            state.apply_action(S, E.play(E.parse_card(other)))
        assert err.value.code == "must_follow_suit"
        assert "the jack of diamonds is the left bower" in err.value.message.lower()
    state.apply_action(S, E.play(E.parse_card("JD")))


def test_with_no_card_of_the_suit_led_any_card_may_be_played():
    state = reach_spot(1)
    assert legal_cards(state) == {"JD", "AC", "9S"}


def test_the_leader_may_lead_any_card():
    state = new_hand(N, FOLLOWING_SUIT_DEALS[0][0], "9C")
    pass_round(state)
    state.apply_action(EAST, E.call(E.HEARTS))
    assert legal_cards(state) == set("AS TD AH KH QH".split())


# ---------------------------------------------------------------- who wins a trick
#
# The five tricks of 000, each played as the first trick of a real hand: the seat
# that leads is the dealer's left, calls trump in round two and leads the card.


@pytest.mark.parametrize("trump, played, winner", FIVE_TRICKS)
def test_five_tricks_of_the_rules_are_won_as_printed(trump, played, winner):
    plays = parse_trick(played)
    leader = plays[0][0]
    dealer = (leader - 1) % 4
    state = E.MatchState(E.Options(), first_dealer=dealer)
    state.deal(first_trick_deck(SUIT_BY_WORD[trump], dealer, plays))
    pass_round(state)
    state.apply_action(leader, E.call(SUIT_BY_WORD[trump]))
    outcomes = ()
    for seat, card in plays:
        assert state.turn == seat
        outcomes = state.apply_action(seat, E.play(card))
    who = parse_trick(winner.replace("(", "").replace(")", ""))[0][0]
    assert outcomes[0] == {"type": "trick_won", "seat": who, "trick": 1}
    assert state.tricks[0] == (tuple(s for s, _ in plays), tuple(c for _, c in plays), who)
    assert state.turn == who and state.leader == who  # the winner leads next


def test_leading_the_left_bower_leads_trump():
    state = E.MatchState(E.Options(), first_dealer=EAST)
    plays = parse_trick("You J♦, West 9♥, North A♥, East J♥")
    state.deal(first_trick_deck(E.HEARTS, EAST, plays))
    pass_round(state)
    state.apply_action(S, E.call(E.HEARTS))
    play_cards(state, "JD")
    # West holds a heart (the 9) and must play it.
    assert legal_cards(state) == {"9H"}


# ---------------------------------------------------------------- who leads


def test_dealer_left_leads_the_first_trick():
    for dealer in range(4):
        state = E.MatchState(E.Options(), first_dealer=dealer)
        state.deal(E.seeded_deck(dealer))
        pass_round(state)
        state.apply_action((dealer + 1) % 4, E.PASS)
        state.apply_action(
            (dealer + 2) % 4, E.call(next(s for s in range(4) if s != state.turned_down))
        )
        assert state.phase == E.PLAY
        assert state.leader == state.turn == (dealer + 1) % 4


def test_tricks_have_four_cards_in_turn_to_the_left():
    state = E.MatchState(E.Options(), first_dealer=EAST)
    state.deal(E.seeded_deck(5))
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, state.legal_actions()[0])
    seats = []
    for _ in range(4):
        seats.append(state.turn)
        state.apply_action(state.turn, state.legal_actions()[0])
    assert seats == [S, W, N, EAST]
    assert len(state.tricks) == 1 and len(state.tricks[0][1]) == 4


def test_five_tricks_then_the_hand_is_scored():
    state = E.MatchState(E.Options(), first_dealer=EAST)
    state.deal(E.seeded_deck(9))
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, state.legal_actions()[0])
    outcomes = []
    while state.turn is not None:
        outcomes += state.apply_action(state.turn, state.legal_actions()[0])
    assert [o["trick"] for o in outcomes if o["type"] == "trick_won"] == [1, 2, 3, 4, 5]
    assert outcomes[-1]["type"] == "hand_scored"
    assert sum(state.tricks_won) == 5
    assert all(h == 0 for h in state.hands)
