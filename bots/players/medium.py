"""Medium: sound rule-based play (the rules are in bots/policy.py)."""

import random
from typing import Any

from games.engine import CARD_BY_TEXT, LOW_MASK, Seen, card_str, cards_of, read_view, suit_str

from .. import policy as P


def find(legal: list[dict[str, Any]], **wanted: Any) -> dict[str, Any] | None:
    """The legal action with these fields, or None."""
    for action in legal:
        if all(action.get(k) == v for k, v in wanted.items()):
            return action
    return None


def bid_action(seen: Seen, style: P.Style) -> dict[str, Any]:
    """Round one, round two and defending-alone decisions by the rules, and the
    variants' decisions (a joker upcard's suit, a farmer's hand, a redeal)."""
    legal = seen.legal
    if seen.phase == "bid1":
        order, alone = P.bid_round_one(
            seen.hand, seen.upcard, seen.seat, seen.dealer, style, seen.upcard_suit, seen.absent
        )
        if order:
            return find(legal, type="order_up", alone=alone) or find(legal, type="order_up")
        return find(legal, type="pass")
    if seen.phase == "bid2":
        stuck = find(legal, type="pass") is None
        suit, alone = P.bid_round_two(
            seen.hand, seen.turned_down, seen.seat, seen.dealer, stuck, style, seen.absent
        )
        if suit is None:
            return find(legal, type="pass")
        return find(legal, type="call", suit=suit_str(suit), alone=alone) or find(
            legal, type="call", suit=suit_str(suit)
        )
    if seen.phase == "name_suit":  # named before looking at the hand: any suit will do
        return legal[0]
    if seen.phase == "farm" and find(legal, type="redeal"):  # the redeal form
        ask = P.ask_for_new_deal(
            seen.hand, seen.upcard, seen.seat, seen.dealer, style, seen.upcard_suit, seen.absent
        )
        return find(legal, type="redeal" if ask else "pass")
    if seen.phase == "farm":
        card = P.farm_out(seen.hand, cards_of(seen.hand & LOW_MASK))
        return find(legal, type="farm", card=card_str(card))
    if seen.phase == "redeal":
        return find(legal, type="redeal" if P.call_redeal(seen.seat, seen.maker) else "pass")
    return find(legal, type="pass") or legal[0]  # defending alone: Medium never does


def play_card(seen: Seen, style: P.Style, gone: int | None = None) -> int:
    """The rules' card. `gone`: the cards the player counts as out of play (Easy: only
    the current trick's); a card not in the match's deck always is (the joker of a
    24-card match), an unseen joker never is."""
    legal = [CARD_BY_TEXT[a["card"]] for a in seen.legal]
    return P.choose_card(
        seen.seat,
        seen.hand,
        legal,
        seen.trump,
        seen.maker,
        seen.trick_seats,
        seen.trick_cards,
        seen.trick_size,
        (seen.gone if gone is None else gone) | seen.absent,
        seen.voids,
        seen.alone,
        style,
    )


def rule_action(view: dict[str, Any], style: P.Style = P.MEDIUM) -> dict[str, Any]:
    """The rule-based action for a view (deterministic)."""
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    return seen_rule_action(read_view(view), style)


def seen_rule_action(seen: Seen, style: P.Style = P.MEDIUM) -> dict[str, Any]:
    """The rule-based action for a view already read (read_view); the same as rule_action."""
    if len(seen.legal) == 1:
        return seen.legal[0]
    if seen.phase == "discard":
        card = P.best_discard(seen.hand, seen.trump)
        return {"type": "discard", "card": card_str(card)}
    if seen.phase == "play":
        return {"type": "play", "card": card_str(play_card(seen, style))}
    return bid_action(seen, style)


def medium_player(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Medium: the rules in bots/policy.py, the same every time for the same view."""
    return rule_action(view)
