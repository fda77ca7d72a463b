"""The review of a match: every decision of every person, valued after the match.

Two values for each legal action at each decision a person made:

- **from what the seat knew** (`knew_values`): the seat's own view only
  (`games.engine.player_view`, the same dict the API gave the person then), the hidden
  cards dealt many ways that agree with it (bots/knowledge.py, weighed by the bids as
  Hard weighs them: bots/players/hard.py `_sample`), each deal valued by the Hard
  machinery: in the play, every legal card solved exactly to the end of the hand by
  the double-dummy solver when bots/solver.py is there, else played out by the Medium
  rules (bots/rollout.py); bids and discards are played out. The value is the hand's
  points from the seat's side (its team's points minus the opponents'), averaged over
  the deals. The points the chosen action gave up are the best action's value less
  the chosen one's. This part never reads a hidden card (a test deals the hidden cards
  otherwise, with the same view, and gets the same values).
- **with all cards shown** (`shown_values`): the real deal, solved exactly
  (double-dummy, the bidding too): what was possible, not what the person could have
  known.

A choice is a mistake when it gave up at least `threshold` points and more than two
standard errors of the paired difference over the deals (sampling noise alone is not a
mistake). Each mistake gets a sentence: what was played, what it gave up, why it was worse
(bots/reasons.py: from what the seat knew, a reason picked by comparing the chosen action
with the best) and why the better action was better (bots/hints.py `explain`).

Pure: engine states in, plain dicts out; bots/services.py reads the log and stores it.
"""

import random
import zlib
from dataclasses import dataclass, field
from typing import Any

from games.engine import (
    BID1,
    BID2,
    CARD_BY_TEXT,
    DEFEND,
    DISCARD,
    PLAY,
    SUIT_BY_LETTER,
    SUIT_NAMES,
    MatchState,
    action_from_dict,
    card_name,
    cards_of,
    player_view,
    read_view,
    state_from_view,
    with_hands,
)

from . import solver as _solver
from .hints import explain
from .players.hard import Budget, _sample, _scores_after, candidates
from .reasons import named, reason
from .rollout import gone_for_playouts, play_out

# From what the seat knew, each sampled deal is solved exactly from the discard on; a bid
# is valued as Hard values one: the rest of the bidding by the Medium rules, then the play
# solved (solving the rest of the bidding with every card shown too costs about 0.1 s a
# deal, and assumes the others bid seeing every card).
SOLVED_PHASES = frozenset({DISCARD, DEFEND, PLAY})

# Of the stored review's shape and method; a review of another version is rebuilt.
# 2: the mistakes' sentences give a reason (bots/reasons.py).
VERSION = 2


@dataclass(frozen=True, slots=True)
class ReviewBudget:
    samples: int = 32  # deals of the hidden cards per decision
    bid_factor: float = 1.5  # bids are played out from further away: more deals
    threshold: float = 0.25  # points given up from which a choice is a mistake
    close: float = 0.1  # a choice within this of the best counts as accurate
    noise: float = 2.0  # standard errors the loss must also exceed
    per_hand: int = 3  # mistakes shown per hand, the biggest first
    belief: float = 0.25  # as Hard: odds of keeping a deal per bid it does not explain
    solver: bool = True  # use bots/solver.py when it is there


DEFAULT_REVIEW_BUDGET = ReviewBudget()


@dataclass(slots=True)
class Decision:
    """One decision of a person, as logged: the state just before it, and what they did."""

    seq: int  # the seq of the event that logged the action
    hand: int
    seat: int
    state: MatchState
    action: dict[str, Any]


@dataclass(slots=True)
class Valued:
    actions: list[dict[str, Any]]
    values: list[float]  # mean over the deals, hand points from the seat's side
    per_deal: list[list[float]] = field(default_factory=list)  # [deal][action]
    method: str = "playouts"


def _key(action: dict[str, Any]) -> tuple:
    return tuple(sorted(action.items()))


def _solver_values(state: MatchState, seat: int, actions: list[dict[str, Any]]) -> list[float]:
    values = _solver.action_values(state, seat)
    by_key = {_key(a.to_dict() if hasattr(a, "to_dict") else a): v for a, v in values.items()}
    return [float(by_key[_key(a)]) for a in actions]


def _deal_values(
    state: MatchState,
    seat: int,
    actions: list[dict[str, Any]],
    budget: ReviewBudget,
    gone: int,
    voids: list[int],
    solved: frozenset[str] = SOLVED_PHASES,
) -> tuple[list[float], str]:
    """Each action's value on one full deal (a sampled one, or the real one). In the
    `solved` phases every action is solved exactly (bots/solver.py action_values, the
    bidding too when asked); otherwise as Hard values a bid: the bidding left by the
    Medium rules, then the play solved (hard._scores_after), or without the solver the
    whole hand played out by the Medium rules."""
    if budget.solver and state.phase in solved:
        return _solver_values(state, seat, actions), "solver"
    team = seat & 1
    before = state.scores
    out = []
    for a in actions:
        s = state.clone()
        s.apply_action(seat, action_from_dict(a))
        if budget.solver:
            after, _gained = _scores_after(s, list(before), gone, voids)
        else:
            play_out(s, gone, voids)
            after = s.scores
        out.append(float((after[team] - before[team]) - (after[1 - team] - before[1 - team])))
    return out, "solver" if budget.solver else "playouts"


def knew_values(view: dict[str, Any], rng: random.Random, budget: ReviewBudget) -> Valued:
    """Each legal action's value from the seat's view alone (see the module's docstring)."""
    seen = read_view(view)
    actions = list(seen.legal)
    seat = seen.seat
    hard = Budget(belief=budget.belief)
    gone = gone_for_playouts(seen)
    samples = budget.samples
    if seen.phase in ("bid1", "bid2"):
        samples = int(samples * budget.bid_factor)
    per_deal = []
    template = None
    method = "playouts"
    for _ in range(samples):
        hands, kitty = _sample(seen, rng, hard)
        if template is None:
            # every seat's: the seat's own too when its view hides them (a joker upcard's
            # suit is named before looking)
            hidden = {s: cards_of(hands[s]) for s in range(4)}
            template = state = state_from_view(seen, hidden, kitty)
        else:
            state = with_hands(template, hands, kitty)
        values, method = _deal_values(state, seat, actions, budget, gone, seen.voids)
        per_deal.append(values)
    means = [sum(d[i] for d in per_deal) / len(per_deal) for i in range(len(actions))]
    return Valued(actions, means, per_deal, method)


def shown_values(state: MatchState, seat: int, budget: ReviewBudget) -> Valued:
    """Each legal action's value with every card shown: the real deal, solved exactly
    (double-dummy; in the bidding every seat then bids as is best with every card shown)."""
    actions = [a.to_dict() for a in state.legal_actions()]
    view = read_view(player_view(state, seat))
    gone = gone_for_playouts(view)
    every = frozenset({BID1, BID2, *SOLVED_PHASES})
    values, method = _deal_values(state.clone(), seat, actions, budget, gone, view.voids, every)
    return Valued(actions, values, [values], "double_dummy" if method == "solver" else method)


def _se(per_deal: list[list[float]], best: int, chosen: int) -> float:
    n = len(per_deal)
    if n < 2:
        return 0.0
    diffs = [d[best] - d[chosen] for d in per_deal]
    mean = sum(diffs) / n
    var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
    return (var / n) ** 0.5


def decision_seed(match_seed: str, seq: int) -> int:
    """The deals for a decision depend on the match and the decision only, so a review
    rebuilt is the same review."""
    return zlib.crc32(f"{match_seed}:{seq}".encode())


def review_decision(
    decision: Decision, budget: ReviewBudget = DEFAULT_REVIEW_BUDGET, match_seed: str = ""
) -> dict[str, Any] | None:
    """The review of one decision, or None when there was no choice to make."""
    state, seat = decision.state, decision.seat
    view = player_view(state, seat)
    seen = read_view(view)
    if len(view["legal_actions"]) < 2 or len(candidates(seen)) < 2:
        return None  # no choice: one legal action, or only cards that are the same card
    knew = knew_values(view, random.Random(decision_seed(match_seed, decision.seq)), budget)
    keys = [_key(a) for a in knew.actions]
    # The logged action in the engine's own form (the same as the view's legal actions).
    chosen = keys.index(_key(action_from_dict(decision.action).to_dict()))
    best = max(range(len(keys)), key=lambda i: (knew.values[i], i == chosen))
    loss = knew.values[best] - knew.values[chosen]
    se = _se(knew.per_deal, best, chosen)
    shown = shown_values(state, seat, budget)
    shown_keys = [_key(a) for a in shown.actions]
    shown_by_key = dict(zip(shown_keys, shown.values, strict=True))
    shown_best = max(shown.values)
    mistake = loss >= budget.threshold and loss > budget.noise * se
    out = {
        "seq": decision.seq,
        "hand": decision.hand,
        "seat": seat,
        "phase": view["phase"],
        "action": knew.actions[chosen],
        "best": knew.actions[best],
        "loss": round(loss, 3),
        "noise": round(se, 3),
        "mistake": mistake,
        "accurate": loss < budget.close,
        "values": [
            {
                "action": a,
                "value": round(v, 3),
                "shown": round(shown_by_key[_key(a)], 3),
            }
            for a, v in zip(knew.actions, knew.values, strict=True)
        ],
        "shown_loss": round(shown_best - shown.values[shown_keys.index(keys[chosen])], 3),
        "method": knew.method,
        "shown_method": shown.method,
    }
    if mistake:
        out["sentence"] = sentence(seen, knew.actions[chosen], knew.actions[best], loss)
    return out


# ---------------------------------------------------------------- sentences


def _doing(seen: Any, action: dict[str, Any]) -> str:
    """'leading the ace of clubs', 'passing', 'ordering it up alone', 'naming hearts'."""
    kind = action["type"]
    alone = " alone" if action.get("alone") else ""
    if kind == "play":
        name = named(seen, CARD_BY_TEXT[action["card"]])
        return f"leading {name}" if not seen.trick_cards else f"playing {name}"
    if kind == "discard":
        return f"discarding {named(seen, CARD_BY_TEXT[action['card']])}"
    if kind == "order_up":
        return ("picking it up" if seen.seat == seen.dealer else "ordering it up") + alone
    if kind == "call":
        return f"calling {SUIT_NAMES[SUIT_BY_LETTER[action['suit']]]}{alone}"
    if kind == "defend_alone":
        return "defending alone"
    if kind == "name_suit":
        return f"naming {SUIT_NAMES[SUIT_BY_LETTER[action['suit']]]}"
    if kind == "farm":
        return f"putting out {card_name(CARD_BY_TEXT[action['card']])}"
    if kind == "redeal" and seen.phase == "farm":  # a farmer's hand, the redeal form
        return "asking for a new deal"
    if kind == "redeal":
        return "calling a redeal"
    if kind == "pass" and seen.phase == "farm":  # a farmer's hand kept
        return "keeping the hand"
    return "passing"


def sentence(seen: Any, chosen: dict[str, Any], best: dict[str, Any], loss: float) -> str:
    """'leading the ace of clubs gave up about 0.6 points: east had shown out of clubs;
    better: lead the right bower: it is the highest trump left, ...' (the reason after
    the colon: bots/reasons.py, from what the seat knew)."""
    words = f"{_doing(seen, chosen)} gave up about {loss:.1f} points"
    why = reason(seen, chosen, best)
    if why:
        words += f": {why}"
    return f"{words}; better: {explain(seen, best)}"


# ---------------------------------------------------------------- a whole match


def review_match(
    decisions: list[Decision],
    people: dict[int, str],
    budget: ReviewBudget = DEFAULT_REVIEW_BUDGET,
    match_seed: str = "",
) -> dict[str, Any]:
    """The review of a match from its people's decisions: per hand the biggest mistakes,
    per person (seat) the accuracy and the points given up."""
    reviewed = [r for d in decisions if (r := review_decision(d, budget, match_seed))]
    hands: dict[int, list[dict[str, Any]]] = {}
    for r in reviewed:
        hands.setdefault(r["hand"], []).append(r)
    by_hand = []
    for number in sorted(hands):
        found = hands[number]
        mistakes = sorted((r for r in found if r["mistake"]), key=lambda r: -r["loss"])
        by_hand.append(
            {
                "hand": number,
                "decisions": len(found),
                "mistakes": [_mistake(r) for r in mistakes[: budget.per_hand]],
                "points_lost": round(sum(r["loss"] for r in found), 3),
            }
        )
    players = []
    for seat in sorted(people):
        mine = [r for r in reviewed if r["seat"] == seat]
        players.append(
            {
                "seat": seat,
                "username": people[seat],
                "decisions": len(mine),
                "accurate": sum(r["accurate"] for r in mine),
                "accuracy": round(100 * sum(r["accurate"] for r in mine) / len(mine), 1)
                if mine
                else None,
                "mistakes": sum(r["mistake"] for r in mine),
                "points_lost": round(sum(r["loss"] for r in mine), 3),
                "points_lost_shown": round(sum(r["shown_loss"] for r in mine), 3),
            }
        )
    return {
        "version": VERSION,
        "method": _method(reviewed),
        "threshold": budget.threshold,
        "samples": budget.samples,
        "hands": by_hand,
        "players": players,
        "decisions": reviewed,
    }


def _method(reviewed: list[dict[str, Any]]) -> str:
    return "solver" if any(r["method"] == "solver" for r in reviewed) else "playouts"


def _mistake(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "seq": r["seq"],
        "seat": r["seat"],
        "phase": r["phase"],
        "action": r["action"],
        "best": r["best"],
        "loss": r["loss"],
        "shown_loss": r["shown_loss"],
        "sentence": r["sentence"],
    }
