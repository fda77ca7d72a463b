"""Rule-based Euchre play on plain numbers: the Medium player's judgement.

Everything here works on card ints and card bitmasks (the engine's tables), not
on views or engine states, so the same rules serve the Medium player (which
reads them off its seat's view, games.engine.read_view), the Easy player (which
bends them) and the Hard player's playouts (which read them off engine states
thousands of times a decision, bots/rollout.py).

Bidding counts a hand in points per suit (`hand_value`): trumps by rank (the
bowers most), side aces, a king beside its ace, and voids when there are
trumps to ruff with. Each seat has its own bar in round one, because ordering
up sends the upcard to the dealer: the dealer counts the hand it would have
after picking up and discarding; the dealer's partner adds what the upcard is
worth to its own team; the two players beside the dealer take it off. Round
two names the best suit if it clears a bar, with a bonus for "next" (the other
suit of the turned-down card's colour) for the seats beside the dealer; a stuck
dealer names its best suit. A hand goes alone when it can take all five
tricks (`can_take_all`).

Play remembers the cards gone (played, or known to be in the kitty) so it knows
which cards are the highest left in their suit ("boss" cards), and which seats
showed void in a suit. With the joker option the joker, while no one has seen it
played, is a live card that beats every other trump: the right bower is not a boss
card until the joker is gone. Callers put the cards that are not in the match's deck
(the joker of a 24-card match: `Seen.absent`) in `gone`, so a 24-card match is
played exactly as before the option.
"""

from dataclasses import dataclass

from games.engine import (
    BIT,
    DECK_WITH_JOKER,
    EFFECTIVE_SUIT,
    JACK,
    JOKER,
    STRENGTH,
    SUIT_MASK,
    cards_of,
    deck_mask,
    same_color,
)
from games.engine import card as make_card

# Every card another seat may hold, before taking away `gone` (which holds the joker's
# bit in a 24-card match) and the seat's own hand.
ALL = deck_mask(True)
# The joker's bit alone: what a 24-card match's deck lacks (the default of the bidding
# functions' `absent`, so a caller that says nothing bids as in a 24-card match).
_NO_JOKER = BIT[JOKER]

# Every card the engine has (the joker too, with that option): the tables cover it, so a
# hand that holds the joker is valued and played by the engine's own strengths.
_CARDS = DECK_WITH_JOKER
# POWER[trump][card]: the card's rank inside its effective suit (trumps 101..107, the
# joker 108, others 1..6).
POWER = tuple(tuple(STRENGTH[t][EFFECTIVE_SUIT[t][c]][c] for c in _CARDS) for t in range(4))
TRUMPS = tuple(SUIT_MASK[t][t] for t in range(4))
# HIGHER[trump][card]: the cards of the same effective suit that beat it; the joker
# beats every other trump. A card is boss when none of these is live (ALL & ~gone & ~hand).
HIGHER = tuple(
    tuple(
        sum(
            BIT[d]
            for d in _CARDS
            if EFFECTIVE_SUIT[t][d] == EFFECTIVE_SUIT[t][c] and POWER[t][d] > POWER[t][c]
        )
        for c in _CARDS
    )
    for t in range(4)
)
assert all(HIGHER[t][JOKER] == 0 for t in range(4))
RIGHT = tuple(make_card(JACK, t) for t in range(4))
LEFT = tuple(make_card(JACK, same_color(t)) for t in range(4))


@dataclass(frozen=True, slots=True)
class Style:
    """The knobs of the rule-based player (Medium's values are the defaults)."""

    # hand_value: trumps by POWER - 101 (9, 10, Q, K, A, left, right), side cards.
    trump_values: tuple[float, ...] = (1.1, 1.2, 1.4, 1.6, 2.0, 2.8, 3.3)
    side_ace: float = 1.0
    side_king_with_ace: float = 0.5
    side_king: float = 0.2
    void_bonus: float = 0.4  # each void side suit, with two or more trumps
    # Round one bars by seat from the dealer: 0 dealer, 1 left, 2 partner, 3 right.
    bid1_bar: tuple[float, ...] = (5.0, 6.3, 5.6, 6.4)
    upcard_share: float = 0.6  # how much of the upcard's value goes to the dealer's team
    bid2_bar: tuple[float, ...] = (4.4, 4.4, 4.6, 4.5)
    next_bonus: float = 0.5  # naming "next" from beside the dealer
    go_alone: bool = True
    # Play: None for Medium; Easy sets these.
    throw_high: float = 0.0  # chance of throwing away the highest card instead of the lowest
    random_play: float = 0.0  # chance of a random legal card


MEDIUM = Style()


# ---------------------------------------------------------------------- bidding


def hand_value(hand: int, trump: int, style: Style = MEDIUM) -> float:
    """Points for `hand` (a bitmask) with `trump` as trump."""
    eff = EFFECTIVE_SUIT[trump]
    power = POWER[trump]
    tv = style.trump_values
    value = 0.0
    trumps = 0
    suits = [0, 0, 0, 0]
    aces = 0
    for c in cards_of(hand):
        s = eff[c]
        if s == trump:
            value += tv[min(power[c] - 101, len(tv) - 1)]  # the joker counts as the right bower
            trumps += 1
        else:
            suits[s] += 1
            if power[c] == 6:
                value += style.side_ace
                aces |= 1 << s
            elif power[c] == 5:
                value += style.side_king_with_ace if hand & BIT[c + 1] else style.side_king
    if trumps >= 2:
        voids = sum(1 for s in range(4) if s != trump and not suits[s])
        value += style.void_bonus * voids
    return value


def upcard_worth(upcard: int, style: Style = MEDIUM, suit: int | None = None) -> float:
    """What the upcard adds to the dealer's team if its suit becomes trump (`suit`: the
    upcard's suit when it is not its printed one, a joker's)."""
    t = upcard // 6 if suit is None else suit
    tv = style.trump_values
    return style.upcard_share * tv[min(POWER[t][upcard] - 101, len(tv) - 1)]


def best_discard(hand: int, trump: int) -> int:
    """The dealer's discard from six cards: keep trumps and aces, void a side suit if
    it can, otherwise throw the lowest side card."""
    eff = EFFECTIVE_SUIT[trump]
    power = POWER[trump]
    side = [c for c in cards_of(hand) if eff[c] != trump]
    if not side:
        return min(cards_of(hand), key=power.__getitem__)
    counts = [0, 0, 0, 0]
    for c in side:
        counts[eff[c]] += 1
    plain = [c for c in side if power[c] != 6]
    if not plain:  # only aces beside trump: keep the aces if trumps are long
        trumps = [c for c in cards_of(hand) if eff[c] == trump]
        if len(trumps) >= 4:
            return min(trumps, key=power.__getitem__)
        plain = side

    def key(c: int) -> tuple:
        # A singleton goes first (a void to ruff with), unless it is a king guarding nothing
        # better; then the lowest card.
        return (counts[eff[c]] != 1, power[c])

    return min(plain, key=key)


def after_pickup(hand: int, upcard: int, suit: int | None = None) -> int:
    """The dealer's five cards after picking up `upcard` and discarding."""
    six = hand | BIT[upcard]
    return six & ~BIT[best_discard(six, upcard // 6 if suit is None else suit)]


def can_take_all(hand: int, trump: int, gone: int = 0, absent: int = _NO_JOKER) -> bool:
    """Whether a five-card hand should go alone: trumps from the top to draw the
    others' trumps, and side cards that win (aces, a king under its ace), allowing
    one side loser to a hand with three trumps led by both top ones. `gone`: cards
    known to be out of play (the upcard left in the kitty); `absent`: cards not in the
    match's deck (the joker, but for a joker match, where an unseen joker beats the
    right bower and so a loner's right bower is no master)."""
    eff = EFFECTIVE_SUIT[trump]
    power = POWER[trump]
    trumps = 0
    losers = 0
    for c in cards_of(hand):
        if eff[c] == trump:
            trumps += 1
        elif power[c] < 5 or (power[c] == 5 and not hand & BIT[c + 1]):
            losers += 1  # a side card below the ace (or a king without it) can be beaten
    if trumps == 5:
        return True
    if trumps < 3 or losers > 1:
        return False
    masters = 0
    higher = HIGHER[trump]
    for c in sorted(cards_of(hand & TRUMPS[trump]), key=power.__getitem__, reverse=True):
        if higher[c] & ALL & ~absent & ~hand & ~gone:
            break
        masters += 1
    if losers == 0:
        return masters >= 1
    return masters >= 2


def bid_round_one(
    hand: int,
    upcard: int,
    seat: int,
    dealer: int,
    style: Style = MEDIUM,
    suit: int | None = None,
    absent: int = _NO_JOKER,
) -> tuple[bool, bool]:
    """(order it up?, alone?) in round one. `suit`: the upcard's suit when it is not its
    printed one (a joker upcard's, named by the dealer or fixed by the options);
    `absent`: the cards not in the match's deck (see `can_take_all`)."""
    trump = upcard // 6 if suit is None else suit
    pos = (seat - dealer) % 4
    if pos == 0:
        mine = after_pickup(hand, upcard, trump)
        value = hand_value(mine, trump, style)
        alone_hand = mine
    else:
        value = hand_value(hand, trump, style)
        worth = upcard_worth(upcard, style, trump)
        value += worth if pos == 2 else -worth
        alone_hand = hand
    if value < style.bid1_bar[pos]:
        return False, False
    # The dealer's partner alone: the dealer sits out and the upcard stays in the kitty.
    # Beside the dealer, the upcard goes to an opponent and counts against the hand.
    gone = BIT[upcard] if pos == 2 else 0
    return True, style.go_alone and can_take_all(alone_hand, trump, gone, absent)


def bid_round_two(
    hand: int,
    turned_down: int,
    seat: int,
    dealer: int,
    stuck: bool,
    style: Style = MEDIUM,
    absent: int = _NO_JOKER,
) -> tuple[int | None, bool]:
    """(suit to name or None to pass, alone?) in round two; `absent` as for round one."""
    pos = (seat - dealer) % 4
    nxt = same_color(turned_down)
    best, best_value = None, -1.0
    for s in range(4):
        if s == turned_down:
            continue
        value = hand_value(hand, s, style)
        if s == nxt and pos in (1, 3):
            value += style.next_bonus
        if value > best_value:
            best, best_value = s, value
    if best_value < style.bid2_bar[pos] and not stuck:
        return None, False
    alone = style.go_alone and can_take_all(hand, best, 0, absent)
    return best, alone


# ---------------------------------------------------------------------- play


def _lowest(cards: list[int], power: tuple[int, ...]) -> int:
    return min(cards, key=power.__getitem__)


def throw_off(legal: list[int], hand: int, trump: int, live: int, high: bool = False) -> int:
    """The card to throw on a trick we cannot or need not win: a side card rather than a
    trump, not a boss card if avoidable, the lowest, preferably from a short suit
    (a void to ruff with later). `high`: a beginner's mistake, the highest instead."""
    eff = EFFECTIVE_SUIT[trump]
    power = POWER[trump]
    higher = HIGHER[trump]
    if high:
        return max(legal, key=power.__getitem__)
    side = [c for c in legal if eff[c] != trump] or legal
    if len(side) == 1:
        return side[0]
    counts = [0, 0, 0, 0]
    for c in cards_of(hand):
        counts[eff[c]] += 1

    def key(c: int) -> tuple:
        return (not higher[c] & live, power[c], counts[eff[c]])

    return min(side, key=key)


def choose_lead(
    seat: int,
    hand: int,
    trump: int,
    maker: int,
    gone: int,
    voids: list[int] | tuple[int, ...] | None,
    alone_seat: int | None,
) -> int:
    """The card to lead. `gone`: the cards played or known out of play."""
    eff = EFFECTIVE_SUIT[trump]
    power = POWER[trump]
    higher = HIGHER[trump]
    live = ALL & ~gone & ~hand  # cards someone else may hold
    tmask = TRUMPS[trump]
    my_trumps = hand & tmask
    cards = cards_of(hand)
    makers = (maker & 1) == (seat & 1)
    if my_trumps and makers and tmask & live:
        trumps = sorted(cards_of(my_trumps), key=power.__getitem__, reverse=True)
        top = trumps[0]
        if not higher[top] & live:
            if seat == maker or len(trumps) >= 2 or alone_seat == seat:
                return top  # draw their trumps with the highest one left
            if seat != maker and len(trumps) == 1:
                return top  # lead the boss trump back to the maker
        elif seat == maker and len(trumps) >= 3:
            return trumps[-1]
    # A side card that is the highest left in its suit, in a suit the opponents still follow.
    opp_void = 0
    if voids is not None:
        opp_void = voids[(seat + 1) % 4] | voids[(seat + 3) % 4]
    bosses = [c for c in cards if eff[c] != trump and not higher[c] & live]
    if bosses:

        def boss_key(c: int) -> tuple:
            s = eff[c]
            return (opp_void >> s & 1, (SUIT_MASK[trump][s] & gone).bit_count())

        return min(bosses, key=boss_key)
    if my_trumps and not tmask & live:
        return max(cards_of(my_trumps), key=power.__getitem__)
    side = [c for c in cards if eff[c] != trump]
    if not side:
        # Only trumps: lead the highest if it is boss, else the lowest.
        top = max(cards, key=power.__getitem__)
        return top if not higher[top] & live else min(cards, key=power.__getitem__)
    if makers and my_trumps and seat == maker and len(cards_of(my_trumps)) >= 2:
        return min(cards_of(my_trumps), key=power.__getitem__)
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[eff[c]] += 1

    def low_key(c: int) -> tuple:
        # A low card from a short suit, one the opponents are not known to be out of.
        return (opp_void >> eff[c] & 1, counts[eff[c]], power[c])

    return min(side, key=low_key)


def choose_follow(
    seat: int,
    hand: int,
    legal: list[int],
    trump: int,
    trick_seats: list[int] | tuple[int, ...],
    trick_cards: list[int] | tuple[int, ...],
    trick_size: int,
    gone: int,
    voids: list[int] | tuple[int, ...] | None,
    style: Style = MEDIUM,
) -> int:
    """The card to play on a trick already led."""
    eff = EFFECTIVE_SUIT[trump]
    led = eff[trick_cards[0]]
    st = STRENGTH[trump][led]
    best_i = 0
    best = st[trick_cards[0]]
    for i in range(1, len(trick_cards)):
        if st[trick_cards[i]] > best:
            best, best_i = st[trick_cards[i]], i
    winner = trick_seats[best_i]
    after = trick_size - len(trick_cards) - 1  # players still to play after this seat
    live = ALL & ~gone & ~hand
    higher = HIGHER[trump]
    power = POWER[trump]
    if len(legal) == 1:
        return legal[0]
    if (winner - seat) % 4 == 2:  # partner is winning
        wcard = trick_cards[best_i]
        safe = after == 0
        if not safe:
            # Beaten only by a higher card of its suit, or a trump from a void seat.
            last = (seat + 1) % 4
            beats = higher[wcard] & live
            if eff[wcard] != trump:
                last_void = voids is not None and voids[last] >> led & 1
                if last_void or (SUIT_MASK[trump][led] & live).bit_count() <= 1:
                    beats |= TRUMPS[trump] & live
            safe = not beats
        if not safe:
            following = [c for c in legal if eff[c] == led and st[c] > best]
            bosses = [c for c in following if not higher[c] & live]
            if bosses and eff[wcard] == led:
                return _lowest(bosses, power)
        return throw_off(legal, hand, trump, live, style.throw_high > 0)
    winners = [c for c in legal if st[c] > best]
    if not winners:
        return throw_off(legal, hand, trump, live, style.throw_high > 0)
    if after == 0:
        return _lowest(winners, power)
    safe = [c for c in winners if not higher[c] & live]
    if safe and eff[safe[0]] == led:
        return _lowest(safe, power)
    if eff[winners[0]] != led:  # ruffing: the lowest trump that wins
        return _lowest(winners, power)
    return _lowest(winners, power)


def choose_card(
    seat: int,
    hand: int,
    legal: list[int],
    trump: int,
    maker: int,
    trick_seats: list[int] | tuple[int, ...],
    trick_cards: list[int] | tuple[int, ...],
    trick_size: int,
    gone: int,
    voids: list[int] | tuple[int, ...] | None,
    alone_seat: int | None,
    style: Style = MEDIUM,
) -> int:
    if len(legal) == 1:
        return legal[0]
    if not trick_cards:
        return choose_lead(seat, hand, trump, maker, gone, voids, alone_seat)
    return choose_follow(
        seat, hand, legal, trump, trick_seats, trick_cards, trick_size, gone, voids, style
    )


# ---------------------------------------------------------------------- variants


def farm_out(hand: int, low: list[int]) -> int:
    """A farmer's hand (option farmers_hand): the next card to put out of `low`, the
    nines and tens it may still put out. Always exchange (three nines and tens make a
    hand that rarely takes a trick, and the three cards under the upcard are, on
    average, better), nines before tens, the shortest suit first."""
    counts = [0, 0, 0, 0]
    for c in cards_of(hand):
        if c < 24:
            counts[c // 6] += 1
    return min(low, key=lambda c: (c % 6, counts[c // 6], c))


def ask_for_new_deal(
    hand: int,
    upcard: int,
    seat: int,
    dealer: int,
    style: Style = MEDIUM,
    suit: int | None = None,
    absent: int = _NO_JOKER,
) -> bool:
    """A farmer's hand in the redeal form (farmers_hand_form "redeal"): ask for a new deal
    unless the rules would bid with the hand, ordering up (or picking up) the upcard in
    round one or naming a suit in round two (a dealer's partner with two bowers, say).
    Three nines and tens rarely take a trick, so a hand not worth a bid is one the other
    side makes trump against; a new deal starts even. `suit`, `absent`: as for
    bid_round_one."""
    order, _alone = bid_round_one(hand, upcard, seat, dealer, style, suit, absent)
    if order:
        return False
    turned_down = upcard // 6 if suit is None else suit
    call, _alone = bid_round_two(hand, turned_down, seat, dealer, False, style, absent)
    return call is None


def call_redeal(seat: int, maker: int) -> bool:
    """No ace, no face, no trump (option no_ace_no_face_no_trump): call the redeal when
    the other side made trump (a hand that cannot take a trick helps them make it); let
    the hand stand when the partner made it (the partner's bid counted on no help)."""
    return (seat & 1) != (maker & 1)
