"""What each seat may see. Every outbound path (API, events, streams, bots) goes through here.

player_view(state, seat): exactly what a person at that seat knows: their own
cards, the upcard (dealt face up, so everyone saw it, and everyone saw whether
the dealer took it), every bid, trump, makers, who is alone and who sits out,
the cards played in the current and completed tricks, trick counts, scores,
whose turn, and that seat's legal actions. The dealer's discard is shown to
the dealer alone. No other hand, no kitty, no deck.
spectator_view(state): the same with no hand at all.
full_view(state): everything, for replays of finished matches and audits.
"""

from typing import Any

from .cards import CARD_TEXT, SUIT_LETTERS
from .errors import RuleError
from .state import DEAL, FARM, NAME_SUIT, SEAT_NAMES, MatchState


def _cards(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def _check_state(state: object) -> None:
    if not isinstance(state, MatchState):
        raise RuleError("invalid_state", "A view is of a MatchState.")


def _copy(outcome: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of an outcome dict, so that changing a view never changes the state."""
    if outcome is None:
        return None
    return {k: (v[:] if isinstance(v, list) else v) for k, v in outcome.items()}


def _public(state: MatchState) -> dict[str, Any]:
    view: dict[str, Any] = {
        "phase": state.phase,
        "options": state.options.to_dict(),
        "scores": state.scores[:],
        "winner": state.winner,
        "dealer": state.dealer,
        "hand_number": state.hand_number,
        "turn": state.turn,
        "last_hand": _last_hand(state),
    }
    if state.phase == DEAL or state.deck is None:
        view["hand"] = None
        return view
    view["hand"] = {
        "upcard": CARD_TEXT[state.upcard],
        "upcard_fate": state.upcard_fate,
        "turned_down": SUIT_LETTERS[state.turned_down] if state.turned_down is not None else None,
        "bids": [{"seat": s, **a.to_dict()} for s, a in state.bids if a.type != "discard"],
        "trump": SUIT_LETTERS[state.trump] if state.trump is not None else None,
        "maker": state.maker,
        "alone": state.maker if state.alone else None,
        "defender_alone": state.defender_alone,
        "sitting_out": [s for s in range(4) if state.out[s]],
        "discarded": state.discarded is not None,
        "hand_sizes": [h.bit_count() for h in state.hands],
        "current_trick": [
            {"seat": s, "card": CARD_TEXT[c]}
            for s, c in zip(state.trick_seats, state.trick_cards, strict=True)
        ],
        "tricks": [
            {
                "leader": seats[0],
                "cards": [
                    {"seat": s, "card": CARD_TEXT[c]} for s, c in zip(seats, cards, strict=True)
                ],
                "winner": winner,
            }
            for seats, cards, winner in state.tricks
        ],
        "tricks_won": state.tricks_won[:],
    }
    options = state.options
    if options.joker:  # the upcard's suit: a joker's is named by the dealer or fixed
        suit = state.upcard_suit
        view["hand"]["upcard_suit"] = SUIT_LETTERS[suit] if suit is not None else None
    if options.farm_exchange:  # who exchanged, never which cards
        view["hand"]["farmer"] = state.farmer
    return view


def _last_hand(state: MatchState) -> dict[str, Any] | None:
    """How the last hand ended; with the farmers_hand option in its exchange form, who
    exchanged in it (never which cards: player_view adds those for the farmer alone)."""
    last = _copy(state.last_hand)
    if last is not None and state.options.farm_exchange:
        last["farmer"] = state.last_farm[0] if state.last_farm is not None else None
    return last


def spectator_view(state: MatchState) -> dict[str, Any]:
    _check_state(state)
    view = _public(state)
    view["seat"] = None
    view["legal_actions"] = []
    return view


def player_view(state: MatchState, seat: int) -> dict[str, Any]:
    _check_state(state)
    if type(seat) is not int or seat not in (0, 1, 2, 3):
        raise RuleError("invalid_seat", "A seat is a number from 0 to 3.")
    view = _public(state)
    view["seat"] = seat
    view["seat_name"] = SEAT_NAMES[seat]
    if view["hand"] is not None:
        hand = view["hand"]
        if state.phase == NAME_SUIT and seat == state.dealer:
            # The dealer names a joker upcard's suit before looking at their hand.
            hand["cards"] = []
            hand["cards_hidden"] = True
        else:
            hand["cards"] = _cards(state.hand_of(seat))
        if seat == state.dealer and state.discarded is not None:
            hand["my_discard"] = CARD_TEXT[state.discarded]
        farming = state.phase == FARM and state.farm_out and seat == state.turn
        if seat == state.farmer or farming:
            # Only the farmer knows what it put out and what it took (once the exchange is
            # done the turn moves on: the seat to act next is not the farmer).
            hand["my_farm"] = {"gave": _cards(state.farm_out), "got": _cards(state.farm_in)}
    farm = state.last_farm
    if farm is not None and farm[0] == seat and view["last_hand"] is not None:
        view["last_hand"]["my_farm"] = {"gave": _cards(farm[1]), "got": _cards(farm[2])}
    legal = state.legal_actions() if state.turn == seat else ()
    view["legal_actions"] = [a.to_dict() for a in legal]
    return view


def full_view(state: MatchState) -> dict[str, Any]:
    _check_state(state)
    view = _public(state)
    view["seat"] = None
    view["legal_actions"] = [a.to_dict() for a in state.legal_actions()]
    if view["hand"] is not None:
        view["hand"]["hands"] = [_cards(state.hand_of(s)) for s in range(4)]
        view["hand"]["kitty"] = _cards(state.kitty)
        view["hand"]["deck"] = _cards(state.deck)
        view["hand"]["discard"] = (
            CARD_TEXT[state.discarded] if state.discarded is not None else None
        )
        if state.options.farm_exchange:
            view["hand"]["farm"] = {
                "seat": state.farmer,
                "gave": _cards(state.farm_out),
                "got": _cards(state.farm_in),
            }
    return view
