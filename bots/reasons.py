"""Why a choice the review flags was worse than the best one, in a few words, from what
the seat knew then (its `Seen`: its own cards, the cards played, the upcard, who made
trump, the suits seats showed out of; never a hidden card).

    reason(seen, chosen, best) -> "your partner had shown out of clubs"  (or "")

`REASONS` is the table: each rule compares the chosen action with the best one and
answers the words of its reason, or "" when it does not apply; the first that applies is
the reason (bots/review.py `sentence` puts it after "... gave up about 0.6 points: ").
The common mistakes each have a rule: a lead into a suit a seat showed out of, making
trump with a weak hand, passing a strong one, going alone or not, overtaking a partner
who was winning the trick, not winning a trick that could be won, discarding a card that
was needed (a trump, the best card left of its suit) or keeping a suit that could have
been voided, and leading trump, or not, by who made it.
"""

from collections.abc import Callable
from typing import Any

from games.engine import (
    ACE,
    CARD_BY_TEXT,
    EFFECTIVE_SUIT,
    JOKER,
    SEAT_NAMES,
    STRENGTH,
    SUIT_BY_LETTER,
    SUIT_NAMES,
    Seen,
    card_name,
    cards_of,
)
from games.engine import card as make_card

from . import policy as P
from .hints import join_names, trump_card_name

MAKES_TRUMP = ("order_up", "call")
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")


def named(seen: Seen, c: int) -> str:
    """'the left bower', 'the ace of trump', 'the ace of clubs'."""
    trump = seen.trump
    if trump is not None and EFFECTIVE_SUIT[trump][c] == trump:
        return trump_card_name(c, trump)
    return card_name(c)


def _who(seen: Seen, s: int) -> str:
    if s == seen.seat:
        return "you"
    return "your partner" if s == (seen.seat + 2) % 4 else SEAT_NAMES[s]


def _card(action: dict[str, Any]) -> int:
    return CARD_BY_TEXT[action["card"]]


# ---------------------------------------------------------------- the bidding


def _bid_suit(seen: Seen, action: dict[str, Any]) -> int | None:
    """The suit a bid makes trump (None for a pass)."""
    if action["type"] == "order_up":
        return seen.upcard_suit
    if action["type"] == "call":
        return SUIT_BY_LETTER[action["suit"]]
    return None


def _bid_hand(seen: Seen, action: dict[str, Any]) -> int:
    """The seat's cards for the bid: a dealer picking the upcard up counts it."""
    if action["type"] == "order_up" and seen.seat == seen.dealer:
        return P.after_pickup(seen.hand, seen.upcard, seen.upcard_suit)
    return seen.hand


def _high(trump: int) -> tuple[int, ...]:
    """The trumps a hand is counted by: the joker, the bowers, the ace."""
    return (JOKER, P.RIGHT[trump], P.LEFT[trump], make_card(ACE, trump))


def holding(hand: int, trump: int) -> str:
    """'two hearts, with no bower and no ace among them, and no side ace'; 'four hearts,
    with the right bower and the left bower, and one side ace'."""
    eff = EFFECTIVE_SUIT[trump]
    trumps = [c for c in cards_of(hand) if eff[c] == trump]
    top = [c for c in trumps if c in _high(trump)]
    top.sort(key=P.POWER[trump].__getitem__, reverse=True)
    aces = sum(1 for c in cards_of(hand) if eff[c] != trump and P.POWER[trump][c] == 6)
    suit = SUIT_NAMES[trump]
    names = [trump_card_name(c, trump).replace("of trump", f"of {suit}") for c in top]
    words = f"{NUMBERS[len(trumps)]} {suit if len(trumps) != 1 else suit[:-1]}"
    if names:
        words += f", with {join_names(names)}"
    elif trumps:  # names no card: the seat holds neither
        words += ", with no bower and no ace among them"
    return words + f", and {NUMBERS[aces]} side ace" + ("s" if aces > 1 else "")


def _held(hand: int, trump: int, *, short: bool) -> str:
    """'you held two hearts, ...'; with `short`, 'you held only ...' when the hand is
    short of trump (fewer than three, or no bower and no ace among them): "only" is said
    of a weak hand alone."""
    trumps = [c for c in cards_of(hand) if EFFECTIVE_SUIT[trump][c] == trump]
    weak = trumps and (len(trumps) < 3 or not any(c in _high(trump) for c in trumps))
    return f"you held {'only ' if short and weak else ''}{holding(hand, trump)}"


def _weak_bid(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """Trump made (ordered up, picked up, called) where passing was better."""
    suit = _bid_suit(seen, chosen)
    if suit is None or best["type"] != "pass":
        return ""
    return _held(_bid_hand(seen, chosen), suit, short=True)


def _strong_pass(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """A pass where making trump was better."""
    suit = _bid_suit(seen, best)
    if chosen["type"] != "pass" or suit is None:
        return ""
    return _held(_bid_hand(seen, best), suit, short=False)


def _alone(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """The same trump made, alone where with the partner was better, or the other way."""
    suit = _bid_suit(seen, chosen)
    if suit is None or suit != _bid_suit(seen, best) or chosen["type"] != best["type"]:
        return ""
    if bool(chosen.get("alone")) == bool(best.get("alone")):
        return ""
    held = _held(_bid_hand(seen, chosen), suit, short=bool(chosen.get("alone")))
    if chosen.get("alone"):
        return f"{held}: too little to take three tricks without your partner"
    return f"{held}: enough to hope for all five tricks alone, for 4 points"


def _defend_alone(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    if {chosen["type"], best["type"]} != {"defend_alone", "pass"} or seen.trump is None:
        return ""
    held = _held(seen.hand, seen.trump, short=chosen["type"] == "defend_alone")
    if chosen["type"] == "defend_alone":
        return f"{held}: too little to euchre the makers without your partner"
    return f"{held}: enough to hope to euchre the makers alone, for 4 points"


# ---------------------------------------------------------------- discards


def _is_boss(seen: Seen, c: int) -> bool:
    """No card not yet played beats `c` (the seat's own cards count: a king under one's
    own ace is no sure trick)."""
    return not P.HIGHER[seen.trump][c] & P.ALL & ~seen.gone & ~seen.absent


def _sloughing(seen: Seen, action: dict[str, Any]) -> bool:
    """A discard: the dealer's, or a card of neither the suit led nor trump."""
    if action["type"] == "discard":
        return True
    if action["type"] != "play" or not seen.trick_cards:
        return False
    eff = EFFECTIVE_SUIT[seen.trump]
    return eff[_card(action)] not in (eff[seen.trick_cards[0]], seen.trump)


def _needed_discard(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """A discard of a card that was needed: a trump, or the best card left of its suit;
    or of a card that kept a suit where the best discard left it void."""
    if seen.trump is None or not (_sloughing(seen, chosen) and best.get("card")):
        return ""
    eff = EFFECTIVE_SUIT[seen.trump]
    c, b = _card(chosen), _card(best)
    if eff[c] == seen.trump and eff[b] != seen.trump:
        return f"{named(seen, c)} was a trump, and you could spare {named(seen, b)}"
    if _is_boss(seen, c) and not _is_boss(seen, b):
        return f"{named(seen, c)} was the highest {SUIT_NAMES[eff[c]][:-1]} left, a likely trick"
    mine = cards_of(seen.hand)
    if eff[b] != seen.trump and sum(eff[d] == eff[b] for d in mine) == 1:
        if sum(eff[d] == eff[c] for d in mine) > 1:  # the chosen discard made no void
            return (
                f"you kept {named(seen, b)}, your only {SUIT_NAMES[eff[b]][:-1]}, and so no "
                f"void to trump {SUIT_NAMES[eff[b]]} with"
            )
    return ""


# ---------------------------------------------------------------- the play of a trick


def _trick_winner(seen: Seen) -> tuple[int, int]:
    """(seat, card) winning the current trick so far."""
    st = STRENGTH[seen.trump][EFFECTIVE_SUIT[seen.trump][seen.trick_cards[0]]]
    i = max(range(len(seen.trick_cards)), key=lambda i: st[seen.trick_cards[i]])
    return seen.trick_seats[i], seen.trick_cards[i]


def _wins(seen: Seen, c: int) -> bool:
    st = STRENGTH[seen.trump][EFFECTIVE_SUIT[seen.trump][seen.trick_cards[0]]]
    return st[c] > st[_trick_winner(seen)[1]]


def _overtook_partner(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """The partner was winning the trick; the chosen card took it from them, the best
    card did not."""
    if chosen["type"] != "play" or not seen.trick_cards or seen.trump is None:
        return ""
    seat, card = _trick_winner(seen)
    if seat != (seen.seat + 2) % 4 or not _wins(seen, _card(chosen)) or _wins(seen, _card(best)):
        return ""
    last = len(seen.trick_cards) == seen.trick_size - 1  # no one plays after the seat
    done = "had already won" if last else "was already winning"
    return f"your partner's {named(seen, card)[4:]} {done} the trick"


def _could_win(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """An opponent was winning the trick; the best card beat theirs, the chosen did not."""
    if chosen["type"] != "play" or not seen.trick_cards or seen.trump is None:
        return ""
    seat, card = _trick_winner(seen)
    if (seat - seen.seat) % 2 == 0 or _wins(seen, _card(chosen)) or not _wins(seen, _card(best)):
        return ""
    return (
        f"{SEAT_NAMES[seat]}'s {named(seen, card)[4:]} was winning the trick, and "
        f"your {named(seen, _card(best))[4:]} would have beaten it"
    )


# ---------------------------------------------------------------- leads


def _shown_out(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """A lead of a suit a seat had shown out of (an opponent trumps it; a partner ruffs
    the opponents' winners)."""
    if chosen["type"] != "play" or seen.trick_cards or seen.trump is None:
        return ""
    suit = EFFECTIVE_SUIT[seen.trump][_card(chosen)]
    if suit == seen.trump:
        return ""
    for s in ((seen.seat + 1) % 4, (seen.seat + 3) % 4, (seen.seat + 2) % 4):
        if seen.voids[s] >> suit & 1:
            return f"{_who(seen, s)} had shown out of {SUIT_NAMES[suit]}"
    return ""


def _trump_lead(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """A lead of trump, or not, against who made trump: the makers lead it to draw the
    defenders' trumps; a defender leading it draws their own side's."""
    if chosen["type"] != "play" or seen.trick_cards or seen.trump is None:
        return ""
    eff = EFFECTIVE_SUIT[seen.trump]
    led_trump, best_trump = eff[_card(chosen)] == seen.trump, eff[_card(best)] == seen.trump
    if led_trump == best_trump or seen.maker is None:
        return ""
    ours = (seen.maker - seen.seat) % 2 == 0
    maker = _who(seen, seen.maker)
    if ours and best_trump:
        return f"{maker} made trump, and leading trump draws the opponents' trumps"
    if not ours and led_trump:
        return f"{maker} made trump, and leading trump into the makers draws your side's trumps"
    return ""


Rule = Callable[[Seen, dict[str, Any], dict[str, Any]], str]
REASONS: tuple[Rule, ...] = (
    _weak_bid,
    _strong_pass,
    _alone,
    _defend_alone,
    _overtook_partner,
    _could_win,
    _needed_discard,
    _shown_out,
    _trump_lead,
)


def reason(seen: Seen, chosen: dict[str, Any], best: dict[str, Any]) -> str:
    """The words of the first rule in REASONS that applies, or ""."""
    if seen.phase not in ("bid1", "bid2", "defend", "discard", "play"):
        return ""  # the variants' decisions (name a suit, farm, redeal): explained by the hint
    for rule in REASONS:
        words = rule(seen, chosen, best)
        if words:
            return words
    return ""
