"""Hard variants compared on the same deals: is a change to Hard's budget worth it?

    comparison = compare_variants(200, "reference", [Budget(margin=0.5)], seed=21)
    print(comparison.report())

Every deal (a dealer and a deck, one hand at 0-0, as in duplicate play) is played
from both sides by the baseline Hard against the opponent, and by each variant
against the same opponent, with the same seeds. Per deal, d is Hard's points minus
the opponent's over the two hands, halved (as `Duplicate`); a variant's figure is
the mean over the deals of d(variant) - d(baseline), with its own 95 % interval.
The luck of the cards and most of the opponent's choices cancel within a deal, so
the interval is much tighter than the difference of two separate duplicate runs.
"""

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games import engine as E

from .players.hard import DEFAULT_BUDGET, Budget, make_hard
from .simulation import Duplicate, Player, play_deal_pair, resolve, run_chunks

VariantJob = tuple[range, str, int, dict[str, Any], Budget, tuple[Budget, ...]]


def budget_from(options: dict[str, Any], base: Budget) -> Budget:
    """`base` with the fields named in `options` (JSON's lists read as tuples)."""
    names = {f.name for f in dataclasses.fields(Budget)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise ValueError(f"unknown Hard budget fields {unknown}: use some of {sorted(names)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return dataclasses.replace(base, **values)


@dataclass
class Paired:
    """Sums of one variant's per-deal difference from the baseline."""

    n: int = 0
    sum_x: float = 0.0
    sum_x2: float = 0.0
    changed: int = 0  # deals where the difference is not zero

    def add(self, x: float) -> None:
        self.n += 1
        self.sum_x += x
        self.sum_x2 += x * x
        self.changed += x != 0

    def merge(self, other: "Paired") -> None:
        self.n += other.n
        self.sum_x += other.sum_x
        self.sum_x2 += other.sum_x2
        self.changed += other.changed

    @property
    def mean(self) -> float:
        return self.sum_x / self.n if self.n else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        if self.n < 2:
            return -math.inf, math.inf
        var = max(0.0, (self.sum_x2 - self.n * self.mean**2) / (self.n - 1))
        half = z * math.sqrt(var / self.n)
        return self.mean - half, self.mean + half


@dataclass
class Comparison:
    """The baseline's duplicate figures and, per variant, its own and the paired ones."""

    opponent: str
    baseline: Budget
    variants: tuple[Budget, ...]
    base: Duplicate = None  # type: ignore[assignment]
    own: list[Duplicate] = field(default_factory=list)
    paired: list[Paired] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.base = self.base or Duplicate("hard", self.opponent)
        self.own = self.own or [Duplicate("hard", self.opponent) for _ in self.variants]
        self.paired = self.paired or [Paired() for _ in self.variants]

    @property
    def pairs(self) -> int:
        return self.base.pairs

    def add(self, other: "Comparison") -> None:
        self.base.add(other.base)
        for mine, theirs in zip(self.own, other.own, strict=True):
            mine.add(theirs)
        for mine, theirs in zip(self.paired, other.paired, strict=True):
            mine.merge(theirs)

    def as_dict(self) -> dict[str, Any]:
        low, high = self.base.interval()
        rows = []
        for budget, own, paired in zip(self.variants, self.own, self.paired, strict=True):
            o_low, o_high = own.interval()
            p_low, p_high = paired.interval()
            rows.append(
                {
                    "changes": changes(budget, self.baseline),
                    "hard_minus_opponent": own.mean,
                    "hard_minus_opponent_ci95": [o_low, o_high],
                    "minus_baseline": paired.mean,
                    "minus_baseline_ci95": [p_low, p_high],
                    "deals_changed": paired.changed,
                }
            )
        return {
            "opponent": self.opponent,
            "deal_pairs": self.pairs,
            "baseline": dataclasses.asdict(self.baseline),
            "baseline_minus_opponent": self.base.mean,
            "baseline_minus_opponent_ci95": [low, high],
            "variants": rows,
        }

    def report(self) -> str:
        d = self.as_dict()
        low, high = d["baseline_minus_opponent_ci95"]
        lines = [
            f"{self.pairs} deals, each played from both sides by every Hard against "
            f"{self.opponent}, the same seeds",
            f"baseline Hard - {self.opponent}: {d['baseline_minus_opponent']:+.3f} points per "
            f"hand (95% CI {low:+.3f} to {high:+.3f})",
        ]
        for row in d["variants"]:
            o_low, o_high = row["hard_minus_opponent_ci95"]
            p_low, p_high = row["minus_baseline_ci95"]
            lines += [
                f"variant {row['changes']}: - {self.opponent} {row['hard_minus_opponent']:+.3f} "
                f"({o_low:+.3f} to {o_high:+.3f})",
                f"  variant - baseline, paired: {row['minus_baseline']:+.3f} points per hand "
                f"(95% CI {p_low:+.3f} to {p_high:+.3f}; {row['deals_changed']} deals differ)",
            ]
        return "\n".join(lines)


def changes(budget: Budget, baseline: Budget) -> dict[str, Any]:
    """The fields in which `budget` differs from `baseline`."""
    mine, base = dataclasses.asdict(budget), dataclasses.asdict(baseline)
    return {k: v for k, v in mine.items() if base[k] != v}


def _deal_d(
    hard: Player, opponent: Player, i: int, seed: int, options: E.Options, out: Duplicate
) -> float:
    """Deal i played from both sides by `hard` against `opponent`: d for the deal."""
    first, second = play_deal_pair(hard, opponent, i, seed, options, out)
    return (first + second) / 2


def _run_chunk(job: VariantJob) -> Comparison:
    indices, opponent_level, seed, options_dict, baseline, variants = job
    opponent = resolve(opponent_level)
    options = E.Options.from_dict(options_dict)
    base_player = make_hard(baseline)
    players = [make_hard(v) for v in variants]
    total = Comparison(opponent_level, baseline, variants)
    for i in indices:
        d_base = _deal_d(base_player, opponent, i, seed, options, total.base)
        for player, own, paired in zip(players, total.own, total.paired, strict=True):
            paired.add(_deal_d(player, opponent, i, seed, options, own) - d_base)
    return total


def compare_variants(
    pairs: int,
    opponent: str,
    variants: list[Budget],
    baseline: Budget = DEFAULT_BUDGET,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    progress: Callable[[Comparison], None] | None = None,
    max_seconds: float | None = None,
) -> Comparison:
    """Play `pairs` deals by the baseline Hard and by each variant against `opponent`
    (both sides of each deal, the same seeds as `simulate_duplicate`), and total the
    paired differences. With `max_seconds`, stops once that time is up."""
    resolve(opponent)
    deadline = time.monotonic() + max_seconds if max_seconds else None
    options_dict = E.Options.from_dict(options or {}).to_dict()
    # One deal a chunk: a deal is many Hard hands, and --max-seconds stops between chunks.
    jobs = [
        (range(i, i + 1), opponent, seed, options_dict, baseline, tuple(variants))
        for i in range(pairs)
    ]
    total = Comparison(opponent, baseline, tuple(variants))
    return run_chunks(total, _run_chunk, jobs, workers, progress, deadline)
