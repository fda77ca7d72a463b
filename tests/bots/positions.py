"""Positions for the computer-player tests: real engine states met in play."""

import random

from games import engine as E
from games.engine.cards import cards_of
from tests.engine.helpers import cards, deck_for


def new_hand(dealer: int, hands: dict[int, str], upcard: str, **options) -> E.MatchState:
    state = E.MatchState(E.Options(**options), first_dealer=dealer)
    state.deal(deck_for(dealer, hands, upcard))
    return state


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
