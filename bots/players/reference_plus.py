"""The second reference opponent: the reference's card play with learned bids.

A yardstick built to a fixed recipe, for simulations only (bots.simulation registers it
as "reference_plus"; games.log.levels does not offer it), after the literature's textbook
player that beats plain determinized search by its bids:

- bids from the fitted double-dummy value of each contract (bots/bidding_model.py,
  bots/data/bidding.json): a seat orders up, or names its best suit in round two, when
  the value of its best contract (with the partner or alone) is above the value of
  passing from its place at the table, a threshold for each (round, position from the
  dealer) improved by policy iteration against this same bidding
  (bots/learn_reference_plus.py, bots/data/reference_plus.json); the stuck dealer names
  its best suit;
- going alone, and defending alone: sampled solving. `SAMPLES` deals of the hidden
  cards, each with the contract played both ways (the dealer's discard by the Medium
  rules) and solved exactly; the choice with the best weighted mean;
- each card in the play: the reference's search (40 deals, every legal card solved
  exactly on each, the best total, ties to Medium's card), but with the deals weighed;
- the deals are weighed by the model's reading of the others' bids: each other seat's
  bid has the likelihood sigmoid((value - threshold) / TEMPERATURE) of a bid (one minus
  it for a pass) given the hand the deal gives that seat, and a deal weighs the product
  (a seat that passed is unlikely to hold a hand the model would have bid with);
- the dealer's discard and the variants' decisions (a joker upcard's suit, a farmer's
  hand, a redeal) by the Medium rules. With the joker in the deck the learned model does
  not apply (it was fitted on 24 cards): the bids are then the Medium rules' and the
  deals are not weighed.
"""

import random
from typing import Any

from games.engine import (
    Seen,
    action_from_dict,
    read_view,
    suit_str,
)

from ..fitted_bids import model_bid, thresholds
from ..knowledge import deal_states, sample_hidden
from ..rollout import gone_for_playouts
from .hard import _scores_after, fitted_likelihoods
from .medium import find, seen_rule_action
from .reference import card_search

REFERENCE_PLUS = "reference_plus"  # its name in simulations (not a level people choose)
SAMPLES = 40


def model_applies(seen: Seen) -> bool:
    """The model was fitted on the 24-card deck: not with the joker."""
    return not seen.options.get("joker", False)


def deal_weight(seen: Seen, hands: list[int]) -> float:
    """The likelihood of the others' bids under the model, given the deal `hands` (the
    seat's own bids and defend decisions are not read; a seat whose dealt cards the deal
    does not fix, the dealer that picked up or a farmer, neither)."""
    if not seen.bids or not model_applies(seen):
        return 1.0
    weight = 1.0
    for _, p in fitted_likelihoods(seen, hands):
        weight *= p
    return weight


# ------------------------------------------------------------------ sampled solving


def _weighted_deals(seen: Seen, rng: random.Random, samples: int):
    """`samples` deals of the hidden cards, each with its weight (uniform when every
    weight is 0: no deal explains the bids)."""
    deals = []
    for _ in range(samples):
        hands, kitty = sample_hidden(seen, rng)
        deals.append((hands, kitty, deal_weight(seen, hands)))
    if not any(w for _, _, w in deals):
        deals = [(h, k, 1.0) for h, k, _ in deals]
    return deals


def sampled_values(
    seen: Seen, actions: list[dict[str, Any]], rng: random.Random, samples: int
) -> list[float]:
    """The weighted mean, over sampled deals, of each action's points for the seat's side
    (the rest of the bidding and the discard by the Medium rules, the play solved)."""
    engine_actions = [action_from_dict(a) for a in actions]
    seat, team = seen.seat, seen.seat & 1
    gone, voids = gone_for_playouts(seen), seen.voids
    totals = [0.0] * len(actions)
    for base, (_, _, weight) in deal_states(seen, _weighted_deals(seen, rng, samples)):
        before = base.scores
        for i, action in enumerate(engine_actions):
            state = base.clone()
            state.apply_action(seat, action)
            after, _ = _scores_after(state, before, gone, voids)
            gained = (after[team] - before[team]) - (after[1 - team] - before[1 - team])
            totals[i] += weight * gained
    return totals


def best_total(
    actions: list[dict[str, Any]], totals: list[float], prefer: dict[str, Any]
) -> dict[str, Any]:
    """The action with the best total, `prefer` among those tied for it (pimc's too)."""
    best = max(totals)
    tied = [a for a, t in zip(actions, totals, strict=True) if t >= best - 1e-9]
    return prefer if prefer in tied else tied[0]


def _bid(seen: Seen, rng: random.Random, samples: int) -> dict[str, Any]:
    """Round one or two: the model's bid, alone or not by sampled solving."""
    legal = seen.legal
    position = (seen.seat - seen.dealer) % 4
    alone_ok = any(a.get("alone") for a in legal)
    if seen.phase == "bid1":
        trump = model_bid(seen.hand, 1, position, seen.upcard, None, False, alone_ok, thresholds())
        wanted = {"type": "order_up"}
    else:
        stuck = find(legal, type="pass") is None
        trump = model_bid(
            seen.hand, 2, position, seen.upcard, seen.turned_down, stuck, alone_ok, thresholds()
        )
        wanted = {"type": "call", "suit": suit_str(trump)} if trump is not None else {}
    if trump is None:
        return find(legal, type="pass") or legal[0]
    options = [a for a in legal if all(a.get(k) == v for k, v in wanted.items())]
    if len(options) == 1:
        return options[0]
    totals = sampled_values(seen, options, rng, samples)
    return best_total(options, totals, prefer=find(options, alone=False) or options[0])


def _play(seen: Seen, rng: random.Random, samples: int) -> dict[str, Any]:
    """The reference's card search with the deals weighed."""
    return card_search(seen, _weighted_deals(seen, rng, samples))


def reference_plus_player(
    view: dict[str, Any], rng: random.Random, samples: int = SAMPLES
) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    seen = read_view(view)
    if seen.phase == "play":
        return _play(seen, rng, samples)
    if seen.phase in ("bid1", "bid2") and model_applies(seen):
        return _bid(seen, rng, samples)
    if seen.phase == "defend":
        totals = sampled_values(seen, list(legal), rng, samples)
        return best_total(list(legal), totals, prefer=find(legal, type="pass") or legal[0])
    return seen_rule_action(seen)
