"""Issue 9, "What it must show": Redis and PostgreSQL killed under a small load of matches.

The test starts its own PostgreSQL (initdb + pg_ctl, tests/games/postgres_support.py)
and its own Redis (tests/redis_server.py) on spare ports, and on them a
production-shaped service (benchmarks/_server.Stack: gunicorn with
euchre_service/gunicorn.conf.py, a Celery worker and celery beat, the production
settings over plain HTTP). A few clients play three matches (four people; two
people and two computers; a person, a computer, a person, a computer) and record
every action the service acknowledged (2xx: the seq it answered). Then:

1. Redis is killed for a few seconds: every person's action still commits (2xx).
2. PostgreSQL is stopped for a few seconds: every request answers 503 JSON
   {"code": "service_unavailable", ...} with Retry-After, never a hang (each request
   has 10 s; the slowest is printed).
3. Both come back and the matches go on, computer players included, without
   restarting the API or the worker.

Afterwards every match's log passes export_match + verify_log, and every
acknowledged action is in its log where the service said it was.

The shared PostgreSQL (5432) and Redis (6379) are never touched.
"""

import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from benchmarks._server import Stack, spare_port
from tests.bots.worker_support import ARTIFACTS, ROOT
from tests.games.postgres_support import PrivatePostgres
from tests.redis_server import RedisServer

OUTAGE_SECONDS = 5  # each outage lasts at least this, and until enough was tried in it
RECOVERY_TIMEOUT = 120  # generous: the wait ends as soon as every match has moved
MOST_SECONDS = 120  # the longest an outage or the first actions are waited for
THINK_SECONDS = (0.1, 0.3)  # a client's pause between requests
ACTION_EVENT_TYPES = {
    "pass": "bid", "order_up": "bid", "call": "bid", "defend_alone": "bid",
    "discard": "discard", "play": "card_played",
}  # fmt: skip


@dataclass
class Call:
    """One HTTP request a client made, and what came back."""

    method: str
    path: str
    started: float
    ended: float
    status: int | None  # None: no HTTP answer at all (refused, reset, timed out)
    content_type: str = ""
    code: str | None = None
    retry_after: str | None = None
    error: str = ""


@dataclass
class Ack:
    """An action the service acknowledged (2xx)."""

    match_id: str
    seat: int
    action: dict[str, Any]
    expected_seq: int
    seq: int
    at: float


@dataclass
class Record:
    calls: list[Call] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def request(self, session: requests.Session, method: str, url: str, path: str, **kw) -> tuple:
        started = time.monotonic()
        try:
            response = session.request(method, url + path, timeout=10, **kw)
        except requests.RequestException as exc:
            call = Call(method, path, started, time.monotonic(), None, error=repr(exc))
            with self.lock:
                self.calls.append(call)
            return None, None
        ended = time.monotonic()
        content_type = response.headers.get("Content-Type", "")
        body = None
        if content_type.startswith("application/json"):
            try:
                body = response.json()
            except ValueError:
                body = None
        call = Call(
            method, path, started, ended, response.status_code, content_type,
            body.get("code") if isinstance(body, dict) else None,
            response.headers.get("Retry-After"),
        )  # fmt: skip
        with self.lock:
            self.calls.append(call)
        return response, body

    def between(self, start: float, end: float) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.started >= start and c.ended <= end]


class Client(threading.Thread):
    """A person at one seat: reads the match, and when the seat is to act sends a random
    legal action with expected_seq and an Idempotency-Key, sending the same request
    again (same key) after a 503 or no answer, until it is acknowledged."""

    def __init__(self, url: str, token: str, match_id: str, seat: int, record: Record) -> None:
        super().__init__(daemon=True)
        self.url, self.match_id, self.seat, self.record = url, match_id, seat, record
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.stopping = threading.Event()
        self.rng = random.Random(f"{match_id}:{seat}")
        self.finished = False
        self.unexpected: list[str] = []

    def run(self) -> None:
        pending: tuple[dict, str] | None = None  # (body, idempotency key)
        path = f"/api/v1/matches/{self.match_id}"
        while not self.stopping.is_set() and not self.finished:
            if pending is None:
                response, body = self.record.request(self.session, "GET", self.url, path)
                if response is not None and response.status_code == 200:
                    self.finished = body["status"] == "finished"
                    legal = body["view"]["legal_actions"]
                    if legal:
                        action = self.rng.choice(legal)
                        pending = ({**action, "expected_seq": body["seq"]}, uuid.uuid4().hex)
            else:
                sent, key = pending
                response, body = self.record.request(
                    self.session, "POST", self.url, f"{path}/actions",
                    json=sent, headers={"Idempotency-Key": key},
                )  # fmt: skip
                status = response.status_code if response is not None else None
                if status is not None and 200 <= status < 300:
                    action = {k: v for k, v in sent.items() if k != "expected_seq"}
                    with self.record.lock:
                        self.record.acks.append(
                            Ack(self.match_id, self.seat, action, sent["expected_seq"],
                                body["seq"], time.monotonic())
                        )  # fmt: skip
                    pending = None
                elif status is not None and status != 503:
                    self.unexpected.append(f"{status} {body}")
                    pending = None
            self.stopping.wait(self.rng.uniform(*THINK_SECONDS))


def guest(url: str) -> str:
    response = requests.post(f"{url}/api/v1/auth/guest", timeout=10)
    assert response.status_code == 201, response.text
    return response.json()["token"]


def authorised(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def start_match(url: str, seats: list[str]) -> tuple[str, list[tuple[str, int]]]:
    """A match with a person ("p") or a computer ("c") at each seat; the first seat's
    person creates it, the others join. Returns its id and (token, seat) per person."""
    spec = [{"kind": "me"}] + [
        {"kind": "open"} if kind == "p" else {"kind": "computer", "level": "easy"}
        for kind in seats[1:]
    ]
    creator = guest(url)
    response = requests.post(
        f"{url}/api/v1/matches",
        json={"seats": spec, "options": {"target_score": 15}},
        headers=authorised(creator),
        timeout=10,
    )
    assert response.status_code == 201, response.text
    match_id = response.json()["id"]
    people = [(creator, 0)]
    for seat, kind in enumerate(seats[1:], start=1):
        if kind == "p":
            token = guest(url)
            joined = requests.post(
                f"{url}/api/v1/matches/{match_id}/join",
                json={"seat": seat},
                headers=authorised(token),
                timeout=10,
            )
            assert joined.status_code == 200, joined.text
            people.append((token, seat))
    return match_id, people


def latest_seq(url: str, token: str, match_id: str) -> tuple[int, str]:
    response = requests.get(
        f"{url}/api/v1/matches/{match_id}", headers=authorised(token), timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()["seq"], response.json()["status"]


def wait_for_every_match_to_move(url: str, matches: dict, after: float, what: str) -> None:
    """Until every match not yet finished has advanced past its seq now and a person in it
    has had an action acknowledged after `after` (people and computers both play again)."""
    start = {m: latest_seq(url, people[0][0], m)[0] for m, (people, _c) in matches.items()}
    deadline = time.monotonic() + RECOVERY_TIMEOUT
    waiting = set(matches)
    while waiting and time.monotonic() < deadline:
        for match_id in list(waiting):
            people, clients = matches[match_id]
            seq, status = latest_seq(url, people[0][0], match_id)
            acked = any(a.match_id == match_id and a.at > after for a in clients[0].record.acks)
            if status == "finished" or (seq > start[match_id] + 4 and acked):
                waiting.discard(match_id)
        time.sleep(0.5)
    assert not waiting, f"{what}: matches that did not move again: {waiting}"


def until(condition, what: str) -> None:
    """Polls `condition` until it holds, for at most MOST_SECONDS."""
    deadline = time.monotonic() + MOST_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.25)


def verify_logs(stack: Stack, match_ids: list[str], out_dir: Path) -> dict[str, Any]:
    """manage.py export_match then verify_log on each match, in one process of the
    service's own settings; returns {match_id: {"verify": text, "events": [...]}}."""
    script = (
        "import io, json, sys, django; django.setup()\n"
        "from django.core.management import call_command\n"
        "result = {}\n"
        "for match_id in sys.argv[2:]:\n"
        "    path = f'{sys.argv[1]}/{match_id}.json'\n"
        "    call_command('export_match', match_id, output=path, stderr=io.StringIO())\n"
        "    out = io.StringIO()\n"
        "    try:\n"
        "        call_command('verify_log', path, stdout=out)\n"
        "        verdict = out.getvalue().strip()\n"
        "    except Exception as exc:\n"
        "        verdict = f'FAILED: {exc}'\n"
        "    with open(path) as f:\n"
        "        events = json.load(f)['events']\n"
        "    result[match_id] = {'verify': verdict, 'events': events}\n"
        "print(json.dumps(result))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(out_dir), *match_ids],
        cwd=ROOT, env=stack.env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def describe(calls: list[Call]) -> str:
    return "\n".join(
        f"  {c.method} {c.path} -> {c.status} {c.code} {c.content_type!r} "
        f"Retry-After={c.retry_after} {1000 * (c.ended - c.started):.0f} ms {c.error}"
        for c in calls[:30]
    )


@pytest.fixture
def stores():
    """A PostgreSQL and a Redis of this test's own, on spare ports."""
    directory = Path(tempfile.mkdtemp(prefix="euchre-faults-"))
    postgres = PrivatePostgres().init()
    postgres.start()
    redis_server = RedisServer(directory).start()
    yield postgres, redis_server
    redis_server.stop()
    postgres.destroy()
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.slow
def test_redis_and_postgresql_killed_under_load_lose_no_acknowledged_action(stores):
    postgres, redis_server = stores
    # The servers' logs and the exported match logs stay in test-artifacts/ for a look.
    logs_dir = ARTIFACTS / f"faults-{uuid.uuid4().hex[:8]}"
    logs_dir.mkdir(parents=True)
    stack = Stack(
        database_url=postgres.url.rsplit("/", 1)[0] + "/euchre_faults",
        redis_url=redis_server.url,
        broker_db=0,
        cache_db=1,
        port=spare_port(),
        log_dir=logs_dir,
        workers=2,
        threads=4,
        extra_env={
            "DJANGO_SETTINGS_MODULE": "euchre_service.settings_production",
            "BENCHMARK_ENDPOINTS": "0",
            "THROTTLE_GUESTS": "10000/hour",
            "THROTTLE_MATCHES": "10000/min",
            # A computer turn whose task was lost with Redis is queued again soon.
            "COMPUTER_TURN_SWEEP_EVERY": "1",
            "COMPUTER_TURN_STALE_AFTER": "2",
            "CACHE_RETRY_SECONDS": "1",
            "LOG_LEVEL": "WARNING",
            # gunicorn's control socket is one path per user: concurrent test runs share none
            "GUNICORN_CMD_ARGS": "--no-control-socket",
        },
    )
    clients: list[Client] = []
    try:
        stack.create_database()
        stack.migrate()
        stack.start_gunicorn()
        stack.start_worker()
        stack.start_beat()
        url = f"http://127.0.0.1:{stack.port}"

        record = Record()
        matches: dict[str, tuple[list, list[Client]]] = {}
        for seats in ("pppp", "ppcc", "pcpc"):
            match_id, people = start_match(url, list(seats))
            players = [Client(url, token, match_id, seat, record) for token, seat in people]
            matches[match_id] = (people, players)
            clients += players
        for client in clients:
            client.start()
        until(lambda: record.acks, "an action acknowledged before the faults")

        # 1. Redis killed: people's actions still commit (down until 3 were sent).
        redis_server.stop()
        redis_down = time.monotonic()

        def actions_sent() -> int:
            now = time.monotonic()
            return sum(c.method == "POST" for c in record.between(redis_down, now))

        until(
            lambda: time.monotonic() > redis_down + OUTAGE_SECONDS and actions_sent() >= 3,
            "three actions sent while Redis was down",
        )
        redis_back = time.monotonic()
        redis_server.start()
        during = record.between(redis_down, redis_back)
        actions = [c for c in during if c.method == "POST"]
        failed = [c for c in during if c.status is None or not 200 <= c.status < 300]
        assert not failed, f"with Redis down, requests that failed:\n{describe(failed)}"
        assert len(actions) >= 3, f"too few actions while Redis was down: {len(actions)}"
        began = time.monotonic()
        wait_for_every_match_to_move(url, matches, began, "after Redis came back")
        print(
            f"Redis down {redis_back - redis_down:.1f} s: {len(during)} requests, "
            f"{len(actions)} actions, all 2xx; every match moved again "
            f"{time.monotonic() - began:.1f} s after it came back"
        )

        # 2. PostgreSQL stopped: every request a quick 503 JSON with Retry-After.
        postgres.stop()
        pg_down = time.monotonic()
        probe_token = matches[next(iter(matches))][0][0][0]
        probe = requests.Session()
        probes = [
            ("GET", "/api/v1/matches", None, authorised(probe_token)),
            ("POST", "/api/v1/matches", {"seats": [{"kind": "me"}] + [{"kind": "open"}] * 3},
             authorised(probe_token)),
            ("POST", "/api/v1/auth/guest", None, {}),
            ("GET", f"/api/v1/matches/{next(iter(matches))}/events", None,
             authorised(probe_token)),
        ]  # fmt: skip
        # Down for OUTAGE_SECONDS and at least ten requests, however slow the machine.
        while (
            time.monotonic() < pg_down + OUTAGE_SECONDS
            or len(record.between(pg_down, time.monotonic())) < 10
        ):
            assert time.monotonic() < pg_down + MOST_SECONDS, "too few requests, too slowly"
            for method, path, body, headers in probes:
                record.request(probe, method, url, path, json=body, headers=headers)
            time.sleep(0.5)
        pg_back = time.monotonic()
        health = requests.get(f"{url}/healthz", timeout=10)
        postgres.start()
        during = record.between(pg_down, pg_back)
        wrong = [
            c for c in during
            if c.status != 503
            or not c.content_type.startswith("application/json")
            or c.code != "service_unavailable"
            or not c.retry_after
        ]  # fmt: skip
        assert len(during) >= 10, f"too few requests while PostgreSQL was down: {len(during)}"
        assert not wrong, (
            f"with PostgreSQL down, {len(wrong)} of {len(during)} requests were not a "
            f"503 service_unavailable JSON with Retry-After:\n{describe(wrong)}"
        )
        assert health.status_code == 503 and health.headers.get("Retry-After")
        began = time.monotonic()
        wait_for_every_match_to_move(url, matches, began, "after PostgreSQL came back")
        slowest = max(c.ended - c.started for c in during)
        print(
            f"PostgreSQL down {pg_back - pg_down:.1f} s: {len(during)} requests, all 503 "
            f"service_unavailable with Retry-After, slowest {1000 * slowest:.0f} ms; every "
            f"match moved again {time.monotonic() - began:.1f} s after it came back"
        )

        # 3. Recovered without a restart: gunicorn, the worker and beat never stopped.
        assert all(proc.poll() is None for _name, proc in stack.processes), "a process died"
        assert requests.get(f"{url}/healthz", timeout=10).status_code == 200
    finally:
        for client in clients:
            client.stopping.set()
        for client in clients:
            client.join(15)
        logs = {name: stack.log_tail(name, 40) for name, _proc in stack.processes}
        stack.stop()

    # Every match's log replays, and every acknowledged action is in it where it was said.
    server_logs = "\n".join(f"--- {n}\n{t}" for n, t in logs.items())
    assert not [u for c in clients for u in c.unexpected], (
        [u for c in clients for u in c.unexpected],
        server_logs,
    )
    api_log = (logs_dir / "gunicorn.log").read_text(errors="replace")
    assert "Traceback" not in api_log and "WORKER TIMEOUT" not in api_log, api_log[-3000:]
    checked = verify_logs(stack, list(matches), logs_dir)
    for match_id, result in checked.items():
        assert result["verify"].startswith("OK"), (match_id, result["verify"])
    # An action sent with expected_seq N is the event N + 1 (no turn timers here), and
    # the seq answered covers it and what followed from it.
    missing = []
    for ack in record.acks:
        events = {e["seq"]: e for e in checked[ack.match_id]["events"]}
        event = events.get(ack.expected_seq + 1)
        if (
            event is None
            or ack.seq > max(events)
            or (event["type"], event["seat"], event["payload"].get("action"))
            != (ACTION_EVENT_TYPES[ack.action["type"]], ack.seat, ack.action)
        ):
            missing.append((ack, event))
    assert not missing, f"acknowledged actions missing from the logs: {missing[:5]}"
    places = [(ack.match_id, ack.expected_seq) for ack in record.acks]
    assert len(places) == len(set(places)), "two acknowledged actions at one place in a log"
    print(
        f"{len(record.acks)} acknowledged actions in {len(matches)} matches, "
        f"{len(record.calls)} requests"
    )
