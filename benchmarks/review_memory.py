"""How a review worker's pool child grows under a steady stream of match reviews (issue 33).

    nohup .venv/bin/python benchmarks/review_memory.py --minutes 60 > review_memory.log &

One Celery worker as docker-compose's review-worker runs it (`nice -n 10 celery worker
--concurrency 1 -Q review`, log level INFO, the production settings) with its memory cap
(CELERY_MAX_MEMORY_PER_CHILD) out of reach, so that growth is seen rather than cut short
(--cap KIB keeps one). --players processes play whole matches through the services (one
person, by the Easy rules, and three Medium computers, whose turns run in the same process:
eager), each a match the worker never saw, a few ahead (--ahead); this process queues each
finished match's review (the task bots.tasks.review_match on the review queue, as the end
of a match does) at --per-minute, as long as the players keep up (the pace reached is
printed; a match takes about 3 s of a core to play). Everything on 127.0.0.1: a
redis-server of its own on a spare port (the shared one is not touched; --redis-url to use
another) and a fresh database (dropped at the end unless --keep-database).

Every --sample seconds it prints the pool child's RSS, the reviews queued and built and the
worker's CPU; at the end, the child's growth in MB an hour (in each third of the run, and a
least-squares line over the run after --warm-up minutes), its growth per review, and any
child replaced.
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, production_env  # noqa: E402
from benchmarks.celery_memory import (  # noqa: E402
    NO_MEMORY_CAP_KIB,
    PoolWatch,
    Sample,
    report,
)

PERSON_LEVEL = "easy"  # careless: mistakes for the review to find (as benchmarks/review.py)


class Matches:
    """Finished matches played through the services in this process, one person's seat
    (0) played here by PERSON_LEVEL, three Medium computers (eager: their turns run here
    after each of the person's actions)."""

    def __init__(self, target: int, seed: int) -> None:
        from django.conf import settings
        from django.contrib.auth import get_user_model

        # The computers' turns here, at once; the review is queued by us, not by the end
        # of the match (in-process without timer threads, its request only stays pending).
        settings.CELERY_TASK_ALWAYS_EAGER = True
        settings.TURN_TIMER_THREADS = False
        self.user = get_user_model().objects.create(username=f"reviewed{seed}")
        self.target = target
        self.rng = random.Random(seed)
        self.played = 0
        self.seconds = 0.0

    def play_one(self) -> str:
        from bots.players import choose_action
        from games import engine as E
        from games.log import eventlog
        from games.models import Match, MatchStatus
        from games.play.services import COMPUTER, ME, SeatSpec, action_submit, match_create

        started = time.perf_counter()
        seats = [SeatSpec(ME)] + [SeatSpec(COMPUTER, "medium")] * 3
        match = match_create(user=self.user, seats=seats, options={"target_score": self.target})
        while True:
            match = Match.objects.get(pk=match.pk)
            if match.status != MatchStatus.ACTIVE:
                break
            state = eventlog.load(match).state
            action = choose_action(PERSON_LEVEL, E.player_view(state, 0), self.rng)
            action_submit(match_id=match.pk, action=action, expected_seq=match.seq, user=self.user)
        if match.status != MatchStatus.FINISHED:
            raise SystemExit(f"match {match.pk} ended {match.status}, not finished")
        self.played += 1
        self.seconds += time.perf_counter() - started
        return str(match.pk)


def queue_review(match_id: str) -> None:
    """As the end of a match asks for it: the task by name on the review queue."""
    from celery import current_app

    from games.play import later

    current_app.send_task(
        later.REVIEW_MATCH, (match_id,), queue=later.queue_of(later.REVIEW_MATCH), retry=False
    )


def reviews_built() -> tuple[int, float]:
    """Reviews ready (or failed) so far, and the seconds the ready ones took to build."""
    from django.db.models import Sum

    from games.models import MatchReview, ReviewStatus

    done = MatchReview.objects.exclude(status=ReviewStatus.PENDING)
    seconds = done.filter(status=ReviewStatus.READY).aggregate(s=Sum("seconds"))["s"] or 0.0
    return done.count(), seconds


def failed_reviews() -> int:
    from games.models import MatchReview, ReviewStatus

    return MatchReview.objects.filter(status=ReviewStatus.FAILED).count()


def fitted_mb_per_hour(points: list[tuple[float, float]]) -> float | None:
    """The slope of the least-squares line through (minute, MB) points, in MB an hour."""
    n = len(points)
    if n < 2:
        return None
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return 60 * sum((x - mx) * (y - my) for x, y in points) / sxx


READY = "review-memory:ready"  # the Redis list of finished matches not yet queued


def produce(args: argparse.Namespace) -> None:
    """A player process (--produce): matches played to the end, each pushed on READY,
    never more than --ahead waiting."""
    import django
    import redis

    django.setup()  # the Stack's environment, given by the process that started this one
    ready = redis.Redis.from_url(os.environ["REDIS_URL"])
    matches = Matches(args.target, args.seed)
    while True:
        if ready.llen(READY) >= args.ahead:
            time.sleep(0.2)
            continue
        match_id = matches.play_one()
        ready.rpush(READY, match_id)
        ready.hset("review-memory:seconds", str(args.seed), f"{matches.seconds / matches.played}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--per-minute", type=float, default=23, help="reviews queued a minute")
    parser.add_argument("--sample", type=float, default=30, help="seconds between samples")
    parser.add_argument("--warm-up", type=float, default=5, help="minutes left out of the fit")
    parser.add_argument("--target", type=int, default=10, help="the matches' target score")
    parser.add_argument("--players", type=int, default=2, help="processes playing matches")
    parser.add_argument("--ahead", type=int, default=8, help="finished matches kept waiting")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--produce", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--cap",
        type=int,
        default=NO_MEMORY_CAP_KIB,
        help="CELERY_MAX_MEMORY_PER_CHILD, KiB (default: out of reach, so growth is seen)",
    )
    add_stack_arguments(parser, database="euchre_bench_review_memory")
    args = parser.parse_args()
    if args.produce:
        produce(args)
        return
    stack = Stack.from_args(
        args,
        "review-memory-",
        celery_concurrency=1,
        extra_env=production_env(CELERY_MAX_MEMORY_PER_CHILD=str(args.cap)),
    )
    with stack:
        stack.django_here()
        run(stack, args)


def start_players(stack: Stack, args: argparse.Namespace) -> None:
    for k in range(args.players):
        stack._start(
            f"players-{k}",
            [
                sys.executable, os.path.abspath(__file__), "--produce",
                "--target", str(args.target), "--ahead", str(args.ahead),
                "--seed", str(args.seed * 100 + k),
            ],
        )  # fmt: skip


def run(stack: Stack, args: argparse.Namespace) -> None:
    import redis
    from django.conf import settings

    ready = redis.Redis.from_url(stack.cache_url)
    start_players(stack, args)
    deadline = time.monotonic() + 600
    while ready.llen(READY) < args.ahead:  # a head start
        if time.monotonic() > deadline:
            raise SystemExit(f"no matches played:\n{stack.log_tail('players-0')}")
        time.sleep(1)
    worker = stack.start_worker(queues=settings.CELERY_REVIEW_QUEUE, nice=10, loglevel="INFO")
    cap = "off" if args.cap >= NO_MEMORY_CAP_KIB else f"{args.cap} KiB"
    print(
        f"Review worker: Celery prefork, concurrency 1, -Q {settings.CELERY_REVIEW_QUEUE},"
        f" nice 10, production settings, memory cap {cap}; {args.per_minute:g} reviews queued"
        f" a minute, each of a match played by {args.players} other processes (one person by"
        f" the {PERSON_LEVEL} rules, three Medium computers, to {args.target}); {args.minutes:g}"
        f" minutes, a sample every {args.sample:g} s; worker log {stack.log_dir / 'celery.log'}"
    )
    print(
        f"{'minute':>6} {'queued':>6} {'built':>6} {'cpu%':>5} {'RSS MB':>7}  pid"
        "   (cpu%: the worker's, of one core, since the last line)",
        flush=True,
    )
    queued = 0
    watch = PoolWatch(worker.pid, time.monotonic())
    next_sample = next_queue = watch.start
    while True:
        now = time.monotonic()
        if now >= next_sample:
            sample, busy = watch.sample(now, reviews_built()[0])
            sizes = "  ".join(f"{kib / 1024:7.1f}  {p}" for p, kib in sorted(sample.rss.items()))
            print(
                f"{sample.minute:6.1f} {queued:6d} {sample.tasks:6d} {busy:>5} {sizes}", flush=True
            )
            if sample.minute >= args.minutes:
                break
            next_sample += args.sample
        if now >= next_queue:
            found = ready.lpop(READY)
            if found is not None:
                queue_review(found.decode())
                queued += 1
                next_queue += 60 / args.per_minute
                continue
        time.sleep(min(0.2, max(0.01, min(next_queue, next_sample) - time.monotonic())))
    seconds = [float(v) for v in ready.hvals("review-memory:seconds")]
    summary(watch.samples, watch.replaced, args, sum(seconds) / max(len(seconds), 1), queued)


def summary(
    samples: list[Sample], replaced: list[str], args: argparse.Namespace, play: float, queued: int
) -> None:
    report(samples, replaced)
    built, seconds = reviews_built()
    minutes = samples[-1].minute
    print(
        f"\nReviews: {queued} queued, {built} built ({failed_reviews()} failed) in"
        f" {minutes:.1f} minutes: {built / max(minutes, 1e-9):.1f} a minute (asked:"
        f" {args.per_minute:g}); {seconds / max(built, 1):.2f} s a review to build; a match"
        f" played in {play:.2f} s"
    )
    pids = sorted({p for s in samples for p in s.rss})
    for pid in pids:
        after = [s for s in samples if pid in s.rss and s.minute >= args.warm_up]
        points = [(s.minute, s.rss[pid] / 1024) for s in after]
        rate = fitted_mb_per_hour(points)
        if rate is None:
            continue
        first, last = after[0], after[-1]
        reviews = last.tasks - first.tasks
        per_review = (last.rss[pid] - first.rss[pid]) / max(reviews, 1)
        print(
            f"  child {pid}, minute {first.minute:.0f} to {last.minute:.0f} (after the warm-up):"
            f" {first.rss[pid] / 1024:.1f} -> {last.rss[pid] / 1024:.1f} MB, {rate:+.1f} MB an"
            f" hour (least squares), {per_review:+.1f} KiB a review over {reviews} reviews"
        )


if __name__ == "__main__":
    main()
