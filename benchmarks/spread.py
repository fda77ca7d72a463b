"""Whether the API's load spreads over gunicorn's processes after they recycle (issue 15).

    nice -n 5 .venv/bin/python benchmarks/spread.py            # 3 phases of 3 minutes

gunicorn as production runs it (euchre_service/gunicorn.conf.py, the production settings,
3 processes x 4 threads), but with a small GUNICORN_MAX_REQUESTS so its processes are
replaced often, and --clients keep-alive clients (one thread and connection each) each
running the ceiling's loop (GET /bench/ping, POST /bench/ping: an authenticated read and a
one-row write) with a pause between requests, a modest load. Each answer says which
process served it (X-Bench-Worker, benchmarks/query_census.py). Three phases, on a fresh
gunicorn each: GUNICORN_MAX_REQUESTS_PER_CONNECTION=0 (the connections are kept for ever:
the baseline); the setting at --per-connection (the default, 50); and (unless
--no-reuse-port) the setting with gunicorn's --reuse-port, a listening socket of each
process's own, over which the kernel hashes new connections (without it the processes
share one socket and whichever wakes first accepts).

Per --window seconds it prints how many processes served requests, on average over the
window's seconds ("serving"), the share of its seconds in which fewer than all of them
served ("short"), the busiest process's share of the requests, and the p99 latency; then
the windows that spent most of their seconds on fewer than all processes, off against on.
All on 127.0.0.1, its own database (euchre_bench_spread) and Redis server
(benchmarks/_server.py's Stack), everything stopped at the end.
"""

import argparse
import os
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    cpu_line,
    cpu_snapshot,
    cpu_used,
    ms,
)
from benchmarks.api import Client  # noqa: E402


@dataclass
class Answer:
    at: float  # seconds since the phase started
    seconds: float
    pid: str
    ok: bool


def client_loop(client: Client, end: float, start: float, pause: float, out: list) -> None:
    """The ceiling's loop (GET then POST /bench/ping) until `end`, a pause after each."""
    client.extra_headers["X-Bench-Worker"] = "1"
    i = 0
    while time.perf_counter() < end:
        i += 1
        for method, body, good in (("GET", None, 200), ("POST", {"note": f"n{i}"}, 201)):
            sent = time.perf_counter()
            status, _, seconds = client.call(method, "/bench/ping", body)
            pid = client.last.getheader("X-Bench-Worker", "?") if client.last else "?"
            out.append(Answer(sent - start, seconds, pid, status == good))
            time.sleep(pause)


def run_phase(stack: Stack, tokens: list[str], args: argparse.Namespace) -> tuple[list, dict, int]:
    """One gunicorn, the clients for --seconds; every answer, where the CPU went, and how
    many requests met a connection the server had dropped (sent again on a new one)."""
    stack.start_gunicorn()
    try:
        start = time.perf_counter()
        end = start + args.seconds
        answers: list[list[Answer]] = [[] for _ in tokens]
        clients = [Client(args.port, [token]) for token in tokens]
        threads = [
            threading.Thread(target=client_loop, args=(c, end, start, args.pause, out), daemon=True)
            for c, out in zip(clients, answers, strict=True)
        ]
        before = cpu_snapshot(stack.process_groups())
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=args.seconds + 60)
        after = cpu_snapshot(stack.process_groups())
        for client in clients:
            client.close()
    finally:
        stack.stop()
    cores = os.cpu_count() or 1
    cpu = {k: s / (args.seconds * cores) * 100 for k, s in cpu_used(before, after).items()}
    dropped = sum(client.reconnects for client in clients)
    return [a for out in answers for a in out], cpu, dropped


def windows(answers: list[Answer], args: argparse.Namespace) -> list[dict]:
    """Per window: its requests, how many processes served in each of its seconds (a
    process that holds no client's connection serves nothing that second), the busiest
    process's share, the p99, and failures. By the second, since a process replaced
    mid-window and its successor are different pids but one slot."""
    count = int(args.seconds // args.window)
    per_second: dict[int, set[str]] = {}
    for a in answers:
        per_second.setdefault(int(a.at), set()).add(a.pid)
    found = []
    for w in range(count):
        inside = [a for a in answers if w * args.window <= a.at < (w + 1) * args.window]
        seconds = range(int(w * args.window), int((w + 1) * args.window))
        serving = [len(per_second.get(s, ())) for s in seconds]
        by_pid = Counter(a.pid for a in inside)
        found.append(
            {
                "requests": len(inside),
                "serving": sum(serving) / len(serving),
                "short": sum(n < args.workers for n in serving) / len(serving),
                "busiest": max(by_pid.values(), default=0) / (len(inside) or 1),
                "p99": ms([a.seconds for a in inside], 99),
                "failed": sum(not a.ok for a in inside),
            }
        )
    return found


def show(
    name: str, answers: list[Answer], cpu: dict, args: argparse.Namespace
) -> tuple[int, float, float]:
    """Print a phase's windows; how many spent most of their seconds on fewer than all
    the processes, the busiest process's mean share of a window, and the phase's p99."""
    print(f"\nGUNICORN_MAX_REQUESTS_PER_CONNECTION: {name}")
    print(
        f"  {'window':>6} {'requests':>8} {'serving':>8} {'short':>6} {'busiest':>7} {'p99 ms':>7}"
    )
    rows = windows(answers, args)
    for i, row in enumerate(rows):
        failed = f"  {row['failed']} failed" if row["failed"] else ""
        print(
            f"  {i + 1:6d} {row['requests']:8d} {row['serving']:6.1f}/{args.workers}"
            f" {row['short']:6.0%} {row['busiest']:7.0%} {row['p99']:7.1f}{failed}"
        )
    short = sum(row["short"] > 0.5 for row in rows)
    pids = len({a.pid for a in answers})
    print(
        f"  windows spending most seconds on fewer than {args.workers} processes: {short}/"
        f"{len(rows)}; p99 of the phase {ms([a.seconds for a in answers], 99):.1f} ms;"
        f" {pids - args.workers} processes replaced"
    )
    print(cpu_line(cpu, " (a replaced process's CPU is not counted)"))
    busiest = sum(row["busiest"] for row in rows) / (len(rows) or 1)
    return short, busiest, ms([a.seconds for a in answers], 99)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=180, help="per phase (180)")
    parser.add_argument("--window", type=float, default=30, help="seconds a window (30)")
    parser.add_argument("--pause", type=float, default=0.25, help="after each request (s)")
    parser.add_argument("--max-requests", type=int, default=1000, help="GUNICORN_MAX_REQUESTS")
    parser.add_argument("--jitter", type=int, default=50, help="GUNICORN_MAX_REQUESTS_JITTER")
    parser.add_argument("--per-connection", type=int, default=50, help="the setting, on")
    parser.add_argument(
        "--no-reuse-port",
        dest="reuse_port",
        action="store_false",
        help="skip the third phase (the setting on, and gunicorn --reuse-port)",
    )
    add_stack_arguments(parser, database="euchre_bench_spread", port=True, gunicorn=True)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    stack = Stack.from_args(args, "euchre-spread-")
    stack.extra_env.update(
        {
            "GUNICORN_MAX_REQUESTS": str(args.max_requests),
            "GUNICORN_MAX_REQUESTS_JITTER": str(args.jitter),
        }
    )
    print(
        f"benchmarks/spread.py: gunicorn {args.workers} x {args.threads}, GUNICORN_MAX_REQUESTS"
        f" {args.max_requests} (+ up to {args.jitter}); {args.clients} keep-alive clients, GET"
        f" and POST /bench/ping with {args.pause:g} s after each; {args.seconds:g} s a phase"
        f" in windows of {args.window:g} s"
    )
    with stack:
        tokens = stack.make_users(args.clients)
        per = str(args.per_connection)
        phases = [
            ("off (the baseline)", {"GUNICORN_MAX_REQUESTS_PER_CONNECTION": "0"}),
            (f"{per} requests a connection", {"GUNICORN_MAX_REQUESTS_PER_CONNECTION": per}),
        ]
        if args.reuse_port:
            phases.append(
                (
                    f"{per} requests a connection, and a listening socket per process"
                    " (gunicorn --reuse-port: the kernel hashes new connections over them)",
                    {
                        "GUNICORN_MAX_REQUESTS_PER_CONNECTION": per,
                        "GUNICORN_CMD_ARGS": "--reuse-port",
                    },
                )
            )
        summaries = []
        for name, env in phases:
            stack.extra_env.update(env)
            answers, cpu, dropped = run_phase(stack, tokens, args)
            summaries.append((name, show(name, answers, cpu, args)))
            print(f"  requests that met a dropped connection (sent again): {dropped}")
        count = int(args.seconds // args.window)
        print(f"\nSummary ({count} windows of {args.window:g} s a phase):")
        for name, (short, busiest, p99) in summaries:
            print(
                f"  {short}/{count} windows mostly on fewer than {args.workers} processes;"
                f" busiest process {busiest:.0%} of requests; p99 {p99:.1f} ms: {name}"
            )


if __name__ == "__main__":
    main()
