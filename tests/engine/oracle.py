"""An independent statement of the variants' rules, for checking the engine against.

Written from docs/rules.md ("Table variants"), on card *text* ("JH", "9C", "JK")
and plain lists, with none of the engine's tables, bitmasks or predicates: if the
engine and this disagree on a deal, one of them misreads the rules. The tests
(tests/engine/test_variants.py) play random matches with each option on and ask
both, at every step, which cards may be played, who wins each trick, which seats
may exchange a farmer's hand, ask for a new deal with it or call a redeal, what a
called redeal shows and who deals next, and what the hand scores.
"""

SUITS = "CDHS"
PLAIN_ORDER = "AKQJT9"  # a side suit, high to low
TRUMP_ORDER = "AKQT9"  # trump's own cards below the two bowers, high to low
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
JOKER = "JK"


def suit_in_play(card: str, trump: str) -> str:
    """The suit a card counts as: the joker and the left bower are trumps."""
    if card == JOKER:
        return trump
    if card == "J" + SAME_COLOUR[trump]:
        return trump
    return card[1]


def rank_in_trick(card: str, trump: str, led: str) -> int:
    """Higher beats lower; -1: cannot win the trick."""
    if card == JOKER:
        return 100
    if card == "J" + trump:
        return 99
    if card == "J" + SAME_COLOUR[trump]:
        return 98
    suit = suit_in_play(card, trump)
    if suit == trump:
        return 90 - TRUMP_ORDER.index(card[0])
    if suit == led:
        return 50 - PLAIN_ORDER.index(card[0])
    return -1


def trick_winner(cards: list[str], trump: str) -> int:
    """The index of the winning card of a trick (cards in the order played)."""
    led = suit_in_play(cards[0], trump)
    ranks = [rank_in_trick(c, trump, led) for c in cards]
    return ranks.index(max(ranks))


def legal_plays(hand: list[str], trick: list[str], trump: str) -> set[str]:
    if not trick:
        return set(hand)
    led = suit_in_play(trick[0], trump)
    following = {c for c in hand if suit_in_play(c, trump) == led}
    return following or set(hand)


def is_farmers_hand(hand: list[str]) -> bool:
    """Three or more nines and tens."""
    return sum(1 for c in hand if c != JOKER and c[0] in "9T") >= 3


# What a seat asked about a farmer's hand may do, by the option's form: exchange three
# nines and tens with the kitty, or ask for a new deal (a throw-in, as a redeal).
FARMERS_HAND_CHOICES = {"exchange": {"pass", "farm"}, "redeal": {"pass", "redeal"}}


def dealer_after_throw_in(dealer: int) -> int:
    """A hand thrown in (a redeal called, or four passes without stick the dealer):
    nobody scores and the deal passes one seat left."""
    return (dealer + 1) % 4


def is_no_ace_no_face_no_trump(hand: list[str], trump: str) -> bool:
    return all(c != JOKER and c[0] in "9T" and c[1] != trump for c in hand)


def hand_score(makers_tricks: int, maker_alone: bool, defender_alone: bool) -> tuple[bool, int]:
    """(the makers score?, points)."""
    if makers_tricks == 5:
        return True, 4 if maker_alone else 2
    if makers_tricks >= 3:
        return True, 1
    return False, 4 if defender_alone else 2


def deal(deck: list[str], dealer: int) -> tuple[dict[int, list[str]], list[str]]:
    """Five to each seat from the dealer's left, the rest the kitty, upcard first."""
    hands = {(dealer + 1 + i) % 4: deck[5 * i : 5 * i + 5] for i in range(4)}
    return hands, deck[20:]
