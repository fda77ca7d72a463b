"""The reference opponent: plain determinized search with a double-dummy solver.

A yardstick built to a fixed recipe, for simulations only (it is not a level people
choose: games.log.levels offers random, easy, medium, hard; bots.simulation registers this
one as "reference"):

- bidding, the dealer's discard and defending alone: the Medium rules (bots/policy.py);
- each card in the play: 40 deals of the hidden cards that agree with what the seat
  has seen (its cards, the cards played, the known kitty cards, the suits each seat
  showed void in: bots.knowledge.sample_hidden; no reading of the bids), each solved
  exactly by the double-dummy solver (bots/solver.py) for every legal card, valued in
  the hand's points for the seat's side; the card with the best total wins, ties to
  the card the Medium rules would play.

This is the literature's "perfect-information Monte Carlo with a double-dummy solver"
card player. The literature's baseline (0.67 points a hand against a learned bidder's
0.77) also searched its bids that way; that whole player is bots/players/pimc.py.
"""

import random
from collections.abc import Iterable
from typing import Any

from games.engine import (
    CARD_BY_TEXT,
    Seen,
    action_from_dict,
    read_view,
)

from .. import solver as S
from ..knowledge import deal_states, sample_hidden
from .hard import candidates
from .medium import seen_rule_action

REFERENCE = "reference"  # its name in simulations (not a level people choose)
SAMPLES = 40


def reference_player(
    view: dict[str, Any], rng: random.Random, samples: int = SAMPLES
) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    seen = read_view(view)
    if seen.phase != "play":
        return seen_rule_action(seen)
    return card_search(seen, ((*sample_hidden(seen, rng), 1) for _ in range(samples)))


def card_search(seen: Seen, deals: Iterable[tuple[list[int], list[int], float]]) -> dict[str, Any]:
    """The card whose weighted total of solved points over `deals` (the hidden hands, the
    kitty, the deal's weight; drawn as the search goes) is the best, ties to the card the
    Medium rules would play: the card play of both reference opponents."""
    rule = seen_rule_action(seen)
    actions = candidates(seen)  # equivalent cards once
    if len(actions) == 1:
        return actions[0]
    engine_actions = [action_from_dict(a) for a in actions]
    seat = seen.seat
    team = seat & 1
    totals = [0] * len(actions)
    for base, (_, _, weight) in deal_states(seen, deals):
        sign = 1 if base.maker % 2 == team else -1
        solver = S.solver_for(base)
        for i, action in enumerate(engine_actions):
            state = base.clone()
            state.apply_action(seat, action)
            totals[i] += weight * sign * S.solve_points(state, solver)
    rule_card = CARD_BY_TEXT.get(rule.get("card", ""), None)
    best = max(totals)
    tied = [a for a, t in zip(actions, totals, strict=True) if t >= best - 1e-9]
    for a in tied:
        if CARD_BY_TEXT[a["card"]] == rule_card:
            return a
    return tied[0]
