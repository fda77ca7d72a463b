"""The shuffle against the exact deal odds printed in 000 ("What a Euchre hand looks like")."""

import random
import secrets
from math import comb

import pytest

from games import engine as E
from games.engine import deal as deal_module
from games.engine.cards import BIT, SUIT_MASK

DECKS = 200_000  # 800,000 hands; a jack turned up is counted once per deck
TOLERANCE = 0.3  # percentage points
TRUMP = E.HEARTS

# As printed in 000, in percent.
PRINTED_TRUMPS = {"0": 14.6, "1": 39.2, "2": 33.6, "3": 11.2, "4 or 5": 1.4}
PRINTED_ONE_BOWER = 38.0
PRINTED_BOTH_BOWERS = 3.6
PRINTED_JACK_UP = 100 / 6


def exact_trumps(k: int) -> float:
    return 100 * comb(7, k) * comb(17, 5 - k) / comb(24, 5)


def test_the_printed_odds_are_the_exact_odds_of_a_24_card_deck():
    assert round(exact_trumps(0), 1) == 14.6
    assert round(exact_trumps(1), 1) == 39.2
    assert round(exact_trumps(2), 1) == 33.6
    assert round(exact_trumps(3), 1) == 11.2
    assert round(exact_trumps(4) + exact_trumps(5), 1) == 1.4
    assert round(100 * (1 - comb(22, 5) / comb(24, 5)), 1) == 38.0
    assert round(100 * comb(22, 3) / comb(24, 5), 1) == 3.6


@pytest.fixture(scope="module")
def counts() -> dict[str, float]:
    """Shares, in percent, over DECKS seeded deals and their 4 * DECKS hands."""
    trumps = SUIT_MASK[TRUMP][TRUMP]  # 7 cards: the six hearts and the jack of diamonds
    right, left = BIT[E.parse_card("JH")], BIT[E.parse_card("JD")]
    bowers = right | left
    jacks = {E.parse_card(j) for j in ("JC", "JD", "JH", "JS")}
    by_count = [0] * 6
    one_bower = both_bowers = jack_up = 0
    rng = random.Random(20240601)
    seeded_deck = E.seeded_deck
    for _ in range(DECKS):
        deck = seeded_deck(rng)
        jack_up += deck[20] in jacks
        for i in (0, 5, 10, 15):
            hand = BIT[deck[i]] | BIT[deck[i + 1]] | BIT[deck[i + 2]] | BIT[deck[i + 3]]
            hand |= BIT[deck[i + 4]]
            by_count[(hand & trumps).bit_count()] += 1
            held = hand & bowers
            if held:
                one_bower += 1
                if held == bowers:
                    both_bowers += 1
    hands = 4 * DECKS
    return {
        "0": 100 * by_count[0] / hands,
        "1": 100 * by_count[1] / hands,
        "2": 100 * by_count[2] / hands,
        "3": 100 * by_count[3] / hands,
        "4 or 5": 100 * (by_count[4] + by_count[5]) / hands,
        "one bower": 100 * one_bower / hands,
        "both bowers": 100 * both_bowers / hands,
        "jack up": 100 * jack_up / DECKS,
    }


@pytest.mark.slow
@pytest.mark.parametrize("trumps, printed", PRINTED_TRUMPS.items())
def test_trumps_in_a_hand_match_the_printed_odds(counts, trumps, printed):
    assert abs(counts[trumps] - printed) <= TOLERANCE


@pytest.mark.slow
def test_at_least_one_bower_in_38_percent_of_hands(counts):
    assert abs(counts["one bower"] - PRINTED_ONE_BOWER) <= TOLERANCE


@pytest.mark.slow
def test_both_bowers_in_3_6_percent_of_hands(counts):
    assert abs(counts["both bowers"] - PRINTED_BOTH_BOWERS) <= TOLERANCE


@pytest.mark.slow
def test_a_jack_is_turned_up_in_one_deal_in_six(counts):
    assert abs(counts["jack up"] - PRINTED_JACK_UP) <= TOLERANCE


def test_seeded_decks_are_reproducible_and_valid():
    assert E.seeded_deck(5) == E.seeded_deck(5)
    assert E.seeded_deck(5) != E.seeded_deck(6)
    a, b = random.Random(9), random.Random(9)
    assert [E.seeded_deck(a) for _ in range(3)] == [E.seeded_deck(b) for _ in range(3)]
    for seed in range(50):
        assert E.validate_deck(E.seeded_deck(seed)) == E.seeded_deck(seed)


def test_seeded_decks_put_every_card_everywhere():
    rng = random.Random(1)
    seen = [set() for _ in range(24)]
    for _ in range(2000):
        for position, c in enumerate(E.seeded_deck(rng)):
            seen[position].add(c)
    assert all(s == set(E.DECK) for s in seen)


def test_the_shuffle_for_real_play_is_secure_and_gives_valid_decks():
    assert isinstance(deal_module._SYSTEM_RANDOM, secrets.SystemRandom)
    decks = {E.shuffled_deck() for _ in range(20)}
    assert len(decks) == 20  # 24! orders: a repeat would mean a broken source
    for deck in decks:
        assert isinstance(deck, tuple) and E.validate_deck(deck) == deck
