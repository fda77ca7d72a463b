"""Cards, the notation, the trump order with both bowers, effective suits, trick winners."""

import pytest

from games import engine as E
from games.engine.cards import (
    BIT,
    EFFECTIVE_SUIT,
    SUIT_MASK,
    cards_of,
    is_left_bower,
    is_right_bower,
    mask_of,
    suit_order,
)

from .helpers import EAST, N, S, W, cards, names

SUIT_BY_WORD = {"Hearts": E.HEARTS, "Diamonds": E.DIAMONDS, "Spades": E.SPADES, "Clubs": E.CLUBS}


def test_the_deck_is_24_cards_nine_to_ace_of_four_suits():
    assert len(E.DECK) == 24
    assert sorted(names(E.DECK)) == sorted(r + s for s in "CDHS" for r in "9TJQKA")


@pytest.mark.parametrize("card", E.DECK)
def test_every_card_round_trips_through_its_text(card):
    assert E.parse_card(E.card_str(card)) == card


@pytest.mark.parametrize(
    "text, expected",
    [
        ("JH", "JH"),
        ("TD", "TD"),
        ("10D", "TD"),
        ("10♦", "TD"),
        ("j♥", "JH"),
        ("as", "AS"),
        ("9♣", "9C"),
        ("K♠", "KS"),
        ("qd", "QD"),
    ],
)
def test_parse_card_takes_letters_ten_as_10_lower_case_and_symbols(text, expected):
    assert E.card_str(E.parse_card(text)) == expected


@pytest.mark.parametrize("text", ["", "J", "1H", "JX", "8H", "JHH", "10", 7, None, ["JH"]])
def test_anything_else_is_not_a_card(text):
    with pytest.raises(E.RuleError) as err:
        E.parse_card(text)
    assert err.value.code == "invalid_card"
    assert "rank then suit" in err.value.message


@pytest.mark.parametrize(
    "text, suit",
    [("C", E.CLUBS), ("d", E.DIAMONDS), ("♥", E.HEARTS), ("spades", E.SPADES), ("Hearts", 2)],
)
def test_parse_suit_takes_letters_symbols_and_names(text, suit):
    assert E.parse_suit(text) == suit
    assert E.suit_str(suit) == "CDHS"[suit]


@pytest.mark.parametrize("text", ["X", "", "club", 3, None])
def test_anything_else_is_not_a_suit(text):
    with pytest.raises(E.RuleError) as err:
        E.parse_suit(text)
    assert err.value.code == "invalid_suit"


def test_card_names_read_as_english():
    assert E.card_name(E.parse_card("JD")) == "the jack of diamonds"
    assert E.card_name(E.parse_card("TS")) == "the 10 of spades"


def test_card_numbering_is_suit_times_six_plus_rank():
    assert E.parse_card("9C") == 0
    assert E.parse_card("AC") == 5
    assert E.parse_card("9D") == 6
    assert E.parse_card("JH") == 2 * 6 + 2
    assert E.parse_card("AS") == 23
    assert E.suit_of(E.parse_card("JD")) == E.DIAMONDS


# The table "The bowers and the trump order" of 000, row by row, as printed.
TRUMP_ORDER_TABLE = [
    ("Hearts", "J♥, J♦, A♥, K♥, Q♥, 10♥, 9♥", "A♦, K♦, Q♦, 10♦, 9♦"),
    ("Diamonds", "J♦, J♥, A♦, K♦, Q♦, 10♦, 9♦", "A♥, K♥, Q♥, 10♥, 9♥"),
    ("Spades", "J♠, J♣, A♠, K♠, Q♠, 10♠, 9♠", "A♣, K♣, Q♣, 10♣, 9♣"),
    ("Clubs", "J♣, J♠, A♣, K♣, Q♣, 10♣, 9♣", "A♠, K♠, Q♠, 10♠, 9♠"),
]


@pytest.mark.parametrize("trump, trumps, same_color", TRUMP_ORDER_TABLE)
def test_trump_order_has_both_bowers_on_top(trump, trumps, same_color):
    assert E.trump_order(SUIT_BY_WORD[trump]) == cards(trumps)


@pytest.mark.parametrize("trump, trumps, same_color", TRUMP_ORDER_TABLE)
def test_same_color_suit_loses_its_jack_and_keeps_five_cards(trump, trumps, same_color):
    t = SUIT_BY_WORD[trump]
    assert suit_order(3 - t, t) == cards(same_color)


@pytest.mark.parametrize("trump", ["Hearts", "Diamonds", "Spades", "Clubs"])
def test_the_two_suits_of_the_other_color_keep_six_cards_ace_high(trump):
    t = SUIT_BY_WORD[trump]
    for other in {0, 1, 2, 3} - {t, 3 - t}:
        letter = "CDHS"[other]
        expected = cards(" ".join(r + letter for r in "AKQJT9"))
        assert suit_order(other, t) == expected


@pytest.mark.parametrize("trump", ["Hearts", "Diamonds", "Spades", "Clubs"])
def test_left_bower_belongs_to_trump_for_the_whole_hand(trump):
    t = SUIT_BY_WORD[trump]
    right, left = E.trump_order(t)[:2]
    assert is_right_bower(right, t) and is_left_bower(left, t)
    assert E.suit_of(left) == 3 - t
    assert E.effective_suit(left, t) == t
    assert E.effective_suit(right, t) == t
    # every other card keeps its printed suit
    for c in E.DECK:
        if c != left:
            assert E.effective_suit(c, t) == E.suit_of(c)


def test_suit_masks_partition_the_deck_for_every_trump():
    # The joker's bit (24) is in trump's mask: 8 trumps of 25 cards with the joker, and
    # a 24-card hand (never holding bit 24) sees the same 7 trumps of 24 as ever.
    for t in range(4):
        masks = SUIT_MASK[t]
        assert sum(m.bit_count() for m in masks) == 25
        assert masks[0] | masks[1] | masks[2] | masks[3] == (1 << 25) - 1
        assert masks[t].bit_count() == 8 and masks[3 - t].bit_count() == 5
        assert (masks[t] & ((1 << 24) - 1)).bit_count() == 7
        for c in E.DECK_WITH_JOKER:
            assert masks[EFFECTIVE_SUIT[t][c]] & BIT[c]


def test_bitmask_helpers_round_trip():
    hand = cards("JH 9C AS TD")
    assert cards_of(mask_of(hand)) == sorted(hand)


# The table "Who wins a trick" of 000: trump, the cards in the order played, the winner.
FIVE_TRICKS = [
    ("Hearts", "West A♦, North J♦, East 10♦, you 9♦", "North (J♦)"),
    ("Hearts", "You J♦, West 9♥, North A♥, East J♥", "East (J♥)"),
    ("Spades", "West K♣, North A♣, East J♣, you 9♠", "East (J♣)"),
    ("Spades", "West J♥, North Q♥, East A♥, you 10♥", "East (A♥)"),
    ("Clubs", "You Q♥, West A♦, North 9♥, East K♥", "East (K♥)"),
]


def parse_trick(text: str) -> list[tuple[int, int]]:
    """'West A♦, North J♦, ...' -> [(seat, card), ...]."""
    seats = {"you": S, "west": W, "north": N, "east": EAST}
    out = []
    for part in text.split(","):
        who, card = part.split()
        out.append((seats[who.lower()], E.parse_card(card)))
    return out


@pytest.mark.parametrize("trump, played, winner", FIVE_TRICKS)
def test_trick_winner_index_gives_the_table_winner(trump, played, winner):
    plays = parse_trick(played)
    who, card = winner.split()
    index = E.trick_winner_index([c for _, c in plays], SUIT_BY_WORD[trump])
    assert plays[index] == (parse_trick(f"{who} {card.strip('()')}")[0])


def test_highest_trump_wins_else_highest_of_suit_led_and_off_suit_aces_never_win():
    clubs = E.CLUBS
    assert E.trick_winner_index(cards("QH AD 9H KH"), clubs) == 3
    assert E.trick_winner_index(cards("QH AD 9C KH"), clubs) == 2  # the 9 of trump
    assert E.trick_winner_index(cards("9H AH"), clubs) == 1
    assert E.trick_winner_index(cards("AH JS JC"), clubs) == 2  # right beats left
    assert E.trick_winner_index(cards("JS AC"), clubs) == 0  # left beats the ace of trump
