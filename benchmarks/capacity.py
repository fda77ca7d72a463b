"""The capacity model's figures: a match at a person's pace, worker throughput per level,
PostgreSQL writes per move.

    .venv/bin/python benchmarks/capacity.py                         # about 4 minutes
    .venv/bin/python benchmarks/capacity.py --matches 12 --busy-seconds 90

Runs the production shape on 127.0.0.1 against a PostgreSQL server of its own (initdb on a
spare port, removed at the end: the WAL it counts is this run's alone; the shared server's
WAL mixes everyone's): gunicorn (--workers 1 x --threads 4) for the REST API, one uvicorn
process for the streams, one Celery worker process (--concurrency 1) for the computer
players, all on the production settings, and a Redis server of its own (--redis-url: that
one instead).

1. Idle: the servers' resident memory with nothing to do, once one match was played.
2. A person's pace: --matches matches at once, each one person (a client here) and three
   Medium computer players on the worker. Each person does what the web client does
   (games/static/play/match.js): follows the match's stream, GETs its view when a new
   event arrives, and when it is its turn thinks --think seconds and POSTs its first legal
   action. Printed: per match, the moves, the CPU of the API processes (gunicorn and
   uvicorn) and of the worker, the memory the servers grew by per match at once, the WAL
   (pg_current_wal_lsn before and after) and write transactions per move.
   The pace is fast-forwarded (--think 0.3 s, computer moves not delayed): the CPU of a
   match is the sum of its requests and tasks, which the pauses between them do not
   change; what a real pace adds is each stream's keep-alives (one every
   STREAM_KEEPALIVE_SECONDS, each a comment and a poll of the log: "Live streams: figures"
   measured them) and the time the memory is held, both accounted for in
   docs/operations/capacity.md. Slower runs take longer for the same figures; faster ones
   pile requests up on the two shared cores and measure the queue.
3. Worker throughput per level (--levels medium,hard): --busy matches at once whose person
   acts at once (think 0), for --busy-seconds each, so a computer turn is always waiting:
   computer moves a second, the worker's CPU share (100 % of one core = saturated), and
   moves per CPU-second of the worker (the figure that holds on a machine shared with other
   programs).

Every phase prints the load average and the CPU other programs took meanwhile.
"""

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    cpu_line,
    cpu_snapshot,
    cpu_used,
    group_usage,
    spare_port,
    stream_server_env,
)
from benchmarks.stream import Http, Stream, sign_up  # noqa: E402

WAIT_FOR_EVENT = 120.0  # seconds a person waits for the computers before giving up


@dataclass
class Tally:
    matches: int = 0
    person_moves: int = 0
    gets: int = 0
    errors: int = 0
    first_error: str = ""

    def error(self, what: str) -> None:
        self.errors += 1
        self.first_error = self.first_error or what


def seats(level: str) -> list[dict]:
    return [{"kind": "me"}] + [{"kind": "computer", "level": level}] * 3


async def next_event(stream: Stream, seq: int) -> bool:
    """Until the stream brings an event after `seq` (as the browser's onEvent), or ends (a
    finished match's stream ends once it is all sent); False if neither comes in time."""
    deadline = time.monotonic() + WAIT_FOR_EVENT
    while stream.last_id <= seq and not stream.ended:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def play_one(args, http: Http, token: str, level: str, think: float, tally: Tally) -> None:
    status, view = await http.call("POST", "/api/v1/matches", {"seats": seats(level)})
    if status != 201:
        tally.error(f"POST /matches {status} {view}")
        return
    match_id = view["id"]
    stream = Stream(None)
    await stream.open(args.stream_port, match_id, token, view["seq"])
    try:
        while view.get("status") != "finished":
            legal = view["view"]["legal_actions"]
            if legal:
                await asyncio.sleep(think)
                action = {**legal[0], "expected_seq": view["seq"]}
                path = f"/api/v1/matches/{match_id}/actions"
                status, view = await http.call("POST", path, action)
                tally.person_moves += status == 200
            else:
                if not await next_event(stream, view["seq"]):
                    tally.error(f"no event after seq {view['seq']} (stream ended: {stream.ended})")
                    return
                status, view = await http.call("GET", f"/api/v1/matches/{match_id}")
                tally.gets += 1
            if status != 200:
                tally.error(f"{status} {str(view)[:200]}")
                return
        tally.matches += 1
    finally:
        stream.close()


async def people(args, tokens: list[str], level: str, think: float, until: float | None):
    """Each token plays matches: one each (until None), or back to back until `until`."""
    tally = Tally()

    async def person(token: str) -> None:
        http = Http(args.port, token)
        try:
            while True:
                await play_one(args, http, token, level, think, tally)
                if until is None or time.perf_counter() > until or tally.errors:
                    return
        finally:
            http.close()

    await asyncio.gather(*(person(t) for t in tokens))
    return tally


# ---------------------------------------------------------------- measuring


class Meter:
    """CPU and memory of the API processes, of the worker and of PostgreSQL (the
    backends alive at the end: a connection closed meanwhile takes its CPU with it, so the
    servers keep theirs for the run), moves, WAL and write transactions, between start()
    and stop()."""

    def __init__(self, stack: Stack, groups: dict[str, set[int]]) -> None:
        self.stack, self.groups = stack, groups
        self.peak = dict.fromkeys(groups, 0)

    def _usage(self) -> dict[str, tuple[float, int]]:
        servers = self.groups["API"] | self.groups["worker"]
        usage = group_usage(servers, parents=self.groups["PostgreSQL"])
        return {
            name: (sum(usage[g][0] for g in gs), sum(usage[g][1] for g in gs))
            for name, gs in self.groups.items()
        }

    def _db(self) -> tuple[int, int, int, int]:
        """Moves logged (all, the person's), WAL bytes written so far, and the next
        transaction id (a transaction gets one only when it writes: their difference is
        the write transactions; this server is the run's own)."""
        logged = self.stack.logged_moves()  # rows, and the hands over moved into chunks
        moves, person = len(logged), sum(m.seat == 0 for m in logged)
        [(wal, writes)] = self.stack.query(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,"
            " pg_snapshot_xmax(pg_current_snapshot())::text::bigint"
        )
        return moves, person, wal, writes

    def start(self) -> None:
        self.t0, self.use0 = time.perf_counter(), self._usage()
        self.cpu0, self.db0 = cpu_snapshot(self.stack.process_groups()), self._db()
        self.load0 = os.getloadavg()[0]

    def sample(self) -> None:
        for name, (_cpu, rss) in self._usage().items():
            self.peak[name] = max(self.peak[name], rss)

    def stop(self) -> dict:
        seconds = time.perf_counter() - self.t0
        use1, cpu1, db1 = self._usage(), cpu_snapshot(self.stack.process_groups()), self._db()
        cores = os.cpu_count() or 1
        shares = {k: v / (seconds * cores) * 100 for k, v in cpu_used(self.cpu0, cpu1).items()}
        moves, person, wal, writes = (b - a for a, b in zip(self.db0, db1, strict=True))
        return {
            "seconds": seconds,
            "cpu": {name: use1[name][0] - self.use0[name][0] for name in self.groups},
            "peak": dict(self.peak),
            "moves": moves,
            "person": person,
            "wal": wal,
            "writes": writes,
            "shares": shares,
            "load": f"{self.load0:.1f} -> {os.getloadavg()[0]:.1f}",
        }


async def measured(meter: Meter, work) -> dict:
    async def sampler() -> None:
        while True:
            meter.sample()
            await asyncio.sleep(0.5)

    meter.start()
    task = asyncio.create_task(sampler())
    tally = await work
    task.cancel()
    result = meter.stop()
    result["tally"] = tally
    if tally.errors:
        raise SystemExit(f"{tally.errors} errors; the first: {tally.first_error}")
    return result


# ---------------------------------------------------------------- the run


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8, help="at a person's pace, at once")
    parser.add_argument("--think", type=float, default=0.3, help="a person's seconds a move")
    parser.add_argument("--levels", default="medium,hard")
    parser.add_argument("--busy", type=int, default=6, help="matches at once, per level")
    parser.add_argument("--busy-seconds", type=float, default=45.0)
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads (1 process)")
    add_stack_arguments(
        parser,
        database="euchre_bench_scale_capacity",
        port=True,
        keep_database=False,
    )
    parser.add_argument("--stream-port", type=int, default=spare_port(), help="(spare)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    stack = Stack.from_args(
        args,
        "euchre-capacity-",
        stream_port=args.stream_port,
        workers=1,
        threads=args.threads,
        # Connections kept for the whole run (production renews them every 60 s): a
        # PostgreSQL backend that ends takes the count of its CPU with it.
        extra_env={
            **stream_server_env(15),
            "COMPUTER_MOVE_DELAY": "0",
            "DATABASE_CONN_MAX_AGE": "3600",
        },
        private_postgres=True,
    )
    with stack:
        stack.start_gunicorn()
        api = set(stack.process_groups())
        stack.start_uvicorn()
        api |= stack.process_groups()
        stack.start_worker()
        worker = stack.process_groups() - api
        groups = {"API": api, "worker": worker, "PostgreSQL": {stack.postgres.pid()}}
        asyncio.run(run(args, stack, groups))
    return 0


async def run(args: argparse.Namespace, stack: Stack, groups: dict[str, set[int]]) -> None:
    print(
        f"benchmarks/capacity.py: {os.cpu_count()} cores; gunicorn 1 x {args.threads} threads,"
        " one uvicorn, one Celery worker process; a PostgreSQL server of its own"
    )
    tokens = [await sign_up(args.port) for _ in range(max(args.matches, args.busy))]
    # One match first, so that what every process allocates once (code paths run for the
    # first time, connections) is not counted as the matches' memory.
    warm = await people(args, tokens[:1], "medium", 0.0, None)
    if warm.errors:
        raise SystemExit(f"the warm-up match failed: {warm.first_error}")
    await asyncio.sleep(2)
    idle = Meter(stack, groups)._usage()
    print(
        "  idle, after one match: resident memory "
        + ", ".join(f"{name} {idle[name][1] / 1024:.0f} MiB" for name in ("API", "worker"))
    )
    pace = await measured(
        Meter(stack, groups), people(args, tokens[: args.matches], "medium", args.think, None)
    )
    print_pace(args, pace, idle)
    for level in args.levels.split(","):
        until = time.perf_counter() + args.busy_seconds
        busy = await measured(
            Meter(stack, groups), people(args, tokens[: args.busy], level, 0.0, until)
        )
        print_busy(args, level, busy)


def print_pace(args: argparse.Namespace, r: dict, idle: dict) -> None:
    n, moves = r["tally"].matches, r["moves"]
    computer = moves - r["person"]
    print(
        f"  a person's pace: {n} matches at once, one person (think {args.think:g} s) and three"
        f" Medium computers each, {r['seconds']:.0f} s (load average {r['load']}):"
    )
    print(
        f"    moves a match: {moves / n:.0f} ({r['person'] / n:.0f} the person's,"
        f" {computer / n:.0f} the computers'); the person's GETs of the view: "
        f"{r['tally'].gets / n:.0f}"
    )
    api, work = r["cpu"]["API"], r["cpu"]["worker"]
    print(
        f"    CPU a match: API {api / n * 1000:.0f} ms ({api / moves * 1000:.1f} ms a move),"
        f" worker {work / n * 1000:.0f} ms ({work / max(computer, 1) * 1000:.1f} ms a"
        " computer move)"
    )
    grown = {k: (r["peak"][k] - idle[k][1]) / n for k in ("API", "worker")}
    print(
        "    memory a match at once (peak growth over idle / matches): "
        + ", ".join(f"{k} {v:.0f} KiB" for k, v in grown.items())
    )
    print(
        f"    PostgreSQL: {r['cpu']['PostgreSQL'] / moves * 1000:.1f} ms of CPU a move,"
        f" {r['wal'] / moves:.0f} bytes of WAL a move ({r['wal'] / n / 1024:.0f}"
        f" KiB a match), {r['writes'] / moves:.2f} write transactions a move"
    )
    print(cpu_line(r["shares"], " meanwhile"))


def print_busy(args: argparse.Namespace, level: str, r: dict) -> None:
    computer = r["moves"] - r["person"]
    work = r["cpu"]["worker"]
    print(
        f"  worker throughput, {level}: {args.busy} matches at once, the person acting at once,"
        f" {r['seconds']:.0f} s (load average {r['load']}):"
    )
    print(
        f"    {computer / r['seconds']:.1f} computer moves a second on one worker process,"
        f" the worker busy {work / r['seconds'] * 100:.0f} % of a core;"
        f" {computer / work:.1f} moves per CPU-second of the worker"
        f" ({work / max(computer, 1) * 1000:.1f} ms a move)"
    )
    print(
        f"    meanwhile, CPU a move: the API {r['cpu']['API'] / max(r['moves'], 1) * 1000:.1f} ms,"
        f" PostgreSQL {r['cpu']['PostgreSQL'] / max(r['moves'], 1) * 1000:.1f} ms;"
        f" {r['wal'] / max(r['moves'], 1):.0f} bytes of WAL a move"
    )
    print(cpu_line(r["shares"], " meanwhile"))


if __name__ == "__main__":
    sys.exit(main())
