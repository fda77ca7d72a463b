"""How fast the API plays: concurrent clients playing whole matches over HTTP against
the production server (gunicorn, euchre_service.settings_production) and PostgreSQL,
next to the framework's ceiling on this machine.

    .venv/bin/python benchmarks/api.py                       # 16 clients, 4 rounds of 5 s a loop
    .venv/bin/python benchmarks/api.py --clients 32 --seconds 30
    .venv/bin/python benchmarks/api.py --bots worker         # computer turns on a Celery worker
    .venv/bin/python benchmarks/api.py --bots none           # four people at each match

What it does, all on 127.0.0.1, and stops by itself:
  1. makes a fresh PostgreSQL database (--database-url, default euchre_bench; dropped
     first and, unless --keep-database, at the end) and migrates it; starts a Redis server
     of its own on a spare port for the broker and the cache (--redis-url: two databases of
     that one, --broker-db and --cache-db, emptied);
  2. starts gunicorn with the production settings (through benchmarks/bench_settings.py,
     which adds the ceiling endpoint) and euchre_service/gunicorn.conf.py, plain HTTP
     (SECURE_SSL_REDIRECT=false), the action throttle raised (THROTTLE_ACTIONS);
  3. computer players: --bots eager (default) sets CELERY_TASK_ALWAYS_EAGER=1, so their
     turns run in the API process right after the action that made it their turn, and
     the action POST's latency includes them; --bots worker starts one Celery worker
     with the same settings, and clients poll GET until it is their turn again;
     --bots none: no computer players, four people at each match (four users per
     client; the client plays whichever seat's turn it is), so every move is a POST;
     the server then runs as production does (CELERY_TASK_ALWAYS_EAGER=0): what a
     finished match asks for (its review) goes to the broker's review queue, for the
     review worker, not onto the cores measured (benchmarks/review.py times a review);
  4. registers one user and gets a token over HTTP, then makes the other users and
     their tokens directly in the database (password hashing is slow on purpose);
  5. phase "action": every client, on its own keep-alive connection (one thread each),
     creates a match (against three computer players, or with --bots none four people)
     and plays it to the end, again and again: GET the match view, POST its first
     legal action (with expected_seq);
  6. phase "ceiling": the same loop against /bench/ping: GET the caller's newest row,
     POST one row (token auth, the same throttle, strict JSON: the least a write
     endpoint does); phases 5 and 6 take turns, --rounds times each, so that a drift in
     the machine's speed weighs on both; then, for reference, a POST-only loop;
  7. prints requests per second and p50/p95/p99 latency of each endpoint, the ratio of
     actions per second to the ceiling's POSTs per second, and the goals.

Each phase's round runs --warmup seconds unmeasured, then --seconds / --rounds measured
(the POST-only loop: --seconds); every client
also stops after --max-requests requests, and every request times out after 10 s.
"""

import argparse
import http.client
import json
import os
import platform
import re
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    Stack,
    add_stack_arguments,
    cpu_line,
    cpu_snapshot,
    cpu_used,
    percentile,
)

SEATS = [{"kind": "me"}, {"kind": "computer"}, {"kind": "computer"}, {"kind": "computer"}]
PEOPLE = [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
VIEW = "GET /api/v1/matches/{id}"
ACTION = "POST /api/v1/matches/{id}/actions"
PING = "POST /bench/ping"
# Matches whose log has a gap: the events still rows and the hands over moved into chunks
# (each seqs first_seq..last_seq) do not number 1 to the newest seq, each once.
SEQUENCE_GAPS = (
    "SELECT count(*) FROM (SELECT match_id, sum(n) AS n, max(top) AS top FROM ("
    "SELECT match_id, count(*) AS n, max(seq) AS top FROM games_event GROUP BY match_id"
    " UNION ALL SELECT match_id, sum(last_seq - first_seq + 1), max(last_seq)"
    " FROM games_eventchunk GROUP BY match_id) AS parts GROUP BY match_id) AS m"
    " WHERE n <> top"
)
_MATCH_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f-]{27}")


def count_moves(stack: Stack, windows: list) -> list[int]:
    """The moves logged within the windows (wall_start <= time < wall_end): all of them,
    and the computer seats' (the log's rows and the hands over moved into chunks)."""
    computers = {
        (str(match_id), index)
        for match_id, index in stack.query(
            "SELECT match_id, index FROM games_seat WHERE kind = 'computer'"
        )
    }
    moves = [0, 0]
    for move in stack.logged_moves():
        if any(w.wall_start <= move.at < w.wall_end for w in windows):
            moves[0] += 1
            moves[1] += (move.match_id, move.seat) in computers
    return moves


# ---------------------------------------------------------------- one client


class Client:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1, reopened if the server closes it,
    holding the tokens of one or more users (one per seat it plays)."""

    def __init__(self, port: int, tokens: list[str] | None = None, timeout: float = 10) -> None:
        self.port, self.timeout = port, timeout
        self.tokens = tokens or []
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.reconnects = 0
        # With a dict: ask the server for each request's SQL (benchmarks/query_census.py)
        # and keep it here, per endpoint.
        self.census: dict[str, list[list[str]]] | None = None
        self.extra_headers: dict[str, str] = {}  # sent with every request
        self.last: http.client.HTTPResponse | None = None  # the newest answer (its headers)

    def call(
        self, method: str, path: str, body: dict | None = None, user: int = 0
    ) -> tuple[int, dict, float]:
        headers = {"Host": "127.0.0.1", "Accept": "application/json", **self.extra_headers}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.tokens:
            headers["Authorization"] = f"Token {self.tokens[user]}"
        if self.census is not None:
            headers["X-Bench-Queries"] = "1"
        for attempt in range(2):
            start = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionError, http.client.CannotSendRequest):
                # The server closed an idle keep-alive connection (a worker recycled):
                # nothing was processed, so sending again on a new connection is safe.
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
                self.reconnects += 1
                if attempt:
                    raise
                continue
            elapsed = time.perf_counter() - start
            self.last = response
            if self.census is not None and response.getheader("X-Bench-Queries"):
                name = f"{method} {_MATCH_ID.sub('{id}', path)}"
                self.census.setdefault(name, []).append(
                    json.loads(response.getheader("X-Bench-Queries"))
                )
            try:
                payload = json.loads(raw) if raw else {}
            except ValueError:
                payload = {"raw": raw[:200].decode(errors="replace")}
            return response.status, payload, elapsed
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


@dataclass
class Tally:
    """What one client saw in the measured window."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    polls: int = 0
    matches_finished: int = 0
    reconnects: int = 0
    first_error: str = ""
    cpu: dict[str, float] = field(default_factory=dict)  # % of all cores, measured window

    def record(self, name: str, status: int, seconds: float, ok: tuple[int, ...]) -> None:
        self.latencies.setdefault(name, []).append(seconds)
        self.statuses[(name, status)] += 1
        if status not in ok:
            self.errors[(name, status)] += 1

    def add(self, other: "Tally") -> None:
        """Count what `other` saw too (another client, or another round of the phase)."""
        for name, values in other.latencies.items():
            self.latencies.setdefault(name, []).extend(values)
        self.statuses.update(other.statuses)
        self.errors.update(other.errors)
        self.polls += other.polls
        self.matches_finished += other.matches_finished
        self.reconnects += other.reconnects
        self.first_error = self.first_error or other.first_error


@dataclass
class Window:
    start: float  # time.perf_counter() at which measuring begins
    end: float
    wall_start: float  # the same instants on the wall clock, for the database's times
    wall_end: float

    def measuring(self, t: float) -> bool:
        return self.start <= t < self.end


def view_in_play(
    client: Client, match_id: str, seat: int, window: Window, tally: Tally
) -> tuple[dict | None, float]:
    """GET the match as `seat` (counted in the tally while the window measures) and the
    moment it was sent: the match, or None once it is finished or the GET failed."""
    t = time.perf_counter()
    status, match, seconds = client.call("GET", f"/api/v1/matches/{match_id}", user=seat)
    if window.measuring(t):
        tally.record(VIEW, status, seconds, (200,))
    if status != 200:
        tally.first_error = tally.first_error or f"view {status} {match}"
        return None, t
    if match["status"] == "finished":
        if window.measuring(t):
            tally.matches_finished += 1
        return None, t
    return match, t


def play_matches(client: Client, window: Window, eager: bool, limit: int, tally: Tally) -> None:
    """Create matches against three computer players and play them out, first legal action."""
    match_id = None
    for _ in range(limit):
        now = time.perf_counter()
        if now >= window.end:
            break
        if match_id is None:
            status, body, _s = client.call("POST", "/api/v1/matches", {"seats": SEATS})
            if status != 201:
                tally.errors[("create", status)] += 1
                tally.first_error = tally.first_error or f"create {status} {body}"
                time.sleep(0.05)
                continue
            match_id = body["id"]
            continue
        match, t = view_in_play(client, match_id, 0, window, tally)
        if match is None:
            match_id = None
            continue
        legal = match["view"]["legal_actions"]
        if not legal:  # a computer player's turn, still on the worker
            if window.measuring(t):
                tally.polls += 1
            if eager:
                tally.errors[("not my turn after an eager action", 200)] += 1
            time.sleep(0.005)
            continue
        t = time.perf_counter()
        status, body, seconds = client.call(
            "POST",
            f"/api/v1/matches/{match_id}/actions",
            {**legal[0], "expected_seq": match["seq"]},
        )
        if window.measuring(t):
            tally.record(ACTION, status, seconds, (200,))
        if status != 200:
            tally.first_error = tally.first_error or f"action {status} {body} on {match_id}"


def play_people(
    client: Client,
    window: Window,
    limit: int,
    tally: Tally,
    pace: Callable[[], None] | None = None,
) -> None:
    """Four people at each match: the client holds four users' tokens, one per seat, and
    plays whichever seat's turn it is (GET that seat's view, POST its first legal action).
    With `pace`, it is called before each action POST (and may wait: a load at a set rate,
    as benchmarks/stream.py --with-api-load runs it)."""
    match_id, seat = None, 0
    for _ in range(limit):
        if time.perf_counter() >= window.end:
            break
        if match_id is None:
            status, body, _s = client.call("POST", "/api/v1/matches", {"seats": PEOPLE})
            joined = status == 201
            for other in (1, 2, 3):
                if joined:
                    path = f"/api/v1/matches/{body['id']}/join"
                    status, answer, _s = client.call("POST", path, {"seat": other}, user=other)
                    joined = status == 200
            if not joined:
                tally.errors[("create and join", status)] += 1
                tally.first_error = tally.first_error or f"create/join {status}"
                time.sleep(0.05)
                continue
            match_id, seat = body["id"], 0
            continue
        match, t = view_in_play(client, match_id, seat, window, tally)
        if match is None:
            match_id = None
            continue
        legal = match["view"]["legal_actions"]
        if not legal:  # another seat's turn: its view is public, so ask as that seat
            if window.measuring(t):
                tally.polls += 1
            turn = match["view"].get("turn")
            if turn is None:
                tally.errors[("no seat to act in an active match", 200)] += 1
                match_id = None
            else:
                seat = turn
            continue
        if pace is not None:
            pace()
        t = time.perf_counter()
        status, body, seconds = client.call(
            "POST",
            f"/api/v1/matches/{match_id}/actions",
            {**legal[0], "expected_seq": match["seq"]},
            user=seat,
        )
        if window.measuring(t):
            tally.record(ACTION, status, seconds, (200,))
        if status != 200:
            tally.first_error = tally.first_error or f"action {status} {body} on {match_id}"
            continue
        view = body.get("view") if isinstance(body.get("view"), dict) else {}
        seat = view.get("turn") if isinstance(view.get("turn"), int) else seat


def ping_loop(client: Client, window: Window, limit: int, tally: Tally, read: bool) -> None:
    """The same shape against the ceiling endpoint: GET (if `read`), then POST one row."""
    for i in range(limit):
        if time.perf_counter() >= window.end:
            break
        if read:
            t = time.perf_counter()
            status, body, seconds = client.call("GET", "/bench/ping")
            if window.measuring(t):
                tally.record("GET /bench/ping", status, seconds, (200,))
        t = time.perf_counter()
        status, body, seconds = client.call("POST", "/bench/ping", {"note": f"n{i}"})
        if window.measuring(t):
            tally.record("POST /bench/ping", status, seconds, (201,))
        if status != 201:
            tally.first_error = tally.first_error or f"ping {status} {body}"


def run_phase(
    tokens: list[list[str]],
    port: int,
    args: argparse.Namespace,
    groups: set[int],
    work,
    stop: Any = None,
) -> tuple[Window, Tally]:
    """Run `work(client, window, tally)` on one thread per client (each with its users'
    tokens); merge what they saw. The window is args.warmup then args.seconds, or ends
    sooner once `stop` (a threading or multiprocessing Event) is set."""
    now = time.perf_counter()
    wall = time.time()
    window = Window(
        start=now + args.warmup,
        end=now + args.warmup + args.seconds,
        wall_start=wall + args.warmup,
        wall_end=wall + args.warmup + args.seconds,
    )
    tallies = [Tally() for _ in tokens]
    clients = [Client(port, users) for users in tokens]

    def run(i: int) -> None:
        try:
            work(clients[i], window, tallies[i])
        except Exception as exc:  # a client that dies says why, the others go on
            tallies[i].errors[(f"client crashed: {type(exc).__name__}", 0)] += 1
            tallies[i].first_error = tallies[i].first_error or repr(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, window.start - time.perf_counter()))
    cpu_before = cpu_snapshot(groups)
    if stop is None:
        time.sleep(max(0.0, window.end - time.perf_counter()))
    elif stop.wait(max(0.0, window.end - time.perf_counter())):
        window.end = min(window.end, time.perf_counter())  # the clients stop at their next step
    cpu_after = cpu_snapshot(groups)
    for thread in threads:
        thread.join(timeout=60)
    total = Tally()
    for client, tally in zip(clients, tallies, strict=True):
        client.close()
        tally.reconnects += client.reconnects
        total.add(tally)
    cores = os.cpu_count() or 1
    measured = window.end - window.start
    total.cpu = {
        kind: seconds / (measured * cores) * 100
        for kind, seconds in cpu_used(cpu_before, cpu_after).items()
    }
    return window, total


def run_rounds(
    tokens: list[list[str]],
    args: argparse.Namespace,
    groups: set[int],
    play_work,
    ceiling_work,
    wal_position: Callable[[], int],
) -> tuple[list[Window], Tally, Tally, list[tuple[Tally, Tally]], int]:
    """The action loop and the ceiling's loop in turn, --rounds times each, each round
    measuring --seconds / --rounds: a machine whose speed drifts during the run (other
    programs, a busy host) then weighs on both loops alike, and the ratio is taken
    between neighbours in time. Answers the action rounds' windows, both loops' tallies
    (the rounds added up; CPU the mean of the rounds), each round's pair of tallies (the
    action loop's, the ceiling's after it), and the bytes of WAL PostgreSQL wrote during
    the action rounds (from their warm-up's start: `wal_position()` is the server's
    pg_current_wal_lsn)."""
    per_round = argparse.Namespace(**{**vars(args), "seconds": args.seconds / args.rounds})
    windows, plays, ceilings, wal = [], [], [], 0
    for _ in range(args.rounds):
        start = wal_position()
        window, play = run_phase(tokens, args.port, per_round, groups, play_work)
        wal += wal_position() - start
        _w, ceiling = run_phase(tokens, args.port, per_round, groups, ceiling_work)
        windows.append(window)
        plays.append(play)
        ceilings.append(ceiling)
    return windows, _added(plays), _added(ceilings), list(zip(plays, ceilings, strict=True)), wal


@dataclass
class Ratios:
    """The three goals' ratios of an action loop to the ceiling's."""

    throughput: float  # action POSTs a second / ceiling POSTs a second
    p99: float  # action POST p99 / ceiling POST p99
    cpu: float  # server CPU a loop (GET + POST), action / ceiling


def cpu_per_loop(tally: Tally, loops: int, seconds: float) -> float:
    """The server's CPU seconds a loop (a move: GET the view, POST the action, and with
    computer players theirs; or the ceiling's GET and POST) over a window of `seconds`."""
    return tally.cpu["server"] / 100 * (os.cpu_count() or 1) * seconds / max(loops, 1)


def ratios(play: Tally, ceiling: Tally, seconds: float) -> Ratios:
    """The ratios of `play` to `ceiling`, each measured over `seconds`."""
    action, ping = figures(play, ACTION, seconds), figures(ceiling, PING, seconds)
    per_move = cpu_per_loop(play, action.count, seconds)
    per_ping = cpu_per_loop(ceiling, ping.count, seconds)
    nan = float("nan")
    return Ratios(
        throughput=action.per_second / ping.per_second if ping.per_second else nan,
        p99=action.p99 / ping.p99 if ping.p99 else nan,
        cpu=per_move / per_ping if per_ping else nan,
    )


def print_paired(pairs: list[tuple[Tally, Tally]], seconds: float) -> None:
    """Each round's ratios (its action loop against the ceiling's loop right after it), and
    their median: what the machine's drift between rounds does not move. The pooled
    figures above add every round up, so a slow minute's long latencies, whichever loop
    it fell on, become most of the p99 of all."""
    each = [ratios(play, ceiling, seconds) for play, ceiling in pairs]
    goals = (("throughput", 0.8, ">="), ("p99", 1.25, "<="), ("cpu", 1.3, "<="))
    print(f"each round against the ceiling's right after it ({len(each)} pairs):")
    for name, goal, sense in goals:
        values = [getattr(r, name) for r in each]
        mid = statistics.median(values)
        met = mid >= goal if sense == ">=" else mid <= goal
        print(
            f"  {name:<10} median {mid:.2f} (from {min(values):.2f} to {max(values):.2f};"
            f" {', '.join(f'{v:.2f}' for v in values)})  goal {sense} {goal}:"
            f" {'met' if met else 'NOT met'}"
        )


def wal_lsn(stack: Stack) -> int:
    """Where PostgreSQL's write-ahead log is now, in bytes."""
    return int(stack.query("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")[0][0])


def _added(tallies: list[Tally]) -> Tally:
    total = Tally()
    for tally in tallies:
        total.add(tally)
    total.cpu = {kind: sum(t.cpu[kind] for t in tallies) / len(tallies) for kind in tallies[0].cpu}
    return total


def query_census(users: list[str], args: argparse.Namespace, eager: bool, people: bool):
    """One client, after the measured phases: plays for 6 s and runs the ceiling's loop
    for 2 s, asking the server for each request's SQL statements."""
    client = Client(args.port, users)
    client.census = {}
    tally = Tally()
    now, wall = time.perf_counter(), time.time()
    window = Window(now, now + 6, wall, wall + 6)
    if people:
        play_people(client, window, 10_000, tally)
    else:
        play_matches(client, window, eager, 10_000, tally)
    now = time.perf_counter()
    ping_loop(client, Window(now, now + 2, wall, wall + 2), 10_000, tally, read=True)
    client.close()
    return client.census


def print_census(census: dict[str, list[list[str]]]) -> None:
    """SQL statements per request of each endpoint, counted in the server, and which."""
    print("SQL statements per request, counted in the server (a census run after the phases;")
    print("  a transaction's COMMIT is one more round trip, not listed):")
    for name in (ACTION, VIEW, "POST /bench/ping", "GET /bench/ping"):
        runs = census.get(name) or []
        if not runs:
            continue
        counts = Counter(shape for run in runs for shape in run)
        mean = sum(len(run) for run in runs) / len(runs)
        print(f"  {name}: {mean:.2f} a request (over {len(runs)} requests)")
        for shape, n in counts.most_common():
            print(f"    {n / len(runs):5.2f}  {shape}")


# ---------------------------------------------------------------- figures


@dataclass
class Figures:
    per_second: float
    p50: float
    p95: float
    p99: float
    count: int
    errors: int


def figures(tally: Tally, name: str, seconds: float) -> Figures:
    values = sorted(tally.latencies.get(name, []))
    errors = sum(n for (endpoint, _status), n in tally.errors.items() if endpoint == name)
    return Figures(
        per_second=len(values) / seconds,
        p50=percentile(values, 50) * 1000,
        p95=percentile(values, 95) * 1000,
        p99=percentile(values, 99) * 1000,
        count=len(values),
        errors=errors,
    )


def row(label: str, f: Figures) -> str:
    return (
        f"  {label:<38} {f.per_second:8.1f} {f.p50:8.1f} {f.p95:8.1f} {f.p99:8.1f}"
        f" {f.count:8d} {f.errors:6d}"
    )


HEADER = (
    f"  {'endpoint':<38} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"
    f" {'count':>8} {'errors':>6}"
)


def report_errors(tally: Tally) -> None:
    print(cpu_line(tally.cpu, " while measured"))
    unexpected = dict(tally.errors)
    if unexpected:
        print(f"  unexpected answers: {dict(unexpected)}")
        print(f"  first: {tally.first_error[:300]}")
    if tally.reconnects:
        print(f"  reconnects after the server closed a keep-alive connection: {tally.reconnects}")


# ---------------------------------------------------------------- main


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument("--seconds", type=float, default=20, help="measured seconds a phase (20)")
    parser.add_argument("--warmup", type=float, default=3, help="unmeasured seconds first (3)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="the action and ceiling loops in turn, this many times each (4), each round"
        " measuring --seconds / --rounds after its own --warmup",
    )
    parser.add_argument("--max-requests", type=int, default=100_000, help="per client and phase")
    parser.add_argument(
        "--bots",
        choices=["eager", "worker", "none"],
        default="eager",
        help="computer players in the API process (eager), on a Celery worker, or none:"
        " four people at each match",
    )
    parser.add_argument("--celery-concurrency", type=int, default=2, help="with --bots worker")
    add_stack_arguments(parser, database="euchre_bench", port=True, gunicorn=True)
    parser.add_argument("--skip-post-only", action="store_true", help="skip the POST-only loop")
    args = parser.parse_args()
    if not 1 <= args.clients <= 256:
        parser.error("--clients: 1 to 256")
    if not 1 <= args.seconds <= 600 or not 0 <= args.warmup <= 60:
        parser.error("--seconds: 1 to 600; --warmup: 0 to 60")
    return args


def sign_up(port: int) -> str:
    """One user through the API, as a client does: register, then a token."""
    client = Client(port)
    credentials = {"username": f"bench{int(time.time())}", "password": "bench-passphrase-123"}
    status, body, _ = client.call("POST", "/api/v1/auth/register", credentials)
    if status != 201:
        raise SystemExit(f"register: {status} {body}")
    status, body, _ = client.call("POST", "/api/v1/auth/token", credentials)
    client.close()
    if status != 200:
        raise SystemExit(f"token: {status} {body}")
    return body["token"]


def main() -> int:
    args = parse_args()
    # Computer players' turns in the API process only with --bots eager; --bots none has
    # none, and runs the server as production does: the tasks a finished match asks for
    # (its review) go to the broker's review queue, for the review worker, not onto the
    # cores being measured (benchmarks/review.py measures a review).
    eager = args.bots == "eager"
    people = args.bots == "none"
    stack = Stack.from_args(
        args, "euchre-bench-", eager=eager, celery_concurrency=args.celery_concurrency
    )
    log_dir = stack.log_dir
    print(
        f"benchmarks/api.py: {args.clients} clients, one thread and keep-alive connection each;"
        f" the action and ceiling loops in turn, {args.rounds} rounds of {args.warmup:g} s"
        f" warm-up + {args.seconds / args.rounds:g} s measured each ({args.seconds:g} s a loop)"
    )
    print(
        f"  server: gunicorn gthread, {args.workers} processes x {args.threads} threads,"
        f" euchre_service.settings_production (+ benchmarks/bench_settings.py), on 127.0.0.1:"
        f"{args.port}; {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if people:
        print(
            "  no computer players: four people at each match; each client holds the four"
            " users' tokens and plays whichever seat's turn it is"
        )
    elif eager:
        print(
            "  computer players: in the API process (CELERY_TASK_ALWAYS_EAGER=1): an action"
            " POST returns after the computer seats' turns that follow it"
        )
    else:
        print(
            f"  computer players: one Celery worker (prefork, concurrency"
            f" {args.celery_concurrency}) through Redis; clients poll GET until their turn"
        )
    with stack:
        stack.start_gunicorn()
        if args.bots == "worker":
            stack.start_worker()
        version = stack.query("SHOW server_version")[0][0]
        print(f"  PostgreSQL {version}, database {stack.database}; logs in {log_dir}")
        per_client = 4 if people else 1
        flat = [sign_up(args.port), *stack.make_users(args.clients * per_client - 1)]
        tokens = [flat[i : i + per_client] for i in range(0, len(flat), per_client)]
        print(
            f"  {len(flat)} users with a token each (the first through /auth/register and /token)"
        )

        limit = args.max_requests
        if people:
            play_work = lambda c, w, t: play_people(c, w, limit, t)  # noqa: E731
        else:
            play_work = lambda c, w, t: play_matches(c, w, eager, limit, t)  # noqa: E731
        ceiling_work = lambda c, w, t: ping_loop(c, w, limit, t, read=True)  # noqa: E731
        windows, play, ceiling, pairs, wal = run_rounds(
            tokens, args, stack.process_groups(), play_work, ceiling_work, lambda: wal_lsn(stack)
        )
        moves = count_moves(stack, windows)
        gaps = stack.query(SEQUENCE_GAPS)[0][0]
        # The servers' statistics are flushed at least once a second while they are busy:
        # read after the ceiling's last round, which updates no match, they are complete.
        match_rows = stack.query(
            "SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup, pg_relation_size(relid),"
            " pg_indexes_size(relid), n_live_tup FROM pg_stat_user_tables"
            " WHERE relname = 'games_match'"
        )[0]
        post_only = None
        if not args.skip_post_only:
            _w, post_only = run_phase(
                tokens,
                args.port,
                args,
                stack.process_groups(),
                lambda c, w, t: ping_loop(c, w, limit, t, read=False),
            )
        census = query_census(tokens[0], args, eager, people)

    action = figures(play, ACTION, args.seconds)
    view = figures(play, VIEW, args.seconds)
    ping = figures(ceiling, "POST /bench/ping", args.seconds)
    ping_read = figures(ceiling, "GET /bench/ping", args.seconds)
    print()
    print("phase 1, actions: GET the match view, POST the first legal action")
    print(HEADER)
    print(row("POST /api/v1/matches/{id}/actions", action))
    print(row("GET  /api/v1/matches/{id}", view))
    all_moves, computer_moves = moves
    print(
        f"  moves applied per second, computer players' included: {all_moves / args.seconds:.1f}"
        f" ({all_moves - computer_moves} by clients, {computer_moves} by computer players);"
        f" matches finished: {play.matches_finished}"
        + (f"; polls while a computer played: {play.polls}" if args.bots == "worker" else "")
        + (f"; views asked as the wrong seat first: {play.polls}" if people else "")
    )
    print(f"  matches whose sequence numbers have a gap: {gaps}")
    updates, hot, dead, heap, indexes, rows = match_rows
    print(
        f"  PostgreSQL: {wal / max(all_moves, 1) / 1024:.2f} KiB of WAL a move (the action rounds);"
        f" the match row updated {updates} times, {hot} of them in place (HOT,"
        f" {hot / max(updates, 1):.0%}); games_match: {rows} rows, {dead} dead, heap"
        f" {heap / 1024:.0f} KiB, indexes {indexes / 1024:.0f} KiB"
    )
    report_errors(play)
    print()
    print("phase 2, ceiling: the same loop on /bench/ping: GET the newest row, POST one row")
    print(HEADER)
    print(row("POST /bench/ping", ping))
    print(row("GET  /bench/ping", ping_read))
    report_errors(ceiling)
    if post_only is not None:
        only = figures(post_only, "POST /bench/ping", args.seconds)
        print()
        print("phase 3, for reference: POST /bench/ping only, no GET between")
        print(HEADER)
        print(row("POST /bench/ping", only))
        report_errors(post_only)
    pooled = ratios(play, ceiling, args.seconds)
    ratio = pooled.throughput
    print()
    print(
        f"ratio, actions per second / ceiling POSTs per second (same loop): {ratio:.2f}"
        f"  goal >= 0.80: {'met' if ratio >= 0.8 else 'NOT met'}"
    )
    per_round = args.seconds / args.rounds
    rates = [
        (figures(p, ACTION, per_round).per_second, figures(c, PING, per_round).per_second)
        for p, c in pairs
    ]
    print(
        "  each round (actions/s / ceiling POSTs/s): "
        + ", ".join(f"{a:.0f}/{c:.0f} = {a / c:.2f}" if c else "-" for a, c in rates)
    )
    if computer_moves and ping.per_second:
        print(
            f"  (moves per second, computer players' included, / ceiling POSTs per second:"
            f" {all_moves / args.seconds / ping.per_second:.2f})"
        )
    if post_only is not None and only.per_second:
        print(f"  (against the POST-only loop: {action.per_second / only.per_second:.2f})")
    p99_ratio = pooled.p99
    print(
        f"action POST p99 / ceiling POST p99: {action.p99:.1f} / {ping.p99:.1f} ms ="
        f" {p99_ratio:.2f}  goal <= 1.25: {'met' if p99_ratio <= 1.25 else 'NOT met'}"
    )
    per_move = cpu_per_loop(play, action.count, args.seconds) * 1000
    per_ping = cpu_per_loop(ceiling, ping.count, args.seconds) * 1000
    cpu_ratio = pooled.cpu
    verdict = "met" if cpu_ratio <= 1.3 else "NOT met"
    print(
        f"server CPU per action loop / per ceiling loop (GET + POST): {per_move:.1f} /"
        f" {per_ping:.1f} ms = {cpu_ratio:.2f}  goal <= 1.3: {verdict}"
    )
    print_paired(pairs, per_round)
    print()
    print_census(census)
    failed = play.errors or ceiling.errors or gaps
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
