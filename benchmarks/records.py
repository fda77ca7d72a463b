"""What records and ratings cost: the work a match's finish adds (its people's records
and ratings, in the finishing transaction), next to one action, and rebuilding every
record and rating from the logs, next to rebuilding the matches' own projections.

    .venv/bin/python benchmarks/records.py                 # 100 matches of four people
    .venv/bin/python benchmarks/records.py --matches 500 --target 3

It makes a fresh PostgreSQL database (--database-url, default euchre_bench_records;
dropped first and, unless --keep-database, at the end), migrates it, and plays the
matches through the services (no HTTP, no computer players: four people, each plays
its first legal action), 8 people seated at random so that ratings carry over. Then:
  1. the finish: records.match_finished for each match again, in a transaction rolled
     back, next to the median action_submit of the play (the baseline);
  2. the rebuild: projections.rebuild of every match (Hand rows, summaries: what
     rebuild_projections did before records), next to records.rebuild_all (records and
     ratings, in finish order), and checks the ratings rebuilt are the ones played.
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--target", type=int, default=3, help="points a match is played to")
    parser.add_argument("--seed", type=int, default=1)
    add_stack_arguments(parser, database="euchre_bench_records", redis=False)
    args = parser.parse_args()
    stack = Stack.from_args(
        args,
        "euchre-records-",
        eager=True,  # no Redis: no broker, no cache
        extra_env={
            "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
            "MAX_ACTIVE_MATCHES_PER_USER": "1000",
        },
    )
    with stack:
        stack.django_here()
        from django.conf import settings

        settings.TURN_TIMER_THREADS = False
        run(args)


def run(args) -> None:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from games.log import eventlog, projections, records
    from games.models import Match, MatchStatus, Rating, RatingChange
    from games.people import quickplay
    from games.play import services

    rng = random.Random(args.seed)
    people = [get_user_model().objects.create_user(f"p{i}", password=None) for i in range(8)]
    me, open_ = services.SeatSpec(services.ME), services.SeatSpec(services.OPEN)
    actions: list[float] = []
    started = time.perf_counter()
    for _ in range(args.matches):
        four = rng.sample(people, 4)
        match = services.match_create(
            user=four[0], seats=[me, open_, open_, open_], options={"target_score": args.target}
        )
        for seat, user in enumerate(four[1:], start=1):
            quickplay.match_join(match_id=match.pk, user=user, seat_index=seat)
        while True:
            match.refresh_from_db()
            if match.status == MatchStatus.FINISHED:
                break
            state = eventlog.load(match).state
            seat = state.turn
            action = state.legal_actions()[0].to_dict()
            t0 = time.perf_counter()
            services.action_submit(
                match_id=match.pk, seat_index=seat, action=action, user=four[seat]
            )
            actions.append(time.perf_counter() - t0)
    played = time.perf_counter() - started
    matches = list(Match.objects.filter(status=MatchStatus.FINISHED).order_by("finished_at"))
    ratings_played = sorted(Rating.objects.values_list("user_id", "mu", "sigma"))

    finishes = []
    for match in matches:
        with transaction.atomic():
            RatingChange.objects.filter(match=match).delete()  # as before it finished
            match.records.all().delete()
            t0 = time.perf_counter()
            records.match_finished(match)
            finishes.append(time.perf_counter() - t0)
            transaction.set_rollback(True)

    t0 = time.perf_counter()
    for match in matches:
        projections.rebuild(match)
    rebuild_matches = time.perf_counter() - t0
    t0 = time.perf_counter()
    count = records.rebuild_all()
    rebuild_records = time.perf_counter() - t0
    same = sorted(Rating.objects.values_list("user_id", "mu", "sigma")) == ratings_played

    action_ms = statistics.median(actions) * 1000
    finish_ms = statistics.median(finishes) * 1000
    print(f"{len(matches)} matches of four people to {args.target} ({len(actions)} actions,"
          f" played in {played:.1f} s), 8 people")  # fmt: skip
    print(f"one action (baseline):       median {action_ms:7.2f} ms")
    print(
        f"a finish's records+ratings:  median {finish_ms:7.2f} ms, p95 "
        f"{statistics.quantiles(finishes, n=20)[-1] * 1000:.2f} ms "
        f"= {finish_ms / action_ms:.2f} x an action"
    )
    print(f"rebuild, matches' projections (baseline): {rebuild_matches:6.2f} s "
          f"({len(matches) / rebuild_matches:.0f} matches/s)")  # fmt: skip
    print(f"rebuild, records and ratings:             {rebuild_records:6.2f} s "
          f"({count / rebuild_records:.0f} matches/s) = "
          f"{rebuild_records / rebuild_matches:.2f} x the baseline")  # fmt: skip
    print(f"ratings rebuilt equal the ratings played: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
