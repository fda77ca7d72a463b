"""Shared helpers for the engine tests: decks built to order, scripted hands, searches.

Cards are written in the engine's notation ("JH", "TD"); a hand is a string of
cards separated by spaces or commas, and symbols ("J♦", "10♦") are accepted too.
"""

from games import engine as E
from games.engine.cards import EFFECTIVE_SUIT

S, W, N, EAST = 0, 1, 2, 3  # south ("you" in the rules documents), west, north, east
SEAT_BY_NAME = {"you": S, "south": S, "west": W, "north": N, "east": EAST}


def cards(text: str) -> list[int]:
    """'JD, KD, A♣' -> [card, card, card]."""
    return [E.parse_card(t) for t in text.replace(",", " ").split()]


def names(cs) -> list[str]:
    return [E.card_str(c) for c in cs]


def deck_for(dealer: int, hands: dict[int, str], upcard: str | None = None) -> list[int]:
    """A deck order that deals each seat in `hands` the cards given (up to five; the
    rest of a hand and any seat not named is filled from the unused cards, lowest
    card first) and turns `upcard` up. Follows the engine's convention (deal.py):
    deck[0:5] to the dealer's left, then the next seats, deck[15:20] to the dealer,
    deck[20] the upcard."""
    wanted = {seat: cards(text) for seat, text in hands.items()}
    up = [E.parse_card(upcard)] if upcard else []
    used = [c for cs in wanted.values() for c in cs] + up
    assert len(used) == len(set(used)), "a card is given twice"
    spare = [c for c in E.DECK if c not in used]
    deck: list[int] = []
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        hand = wanted.get(seat, [])
        assert len(hand) <= 5
        while len(hand) < 5:
            hand.append(spare.pop(0))
        deck += hand
    deck += up or [spare.pop(0)]
    deck += spare
    assert sorted(deck) == list(E.DECK)
    return deck


def new_hand(
    dealer: int, hands: dict[int, str], upcard: str | None = None, **options
) -> E.MatchState:
    state = E.MatchState(E.Options(**options), first_dealer=dealer)
    state.deal(deck_for(dealer, hands, upcard))
    return state


def act(state: E.MatchState, seat: int, action: E.Action) -> tuple:
    return state.apply_action(seat, action)


def pass_round(state: E.MatchState, count: int = 4) -> None:
    """`count` seats pass in turn."""
    for _ in range(count):
        state.apply_action(state.turn, E.PASS)


def play_cards(state: E.MatchState, text: str) -> list[dict]:
    """Each card is played by the seat whose turn it is; returns all outcomes."""
    outcomes: list[dict] = []
    for c in cards(text):
        outcomes += state.apply_action(state.turn, E.play(c))
    return outcomes


def legal_cards(state: E.MatchState) -> set[str]:
    return {E.card_str(a.card) for a in state.legal_actions() if a.type == "play"}


def first_trick_deck(trump: int, dealer: int, plays: list[tuple[int, int]]) -> list[int]:
    """A deck for a first trick in which `plays` ((seat, card) in the order played,
    starting at the dealer's left) is legal: every seat's other cards avoid the suit
    led, and the upcard is of a suit other than trump, so the dealer's left can call
    trump in round two and lead."""
    eff = EFFECTIVE_SUIT[trump]
    led = eff[plays[0][1]]
    trick = [c for _, c in plays]
    others = [c for c in E.DECK if c not in trick and eff[c] != led]
    upcard = next(c for c in E.DECK if c not in trick and c not in others[:16] and c // 6 != trump)
    hands = {}
    for i, (seat, c) in enumerate(plays):
        hands[seat] = " ".join(names([c, *others[4 * i : 4 * i + 4]]))
    return deck_for(dealer, hands, E.card_str(upcard))


def find_line(state: E.MatchState, goal, limit: int = 200_000):
    """Depth-first search over legal actions for a line from `state` to a state
    where goal(state, outcomes_so_far) is true. Returns (actions, outcomes, final
    state) for the first line found, or None. Every step is a real apply_action."""
    budget = [limit]

    def search(st, line, outcomes):
        verdict = goal(st, outcomes)
        if verdict is not None:
            return (line, outcomes, st) if verdict else None
        budget[0] -= 1
        if budget[0] < 0 or st.turn is None:
            return None
        for action in st.legal_actions():
            child = st.clone()
            result = search(
                child,
                [*line, (child.turn, action)],
                outcomes + list(child.apply_action(child.turn, action)),
            )
            if result:
                return result
        return None

    return search(state.clone(), [], [])


def makers_reach(tricks: int):
    """A goal for find_line: the hand is scored with the makers holding `tricks` tricks.
    Returns None (keep going) while the hand is open and prunes impossible lines."""

    def goal(st, outcomes):
        for o in outcomes:
            if o["type"] == "hand_scored":
                return o["makers_tricks"] == tricks
        if st.maker is None:
            return None
        team = st.maker % 2
        makers = st.tricks_won[team] + st.tricks_won[team + 2]
        defenders = len(st.tricks) - makers
        if makers > tricks or defenders > 5 - tricks:
            return False
        return None

    return goal


def random_hand(state: E.MatchState, rng) -> list[dict]:
    """Play random legal actions until the hand ends; returns the outcomes."""
    outcomes: list[dict] = []
    while state.turn is not None:
        legal = state.legal_actions()
        outcomes += state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    return outcomes
