"""Reading the others' plays: how many of a deal's past cards the Medium rules explain.

Hard weighs each sampled deal by how well it explains what the others did
(bots/players/hard.py `_sample`). Their bids are read by `bid_misses`; their
plays here: for each card another seat played this hand, the hand that seat held
then (its cards in the deal plus those it played from that trick on) is given to
the Medium rules with what that seat had seen by then (the cards played before,
the suits shown void, the turned-down card), and a card the rules would not have
played from it counts as a play the deal does not explain.

Only the view is read (`Seen.tricks`, `trick_cards`, `played_by`): nothing here
sees more than the seat does. What the seat cannot know is left out of what the
other seat is taken to have seen: the dealer's own discard.
"""

from collections.abc import Iterator

from games.engine import BIT, EFFECTIVE_SUIT, Seen, cards_of

from . import policy as P

# (seat, hand, trick seats before, trick cards before, gone, voids, card played)
Play = tuple[int, int, list[int], list[int], int, list[int], int]


def unexplained_plays(seen: Seen, hands: list[int]) -> int:
    """How many of the other seats' plays this hand the Medium rules would not have made
    with the cards the deal `hands` gives them (`hands[s]`: s's cards now)."""
    return sum(play_misses(seen, hands))


def play_misses(seen: Seen, hands: list[int]) -> list[int]:
    """Seat by seat, how many of that seat's plays this hand the Medium rules would not
    have made with the cards the deal `hands` gives it (the seat's own never counted)."""
    misses = [0, 0, 0, 0]
    for s, hand, seats, cards, gone, voids, c in others_plays(seen, hands):
        misses[s] += rules_card(seen, s, hand, seats, cards, gone, voids) != c
    return misses


def others_plays(seen: Seen, hands: list[int]) -> Iterator[Play]:
    """Each play of another seat this hand, in order, as that seat made it holding what
    the deal `hands` gives it: (seat, its hand then, the trick's seats and cards before
    it, the cards gone then as that seat saw them, the suits each seat had shown void in,
    the card played). The voids list is updated in place as the walk goes on: read it
    before the next play."""
    trump = seen.trump
    if trump is None or not seen.played:
        return
    eff = EFFECTIVE_SUIT[trump]
    gone = seen.absent | (BIT[seen.upcard] if seen.upcard_fate == "turned_down" else 0)
    held = list(hands)  # each seat's cards before the trick being read: added back below
    for s in range(4):
        held[s] |= seen.played_by[s]
    voids = [0, 0, 0, 0]
    tricks = [(seats, cards) for seats, cards, _ in seen.tricks]
    if seen.trick_cards:
        tricks.append((seen.trick_seats, seen.trick_cards))
    for seats, cards in tricks:
        led = eff[cards[0]]
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            if s != seen.seat:
                yield s, held[s], seats[:i], cards[:i], gone, voids, c
            held[s] &= ~BIT[c]
            if eff[c] != led:
                voids[s] |= 1 << led
        for c in cards:
            gone |= BIT[c]


def rules_card(
    seen: Seen,
    s: int,
    hand: int,
    trick_seats: list[int],
    trick_cards: list[int],
    gone: int,
    voids: list[int],
) -> int:
    """The card the Medium rules play for seat s holding `hand` at this point."""
    trump = seen.trump
    cards = cards_of(hand)
    legal = cards
    if trick_cards:
        eff = EFFECTIVE_SUIT[trump]
        led = eff[trick_cards[0]]
        legal = [c for c in cards if eff[c] == led] or cards
    on_table = 0
    for c in trick_cards:
        on_table |= BIT[c]
    return P.choose_card(
        s, hand, legal, trump, seen.maker, trick_seats, trick_cards,
        seen.trick_size, gone | on_table, voids, seen.alone,
    )  # fmt: skip
