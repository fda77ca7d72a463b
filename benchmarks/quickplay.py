"""Quick play under a crowd: --people (200) people arriving within --arrival-seconds (10)
at POST /api/v1/quickplay on the production server; how many tables, how long until each
started, and that no seat was lost or given twice.

    .venv/bin/python benchmarks/quickplay.py                          # 200 people in 10 s
    .venv/bin/python benchmarks/quickplay.py --people 202 --wait 5    # a table left to fill
    .venv/bin/python benchmarks/quickplay.py --option-sets 3          # three queues at once

What it does, all on 127.0.0.1, and stops by itself:
  1. makes a fresh PostgreSQL database (--database-url, default euchre_bench_quickplay;
     dropped first and, unless --keep-database, at the end), migrates it, starts a Redis
     server of its own on a spare port (--redis-url: that one's --broker-db and --cache-db,
     emptied); makes the users and their tokens directly
     in the database (password hashing is not what is measured);
  2. starts gunicorn with the production settings (euchre_service/gunicorn.conf.py, cores + 1
     processes x 4 threads), QUICKPLAY_WAIT_SECONDS=--wait (20, the default setting), and
     one Celery worker (the start of a table after its wait is a task with a countdown,
     as in production);
  3. baseline, the same arrivals without the queue: each person at their moment creates a
     match with three open seats (POST /api/v1/matches): no queue lock, no shared table;
  4. quick play: each person, in a thread of their own, at a moment drawn uniformly (seeded)
     within --arrival-seconds, POSTs /api/v1/quickplay (computer players allowed, level
     random; with --option-sets N each person asks for one of N presets) and records the
     answer's time and table;
  5. waits until no quick play table waits any more (at most --wait + 60 s), then reads the
     database: tables, each table's people and computer players, when it was opened and
     when it started (its match_started event), and per person the time from their
     request to their table's start;
  6. prints the figures, the ratio of quick play's request latency to the baseline's, and
     checks: every person sits at exactly one seat, every table has four seats taken,
     no table still waits, and for each set of options at most one table was ever filled
     with computer players while people were still arriving (no two half-empty tables).
"""

import argparse
import os
import platform
import random
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import Stack, add_stack_arguments, percentile  # noqa: E402
from benchmarks.api import Client  # noqa: E402
from games.log import events  # noqa: E402

PRESETS = ["standard", "short", "no_stick", "canadian"]


def post(port: int, path: str, token: str, body: dict) -> tuple[int, dict, float]:
    """One POST on a connection of its own (benchmarks/api.py's client)."""
    client = Client(port, [token], timeout=60)
    try:
        return client.call("POST", path, body)
    finally:
        client.close()


def arrive(port: int, path: str, tokens: list[str], bodies: list[dict], moments: list[float]):
    """Each request in its own thread at its moment; (status, body, latency, t_sent) each."""
    results: list = [None] * len(tokens)
    start = time.monotonic() + 0.5

    def one(i: int) -> None:
        time.sleep(max(0.0, start + moments[i] - time.monotonic()))
        sent = time.time()
        try:
            status, body, elapsed = post(port, path, tokens[i], bodies[i])
        except OSError as exc:
            status, body, elapsed = 0, {"error": repr(exc)}, 0.0
        results[i] = (status, body, elapsed, sent)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(tokens))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return (
        f"p50 {percentile(ordered, 50):.3f} s, p95 {percentile(ordered, 95):.3f} s,"
        f" max {ordered[-1]:.3f} s, mean {statistics.fmean(ordered):.3f} s"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=200, help="people arriving (200)")
    parser.add_argument("--arrival-seconds", type=float, default=10, help="within (10 s)")
    parser.add_argument("--wait", type=float, default=20, help="QUICKPLAY_WAIT_SECONDS (20)")
    parser.add_argument("--option-sets", type=int, default=1, choices=range(1, 5))
    parser.add_argument("--seed", type=int, default=13)
    add_stack_arguments(
        parser,
        database="euchre_bench_quickplay",
        port=True,
        gunicorn=True,
    )
    args = parser.parse_args()
    if not 4 <= args.people <= 1000 or not 0 < args.arrival_seconds <= 120:
        parser.error("--people: 4 to 1000; --arrival-seconds: up to 120")
    return args


def main() -> int:
    args = parse_args()
    stack = Stack.from_args(
        args,
        "euchre-bench-quickplay-",
        eager=False,
        extra_env={"QUICKPLAY_WAIT_SECONDS": str(args.wait), "COMPUTER_MOVE_DELAY": "0"},
    )
    log_dir = stack.log_dir
    rng = random.Random(args.seed)
    moments = sorted(rng.uniform(0, args.arrival_seconds) for _ in range(args.people))
    rng.shuffle(moments)
    asks = [
        {"preset": PRESETS[rng.randrange(args.option_sets)], "computers": True, "level": "random"}
        for _ in range(args.people)
    ]
    print(
        f"benchmarks/quickplay.py: {args.people} people arriving within {args.arrival_seconds:g}"
        f" s, {args.option_sets} set(s) of options, table wait {args.wait:g} s"
    )
    print(
        f"  server: gunicorn gthread, {args.workers} processes x {args.threads} threads,"
        f" production settings, one Celery worker; {os.cpu_count()} cores,"
        f" Python {platform.python_version()}"
    )
    checks: list[tuple[str, bool]] = []
    with stack:
        stack.start_gunicorn()
        stack.start_worker()
        print(f"  PostgreSQL {stack.query('SHOW server_version')[0][0]}; logs in {log_dir}")
        everyone = stack.make_users(2 * args.people)  # (one call: names are unique in it)
        baseline_tokens, tokens = everyone[: args.people], everyone[args.people :]

        seats = [{"kind": "me"}] + [{"kind": "open"}] * 3
        baseline = arrive(
            args.port, "/api/v1/matches", baseline_tokens, [{"seats": seats}] * args.people,
            moments,
        )  # fmt: skip
        began = time.time()
        answers = arrive(args.port, "/api/v1/quickplay", tokens, asks, moments)
        arrived = time.time()
        load = os.getloadavg()[0]
        deadline = time.monotonic() + args.wait + 60
        while time.monotonic() < deadline:
            left = stack.query(
                "SELECT count(*) FROM games_match WHERE status = 'waiting' AND quickplay_key <> ''"
            )[0][0]
            if not left:
                break
            time.sleep(0.5)
        tables = stack.query(
            "SELECT m.id, m.quickplay_key, m.status, extract(epoch FROM m.created_at),"
            " (SELECT extract(epoch FROM e.created_at) FROM games_event e"
            "   WHERE e.match_id = m.id AND e.type = %s),"
            " (SELECT count(*) FROM games_seat s WHERE s.match_id = m.id AND s.kind = 'human'),"
            " (SELECT count(*) FROM games_seat s WHERE s.match_id = m.id"
            "   AND s.kind = 'computer'),"
            " (SELECT count(*) FROM games_seat s WHERE s.match_id = m.id AND s.kind = 'open')"
            " FROM games_match m WHERE m.quickplay_key <> ''",
            (events.MATCH_STARTED,),
        )
        seated = stack.query(
            "SELECT s.user_id, s.match_id FROM games_seat s JOIN games_match m"
            " ON m.id = s.match_id WHERE m.quickplay_key <> '' AND s.kind = 'human'"
        )

    ok = [a for a in answers if a[0] == 200]
    failed = [a for a in answers if a[0] != 200]
    base_ok = [b for b in baseline if b[0] == 201]
    started_at = {str(t[0]): t[4] for t in tables}
    person_waits = [
        float(started_at[a[1]["id"]]) - a[3] for a in ok if started_at.get(a[1]["id"]) is not None
    ]
    table_waits = [float(t[4]) - float(t[3]) for t in tables if t[4] is not None]
    by_people = [t for t in tables if t[6] == 0]
    filled = [t for t in tables if t[6] > 0]
    print()
    print(f"  load average (1 min) after the arrivals: {load:.1f} on {os.cpu_count()} cores"
          " (more than the cores: other programs disturbed the figures)")  # fmt: skip
    print(f"arrivals: {len(answers)} requests in {arrived - began:.1f} s; answered 200:"
          f" {len(ok)}, failed: {len(failed)}")  # fmt: skip
    for status, body, _e, _s in failed[:5]:
        print(f"  failed: {status} {str(body)[:200]}")
    print(f"  POST /api/v1/quickplay latency: {quantiles([a[2] for a in ok])}")
    print(f"  baseline POST /api/v1/matches (same arrivals, no queue): "
          f"{quantiles([b[2] for b in base_ok])}")  # fmt: skip
    if ok and base_ok:
        ratio = statistics.median(a[2] for a in ok) / statistics.median(b[2] for b in base_ok)
        print(f"  ratio of medians, quick play / baseline: {ratio:.2f}")
    print(
        f"tables: {len(tables)}: {len(by_people)} filled by people, {len(filled)} with computer"
        f" players ({sum(t[6] for t in filled)} computer seats)"
    )
    print(f"  from a table's opening to its start: {quantiles(table_waits)}")
    print(f"  from a person's request to their table's start: {quantiles(person_waits)}")

    users = [u for u, _m in seated]
    checks.append(("every person who asked sits at exactly one seat",
                   len(users) == len(set(users)) == len(ok) == args.people))  # fmt: skip
    checks.append(("every answer names the table the person sits at",
                   {(str(m)) for _u, m in seated} == {a[1]["id"] for a in ok}))  # fmt: skip
    checks.append(("every table has its four seats taken, none open",
                   all(t[5] + t[6] == 4 and t[7] == 0 for t in tables)))  # fmt: skip
    checks.append(("no table still waits", all(t[2] != "waiting" for t in tables)))
    per_key: dict[str, int] = {}
    for t in filled:
        per_key[t[1]] = per_key.get(t[1], 0) + 1
    checks.append(("at most one table per set of options needed computer players",
                   all(n <= 1 for n in per_key.values())))  # fmt: skip
    print()
    for what, passed in checks:
        print(f"  [{'ok' if passed else 'FAILED'}] {what}")
    return 0 if all(passed for _w, passed in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
