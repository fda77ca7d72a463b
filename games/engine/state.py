"""The state of a match and the two functions that move it: legal_actions and apply_action.

A MatchState is owned by whoever holds it and changes only through `deal` and
`apply_action`; `clone` gives an independent copy (the computer players'
playouts use it). An illegal action raises RuleError and leaves the state as it
was.

Seats: 0 south, 1 west, 2 north, 3 east; partners sit across (seat + 2), the
seat on a player's left is seat + 1, and a team is seat % 2 (0: south-north,
1: west-east).

Speed: computer players run many thousands of random playouts per decision, so
the play loop is kept short (benchmarks/engine.py measures it). Hands are card
bitmasks; the legal plays for a set of cards are built once and shared (the
same tuple every time that set comes up); everything that depends only on
trump, on who sits out or on the options is looked up in tables made when it is
fixed, not recomputed per card; as each card is played, apply_action keeps the
trick's winner so far and works out the next seat's legal plays, and
`legal_actions()` is cached until the next action.
"""

from typing import Any

from . import actions as A
from .cards import (
    BIT,
    CARD_TEXT,
    CARDS,
    EFFECTIVE_SUIT,
    JACK,
    JOKER,
    LOW_MASK,
    STRENGTH,
    SUIT_MASK,
    SUIT_NAMES,
    card_name,
    cards_of,
    rank_of,
    same_color,
    suit_of,
)
from .cards import (
    card as make_card,
)
from .deal import _ValidDeck, validate_deck
from .errors import RuleError
from .options import Options
from .outcomes import HAND_SCORED, HAND_THROWN_IN, MATCH_FINISHED, TRICK_WON

DEAL, BID1, DISCARD, BID2, DEFEND, PLAY, FINISHED = (
    "deal",
    "bid1",
    "discard",
    "bid2",
    "defend",
    "play",
    "finished",
)
# The variants' phases: the dealer names a joker upcard's suit (option joker), a seat
# with a farmer's hand may exchange or, in the redeal form, ask for a new deal
# (farmers_hand), a seat with no ace, no face and no trump may call a redeal
# (no_ace_no_face_no_trump).
NAME_SUIT, FARM, REDEAL = "name_suit", "farm", "redeal"
# The `reason` of a hand thrown in by a called redeal: no ace, no face, no trump; a
# farmer's hand in the redeal form.
REDEAL_REASON = "no_ace_no_face_no_trump"
FARM_REDEAL_REASON = "farmers_hand"
SEAT_NAMES = ("south", "west", "north", "east")

_PHASE_WORDS = {
    DEAL: "the cards are about to be dealt",
    BID1: "round one of bidding: pass or order it up",
    DISCARD: "the dealer is discarding",
    BID2: "round two of bidding: pass or name a suit",
    DEFEND: "the defenders may declare alone: pass or defend alone",
    PLAY: "the play: play a card",
    FINISHED: "the match is over",
    NAME_SUIT: "the dealer names the suit of the joker turned up",
    FARM: "a farmer's hand: exchange three nines or tens, or pass",
    REDEAL: "no ace, no face, no trump: call a redeal, or pass",
}
_FARM_REDEAL_WORDS = "a farmer's hand: ask for a new deal, or pass"
# The action types each phase takes (none while dealing or once the match is over), under
# any options: a farmer's hand is exchanged (farm) or, in the redeal form, asks for a new
# deal (redeal); one match takes one of the two (MatchState._phase_takes).
PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    BID1: (A.PASS, A.ORDER_UP),
    DISCARD: (A.DISCARD,),
    BID2: (A.PASS, A.CALL),
    DEFEND: (A.PASS, A.DEFEND_ALONE),
    PLAY: (A.PLAY,),
    NAME_SUIT: (A.NAME_SUIT,),
    FARM: (A.PASS, A.FARM, A.REDEAL),
    REDEAL: (A.PASS, A.REDEAL),
}
_NO_OUTCOMES: tuple = ()
_PASS = A.PASS_ACTION


def _by_byte(by_card: tuple[A.Action, ...]) -> tuple[tuple[tuple[A.Action, ...], ...], ...]:
    """[k][b]: the actions on the cards whose bits are set in value b of byte k of a mask."""
    return tuple(
        tuple(
            tuple(by_card[8 * k + i] for i in range(8) if b >> i & 1 and 8 * k + i < len(by_card))
            for b in range(256)
        )
        for k in range(4)  # the fourth byte holds the joker's bit (24) alone
    )


class _ActionsByMask(dict):
    """mask -> the actions on those cards, in card order; each built once, then shared."""

    def __init__(self, by_card: tuple[A.Action, ...]) -> None:
        super().__init__()
        self.by_byte = _by_byte(by_card)

    def __missing__(self, mask: int) -> tuple[A.Action, ...]:
        low, mid, high, top = self.by_byte
        actions = self[mask] = (
            low[mask & 255] + mid[mask >> 8 & 255] + high[mask >> 16 & 255] + top[mask >> 24]
        )
        return actions


# At most 55,454 sets of one to five cards: a few megabytes once every set has come up.
_PLAYS = _ActionsByMask(A.PLAY_ACTIONS)
_FARMS = _ActionsByMask(A.FARM_ACTIONS)
# The dealer's six cards come up once a hand, among 134,596 sets: built each time, not kept.
_DISCARD_LOW, _DISCARD_MID, _DISCARD_HIGH, _DISCARD_TOP = _by_byte(A.DISCARD_ACTIONS)

# LED_MASK[trump][card]: the cards that follow `card` when it is led (its effective suit).
LED_MASK = tuple(tuple(SUIT_MASK[t][EFFECTIVE_SUIT[t][c]] for c in CARDS) for t in range(4))
# LED_STRENGTH[trump][card]: how strong each card is in a trick that `card` leads
# (cards.STRENGTH for the led suit: higher wins, 0 cannot win).
LED_STRENGTH = tuple(tuple(STRENGTH[t][EFFECTIVE_SUIT[t][c]] for c in CARDS) for t in range(4))

# Round one: pass, order up, and order up alone when going alone is on.
_BID1_LEGAL = {
    going_alone: (_PASS, *A.ORDER_UP_ACTIONS[: 1 + going_alone]) for going_alone in (False, True)
}
# Round two, by (turned-down suit, going alone on, the dealer is stuck).
_BID2_LEGAL = {
    (down, going_alone, stuck): (() if stuck else (_PASS,))
    + tuple(a for s in range(4) if s != down for a in A.CALL_ACTIONS[s][: 1 + going_alone])
    for down in range(4)
    for going_alone in (False, True)
    for stuck in (False, True)
}
_DEFEND_LEGAL = (_PASS, A.DEFEND_ALONE_ACTION)
_NAME_SUIT_LEGAL = A.NAME_SUIT_ACTIONS
_REDEAL_LEGAL = (_PASS, A.REDEAL_ACTION)
_SUIT_BY_NAME = {name: suit for suit, name in enumerate(SUIT_NAMES)}  # "clubs" -> CLUBS


def farmers_hand(hand: int) -> bool:
    """A farmer's hand: three or more nines and tens (the joker is neither)."""
    return (hand & LOW_MASK).bit_count() >= 3


def no_ace_no_face_no_trump(hand: int, trump: int) -> bool:
    """Only nines and tens, and none of them trump (nor the joker, always a trump)."""
    return not hand & ~LOW_MASK and not hand & SUIT_MASK[trump][trump]


def _next_seats(out_mask: int) -> tuple[int, ...]:
    """For each seat, the next seat to its left that plays (bit s of out_mask: s sits out)."""
    return tuple(
        next((s + k) % 4 for k in (1, 2, 3, 4) if not out_mask >> ((s + k) % 4) & 1)
        for s in range(4)
    )


# NEXT_SEAT[out_mask][seat], for every set of seats sitting out (at most two ever do).
NEXT_SEAT = tuple(_next_seats(m) for m in range(15))


def _trick_order(out_mask: int, leader: int) -> tuple[int, ...]:
    if out_mask >> leader & 1:
        return ()  # a seat that sits out never leads
    seats, seat = [leader], NEXT_SEAT[out_mask][leader]
    while seat != leader:
        seats.append(seat)
        seat = NEXT_SEAT[out_mask][seat]
    return tuple(seats)


# TRICK_ORDER[out_mask][leader]: the seats that play a trick, in order, from its leader.
TRICK_ORDER = tuple(tuple(_trick_order(m, s) for s in range(4)) for m in range(15))


def _check_seat(seat: object) -> int:
    if type(seat) is not int or not 0 <= seat < 4:
        raise RuleError("invalid_seat", "A seat is a number from 0 to 3.")
    return seat


def partner(seat: int) -> int:
    return (_check_seat(seat) + 2) % 4


def team_of(seat: int) -> int:
    return _check_seat(seat) % 2


class MatchState:
    """A whole match: scores, the dealer, and the hand being played."""

    __slots__ = (
        "options",
        "scores",
        "dealer",
        "hand_number",
        "phase",
        "turn",
        "winner",
        "deck",
        "hands",
        "kitty",
        "upcard",
        "upcard_fate",
        "upcard_suit",
        "turned_down",
        "bids",
        "passes",
        "trump",
        "maker",
        "maker_round",
        "alone",
        "defender_alone",
        "defend_order",
        "out",
        "discarded",
        "leader",
        "trick_cards",
        "tricks",
        "tricks_won",
        "last_hand",
        "last_farm",
        "declarations",
        "farmer",
        "farm_out",
        "farm_in",
        "asking",
        "_next",
        "_order",
        "_legal",
        "_eff",
        "_led_mask",
        "_follow",
        "_led_strength",
        "_trick_strength",
        "_top",
        "_winning",
    )

    def __init__(self, options: Options | None = None, first_dealer: int = 3) -> None:
        if type(first_dealer) is not int or first_dealer not in (0, 1, 2, 3):
            raise RuleError("invalid_seat", "The first dealer is a seat from 0 to 3.")
        if options is not None and not isinstance(options, Options):
            raise RuleError("invalid_option", "options must be an Options (see Options.from_dict).")
        self.options = options or Options()
        self.scores = [0, 0]
        self.dealer = first_dealer
        self.hand_number = 0
        self.phase = DEAL
        self.turn: int | None = None
        self.winner: int | None = None
        self.last_hand: dict[str, Any] | None = None
        # The last hand's farmer's exchange, for its summary: (seat, put out, taken).
        self.last_farm: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
        self._clear_hand()

    def _clear_hand(self) -> None:
        self.deck: tuple[int, ...] | None = None
        self.hands = [0, 0, 0, 0]  # card bitmasks, see cards.BIT
        self.kitty: list[int] = []
        self.upcard: int | None = None
        self.upcard_fate: str | None = None  # face_up, picked_up, turned_down, stays_in_kitty
        self.upcard_suit: int | None = None  # its suit (a joker's: named, or the fixed suit)
        self.turned_down: int | None = None
        self.bids: list[tuple[int, A.Action]] = []
        self.passes = 0
        self.trump: int | None = None
        self.maker: int | None = None
        self.maker_round: int | None = None
        self.alone = False
        self.defender_alone: int | None = None
        self.defend_order: tuple[int, ...] = ()
        self.out = [False, False, False, False]
        self.discarded: int | None = None
        self.leader: int | None = None
        self.trick_cards: list[int] = []
        self.tricks: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
        self.tricks_won = [0, 0, 0, 0]
        # The variants: naming a joker upcard's suit, farm and redeal decisions, in order
        # (not bids: the view's `bids` stay the bidding alone).
        self.declarations: list[tuple[int, A.Action]] = []
        self.farmer: int | None = None  # the seat that exchanged a farmer's hand
        self.farm_out: list[int] = []  # the nines and tens it put out
        self.farm_in: list[int] = []  # the cards it took from under the upcard
        self.asking: tuple[int, ...] = ()  # the seats still to be asked (farm, redeal)
        self._next = NEXT_SEAT[0]
        self._order = TRICK_ORDER[0]
        self._legal: tuple[A.Action, ...] | None = None
        self._eff: tuple[int, ...] = ()  # EFFECTIVE_SUIT[trump]
        self._led_mask: tuple[int, ...] = ()  # LED_MASK[trump]
        self._follow = 0  # the cards that follow the current trick's lead; 0 before the lead
        self._led_strength: tuple[tuple[int, ...], ...] = ()  # LED_STRENGTH[trump]
        self._trick_strength: tuple[int, ...] = ()  # card strengths for this trick's lead
        self._top = 0  # the strength of the card winning the trick so far
        self._winning: int | None = None  # the seat that played it

    @property
    def trick_seats(self) -> list[int]:
        """The seats that have played to the current trick, in order."""
        if not self.trick_cards:
            return []
        return list(self._order[self.leader][: len(self.trick_cards)])

    # ------------------------------------------------------------------ copying

    def hand_of(self, seat: int) -> list[int]:
        """The cards a seat holds, in card order; RuleError('invalid_seat') for anything
        but a seat number 0 to 3 (not -1, not True: never another seat's cards)."""
        return cards_of(self.hands[_check_seat(seat)])

    def clone(self) -> "MatchState":
        """An independent copy (lists copied; tuples, ints and the options are shared)."""
        other = MatchState.__new__(MatchState)
        # Every slot, spelt out (a loop over __slots__ with getattr/setattr is ten times
        # slower, and playouts clone a lot); a test checks that none is missing.
        other.options = self.options
        other.scores = self.scores[:]
        other.dealer = self.dealer
        other.hand_number = self.hand_number
        other.phase = self.phase
        other.turn = self.turn
        other.winner = self.winner
        other.deck = self.deck
        other.hands = self.hands[:]
        other.kitty = self.kitty[:]
        other.upcard = self.upcard
        other.upcard_fate = self.upcard_fate
        other.upcard_suit = self.upcard_suit
        other.turned_down = self.turned_down
        other.bids = self.bids[:]
        other.passes = self.passes
        other.trump = self.trump
        other.maker = self.maker
        other.maker_round = self.maker_round
        other.alone = self.alone
        other.defender_alone = self.defender_alone
        other.defend_order = self.defend_order
        other.out = self.out[:]
        other.discarded = self.discarded
        other.leader = self.leader
        other.trick_cards = self.trick_cards[:]
        other.tricks = self.tricks[:]
        other.tricks_won = self.tricks_won[:]
        other.last_hand = self.last_hand
        other.last_farm = self.last_farm
        other.declarations = self.declarations[:]
        other.farmer = self.farmer
        other.farm_out = self.farm_out[:]
        other.farm_in = self.farm_in[:]
        other.asking = self.asking
        other._next = self._next
        other._order = self._order
        other._legal = self._legal
        other._eff = self._eff
        other._led_mask = self._led_mask
        other._follow = self._follow
        other._led_strength = self._led_strength
        other._trick_strength = self._trick_strength
        other._top = self._top
        other._winning = self._winning
        return other

    # ------------------------------------------------------------------ the deal

    def deal(self, deck: tuple[int, ...] | list[int]) -> None:
        """Start the next hand from a deck order (see deal.py for who gets what)."""
        if self.phase != DEAL:
            raise RuleError(
                "wrong_phase", f"Cards are dealt between hands; now {self._phase_words()}."
            )
        joker = self.options.joker
        if type(deck) is not _ValidDeck:  # decks made by deal.py are valid by construction
            deck = validate_deck(deck, joker)
        elif len(deck) != 24 + joker:
            deck = validate_deck(deck, joker)  # raises: a 24-card deck for a 25-card match
        self._clear_hand()
        self.hand_number += 1
        self.deck = deck
        # Five cards to each seat from the dealer's left (deal.py), then the kitty, upcard first.
        (a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4) = deck[:20]
        bit = BIT
        hands = [
            bit[a0] | bit[a1] | bit[a2] | bit[a3] | bit[a4],  # the dealer's left
            bit[b0] | bit[b1] | bit[b2] | bit[b3] | bit[b4],  # the dealer's partner
            bit[c0] | bit[c1] | bit[c2] | bit[c3] | bit[c4],  # the dealer's right
            bit[d0] | bit[d1] | bit[d2] | bit[d3] | bit[d4],  # the dealer
        ]
        first = (self.dealer + 1) % 4
        self.hands = hands[-first:] + hands[:-first] if first else hands  # indexed by seat
        self.kitty = list(deck[20:])
        upcard = self.upcard = deck[20]
        self.upcard_fate = "face_up"
        if upcard != JOKER:
            self.upcard_suit = upcard // 6
        elif self.options.joker_upcard != "dealer_names":
            self.upcard_suit = _SUIT_BY_NAME[self.options.joker_upcard]
        else:  # the dealer names the joker's suit before looking at their hand
            self.phase = NAME_SUIT
            self.turn = self.dealer
            return
        self._before_bidding()

    def _before_bidding(self) -> tuple:
        """After the deal (and a joker upcard's suit named): a farmer's hand, then round one."""
        first = (self.dealer + 1) % 4
        if self.options.farmers_hand:
            hands = self.hands
            self.asking = tuple(
                s for s in ((first + i) % 4 for i in range(4)) if farmers_hand(hands[s])
            )
            if self.asking:
                self.phase = FARM
                self.turn = self.asking[0]
                return _NO_OUTCOMES
        self.phase = BID1
        self.turn = first
        return _NO_OUTCOMES

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> tuple[A.Action, ...]:
        """The actions the seat whose turn it is may take (empty between hands and at the end)."""
        legal = self._legal
        if legal is not None:
            return legal
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.turn]
            legal = _PLAYS[hand & self._follow or hand]  # follow suit if you can
        elif phase == BID1:
            legal = _BID1_LEGAL[self.options.going_alone]
        elif phase == BID2:
            options = self.options
            stuck = options.stick_the_dealer and self.turn == self.dealer
            legal = _BID2_LEGAL[self.turned_down, options.going_alone, stuck]
        elif phase == DISCARD:
            mask = self.hands[self.dealer]
            legal = (
                _DISCARD_LOW[mask & 255]
                + _DISCARD_MID[mask >> 8 & 255]
                + _DISCARD_HIGH[mask >> 16 & 255]
                + _DISCARD_TOP[mask >> 24]
            )
        elif phase == DEFEND:
            legal = _DEFEND_LEGAL
        elif phase == FARM:
            if self.options.farm_redeal:  # ask for a new deal, or keep the hand
                legal = _REDEAL_LEGAL
            else:
                low = self.hands[self.turn] & LOW_MASK
                legal = _FARMS[low] if self.farm_out else (_PASS, *_FARMS[low])
        elif phase == REDEAL:
            legal = _REDEAL_LEGAL
        elif phase == NAME_SUIT:
            legal = _NAME_SUIT_LEGAL
        else:
            legal = ()
        self._legal = legal
        return legal

    # ------------------------------------------------------------------ applying

    def apply_action(self, seat: int, action: A.Action) -> tuple[dict[str, Any], ...]:
        """Apply one seat's action. Returns what followed from it (tricks won, the
        hand's score, the end of the match) as JSON-ready dicts; raises RuleError,
        changing nothing, if the action is not allowed."""
        turn = self.turn
        if seat != turn:
            raise self._refusal(seat, action)
        seat = turn  # the engine's own int, however the caller wrote it (2.0, True)
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            raise self._refusal(seat, action)
        if self.phase == PLAY:
            card = action[1]
            if type(card) is not int:  # an equal action spelt oddly (True, 5.0): use ours
                card = legal[legal.index(action)][1]
            hands = self.hands
            hands[seat] ^= BIT[card]
            cards = self.trick_cards
            if cards:
                strength = self._trick_strength[card]
                if strength > self._top:  # the best card so far
                    self._top = strength
                    self._winning = seat
            else:  # the lead: which cards follow it, and how strong each card is now
                self._follow = self._led_mask[card]
                by_strength = self._trick_strength = self._led_strength[card]
                self._top = by_strength[card]
                self._winning = seat
            cards.append(card)
            turn = self._next[seat]
            if turn != self.leader:
                # The trick goes on: the next seat's legal plays, ready for legal_actions().
                self.turn = turn
                hand = hands[turn]
                self._legal = _PLAYS[hand & self._follow or hand]
                return _NO_OUTCOMES
            self._legal = None
            return self._trick_done()
        self._legal = None
        action = legal[legal.index(action)]  # the shared instance, whatever was passed in
        phase = self.phase
        if phase in (NAME_SUIT, FARM, REDEAL):
            self.declarations.append((seat, action))
            return self._declare(seat, action)
        self.bids.append((seat, action))
        if phase == BID1:
            return self._bid_round_one(seat, action)
        if phase == DISCARD:
            card = action.card
            self.hands[seat] ^= BIT[card]
            self.discarded = card
            self.kitty.append(card)
            return self._trump_fixed()
        if phase == BID2:
            return self._bid_round_two(seat, action)
        return self._defend(seat, action)

    def _declare(self, seat: int, action: A.Action) -> tuple:
        phase = self.phase
        if phase == NAME_SUIT:
            self.upcard_suit = action.suit
            return self._before_bidding()
        if phase == FARM:
            if action is _PASS:
                return self._ask_next(seat)
            if action is A.REDEAL_ACTION:  # the redeal form: thrown in, as a redeal is
                return self._throw_in(reason=FARM_REDEAL_REASON, seat=seat)
            card = action.card
            self.hands[seat] ^= BIT[card]
            self.farm_out.append(card)
            if len(self.farm_out) < 3:
                return _NO_OUTCOMES
            # Face down, for the three cards under the upcard; only one farmer a hand.
            kitty = self.kitty
            self.farm_in = kitty[1:4]
            for c in self.farm_in:
                self.hands[seat] |= BIT[c]
            self.kitty = [kitty[0], *self.farm_out, *kitty[4:]]
            self.farmer = seat
            self.asking = ()
            self.phase = BID1
            self.turn = (self.dealer + 1) % 4
            return _NO_OUTCOMES
        if action is _PASS:  # REDEAL
            return self._ask_next(seat)
        return self._throw_in(reason=REDEAL_REASON, seat=seat)

    def _ask_next(self, seat: int) -> tuple:
        """A seat passed in the farm or redeal phase: ask the next, or go on."""
        asking = self.asking = self.asking[1:]
        if asking:
            self.turn = asking[0]
            return _NO_OUTCOMES
        if self.phase == FARM:
            self.phase = BID1
            self.turn = (self.dealer + 1) % 4
            return _NO_OUTCOMES
        return self._defend_or_play()

    def _bid_round_one(self, seat: int, action: A.Action) -> tuple:
        if action is _PASS:
            self.passes += 1
            if self.passes == 4:
                self.phase = BID2
                self.passes = 0
                self.turned_down = self.upcard_suit
                self.upcard_fate = "turned_down"
                self.turn = (self.dealer + 1) % 4
            else:
                self.turn = (seat + 1) % 4
            return _NO_OUTCOMES
        self._make_trump(seat, self.upcard_suit, action.alone, 1)  # the upcard's suit
        if self.out[self.dealer]:
            # The dealer's partner went alone: the dealer sits out and does not pick up.
            self.upcard_fate = "stays_in_kitty"
            return self._trump_fixed()
        self.upcard_fate = "picked_up"
        self.kitty.remove(self.upcard)
        self.hands[self.dealer] |= BIT[self.upcard]
        self.phase = DISCARD
        self.turn = self.dealer
        return _NO_OUTCOMES

    def _bid_round_two(self, seat: int, action: A.Action) -> tuple:
        if action is _PASS:
            self.passes += 1
            if self.passes == 4:
                return self._throw_in()
            self.turn = (seat + 1) % 4
            return _NO_OUTCOMES
        self._make_trump(seat, action.suit, action.alone, 2)
        return self._trump_fixed()

    def _make_trump(self, seat: int, suit: int, alone: bool, round_: int) -> None:
        self.trump = suit
        self._eff = EFFECTIVE_SUIT[suit]
        self._led_mask = LED_MASK[suit]
        self._led_strength = LED_STRENGTH[suit]
        self.maker = seat
        self.maker_round = round_
        self.alone = alone
        if alone:
            self.out[partner(seat)] = True

    def _trump_fixed(self) -> tuple:
        if self.options.no_ace_no_face_no_trump:
            first = (self.dealer + 1) % 4
            hands, out, trump = self.hands, self.out, self.trump
            self.asking = tuple(
                s
                for s in ((first + i) % 4 for i in range(4))
                if not out[s] and no_ace_no_face_no_trump(hands[s], trump)
            )
            if self.asking:
                self.phase = REDEAL
                self.turn = self.asking[0]
                return _NO_OUTCOMES
        return self._defend_or_play()

    def _defend_or_play(self) -> tuple:
        if self.options.defending_alone:
            first = (self.dealer + 1) % 4
            order = [(first + i) % 4 for i in range(4)]
            self.defend_order = tuple(s for s in order if team_of(s) != team_of(self.maker))
            self.phase = DEFEND
            self.turn = self.defend_order[0]
            return _NO_OUTCOMES
        return self._start_play()

    def _defend(self, seat: int, action: A.Action) -> tuple:
        if action is A.DEFEND_ALONE_ACTION:
            self.defender_alone = seat
            self.out[partner(seat)] = True
            return self._start_play()
        if seat == self.defend_order[0]:
            self.turn = self.defend_order[1]
            return _NO_OUTCOMES
        return self._start_play()

    def _start_play(self) -> tuple:
        lead_from = self.dealer
        if self.alone or self.defender_alone is not None:
            out = self.out
            out_mask = out[0] | out[1] << 1 | out[2] << 2 | out[3] << 3
            self._next = NEXT_SEAT[out_mask]
            self._order = TRICK_ORDER[out_mask]
            lone_lead = self.options.lone_lead
            if self.alone and (
                lone_lead == "loner_left" or (lone_lead == "canadian" and self.maker_round == 1)
            ):
                lead_from = self.maker
        # (with no one sitting out, _next and _order keep the four-seat tables of the deal)
        self.leader = self.turn = self._next[lead_from]  # skipping a seat that sits out
        self.phase = PLAY
        return _NO_OUTCOMES

    def _trick_done(self) -> tuple:
        winner = self._winning  # the highest trump, else the highest card of the suit led
        tricks = self.tricks
        tricks.append((self._order[self.leader], tuple(self.trick_cards), winner))
        self.tricks_won[winner] += 1
        self.trick_cards = []
        self._follow = 0
        if len(tricks) < 5:
            self.turn = self.leader = winner
            return ({"type": TRICK_WON, "seat": winner, "trick": len(tricks)},)
        return ({"type": TRICK_WON, "seat": winner, "trick": 5}, *self._score_hand())

    def _score_hand(self) -> tuple:
        makers = self.maker % 2  # the makers' team
        won = self.tricks_won
        taken = won[makers] + won[makers + 2]
        if taken == 5:
            team, points, kind = (
                makers,
                (4 if self.alone else 2),
                ("lone_march" if self.alone else "march"),
            )
        elif taken >= 3:
            team, points, kind = makers, 1, "made"
        elif self.defender_alone is not None:
            team, points, kind = 1 - makers, 4, "euchred_by_lone_defender"
        else:
            team, points, kind = 1 - makers, 2, "euchred"
        self.scores[team] += points
        scored = {
            "type": HAND_SCORED,
            "hand": self.hand_number,
            "team": team,
            "points": points,
            "result": kind,
            "makers": makers,
            "makers_tricks": taken,
            "scores": self.scores[:],
        }
        self.last_hand = last = scored.copy()  # not shared with the caller
        last["scores"] = self.scores[:]
        self._remember_farm()
        if self.scores[team] >= self.options.target_score:
            self.winner = team
            self.phase = FINISHED
            self.turn = None
            return (scored, {"type": MATCH_FINISHED, "winner": team, "scores": self.scores[:]})
        self._next_deal()
        return (scored,)

    def _throw_in(self, reason: str | None = None, seat: int | None = None) -> tuple:
        thrown: dict[str, Any] = {"type": HAND_THROWN_IN, "hand": self.hand_number}
        if reason is not None:  # a called redeal (four passes in round two say nothing more)
            thrown["reason"] = reason
            thrown["seat"] = seat
            thrown["cards"] = [CARD_TEXT[c] for c in cards_of(self.hands[seat])]  # shown to all
        self.last_hand = dict(thrown)
        self._remember_farm()
        self._next_deal()
        return (thrown,)

    def _remember_farm(self) -> None:
        """The hand is over: keep its farmer's exchange for the last hand's summary."""
        farmer = self.farmer
        self.last_farm = (
            None if farmer is None else (farmer, tuple(self.farm_out), tuple(self.farm_in))
        )

    def _next_deal(self) -> None:
        self.dealer = (self.dealer + 1) % 4
        self.phase = DEAL
        self.turn = None

    # ------------------------------------------------------------------ why not

    def _phase_words(self) -> str:
        if self.phase == FARM and self.options.farm_redeal:
            return _FARM_REDEAL_WORDS
        return _PHASE_WORDS[self.phase]

    def _phase_takes(self) -> tuple[str, ...]:
        """The action types the phase takes under this match's options."""
        if self.phase == FARM:
            return (A.PASS, A.REDEAL) if self.options.farm_redeal else (A.PASS, A.FARM)
        return PHASE_ACTIONS[self.phase]

    def _not_your_turn(self, seat: int) -> RuleError:
        if self.phase in (DEAL, FINISHED):
            return RuleError("wrong_phase", f"No one can act now: {self._phase_words()}.")
        if seat not in (0, 1, 2, 3):
            return RuleError("invalid_seat", "A seat is a number from 0 to 3.")
        seat = (0, 1, 2, 3).index(seat)  # 2.0 or True: the seat it equals
        if self.out[seat]:
            return RuleError("sitting_out", "You sit this hand out: your partner went alone.")
        return RuleError(
            "not_your_turn", f"It is {SEAT_NAMES[self.turn]}'s turn, not {SEAT_NAMES[seat]}'s."
        )

    def explain_illegal(self, seat: int, action: A.Action) -> RuleError | None:
        """Why `action` is not legal for `seat` now, as a RuleError (returned, not raised);
        None if it is legal (exactly when apply_action would apply it)."""
        turn = self.turn
        if turn is not None and seat == turn and action in self.legal_actions():
            return None  # an equal action spelt oddly (5.0 for 5) is legal, as applied
        return self._refusal(seat, action)

    def _refusal(self, seat: int, action: A.Action) -> RuleError:
        """Why `action`, not a legal action of `seat` now, is refused. A malformed action
        first, whatever the position and whoever sent it (RuleKind.MALFORMED), then the
        seat (out of turn), then the rules."""
        malformed = _malformed(action)
        if malformed is not None:
            return malformed
        if seat is None or seat != self.turn:  # no one acts between hands and at the end
            return self._not_your_turn(seat)
        seat = self.turn
        legal = self.legal_actions()
        phase = self.phase
        kind = action.type
        if kind not in self._phase_takes():
            return RuleError("wrong_phase", f"You cannot {kind} now: {self._phase_words()}.")
        card, suit, alone = action.card, action.suit, action.alone
        if alone and kind in (A.ORDER_UP, A.CALL) and not self.options.going_alone:
            return RuleError("going_alone_disabled", "Going alone is switched off in this match.")
        if phase == BID2:
            if kind == A.PASS and _PASS not in legal:  # passing is legal but for a stuck dealer
                return RuleError(
                    "dealer_must_call",
                    "Stick the dealer: everyone else passed twice, so the dealer must name a suit.",
                )
            if kind == A.CALL and suit == self.turned_down:
                return RuleError(
                    "cannot_name_turned_down_suit",
                    f"{SUIT_NAMES[self.turned_down].capitalize()} were turned down this hand; "
                    "name another suit.",
                )
        if phase == FARM and kind == A.PASS and self.farm_out:
            return RuleError(
                "farm_under_way",
                f"You have begun a farmer's exchange: put out {3 - len(self.farm_out)} more "
                "of your nines and tens.",
            )
        if kind in (A.PLAY, A.DISCARD, A.FARM) and not self.hands[seat] & BIT[card]:
            return RuleError("card_not_in_hand", f"You do not hold {card_name(card)}.")
        if kind == A.FARM:
            return RuleError(
                "not_a_farmers_card",
                f"A farmer puts out three nines or tens; {card_name(card)} is not one.",
            )
        if phase == PLAY and self.trick_cards and A.PLAY_ACTIONS[card] not in legal:
            # a card held and not legal to play: the seat holds cards of the suit led
            return self._must_follow(seat, card)
        # What is left: fields that make no sense for the action (an order-up naming a card).
        return RuleError("illegal_action", f"You cannot do that now: {self._phase_words()}.")

    def _must_follow(self, seat: int, card: int) -> RuleError:
        trump = self.trump
        eff = EFFECTIVE_SUIT[trump]
        led = eff[self.trick_cards[0]]
        led_name = SUIT_NAMES[led]
        followers = [c for c in cards_of(self.hands[seat]) if eff[c] == led]
        left = make_card(JACK, same_color(trump))
        trump_note = " (trump)" if led == trump else ""
        sentence = (
            f"{led_name.capitalize()}{trump_note} were led and you hold "
            f"{_names(followers)}, so you must follow suit."
        )
        if card == left and suit_of(card) == led:
            sentence = (
                f"{card_name(card).capitalize()} is the left bower: this hand it counts as "
                f"one of the {SUIT_NAMES[trump]}, which are trump, not as one of the {led_name}. "
                + sentence
            )
        elif card == JOKER:
            sentence = f"The joker is the highest trump, not one of the {led_name}. " + sentence
        elif led == trump and left in followers:
            sentence += f" {card_name(left).capitalize()} is the left bower and counts as trump."
        elif led == trump and JOKER in followers:
            sentence += " The joker is the highest trump."
        elif rank_of(card) == JACK and same_color(suit_of(card)) == led:
            sentence += (
                f" {card_name(card).capitalize()} is one of the {SUIT_NAMES[suit_of(card)]}, "
                f"not of the {led_name}: only the jack of trump's colour changes suit."
            )
        return RuleError("must_follow_suit", sentence)


def _malformed(action: object) -> RuleError | None:
    """Why `action` is not a well-formed action at all, or None: not an Action, an unknown
    type, a card or suit its type takes missing (ACTION_FIELDS), a card or suit that is not
    one (an int, strictly: True and 5.0 are not cards), `alone` not true or false."""
    if not isinstance(action, A.Action) or action.type not in A.ACTION_TYPES:
        return RuleError("invalid_action", "That is not an action.")
    kind, takes = action.type, A.ACTION_FIELDS[action.type]
    card, suit = action.card, action.suit
    if card is None and "card" in takes:
        return RuleError("invalid_action", f"A {kind} action names a card.")
    if suit is None and "suit" in takes:
        return RuleError("invalid_action", f"A {kind} action names a suit: a number 0 to 3.")
    if card is not None and (type(card) is not int or not 0 <= card <= JOKER):
        return RuleError("invalid_card", "That is not a card.")
    if suit is not None and (type(suit) is not int or not 0 <= suit <= 3):
        return RuleError("invalid_suit", "That is not a suit: a suit is a number 0 to 3.")
    if action.alone not in (False, True):
        return RuleError("invalid_action", "'alone' must be true or false.")
    return None


def _names(cards: list[int]) -> str:
    names = [card_name(c) for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
