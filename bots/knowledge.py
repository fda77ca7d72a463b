"""Deals of the hidden cards that agree with what one seat has seen.

The seat's view is read once, by the engine's `read_view`, into a `Seen`: its
cards, the cards gone, the suits each seat showed void in, where the known cards
are and how many unknown cards each other seat and the kitty hold.
`sample_hidden(seen, rng)` deals the unknown cards so that every seat gets its
count and no seat gets a card of a suit it showed void in.

Nothing here sees more than the view.
"""

import random

from games.engine import BIT, EFFECTIVE_SUIT, Seen, cards_of

KITTY = 4  # the kitty's index among the holders in sample_hidden


def sample_hidden(seen: Seen, rng: random.Random) -> tuple[list[int], list[int]]:
    """A deal of the unknown cards: (hands as bitmasks by seat, the kitty's cards).

    Every other seat gets its known cards plus `need[s]` unknown ones, never one of a
    suit it showed void in; the kitty gets the rest. The cards are placed in a random
    order, each to a holder chosen with odds by the room it has left (the most
    constrained cards first); if that runs into a dead end it backtracks, so a deal is
    found whenever one exists."""
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump] if trump is not None else None
    pool = cards_of(seen.unknown)
    rng.shuffle(pool)
    room = [seen.need[0], seen.need[1], seen.need[2], seen.need[3], seen.kitty_need]
    room[seen.seat] = 0
    voids = seen.voids
    if not any(voids):
        # Nothing but the counts constrains the deal (the bidding, the first tricks):
        # the shuffled cards dealt out in turn are a uniform deal, and much faster.
        place = [0, 0, 0, 0, 0]
        i = 0
        for h in range(5):
            for c in pool[i : i + room[h]]:
                place[h] |= BIT[c]
            i += room[h]
        hands = [place[s] | seen.known[s] for s in range(4)]
        hands[seen.seat] = seen.hand
        return hands, cards_of(place[KITTY] | seen.kitty_known)
    holders_of = []
    for c in pool:
        holders = [
            h
            for h in range(5)
            if room[h] and (h == KITTY or eff is None or not voids[h] >> eff[c] & 1)
        ]
        holders_of.append((len(holders), c, holders))
    if any(v for v in voids):
        holders_of.sort(key=lambda t: t[0])  # stable: random among equals
    place = [0, 0, 0, 0, 0]

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
        raise ValueError("no deal of the hidden cards agrees with this view")
    hands = [place[s] | seen.known[s] for s in range(4)]
    hands[seen.seat] = seen.hand
    kitty = cards_of(place[KITTY] | seen.kitty_known)
    return hands, kitty
