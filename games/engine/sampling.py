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

from .actions import PASS_ACTION, action_from_dict, discard, name_suit, play
from .cards import BIT, cards_of, deck_mask, mask_of
from .deal import validate_deck
from .errors import RuleError
from .options import Options
from .seen import Seen
from .state import DEAL, DISCARD, FARM, NAME_SUIT, REDEAL, MatchState


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
        if s == seat:
            continue
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
    kitty_cards = cards_of(kitty_mask)

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
                discarded = next(c for c in kitty_cards if c != upcard)
            if not kitty_mask & BIT[discarded]:
                raise RuleError("inconsistent_sample", "The dealer's discard is not in the kitty.")
            dealt[dealer] |= BIT[discarded]
        if not (dealt[dealer] & BIT[upcard]):
            raise RuleError("inconsistent_sample", "The dealer picked up the upcard but lacks it.")
        dealt[dealer] &= ~BIT[upcard]
        deal_kitty = [c for c in kitty_cards if c != discarded]
    else:
        if not kitty_mask & BIT[upcard]:
            raise RuleError("inconsistent_sample", "The upcard is not in the kitty.")
        deal_kitty = [c for c in kitty_cards if c != upcard]
    deck: list[int] = []
    for i in range(4):
        deck.extend(cards_of(dealt[(dealer + 1 + i) % 4]))
    deck.append(upcard)
    deck.extend(deal_kitty)

    state = MatchState(Options.from_dict(seen.options), first_dealer=dealer)
    state.scores = list(seen.scores)
    state.hand_number = seen.hand_number - 1

    def declarations() -> None:
        # The variants' steps, which the view does not list as bids: the joker upcard's
        # suit as named; a farmer's hand or a redeal that the hands rebuilt here would
        # allow is passed (the hands are already those after any exchange, and no redeal
        # was called, or the hand would not be in play), up to where the view is.
        while state.phase in (NAME_SUIT, FARM, REDEAL) and (
            state.phase != seen.phase or state.turn != seen.turn
        ):
            if state.phase == NAME_SUIT:
                state.apply_action(state.turn, name_suit(seen.upcard_suit))
            else:
                state.apply_action(state.turn, PASS_ACTION)

    try:
        state.deal(validate_deck(deck, joker))
        declarations()
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
    last = seen.last_hand
    state.last_hand = (
        {k: (v[:] if isinstance(v, list) else v) for k, v in last.items()} if last else None
    )
    if state.phase != seen.phase or state.turn != seen.turn:
        raise RuleError("inconsistent_sample", "The replayed hand is not where the view is.")
    return state


def with_hands(template: MatchState, hands: Sequence[int], kitty: Sequence[int]) -> MatchState:
    """A copy of `template` (a state from state_from_view) whose hands are the card
    bitmasks `hands` and whose kitty is `kitty`. The caller keeps every card that is
    public or the viewer's where the template has it; only hidden cards may move.
    (Its `deck` still records the template's deal: it is for playouts, not replays.)"""
    state = template.clone()
    state.hands = list(hands)
    state.kitty = list(kitty)
    state._legal = None
    return state
