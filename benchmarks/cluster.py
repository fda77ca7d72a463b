"""The service on several nodes under faults (issue 36), on real processes: the cluster of
benchmarks/_cluster.py (a PostgreSQL primary and its streaming standby, Redis, nginx in
front of two API nodes and a stream node, two turn workers, the review worker, beat and
the keeper of the commit mode), people playing through nginx, and in turn:

  1. steady load: the share of the database's reads the standby served, the replica's
     lag (p50/p99), and every replay of a finished match whole against the log, also
     while the standby's replay is paused (pg_wal_replay_pause());
  2. an API node killed (SIGKILL to its gunicorn): nginx's routing moves its matches to
     the other node; the error window, the actions acknowledged and lost; the node
     started again (a new process: its matches rebuilt from the database);
  3. a turn worker killed while computers play: its tasks done by the other, no match
     left waiting on a computer;
  4. the primary killed (SIGKILL) and the standby promoted (pg_promote()), with
     asynchronous replication, then (the old primary made the new standby each time)
     with synchronous replication, each mode once more with the primary's WAL sender
     stopped for --stall seconds before the kill (the stream held back): acknowledged
     actions lost, the error window, the time to the first acknowledged action after
     the kill;
  5. the standby killed, then lagging far behind (replay paused): the reads that may lag
     and play, each timed;
  6. the cost of synchronous replication: a one-row commit's time, and benchmarks/api.py's
     action loop against its one-row ceiling on the same primary, the standby
     synchronous and then asynchronous, in turn (--api-pairs): the ratios;
then every match played passes the log check (verify_log's) and every acknowledged
action is in its log.

    .venv/bin/python benchmarks/cluster.py                 # about 20 minutes
    .venv/bin/python benchmarks/cluster.py --seconds 5 --no-api-ratio   # a quick look

Everything on 127.0.0.1 under a temporary run directory; everything it starts it stops.
"""

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._cluster import Cluster  # noqa: E402
from benchmarks._server import ROOT, percentile, spare_port  # noqa: E402
from benchmarks.api import PEOPLE, SEATS, Client  # noqa: E402

# ---------------------------------------------------------------- the load


@dataclass
class Outcome:
    t: float  # time.monotonic() at the answer
    kind: str  # "action", "view", "create", "replay", "history"...
    status: int  # 0: no answer (the connection failed)
    seconds: float


@dataclass
class Load:
    """People playing through nginx, each client four people at a match of their own (every
    move a POST), or one person against three computers; what each saw."""

    port: int
    tokens: list[list[str]]  # per client: four tokens
    computers: int = 0  # how many of the clients play against computers
    outcomes: list[Outcome] = field(default_factory=list)
    acks: dict[str, int] = field(default_factory=dict)  # match -> newest seq acknowledged
    seen: dict[str, int] = field(default_factory=dict)  # active match -> newest seq viewed
    acked: list[tuple[float, str, int]] = field(default_factory=list)  # (when, match, seq)
    moved: list[tuple[float, str]] = field(default_factory=list)  # (when, match): seq changed
    created: dict[str, float] = field(default_factory=dict)  # match -> when acknowledged
    owners: dict[str, int] = field(default_factory=dict)  # match -> client index
    finished: list[tuple[str, int]] = field(default_factory=list)  # (match, its seq)
    first_error: str = ""
    stop: threading.Event = field(default_factory=threading.Event)
    paused: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)
    failovers: list[tuple[str, float]] = field(default_factory=list)  # (mode, when killed)
    generation: int = 0  # new_matches() adds one: each client then starts a new match

    def new_matches(self) -> None:
        """Every client leaves its match for a new one: after a failover that lost the
        newest actions a match would be played on from its older seq, and a new action at
        a lost one's seq would hide the loss; so each match's acknowledged seqs stop at
        the failover (answers in flight at it still count, in its old match)."""
        with self.lock:
            self.generation += 1

    def start(self) -> "Load":
        for i in range(len(self.tokens)):
            thread = threading.Thread(target=self.run, args=(i,), daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def note(self, kind: str, status: int, seconds: float, detail: str = "") -> None:
        with self.lock:
            self.outcomes.append(Outcome(time.monotonic(), kind, status, seconds))
            if status >= 500 or status == 0:
                self.first_error = self.first_error or f"{kind} {status} {detail}"[:300]

    def call(self, client: Client, kind: str, method: str, path: str, body=None, user=0):
        start = time.monotonic()
        try:
            status, payload, _s = client.call(method, path, body, user=user)
        except (OSError, http.client.HTTPException) as exc:
            # No whole answer: nginx passes on what a node that died mid-answer had sent.
            status, payload = 0, {"error": repr(exc)}
            client.conn.close()
        self.note(kind, status, time.monotonic() - start, str(payload)[:200])
        return status, payload

    def run(self, index: int) -> None:
        client = Client(self.port, self.tokens[index])
        against_computers = index < self.computers
        match_id, seat, generation = None, 0, self.generation
        while not self.stop.is_set():
            if self.paused.is_set():
                time.sleep(0.05)
                continue
            if generation != self.generation:
                match_id, generation = None, self.generation
            if match_id is None:
                match_id = self.create(client, index, against_computers)
                seat = 0
                if match_id is None:
                    time.sleep(0.1)
                continue
            status, match = self.call(
                client, "view", "GET", f"/api/v1/matches/{match_id}", user=seat
            )
            if status != 200:
                time.sleep(0.05)
                continue
            with self.lock:
                if self.seen.get(match_id) != match["seq"]:
                    self.moved.append((time.monotonic(), match_id))
                self.seen[match_id] = match["seq"]
                if match["status"] != "active":
                    self.finished.append((match_id, match["seq"]))
                    del self.seen[match_id]
            if match["status"] != "active":
                match_id = None
                continue
            legal = match["view"]["legal_actions"]
            if not legal:
                turn = match["view"].get("turn")
                if against_computers or turn is None:
                    time.sleep(0.02)  # a computer's turn, on a worker
                else:
                    seat = turn
                continue
            status, body = self.call(
                client, "action", "POST", f"/api/v1/matches/{match_id}/actions",
                {**random.choice(legal), "expected_seq": match["seq"]}, user=seat,
            )  # fmt: skip
            if status == 200:
                with self.lock:
                    self.acks[match_id] = max(self.acks.get(match_id, 0), body["seq"])
                    self.acked.append((time.monotonic(), match_id, body["seq"]))
                turn = body.get("view", {}).get("turn")
                if isinstance(turn, int) and not against_computers:
                    seat = turn
            else:
                time.sleep(0.05)
        client.close()

    def create(self, client: Client, index: int, against_computers: bool) -> str | None:
        seats = SEATS if against_computers else PEOPLE
        status, body = self.call(client, "create", "POST", "/api/v1/matches", {"seats": seats})
        if status != 201:
            return None
        match_id = body["id"]
        with self.lock:
            self.owners[match_id] = index
            self.created[match_id] = time.monotonic()
        if not against_computers:
            for other in (1, 2, 3):
                path = f"/api/v1/matches/{match_id}/join"
                status, _ = self.call(client, "join", "POST", path, {"seat": other}, user=other)
                if status != 200:
                    return None  # left half made: its log is checked all the same
        return match_id

    def since(self, t: float, kind: str = "action") -> list[Outcome]:
        with self.lock:
            return [o for o in self.outcomes if o.t >= t and o.kind == kind]

    def window(self, start: float, end: float) -> list[Outcome]:
        with self.lock:
            return [o for o in self.outcomes if start <= o.t < end]


def error_window(load: Load, start: float, end: float) -> tuple[int, int, float, str]:
    """Between two instants: the requests answered, those that failed (5xx or no answer),
    the seconds from `start` to the last failure, and the statuses of the failures."""
    seen = load.window(start, end)
    failed = [o for o in seen if o.status >= 500 or o.status == 0]
    last = max((o.t for o in failed), default=start) - start
    return len(seen), len(failed), last, dict(Counter(o.status for o in failed)).__repr__()


def first_ack_after(load: Load, t: float, timeout: float = 120) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        acked = [o.t for o in load.since(t) if o.status == 200]
        if acked:
            return min(acked) - t
        time.sleep(0.05)
    return float("nan")


def action_ms(outcomes: list[Outcome]) -> tuple[float, float, int]:
    times = sorted(o.seconds for o in outcomes if o.kind == "action" and o.status == 200)
    return percentile(times, 50) * 1000, percentile(times, 99) * 1000, len(times)


# ---------------------------------------------------------------- the readers


class Sampler(threading.Thread):
    """Every 0.1 s, the standby's lag as the primary sees it (replay_lag, and the bytes of
    WAL sent but not replayed)."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(daemon=True)
        self.cluster = cluster
        self.lags: list[float] = []
        self.bytes: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                rows = self.cluster.sql(
                    self.cluster.primary,
                    "SELECT COALESCE(EXTRACT(epoch FROM replay_lag), 0),"
                    " pg_wal_lsn_diff(sent_lsn, replay_lsn) FROM pg_stat_replication",
                )
                if rows:
                    self.lags.append(float(rows[0][0]))
                    self.bytes.append(int(rows[0][1] or 0))
            except Exception:  # noqa: BLE001 - the primary away: no sample
                pass
            time.sleep(0.1)


class Replays(threading.Thread):
    """Reads that may lag, as their owners: a finished match's replay (checked whole: its
    newest event's seq against the match's), the owner's history and the leaderboard."""

    def __init__(self, load: Load) -> None:
        super().__init__(daemon=True)
        self.load = load
        self.checked = 0
        self.short: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        clients = {}
        while not self.stop.is_set():
            with self.load.lock:
                done = list(self.load.finished[-20:])
            if not done:
                time.sleep(0.2)
                continue
            match_id, seq = random.choice(done)
            owner = self.load.owners[match_id]
            client = clients.setdefault(owner, Client(self.load.port, self.load.tokens[owner]))
            status, body = self.load.call(
                client, "replay", "GET", f"/api/v1/matches/{match_id}/replay"
            )
            if status == 200:
                seqs = [e["seq"] for e in body["setup"]]
                seqs += [e["seq"] for hand in body["hands"] for e in hand["events"]]
                self.checked += 1
                if max(seqs, default=0) < seq:
                    self.short.append(f"{match_id}: {max(seqs, default=0)} < {seq}")
            self.load.call(client, "history", "GET", "/api/v1/me/matches?status=finished")
            self.load.call(client, "leaderboard", "GET", "/api/v1/leaderboard")
            time.sleep(0.05)


def reads_by_server(cluster: Cluster) -> dict[str, tuple[int, int]]:
    """Transactions and rows returned so far in the service's database, per server role."""
    out = {}
    for role, server in (("primary", cluster.primary), ("standby", cluster.standby)):
        rows = cluster.sql(
            server,
            "SELECT xact_commit + xact_rollback, tup_returned + tup_fetched"
            " FROM pg_stat_database WHERE datname = current_database()",
        )
        out[role] = (int(rows[0][0]), int(rows[0][1]))
    return out


# ---------------------------------------------------------------- the log check

CHECK = """
import json, sys, django
django.setup()
from games.models import Match
try:
    from games.log.log_check import check_log, export_match_log
except ImportError:
    from games.log_check import check_log, export_match_log
out = {}
for match_id in json.load(sys.stdin):
    match = Match.objects.filter(pk=match_id).first()
    if match is None:  # its creation acknowledged, then lost
        out[match_id] = {"events": 0, "status": "missing", "seq": 0, "problem": ""}
        continue
    document = export_match_log(match)
    try:
        check_log(document)
        problem = ""
    except Exception as exc:
        problem = repr(exc)
    out[match_id] = {"events": len(document["events"]), "status": match.status,
                     "seq": match.seq, "problem": problem}
print(json.dumps(out))
"""


def check_logs(cluster: Cluster, load: Load) -> dict:
    """Every match the load made: its log through the log check, and every acknowledged
    action's seq within it."""
    ids = sorted(load.owners)
    done = subprocess.run(
        [sys.executable, "-c", CHECK], input=json.dumps(ids), cwd=ROOT,
        env=cluster.stack.env(), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the log check failed:\n{done.stderr[-3000:]}")
    logs = json.loads(done.stdout.strip().splitlines()[-1])
    lost = {m: (seq, logs[m]["events"]) for m, seq in load.acks.items() if logs[m]["events"] < seq}
    # When each lost action was acknowledged (time.monotonic()), to tell the failovers apart.
    lost_at = sorted(t for t, m, seq in load.acked if m in lost and seq > logs[m]["events"])
    bad = {m: log["problem"] for m, log in logs.items() if log["problem"]}
    stuck = [m for m, log in logs.items() if log["status"] == "active"]
    missing = [m for m, log in logs.items() if log["status"] == "missing"]
    return {
        "matches": len(logs),
        "lost": lost,
        "lost_at": lost_at,
        "missing": missing,
        "bad": bad,
        "active": stuck,
        "logs": logs,
    }


# ---------------------------------------------------------------- the scenarios


def hold(seconds: float) -> None:
    time.sleep(seconds)


def steady(cluster: Cluster, load: Load, seconds: float) -> dict:
    sampler = Sampler(cluster)
    replays = Replays(load)
    before = reads_by_server(cluster)
    start = time.monotonic()
    sampler.start()
    replays.start()
    hold(seconds)
    after = reads_by_server(cluster)
    end = time.monotonic()
    lags, lag_bytes = sorted(sampler.lags), sorted(sampler.bytes)  # not the paused part
    paused_from = replays.checked
    cluster.sql(cluster.standby, "SELECT pg_wal_replay_pause()")
    hold(seconds / 2)
    cluster.sql(cluster.standby, "SELECT pg_wal_replay_resume()")
    replays.stop.set()
    sampler.stop.set()
    replays.join(30)
    sampler.join(30)
    delta = {
        role: (after[role][0] - before[role][0], after[role][1] - before[role][1]) for role in after
    }
    xacts = delta["standby"][0] / max(1, delta["standby"][0] + delta["primary"][0])
    rows = delta["standby"][1] / max(1, delta["standby"][1] + delta["primary"][1])
    p50, p99, count = action_ms(load.window(start, end))
    return {
        "standby_xact_share": xacts,
        "standby_row_share": rows,
        "lag_p50_ms": percentile(lags, 50) * 1000,
        "lag_p99_ms": percentile(lags, 99) * 1000,
        "lag_bytes_p50": percentile(lag_bytes, 50),
        "lag_bytes_p99": percentile(lag_bytes, 99),
        "replays_checked": replays.checked,
        "replays_checked_paused": replays.checked - paused_from,
        "replays_short": replays.short,
        "actions": count,
        "actions_per_s": count / (end - start),
        "action_p50_ms": p50,
        "action_p99_ms": p99,
    }


def kill_api_node(cluster: Cluster, load: Load, seconds: float) -> dict:
    """API node 1 killed, its matches on node 2 for `seconds`, node 1 started again (its
    matches back to it, a new process: each rebuilt from the database), then killed
    once more: its matches back on node 2, which holds the copies it made at the first
    kill, now stale (the log has moved on): each must be brought up to date from the
    database, never answer as it stands (a view from a stale copy would offer an
    action at an old seq: 409 at once)."""
    out = {}
    for round_ in (1, 2):
        t = time.monotonic()
        cluster.kill("api1")
        hold(seconds)
        counted, failed, last, statuses = error_window(load, t, time.monotonic())
        cluster.start_api(0)
        back = time.monotonic()
        hold(seconds)
        acks = sum(1 for o in load.window(t, back) if o.kind == "action" and o.status == 200)
        out[f"kill{round_}"] = {
            "requests": counted,
            "failed": failed,
            "error_window_s": round(last, 3),
            "statuses": statuses,
            "acks_while_down": acks,
            "node1_share_after_restart": round(routed_to(cluster, back), 3),
        }
    return out


def routed_to(cluster: Cluster, since_monotonic: float) -> float:
    """The share of match requests nginx sent to API node 1 since then (its access log)."""
    since = time.time() - (time.monotonic() - since_monotonic)
    node1 = f"127.0.0.1:{cluster.api_ports[0]}"
    total = ones = 0
    for line in (cluster.run_dir / "logs" / "nginx-access.log").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and float(parts[0]) >= since and "/matches/" in parts[3]:
            total += 1
            ones += parts[4] == node1
    return ones / max(1, total)


def one_node_per_match(cluster: Cluster) -> tuple[int, int]:
    """Matches whose requests (all while both nodes answered) went to one API node, of all
    matches seen in nginx's access log, counting only requests answered 2xx/4xx."""
    nodes: dict[str, set[str]] = {}
    for line in (cluster.run_dir / "logs" / "nginx-access.log").read_text().splitlines():
        parts = line.split()
        found = re.match(r"/api/v1/matches/([0-9a-f-]{36})", parts[3]) if len(parts) >= 5 else None
        if found and not parts[1].startswith("5"):
            nodes.setdefault(found.group(1), set()).add(parts[4])
    return sum(1 for each in nodes.values() if len(each) == 1), len(nodes)


def kill_turn_worker(cluster: Cluster, load: Load, seconds: float) -> dict:
    """Turn worker 1 killed while computers play (each computer move waits
    COMPUTER_MOVE_DELAY on the worker that took it: a task it holds, not yet done): the
    longest any match against computers then waited for its seq to move, and whether
    each moved on."""
    before = computer_seqs(load)
    t = time.monotonic()
    cluster.kill("turn1")
    hold(seconds)
    after = computer_seqs(load)
    cluster.start_worker("turn1", "celery")
    moved = [m for m, seq in before.items() if after.get(m, seq) > seq or m not in after]
    with load.lock:
        changes = [(when, m) for when, m in load.moved if when >= t - 1]
    waits = []
    for match_id in before:
        times = [t] + sorted(when for when, m in changes if m == match_id)
        waits.append(
            max(b - a for a, b in zip(times, times[1:], strict=False))
            if len(times) > 1
            else seconds
        )
    return {
        "computer_matches_moved_on": f"{len(moved)} of {len(before)}",
        "longest_wait_s": round(max(waits, default=0.0), 2),
    }


def computer_seqs(load: Load) -> dict[str, int]:
    """The matches against computers and the newest seq their clients saw."""
    with load.lock:
        return {m: seq for m, seq in load.seen.items() if load.owners[m] < load.computers}


def failover(cluster: Cluster, load: Load, seconds: float, stall: float = 0) -> dict:
    """Kill the primary, promote the standby at once, play on; then the old primary made
    the new standby. With `stall`, the primary's WAL sender is stopped (SIGSTOP) that
    many seconds before the kill, as a slow network or a busy standby would hold the
    stream back: what asynchronous replication then loses is every commit of those
    seconds. (Stopping the standby's receiver instead loses nothing here: the kernel
    still takes the stream into the socket's buffer, which the receiver reads after.)"""
    mode = "synchronous" if cluster.synchronous else "asynchronous"
    p50, p99, _n = action_ms(load.window(time.monotonic() - seconds, time.monotonic()))
    if stall:
        sender = cluster.sql(cluster.primary, "SELECT pid FROM pg_stat_replication")[0][0]
        os.kill(sender, signal.SIGSTOP)  # SIGKILL below ends it all the same
        hold(stall)
    t = time.monotonic()
    cluster.kill_postgres(cluster.primary)
    dead = time.monotonic()  # every process of the primary gone
    load.new_matches()
    cluster.promote(cluster.standby)
    promoted = time.monotonic() - t
    cluster.failover()
    first = first_ack_after(load, dead) + (dead - t)
    hold(seconds)
    counted, failed, last, statuses = error_window(load, t, time.monotonic())
    rebuilt = time.monotonic()
    cluster.rebuild_standby()
    load.failovers.append((f"{mode}, stream stalled {stall:g} s", t))
    return {
        "mode": mode,
        "stream_stalled_s": stall,
        "action_p50_ms_before": p50,
        "action_p99_ms_before": p99,
        "promoted_after_s": promoted,
        "first_ack_after_s": first,
        "requests": counted,
        "failed": failed,
        "error_window_s": last,
        "statuses": statuses,
        "standby_rebuilt_in_s": time.monotonic() - rebuilt,
    }


def replica_down(cluster: Cluster, load: Load, seconds: float) -> dict:
    """The standby killed: the reads that may lag (replays, history, leaderboard) and play,
    their statuses and times; then it is made again, and paused far behind."""
    out = {}
    replays = Replays(load)
    replays.start()
    hold(seconds / 2)
    t = time.monotonic()
    cluster.kill_postgres(cluster.standby)
    hold(seconds)
    seen = load.window(t, time.monotonic())
    for kind in ("action", "replay", "history", "leaderboard"):
        mine = sorted(o.seconds for o in seen if o.kind == kind)
        out[f"down_{kind}"] = (
            len(mine), dict(Counter(o.status for o in seen if o.kind == kind)),
            percentile(mine, 50) * 1000, percentile(mine, 99) * 1000,
        )  # fmt: skip
    cluster.rebuild_standby()
    cluster.sql(cluster.standby, "SELECT pg_wal_replay_pause()")
    t = time.monotonic()
    hold(seconds)
    lag = cluster.sql(
        cluster.primary,
        "SELECT pg_wal_lsn_diff(sent_lsn, replay_lsn) FROM pg_stat_replication",
    )
    seen = load.window(t, time.monotonic())
    for kind in ("action", "replay", "history"):
        mine = sorted(o.seconds for o in seen if o.kind == kind)
        out[f"paused_{kind}"] = (
            len(mine), dict(Counter(o.status for o in seen if o.kind == kind)),
            percentile(mine, 50) * 1000, percentile(mine, 99) * 1000,
        )  # fmt: skip
    out["paused_lag_bytes"] = int(lag[0][0]) if lag else None
    cluster.sql(cluster.standby, "SELECT pg_wal_replay_resume()")
    replays.stop.set()
    replays.join(30)
    out["replays_checked"], out["replays_short"] = replays.checked, replays.short
    return out


def api_ratio(cluster: Cluster, synchronous: bool, seconds: float, log: Path) -> dict:
    """benchmarks/api.py (its action loop against its one-row ceiling, four people a match)
    on the cluster's primary, the standby synchronous or not: the ratios it prints (its
    whole output in `log`)."""
    cluster.set_synchronous(synchronous)
    done = subprocess.run(
        [sys.executable, "benchmarks/api.py", "--bots", "none", "--clients", "8",
         "--seconds", f"{seconds:g}", "--port", str(spare_port()),
         "--database-url", f"postgres://postgres@127.0.0.1:{cluster.primary.port}/euchre_api",
         "--redis-url", f"redis://127.0.0.1:{cluster.redis.port}", "--broker-db", "4",
         "--cache-db", "5"],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    log.write_text(done.stdout + done.stderr)

    def find(pattern: str) -> float:
        found = re.search(pattern, done.stdout)
        return float(found.group(1)) if found else float("nan")

    rounds = re.search(r"each round \(actions/s / ceiling POSTs/s\): (.*)", done.stdout)
    return {
        "throughput_ratio": find(r"ceiling POSTs per second \(same loop\): ([0-9.]+)"),
        "p99_ratio": find(r"action POST p99 / ceiling POST p99: .* = ([0-9.]+)"),
        "cpu_ratio": find(r"per ceiling loop \(GET \+ POST\): .* = ([0-9.]+)"),
        "rounds": rounds.group(1) if rounds else "",
    }


def commit_times(cluster: Cluster, synchronous: bool, count: int = 400) -> tuple[float, float]:
    """One connection committing a one-row INSERT `count` times on the primary, the standby
    synchronous or not: p50 and p99 of a commit, in ms."""
    import psycopg

    cluster.set_synchronous(synchronous)
    url = f"postgres://postgres@127.0.0.1:{cluster.primary.port}/euchre"
    times = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_commit (id bigserial, at float8)")
        for _ in range(count):
            start = time.perf_counter()
            conn.execute("INSERT INTO bench_commit (at) VALUES (%s)", (start,))
            times.append(time.perf_counter() - start)
        conn.execute("DROP TABLE bench_commit")
    times.sort()
    return percentile(times, 50) * 1000, percentile(times, 99) * 1000


# ---------------------------------------------------------------- main


def make_tokens(cluster: Cluster, clients: int) -> list[list[str]]:
    flat = cluster.stack.make_users(clients * 4)
    return [flat[i * 4 : i * 4 + 4] for i in range(clients)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=6, help="four people a match (6)")
    parser.add_argument("--computers", type=int, default=2, help="matches against computers (2)")
    parser.add_argument("--seconds", type=float, default=20, help="each phase (20)")
    parser.add_argument("--api-seconds", type=float, default=20, help="api.py's --seconds (20)")
    parser.add_argument("--no-api-ratio", action="store_true", help="no api.py in step 6")
    parser.add_argument(
        "--api-pairs", type=int, default=2, help="api.py runs, synchronous then not (2)"
    )
    parser.add_argument("--async-failovers", type=int, default=3, help="asynchronous (3)")
    parser.add_argument("--sync-failovers", type=int, default=3, help="synchronous (3)")
    parser.add_argument(
        "--stall",
        type=float,
        default=2,
        help="one more failover of each mode, the primary's WAL sender stopped this many"
        " seconds before the kill (2)",
    )
    parser.add_argument(
        "--move-delay", type=float, default=0.3, help="COMPUTER_MOVE_DELAY, seconds (0.3)"
    )
    parser.add_argument("--keep", action="store_true", help="leave the run directory")
    args = parser.parse_args()

    run_dir = Path(tempfile.mkdtemp(prefix="euchre-cluster-"))
    cluster = Cluster(run_dir, extra_env={"COMPUTER_MOVE_DELAY": f"{args.move_delay:g}"})
    print(f"benchmarks/cluster.py: run directory {run_dir}")
    begun = time.monotonic()
    try:
        cluster.start()
        print(f"  cluster up in {time.monotonic() - begun:.0f} s: {cluster.base_url()}")
        tokens = make_tokens(cluster, args.clients + args.computers)
        load = Load(cluster.nginx_port, tokens, computers=args.computers).start()
        report = {}
        hold(3)
        print("\n1. steady load through nginx, asynchronous replication")
        report["steady_async"] = steady(cluster, load, args.seconds)
        print_dict(report["steady_async"])
        cluster.set_synchronous(True)
        print("\n1b. the same, synchronous replication")
        report["steady_sync"] = steady(cluster, load, args.seconds)
        print_dict(report["steady_sync"])
        print("\n2. API node 1 killed (SIGKILL), started again after the phase")
        report["api_kill"] = kill_api_node(cluster, load, args.seconds / 2)
        print_dict(report["api_kill"])
        print("\n3. turn worker 1 killed, started again after the phase")
        report["worker_kill"] = kill_turn_worker(cluster, load, max(args.seconds, 30))
        print_dict(report["worker_kill"])
        modes = [(False, 0)] * args.async_failovers + [(False, args.stall)]
        modes += [(True, 0)] * args.sync_failovers + [(True, args.stall)]
        for i, (synchronous, stall) in enumerate(modes):
            cluster.set_synchronous(synchronous)
            hold(3)
            name = "sync" if synchronous else "async"
            print(
                f"\n4.{i + 1} the primary killed, the standby promoted ({name} replication"
                + (f", its WAL sender stopped {stall:g} s before)" if stall else ")")
            )
            report[f"failover_{i + 1}_{name}"] = failover(cluster, load, args.seconds / 2, stall)
            print_dict(report[f"failover_{i + 1}_{name}"])
        print("\n5. the standby killed, then made again and paused (synchronous wanted)")
        report["replica_down"] = replica_down(cluster, load, args.seconds / 2)
        print_dict(report["replica_down"])
        load.finish()
        nodes_one, nodes_all = one_node_per_match(cluster)
        print(
            f"\nmatches whose answered requests all went to one API node: {nodes_one}"
            f" of {nodes_all}"
        )
        print(f"keeper's log:\n{cluster.stack.log_tail('keeper', 20)}")
        checked = check_logs(cluster, load)
        acked = sum(load.acks.values())
        print(
            f"\nlog check: {checked['matches']} matches, {len(checked['bad'])} failed verify_log,"
            f" {len(checked['active'])} still active at the end (played to the end: "
            f"{len(load.finished)}); acknowledged seqs {acked} in {len(load.acks)} matches,"
            f" lost: {len(checked['lost'])} matches {checked['lost']}; matches whose creation"
            f" was acknowledged and which are not there: {len(checked['missing'])}"
        )
        for i, (mode, killed) in enumerate(load.failovers):
            # An action lost at a failover was acknowledged shortly before the kill.
            near = [t for t in checked["lost_at"] if killed - 5 <= t <= killed + 1]
            gone = [m for m in checked["missing"] if killed - 5 <= load.created[m] <= killed + 1]
            print(
                f"  acknowledged and lost at failover {i + 1} ({mode}): {len(near)} actions,"
                f" {len(gone)} matches created"
            )
            report[f"lost_{i + 1}_{mode}"] = (len(near), len(gone))
        statuses = Counter(o.status for o in load.outcomes if o.kind == "action")
        print(f"  action answers by status, whole run: {dict(statuses)}")
        if checked["bad"]:
            print(f"  failed: {list(checked['bad'].items())[:5]}")
        print(f"  first error the clients saw: {load.first_error}")
        print("\n6. the cost of synchronous replication")
        for synchronous in (False, True, False, True):
            name = "synchronous" if synchronous else "asynchronous"
            p50, p99 = commit_times(cluster, synchronous)
            print(f"  a one-row commit, {name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
            report.setdefault(f"commit_{name}", []).append((p50, p99))
        if not args.no_api_ratio:
            print(
                "  benchmarks/api.py on the primary, the action loop against the one-row ceiling:"
            )
            for i in range(args.api_pairs):
                for synchronous in (True, False):
                    name = "synchronous" if synchronous else "asynchronous"
                    log = run_dir / f"api-{name}-{i + 1}.log"
                    ratios = api_ratio(cluster, synchronous, args.api_seconds, log)
                    print(f"  {name}: {ratios}")
                    report.setdefault(f"api_{name}", []).append(ratios)
        (run_dir / "report.json").write_text(json.dumps(report, indent=2, default=str))
        print(
            f"\nwhole run: {time.monotonic() - begun:.0f} s; figures in {run_dir / 'report.json'}"
        )
    finally:
        cluster.stop()
        if not args.keep:
            subprocess.run(["rm", "-rf", str(run_dir)], check=False)
    return 0


def print_dict(figures: dict) -> None:
    for name, value in figures.items():
        if isinstance(value, float):
            value = f"{value:.3f}" if value < 10 else f"{value:.1f}"
        print(f"  {name}: {value}")


if __name__ == "__main__":
    raise SystemExit(main())
