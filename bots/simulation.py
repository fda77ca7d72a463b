"""Matches between computer players on the engine alone (no database), and their figures.

    results = simulate(games=1000, level_a="medium", level_b="easy", seed=1)
    print(results.report())

Team A plays seats 0 and 2 in even-numbered matches and seats 1 and 3 in odd
ones; matches 2k and 2k+1 are dealt the same decks in the same order (the same
first dealer), so each deal is played once from each side and luck cancels out
of the comparison. Every match has its own seeds, so the figures do not depend
on how many worker processes share the work. Each player sees only
`player_view(state, seat)`, as in the service.

The table follows 000_3e53ff5bc5c6d1dc.txt: how often the turned card became
trump (picked up by the dealer, ordered by the dealer's partner, by the players
beside the dealer), trump named in round two, the dealer stuck (naming trump in
round two, after the other three passed twice); how hands scored; hands per
match. With the table variants on (docs/rules.md), how often each fired: the joker
turned up and the joker played, a farmer's exchange or its new deal, a called redeal.
"""

import json
import math
import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Self, TypeVar

from games import engine as E
from games.log import events as V

from .players import PLAYERS
from .players.hard import Budget, make_hard
from .players.pimc import PIMC, pimc_player
from .players.reference import REFERENCE, reference_player
from .players.reference_plus import REFERENCE_PLUS, reference_plus_player

Player = Callable[[dict[str, Any], random.Random], dict[str, Any]]


# The levels people choose from, and the reference opponents (simulations only): the
# literature's plain determinized search, bids included (pimc), among them.
SIMULATION_PLAYERS: dict[str, Player] = {
    **PLAYERS,
    REFERENCE: reference_player,
    REFERENCE_PLUS: reference_plus_player,
    PIMC: pimc_player,
}


def resolve(level: str, hard_budget: Budget | None = None) -> Player:
    """The player for a level name; 'hard' with `hard_budget` if one is given."""
    if level not in SIMULATION_PLAYERS:
        raise ValueError(f"unknown level {level!r}: use one of {', '.join(SIMULATION_PLAYERS)}")
    if level == "hard" and hard_budget is not None:
        return make_hard(hard_budget)
    return SIMULATION_PLAYERS[level]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """What team A and team B did, totalled: the record of both match play (Results) and
    duplicate play (Duplicate), each adding its own totals. Parts played apart (chunks,
    worker processes) add up field by field."""

    level_a: str
    level_b: str
    hands: int = 0
    points_a: int = 0
    points_b: int = 0
    counts: Counter = field(default_factory=Counter)

    def add(self, other: Self) -> None:
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            elif not isinstance(mine, str):  # the level names name the tally: not summed
                setattr(self, f.name, mine + theirs)


@dataclass
class Results(Tally):
    """Match play: whole matches, team A's wins."""

    matches: int = 0
    wins_a: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins_a / self.matches if self.matches else 0.0

    def share(self, key: str) -> float:
        return self.counts[key] / self.hands if self.hands else 0.0

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson(self.wins_a, self.matches)
        played = max(1, self.hands - self.counts["thrown_in"])
        return {
            "level_a": self.level_a,
            "level_b": self.level_b,
            "matches": self.matches,
            "wins_a": self.wins_a,
            "win_rate_a": self.win_rate,
            "win_rate_a_ci95": [low, high],
            "hands": self.hands,
            "points_per_hand_a": self.points_a / max(1, self.hands),
            "points_per_hand_b": self.points_b / max(1, self.hands),
            "hands_per_match": self.hands / max(1, self.matches),
            "trump": {
                k: self.share(k)
                for k in (
                    "turned_card",
                    "dealer_picked_up",
                    "partner_ordered",
                    "beside_ordered",
                    "round_two",
                    "dealer_stuck",
                    "thrown_in",
                )
            },
            "scoring": {
                k: self.counts[k] / played
                for k in ("made", "march", "lone_march", "euchred", "euchred_by_lone_defender")
            },
            "alone": self.counts["alone"] / played,
            "variants": {
                k: self.share(k)
                for k in ("joker_up", "joker_played", "joker_won", "farm", "farm_redeal", "redeal")
            },
        }

    def report(self) -> str:
        d = self.as_dict()
        low, high = d["win_rate_a_ci95"]
        t, s = d["trump"], d["scoring"]
        pct = "{:6.1%}".format
        lines = [
            f"{self.matches} matches, {self.hands} hands: team A ({self.level_a}) against "
            f"team B ({self.level_b})",
            f"match win rate of A: {pct(d['win_rate_a'])}  (95% CI {pct(low)} to {pct(high)}, "
            f"{self.wins_a} of {self.matches})",
            f"points per hand: A {d['points_per_hand_a']:.3f}, B {d['points_per_hand_b']:.3f}",
            "",
            "How trump was made                       share of hands",
            f"  turned card became trump               {pct(t['turned_card'])}",
            f"    the dealer picked it up              {pct(t['dealer_picked_up'])}",
            f"    the dealer's partner ordered it      {pct(t['partner_ordered'])}",
            f"    a player beside the dealer ordered   {pct(t['beside_ordered'])}",
            f"  trump named in round two               {pct(t['round_two'])}",
            f"    the dealer stuck                     {pct(t['dealer_stuck'])}",
        ]
        if self.counts["thrown_in"]:
            lines.append(f"  thrown in (all passed twice)           {pct(t['thrown_in'])}")
        v = d["variants"]
        if any(self.counts[k] for k in ("joker_dealt", "farm_on", "farm_redeal_on", "redeal_on")):
            lines += ["", "Table variants: how often each fired      share of hands"]
            if self.counts["joker_dealt"]:
                lines += [
                    f"  the joker turned up                    {pct(v['joker_up'])}"
                    f"  ({self.counts['joker_up']} hands)",
                    f"  the joker played in a trick            {pct(v['joker_played'])}",
                    f"    and it won the trick                 {pct(v['joker_won'])}",
                ]
            if self.counts["farm_on"]:
                lines.append(
                    f"  a farmer's hand exchanged              {pct(v['farm'])}"
                    f"  ({self.counts['farm']} hands)"
                )
            if self.counts["farm_redeal_on"]:
                lines.append(
                    f"  a farmer's hand: a new deal asked for  {pct(v['farm_redeal'])}"
                    f"  ({self.counts['farm_redeal']} hands)"
                )
            if self.counts["redeal_on"]:
                lines.append(
                    f"  no ace, no face, no trump: redeal      {pct(v['redeal'])}"
                    f"  ({self.counts['redeal']} hands)"
                )
        lines += [
            "",
            "How hands scored                         share of hands played",
            f"  makers 3 or 4 tricks (1 point)         {pct(s['made'])}",
            f"  march with a partner (2 points)        {pct(s['march'])}",
            f"  lone march (4 points)                  {pct(s['lone_march'])}",
            f"  euchred (2 to the defenders)           {pct(s['euchred'])}",
        ]
        if self.counts["euchred_by_lone_defender"]:
            lines.append(
                f"  euchred by a lone defender (4)         {pct(s['euchred_by_lone_defender'])}"
            )
        lines += [
            f"  (maker went alone                      {pct(d['alone'])})",
            "",
            f"hands per match: {d['hands_per_match']:.2f}",
        ]
        return "\n".join(lines)


def play_match(
    players: list[Player], index: int, seed: int, options: E.Options, a_seats: tuple[int, ...]
) -> Results:
    """One match; `players[s]` plays seat s. Counts are from team A's side."""
    deal_rng = random.Random(f"{seed}:deal:{index // 2}")
    rng = random.Random(f"{seed}:play:{index}")
    state = E.MatchState(options, first_dealer=deal_rng.randrange(4))
    team_a = a_seats[0] % 2
    out = Results("", "", matches=1)
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(deal_rng, options.joker))
        out.hands += 1
        dealer = state.dealer
        while state.turn is not None:
            seat = state.turn
            action = players[seat](E.player_view(state, seat), rng)
            for outcome in state.apply_action(seat, E.action_from_dict(action)):
                kind = outcome["type"]
                if kind == V.HAND_SCORED:
                    out.counts[outcome["result"]] += 1
                    if outcome["team"] == team_a:
                        out.points_a += outcome["points"]
                    else:
                        out.points_b += outcome["points"]
                    _count_bidding(out.counts, state, dealer)
                    _count_variants(out.counts, state)
                elif kind == V.HAND_THROWN_IN and outcome.get("reason") == E.REDEAL_REASON:
                    out.counts["redeal"] += 1
                    _count_variants(out.counts, state)
                elif kind == V.HAND_THROWN_IN and outcome.get("reason") == E.FARM_REDEAL_REASON:
                    out.counts["farm_redeal"] += 1
                    _count_variants(out.counts, state)
                elif kind == V.HAND_THROWN_IN:
                    out.counts["thrown_in"] += 1
                    _count_variants(out.counts, state)
    out.wins_a = int(state.winner == team_a)
    return out


def _count_bidding(counts: Counter, state: E.MatchState, dealer: int) -> None:
    maker = state.maker
    pos = (maker - dealer) % 4
    if state.alone:
        counts["alone"] += 1
    if state.maker_round == 1:
        counts["turned_card"] += 1
        counts[
            ("dealer_picked_up", "beside_ordered", "partner_ordered", "beside_ordered")[pos]
        ] += 1
    else:
        counts["round_two"] += 1
        if pos == 0:
            counts["dealer_stuck"] += 1


def _count_variants(counts: Counter, state: E.MatchState) -> None:
    """At a hand's end (its state not yet cleared by the next deal): which variants fired."""
    options = state.options
    if options.joker:
        counts["joker_dealt"] += 1
        counts["joker_up"] += state.upcard == E.JOKER
        for _seats, cards, winner in state.tricks:
            if E.JOKER in cards:
                counts["joker_played"] += 1
                counts["joker_won"] += _seats[cards.index(E.JOKER)] == winner
    if options.farm_exchange:
        counts["farm_on"] += 1
        counts["farm"] += state.farmer is not None
    if options.farm_redeal:
        counts["farm_redeal_on"] += 1
    if options.no_ace_no_face_no_trump:
        counts["redeal_on"] += 1


# ---------------------------------------------------------------------- running the chunks

Job = tuple[range, str, str, int, dict[str, Any], Budget | None]
T = TypeVar("T", bound=Tally)


def _jobs(
    count: int, chunk: int, level_a: str, level_b: str, seed: int,
    options: dict[str, Any] | None, hard_budget: Budget | None,
) -> list[Job]:  # fmt: skip
    """The work cut into chunks of `chunk` indices (matches or deal pairs), each playable
    apart (its own seeds), so the figures do not depend on how many processes share it."""
    resolve(level_a)
    resolve(level_b)
    options_dict = E.Options.from_dict(options or {}).to_dict()
    return [
        (range(start, min(count, start + chunk)), level_a, level_b, seed, options_dict, hard_budget)
        for start in range(0, count, chunk)
    ]


def _table(job: Job) -> tuple[range, Player, Player, int, E.Options]:
    """A chunk's indices, its two players, seed and options (in the worker process)."""
    indices, level_a, level_b, seed, options_dict, budget = job
    return (
        indices, resolve(level_a, budget), resolve(level_b, budget), seed,
        E.Options.from_dict(options_dict),
    )  # fmt: skip


def run_chunks(
    total: T,
    run_chunk: Callable[[Job], T],
    jobs: list[Job],
    workers: int,
    progress: Callable[[T], None] | None,
    deadline: float | None = None,
) -> T:
    """Play the chunks here (`workers` <= 1) or in a pool of processes, adding each to
    `total` as it finishes; once past `deadline` (time.monotonic()), stop and keep what
    finished."""
    if workers <= 1:
        for job in jobs:
            if deadline is not None and time.monotonic() > deadline:
                break
            total.add(run_chunk(job))
            if progress:
                progress(total)
        return total
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for part in pool.imap_unordered(run_chunk, jobs):
            total.add(part)
            if progress:
                progress(total)
            if deadline is not None and time.monotonic() > deadline:
                pool.terminate()
                break
    return total


# ---------------------------------------------------------------------- match play, in chunks


def _run_chunk(job: Job) -> Results:
    indices, a, b, seed, options = _table(job)
    total = Results(job[1], job[2])
    for i in indices:
        a_seats = (0, 2) if i % 2 == 0 else (1, 3)
        players = [a if s in a_seats else b for s in range(4)]
        total.add(play_match(players, i, seed, options, a_seats))
    return total


def simulate(
    games: int,
    level_a: str,
    level_b: str,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    hard_budget: Budget | None = None,
    progress: Callable[[Results], None] | None = None,
) -> Results:
    """Play `games` matches of level_a against level_b and total the figures."""
    chunk = 2 if games <= 200 else 20
    jobs = _jobs(games, chunk, level_a, level_b, seed, options, hard_budget)
    return run_chunks(Results(level_a, level_b), _run_chunk, jobs, workers, progress)


def dumps(results: Results) -> str:
    return json.dumps(results.as_dict(), indent=2)


# ---------------------------------------------------------------------- duplicate play


def _interval(n: int, sum_d: float, sum_d2: float, z: float = 1.96) -> tuple[float, float]:
    """The 95 % interval of the mean of d over `n` pairs from its sums (normal, n large)."""
    if n < 2:
        return -math.inf, math.inf
    mean = sum_d / n
    var = max(0.0, (sum_d2 - n * mean**2) / (n - 1))
    half = z * math.sqrt(var / n)
    return mean - half, mean + half


@dataclass
class Duplicate(Tally):
    """Duplicate play: each deal (one hand, dealer and deck) played twice, team A at
    seats 0 and 2, then at 1 and 3. Per deal pair, d = A's points minus B's over the two
    hands, halved: its mean is A's points per hand minus B's, with the 95 % interval
    from the spread of d over the pairs (the luck of the cards cancels within a pair)."""

    pairs: int = 0
    sum_d: float = 0.0
    sum_d2: float = 0.0
    # The pairs whose two tables ended in the same contract (the same seat made the same
    # trump, alone or not; or both thrown in): their d comes from the play, not the bids.
    same_pairs: int = 0
    same_sum_d: float = 0.0
    same_sum_d2: float = 0.0

    def add_pair(self, nets: tuple[int, int], same_contract: bool) -> None:
        d = (nets[0] + nets[1]) / 2
        self.pairs += 1
        self.sum_d += d
        self.sum_d2 += d * d
        if same_contract:
            self.same_pairs += 1
            self.same_sum_d += d
            self.same_sum_d2 += d * d

    @property
    def mean(self) -> float:
        return self.sum_d / self.pairs if self.pairs else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The 95 % interval of the mean of d over the deal pairs (normal, n large)."""
        return _interval(self.pairs, self.sum_d, self.sum_d2, z)

    def by_contract(self) -> dict[str, dict[str, Any]]:
        """The mean split by whether the two tables' contracts were the same: each part's
        pairs, its own mean of d, and its share of the whole mean (what it adds to A − B
        a hand over all pairs), with that share's 95 % interval."""
        parts = {
            "same_contract": (self.same_pairs, self.same_sum_d, self.same_sum_d2),
            "other_contract": (
                self.pairs - self.same_pairs,
                self.sum_d - self.same_sum_d,
                self.sum_d2 - self.same_sum_d2,
            ),
        }
        out = {}
        for name, (n, s, s2) in parts.items():
            mean = s / n if n else 0.0
            # The share is the mean over all pairs of d on this part's pairs, 0 elsewhere.
            share = s / self.pairs if self.pairs else 0.0
            out[name] = {
                "pairs": n,
                "a_minus_b_per_hand": mean,
                "share_of_mean": share,
                "share_ci95": list(_interval(self.pairs, s, s2)),
            }
        return out

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        hands = max(1, self.hands)
        return {
            "level_a": self.level_a,
            "level_b": self.level_b,
            "deal_pairs": self.pairs,
            "hands": self.hands,
            "points_per_hand_a": self.points_a / hands,
            "points_per_hand_b": self.points_b / hands,
            "a_minus_b_per_hand": self.mean,
            "a_minus_b_ci95": [low, high],
            "results_a": {k[2:]: v for k, v in self.counts.items() if k.startswith("a:")},
            "results_b": {k[2:]: v for k, v in self.counts.items() if k.startswith("b:")},
            "thrown_in": self.counts["thrown_in"],
            **self.by_contract(),
        }

    def report(self) -> str:
        d = self.as_dict()
        low, high = d["a_minus_b_ci95"]
        parts = [
            f"{label}: {d[key]['pairs']} pairs, A - B {d[key]['a_minus_b_per_hand']:+.3f} a hand "
            f"over them, {d[key]['share_of_mean']:+.3f} of the whole "
            f"({d[key]['share_ci95'][0]:+.3f} to {d[key]['share_ci95'][1]:+.3f})"
            for key, label in (
                ("same_contract", "the same contract at both tables (the play decided)"),
                ("other_contract", "other contracts (the bids decided)"),
            )
        ]
        return "\n".join(
            [
                f"{self.pairs} deal pairs ({self.hands} hands), each deal played from both "
                f"sides: team A ({self.level_a}) against team B ({self.level_b})",
                f"points per hand: A {d['points_per_hand_a']:.3f}, B {d['points_per_hand_b']:.3f}",
                f"A - B: {d['a_minus_b_per_hand']:+.3f} points per hand "
                f"(95% CI {low:+.3f} to {high:+.3f}, over deal pairs)",
                "hands by A as makers: "
                + ", ".join(f"{k} {v}" for k, v in sorted(d["results_a"].items())),
                "hands by B as makers: "
                + ", ".join(f"{k} {v}" for k, v in sorted(d["results_b"].items())),
                f"thrown in: {d['thrown_in']}",
                *parts,
            ]
        )


def play_hand(
    players: list[Player],
    dealer: int,
    deck: tuple[int, ...],
    rng: random.Random,
    options: E.Options,
    team_a: int,
    out: Duplicate,
) -> tuple[int, tuple | None]:
    """One hand from `deck` with `dealer` at 0-0: A's points minus B's, and its contract
    (the maker's seat, trump, alone) or None if it was thrown in."""
    state = E.MatchState(options, first_dealer=dealer)
    state.deal(deck)
    out.hands += 1
    net = 0
    while state.turn is not None and state.phase not in (E.DEAL, E.FINISHED):
        seat = state.turn
        action = players[seat](E.player_view(state, seat), rng)
        for outcome in state.apply_action(seat, E.action_from_dict(action)):
            kind = outcome["type"]
            if kind == V.HAND_SCORED:
                side = "a" if outcome["makers"] == team_a else "b"
                out.counts[f"{side}:{outcome['result']}"] += 1
                if outcome["team"] == team_a:
                    out.points_a += outcome["points"]
                    net += outcome["points"]
                else:
                    out.points_b += outcome["points"]
                    net -= outcome["points"]
            elif kind == V.HAND_THROWN_IN:
                out.counts["thrown_in"] += 1
    if state.maker is None:
        return net, None
    return net, (state.maker, state.trump, bool(state.alone))


def play_deal_pair(
    a: Player, b: Player, i: int, seed: int, options: E.Options, out: Duplicate
) -> tuple[float, float]:
    """Deal i (its dealer and deck from the seed) played twice, A at seats 0 and 2, then at
    1 and 3, with the same cards: A's net points in each (added to `out`)."""
    deal_rng = random.Random(f"{seed}:dup:{i}")
    dealer = deal_rng.randrange(4)
    deck = E.seeded_deck(deal_rng)
    nets, contracts = [], []
    for k, a_seats in enumerate(((0, 2), (1, 3))):
        players = [a if s in a_seats else b for s in range(4)]
        rng = random.Random(f"{seed}:dup:{i}:{k}")
        net, contract = play_hand(players, dealer, deck, rng, options, a_seats[0], out)
        nets.append(net)
        contracts.append(contract)
    out.add_pair((nets[0], nets[1]), contracts[0] == contracts[1])
    return nets[0], nets[1]


def _run_duplicate_chunk(job: Job) -> Duplicate:
    indices, a, b, seed, options = _table(job)
    total = Duplicate(job[1], job[2])
    for i in indices:
        play_deal_pair(a, b, i, seed, options, total)
    return total


def simulate_duplicate(
    pairs: int,
    level_a: str,
    level_b: str,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    hard_budget: Budget | None = None,
    progress: Callable[[Duplicate], None] | None = None,
    max_seconds: float | None = None,
) -> Duplicate:
    """Play `pairs` deals twice each, teams swapped, and total the figures. Each deal
    has its own seeds, so the figures do not depend on `workers`. With `max_seconds`,
    stops once that time is up and totals the deals finished (`pairs` says how many;
    chunks of deals finish in any order, so they are not the first ones exactly)."""
    deadline = time.monotonic() + max_seconds if max_seconds else None
    chunk = 5 if pairs <= 200 else 10
    jobs = _jobs(pairs, chunk, level_a, level_b, seed, options, hard_budget)
    total = Duplicate(level_a, level_b)
    return run_chunks(total, _run_duplicate_chunk, jobs, workers, progress, deadline)
