"""Hard: determinized Monte Carlo (perfect-information Monte Carlo, PIMC).

For a decision with more than one sensible choice, Hard
1. reads the view once (games.engine.read_view) and deals the cards its seat
   cannot see in many ways that agree with everything the seat has seen
   (bots/knowledge.py: the other hands' sizes, the upcard in the dealer's hand
   until played, the suits each seat showed void in, the turned-down card and
   its own discard in the kitty), preferring deals in which the others' bids
   make sense: a deal where a seat's bid is not the one the Medium rules would
   make from that seat's cards is kept only with odds `belief` per such bid (and,
   with `play_belief` below 1, with those odds per card played this hand that the
   Medium rules would not have played from the hand the deal gives: bots/inference.py);
2. rebuilds an engine state for each deal (games.engine.state_from_view, from
   the same read view), and for each candidate action applies it, finishes the
   bidding by the Medium rules if it is not over, and solves the play exactly
   with every card of that deal shown (bots/solver.py, double-dummy); with
   `Budget(solver=False)` it plays the hand out with the Medium rules for every
   seat instead (bots/rollout.py), as Hard did before the solver;
3. scores each result as the chance of winning the match from the new score and
   keeps the action the Medium rules would choose unless another beats it by
   more than `margin` standard errors of the paired difference (the same deals
   for every action).

Bidding is decided the same way: each bid (pass, order up, alone, each suit) is
valued over the deals, the later bids of every seat by the Medium rules. Cards
that are equivalent (touching in rank once the cards between them are gone) are
searched once.

The budget is counted, not timed: `samples` deals at most and `playouts`
playouts at most per decision, so a decision takes the same work and gives the
same action every time for the same view and seed. `seconds` is an optional
wall-clock cap (off by default, and when it applies determinism is lost).
"""

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from games.engine import (
    CARD_BY_TEXT,
    EFFECTIVE_SUIT,
    SUIT_BY_LETTER,
    Seen,
    action_from_dict,
    cards_of,
    read_view,
    state_from_view,
    with_hands,
)

from .. import bid_policy as BP
from .. import bidding_model as learned
from .. import fitted_bids, play_bias
from .. import next_choice as NC
from .. import policy as P
from .. import solver as S
from ..inference import play_misses
from ..knowledge import sample_hidden
from ..play_model import play_model_odds
from ..rollout import gone_for_playouts, play_out, policy_action
from .medium import rule_action, seen_rule_action


@dataclass(frozen=True, slots=True)
class Budget:
    samples: int = 48  # deals of the hidden cards per decision, at most
    playouts: int = 240  # playouts per decision over all candidate actions, at most
    seconds: float | None = None  # optional wall-clock cap (breaks determinism when hit)
    belief: float = 0.25  # odds of keeping a deal for each bid it does not explain
    # The same for the partner's bids, if not `belief` (None): a partner that searches, as
    # Hard does, bids as the Medium rules do less often than a Medium opponent.
    belief_partner: float | None = None
    # Odds of keeping a deal for each of the others' plays this hand it does not explain
    # (bots/inference.py: not the Medium rules' card from that hand). 1.0: plays not read.
    # 0.4: near the odds Bayes gives a miss (benchmarks/play_reading.py: 0.28 for Hard's
    # plays, 0.53 for reference_plus's), and +0.016 a hand over 8,000 deal pairs against
    # reference_plus (docs/bots/figures.md); 0.05 and 0.1 read too strictly.
    play_belief: float = 0.4
    # The same for the partner's plays, if not `play_belief` (None): Hard's partner is
    # Hard, whose plays the Medium rules explain less often (the odds a miss 0.28, an
    # opponent's 0.53 against reference_plus: benchmarks/play_reading.py). 0.25: -0.002 a
    # hand over 3,691 deal pairs against reference_plus (docs/bots/figures.md): off.
    play_belief_partner: float | None = None
    tries: int = 12  # deals drawn per kept deal, at most, when weighing bids
    margin: float = 1.0  # standard errors by which an action must beat the rule action
    bid_factor: float = 2.0  # bids are few and weigh most: this many times the budget
    match_aware: bool = True  # score hands by the chance of winning the match, not points
    search_phases: tuple[str, ...] = ("bid1", "bid2", "discard", "defend", "play")
    # Value each candidate by the double-dummy solver (bots/solver.py) on each deal, the
    # bidding after it finished by the Medium rules, instead of a Medium playout.
    solver: bool = True
    # The default bid's "alone" from the fitted double-dummy values (bots/bidding_model.py)
    # instead of the Medium rules' can_take_all. Off: +0.000 in duplicate play, 2 deals of
    # 1,316 changed (docs/bots/figures.md).
    learned_alone: bool = False
    # Points added to the value of making trump (ordering up or calling), and more to
    # going alone: the solver's defenders see the makers' cards, which they do not at a
    # table, so a contract may do worse double-dummy than in play. 0: none (docs/bots/figures.md,
    # "Hard variants").
    maker_bonus: float = 0.0
    alone_bonus: float = 0.0
    # A bid's contracts valued as they go in play, not double-dummy: the solver's points
    # plus what bots/play_bias.py fitted the table to give over them (the solver's first
    # lead is never a guess). Bids only; a card's candidates share one contract.
    play_bias: bool = False
    # Bids by the policy learned by self-play (bots/bid_policy.py, bots/learn_bids.py)
    # instead of the Medium rules, where it applies (the standard bidding): Hard's own
    # default bid, every later bid of the search's deals, and the reading of the others'
    # bids (a deal kept with odds learned_floor + (1 - learned_floor) * the policy's
    # chance of each bid given the cards the deal gives that seat).
    learned_bids: bool = False
    learned_floor: float = 0.25  # as `belief`: 0.1 measured worse against the reference
    # The reading's model of the others' bids: this weight on the learned policy's chance
    # of each bid, the rest on whether the Medium rules would have made it (1.0: the
    # learned policy alone).
    learned_mix: float = 1.0
    # Which learned policy (bots/bid_policy.py): 1 the first abstraction (the fitted
    # values' buckets, bots/data/bid_cfr.json.gz), 2 the richer one (with the hand's
    # trumps, bowers, side aces, the upcard's rank, next; bots/data/bid_cfr2.json.gz).
    learned_abstraction: int = 1
    # The opponents' bids read and continued by the fitted contract values and thresholds
    # (bots/fitted_bids.py, the model reference_plus bids by: a bidder who bids by a hand's
    # worth) instead of the Medium rules or the learned policy, where the standard bidding
    # applies: a deal kept with odds belief + (1 - belief) * the model's chance of each of
    # the opponents' bids, and their later bids in each searched deal the model's. The
    # partner's bids are read and continued as before.
    fitted_opponents: bool = False
    # The partner's bids read and continued by the same fitted model (the partner is Hard,
    # whose bids come from a search, not the Medium rules), as `fitted_opponents` does for
    # the opponents'.
    fitted_partner: bool = False
    # From this many cards in the seat's hand down to three, its next card is chosen once
    # for all the deals in which the same cards fall before it, not deal by deal (strategy
    # fusion: bots/next_choice.py). 0: off, every later card double-dummy. 5 and 3 changed
    # 27 and 4 deals of 3,916 against reference_plus, +0.001 and +0.000 a hand: off.
    next_choice: int = 0
    # The others' plays read by the model fitted to Hard's and reference_plus's own plays
    # (bots/play_model.py: each legal card's chance, not the Medium rules' card or not)
    # in place of `play_belief`'s reading: a deal kept with odds, for each play, the
    # chance of the card played over the likeliest card's, to this power. 0: off.
    play_model: float = 0.0


DEFAULT_BUDGET = Budget()


@dataclass(slots=True)
class Search:
    """The outcome of one decision: each candidate with its average score."""

    seen: Seen
    actions: list[dict[str, Any]]
    scores: list[float]
    samples: int
    playouts: int
    best: int
    rule_choice: dict[str, Any]

    @property
    def action(self) -> dict[str, Any]:
        return self.actions[self.best]


def _dealt_hand(seen: Seen, hands: list[int], s: int) -> int | None:
    """The five cards seat s was dealt, if they are determined by the deal `hands`."""
    dealt = hands[s] | seen.played_by[s]
    if s == seen.dealer and seen.upcard_fate == "picked_up":
        return None  # depends on its discard, which only the dealer saw
    if s == seen.farmer:
        return None  # it exchanged a farmer's hand: which cards, only it saw
    return dealt


def _uses_learned_bids(seen: Seen, budget: Budget) -> bool:
    return budget.learned_bids and BP.applies(seen.options)


def fitted_seats(seen: Seen, budget: Budget) -> tuple[int, ...]:
    """The other seats whose bids Hard reads and continues by the fitted model
    (`Budget.fitted_opponents`, `Budget.fitted_partner`), where the standard bidding is."""
    if not BP.applies(seen.options):
        return ()
    partner = (seen.seat + 2) % 4
    return tuple(
        s
        for s in range(4)
        if s != seen.seat and (budget.fitted_partner if s == partner else budget.fitted_opponents)
    )


def others_bids(seen: Seen, hands: list[int]) -> Iterator[tuple[int, dict, str, int, int]]:
    """Each other seat's bid in round one or two whose dealt cards this deal fixes:
    (seat, bid, phase, the bid's position within round two, the seat's dealt hand).
    Defend decisions are left out."""
    round_two = 0
    for bid, phase in zip(seen.bids, seen.bid_phases, strict=True):
        if phase == "defend":
            continue
        order = round_two
        if phase == "bid2":
            round_two += 1
        s = bid["seat"]
        if s == seen.seat:
            continue
        hand = _dealt_hand(seen, hands, s)
        if hand is not None:
            yield s, bid, phase, order, hand


def learned_bid_odds(
    seen: Seen,
    hands: list[int],
    floor: float,
    mix: float = 1.0,
    abstraction: int = 1,
    seats: tuple[int, ...] = (0, 1, 2, 3),
) -> float:
    """The odds of keeping a deal by the learned policy's reading of the others' bids:
    the product, over each other seat's bid in round one or two whose dealt cards the deal
    fixes, of floor + (1 - floor) * p, p the policy's chance of that bid with those cards
    (with `mix` below 1: mix * that + (1 - mix) * 1 if the Medium rules make it, else 0).
    Only the bids of `seats` are read."""
    odds = 1.0
    for s, bid, phase, order, hand in others_bids(seen, hands):
        if s not in seats:
            continue
        round_ = 1 if phase == "bid1" else 2
        position = (s - seen.dealer) % 4
        p = BP.likelihood(
            hand,
            bid,
            round_,
            position,
            seen.upcard,
            seen.turned_down if round_ == 2 else None,
            round_ == 2 and order == 3,
            abstraction,
        )
        if mix < 1.0:
            explained = (
                round_ == 2 and order == 3 or medium_explains(seen, hand, s, bid["type"], phase)
            )
            p = mix * p + (1.0 - mix) * explained
        odds *= floor + (1.0 - floor) * p
    return odds


def fitted_likelihoods(seen: Seen, hands: list[int]) -> Iterator[tuple[int, float]]:
    """Each other seat's bid in round one or two whose dealt cards the deal fixes, with
    how likely bots/fitted_bids.py's model makes it from those cards: (seat, chance)."""
    table = fitted_bids.thresholds()
    alone_ok = seen.options.get("going_alone", True)
    stick = seen.options.get("stick_the_dealer", True)
    for s, bid, phase, order, hand in others_bids(seen, hands):
        round_ = 1 if phase == "bid1" else 2
        position = (s - seen.dealer) % 4
        stuck = round_ == 2 and order == 3 and stick
        yield (
            s,
            fitted_bids.bid_likelihood(
                hand, bid, round_, position, seen.upcard, seen.turned_down, stuck, alone_ok, table
            ),
        )


def fitted_bid_odds(
    seen: Seen, hands: list[int], floor: float, seats: tuple[int, ...] | None = None
) -> float:
    """The odds of keeping a deal by the fitted model's reading of the bids of `seats`
    (the opponents if None): the product, over each of their bids `fitted_likelihoods`
    reads, of floor + (1 - floor) * the model's chance of that bid."""
    if seats is None:
        seats = ((seen.seat + 1) % 4, (seen.seat + 3) % 4)
    odds = 1.0
    for s, p in fitted_likelihoods(seen, hands):
        if s in seats:  # the others' are read by Hard's own reading
            odds *= floor + (1.0 - floor) * p
    return odds


def learned_rule_bid(seen: Seen, abstraction: int = 1) -> dict[str, Any]:
    """The learned policy's likeliest bid for the seat, as a legal action dict."""
    round_ = 1 if seen.phase == "bid1" else 2
    position = (seen.seat - seen.dealer) % 4
    stuck = round_ == 2 and not any(a["type"] == "pass" for a in seen.legal)
    down = seen.turned_down if round_ == 2 else None
    action = BP.best_action(seen.hand, round_, position, seen.upcard, down, stuck, abstraction)
    return action.to_dict()


def bid_misses(seen: Seen, hands: list[int]) -> list[int]:
    """Seat by seat, how many of the other seats' bids the Medium rules would not have
    made from the cards this deal gives them (the seat's own are never counted). Defend
    decisions are not weighed: Medium never defends alone, so a defender's pass says
    nothing about its cards."""
    misses = [0, 0, 0, 0]
    stick = seen.options.get("stick_the_dealer", True)
    for s, bid, phase, position, hand in others_bids(seen, hands):
        kind = bid["type"]
        if phase == "bid2" and kind == "call" and position == 3 and stick:
            continue  # the stuck dealer had to name a suit
        misses[s] += not medium_explains(seen, hand, s, kind, phase)
    return misses


def medium_explains(seen: Seen, hand: int, s: int, kind: str, phase: str) -> bool:
    """Whether the Medium rules, holding `hand` at seat s, would have bid or passed as
    the bid of type `kind` did (round one: ordered up or not; round two: named a suit or
    not)."""
    if phase == "bid1":
        order, _ = P.bid_round_one(hand, seen.upcard, s, seen.dealer, suit=seen.upcard_suit)
        return order == (kind == "order_up")
    suit, _ = P.bid_round_two(hand, seen.turned_down, s, seen.dealer, False)
    return (suit is None) == (kind == "pass")


# A team's points in a hand, as 000_3e53ff5bc5c6d1dc.txt measured them between Medium
# players (half the hands each side makes trump): 1 point 62.7 %, a march 11.9 %, a lone
# march 6.8 %, and 2 points 18.6 % when the other side is euchred.
_HAND_POINTS = ((1, 0.5 * 0.627), (2, 0.5 * (0.119 + 0.186)), (4, 0.5 * 0.068))


@lru_cache(maxsize=16)
def _equity_table(target: int) -> tuple[tuple[float, ...], ...]:
    """win[a][b]: the chance that a team with a points wins against b, hands drawn from
    _HAND_POINTS for either side (a, b below the target)."""
    win = [[0.0] * (target + 4) for _ in range(target + 4)]
    for a in range(target + 3, -1, -1):
        for b in range(target + 3, -1, -1):
            if a >= target:
                win[a][b] = 1.0
            elif b >= target:
                win[a][b] = 0.0
            else:
                win[a][b] = sum(
                    p * (win[min(a + k, target)][b] + win[a][min(b + k, target)])
                    for k, p in _HAND_POINTS
                ) / sum(2 * p for _, p in _HAND_POINTS)
    return tuple(tuple(row) for row in win)


def match_equity(target: int):
    """A function (our score, their score) -> our chance of winning the match."""
    table = _equity_table(target)
    top = target

    def equity(ours: int, theirs: int) -> float:
        return table[min(ours, top)][min(theirs, top)]

    return equity


def candidates(seen: Seen) -> list[dict[str, Any]]:
    """The legal actions worth searching: equivalent cards once (the lowest)."""
    legal = seen.legal
    if seen.phase != "play":
        return list(legal)
    trump = seen.trump
    eff = EFFECTIVE_SUIT[trump]
    power = P.POWER[trump]
    cards = sorted((CARD_BY_TEXT[a["card"]] for a in legal), key=lambda c: (eff[c], power[c]))
    keep = []
    known = seen.gone | seen.hand
    for c in seen.trick_cards:  # a card in this trick between two of ours tells them apart
        known &= ~(1 << c)
    for c in cards:
        if keep:
            prev = keep[-1]
            if eff[prev] == eff[c]:
                between = P.HIGHER[trump][prev] & ~P.HIGHER[trump][c] & ~(1 << c)
                if not between & ~known:
                    continue  # nothing anyone else holds lies between: the same card
        keep.append(c)
    return [a for a in legal if CARD_BY_TEXT[a["card"]] in keep]


def _sample(seen: Seen, rng: random.Random, budget: Budget) -> tuple[list[int], list[int]]:
    """A deal of the hidden cards, kept with odds `belief` per bid and `play_belief` per
    play of the others that it does not explain; after `tries` deals, the likeliest."""
    best = None
    best_odds = -1.0
    learned = _uses_learned_bids(seen, budget)
    read_bids = bool(seen.bids) and (budget.belief < 1.0 or learned)
    read_plays = bool(seen.played) and (
        budget.play_model > 0
        or budget.play_belief < 1.0
        or budget.play_belief_partner not in (None, 1.0)
    )
    for _ in range(budget.tries):
        hands, kitty = sample_hidden(seen, rng)
        if not read_bids and not read_plays:
            return hands, kitty
        odds = _bids_odds(seen, hands, budget, learned) if read_bids else 1.0
        if read_plays:
            odds *= _play_odds(seen, hands, budget)
        if odds >= 1.0 or rng.random() < odds:
            return hands, kitty
        if odds > best_odds:
            best, best_odds = (hands, kitty), odds
    return best


def _bids_odds(seen: Seen, hands: list[int], budget: Budget, learned: bool) -> float:
    """The odds of keeping a deal by its reading of the others' bids: those of
    `fitted_seats` by the fitted model, the rest by the learned policy if `learned`, else
    by the Medium rules."""
    fitted = fitted_seats(seen, budget)
    seats = tuple(s for s in range(4) if s not in fitted)
    if learned:
        odds = learned_bid_odds(
            seen,
            hands,
            budget.learned_floor,
            budget.learned_mix,
            budget.learned_abstraction,
            seats,
        )
    else:
        odds = _bid_odds(seen, hands, budget, seats)
    if fitted:
        odds *= fitted_bid_odds(seen, hands, budget.belief, fitted)
    return odds


def _bid_odds(
    seen: Seen, hands: list[int], budget: Budget, seats: tuple[int, ...] = (0, 1, 2, 3)
) -> float:
    """The odds of keeping a deal for the bids of `seats` it does not explain: `belief`
    per bid, the partner's at `belief_partner` if that is set."""
    misses = [m if s in seats else 0 for s, m in enumerate(bid_misses(seen, hands))]
    return _miss_odds(misses, seen.seat, budget.belief, budget.belief_partner)


def _play_odds(seen: Seen, hands: list[int], budget: Budget) -> float:
    """The odds of keeping a deal for the others' plays it does not explain: `play_belief`
    per play, the partner's at `play_belief_partner` if that is set; by the fitted model of
    their plays instead if `play_model` is set."""
    if budget.play_model > 0:
        return play_model_odds(seen, hands, budget.play_model)
    misses = play_misses(seen, hands)
    return _miss_odds(misses, seen.seat, budget.play_belief, budget.play_belief_partner)


def _miss_odds(misses: list[int], seat: int, odds: float, partner_odds: float | None) -> float:
    """`odds` per miss of each seat (`misses[s]`), the partner's at `partner_odds` if set."""
    if partner_odds is None:
        return odds ** sum(misses)
    partner = (seat + 2) % 4
    return odds ** (sum(misses) - misses[partner]) * partner_odds ** misses[partner]


def search(view: dict[str, Any], rng: random.Random, budget: Budget = DEFAULT_BUDGET) -> Search:
    seen = read_view(view)  # the view is read once: the rules, the deals, the engine state
    rule = seen_rule_action(seen)
    # 0: the Medium rules' bids; else the learned policy's abstraction
    learned_bids = budget.learned_abstraction if _uses_learned_bids(seen, budget) else 0
    fitted = fitted_seats(seen, budget)
    if learned_bids and seen.phase in ("bid1", "bid2"):
        rule = learned_rule_bid(seen, learned_bids)
    elif budget.learned_alone and rule.get("type") in ("order_up", "call"):
        rule = _learned_alone(seen, rule)
    actions = candidates(seen)
    if rule not in actions:
        rule = next((a for a in actions if a.get("card") == rule.get("card")), actions[0])
    if len(actions) == 1 or seen.phase not in budget.search_phases:
        # (a variant's decision before the bidding or the play is the rules' choice)
        return Search(seen, [rule], [0.0], 0, 0, 0, rule)
    engine_actions = [action_from_dict(a) for a in actions]
    seat = seen.seat
    team = seat & 1
    totals = [0.0] * len(actions)
    rule_i = actions.index(rule)
    diff_sq = [0.0] * len(actions)  # sums of squared differences from the rule action
    deadline = time.perf_counter() + budget.seconds if budget.seconds else None
    template = None
    samples = playouts = 0
    voids = seen.voids
    gone = gone_for_playouts(seen)
    factor = budget.bid_factor if seen.phase in ("bid1", "bid2") else 1.0
    most = max(int(budget.playouts * factor), len(actions))
    most_samples = int(budget.samples * factor)
    equity = match_equity(seen.options["target_score"]) if budget.match_aware else None
    use_solver = budget.solver
    bonus = _bid_bonus(seen, actions, budget, equity)
    unbias = budget.play_bias and use_solver and seen.phase in ("bid1", "bid2")
    unit = _point_unit(seen, equity)
    fuse = _fuses_next_choice(seen, budget)
    rows = []  # each deal's value of every action
    branches: list[list[NC.Branch]] = [[] for _ in actions]  # with `fuse`, each action's
    while samples < most_samples and playouts + len(actions) <= most:
        hands, kitty = _sample(seen, rng, budget)
        if template is None:
            # every seat's hand: the seat's own is read from it only when its view hides
            # them (the dealer naming a joker upcard's suit)
            template = state_from_view(seen, {s: cards_of(hands[s]) for s in range(4)}, kitty)
            base = template
        else:
            base = with_hands(template, hands, kitty)
        samples += 1
        playouts += len(actions)
        if fuse:
            for i, action in enumerate(engine_actions):
                state = base.clone()
                state.apply_action(seat, action)
                branches[i].append(NC.branch(state, seat))
            if deadline is not None and time.perf_counter() > deadline:
                break
            continue
        before = base.scores
        values = []
        for action in engine_actions:
            state = base.clone()
            state.apply_action(seat, action)
            gained = 0.0  # points for our side beyond `after`'s, from play_bias
            if use_solver:
                after, gained = _scores_after(
                    state, before, gone, voids, unbias, team, learned_bids, fitted
                )
            else:
                play_out(state, gone, voids)
                after = state.scores
            if equity is not None:
                value = equity(after[team], after[1 - team])
            else:
                value = (after[team] - before[team]) - (after[1 - team] - before[1 - team])
            values.append(value + gained * unit)
        if bonus is not None:
            values = [v + b for v, b in zip(values, bonus, strict=True)]
        rows.append(values)
        if deadline is not None and time.perf_counter() > deadline:
            break
    if fuse:
        value_of = _points_value(seen, equity)
        columns = [NC.fused_values(b, value_of) for b in branches]
        rows = [list(values) for values in zip(*columns, strict=True)]
    for values in rows:
        for i, v in enumerate(values):
            totals[i] += v
            diff_sq[i] += (v - values[rule_i]) ** 2
    scores = [t / samples for t in totals]
    # Leave the rule action only for one that beats it by more than `margin` standard
    # errors of the paired difference: sampling noise alone should not move the choice.
    best, best_edge = rule_i, 0.0
    for i in range(len(actions)):
        if i == rule_i:
            continue
        mean = scores[i] - scores[rule_i]
        var = max(0.0, diff_sq[i] / samples - mean * mean)
        se = (var / max(1, samples - 1)) ** 0.5
        if mean > budget.margin * se + 1e-9 and mean > best_edge:
            best, best_edge = i, mean
    return Search(seen, actions, scores, samples, playouts, best, rule)


def _fuses_next_choice(seen: Seen, budget: Budget) -> bool:
    """Whether the seat's next card is chosen once for the deals that look alike
    (bots/next_choice.py): a card to play, with two decisions at least still to come."""
    if not (budget.next_choice and budget.solver and seen.phase == "play"):
        return False
    return 3 <= seen.hand.bit_count() <= budget.next_choice


def _points_value(seen: Seen, equity):
    """A function: the hand's points for the seat's side (negative: the other side's) ->
    the search's value of it (the chance of winning the match after them with `equity`,
    else the points)."""
    if equity is None:
        return float
    team = seen.seat & 1
    ours, theirs = seen.scores[team], seen.scores[1 - team]

    def value_of(points: int) -> float:
        if points >= 0:
            return equity(ours + points, theirs)
        return equity(ours, theirs - points)

    return value_of


def _bid_bonus(seen: Seen, actions: list[dict[str, Any]], budget: Budget, equity) -> list | None:
    """What each action's value gains by Budget.maker_bonus and alone_bonus, in points (in
    the chance of winning the match, at the score before the hand); None: nothing."""
    if not (budget.maker_bonus or budget.alone_bonus):
        return None  # the service's budget: nothing built on a decision's way
    makes = [a["type"] in ("order_up", "call") for a in actions]
    if not any(makes):
        return None
    unit = _point_unit(seen, equity)
    return [
        unit * (budget.maker_bonus + (budget.alone_bonus if a.get("alone") else 0.0)) * m
        for a, m in zip(actions, makes, strict=True)
    ]


def _point_unit(seen: Seen, equity) -> float:
    """What one point more for the seat's side is worth in its decision's values: in the
    chance of winning the match at the score before the hand (`equity`), else 1."""
    if equity is None:
        return 1.0
    team = seen.seat & 1
    ours, theirs = seen.scores[team], seen.scores[1 - team]
    return equity(ours + 1, theirs) - equity(ours, theirs)


def _learned_alone(seen: Seen, rule: dict[str, Any]) -> dict[str, Any]:
    """The rule bid with "alone" as the fitted double-dummy values choose it."""
    position = (seen.seat - seen.dealer) % 4
    if rule["type"] == "order_up":
        trump, round_ = seen.upcard // 6, 1
        hand = P.after_pickup(seen.hand, seen.upcard) if position == 0 else seen.hand
    else:
        trump, round_ = SUIT_BY_LETTER[rule["suit"]], 2
        hand = seen.hand
    alone = learned.best_alone(hand, trump, round_, position, seen.upcard, seen.turned_down)
    wanted = {**rule, "alone": alone}
    return wanted if wanted in seen.legal else rule


def _scores_after(
    state,
    before: list[int],
    gone: int,
    voids: list[int],
    unbias: bool = False,
    team: int = 0,
    learned_bids: int = 0,
    fitted: tuple[int, ...] = (),
) -> tuple[list[int], float]:
    """The scores at the end of the hand of `state` (changed in place): the bidding
    left, if any, and the variants' steps before the play (a suit named, a farmer's
    exchange, a redeal asked) by the Medium rules (the bids by the learned policy, with
    `learned_bids`, the abstraction, 0 for none; the bids of the seats in `fitted` by
    bots/fitted_bids.py's model), then the play solved double-dummy;
    and, with `unbias`, the points bots/play_bias.py adds to the solved contract for
    `team`'s side."""
    while state.phase not in ("play", "deal", "finished"):
        if fitted and state.turn in fitted and state.phase in ("bid1", "bid2"):
            state.apply_action(state.turn, fitted_bids.state_action(state))
            continue
        if learned_bids and state.phase in ("bid1", "bid2"):
            state.apply_action(state.turn, BP.state_action(state, learned_bids))
            continue
        state.apply_action(state.turn, policy_action(state, gone, voids, P.MEDIUM))
    after = list(before)
    if state.phase == "play":
        points = S.solve_points(state)
        makers = state.maker % 2
        if points > 0:
            after[makers] += points
        else:
            after[1 - makers] -= points
        gained = 0.0
        if unbias and play_bias.applies(state.options):
            gained = play_bias.bias(state, points) * (1 if makers == team else -1)
        return after, gained
    return state.scores, 0.0  # the hand is over (its last card, or thrown in)


def hard_player(
    view: dict[str, Any], rng: random.Random, budget: Budget = DEFAULT_BUDGET
) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    if view["phase"] not in budget.search_phases:
        return rule_action(view)
    return search(view, rng, budget).action


def make_hard(budget: Budget):
    """A Hard player with another budget (simulations use a smaller one)."""

    def player(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return hard_player(view, rng, budget)

    return player
