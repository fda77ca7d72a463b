"""Whether the Celery pool children's memory levels off over hours (issue 15).

    nice -n 5 .venv/bin/python benchmarks/celery_memory.py --minutes 120 > soak.log

A real Celery worker as production runs it (prefork pool, --concurrency 2, the production
settings) with its memory cap out of the way (CELERY_MAX_MEMORY_PER_CHILD very high, so
growth is seen rather than cut short), playing matches of computer players: each match
has one person's seat, played by this script with the Medium player's choice after a
pause (--think), and three computers, Medium, with one Hard seat in every --hard-every'th
match. A finished match is replaced by a new one, so --matches are always in play; each
finished match is reviewed too (the review queue, on the same worker), as in production.
The rate is modest on purpose: the machine is shared.

With --cap KIB the worker runs with that cap instead, to see children replaced by it.

Every --sample seconds it prints each pool child's RSS and the tasks done so far; at the
end, the children's growth per hour in each third of the run and whether it levels off,
and any child that was replaced (a new pid). Everything runs on 127.0.0.1 in its own
database (euchre_bench_soak) and a Redis server of its own (benchmarks/_server.py's
Stack), taken down at the end.
"""

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    production_env,
    rss_kib,
)

# Far above anything a child reaches: the cap never replaces one during the run.
NO_MEMORY_CAP_KIB = 100_000_000
LEVELS_OFF_RATIO = 0.25  # the last third grows at most a quarter of the first's rate
LEVELS_OFF_MB_PER_HOUR = 1.0  # ...or by less than this: noise, not a leak


def children_of(pid: int) -> list[int]:
    """The pids of a process's children (/proc/<pid>/task/*/children)."""
    found: list[int] = []
    try:
        for task in os.scandir(f"/proc/{pid}/task"):
            with open(f"{task.path}/children") as f:
                found += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return sorted(set(found))


def _cpu_fields(pid: int) -> list[int]:
    """utime, stime, cutime, cstime of /proc/<pid>/stat, in clock ticks (zeros once gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return [int(v) for v in f.read().rsplit(")", 1)[1].split()[11:15]]
    except OSError:
        return [0, 0, 0, 0]


def worker_cpu_seconds(main: int) -> float:
    """The CPU seconds the worker has used: its main process, its live children, and
    (cutime, cstime) the children it has reaped, so a replaced child still counts."""
    ticks = sum(_cpu_fields(main)) + sum(sum(_cpu_fields(p)[:2]) for p in children_of(main))
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    minute: float
    tasks: int
    rss: dict[int, int]  # a pool child's pid: its RSS in KiB


class PoolWatch:
    """A Celery worker's pool children, sampled now and then: each child's RSS, the
    worker's CPU (of one core) since the sample before, and the children replaced."""

    def __init__(self, worker: int, start: float) -> None:
        self.worker, self.start = worker, start
        self.samples: list[Sample] = []
        self.replaced: list[str] = []
        self.last_cpu, self.last_time = worker_cpu_seconds(worker), start

    def sample(self, now: float, tasks: int) -> tuple[Sample, str]:
        """The sample at `now` (monotonic) with `tasks` done, and the worker's CPU %
        since the sample before ("-" for the first)."""
        minute = (now - self.start) / 60
        rss = {p: rss_kib(p) for p in children_of(self.worker)}
        cpu = worker_cpu_seconds(self.worker)
        busy = (
            f"{100 * (cpu - self.last_cpu) / (now - self.last_time):.0f}" if self.samples else "-"
        )
        self.last_cpu, self.last_time = cpu, now
        if self.samples and set(rss) != set(self.samples[-1].rss):
            gone, new = set(self.samples[-1].rss) - set(rss), set(rss) - set(self.samples[-1].rss)
            self.replaced.append(f"minute {minute:.0f}: {sorted(gone)} -> {sorted(new)}")
        self.samples.append(Sample(minute, tasks, rss))
        return self.samples[-1], busy


@dataclass
class Players:
    """The matches in play, each with the person's seat (0) driven from here."""

    count: int
    think: float
    hard_every: int
    rng: random.Random = field(default_factory=lambda: random.Random(15))
    matches: list = field(default_factory=list)
    next_move: dict = field(default_factory=dict)
    started: int = 0
    finished: int = 0

    def setup(self) -> None:
        from django.contrib.auth import get_user_model

        User = get_user_model()
        self.users = [User.objects.create(username=f"soak{i}") for i in range(self.count)]
        self.matches = [self.new_match(i) for i in range(self.count)]

    def new_match(self, slot: int):
        from games.play.services import COMPUTER, ME, SeatSpec, match_create

        self.started += 1
        hard = self.hard_every and self.started % self.hard_every == 0
        seats = [SeatSpec(ME), SeatSpec(COMPUTER, "medium"), SeatSpec(COMPUTER, "medium")]
        seats.append(SeatSpec(COMPUTER, "hard" if hard else "medium"))
        return match_create(user=self.users[slot], seats=seats).pk

    def step(self) -> None:
        """The person's move in each match where it is their turn and their pause is over;
        a new match in place of each that finished."""
        from bots.players import choose_action
        from games import engine as E
        from games.log import eventlog
        from games.models import Match, MatchStatus
        from games.play.errors import Conflict
        from games.play.services import action_submit

        now = time.monotonic()
        for slot, match_id in enumerate(self.matches):
            match = Match.objects.get(pk=match_id)
            if match.status in (MatchStatus.FINISHED, MatchStatus.ABANDONED):
                self.finished += 1
                self.matches[slot] = self.new_match(slot)
                continue
            state = eventlog.load(match).state
            if state.turn != 0:
                self.next_move.pop(slot, None)
                continue
            due = self.next_move.setdefault(slot, now + self.think)
            if now < due:
                continue
            view = E.player_view(state, 0)
            action = choose_action("medium", view, self.rng)
            try:
                action_submit(
                    match_id=match_id, action=action, expected_seq=match.seq,
                    user=self.users[slot],
                )  # fmt: skip
            except Conflict:
                pass  # the match moved on meanwhile: look again next time
            self.next_move.pop(slot, None)


def tasks_done() -> int:
    """Tasks the worker has finished, from `inspect stats` (-1 if it did not answer)."""
    from euchre_service.celery import app

    stats = app.control.inspect(timeout=3).stats() or {}
    return sum(sum(s.get("total", {}).values()) for s in stats.values()) if stats else -1


def per_hour(first: Sample, last: Sample, pids: list[int]) -> float | None:
    """The mean growth per hour (MB) over the children alive at both samples."""
    both = [p for p in pids if p in first.rss and p in last.rss]
    hours = (last.minute - first.minute) / 60
    if not both or hours <= 0:
        return None
    return sum(last.rss[p] - first.rss[p] for p in both) / len(both) / 1024 / hours


def report(samples: list[Sample], replaced: list[str]) -> None:
    print("\nGrowth of the pool children's RSS, MB per hour (mean over children alive then):")
    n = len(samples)
    if n < 4:
        print("  too few samples for thirds")
        return
    pids = sorted({p for s in samples for p in s.rss})
    cuts = [0, (n - 1) // 3, 2 * (n - 1) // 3, n - 1]
    rates = []
    for i in range(3):
        a, b = samples[cuts[i]], samples[cuts[i + 1]]
        rate = per_hour(a, b, pids)
        rates.append(rate)
        shown = "n/a" if rate is None else f"{rate:+.1f}"
        print(f"  third {i + 1} (minute {a.minute:.0f} to {b.minute:.0f}): {shown} MB/h")
    first, last = samples[0], samples[-1]
    for p in pids:
        if p in first.rss and p in last.rss:
            print(f"  child {p}: {first.rss[p] / 1024:.1f} MB -> {last.rss[p] / 1024:.1f} MB")
    gone = sum(len(line.split(" -> ")[0].split(",")) for line in replaced)
    print(f"  children replaced: {gone}" + "".join(f"\n    {r}" for r in replaced))
    if None in rates:
        print("  levels off: unknown (no child lived through a whole third)")
        return
    levels = rates[2] <= LEVELS_OFF_MB_PER_HOUR or rates[2] <= LEVELS_OFF_RATIO * rates[0]
    print(
        f"  levels off: {'yes' if levels else 'NO'} (last third {rates[2]:+.1f} MB/h against"
        f" the first's {rates[0]:+.1f}; level means at most {LEVELS_OFF_MB_PER_HOUR} MB/h or"
        f" {LEVELS_OFF_RATIO:.0%} of the first third's rate)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=120)
    parser.add_argument("--sample", type=float, default=60, help="seconds between samples")
    parser.add_argument("--matches", type=int, default=8, help="matches in play at once")
    parser.add_argument("--think", type=float, default=0.4, help="the person's pause (s)")
    parser.add_argument("--hard-every", type=int, default=4, help="a Hard seat every Nth match")
    parser.add_argument("--concurrency", type=int, default=2, help="the pool's children")
    parser.add_argument(
        "--cap",
        type=int,
        default=NO_MEMORY_CAP_KIB,
        help="CELERY_MAX_MEMORY_PER_CHILD, KiB (default: out of reach, so growth is seen)",
    )
    add_stack_arguments(parser, database="euchre_bench_soak")
    args = parser.parse_args()
    stack = Stack.from_args(
        args,
        "celery-memory-",
        celery_concurrency=args.concurrency,
        extra_env=production_env(CELERY_MAX_MEMORY_PER_CHILD=str(args.cap)),
    )
    with stack:
        stack.start_worker()
        stack.django_here()
        run(stack, args)


def run(stack: Stack, args: argparse.Namespace) -> None:
    worker = next(proc for name, proc in stack.processes if name == "celery")
    players = Players(args.matches, args.think, args.hard_every)
    players.setup()
    cap = "off" if args.cap >= NO_MEMORY_CAP_KIB else f"{args.cap} KiB"
    print(
        f"Celery prefork, concurrency {args.concurrency}, memory cap {cap}; {args.matches}"
        f" matches at once (a Hard seat every {args.hard_every}th), the person's pause"
        f" {args.think:g} s; {args.minutes:g} minutes, a sample every {args.sample:g} s"
    )
    print(
        f"{'minute':>6} {'tasks':>7} {'matches':>7} {'cpu%':>5}"
        "  children's RSS (MB, by pid); cpu%: the worker's, of one core, since the last line"
    )
    watch = PoolWatch(worker.pid, time.monotonic())
    next_sample = watch.start
    while True:
        now = time.monotonic()
        if now >= next_sample:
            sample, busy = watch.sample(now, tasks_done())
            sizes = "  ".join(f"{p}:{kib / 1024:.1f}" for p, kib in sorted(sample.rss.items()))
            print(
                f"{sample.minute:6.1f} {sample.tasks:7d} {players.finished:7d} {busy:>5}  {sizes}",
                flush=True,
            )
            if sample.minute >= args.minutes:
                break
            next_sample += args.sample
        players.step()
        time.sleep(0.2)
    report(watch.samples, watch.replaced)


if __name__ == "__main__":
    main()
