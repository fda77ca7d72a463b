"""Live streams (GET /api/v1/matches/{id}/stream, Server-Sent Events) under one uvicorn
process with the production settings: how many idle clients it holds, and how soon an
action's event reaches the clients following the match.

    .venv/bin/python benchmarks/stream.py                      # up to 4000 idle, 300 actions
    .venv/bin/python benchmarks/stream.py --max-clients 8000 --actions 600 --step-seconds 90
    .venv/bin/python benchmarks/stream.py --max-clients 20 --actions 10 --keepalive 1   # quick
    .venv/bin/python benchmarks/stream.py --with-api-load     # phase 2 alone, then under API load
    .venv/bin/python benchmarks/stream.py --with-api-load --rest-on-uvicorn

What it does, all on 127.0.0.1, and stops by itself:
  1. makes a fresh PostgreSQL database (--database-url, default euchre_bench_stream; dropped
     first and, unless --keep-database, at the end) and migrates it; starts a Redis server
     of its own on a spare port (--redis-url: two databases of that one, --broker-db and
     --cache-db, emptied): the broker, and the cache, which is also REDIS_URL, the server
     through which commits tell the API process of new events (pub/sub channels are not per
     database; the channels are named by match id);
  2. starts one uvicorn process (--workers 1, as bin/serve) on euchre_service.settings_production:
     a generated SECRET_KEY, plain HTTP (SECURE_SSL_REDIRECT=false), the throttles
     (THROTTLE_*) raised, STREAM_KEEPALIVE_SECONDS=--keepalive (5), its open-files limit
     raised (as `ulimit -n`) for the clients; every match has four people, no computer
     player, so no Celery worker is needed (production never runs tasks in-process);
  3. phase 1, idle clients: signs up --matches (50) guests (POST /auth/guest), each creates
     a match with three open seats, which stays waiting; then opens streams (?after= the
     match's seq, so nothing is replayed) spread evenly over those matches, with the creators'
     tokens, in steps (250, 500, 1000, 2000, ... up to --max-clients, 4000), at most
     --connect-concurrency (64) handshakes at a time, each given 30 s and the step's new ones
     together --step-seconds (45). A stream counts as established once its 200 answer and
     its first message (`retry:`) have arrived. At each step it prints the streams
     established and failed, the time to open the step's new ones, the server's RSS (VmRSS),
     threads and PostgreSQL connections, the database's transactions per second and the CPU
     while the streams idle, whether a keep-alive comment reached every client within the
     keep-alive interval + 1 s, and the latency of REST requests on fresh connections (GET
     /healthz, GET /matches/{id}) while they are all connected. It stops at the first step
     with a failure (a handshake failed or not done in time, an established stream ended,
     a REST request failed) or a client without a keep-alive in time, or at --max-clients;
     then it closes them all and prints the server's RSS and threads again;
  4. phase 2, delivery: four guests sit at one match; --stream-clients (100) streams follow
     it, a quarter with each player's token; the players play it through REST (GET the view
     of the seat whose turn it is, POST its first legal action with expected_seq) until
     --actions (300) actions were measured, on as many matches as that takes. For each
     action it takes t_send (just before the POST is written) and t_resp (its answer read);
     each client records when the action's event (seq = the match's seq before it + 1)
     arrives. The next action waits until every client has it (or 10 s). The commit happens
     between t_send and t_resp, so arrival - t_send is an upper bound of commit-to-arrival
     and arrival - t_resp (negative when the event beat the answer) a lower bound.

--with-api-load runs phase 2 twice instead of both phases: alone, then while the API
serves benchmarks/api.py's --bots none loop at --load-fraction of its capacity, measured
first in the same run (benchmarks/stream_load.py says how).

Clients are this process: asyncio with raw HTTP/1.1 over asyncio.open_connection (no HTTP
library), a few microseconds of work per message, so that on a small machine the clients
leave the cores to the server. CPU shares are printed so a disturbed run can be told apart.
"""

import argparse
import asyncio
import json
import os
import platform
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import stream_load  # noqa: E402
from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    cpu_line,
    cpu_snapshot,
    cpu_used,
    ms,
    percentile,
    raise_open_files_limit,
    rss_kib,
    spare_port,
    stream_server_env,
)

PEOPLE = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
HOST = "127.0.0.1"
DELIVERY_TIMEOUT = 10.0  # seconds an action's event may take to reach every client
SLACK = 1.0  # seconds past the keep-alive interval a keep-alive may take to arrive
COLUMNS = """\
  clients: streams open and established (the 200 and the first message) at the step;
  failed: handshakes that failed, plus established streams that ended while idle;
  connect s: the time to open the step's new streams; RSS MiB: the server's VmRSS;
  KiB/cl: its growth since before any stream, per open stream; threads: the server's;
  pg conn: PostgreSQL connections to the database; db tx/s: its transactions a second
  while idle; CPU %: % of one core while idle, used by the server / these clients /
  PostgreSQL and Redis; keep-alive: clients that got a keep-alive comment within the
  interval + 1 s of the idle window's start; last s: when in the window the last of those
  first keep-alives came; healthz, view: GET /healthz and GET /matches/{id}, each on a new
  connection, while all the streams are open.
"""


# ---------------------------------------------------------------- HTTP/1.1 over asyncio


class HttpError(Exception):
    pass


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise HttpError(f"bad status line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(body)
            body += (await reader.readexactly(size + 2))[:-2]
    return await reader.read()  # until the server closes


def request_bytes(method: str, path: str, token: str | None, body: bytes | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Accept: application/json"]
    if token:
        lines.append(f"Authorization: Token {token}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


class Http:
    """One keep-alive connection for REST calls, opened when first needed."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port, self.token = port, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.t_send = 0.0  # perf_counter() just before the newest request was written

    async def call(self, method: str, path: str, payload: dict | None = None) -> tuple[int, dict]:
        data = request_bytes(
            method, path, self.token, None if payload is None else json.dumps(payload).encode()
        )
        for attempt in range(2):
            reused = self.writer is not None
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            try:
                self.t_send = time.perf_counter()
                self.writer.write(data)
                status, headers = await read_head(self.reader)
                raw = await read_body(self.reader, headers)
            except (ConnectionError, asyncio.IncompleteReadError):
                # The server closed an idle keep-alive connection before this request: it
                # processed nothing, so sending again on a new connection is safe.
                self.close()
                if attempt or not reused:
                    raise
                continue
            if headers.get("connection", "").lower() == "close":
                self.close()
            try:
                return status, json.loads(raw) if raw else {}
            except ValueError:
                return status, {"raw": raw[:200].decode(errors="replace")}
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def fresh_get(port: int, path: str, token: str | None = None) -> tuple[int, float]:
    """One GET on a new connection; its status and seconds, connecting included."""
    client = Http(port, token)
    start = time.perf_counter()
    try:
        status, _ = await asyncio.wait_for(client.call("GET", path), 30)
    except (OSError, asyncio.IncompleteReadError, TimeoutError, HttpError):
        status = 0
    seconds = time.perf_counter() - start
    client.close()
    return status, seconds


# ---------------------------------------------------------------- an SSE client


class Tracker:
    """Phase 2: which seq the clients are waiting for, and how many still wait."""

    def __init__(self) -> None:
        self.target = -1
        self.waiting = 0
        self.done = asyncio.Event()

    def expect(self, seq: int, clients: int) -> None:
        self.target, self.waiting = seq, clients
        self.done.clear()

    def arrived(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.done.set()


class Stream:
    """One client on a match's stream: reads chunks as they come, splits SSE messages, and
    notes when keep-alives and events arrive (the time of the read that completed them)."""

    __slots__ = (
        "reader",
        "writer",
        "task",
        "raw",
        "text",
        "left",
        "skip",
        "ended",
        "error",
        "messages",
        "last_id",
        "disorder",
        "arrivals",
        "since_insert",
        "tracker",
        "keepalives",
        "last_keepalive",
        "window_start",
        "first_in_window",
    )

    def __init__(self, tracker: Tracker | None) -> None:
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task | None = None
        self.raw = bytearray()  # chunked transfer coding, not yet decoded
        self.text = bytearray()  # decoded, not yet a whole message
        self.left = 0  # bytes of the current chunk still to come
        self.skip = 0  # bytes of the CRLF after a chunk still to skip
        self.ended = False
        self.error = ""
        self.messages = 0  # whole messages and comments read
        self.last_id = -1
        self.disorder = 0  # ids not one more than the last
        self.arrivals: dict[int, float] = {}  # seq -> time, phase 2 only
        # seq -> arrival (wall clock) - the event's created_at (taken by the server just
        # before its INSERT, after the match's lock), phase 2 only
        self.since_insert: dict[int, float] = {}
        self.tracker = tracker
        self.keepalives = 0
        self.last_keepalive = 0.0
        self.window_start = float("inf")
        self.first_in_window = 0.0  # the first keep-alive at or after window_start

    async def open(self, port: int, match_id: str, token: str, after: int) -> None:
        """Connect, ask, and wait for the 200 and the first message; then read on in a task."""
        self.reader, self.writer = await asyncio.open_connection(HOST, port, limit=1 << 20)
        path = f"/api/v1/matches/{match_id}/stream?after={after}"
        self.writer.write(request_bytes("GET", path, token))
        status, headers = await read_head(self.reader)
        if status != 200:
            raise HttpError(f"HTTP {status}")
        if headers.get("transfer-encoding", "").lower() != "chunked":
            raise HttpError("not chunked")
        while not self.messages:
            if not await self._read():
                raise HttpError("ended before its first message")
        self.task = asyncio.create_task(self._run())

    async def _read(self) -> bool:
        data = await self.reader.read(65536)
        if not data:
            self.ended = True
            return False
        now, wall = time.perf_counter(), time.time()
        self.raw += data
        self._decode()
        if b"\n\n" in self.text:
            self._messages(now, wall)
        return not self.ended

    async def _run(self) -> None:
        try:
            while await self._read():
                pass
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.error = type(exc).__name__
        self.ended = True

    def _decode(self) -> None:
        raw = self.raw
        while raw:
            if self.skip:
                n = min(self.skip, len(raw))
                del raw[:n]
                self.skip -= n
                continue
            if self.left:
                n = min(self.left, len(raw))
                self.text += raw[:n]
                del raw[:n]
                self.left -= n
                if not self.left:
                    self.skip = 2
                continue
            end = raw.find(b"\r\n")
            if end < 0:
                return
            size = int(bytes(raw[:end]).split(b";")[0], 16)
            del raw[: end + 2]
            if size == 0:
                self.ended = True
                return
            self.left = size

    def _whole_messages(self) -> list[bytes]:
        """The messages read whole so far (the rest kept for the next read), counted."""
        *whole, rest = bytes(self.text).split(b"\n\n")
        self.text = bytearray(rest)
        self.messages += len(whole)
        return whole

    def _messages(self, now: float, wall: float) -> None:
        for message in self._whole_messages():
            if message.startswith(b":"):
                self._keepalive(now)
            elif message.startswith(b"id: "):
                seq = int(message[4 : message.index(b"\n")])
                if self.last_id >= 0 and seq != self.last_id + 1:
                    self.disorder += 1
                self.last_id = seq
                if self.tracker is not None:
                    self.arrivals[seq] = now
                    if seq == self.tracker.target:
                        self.since_insert[seq] = wall - _created_at(message)
                        self.tracker.arrived()

    def _keepalive(self, now: float) -> None:
        if now >= self.window_start and not self.first_in_window:
            self.first_in_window = now
        self.keepalives += 1
        self.last_keepalive = now

    def watch_from(self, t: float) -> None:
        self.window_start, self.first_in_window = t, 0.0

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.writer is not None:
            self.writer.close()


def _created_at(message: bytes) -> float:
    """The event's created_at (the server's clock: the same machine), as a timestamp."""
    data = message[message.index(b"\ndata: ") + 7 :].split(b"\n", 1)[0]
    return datetime.fromisoformat(json.loads(data)["created_at"]).timestamp()


async def open_streams(
    port: int,
    targets: list[tuple[str, str, int]],
    concurrency: int,
    tracker: Tracker | None,
    budget: float | None = None,
) -> tuple[list[Stream], Counter, float]:
    """Open one stream per (match id, token, after), at most `concurrency` handshakes at a
    time, each given 30 s, all of them `budget` seconds; the established ones, the failures
    by reason (those not established within the budget among them), and the seconds taken."""
    gate = asyncio.Semaphore(concurrency)
    failures: Counter = Counter()

    async def one(match_id: str, token: str, after: int) -> Stream | None:
        stream = Stream(tracker)
        try:
            async with gate:
                await asyncio.wait_for(stream.open(port, match_id, token, after), 30)
                return stream
        except HttpError as exc:
            failures[str(exc)] += 1
        except TimeoutError:
            failures["no answer within 30 s"] += 1
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            failures[type(exc).__name__] += 1
        finally:
            if stream.task is None:  # not established: failed, or cancelled past the budget
                stream.close()
        return None

    start = time.perf_counter()
    tasks = [asyncio.create_task(one(*target)) for target in targets]
    _done, pending = await asyncio.wait(tasks, timeout=budget)
    for task in pending:
        task.cancel()
    if pending:
        failures[f"not established within the step's {budget:g} s"] += len(pending)
        await asyncio.wait(pending)
    seconds = time.perf_counter() - start
    opened = [t.result() for t in tasks if not t.cancelled() and t.result() is not None]
    return opened, failures, seconds


async def close_streams(streams: list[Stream]) -> None:
    for stream in streams:
        stream.close()
    await asyncio.sleep(0)


# ---------------------------------------------------------------- figures


def ms_row(label: str, seconds: list[float]) -> str:
    values = sorted(seconds)
    cells = [percentile(values, q) * 1000 for q in (50, 95, 99)]
    top = values[-1] * 1000 if values else float("nan")
    return (
        f"  {label:<50} {cells[0]:8.1f} {cells[1]:8.1f} {cells[2]:8.1f} {top:8.1f} {len(values):8d}"
    )


def server_threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def db_transactions(stack: Stack) -> int:
    """Transactions committed and rolled back in the benchmark's database so far (PostgreSQL's
    statistics, which lag by up to a second; autocommit reads are one transaction each)."""
    return stack.query(
        "SELECT xact_commit + xact_rollback FROM pg_stat_database"
        " WHERE datname = current_database()"
    )[0][0]


def server_log_problems(stack: Stack) -> tuple[int, Counter]:
    """The server log's ERROR/CRITICAL lines, and the exceptions its tracebacks end with."""
    path = stack.log_dir / "uvicorn.log"
    text = path.read_text(errors="replace") if path.exists() else ""
    errors = sum(1 for line in text.splitlines() if re.match(r"(ERROR|CRITICAL)\b", line))
    final = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*$", re.MULTILINE)
    return errors, Counter(match.group(0)[:160] for match in final.finditer(text))


@dataclass
class Step:
    clients: int  # established and still open
    added: int
    failures: Counter
    connect_seconds: float
    rss_kib: int
    threads: int
    db_connections: int
    cpu: dict[str, float]  # % of one core, over the watched window
    keepalive_all: int  # clients that got a keep-alive within the interval + SLACK
    keepalive_last: float  # seconds into the window of the latest first keep-alive
    db_rate: float  # PostgreSQL transactions per second in the bench database, idle window
    dropped: int  # established streams that ended while idle
    healthz: list[float] = field(default_factory=list)
    view: list[float] = field(default_factory=list)
    rest_errors: int = 0


# ---------------------------------------------------------------- phase 1: idle clients


def steps_up_to(first: int, most: int) -> list[int]:
    steps, n = [], max(1, min(first, most))
    while n < most:
        steps.append(n)
        n *= 2
    return [*steps, most]


async def sign_up(port: int) -> str:
    status, body = await Http(port).call("POST", "/api/v1/auth/guest")
    if status != 201:
        raise SystemExit(f"POST /auth/guest: {status} {body}")
    return body["token"]


async def idle_phase(args: argparse.Namespace, stack: Stack, pid: int) -> list[Step]:
    port, keepalive = args.port, args.keepalive
    matches: list[tuple[str, str, int]] = []  # id, creator's token, seq
    for _ in range(args.matches):
        token = await sign_up(port)
        status, body = await Http(port, token).call("POST", "/api/v1/matches", {"seats": PEOPLE})
        if status != 201:
            raise SystemExit(f"POST /matches: {status} {body}")
        matches.append((body["id"], token, body["seq"]))
    base_rss, base_threads = rss_kib(pid), server_threads(pid)
    print(
        f"  {len(matches)} waiting matches, one guest each (through /auth/guest); before any"
        f" stream: server RSS {base_rss / 1024:.1f} MiB, {base_threads} threads"
    )
    print(
        f"  {'clients':>7} {'failed':>6} {'connect s':>9} {'RSS MiB':>8} {'KiB/cl':>7}"
        f" {'threads':>7} {'pg conn':>7} {'db tx/s':>7} {'CPU % s/c/db':>13} {'keep-alive':>11}"
        f" {'last s':>6}"
        f" {'healthz p50/max ms':>18} {'view p50/max ms':>16}"
    )
    streams: list[Stream] = []
    results: list[Step] = []
    match_id, token, _seq = matches[0]
    for target in steps_up_to(args.first_step, args.max_clients):
        wanted = [matches[i % len(matches)] for i in range(len(streams), target)]
        opened, failures, seconds = await open_streams(
            port, wanted, args.connect_concurrency, None, args.step_seconds
        )
        streams += opened
        await asyncio.sleep(0.5)  # let the last handshakes' work settle
        t0 = time.perf_counter()
        for stream in streams:
            stream.watch_from(t0)
        groups = stack.process_groups()
        before, tx_before = cpu_snapshot(groups), db_transactions(stack)
        await asyncio.sleep(keepalive + SLACK)
        after = cpu_snapshot(groups)
        window = time.perf_counter() - t0
        got = [s.first_in_window - t0 for s in streams if s.first_in_window]
        dropped = sum(1 for s in streams if s.ended)
        step = Step(
            clients=len(streams) - dropped,
            added=len(opened),
            failures=failures,
            connect_seconds=seconds,
            rss_kib=rss_kib(pid),
            threads=server_threads(pid),
            db_connections=stack.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            )[0][0],
            cpu={k: v / window * 100 for k, v in cpu_used(before, after).items()},
            keepalive_all=sum(1 for g in got if g <= keepalive + SLACK),
            keepalive_last=max(got, default=float("nan")),
            db_rate=(db_transactions(stack) - tx_before) / window,
            dropped=dropped,
        )
        for _ in range(args.probes):
            status, s = await fresh_get(port, "/healthz")
            step.healthz.append(s)
            step.rest_errors += status != 200
            status, s = await fresh_get(port, f"/api/v1/matches/{match_id}", token)
            step.view.append(s)
            step.rest_errors += status != 200
            await asyncio.sleep(0.05)
        results.append(step)
        print_step(step, base_rss, keepalive)
        late = step.keepalive_all < step.clients
        if failures or dropped or step.rest_errors or late:
            if late:
                print(
                    f"    {step.clients - step.keepalive_all} clients got no keep-alive within"
                    f" {keepalive + SLACK:g} s: the process no longer keeps up; stopping here"
                )
            if failures:
                print(f"    failures at this step: {dict(failures)}")
            if dropped:
                reasons = Counter(s.error or "closed by the server" for s in streams if s.ended)
                print(f"    streams that ended while idle: {dict(reasons)}")
            if step.rest_errors:
                print(f"    REST probes that did not answer 200: {step.rest_errors}")
            break
    await close_streams(streams)
    # Wait until the server's threads stop falling (a stream may hold one).
    threads, steady_since, deadline = server_threads(pid), time.monotonic(), time.monotonic() + 10
    while threads > base_threads and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        now_threads = server_threads(pid)
        if now_threads != threads:
            threads, steady_since = now_threads, time.monotonic()
        elif time.monotonic() - steady_since >= 2:
            break
    print(
        f"  after closing all {len(streams)}: server RSS {rss_kib(pid) / 1024:.1f} MiB,"
        f" {threads} threads ({threads - base_threads:+d} against before any stream)"
    )
    return results


def print_step(step: Step, base_rss: int, keepalive: float) -> None:
    per_client = (step.rss_kib - base_rss) / step.clients if step.clients else float("nan")
    failed = sum(step.failures.values()) + step.dropped
    healthz, view = sorted(step.healthz), sorted(step.view)
    k = f"{step.keepalive_all}/{step.clients}"
    cpu = f"{step.cpu['server']:.0f}/{step.cpu['clients']:.0f}/{step.cpu['stores']:.0f}"
    print(
        f"  {step.clients:7d} {failed:6d} {step.connect_seconds:9.1f}"
        f" {step.rss_kib / 1024:8.1f} {per_client:7.1f} {step.threads:7d}"
        f" {step.db_connections:7d} {step.db_rate:7.1f} {cpu:>13} {k:>11}"
        f" {step.keepalive_last:6.2f}"
        f" {percentile(healthz, 50) * 1000:9.1f}/{healthz[-1] * 1000:<8.1f}"
        f" {percentile(view, 50) * 1000:7.1f}/{view[-1] * 1000:<8.1f}"
    )


# ---------------------------------------------------------------- phase 2: delivery


@dataclass
class Delivery:
    upper: list[float] = field(default_factory=list)  # arrival - t_send, every client
    lower: list[float] = field(default_factory=list)  # arrival - t_resp, every client
    insert: list[float] = field(default_factory=list)  # arrival - created_at, every client
    slowest: list[float] = field(default_factory=list)  # the last client's, per action
    worst: list[tuple[float, int, str, int]] = field(default_factory=list)  # of those, and what
    posts: list[float] = field(default_factory=list)  # t_resp - t_send
    actions: int = 0
    matches: int = 0
    missing: int = 0
    disorder: int = 0
    events: int = 0  # events the measured actions appended
    errors: Counter = field(default_factory=Counter)
    first_error: str = ""
    cpu: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0


async def new_match(port: int, players: list[Http]) -> tuple[str, int]:
    status, body = await players[0].call("POST", "/api/v1/matches", {"seats": PEOPLE})
    if status != 201:
        raise SystemExit(f"POST /matches: {status} {body}")
    for seat in (1, 2, 3):
        path = f"/api/v1/matches/{body['id']}/join"
        status, joined = await players[seat].call("POST", path, {"seat": seat})
        if status != 200:
            raise SystemExit(f"join: {status} {joined}")
    return body["id"], joined["seq"]


async def delivery_phase(
    args: argparse.Namespace, stack: Stack, port: int, stream_port: int | None = None
) -> Delivery:
    """Phase 2: the REST calls on `port`, the streams on `stream_port` (the same if None)."""
    result, tracker = Delivery(), Tracker()
    stream_port = stream_port or port
    tokens = [await sign_up(port) for _ in range(4)]
    players = [Http(port, token) for token in tokens]
    streams: list[Stream] = []
    match_id, seat = None, 0
    groups = stack.process_groups()
    before, start = cpu_snapshot(groups), time.perf_counter()
    while result.actions < args.actions:
        if match_id is None:
            await close_streams(streams)
            result.disorder += sum(s.disorder for s in streams)
            match_id, seq = await new_match(port, players)
            targets = [(match_id, tokens[i % 4], seq) for i in range(args.stream_clients)]
            streams, failures, _s = await open_streams(stream_port, targets, 64, tracker)
            if failures:
                raise SystemExit(f"phase 2: streams failed to open: {dict(failures)}")
            result.matches += 1
            seat = 0
        status, match = await players[seat].call("GET", f"/api/v1/matches/{match_id}")
        if status != 200 or match.get("status") == "finished":
            if status != 200:
                result.errors[f"GET view {status}"] += 1
                result.first_error = result.first_error or f"view {status} {match}"
            match_id = None
            continue
        legal = match["view"]["legal_actions"]
        if not legal:  # another seat's turn: ask as that seat
            turn = match["view"].get("turn")
            if turn is None or turn == seat:
                result.errors["no seat to act"] += 1
                match_id = None
            else:
                seat = turn
            continue
        alive = [s for s in streams if not s.ended]
        target = match["seq"] + 1
        tracker.expect(target, len(alive))
        action = {**legal[0], "expected_seq": match["seq"]}
        status, body = await players[seat].call(
            "POST", f"/api/v1/matches/{match_id}/actions", action
        )
        t_resp, t_send = time.perf_counter(), players[seat].t_send
        if status != 200:
            result.errors[f"POST action {status}"] += 1
            result.first_error = result.first_error or f"action {status} {body}"
            continue
        try:
            await asyncio.wait_for(tracker.done.wait(), DELIVERY_TIMEOUT)
        except TimeoutError:
            pass
        result.actions += 1
        result.events += body.get("seq", target) - match["seq"]
        result.posts.append(t_resp - t_send)
        arrivals = [s.arrivals.get(target) for s in alive]
        got = [t for t in arrivals if t is not None]
        result.missing += len(streams) - len(got)
        result.upper += [t - t_send for t in got]
        result.lower += [t - t_resp for t in got]
        result.insert += [s.since_insert[target] for s in alive if target in s.since_insert]
        if got:
            result.slowest.append(max(got) - t_send)
            nth = sum(1 for t in got if t - t_send > 0.5)
            result.worst.append((max(got) - t_send, target, legal[0]["type"], nth))
        for stream in alive:
            stream.arrivals.clear()
            stream.since_insert.clear()
        view = body.get("view") if isinstance(body.get("view"), dict) else {}
        seat = view["turn"] if isinstance(view.get("turn"), int) else seat
        if body.get("status") == "finished":
            match_id = None
    result.seconds = time.perf_counter() - start
    after = cpu_snapshot(groups)
    cores = os.cpu_count() or 1
    result.cpu = {k: v / (result.seconds * cores) * 100 for k, v in cpu_used(before, after).items()}
    await close_streams(streams)
    result.disorder += sum(s.disorder for s in streams)
    for player in players:
        player.close()
    return result


def print_delivery(args: argparse.Namespace, d: Delivery) -> None:
    print(
        f"  {d.actions} actions on {d.matches} match(es) in {d.seconds:.1f} s, each appending"
        f" {d.events / max(d.actions, 1):.2f} events on average; {len(d.upper)} deliveries of the"
        f" actions' events, {d.missing} missing after {DELIVERY_TIMEOUT:g} s; ids out of order or"
        f" repeated: {d.disorder}"
    )
    print(f"  {'':<50} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'count':>8}")
    print(ms_row("arrival - t_send (upper bound), every client", d.upper))
    print(ms_row("arrival - t_resp (lower bound), every client", d.lower))
    print(ms_row("arrival - the event's insert (upper bound)", d.insert))
    print(ms_row("arrival - t_send at the last of the clients", d.slowest))
    print(ms_row("the action POST itself (t_resp - t_send)", d.posts))
    print(
        "  t_send: just before the POST is written; t_resp: its answer read. The commit (and"
        " the publish after it) happens between the two, so commit-to-arrival lies between"
    )
    print(
        "  the lower and the upper bound; a negative lower bound means the event reached the"
        " client before the POST's own answer did. The event's insert: its created_at, taken"
    )
    print(
        "  by the server just before the INSERT (after the match's lock, before the commit),"
        " read on the same clock: an upper bound without the POST's queueing and lock wait."
    )
    worst = sorted(d.worst, reverse=True)[:3]
    print(
        "  slowest actions (last client's arrival - t_send): "
        + "; ".join(
            f"{t * 1000:.0f} ms (seq {seq}, {kind}, {n} over 500 ms)" for t, seq, kind, n in worst
        )
    )
    print(cpu_line(d.cpu))
    if d.errors:
        print(f"  unexpected answers: {dict(d.errors)}; first: {d.first_error[:300]}")


# ---------------------------------------------------------------- main


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    parser.add_argument("--max-clients", type=int, default=4000, help="idle streams (4000)")
    parser.add_argument("--first-step", type=int, default=250, help="then doubled (250)")
    parser.add_argument("--matches", type=int, default=50, help="waiting matches for them (50)")
    parser.add_argument("--keepalive", type=float, default=5, help="STREAM_KEEPALIVE_SECONDS")
    parser.add_argument("--probes", type=int, default=5, help="REST requests of each kind a step")
    parser.add_argument("--connect-concurrency", type=int, default=64, help="handshakes at once")
    parser.add_argument(
        "--step-seconds",
        type=float,
        default=45,
        help="a step's new streams not established by then count as failed (45)",
    )
    parser.add_argument("--actions", type=int, default=300, help="actions measured (300)")
    parser.add_argument("--stream-clients", type=int, default=100, help="on the played match")
    load = parser.add_argument_group("--with-api-load (benchmarks/stream_load.py)")
    load.add_argument("--with-api-load", action="store_true", help="phase 2 alone and under load")
    load.add_argument("--rest-on-uvicorn", action="store_true", help="REST on uvicorn too")
    load.add_argument("--stream-port", type=int, default=spare_port(), help="uvicorn's (spare)")
    load.add_argument("--api-clients", type=int, default=16, help="the load's clients (16)")
    load.add_argument("--capacity-seconds", type=float, default=10, help="measured (10)")
    load.add_argument("--load-fraction", type=float, default=0.5, help="of capacity (0.5)")
    load.add_argument("--api-rate", type=float, help="actions/s for the load: no capacity run")
    add_stack_arguments(
        parser,
        database="euchre_bench_stream",
        port=True,
        gunicorn=True,
    )
    args = parser.parse_args()
    if not 1 <= args.api_clients <= 256 or not 0 < args.load_fraction <= 1:
        parser.error("--api-clients: 1 to 256; --load-fraction: over 0, at most 1")
    if args.with_api_load and args.stream_port == args.port:
        parser.error("--stream-port: another port than --port")
    if not 1 <= args.max_clients <= 100_000 or not 1 <= args.matches <= 1000:
        parser.error("--max-clients: 1 to 100000; --matches: 1 to 1000")
    if not 0.2 <= args.keepalive <= 60 or not 1 <= args.probes <= 100:
        parser.error("--keepalive: 0.2 to 60 s; --probes: 1 to 100")
    if not 1 <= args.actions <= 100_000 or not 1 <= args.stream_clients <= 10_000:
        parser.error("--actions: 1 to 100000; --stream-clients: 1 to 10000")
    if not 1 <= args.connect_concurrency <= 1000:
        parser.error("--connect-concurrency: 1 to 1000")
    return args


def main() -> int:
    args = parse_args()
    if args.with_api_load:
        return with_api_load(args)
    wanted_files = max(args.max_clients, args.stream_clients) + 1024
    client_files = raise_open_files_limit(wanted_files)
    stack = Stack.from_args(
        args, "euchre-bench-stream-", extra_env=stream_server_env(args.keepalive)
    )
    log_dir = stack.log_dir
    server_files = 2 * wanted_files
    print(
        "benchmarks/stream.py: live streams (SSE) under one API process: idle clients held,"
        f" and an action's delay to {args.stream_clients} clients"
    )
    print(
        f"  server: uvicorn, 1 process (--workers 1), euchre_service.settings_production, on"
        f" 127.0.0.1:{args.port}; STREAM_KEEPALIVE_SECONDS={args.keepalive:g};"
        f" {os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}"
    )
    print(
        f"  clients: this process, asyncio, raw HTTP/1.1 (asyncio.open_connection); open-files"
        f" limit {client_files} here, {server_files} asked for the server"
    )
    print(
        f"  phase 1: up to {args.max_clients} idle streams over {args.matches} waiting matches,"
        f" steps from {min(args.first_step, args.max_clients)} doubling, {args.connect_concurrency}"
        f" handshakes at once; phase 2: {args.stream_clients} streams on one match, {args.actions}"
        f" actions; matches of four people, no computer player (no Celery worker)"
    )
    problems: tuple[int, Counter] = (0, Counter())
    with stack:
        proc = stack.start_uvicorn(open_files=server_files)
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
        granted = re.search(r"Max open files\s+(\d+)", limits)
        version = stack.query("SHOW server_version")[0][0]
        print(
            f"  PostgreSQL {version}, database {stack.database}; Redis {stack.redis_url}"
            f" db {args.broker_db} (broker), {args.cache_db} (cache, REDIS_URL: pub/sub);"
            f" server open-files limit {granted.group(1) if granted else '?'}; logs in {log_dir}"
        )
        print()
        print(
            f"phase 1, idle clients: streams added in steps; at each, {args.keepalive + SLACK:g} s"
            f" watched idle, then {args.probes} of each REST request on fresh connections"
        )
        print(COLUMNS.rstrip())
        steps = asyncio.run(idle_phase(args, stack, proc.pid))
        print()
        print(
            f"phase 2, delivery: {args.stream_clients} streams on one match"
            " (a quarter with each player's token), 4 players playing it through REST,"
            f" first legal action with expected_seq"
        )
        delivery = asyncio.run(delivery_phase(args, stack, args.port))
        print_delivery(args, delivery)
        problems = server_log_problems(stack)

    print()
    good = [s for s in steps if not (s.failures or s.dropped or s.keepalive_all < s.clients)]
    held = good[-1].clients if good else 0
    if len(good) == len(steps):
        beyond = f"stopped at {args.max_clients}, the --max-clients asked"
    else:
        bad = steps[len(good)]
        beyond = (
            f"the step to {bad.clients + sum(bad.failures.values())}: {sum(bad.failures.values())}"
            f" handshakes failed, {bad.dropped} streams ended, {bad.clients - bad.keepalive_all}"
            f" clients got no keep-alive in time"
        )
    print(
        f"idle clients held by one process: {held}, every handshake established and every"
        f" client's keep-alive within {args.keepalive + SLACK:g} s ({beyond})"
    )
    print(
        f"delay commit -> arrival at {args.stream_clients} clients: p50 between"
        f" {ms(delivery.lower, 50):.1f} and"
        f" {ms(delivery.upper, 50):.1f} ms, p95 between"
        f" {ms(delivery.lower, 95):.1f} and"
        f" {ms(delivery.upper, 95):.1f} ms"
    )
    errors, exceptions = problems
    if errors or exceptions:
        print(
            f"server log: {errors} ERROR lines; the exceptions its tracebacks end with"
            f" ({log_dir / 'uvicorn.log'}):"
        )
        for line, count in exceptions.most_common(5):
            print(f"    {count:5d} x {line}")
    else:
        print("server log: no errors")
    broken = steps[0].failures or steps[0].dropped  # not even the first step's streams
    failed = bool(delivery.errors or delivery.missing or delivery.disorder or broken)
    return 1 if failed else 0


def with_api_load(args: argparse.Namespace) -> int:
    raise_open_files_limit(args.stream_clients + 1024)
    stack = Stack.from_args(
        args,
        "euchre-bench-stream-load-",
        stream_port=args.stream_port,
        extra_env=stream_server_env(args.keepalive),
    )
    print(
        f"benchmarks/stream.py --with-api-load: commit-to-arrival at {args.stream_clients}"
        f" stream clients, alone and with the API under load; {os.cpu_count()} cores,"
        f" Python {platform.python_version()}"
    )
    with stack:
        return stream_load.run(args, stack, delivery_phase, print_delivery)


if __name__ == "__main__":
    sys.exit(main())
