"""Cards, suits, the text notation, and the precomputed tables for each trump.

A card is an int 0..23: suit * 6 + rank, with suits clubs, diamonds, hearts,
spades (0..3) and ranks 9, 10, J, Q, K, A (0..5). Clubs and spades are black,
diamonds and hearts red, so the same-colour suit of `s` is `3 - s`. With the
`joker` option the deck has a 25th card, JOKER = 24 ("JK"): it has no printed
suit or rank; once trump is fixed it is the highest trump (the "best bower").
Every table below has an entry for it, so a 24-card hand (which never holds
bit 24) is looked up exactly as before.

Text notation: rank then suit, `9 T J Q K A` and `C D H S` ("JH" is the jack
of hearts, "TD" the ten of diamonds). Parsing also takes "10D", lower case and
the symbols ♣ ♦ ♥ ♠.
"""

from .errors import RuleError, shown

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LETTERS = "9TJQKA"
RANK_NAMES = ("9", "10", "jack", "queen", "king", "ace")
NINE, TEN, JACK, QUEEN, KING, ACE = range(6)

DECK = tuple(range(24))
JOKER = 24
DECK_WITH_JOKER = tuple(range(25))
CARDS = DECK_WITH_JOKER  # every card int there is: the tables have an entry for each


def card(rank: int, suit: int) -> int:
    return suit * 6 + rank


# The public functions below check their arguments (a RuleError, never an IndexError
# or a quiet answer for -1 or True); the engine's own loops use the tables directly.
def check_card(c: object) -> int:
    if type(c) is not int or not 0 <= c <= JOKER:
        raise RuleError(
            "invalid_card", f"{shown(c)} is not a card: a card is a number 0 to 24 (24 the joker)."
        )
    return c


def check_suit(suit: object) -> int:
    if type(suit) is not int or not 0 <= suit < 4:
        raise RuleError("invalid_suit", f"{shown(suit)} is not a suit: a suit is a number 0 to 3.")
    return suit


def suit_of(c: int) -> int:
    """The printed suit (ignores trump: see effective_suit). The joker has none."""
    if check_card(c) == JOKER:
        raise RuleError(
            "invalid_card", "The joker has no printed suit: it is a trump, whatever trump is."
        )
    return c // 6


def rank_of(c: int) -> int:
    return c % 6


def same_color(suit: int) -> int:
    return 3 - suit


# CARD_TEXT[card]: "JH" and so on.
CARD_TEXT = (*(RANK_LETTERS[c % 6] + SUIT_LETTERS[c // 6] for c in range(24)), "JK")
# The inverses for text the engine wrote itself (views): a lookup, no checks.
CARD_BY_TEXT = {text: c for c, text in enumerate(CARD_TEXT)}
SUIT_BY_LETTER = {letter: s for s, letter in enumerate(SUIT_LETTERS)}


def card_str(c: int) -> str:
    return CARD_TEXT[check_card(c)]


def card_name(c: int) -> str:
    """'the jack of diamonds': for sentences meant for people."""
    c = check_card(c)
    if c == JOKER:
        return "the joker"
    return f"the {RANK_NAMES[c % 6]} of {SUIT_NAMES[c // 6]}"


_SUIT_ALIASES = {
    **{ch: i for i, ch in enumerate(SUIT_LETTERS)},
    **{ch: i for i, ch in enumerate(SUIT_SYMBOLS)},
}
_RANK_ALIASES = {**{ch: i for i, ch in enumerate(RANK_LETTERS)}, "10": TEN}


def parse_card(text: object) -> int:
    """'JH', 'TD', '10D', 'j♥' -> card int ('JK' or 'joker': the joker); RuleError
    ('invalid_card') otherwise."""
    if isinstance(text, str) and text.upper() in ("JK", "JOKER", "🃏"):
        return JOKER
    if isinstance(text, str) and 2 <= len(text) <= 3:
        rank = _RANK_ALIASES.get(text[:-1].upper())
        suit = _SUIT_ALIASES.get(text[-1].upper())
        if rank is not None and suit is not None:
            return card(rank, suit)
    raise RuleError(
        "invalid_card",
        f"{shown(text)} is not a card: write rank then suit, as in 'JH' or 'TD' "
        "(ranks 9 T J Q K A, suits C D H S; JK is the joker).",
    )


def parse_suit(text: object) -> int:
    if isinstance(text, str) and len(text) == 1 and text.upper() in _SUIT_ALIASES:
        return _SUIT_ALIASES[text.upper()]
    if isinstance(text, str) and text.lower() in SUIT_NAMES:
        return SUIT_NAMES.index(text.lower())
    raise RuleError("invalid_suit", f"{shown(text)} is not a suit: use C, D, H or S.")


def suit_str(suit: int) -> str:
    return SUIT_LETTERS[check_suit(suit)]


def _effective_suit(c: int, trump: int) -> int:
    if c == JOKER or c == card(JACK, same_color(trump)):
        return trump
    return c // 6


def _strength(c: int, trump: int, led: int) -> int:
    """Higher wins the trick; 0 means the card cannot win it."""
    if c == JOKER:  # the best bower: above the right bower
        return 108
    if c == card(JACK, trump):
        return 107
    if c == card(JACK, same_color(trump)):
        return 106
    eff = _effective_suit(c, trump)
    if eff == trump:
        return 100 + (0, 1, -1, 2, 3, 4)[c % 6] + 1  # 9..A of trump: 101..105
    if eff == led:
        return 1 + (0, 1, 2, 3, 4, 5)[c % 6]  # A K Q J 10 9, plain order
    return 0


# EFFECTIVE_SUIT[trump][card]: the left bower belongs to trump.
EFFECTIVE_SUIT = tuple(tuple(_effective_suit(c, t) for c in CARDS) for t in SUITS)
# STRENGTH[trump][led suit][card]: compare to find a trick's winner.
STRENGTH = tuple(tuple(tuple(_strength(c, t, led) for c in CARDS) for led in SUITS) for t in SUITS)


def effective_suit(c: int, trump: int) -> int:
    return EFFECTIVE_SUIT[check_suit(trump)][check_card(c)]


def is_left_bower(c: int, trump: int) -> bool:
    return c == card(JACK, same_color(trump))


def is_right_bower(c: int, trump: int) -> bool:
    return c == card(JACK, trump)


def trump_order(trump: int, joker: bool = False) -> list[int]:
    """The seven trumps, high to low (eight, the joker first, with `joker` true)."""
    check_suit(trump)
    if type(joker) is not bool:
        raise RuleError("invalid_option", "joker must be true or false.")
    trumps = [c for c in (DECK_WITH_JOKER if joker else DECK) if EFFECTIVE_SUIT[trump][c] == trump]
    return sorted(trumps, key=lambda c: -STRENGTH[trump][trump][c])


def suit_order(suit: int, trump: int) -> list[int]:
    """The cards of a suit that is not trump, high to low, under that trump."""
    cards = [c for c in DECK if EFFECTIVE_SUIT[trump][c] == suit]
    return sorted(cards, key=lambda c: -STRENGTH[trump][suit][c])


def trick_winner_index(cards: list[int] | tuple[int, ...], trump: int) -> int:
    """Index in `cards` (in the order played) of the card that wins the trick."""
    check_suit(trump)
    if (
        not isinstance(cards, list | tuple)
        or not 1 <= len(cards) <= 4
        or len({check_card(c) for c in cards}) != len(cards)
    ):
        raise RuleError("invalid_card", "A trick is one to four different cards.")
    strength = STRENGTH[trump][EFFECTIVE_SUIT[trump][cards[0]]]
    best = 0
    for i in range(1, len(cards)):
        if strength[cards[i]] > strength[cards[best]]:
            best = i
    return best


# A set of cards as a bitmask (bit c set for card c): hands are held this way.
BIT = tuple(1 << c for c in CARDS)
# SUIT_MASK[trump][suit]: the cards whose effective suit is `suit` under `trump` (the
# joker's bit is in trump's mask).
SUIT_MASK = tuple(
    tuple(sum(BIT[c] for c in CARDS if EFFECTIVE_SUIT[t][c] == s) for s in SUITS) for t in SUITS
)
# The nines and tens (what a farmer's hand is made of, and all a no-ace-no-face hand holds).
LOW_MASK = sum(BIT[card(r, s)] for r in (NINE, TEN) for s in SUITS)


def deck_mask(joker: bool) -> int:
    """Every card of the deck as a bitmask: 24 cards, or 25 with the joker."""
    return (1 << 25) - 1 if joker else (1 << 24) - 1


def mask_of(cards: "list[int] | tuple[int, ...]") -> int:
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


# _CARDS_IN_BYTE[k][b]: the cards whose bits are set in byte value b at byte k of a mask.
_CARDS_IN_BYTE = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(3)
)


def cards_of(mask: int) -> list[int]:
    """The cards of a bitmask, in card order (the joker last)."""
    low, mid, high = _CARDS_IN_BYTE
    if mask >> 24:
        return [*low[mask & 255], *mid[mask >> 8 & 255], *high[mask >> 16 & 255], JOKER]
    return [*low[mask & 255], *mid[mask >> 8 & 255], *high[mask >> 16 & 255]]
