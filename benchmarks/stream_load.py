"""`benchmarks/stream.py --with-api-load`: live delivery while the API is under load.

The production shape: REST on gunicorn (--port), the streams on one uvicorn process
(--stream-port); with --rest-on-uvicorn the REST calls (the load's and the played
match's) go to the uvicorn process too, as a deployment with no gunicorn would. Then:
  1. the API's capacity: benchmarks/api.py's `--bots none` loop (four people at each
     match; GET the view of the seat to act, POST its first legal action), --api-clients
     clients flat out for --capacity-seconds, actions per second (or --api-rate: a rate
     given, nothing measured);
  2. delivery alone: phase 2 of benchmarks/stream.py (--stream-clients streams on one
     match played through REST, --actions actions), the baseline of this run;
  3. delivery under load: the same, while a client process runs the same API loop paced
     to --load-fraction (0.5) of that capacity, spread evenly over its clients.
It prints commit-to-arrival p50/p95/p99 for both: the lower bound (arrival - t_resp), the
upper bound from the event's insert (its created_at, taken just before the INSERT, after
the match's lock: the same clock) and the upper bound from t_send (which includes the
POST's own queueing under load); what the load achieved; and whether p99 under load
(the upper bound from the insert) is under the goal of 200 ms.
"""

import argparse
import asyncio
import multiprocessing
import os
import time
from collections.abc import Callable
from typing import Any

from benchmarks import api
from benchmarks._server import Stack, ms

GOAL_P99_MS = 200.0
SESSIONS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    " AND pid <> pg_backend_pid()"
)
WARMUP = 2.0  # seconds of load before the delivery under load is measured


def pacer(per_second: float) -> Callable[[], None]:
    """A function that waits so that its caller's steps keep to `per_second` (a caller
    that fell behind goes on at once, without a burst to catch up)."""
    interval, next_at = 1.0 / per_second, [time.perf_counter()]

    def pace() -> None:
        now = time.perf_counter()
        if next_at[0] > now:
            time.sleep(next_at[0] - now)
        next_at[0] = max(next_at[0], now) + interval

    return pace


def api_loop(
    tokens: list[list[str]],
    port: int,
    groups: set[int],
    *,
    seconds: float,
    rate: float | None = None,
    stop=None,
) -> tuple[float, api.Tally]:
    """benchmarks/api.py's --bots none loop, one thread per client: flat out, or paced to
    `rate` actions a second in all; `seconds` measured after WARMUP (or until `stop`).
    Returns the seconds measured and what the clients saw."""
    per_client = rate / len(tokens) if rate else None

    def work(client: api.Client, window: api.Window, tally: api.Tally) -> None:
        pace = pacer(per_client) if per_client else None
        api.play_people(client, window, 10**9, tally, pace)

    timing = argparse.Namespace(warmup=WARMUP, seconds=seconds)
    window, tally = api.run_phase(tokens, port, timing, groups, work, stop)
    return window.end - window.start, tally


def _load_process(tokens, port, groups, rate, stop, out) -> None:
    """The load's own process (so that its threads share no interpreter lock with the
    stream clients whose arrival times are measured)."""
    out.put(api_loop(tokens, port, groups, seconds=3600, rate=rate, stop=stop))


def load_line(label: str, seconds: float, tally: api.Tally) -> str:
    action = api.figures(tally, api.ACTION, seconds)
    view = api.figures(tally, api.VIEW, seconds)
    return (
        f"  {label}: {action.per_second:.1f} actions/s, {view.per_second:.1f} views/s over"
        f" {seconds:.0f} s; action POST p50 {action.p50:.1f} ms, p99 {action.p99:.1f} ms;"
        f" errors {action.errors + view.errors}"
    )


def bounds(d: Any, q: float) -> str:
    """Percentile `q` of commit-to-arrival: lower bound .. upper bound from the event's
    insert (upper bound from t_send)."""
    return f"{ms(d.lower, q):6.1f} .. {ms(d.insert, q):6.1f} ({ms(d.upper, q):6.1f})"


def run(
    args: argparse.Namespace,
    stack: Stack,
    delivery_phase: Callable[..., Any],
    print_delivery: Callable[[argparse.Namespace, Any], None],
) -> int:
    """The combined mode, on a prepared `stack` (started here); 1 if anything failed.
    benchmarks/stream.py hands in its delivery phase and its printing of one (its
    `Delivery`), so this module does not import it back."""
    rest_port = args.stream_port if args.rest_on_uvicorn else args.port
    stack.start_uvicorn(open_files=args.stream_clients * 2 + 1024)
    if not args.rest_on_uvicorn:
        stack.start_gunicorn()
    version = stack.query("SHOW server_version")[0][0]
    rest = (
        f"uvicorn on 127.0.0.1:{rest_port} (--rest-on-uvicorn: REST and streams, one process)"
        if args.rest_on_uvicorn
        else f"gunicorn gthread {args.workers} x {args.threads} on 127.0.0.1:{rest_port}"
    )
    print(f"  REST: {rest}; streams: uvicorn, 1 process, on 127.0.0.1:{args.stream_port}")
    print(f"  PostgreSQL {version}, database {stack.database}; logs in {stack.log_dir}")
    print(f"  load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    flat = stack.make_users(args.api_clients * 4)
    tokens = [flat[i : i + 4] for i in range(0, len(flat), 4)]
    groups = stack.process_groups()

    capacity_errors = 0
    if args.api_rate:
        capacity, rate = None, args.api_rate
        print(f"\n1. API capacity: not measured; the load's rate given: {rate:g} actions/s")
    else:
        print(
            f"\n1. API capacity: {args.api_clients} clients flat out, {WARMUP:g} s warm-up +"
            f" {args.capacity_seconds:g} s (benchmarks/api.py's --bots none loop)"
        )
        seconds, tally = api_loop(tokens, rest_port, groups, seconds=args.capacity_seconds)
        print(load_line("flat out", seconds, tally))
        api.report_errors(tally)
        capacity_errors = sum(tally.errors.values())
        capacity = api.figures(tally, api.ACTION, seconds).per_second
        rate = capacity * args.load_fraction
        print(f"  the load: {args.load_fraction:g} x {capacity:.1f} = {rate:.1f} actions/s")

    print(f"\n2. delivery alone: {args.stream_clients} streams, {args.actions} actions")
    alone = asyncio.run(delivery_phase(args, stack, rest_port, args.stream_port))
    print_delivery(args, alone)

    print(
        f"\n3. delivery under the API load ({rate:.1f} actions/s from {args.api_clients}"
        f" clients in a process of their own, {WARMUP:g} s ahead)"
    )
    context = multiprocessing.get_context("fork")
    stop, out = context.Event(), context.Queue()
    child = context.Process(
        target=_load_process, args=(tokens, rest_port, groups, rate, stop, out), daemon=True
    )
    child.start()
    time.sleep(WARMUP + 0.5)
    loaded = asyncio.run(delivery_phase(args, stack, rest_port, args.stream_port))
    sessions = stack.query(SESSIONS)[0][0]  # the load still running
    stop.set()
    load_seconds, load = out.get(timeout=120)
    child.join(timeout=30)
    after_load = os.getloadavg()
    print_delivery(args, loaded)
    print(load_line("the API load meanwhile", load_seconds, load))
    print(f"  PostgreSQL sessions on the database at its end: {sessions}")
    api.report_errors(load)

    achieved = api.figures(load, api.ACTION, load_seconds).per_second
    p99, p99_send = ms(loaded.insert, 99), ms(loaded.upper, 99)
    print()
    print(
        f"commit -> arrival at {args.stream_clients} clients, ms: lower bound (arrival - t_resp)"
        " .. upper bound (arrival - the event's insert), and (the upper bound from t_send)"
    )
    print(f"  {'':<57} {'p50':>24} {'p95':>24} {'p99':>24}")
    print(f"  {'alone':<57} {bounds(alone, 50)} {bounds(alone, 95)} {bounds(alone, 99)}")
    load_label = f"under the API load, {achieved:.1f} actions/s" + (
        f" ({achieved / capacity:.2f} of capacity {capacity:.1f})" if capacity else ""
    )
    print(f"  {load_label:<57} {bounds(loaded, 50)} {bounds(loaded, 95)} {bounds(loaded, 99)}")
    verdict = "met" if p99 < GOAL_P99_MS else "NOT met"
    print(
        f"goal: p99 under load < {GOAL_P99_MS:.0f} ms (upper bound from the event's insert):"
        f" {p99:.1f} ms, {verdict} (from t_send, with the POST's own queueing: {p99_send:.1f} ms)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in after_load)}")
    failed = any(d.errors or d.missing or d.disorder for d in (alone, loaded))
    return 1 if failed or load.errors or capacity_errors else 0
