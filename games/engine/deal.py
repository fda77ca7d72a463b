"""Decks: a secure shuffle for real play, a seeded one for tests and simulations.

The deal itself is data. From a deck order (24 distinct cards) the hands are:
deck[0:5] to the dealer's left, deck[5:10] to the next seat, deck[10:15] to the
dealer's partner, deck[15:20] to the dealer, and deck[20:24] is the kitty with
deck[20] turned up. A log that records the deck therefore replays exactly.
"""

import random
import secrets

from .cards import DECK, mask_of
from .errors import RuleError

_SYSTEM_RANDOM = secrets.SystemRandom()
_DECK_SET = frozenset(DECK)


def shuffled_deck() -> tuple[int, ...]:
    """A deck order from the operating system's secure random source."""
    deck = list(DECK)
    _SYSTEM_RANDOM.shuffle(deck)
    return tuple(deck)


def seeded_deck(seed: int | random.Random) -> tuple[int, ...]:
    """A reproducible deck order: for tests and simulations only, never for real play."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    return tuple(deck)


def validate_deck(deck: object) -> tuple[int, ...]:
    if (
        not isinstance(deck, list | tuple)
        or len(deck) != 24
        or not all(type(c) is int for c in deck)  # before set(): no bools, nothing unhashable
        or set(deck) != _DECK_SET
    ):
        raise RuleError("invalid_deck", "A deck is the 24 cards, each exactly once.")
    return tuple(deck)


def hands_from_deck(deck: tuple[int, ...], dealer: int) -> tuple[list[int], list[int]]:
    """The four hands as card bitmasks (indexed by seat) and the kitty (upcard first)."""
    hands = [0, 0, 0, 0]
    for i in range(4):
        hands[(dealer + 1 + i) % 4] = mask_of(deck[5 * i : 5 * i + 5])
    return hands, list(deck[20:24])
