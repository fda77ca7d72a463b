"""Cards, suits, the text notation, and the precomputed tables for each trump.

A card is an int 0..23: suit * 6 + rank, with suits clubs, diamonds, hearts,
spades (0..3) and ranks 9, 10, J, Q, K, A (0..5). Clubs and spades are black,
diamonds and hearts red, so the same-colour suit of `s` is `3 - s`.

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


def card(rank: int, suit: int) -> int:
    return suit * 6 + rank


# The public functions below check their arguments (a RuleError, never an IndexError
# or a quiet answer for -1 or True); the engine's own loops use the tables directly.
def check_card(c: object) -> int:
    if type(c) is not int or not 0 <= c < 24:
        raise RuleError("invalid_card", f"{shown(c)} is not a card: a card is a number 0 to 23.")
    return c


def check_suit(suit: object) -> int:
    if type(suit) is not int or not 0 <= suit < 4:
        raise RuleError("invalid_suit", f"{shown(suit)} is not a suit: a suit is a number 0 to 3.")
    return suit


def suit_of(c: int) -> int:
    """The printed suit (ignores trump: see effective_suit)."""
    return check_card(c) // 6


def rank_of(c: int) -> int:
    return c % 6


def same_color(suit: int) -> int:
    return 3 - suit


# CARD_TEXT[card]: "JH" and so on.
CARD_TEXT = tuple(RANK_LETTERS[c % 6] + SUIT_LETTERS[c // 6] for c in range(24))
# The inverses for text the engine wrote itself (views): a lookup, no checks.
CARD_BY_TEXT = {text: c for c, text in enumerate(CARD_TEXT)}
SUIT_BY_LETTER = {letter: s for s, letter in enumerate(SUIT_LETTERS)}


def card_str(c: int) -> str:
    return CARD_TEXT[check_card(c)]


def card_name(c: int) -> str:
    """'the jack of diamonds': for sentences meant for people."""
    c = check_card(c)
    return f"the {RANK_NAMES[c % 6]} of {SUIT_NAMES[c // 6]}"


_SUIT_ALIASES = {
    **{ch: i for i, ch in enumerate(SUIT_LETTERS)},
    **{ch: i for i, ch in enumerate(SUIT_SYMBOLS)},
}
_RANK_ALIASES = {**{ch: i for i, ch in enumerate(RANK_LETTERS)}, "10": TEN}


def parse_card(text: object) -> int:
    """'JH', 'TD', '10D', 'j♥' -> card int; RuleError('invalid_card') otherwise."""
    if isinstance(text, str) and 2 <= len(text) <= 3:
        rank = _RANK_ALIASES.get(text[:-1].upper())
        suit = _SUIT_ALIASES.get(text[-1].upper())
        if rank is not None and suit is not None:
            return card(rank, suit)
    raise RuleError(
        "invalid_card",
        f"{shown(text)} is not a card: write rank then suit, as in 'JH' or 'TD' "
        "(ranks 9 T J Q K A, suits C D H S).",
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
    if c == card(JACK, same_color(trump)):
        return trump
    return c // 6


def _strength(c: int, trump: int, led: int) -> int:
    """Higher wins the trick; 0 means the card cannot win it."""
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
EFFECTIVE_SUIT = tuple(tuple(_effective_suit(c, t) for c in DECK) for t in SUITS)
# STRENGTH[trump][led suit][card]: compare to find a trick's winner.
STRENGTH = tuple(tuple(tuple(_strength(c, t, led) for c in DECK) for led in SUITS) for t in SUITS)


def effective_suit(c: int, trump: int) -> int:
    return EFFECTIVE_SUIT[check_suit(trump)][check_card(c)]


def is_left_bower(c: int, trump: int) -> bool:
    return c == card(JACK, same_color(trump))


def is_right_bower(c: int, trump: int) -> bool:
    return c == card(JACK, trump)


def trump_order(trump: int) -> list[int]:
    """The seven trumps, high to low."""
    check_suit(trump)
    trumps = [c for c in DECK if EFFECTIVE_SUIT[trump][c] == trump]
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
BIT = tuple(1 << c for c in DECK)
# SUIT_MASK[trump][suit]: the cards whose effective suit is `suit` under `trump`.
SUIT_MASK = tuple(
    tuple(sum(BIT[c] for c in DECK if EFFECTIVE_SUIT[t][c] == s) for s in SUITS) for t in SUITS
)


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
    """The cards of a bitmask, in card order."""
    low, mid, high = _CARDS_IN_BYTE
    return [*low[mask & 255], *mid[mask >> 8 & 255], *high[mask >> 16 & 255]]
