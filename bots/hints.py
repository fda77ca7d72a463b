"""Hints: the Hard player's choice for a seat, with a sentence a person understands.

    recommend(view, rng) -> {"action": {...}, "explanation": "order it up: you hold ..."}

The action is what the Hard search (bots/players/hard.py) picks for the view
(with a somewhat larger budget than a computer seat's); the explanation names
the cards and the reason that matter for that kind of decision: the trumps and
side aces that make a bid, the void a discard makes, the partner already
winning a trick, the lowest card that wins, the highest trump left.
"""

import random
from typing import Any

from games.engine import (
    CARD_BY_TEXT,
    EFFECTIVE_SUIT,
    JOKER,
    LOW_MASK,
    RANK_NAMES,
    STRENGTH,
    SUIT_BY_LETTER,
    SUIT_NAMES,
    Seen,
    card_name,
    cards_of,
    same_color,
)

from . import policy as P
from .players.hard import Budget, search

HINT_BUDGET = Budget(samples=96, playouts=480)


def join_names(names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def trump_card_name(c: int, trump: int) -> str:
    if c == JOKER:
        return "the joker (the best bower)"
    if c == P.RIGHT[trump]:
        return "the right bower"
    if c == P.LEFT[trump]:
        return "the left bower"
    return f"the {RANK_NAMES[c % 6]} of trump"


def strengths(hand: int, trump: int) -> list[str]:
    """The cards that make a hand worth bidding with `trump`: trumps (high to low) and
    side aces."""
    eff = EFFECTIVE_SUIT[trump]
    power = P.POWER[trump]
    trumps = sorted((c for c in cards_of(hand) if eff[c] == trump), key=power.__getitem__)
    names = [trump_card_name(c, trump) for c in reversed(trumps)]
    names += [card_name(c) for c in cards_of(hand) if eff[c] != trump and power[c] == 6]
    return names


def _count_trumps(hand: int, trump: int) -> int:
    return (hand & P.TRUMPS[trump]).bit_count()


def _holding(hand: int, trump: int) -> str:
    names = strengths(hand, trump)
    return f"you hold {join_names(names)}" if names else "you hold no trump"


def explain(seen: Seen, action: dict[str, Any]) -> str:
    kind = action["type"]
    if seen.phase in ("name_suit", "farm", "redeal"):
        return _explain_variant(seen, action)
    if seen.phase == "bid1":
        return _explain_bid1(seen, action)
    if seen.phase == "bid2":
        return _explain_bid2(seen, action)
    if kind == "discard":
        return _explain_discard(seen, CARD_BY_TEXT[action["card"]])
    if kind == "play":
        return _explain_play(seen, CARD_BY_TEXT[action["card"]])
    if kind == "defend_alone":
        return f"defend alone: {_holding(seen.hand, seen.trump)}, enough to euchre the makers alone"
    return "pass: defending alone rarely pays; let your partner help"


def _explain_variant(seen: Seen, action: dict[str, Any]) -> str:
    kind = action["type"]
    if kind == "name_suit":
        suit = SUIT_NAMES[SUIT_BY_LETTER[action["suit"]]]
        return (
            f"name {suit}: the joker was turned up, and you name its suit before looking "
            "at your cards, so every suit is as good a guess"
        )
    if kind == "farm":
        return (
            f"put out {card_name(CARD_BY_TEXT[action['card']])}: a farmer's hand of nines and "
            "tens rarely takes a trick, and the three cards under the upcard are better "
            "on average; nines go first, from the shortest suit"
        )
    if seen.phase == "farm" and kind in ("redeal", "pass") and _farm_redeal(seen):
        return _explain_farm_redeal(seen, kind)
    if kind == "redeal":
        return (
            "call a redeal: you hold no ace, no face card and no trump, and the other side "
            "made trump, so throwing the hand in takes their point away"
        )
    if seen.phase == "redeal":
        return (
            "let the hand stand: your partner made trump counting on no help from you, "
            "and a redeal would throw away their point"
        )
    return "pass"


def _farm_redeal(seen: Seen) -> bool:
    """A farmer's hand in the redeal form: it may ask for a new deal, not exchange."""
    return seen.options.get("farmers_hand_form") == "redeal"


def _explain_farm_redeal(seen: Seen, kind: str) -> str:
    lows = (seen.hand & LOW_MASK).bit_count()
    if kind == "redeal":
        return (
            f"ask for a new deal: {lows} of your cards are nines and tens, a hand not worth "
            "a bid that rarely takes a trick; a new deal starts even"
        )
    return (
        f"keep your hand: for all its {lows} nines and tens it is worth a bid, so play it "
        "rather than ask for a new deal"
    )


def _explain_bid1(seen: Seen, action: dict[str, Any]) -> str:
    trump = seen.upcard_suit
    suit = SUIT_NAMES[trump]
    pos = (seen.seat - seen.dealer) % 4
    up = card_name(seen.upcard)
    if action["type"] == "order_up":
        if pos == 0:
            hand = P.after_pickup(seen.hand, seen.upcard, trump)
            words = f"pick it up: with {up} {_holding(hand, trump)}"
        else:
            words = f"order it up: {_holding(seen.hand, trump)}"
            if pos == 2:
                words += f", and your partner the dealer gets {up}"
        if action.get("alone"):
            words += "; go alone, your hand can take all five tricks"
        return words
    if pos == 0:
        hand = P.after_pickup(seen.hand, seen.upcard, trump)
        return (
            f"turn it down: even after picking up {up}, {_holding(hand, trump)}, "
            f"not enough to make {suit} trump"
        )
    count = _count_trumps(seen.hand, trump)
    if count == 0:
        reason = f"you hold no {suit}"
    elif count == 1:
        reason = f"with only one {suit[:-1]} in your hand, {suit} are not worth making trump"
    else:
        reason = f"{_holding(seen.hand, trump)}, not enough to make {suit} trump"
    if pos in (1, 3):
        reason += f", and ordering it up would give {up} to the dealer, an opponent"
    return "pass: " + reason


def _explain_bid2(seen: Seen, action: dict[str, Any]) -> str:
    if action["type"] == "pass":
        return "pass: no suit is strong enough in your hand"
    trump = SUIT_BY_LETTER[action["suit"]]
    suit = SUIT_NAMES[trump]
    stuck = not any(a["type"] == "pass" for a in seen.legal)
    nxt = trump == same_color(seen.turned_down)
    words = f"call {suit}"
    if nxt:
        words += " (next, the same colour as the card turned down)"
    words += ": " + _holding(seen.hand, trump)
    if stuck:
        words = f"you must name a suit, and {suit} is your best: " + _holding(seen.hand, trump)
    if action.get("alone"):
        words += "; go alone, your hand can take all five tricks"
    return words


def _explain_discard(seen: Seen, c: int) -> str:
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump]
    if eff[c] == trump:
        return f"discard {card_name(c)}: every other card is a trump or an ace worth keeping"
    same = [d for d in cards_of(seen.hand) if eff[d] == eff[c]]
    if len(same) == 1:
        return f"discard {card_name(c)} to be void in {SUIT_NAMES[eff[c]]}, ready to trump them"
    return f"discard {card_name(c)}: your lowest card outside trump"


def _explain_play(seen: Seen, c: int) -> str:
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump]
    higher = P.HIGHER[trump]
    live = P.ALL & ~seen.gone & ~seen.absent & ~seen.hand
    name = card_name(c)
    if len(seen.legal) == 1:
        return f"play {name}: it is the only card you may play"
    if not seen.trick_cards:
        if eff[c] == trump:
            if not higher[c] & live:
                return f"lead {name}: it is the highest trump left, to draw out the others' trumps"
            return f"lead {name} to draw out the opponents' trumps"
        if not higher[c] & live:
            return f"lead {name}: it is the highest {SUIT_NAMES[eff[c]][:-1]} left"
        return f"lead {name}: a low card, keeping your strong cards for later"
    led = eff[seen.trick_cards[0]]
    st = STRENGTH[trump][led]
    best_i = max(range(len(seen.trick_cards)), key=lambda i: st[seen.trick_cards[i]])
    best = st[seen.trick_cards[best_i]]
    winner = seen.trick_seats[best_i]
    partner_winning = (winner - seen.seat) % 4 == 2
    legal = [CARD_BY_TEXT[a["card"]] for a in seen.legal]
    if st[c] > best:
        if partner_winning:
            return f"play {name}: it makes sure of the trick your partner is winning"
        if eff[c] == trump and led != trump:
            return f"trump it with {name}: you have no {SUIT_NAMES[led]}"
        winners = [d for d in legal if st[d] > best]
        if c == min(winners, key=P.POWER[trump].__getitem__):
            return f"play {name}: the lowest card that wins the trick"
        return f"play {name}: it wins the trick and no card left can beat it"
    if partner_winning:
        return f"play {name}: your partner is already winning the trick"
    if not any(st[d] > best for d in legal):
        return f"play {name}: you cannot win this trick, so throw your lowest card"
    return f"play {name}: save your winners for a later trick"


def recommend(
    view: dict[str, Any], rng: random.Random, budget: Budget = HINT_BUDGET
) -> dict[str, Any]:
    """The action Hard would take at this seat and why. The view must be the seat's
    own, on its turn (it has legal actions)."""
    if not view.get("legal_actions"):
        raise ValueError("a hint is given only to the seat whose turn it is")
    result = search(view, rng, budget)
    action = result.action
    return {"action": action, "explanation": explain(result.seen, action)}
