"""Engine states rebuilt from one seat's view and a guess at the cards it cannot see.

The computer players that search (bots/players/hard.py) deal out the hidden
cards in many ways that agree with what their seat has seen, and play each deal
out on a real engine state. This module makes those states.

    state = state_from_view(read_view(view), hidden_hands={1: [...], 2: [...], 3: [...]})

`hidden_hands[s]` is every card seat s holds now, for every seat but the
viewer's (the dealer's includes the upcard it picked up and has not played);
`kitty` is the cards in the kitty now (if omitted: whatever card is in no hand
and was not played). The state is built by replaying the hand through the
engine's own `deal` and `apply_action` from the deck that would have dealt
those hands, so every internal field (trick order, who sits out, trump tables,
the legal-actions cache) is what the engine itself would have set. The one
thing a seat cannot know is which kitty card the dealer discarded; any kitty
card other than the upcard is used, which changes nothing in the play.

`with_hands(template, hands, kitty)` gives a copy of a rebuilt state with other
hidden cards, without replaying: for many samples of the same position.
"""

from collections.abc import Mapping, Sequence

from .actions import PASS_ACTION, action_from_dict, discard, farm, name_suit, play
from .cards import BIT, CARD_BY_TEXT, LOW_MASK, cards_of, deck_mask, mask_of
from .deal import validate_deck
from .errors import RuleError
from .options import Options
from .seen import Seen
from .state import (
    DEAL,
    DISCARD,
    FARM,
    NAME_SUIT,
    REDEAL,
    MatchState,
    farmers_hand,
    no_ace_no_face_no_trump,
)


def state_from_view(
    seen: Seen,
    hidden_hands: Mapping[int, Sequence[int]],
    kitty: Sequence[int] | None = None,
) -> MatchState:
    """A MatchState agreeing with the view `seen` (read_view) in everything public and
    in the viewer's cards, with the other seats holding `hidden_hands`.
    RuleError('inconsistent_sample') if the cards given cannot be the rest of that hand."""
    seat = seen.seat
    if seen.phase == DEAL:
        raise RuleError("inconsistent_sample", "There is no hand in play to rebuild.")
    dealer = seen.dealer
    upcard = seen.upcard
    sizes = seen.sizes

    current = [0, 0, 0, 0]
    current[seat] = seen.hand
    for s, cards in hidden_hands.items():
        if s == seat and not seen.hand_hidden:
            continue  # the viewer's own cards are the view's
        current[s] = mask_of(list(cards))
        if current[s].bit_count() != len(cards):
            raise RuleError("inconsistent_sample", f"Seat {s} is given a card twice.")
    for s in range(4):
        if current[s].bit_count() != sizes[s]:
            raise RuleError(
                "inconsistent_sample",
                f"Seat {s} holds {sizes[s]} cards, not {current[s].bit_count()}.",
            )

    # Every card played this hand, in order: the tricks, then the current trick.
    plays: list[tuple[int, int]] = []
    for seats, cards, _winner in seen.tricks:
        plays.extend(zip(seats, cards, strict=True))
    plays.extend(zip(seen.trick_seats, seen.trick_cards, strict=True))
    played_by = seen.played_by
    played = seen.played

    held = 0
    for s in range(4):
        if held & current[s] or played & current[s]:
            raise RuleError("inconsistent_sample", "A card is in two places.")
        held |= current[s]
    joker = bool(seen.options.get("joker", False))
    rest = deck_mask(joker) & ~held & ~played
    if kitty is None:
        kitty_mask = rest
    else:
        kitty_mask = mask_of(list(kitty))
        if kitty_mask != rest:
            raise RuleError("inconsistent_sample", "The kitty is not the cards left over.")

    # A farmer's exchange, done (by seen.farmer) or under way (by the seat to act): the
    # nines and tens it put out are among the kitty's cards, what it took in its hand.
    farmer, count = (seen.farmer, 3) if seen.farmer is not None else (seen.turn, seen.farming)
    if not count:
        farmer = None
    gave: tuple[int, ...] = ()
    got: tuple[int, ...] = ()
    if farmer is not None:
        if seen.my_farm_cards is not None:  # the farmer itself: it knows both
            gave, got = seen.my_farm_cards
        else:  # another seat: any nines and tens of the kitty will do
            mine = BIT[seen.my_discard] if seen.my_discard is not None else 0
            lows = cards_of(kitty_mask & LOW_MASK & ~BIT[upcard] & ~mine)
            gave = tuple(lows[:count])
        if len(gave) != count or any(not kitty_mask & BIT[c] for c in gave):
            raise RuleError("inconsistent_sample", "The farmer's nines and tens are not out.")
    gave_mask = mask_of(list(gave))
    kitty_cards = cards_of(kitty_mask & ~gave_mask)

    # The hands as dealt: what each seat holds now plus what it has played.
    dealt = [current[s] | played_by[s] for s in range(4)]
    discarded: int | None = None
    if seen.upcard_fate == "picked_up":
        if seen.discarded:
            if seat == dealer and seen.my_discard is not None:
                discarded = seen.my_discard
            elif not dealt[dealer] & BIT[upcard]:
                discarded = upcard  # the dealer threw the upcard away
            else:
                discarded = next((c for c in kitty_cards if c != upcard), None)
            if discarded is None or not kitty_mask & ~gave_mask & BIT[discarded]:
                raise RuleError("inconsistent_sample", "The dealer's discard is not in the kitty.")
            dealt[dealer] |= BIT[discarded]
        if not (dealt[dealer] & BIT[upcard]):
            raise RuleError("inconsistent_sample", "The dealer picked up the upcard but lacks it.")
        dealt[dealer] &= ~BIT[upcard]
        under = [c for c in kitty_cards if c != discarded]
    else:
        if not kitty_mask & BIT[upcard]:
            raise RuleError("inconsistent_sample", "The upcard is not in the kitty.")
        under = [c for c in kitty_cards if c != upcard]
    if farmer is not None:
        if not got and seen.farmer is not None:  # another seat's exchange: any three it holds
            got = tuple(cards_of(dealt[farmer])[:3])
        got_mask = mask_of(list(got))
        if got_mask & ~dealt[farmer] or got_mask & gave_mask:
            raise RuleError("inconsistent_sample", "The farmer does not hold what it took.")
        # As dealt: the nines and tens back in its hand, the three it took under the upcard.
        dealt[farmer] = dealt[farmer] & ~got_mask | gave_mask
        under = [*got, *(c for c in under if c not in got)]
    deck: list[int] = []
    for i in range(4):
        hand = dealt[(dealer + 1 + i) % 4]
        if hand.bit_count() != 5:
            raise RuleError("inconsistent_sample", "A seat would have been dealt other than five.")
        deck.extend(cards_of(hand))
    deck.append(upcard)
    deck.extend(under)

    state = MatchState(Options.from_dict(seen.options), first_dealer=dealer)
    state.scores = list(seen.scores)
    state.hand_number = seen.hand_number - 1

    def exchange(cards: Sequence[int]) -> None:
        for c in cards:
            state.apply_action(farmer, farm(c))

    def declarations() -> None:
        # The variants' steps, which the view does not list as bids: the joker upcard's
        # suit as named; the farmer's exchange; a farmer's hand or a redeal that the
        # hands rebuilt here would allow and no one took is passed (no redeal was called,
        # or the hand would not be in play), up to where the view is.
        while state.phase in (NAME_SUIT, FARM, REDEAL) and (
            state.phase != seen.phase or state.turn != seen.turn
        ):
            if state.phase == NAME_SUIT:
                state.apply_action(state.turn, name_suit(seen.upcard_suit))
            elif state.phase == FARM and state.turn == farmer:
                exchange(gave)
            else:
                state.apply_action(state.turn, PASS_ACTION)

    try:
        state.deal(validate_deck(deck, joker))
        declarations()
        if seen.farming:  # the exchange under way: the cards put out so far
            exchange(gave)
        for bid in seen.bids:
            if state.phase == DISCARD:
                state.apply_action(dealer, discard(discarded))
            declarations()
            action = action_from_dict({k: v for k, v in bid.items() if k != "seat"})
            state.apply_action(bid["seat"], action)
        if state.phase == DISCARD and discarded is not None:
            state.apply_action(dealer, discard(discarded))
        declarations()
        for s, c in plays:
            state.apply_action(s, play(c))
    except RuleError as error:
        raise RuleError(
            "inconsistent_sample", f"The hand does not replay with these cards: {error.message}"
        ) from error
    state.last_hand, state.last_farm = _last_hand(seen)
    if state.phase != seen.phase or state.turn != seen.turn:
        raise RuleError("inconsistent_sample", "The replayed hand is not where the view is.")
    return state


def _last_hand(seen: Seen) -> tuple[dict | None, tuple | None]:
    """The state's last hand and last farmer's exchange, from the view's last hand (which
    names the farmer, and shows the farmer its own cards)."""
    last = seen.last_hand
    if not last:
        return None, None
    hand = {k: (v[:] if isinstance(v, list) else v) for k, v in last.items()}
    farmer = hand.pop("farmer", None)
    mine = hand.pop("my_farm", None)
    if farmer is None:
        return hand, None
    gave = tuple(CARD_BY_TEXT[c] for c in mine["gave"]) if mine else ()
    got = tuple(CARD_BY_TEXT[c] for c in mine["got"]) if mine else ()
    return hand, (farmer, gave, got)


def with_hands(template: MatchState, hands: Sequence[int], kitty: Sequence[int]) -> MatchState:
    """A copy of `template` (a state from state_from_view) whose hands are the card
    bitmasks `hands` and whose kitty is `kitty` (as for state_from_view: every card in
    no hand and not played). The caller keeps every card that is public or the viewer's
    where the template has it; only hidden cards may move. (Its `deck` and a farmer's
    exchange done still record the template's deal: it is for playouts, not replays.)"""
    state = template.clone()
    state.hands = list(hands)
    rest = list(kitty)
    if template.phase == FARM and template.farm_out:
        # An exchange under way: the cards put out so far are out of the kitty until it
        # is done; those of the template if this kitty has them (the farmer's own view
        # always does), else others of its nines and tens.
        kept = [c for c in template.farm_out if c in rest]
        others = [c for c in rest if BIT[c] & LOW_MASK and c != template.upcard and c not in kept]
        out = (kept + others)[: len(template.farm_out)]
        if len(out) < len(template.farm_out):
            raise RuleError("inconsistent_sample", "The farmer's nines and tens are not out.")
        state.farm_out = out
        rest = [c for c in rest if c not in out]
    if template.phase in (FARM, REDEAL):
        state.asking = _still_to_ask(state)
    upcard = template.upcard
    if upcard in rest:  # the upcard stays the kitty's first card: a farmer takes those under it
        rest.remove(upcard)
        rest.insert(0, upcard)
    state.kitty = rest
    state._legal = None
    return state


def _still_to_ask(state: MatchState) -> tuple[int, ...]:
    """The seats to be asked about a farmer's hand or a redeal with these hands: the seat
    asked now (the view's turn), then those after it from the dealer's left whose hands
    allow it (the template's were for its own deal)."""
    first = (state.dealer + 1) % 4
    order = [(first + i) % 4 for i in range(4)]
    later = order[order.index(state.turn) + 1 :]
    hands = state.hands
    if state.phase == FARM:
        return (state.turn, *(s for s in later if farmers_hand(hands[s])))
    trump, out = state.trump, state.out
    return (
        state.turn,
        *(s for s in later if not out[s] and no_ace_no_face_no_trump(hands[s], trump)),
    )
