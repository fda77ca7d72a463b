"""Playouts: a hand played to its end on an engine state by the rule-based policy.

The Hard player deals out the hidden cards, applies a candidate action to the
engine state (games.engine.sampling) and calls `play_out` to finish the hand:
every seat, its own included, then bids, discards and plays by the Medium
rules (bots/policy.py), reading only its own hand and the cards played, as the
Medium player would. The result is the points the hand scored for a team.
"""

from games.engine import (
    BID1,
    BID2,
    BIT,
    DISCARD,
    EFFECTIVE_SUIT,
    JOKER,
    LOW_MASK,
    PASS,
    PLAY,
    PLAY_ACTIONS,
    Action,
    MatchState,
    Seen,
    call,
    cards_of,
    discard,
    farm,
    order_up,
)

from . import policy as P

_PLAY = PLAY_ACTIONS
_PASS = PASS


def gone_for_playouts(seen: Seen) -> int:
    """The cards every seat of a playout counts as out of play from the start: those
    played, those the seat knows in the kitty (not an upcard the dealer took: the others
    cannot tell it from a discard), and those not in the match's deck (the joker of a
    24-card match; an unseen joker stays live, bots/policy.py)."""
    kitty = seen.kitty_known if seen.upcard_fate != "picked_up" else 0
    return seen.played | kitty | seen.absent


def policy_action(state: MatchState, gone: int, voids: list[int], style: P.Style) -> Action:
    """The rule-based action for the seat to move on an engine state."""
    seat = state.turn
    phase = state.phase
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if phase == PLAY:
        cards = [a.card for a in legal]
        c = P.choose_card(
            seat,
            state.hands[seat],
            cards,
            state.trump,
            state.maker,
            state.trick_seats,
            state.trick_cards,
            4 - state.out.count(True),
            gone,
            voids,
            state.maker if state.alone else None,
            style,
        )
        return _PLAY[c]
    going_alone = state.options.going_alone
    # Before the play `gone` holds the joker only when the match's deck lacks it.
    absent = gone & BIT[JOKER]
    if phase == BID1:
        order, alone = P.bid_round_one(
            state.hands[seat], state.upcard, seat, state.dealer, style, state.upcard_suit, absent
        )
        return order_up(alone and going_alone) if order else _PASS
    if phase == BID2:
        stuck = _PASS not in legal
        suit, alone = P.bid_round_two(
            state.hands[seat], state.turned_down, seat, state.dealer, stuck, style, absent
        )
        return _PASS if suit is None else call(suit, alone and going_alone)
    if phase == DISCARD:
        return discard(P.best_discard(state.hands[seat], state.trump))
    if phase == "redeal" and P.call_redeal(seat, state.maker):
        return legal[1]  # (pass, redeal)
    if phase == "name_suit":  # named before looking at the hand: any suit will do
        return legal[0]
    if phase == "farm" and state.options.farm_redeal:  # (pass, redeal)
        hand = state.hands[seat]
        ask = P.ask_for_new_deal(
            hand, state.upcard, seat, state.dealer, style, state.upcard_suit, absent
        )
        return legal[1] if ask else _PASS
    if phase == "farm":  # the rules always exchange a farmer's hand
        hand = state.hands[seat]
        return farm(P.farm_out(hand, cards_of(hand & LOW_MASK)))
    return _PASS  # defending alone: the rules never do; a redeal the rules let stand


def play_out(state: MatchState, gone: int, voids: list[int], style: P.Style = P.MEDIUM) -> None:
    """Play `state` to the end of the hand (it is changed in place). `gone`: the cards
    publicly out of play so far; `voids`: the suits each seat showed void in (copied)."""
    voids = list(voids)
    while state.turn is not None and state.phase != "deal":
        seat = state.turn
        action = policy_action(state, gone, voids, style)
        if state.phase == PLAY:
            c = action.card
            if state.trick_cards:
                eff = EFFECTIVE_SUIT[state.trump]
                led = eff[state.trick_cards[0]]
                if eff[c] != led:
                    voids[seat] |= 1 << led
            gone |= BIT[c]
        elif state.phase == BID1 and action is _PASS and state.passes == 3:
            gone |= BIT[state.upcard]  # about to be turned down
        state.apply_action(seat, action)
