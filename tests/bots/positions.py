"""Positions for the computer-player tests: real engine states met in play."""

import random

from games import engine as E
from games.engine.cards import cards_of, mask_of
from games.engine.seen import Seen, read_view
from tests.engine.helpers import cards, deck_for


def new_hand(dealer: int, hands: dict[int, str], upcard: str, **options) -> E.MatchState:
    state = E.MatchState(E.Options(**options), first_dealer=dealer)
    state.deal(deck_for(dealer, hands, upcard))
    return state


def west_passed_the_nine_of_hearts() -> tuple[Seen, list[int], list[int]]:
    """West (the dealer's left) passed the nine of hearts; north is to bid. North's read
    view, and two deals of the hidden cards: west holding a monster (JH JD AH KH AC) and
    west holding junk (9C TC 9D TD QS), the same east in both."""
    state = new_hand(0, {1: "9C TC 9D TD QS", 2: "9S TS KS QC KD"}, "9H")
    state.apply_action(1, E.PASS)
    seen = read_view(E.player_view(state, 2))
    strong, weak = mask_of(cards("JH JD AH KH AC")), mask_of(cards("9C TC 9D TD QS"))
    east = seen.unknown & ~strong & ~weak & ~(1 << seen.upcard)
    east = mask_of(E.cards_of(east)[:5])
    return seen, [weak, strong, seen.hand, east], [strong, weak, seen.hand, east]


def play(state: E.MatchState, text: str) -> None:
    for c in cards(text):
        state.apply_action(state.turn, E.play(c))


def states_met(seed: int, count: int, level: str = "medium") -> list[E.MatchState]:
    """The first `count` states (clones) met in one seeded match of four players of
    `level`: one before each action."""
    from bots.players import PLAYERS

    rng = random.Random(seed)
    state = E.MatchState(E.Options(), first_dealer=rng.randrange(4))
    found: list[E.MatchState] = []
    step = 0
    while len(found) < count and state.phase != E.FINISHED:
        if state.phase == E.DEAL:
            state.deal(E.seeded_deck(rng))
            continue
        found.append(state.clone())
        step += 1
        seat = state.turn
        action = PLAYERS[level](E.player_view(state, seat), rng)
        state.apply_action(seat, E.action_from_dict(action))
    return found


def hidden_of(state: E.MatchState, seat: int) -> dict[int, list[int]]:
    return {s: cards_of(state.hands[s]) for s in range(4) if s != seat}
