"""Deals of the hidden cards that agree with what one seat has seen.

The seat's view is read once, by the engine's `read_view`, into a `Seen`: its
cards, the cards gone, the suits each seat showed void in, where the known cards
are and how many unknown cards each other seat and the kitty hold.
`sample_hidden(seen, rng)` deals the unknown cards so that every seat gets its
count, no seat gets a card of a suit it showed void in, and what the variants'
decisions showed holds (a farmer's nines and tens, a redeal's hand, the dealer's
own cards unseen while it names a joker upcard's suit).

Nothing here sees more than the view.
"""

import random
from collections.abc import Iterable, Iterator

from games.engine import (
    BIT,
    EFFECTIVE_SUIT,
    LOW_MASK,
    MatchState,
    Seen,
    cards_of,
    deck_mask,
    state_from_view,
    with_hands,
)

KITTY = 4  # the kitty's index among the holders in sample_hidden
ANY = deck_mask(True)  # Seen.allowed for a seat that may hold any card


def sample_hidden(seen: Seen, rng: random.Random) -> tuple[list[int], list[int]]:
    """A deal of the unknown cards: (hands as bitmasks by seat, the kitty's cards).

    Every other seat gets its known cards plus `need[s]` unknown ones, never one of a
    suit it showed void in nor a card it may not hold (`allowed`: a seat asked about a
    redeal holds only nines and tens that are not trump); the kitty gets the rest. The
    seat's own hand is its cards, or, when its view hides them (the dealer naming a
    joker upcard's suit), `need[seat]` unknown cards like another's. A holder that must
    hold nines and tens (`low_need`: a seat asked about a farmer's hand, the kitty under
    another seat's exchange) gets that many first, chosen at random among the unknown
    ones. The cards are placed in a random order, each to a holder chosen with odds by
    the room it has left (the most constrained cards first); if that runs into a dead
    end it backtracks, so a deal is found whenever one exists (with `low_need`, the
    nines and tens placed first are drawn again a few times before giving up)."""
    tries = 20 if any(seen.low_need) else 1
    for _ in range(tries):
        dealt = _deal(seen, rng)
        if dealt is not None:
            return dealt
    raise ValueError("no deal of the hidden cards agrees with this view")


def _deal(seen: Seen, rng: random.Random) -> tuple[list[int], list[int]] | None:
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump] if trump is not None else None
    pool = cards_of(seen.unknown)
    rng.shuffle(pool)
    seat = seen.seat
    room = [seen.need[0], seen.need[1], seen.need[2], seen.need[3], seen.kitty_need]
    if not seen.hand_hidden:
        room[seat] = 0
    voids = seen.voids
    allowed = seen.allowed
    place = [0, 0, 0, 0, 0]

    def may_hold(h: int, c: int) -> bool:
        if h == KITTY:
            return True
        if not allowed[h] >> c & 1:
            return False
        return eff is None or not voids[h] >> eff[c] & 1

    if any(seen.low_need):
        # The nines and tens a holder is known to hold, first (the pool is shuffled).
        for h, want in enumerate(seen.low_need):
            if not want:
                continue
            lows = [c for c in pool if BIT[c] & LOW_MASK and may_hold(h, c)][:want]
            if len(lows) < want or room[h] < want:
                return None
            for c in lows:
                place[h] |= BIT[c]
                pool.remove(c)
            room[h] -= want
    constrained = any(voids) or any(a != ANY for a in allowed)
    if not constrained:
        # Nothing but the counts constrains the deal (the bidding, the first tricks):
        # the shuffled cards dealt out in turn are a uniform deal, and much faster.
        i = 0
        for h in range(5):
            for c in pool[i : i + room[h]]:
                place[h] |= BIT[c]
            i += room[h]
        return _hands_and_kitty(seen, place)
    holders_of = []
    for c in pool:
        holders = [h for h in range(5) if room[h] and may_hold(h, c)]
        holders_of.append((len(holders), c, holders))
    holders_of.sort(key=lambda t: t[0])  # stable: random among equals

    def fill(i: int) -> bool:
        if i == len(holders_of):
            return True
        _, c, holders = holders_of[i]
        options = [h for h in holders if room[h]]
        while options:
            total = sum(room[h] for h in options)
            r = rng.random() * total
            for h in options:
                r -= room[h]
                if r < 0:
                    break
            room[h] -= 1
            place[h] |= BIT[c]
            if fill(i + 1):
                return True
            room[h] += 1
            place[h] &= ~BIT[c]
            options.remove(h)
        return False

    if not fill(0):
        return None
    return _hands_and_kitty(seen, place)


def _hands_and_kitty(seen: Seen, place: list[int]) -> tuple[list[int], list[int]]:
    hands = [place[s] | seen.known[s] for s in range(4)]
    hands[seen.seat] |= seen.hand
    return hands, cards_of(place[KITTY] | seen.kitty_known)


def deal_states(seen: Seen, deals: Iterable[tuple]) -> Iterator[tuple[MatchState, tuple]]:
    """Each deal (the hidden hands and the kitty first, anything after them passed along)
    as an engine state of the seat's position: the first rebuilt from the view, the others
    with their cards swapped into a copy of it (cheaper than rebuilding)."""
    template = None
    for deal in deals:
        hands, kitty = deal[0], deal[1]
        if template is None:
            template = state_from_view(seen, {s: cards_of(hands[s]) for s in range(4)}, kitty)
            yield template, deal
        else:
            yield with_hands(template, hands, kitty), deal
