"""One next card for all the deals that look alike: a remedy for strategy fusion.

Hard values a card by solving each sampled deal double-dummy (bots/players/hard.py), as
if it would know every hidden card at its later decisions: in one deal it takes the
finesse, in another it drops the king, though at the table it cannot tell the two deals
apart and must play the same card in both. That overvalues lines that end in a guess.

With `Budget.next_choice`, late in a hand Hard looks one decision further: after each
candidate card, in each deal, the others play on double-dummy (each the card best for its
side, the first in legal order among equals) until it is the seat's turn again; the
deals in which the same cards fell then look alike to the seat, and its next card is
the one best over all of them together, not deal by deal. Later decisions are still
solved double-dummy, and so are the others' (the pessimistic view of the alpha-mu search
for Bridge card play, Cazenave and Ventos 2019, at depth two).
"""

from collections import defaultdict
from collections.abc import Callable, Sequence

from games.engine import PLAY, MatchState

from .solver import action_values, state_value

# What the seat sees between its card and its next turn (the cards played, in order),
# and, for each of its legal cards then (None: the hand ended first), the hand's points
# for its side, double-dummy.
Branch = tuple[tuple[int, ...], dict[int | None, int]]


def branch(state: MatchState, seat: int) -> Branch:
    """From `state` (just after the seat's card), the others' double-dummy play up to the
    seat's next turn, and the points each of its cards then gives its side."""
    team = seat % 2
    seen: list[int] = []
    while state.phase == PLAY and state.turn != seat:
        mover = state.turn
        values = action_values(state, mover)
        best = max(values.values())
        action = next(a for a, v in values.items() if v == best)
        state.apply_action(mover, action)
        seen.append(action.card)
    if state.phase != PLAY:
        return tuple(seen), {None: state_value(state, team)}
    values = action_values(state, seat)
    return tuple(seen), {a.card: v for a, v in values.items()}


def fused_values(branches: Sequence[Branch], value_of: Callable[[int], float]) -> list[float]:
    """Each deal's value of one candidate card (`branches[i]`: deal i's), the next card
    chosen once for each set of deals that look alike: the card whose summed value
    (`value_of`: the points for the seat's side -> the search's value) is highest there."""
    totals: dict[tuple[int, ...], dict[int | None, float]] = defaultdict(lambda: defaultdict(float))
    for seen, points in branches:
        for card, p in points.items():
            totals[seen][card] += value_of(p)
    chosen = {
        seen: max(sums, key=lambda card: (sums[card], -(card or 0)))
        for seen, sums in totals.items()
    }
    return [value_of(points[chosen[seen]]) for seen, points in branches]
