"""One seat's view, read back into card ints and bitmasks: what that seat knows.

`read_view(view)` turns a `player_view` dict into a `Seen`: the seat's cards,
the cards gone, the suits each seat showed void in (it failed to follow), where
the known cards are (the upcard the dealer took is in the dealer's hand until
played; a turned-down upcard and the seat's own discard are in the kitty), and
how many unknown cards each other seat and the kitty hold. "The kitty" here is
every card in no hand and not played: the nines and tens of a farmer's exchange
under way (put out, not yet under the upcard) count in it.

What the variants' decisions show is read too: the dealer naming a joker upcard's
suit has not looked at its cards (its own five are unknown to it, `hand_hidden`);
a seat asked about a farmer's hand holds three or more nines and tens, and the
kitty holds the nines and tens a farmer put out (`low_need`); a seat asked about
a redeal holds only nines and tens that are not trump (`allowed`). The computer players
read a view once, into a `Seen`, and decide from it; `state_from_view`
(sampling.py) rebuilds an engine state from the same `Seen`.

For views the engine made (`player_view`): it trusts its input and checks
nothing, for speed. Nothing here sees more than the view.
"""

from dataclasses import dataclass
from typing import Any

from .cards import (
    BIT,
    CARD_BY_TEXT,
    EFFECTIVE_SUIT,
    JOKER,
    LOW_MASK,
    SUIT_BY_LETTER,
    SUIT_MASK,
    deck_mask,
)

ANY = deck_mask(True)  # every card there is, the joker too


@dataclass(slots=True)
class Seen:
    seat: int
    phase: str
    dealer: int
    turn: int | None
    hand_number: int
    hand: int  # bitmask of the seat's cards
    upcard: int
    upcard_fate: str
    upcard_suit: int | None  # the upcard's suit (a joker upcard's: named or fixed)
    turned_down: int | None
    trump: int | None
    maker: int | None
    alone: int | None  # the seat playing alone
    discarded: bool  # the dealer has discarded
    out: tuple[bool, ...]
    trick_seats: list[int]
    trick_cards: list[int]
    tricks: list[tuple[list[int], list[int], int]]
    tricks_won: list[int]
    played: int  # every card played this hand, the current trick included
    played_by: list[int]
    gone: int  # played, or known to be in the kitty
    voids: list[int]  # per seat, a bitmask of the effective suits it showed void in
    sizes: list[int]
    bids: list[dict[str, Any]]
    bid_phases: list[str]  # per bid: "bid1", "bid2" or "defend" (see bid_phases)
    legal: list[dict[str, Any]]
    scores: list[int]
    options: dict[str, Any]
    last_hand: dict[str, Any] | None
    my_discard: int | None
    known: list[int]  # per seat, cards known to be in its hand (its own hand for the seat)
    kitty_known: int
    unknown: int  # the cards whose place the seat does not know
    need: list[int]  # per seat, how many unknown cards it holds
    kitty_need: int
    deck_size: int = 24  # 25 with the joker
    absent: int = 0  # cards not in this match's deck (the joker's bit without the joker)
    farmer: int | None = None  # the seat that exchanged a farmer's hand
    my_farm: tuple[int, int] | None = None  # the farmer's own: (gave, got) as bitmasks
    # The same cards in the order of the exchange (the view's order), for a rebuild.
    my_farm_cards: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    farming: int = 0  # nines and tens put out so far in an exchange under way (by `turn`)
    # The seat's own cards are not shown: the dealer naming a joker upcard's suit. They
    # are unknown to it like any other (need[seat] of them).
    hand_hidden: bool = False
    # Per holder (the four seats, then the kitty): how many of its unknown cards are
    # at least nines or tens (a seat asked about a farmer's hand; a farmer's put out).
    low_need: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    # Per seat, the cards it may hold (ANY: any; a seat asked about a redeal: only
    # nines and tens that are not trump).
    allowed: tuple[int, int, int, int] = (ANY, ANY, ANY, ANY)

    @property
    def trick_size(self) -> int:
        return 4 - sum(self.out)


def bid_phases(bids: list[dict[str, Any]]) -> list[str]:
    """The phase each of a hand's bids (the view's `hand.bids`) was made in.

    The view lists round-one bids, round-two bids and the defenders' decisions
    (with the defending_alone option) in one list, and a defender declining to
    defend alone is a "pass" like any other. Bidding runs as the engine runs it:
    round one until four passes, then round two; the bid that makes trump (an
    order up or a call) ends it, and every entry after it is a defend decision."""
    phases = []
    phase, passes = "bid1", 0
    for bid in bids:
        phases.append(phase)
        kind = bid["type"]
        if phase == "defend":
            continue
        if kind == "pass":
            passes += 1
            if phase == "bid1" and passes == 4:
                phase, passes = "bid2", 0
        else:  # order_up or call: trump is made, the defenders decide next
            phase = "defend"
    return phases


def read_view(view: dict[str, Any]) -> Seen:
    """What the seat of `view` (a player_view with a hand in play) knows."""
    hand = view["hand"]
    seat = view["seat"]
    dealer = view["dealer"]
    phase = view["phase"]
    turn = view["turn"]
    my_cards = [CARD_BY_TEXT[c] for c in hand["cards"]]
    my_mask = 0
    for c in my_cards:
        my_mask |= BIT[c]
    trump = SUIT_BY_LETTER[hand["trump"]] if hand["trump"] else None
    turned_down = SUIT_BY_LETTER[hand["turned_down"]] if hand["turned_down"] else None
    upcard = CARD_BY_TEXT[hand["upcard"]]
    fate = hand["upcard_fate"]
    options = view["options"]
    joker = options.get("joker", False)
    everything = deck_mask(joker)
    absent = 0 if joker else BIT[JOKER]
    if "upcard_suit" in hand:
        upcard_suit = SUIT_BY_LETTER[hand["upcard_suit"]] if hand["upcard_suit"] else None
    else:
        upcard_suit = upcard // 6
    out = tuple(s in hand["sitting_out"] for s in range(4))

    played = 0
    played_by = [0, 0, 0, 0]
    voids = [0, 0, 0, 0]
    tricks = []
    eff = EFFECTIVE_SUIT[trump] if trump is not None else None

    def note(seats: list[int], cards: list[int]) -> None:
        nonlocal played
        led = eff[cards[0]]
        for s, c in zip(seats, cards, strict=True):
            played |= BIT[c]
            played_by[s] |= BIT[c]
            if eff[c] != led:
                voids[s] |= 1 << led

    for trick in hand["tricks"]:
        seats = [p["seat"] for p in trick["cards"]]
        cards = [CARD_BY_TEXT[p["card"]] for p in trick["cards"]]
        tricks.append((seats, cards, trick["winner"]))
        note(seats, cards)
    trick_seats = [p["seat"] for p in hand["current_trick"]]
    trick_cards = [CARD_BY_TEXT[p["card"]] for p in hand["current_trick"]]
    if trick_cards:
        note(trick_seats, trick_cards)

    known = [0, 0, 0, 0]
    known[seat] = my_mask
    kitty_known = 0
    my_discard = CARD_BY_TEXT[hand["my_discard"]] if hand.get("my_discard") else None
    sizes = list(hand["hand_sizes"])
    # The dealer asked about a redeal holds no trump: it threw the upcard away.
    asked_redeal = phase == "redeal" and turn != seat
    if fate == "picked_up":
        # The dealer keeps the upcard until it plays it. It could have discarded it,
        # which no one else sees: that is assumed only once the dealer has no cards
        # left or has shown it holds no trump.
        if seat != dealer and not played & BIT[upcard]:
            dealer_showed_none = voids[dealer] >> trump & 1 or (asked_redeal and turn == dealer)
            if sizes[dealer] and not dealer_showed_none:
                known[dealer] |= BIT[upcard]
            else:
                kitty_known |= BIT[upcard]
        if my_discard is not None:
            kitty_known |= BIT[my_discard]
    else:
        kitty_known |= BIT[upcard]
    my_farm = my_farm_cards = None
    farmer = hand.get("farmer")
    # An exchange under way: the seat to act has put out some of its nines and tens (no
    # card is played and no upcard picked up before the bidding, so its hand is short).
    farming = 5 - sizes[turn] if phase == "farm" and turn is not None else 0
    if "my_farm" in hand:  # the farmer knows the cards it put out and took
        gave_cards = tuple(CARD_BY_TEXT[c] for c in hand["my_farm"]["gave"])
        got_cards = tuple(CARD_BY_TEXT[c] for c in hand["my_farm"]["got"])
        gave = got = 0
        for c in gave_cards:
            gave |= BIT[c]
        for c in got_cards:
            got |= BIT[c]
        my_farm = (gave, got)
        my_farm_cards = (gave_cards, got_cards)
        # Out of its hand: under the upcard once the exchange is done, set aside before.
        kitty_known |= gave
    hand_hidden = bool(hand.get("cards_hidden"))
    kitty_size = (24 + joker) - sum(sizes) - played.bit_count()
    unknown = everything & ~played & ~kitty_known
    for s in range(4):
        unknown &= ~known[s]
    need = [sizes[s] - known[s].bit_count() for s in range(4)]
    if not hand_hidden:
        need[seat] = 0
    kitty_need = kitty_size - kitty_known.bit_count()
    low_need = [0, 0, 0, 0, 0]
    allowed = [ANY, ANY, ANY, ANY]
    put_out = 3 if farmer is not None else farming
    if put_out and my_farm is None:  # another seat's exchange: nines and tens went under
        low_need[4] = put_out
    if phase == "farm" and turn != seat:  # asked: three nines and tens, less those put out
        low_need[turn] = 3 - farming
    if asked_redeal:  # asked: no ace, no face, no trump (the joker is a trump)
        allowed[turn] = LOW_MASK & ~SUIT_MASK[trump][trump]
    return Seen(
        seat=seat,
        phase=phase,
        dealer=dealer,
        turn=turn,
        hand_number=view["hand_number"],
        hand=my_mask,
        upcard=upcard,
        upcard_fate=fate,
        upcard_suit=upcard_suit,
        turned_down=turned_down,
        trump=trump,
        maker=hand["maker"],
        alone=hand["alone"],
        discarded=hand["discarded"],
        out=out,
        trick_seats=trick_seats,
        trick_cards=trick_cards,
        tricks=tricks,
        tricks_won=list(hand["tricks_won"]),
        played=played,
        played_by=played_by,
        gone=played | kitty_known | (BIT[upcard] if fate == "turned_down" else 0),
        voids=voids,
        sizes=sizes,
        bids=hand["bids"],
        bid_phases=bid_phases(hand["bids"]),
        legal=view["legal_actions"],
        scores=list(view["scores"]),
        options=options,
        last_hand=view.get("last_hand"),
        my_discard=my_discard,
        known=known,
        kitty_known=kitty_known,
        unknown=unknown,
        need=need,
        kitty_need=kitty_need,
        deck_size=24 + joker,
        absent=absent,
        farmer=farmer,
        my_farm=my_farm,
        my_farm_cards=my_farm_cards,
        farming=farming,
        hand_hidden=hand_hidden,
        low_need=tuple(low_need),
        allowed=tuple(allowed),
    )
