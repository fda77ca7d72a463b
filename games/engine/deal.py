"""Decks: a secure shuffle for real play, a seeded one for tests and simulations.

The deal itself is data. From a deck order (24 distinct cards) the hands go out
five at a time to the left from the dealer's left: deck[0:5] to the dealer's
left, deck[5:10] to the dealer's partner, deck[10:15] to the dealer's right,
deck[15:20] to the dealer (deck[5*i : 5*i+5] to seat (dealer + 1 + i) % 4), and
deck[20:24] is the kitty with deck[20] turned up. A log that records the deck
therefore replays exactly. With the joker option the deck is 25 cards (the joker
is card 24) and the kitty deck[20:25], five cards with deck[20] turned up.
"""

import random
import secrets
from itertools import repeat, starmap

from .cards import DECK, DECK_WITH_JOKER, mask_of
from .errors import RuleError

_SYSTEM_RANDOM = secrets.SystemRandom()
_DECK_SET = frozenset(DECK)
_DECK_SET_25 = frozenset(DECK_WITH_JOKER)
_NO_ARGS = tuple(repeat((), 24))
_NO_ARGS_25 = tuple(repeat((), 25))


class _ValidDeck(tuple):
    """A deck order known to be valid: only the functions of this module make one
    (shuffled_deck, seeded_deck, validate_deck), so `deal` need not check it again.
    In every other way it is a plain tuple of the 24 card ints."""

    __slots__ = ()


def _check_joker(joker: object) -> None:
    if type(joker) is not bool:
        raise RuleError("invalid_option", "joker must be true or false.")


def shuffled_deck(joker: bool = False) -> tuple[int, ...]:
    """A deck order from the operating system's secure random source (`secrets`);
    the 25 cards with `joker`."""
    _check_joker(joker)
    deck = list(DECK_WITH_JOKER if joker else DECK)
    _SYSTEM_RANDOM.shuffle(deck)
    return _ValidDeck(deck)


def seeded_deck(seed: "int | random.Random", joker: bool = False) -> tuple[int, ...]:
    """A reproducible deck order: for tests and simulations only, never for real play.

    `seed` is an int or a random.Random (whose state it advances). The cards are
    sorted by 24 independent uniform random keys, which gives every order the
    same chance (two equal 53-bit keys, the only bias, come up about once in
    10**13 decks) at half the cost of random.shuffle. With `joker`, the 25 cards
    (25 keys; without it the same 24 keys as always, so old seeds deal the same).
    """
    _check_joker(joker)
    if isinstance(seed, random.Random):
        rng = seed
    elif type(seed) is int:
        rng = random.Random(seed)
    else:
        raise RuleError("invalid_seed", "A seed is a whole number or a random.Random.")
    if joker:
        keys = list(starmap(rng.random, _NO_ARGS_25))
        return _ValidDeck(sorted(DECK_WITH_JOKER, key=keys.__getitem__))
    keys = list(starmap(rng.random, _NO_ARGS))
    return _ValidDeck(sorted(DECK, key=keys.__getitem__))


def validate_deck(deck: object, joker: bool = False) -> tuple[int, ...]:
    """The deck, as a tuple, if it is the 24 cards each exactly once (the 25 with
    `joker`); RuleError otherwise."""
    _check_joker(joker)
    if (
        not isinstance(deck, list | tuple)
        or len(deck) != 24 + joker
        or not all(type(c) is int for c in deck)  # before set(): no bools, nothing unhashable
        or set(deck) != (_DECK_SET_25 if joker else _DECK_SET)
    ):
        if joker:
            raise RuleError(
                "invalid_deck", "A deck with the joker is the 25 cards, each exactly once."
            )
        raise RuleError("invalid_deck", "A deck is the 24 cards, each exactly once.")
    return deck if type(deck) is _ValidDeck else _ValidDeck(deck)


def hands_from_deck(deck: tuple[int, ...], dealer: int) -> tuple[list[int], list[int]]:
    """The four hands as card bitmasks (indexed by seat) and the kitty (upcard first)."""
    hands = [0, 0, 0, 0]
    for i in range(4):
        hands[(dealer + 1 + i) % 4] = mask_of(deck[5 * i : 5 * i + 5])
    return hands, list(deck[20:])
