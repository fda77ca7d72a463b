"""The literature's plain determinized search, bids included: the baseline the published
gain of learned bidding was measured against.

Issue 34's anchor is a blog's counterfactual-regret bidding plus determinized card play
scoring 0.77 points a hand against 0.67 for "perfect-information Monte Carlo tree search"
(PIMCTS, 50 deals), which decides its bids the way it decides its cards: on each sampled
deal as if every card were shown. `reference` and `reference_plus` bid otherwise (by the
Medium rules, by fitted contract values), so neither is that baseline; this player is.
For simulations only (bots.simulation registers it as "pimc"):

- every decision before the play with more than one legal action (a bid, going or
  defending alone, the dealer's discard): `SAMPLES` deals of the hidden cards drawn
  uniformly among those that agree with what the seat has seen (bots.knowledge:
  no reading of the bids); on each, each legal action is valued with every card shown:
  each later bid, discard and defence chosen by its seat as best for its own side on
  that deal (perfect-information search over the rest of the bidding,
  bots.solver.action_values), the play solved double-dummy; the best total, ties to the
  Medium rules' action;
- each card: the reference's search (`SAMPLES` uniform deals, every legal card solved);
- the variants' other decisions (a joker upcard's suit, a farmer's hand, a redeal): the
  Medium rules.

Bidding this way suffers strategy fusion (on each deal it knows what the kitty and the
others hold), which is the weakness learned bidding fixes.
"""

import random
from typing import Any

from games.engine import Seen, action_from_dict, read_view

from .. import solver as S
from ..knowledge import deal_states, sample_hidden
from .medium import seen_rule_action
from .reference import card_search
from .reference_plus import best_total

PIMC = "pimc"  # its name in simulations (not a level people choose)
SAMPLES = 40
SEARCHED = ("bid1", "bid2", "defend", "discard")  # decided as if every card were shown


def _open_search(seen: Seen, rng: random.Random, samples: int) -> dict[str, Any]:
    """The legal action with the best total over `samples` uniform deals of its points
    with every card shown (bots.solver.action_values: each later bid, discard and defence
    chosen as best for its side on the deal, the play solved)."""
    actions = list(seen.legal)
    engine_actions = [action_from_dict(a) for a in actions]
    totals = [0.0] * len(actions)
    deals = (sample_hidden(seen, rng) for _ in range(samples))
    for base, _ in deal_states(seen, deals):
        values = S.action_values(base, seen.seat)
        for i, action in enumerate(engine_actions):
            totals[i] += values[action]
    return best_total(actions, totals, prefer=seen_rule_action(seen))


def pimc_player(view: dict[str, Any], rng: random.Random, samples: int = SAMPLES) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    seen = read_view(view)
    if seen.phase == "play":
        return card_search(seen, ((*sample_hidden(seen, rng), 1) for _ in range(samples)))
    if seen.phase in SEARCHED:
        return _open_search(seen, rng, samples)
    return seen_rule_action(seen)
