"""manage.py simulate --games N --levels A,B: computer players against each other, engine only."""

import functools
import json
import sys
import time

from django.core.management.base import BaseCommand, CommandError

from bots.hard_variants import budget_from, compare_variants
from bots.players.hard import DEFAULT_BUDGET, Budget
from bots.simulation import dumps, simulate, simulate_duplicate
from games.engine import RuleError


class Command(BaseCommand):
    help = (
        "Play N matches between two teams of computer players on the rules engine alone (no "
        "database): level A at seats 0 and 2 against level B, the seats swapped in every other "
        "match (the same decks both ways). Prints A's match win rate with a 95% confidence "
        "interval (Wilson), points per hand, how trump was made, how hands scored and hands per "
        "match, as in 000_3e53ff5bc5c6d1dc.txt."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--games", type=int, required=True, help="how many matches (with --duplicate: deals)"
        )
        parser.add_argument(
            "--levels",
            required=True,
            help="two levels, A,B (random, easy, medium, hard, reference)",
        )
        parser.add_argument(
            "--duplicate",
            action="store_true",
            help="duplicate play: each deal played twice, teams swapped; points per hand",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed for the decks and players")
        parser.add_argument(
            "--options", default="{}", help='match options as JSON, e.g. {"target_score": 5}'
        )
        parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
        parser.add_argument(
            "--hard-samples",
            type=int,
            default=DEFAULT_BUDGET.samples,
            help=f"Hard: deals per decision, at most (default {DEFAULT_BUDGET.samples})",
        )
        parser.add_argument(
            "--hard-playouts",
            type=int,
            default=DEFAULT_BUDGET.playouts,
            help=f"Hard: playouts per decision, at most (default {DEFAULT_BUDGET.playouts})",
        )
        parser.add_argument(
            "--hard-options",
            default="{}",
            help='Hard: other Budget fields as JSON, e.g. {"margin": 0.5, "learned_alone": true} '
            "(fields of bots.players.hard.Budget)",
        )
        parser.add_argument(
            "--hard-variants",
            default=None,
            help="with --duplicate and --levels hard,B: a JSON list of Hard variants (Budget "
            'fields, e.g. [{"margin": 0}, {"belief": 0.1}]); every deal is played by the Hard of '
            "--hard-options and by each variant against B, the same seeds, and each variant's "
            "points per hand minus the baseline's are reported with a paired 95%% interval",
        )
        parser.add_argument(
            "--max-seconds",
            type=float,
            default=None,
            help="with --duplicate: stop after this long and report the deals finished",
        )
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")

    def handle(self, *args, **options):
        levels = options["levels"].split(",")
        if len(levels) != 2:
            raise CommandError("--levels takes two levels separated by a comma, e.g. medium,easy.")
        if options["games"] < 1:
            raise CommandError("--games must be at least 1.")
        try:
            match_options = json.loads(options["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}.") from exc
        budget = Budget(samples=options["hard_samples"], playouts=options["hard_playouts"])
        try:
            budget = budget_from(json.loads(options["hard_options"]), budget)
            listed = json.loads(options["hard_variants"] or "[]")
            variants = [budget_from(v, budget) for v in listed]
        except (json.JSONDecodeError, TypeError, AttributeError, ValueError) as exc:
            raise CommandError(f"--hard-options or --hard-variants: {exc}.") from exc
        if options["hard_variants"] is not None:
            self._compare(options, levels, match_options, budget, variants)
            return
        start = time.perf_counter()
        last = [start]

        def progress(results):
            now = time.perf_counter()
            if now - last[0] > 30:
                last[0] = now
                if options["duplicate"]:
                    low, high = results.interval()
                    sys.stderr.write(
                        f"  {results.pairs} of {options['games']} deal pairs: A - B "
                        f"{results.mean:+.3f} ({low:+.3f} to {high:+.3f})\n"
                    )
                else:
                    sys.stderr.write(f"  {results.matches} of {options['games']} matches\n")

        run = simulate
        if options["duplicate"]:
            run = functools.partial(simulate_duplicate, max_seconds=options["max_seconds"])
        try:
            results = run(
                options["games"],
                levels[0],
                levels[1],
                seed=options["seed"],
                options=match_options,
                workers=options["workers"],
                hard_budget=budget,
                progress=progress,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        if options["json"]:
            self.stdout.write(dumps(results))
            return
        self.stdout.write(results.report())
        if "hard" in levels:
            self.stdout.write(
                f"\nHard budget: {budget.samples} deals, {budget.playouts} playouts a decision"
            )
        self.stdout.write(f"({time.perf_counter() - start:.1f} s)")

    def _compare(self, options, levels, match_options, budget, variants) -> None:
        """--hard-variants: each variant against the baseline Hard on the same deals."""
        if not options["duplicate"] or levels[0] != "hard" or not variants:
            raise CommandError(
                "--hard-variants needs --duplicate, --levels hard,B and at least one variant."
            )
        start = time.perf_counter()
        last = [start]

        def progress(comparison):
            if time.perf_counter() - last[0] > 60:
                last[0] = time.perf_counter()
                sys.stderr.write(comparison.report() + "\n")

        try:
            comparison = compare_variants(
                options["games"], levels[1], variants, baseline=budget, seed=options["seed"],
                options=match_options, workers=options["workers"], progress=progress,
                max_seconds=options["max_seconds"],
            )  # fmt: skip
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(comparison.as_dict(), indent=2))
            return
        self.stdout.write(comparison.report())
        self.stdout.write(f"({time.perf_counter() - start:.1f} s)")
