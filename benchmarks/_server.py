"""How every benchmark that runs the service starts it (api, stream, feed, quickplay,
storage, profile_action, capacity, spread, partitioning, records, celery_memory,
review_memory; the hostile-client suite, the fault tests and the cluster too): a fresh
PostgreSQL database (or a given one; or a private PostgreSQL server, PrivatePostgres), a
Redis server of the run's own on a spare port (RedisServer; or two databases of a given
one, --redis-url), gunicorn and/or uvicorn with the production settings, and (optionally)
a Celery worker and celery beat, or Django in this process; the command-line options that
name them (add_stack_arguments); and the percentiles the figures are printed as.
Everything on 127.0.0.1; everything it starts it stops, by process group, at the end:

    with Stack.from_args(args, "euchre-bench-x-") as stack:   # made and migrated here
        stack.start_gunicorn()
        ...                                                    # all stopped and dropped here
"""

import argparse
import glob
import http.client
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# uvicorn's --timeout-graceful-shutdown, as docker-compose.yml runs the streams: open
# streams are closed this many seconds after SIGTERM instead of waited for.
STREAM_STOP_GRACE = "5"


def require_loopback(url: str) -> str:
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK:
        raise SystemExit(f"the benchmarks talk to 127.0.0.1 only, not {host!r} ({url})")
    return url


def with_path(url: str, path: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def rss_kib(pid: int) -> int:
    """A process's resident memory (VmRSS in /proc/<pid>/status), in KiB; 0 once it has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft RLIMIT_NOFILE towards `wanted` (never past the hard limit,
    never lowering it); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile `q` (0 to 100) of sorted values; nan for none."""
    if not sorted_values:
        return float("nan")
    rank = max(1, int(-(-q * len(sorted_values) // 100)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def ms(seconds: list[float], q: float) -> float:
    """Percentile `q` of durations in seconds (in any order), in milliseconds."""
    return percentile(sorted(seconds), q) * 1000


def add_stack_arguments(
    parser: argparse.ArgumentParser,
    *,
    database: str,
    port: bool = False,
    keep_database: bool = True,
    gunicorn: bool = False,
    redis: bool = True,
) -> None:
    """The options that say where a benchmark's Stack runs: its own database (made fresh,
    dropped at the end unless --keep-database), Redis (`redis`: by default a redis-server
    of the run's own on a spare port; --redis-url: two databases of that one, emptied), with
    `port` the server's port on 127.0.0.1 (a spare one unless --port) and, with
    `gunicorn`, its processes and threads (production's defaults)."""
    if gunicorn:
        parser.add_argument(
            "--workers",
            type=int,
            default=min((os.cpu_count() or 1) + 1, 9),
            help="gunicorn processes (cores + 1, as euchre_service/gunicorn.conf.py)",
        )
        parser.add_argument("--threads", type=int, default=4, help="threads per process (4)")
    if port:
        parser.add_argument("--port", type=int, default=spare_port(), help="on 127.0.0.1 (spare)")
    parser.add_argument("--database-url", default=f"postgres://postgres@127.0.0.1:5432/{database}")
    if redis:
        parser.add_argument(
            "--redis-url",
            help="an existing Redis server to use (its --broker-db and --cache-db are emptied);"
            " by default a redis-server of the run's own on a spare port",
        )
        parser.add_argument("--broker-db", type=int, default=0, help="with --redis-url (0)")
        parser.add_argument("--cache-db", type=int, default=1, help="with --redis-url (1)")
    if keep_database:
        parser.add_argument("--keep-database", action="store_true")


def cpu_line(cpu: dict[str, float], when: str = "") -> str:
    """The line that says where the CPU went (% of all cores, by kind: cpu_used scaled),
    and whether other programs disturbed the figures."""
    return (
        f"  CPU, % of all {os.cpu_count()} cores{when}: server {cpu['server']:.0f}%,"
        f" clients {cpu['clients']:.0f}%, PostgreSQL and Redis {cpu['stores']:.0f}%,"
        f" other programs {cpu['other']:.0f}%"
        + ("  <- disturbed: another program shared the cores" if cpu["other"] > 10 else "")
    )


def production_env(**more: str) -> dict[str, str]:
    """A Stack's extra_env for the production settings as they are (settings_production,
    no benchmark endpoints, a Celery worker for the tasks), with `more` over them."""
    return {
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings_production",
        "BENCHMARK_ENDPOINTS": "0",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        **more,
    }


def stream_server_env(keepalive: float) -> dict[str, str]:
    """uvicorn as production runs the live streams (production_env), keep-alives every
    `keepalive` seconds, no stream ending by itself during a run."""
    return production_env(
        STREAM_KEEPALIVE_SECONDS=f"{keepalive:g}",
        STREAM_MAX_SECONDS="3600",  # longer than the run: no stream ends by itself
    )


def _processes() -> Iterator[tuple[int, str, list[str]]]:
    """Every live process: its pid, its command name and the fields of /proc/<pid>/stat
    after the name (fields[1] the parent, [2] the group, [11] + [12] the CPU ticks, [21]
    the resident pages)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        yield int(entry.name), comm, stat[stat.rindex(")") + 2 :].split()


def cpu_snapshot(own_groups: set[int]) -> dict[int, tuple[str, float]]:
    """Every process's CPU seconds so far, with its kind: "clients" (this process and the
    client processes it started), "server" (the process groups it started: gunicorn, the
    Celery worker), "stores" (PostgreSQL, Redis) or "other" (another program on the same
    cores, which disturbs the figures)."""
    tick = os.sysconf("SC_CLK_TCK")
    seen = {}
    for pid, comm, fields in _processes():
        ppid, pgid = int(fields[1]), int(fields[2])
        if pid == os.getpid():
            kind = "clients"
        elif pgid in own_groups:
            kind = "server"
        elif ppid == os.getpid():
            kind = "clients"  # a client process of this one (stream.py's API load)
        elif comm.startswith(("postgres", "redis-server")):
            kind = "stores"
        else:
            kind = "other"
        seen[pid] = (kind, (int(fields[11]) + int(fields[12])) / tick)
    return seen


def group_usage(groups: set[int], parents: set[int] = frozenset()) -> dict[int, tuple[float, int]]:
    """For each of these process groups (a server Stack started, with its children), and
    each of these `parents` with its children (PostgreSQL's backends each lead a group of
    their own): the CPU seconds the live processes have used so far, and their resident
    memory in KiB."""
    tick, page_kib = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE") // 1024
    usage = dict.fromkeys(groups | parents, (0.0, 0))
    for pid, _comm, fields in _processes():
        ppid, pgid = int(fields[1]), int(fields[2])
        key = pgid if pgid in groups else pid if pid in parents else ppid
        if key in usage:
            cpu, rss = usage[key]
            seconds = (int(fields[11]) + int(fields[12])) / tick
            usage[key] = (cpu + seconds, rss + int(fields[21]) * page_kib)
    return usage


def cpu_used(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds each kind used between two snapshots (processes that ended between
    them are not counted)."""
    used = {"server": 0.0, "clients": 0.0, "stores": 0.0, "other": 0.0}
    for pid, (kind, seconds) in after.items():
        used[kind] += seconds - before.get(pid, (kind, 0.0))[1]
    return used


def local_seats(prefix: str, seats: int = 4) -> Callable[..., Any]:
    """With Django in this process (Stack.django_here): `seats` users, each with a token,
    and `call(method, path, body=None, seat=0, **headers)`, a GET or a JSON POST as that
    seat's user through Django's test client (the whole middleware and DRF stack, no
    socket)."""
    from django.contrib.auth import get_user_model  # only once Django is set up
    from django.test import Client
    from knox.models import get_token_model

    User = get_user_model()
    tokens = []
    for i in range(seats):
        user = User.objects.create(username=f"{prefix}{i}")
        tokens.append(get_token_model().objects.create(user=user)[1])
    client = Client(HTTP_HOST="127.0.0.1")

    def call(method: str, path: str, body: dict | None = None, seat: int = 0, **headers: str):
        auth = {"HTTP_AUTHORIZATION": f"Token {tokens[seat]}", **headers}
        if method == "GET":
            return client.get(path, **auth)
        return client.post(path, body, content_type="application/json", **auth)

    return call


@dataclass(frozen=True, slots=True)
class Move:
    """A move in the log: its match, the seat that made it, when (seconds since the epoch)."""

    match_id: str
    seat: int
    at: float


class Stack:
    """The servers one benchmark run needs, made fresh and taken down afterwards; as a
    context manager, prepared on entry and cleaned up on exit (SIGTERM too)."""

    def __init__(
        self,
        *,
        database_url: str,
        redis_url: str | None,
        broker_db: int = 0,
        cache_db: int = 1,
        port: int,
        log_dir: Path,
        stream_port: int | None = None,
        workers: int = 1,
        threads: int = 1,
        eager: bool = False,
        celery_concurrency: int = 1,
        extra_env: dict[str, str] | None = None,
        private_postgres: bool = False,
    ) -> None:
        # With `private_postgres`: the database (by its name in `database_url`) on a
        # PostgreSQL server of the Stack's own (made and started by prepare, removed by
        # clean_up), whose figures (its WAL, its backends' CPU) are the run's alone.
        self.postgres = PrivatePostgres() if private_postgres else None
        if self.postgres is not None:
            database_url = with_path(self.postgres.url, urlsplit(database_url).path)
        self.database_url = require_loopback(database_url)
        self.database = urlsplit(database_url).path.lstrip("/")
        if not self.database.replace("_", "").isalnum():
            raise SystemExit(f"a plain database name please, not {self.database!r}")
        # Redis: None, a redis-server of the Stack's own (started by prepare, stopped by
        # clean_up); "": none at all (no broker, no cache: the tasks eager); else that one.
        self.redis = RedisServer(log_dir) if redis_url is None else None
        self.redis_url = with_path(self.redis.url, "") if self.redis else redis_url
        if self.redis_url:
            self.broker_url = with_path(require_loopback(self.redis_url), f"/{broker_db}")
            self.cache_url = with_path(self.redis_url, f"/{cache_db}")
        else:
            self.broker_url = self.cache_url = ""
        self.port = port
        # uvicorn's port when gunicorn runs beside it (the production shape); else `port`.
        self.stream_port = stream_port or port
        self.workers = workers
        self.threads = threads
        self.eager = eager
        self.celery_concurrency = celery_concurrency
        self.log_dir = log_dir
        self.extra_env = dict(extra_env or {})  # applied last: it overrides the above
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.secret_key = secrets.token_urlsafe(50)
        self.django_is_here = False  # Django set up in this process (django_here)
        self.keep_database = False  # clean_up's default (from_args: --keep-database)

    @classmethod
    def from_args(cls, args: argparse.Namespace, log_prefix: str, **options: Any) -> "Stack":
        """The Stack the options of add_stack_arguments name, its logs in a new temporary
        folder named `log_prefix`...; `options` as for Stack()."""
        for name in ("workers", "threads"):  # gunicorn's, if the benchmark has them
            if hasattr(args, name):
                options.setdefault(name, getattr(args, name))
        stack = cls(
            database_url=args.database_url,
            redis_url=getattr(args, "redis_url", ""),  # no Redis options: no Redis
            broker_db=getattr(args, "broker_db", 0),
            cache_db=getattr(args, "cache_db", 1),
            port=getattr(args, "port", 0),
            log_dir=Path(tempfile.mkdtemp(prefix=log_prefix)),
            **options,
        )
        stack.keep_database = getattr(args, "keep_database", False)
        return stack

    def __enter__(self) -> "Stack":
        # Stopped with SIGTERM (or SIGINT, which a shell's background job ignores): the
        # KeyboardInterrupt leaves the `with`, so everything is cleaned up all the same.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            self.prepare()
        except BaseException:
            self.clean_up(self.keep_database)
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        self.clean_up(self.keep_database)

    def prepare(self) -> None:
        """Its own Redis server started (or the two Redis databases emptied), its own
        PostgreSQL server if it has one, and a fresh database, migrated."""
        if self.redis is not None:
            self.redis.start()
        if self.postgres is not None:
            self.postgres.init().start()
        self.create_database()
        self.flush_redis()
        self.migrate()

    def clean_up(self, keep_database: bool = False) -> None:
        """Stop what it started, empty the Redis databases (or stop its own Redis) and drop
        the database (unless kept); a failure here is printed, not raised: the run's
        figures still count."""
        self.stop()
        if self.django_is_here:
            from django.db import connections  # set up by django_here

            connections.close_all()  # this process's own, before the database is dropped
        try:
            if self.redis is not None:
                self.redis.stop()
            else:
                self.flush_redis()
            if self.postgres is not None:
                self.postgres.destroy()
            elif not keep_database:
                self.drop_database()
        except Exception as exc:  # pragma: no cover - reported, not fatal
            print(f"  clean-up: {exc!r}")

    def django_here(self) -> None:
        """Django in this process, with the Stack's settings (its database, its Redis)."""
        os.environ.update(self.env())
        import django  # only now: the settings read the environment just set

        django.setup()
        self.django_is_here = True

    # ------------------------------------------------------------ environment

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
                "BENCHMARK_ENDPOINTS": "1",
                "PYTHONPATH": str(ROOT),
                "SECRET_KEY": self.secret_key,
                "DATABASE_URL": self.database_url,
                "CELERY_BROKER_URL": self.broker_url,
                "REDIS_URL": self.cache_url,
                "ALLOWED_HOSTS": "127.0.0.1,localhost",
                # Plain HTTP on the loopback: there is no TLS proxy to redirect to.
                "SECURE_SSL_REDIRECT": "false",
                "CELERY_TASK_ALWAYS_EAGER": "1" if self.eager else "0",
                "THROTTLE_ACTIONS": "1000000/min",
                "THROTTLE_AUTH": "100000/min",
                "THROTTLE_GUESTS": "100000/hour",
                "THROTTLE_MATCHES": "100000/min",
                "MAX_ACTIVE_MATCHES_PER_USER": "100000",
                "GUNICORN_BIND": f"127.0.0.1:{self.port}",
                "WEB_CONCURRENCY": str(self.workers),
                "GUNICORN_THREADS": str(self.threads),
                "GUNICORN_ACCESS_LOG": "",
                "GUNICORN_LOG_LEVEL": "warning",
                "LOG_LEVEL": "WARNING",
            }
        )
        env.update(self.extra_env)
        return env

    # ------------------------------------------------------------ data stores

    def _admin_connection(self):
        import psycopg

        return psycopg.connect(with_path(self.database_url, "/postgres"), autocommit=True)

    def create_database(self) -> None:
        with self._admin_connection() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.database}"')

    def drop_database(self) -> None:
        with self._admin_connection() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def flush_redis(self) -> None:
        import redis

        for url in filter(None, (self.broker_url, self.cache_url)):
            client = redis.Redis.from_url(url, socket_timeout=5)
            client.flushdb()
            client.close()

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url) as conn:
            return conn.execute(sql, params).fetchall()

    def logged_moves(self) -> list["Move"]:
        """Every move logged in the run's database, wherever the log keeps it: the event
        rows, and the chunks and archives the hands over and the ended matches move into
        (games.log.archive), read in one snapshot; a move in two places is counted once."""
        import psycopg

        from games.log.compression import decompress
        from games.log.events import ACTION_EVENTS

        found: dict[tuple[str, int], Move] = {}
        with psycopg.connect(self.database_url) as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            with conn.transaction():
                rows = conn.execute(
                    "SELECT match_id, seq, seat, extract(epoch FROM created_at)"
                    " FROM games_event WHERE type = ANY(%s)",
                    (sorted(ACTION_EVENTS),),
                ).fetchall()
                packed = conn.execute(
                    "SELECT match_id, data FROM games_eventchunk"
                    " UNION ALL SELECT match_id, data FROM games_eventarchive"
                ).fetchall()
        for match_id, seq, seat, at in rows:
            found[(str(match_id), seq)] = Move(str(match_id), seat, float(at))
        for match_id, data in packed:
            for _id, seq, type_, seat, _payload, at in json.loads(decompress(bytes(data))):
                if type_ in ACTION_EVENTS:
                    when = datetime.fromisoformat(at).timestamp()
                    found[(str(match_id), seq)] = Move(str(match_id), seat, when)
        return list(found.values())

    def make_users(self, count: int) -> list[str]:
        """`count` users, each with one knox token, made directly in the database (one
        password hash for all: hashing is slow on purpose and not what is measured)."""
        script = (
            "import json, time, django; django.setup()\n"
            "from django.contrib.auth import get_user_model\n"
            "from django.contrib.auth.hashers import make_password\n"
            "from knox.models import get_token_model\n"
            "User, password = get_user_model(), make_password('bench-passphrase-123')\n"
            f"stamp, tokens = int(time.time()), []\n"
            f"for i in range({int(count)}):\n"
            "    user = User.objects.create(username=f'bench{stamp}_{i}', password=password)\n"
            "    tokens.append(get_token_model().objects.create(user=user)[1])\n"
            "print(json.dumps(tokens))\n"
        )
        done = self.python("-c", script)
        return json.loads(done.stdout.strip().splitlines()[-1])

    def migrate(self) -> None:
        self.python("manage.py", "migrate", "--noinput", "-v", "0")

    def python(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """`python args...` in the repository with the Stack's environment (so Django set
        up there is on the Stack's database and Redis), its output captured; SystemExit
        with the tail of its errors if it fails."""
        done = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            command = " ".join(args)[:100]
            raise SystemExit(f"python {command} on {self.database} failed:\n{done.stderr[-3000:]}")
        return done

    # ------------------------------------------------------------ processes

    def _start(
        self, name: str, argv: list[str], preexec_fn=None, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """`argv` in its own process group, its output to <log_dir>/<name>.log, with the
        Stack's environment (`env`: with these values over it)."""
        log = open(self.log_dir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**self.env(), **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stop() reaches its children
            preexec_fn=preexec_fn,
        )
        log.close()
        self.processes.append((name, proc))
        return proc

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.log_dir / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def _port_free(self, port: int) -> None:
        probe = socket.socket()
        try:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"something already listens on 127.0.0.1:{port}: --port")
        finally:
            probe.close()

    def _wait_healthy(self, name: str, proc: subprocess.Popen, timeout: float, port: int) -> None:
        """Until GET /healthz answers 200 on the port (SystemExit with the log's tail if the
        process exits or `timeout` passes first)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited:\n{self.log_tail(name)}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
                status = conn.getresponse().status
                conn.close()
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit(f"{name} did not answer /healthz:\n{self.log_tail(name)}")

    def start_gunicorn(self, timeout: float = 60) -> None:
        self._port_free(self.port)
        proc = self._start(
            "gunicorn",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "euchre_service/gunicorn.conf.py",
                "euchre_service.wsgi:application",
            ],
        )
        self._wait_healthy("gunicorn", proc, timeout, self.port)

    def start_uvicorn(self, open_files: int = 0, timeout: float = 60) -> subprocess.Popen:
        """One uvicorn process (the ASGI server that serves the live streams), as bin/serve
        runs it, on 127.0.0.1:stream_port, no access log; with `open_files`, its RLIMIT_NOFILE
        soft limit raised to that (as `ulimit -n` would) before it starts."""
        self._port_free(self.stream_port)

        def limits() -> None:
            if open_files:
                raise_open_files_limit(open_files)

        proc = self._start(
            "uvicorn",
            [
                sys.executable,
                "-m",
                "uvicorn",
                "euchre_service.asgi:application",
                "--http",
                UVICORN_PROTOCOL,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.stream_port),
                "--workers",
                "1",
                "--no-access-log",
                "--log-level",
                "warning",
                "--timeout-graceful-shutdown",
                STREAM_STOP_GRACE,
            ],
            preexec_fn=limits,
        )
        self._wait_healthy("uvicorn", proc, timeout, self.stream_port)
        return proc

    def start_worker(
        self,
        timeout: float = 60,
        queues: str | None = None,
        nice: int = 0,
        loglevel: str = "WARNING",
    ) -> subprocess.Popen:
        """A Celery worker (--concurrency celery_concurrency) on `queues` (default: the
        default queue and the review queue, one worker for everything), at `nice`;
        answers once it answers a ping."""
        node = f"bench-{os.getpid()}@%h"
        env = self.env()
        # Computer turns and hints, and match reviews (their own queue; one worker here).
        queues = queues or ",".join(
            (
                env.get("CELERY_TASK_DEFAULT_QUEUE", "celery"),
                env.get("CELERY_REVIEW_QUEUE", "review"),
            )
        )
        proc = self._start(
            "celery",
            [
                *(["nice", "-n", str(nice)] if nice else []),
                sys.executable,
                "-m",
                "celery",
                "-A",
                "euchre_service",
                "worker",
                "--concurrency",
                str(self.celery_concurrency),
                "--loglevel",
                loglevel,
                "-n",
                node,
                "-Q",
                queues,
                "--without-gossip",
                "--without-mingle",
            ],
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"the Celery worker exited:\n{self.log_tail('celery')}")
            ping = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "euchre_service",
                    "inspect",
                    "ping",
                    "--timeout",
                    "2",
                ],
                cwd=ROOT,
                env=self.env(),
                capture_output=True,
                timeout=30,
            )
            if ping.returncode == 0:
                return proc
            time.sleep(0.5)
        raise SystemExit(f"the Celery worker did not answer a ping:\n{self.log_tail('celery')}")

    def start_beat(self, timeout: float = 60) -> subprocess.Popen:
        """`celery beat` (the periodic sweep that re-queues lost computer turns), its
        schedule file in the log directory."""
        proc = self._start(
            "beat",
            [sys.executable, "-m", "celery", "-A", "euchre_service", "beat",
             "--loglevel", "INFO", "-s", str(self.log_dir / "beat-schedule")],
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while "beat: Starting" not in self.log_tail("beat"):
            if proc.poll() is not None:
                raise SystemExit(f"celery beat exited:\n{self.log_tail('beat')}")
            if time.monotonic() > deadline:
                raise SystemExit(f"celery beat did not start:\n{self.log_tail('beat')}")
            time.sleep(0.2)
        return proc

    def process_groups(self) -> set[int]:
        return {proc.pid for _name, proc in self.processes}

    def stop(self) -> None:
        for _name, proc in reversed(self.processes):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        for _name, proc in reversed(self.processes):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=10)
        self.processes.clear()


# Spare ports are drawn below Linux's ephemeral range (32768 to 60999 by default), where
# the kernel never hands one to an outgoing connection between the probe and the server's
# own bind (port 0's way draws from inside it); each xdist worker of the suite draws from a
# block of its own (tests/parallel.py), so two processes of one run never draw alike.
SPARE_PORTS = range(20000, 32000)
PORT_BLOCK = 2000
_handed_out: set[int] = set()


def port_block(worker: str | None = None) -> range:
    """The spare ports of xdist worker `worker` (gw0, gw1, ...; by default this process's,
    PYTEST_XDIST_WORKER; outside xdist the first block)."""
    worker = worker if worker is not None else os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    blocks = len(SPARE_PORTS) // PORT_BLOCK
    index = int(worker.removeprefix("gw") or 0) % blocks
    first = SPARE_PORTS.start + index * PORT_BLOCK
    return range(first, first + PORT_BLOCK)


def spare_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now and that this process has not
    handed out before (two servers asked for ports before either starts get two), from a
    random place in this process's block."""
    block = port_block()
    start = secrets.randbelow(len(block))
    for k in range(len(block)):
        port = block[(start + k) % len(block)]
        if port in _handed_out:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken, or still in TIME_WAIT
        _handed_out.add(port)
        return port
    raise RuntimeError(f"no spare port left in {block.start}-{block.stop - 1}")


def _postgres_binary(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name)]
    if not found[-1]:
        raise AssertionError(f"{name} not found: PostgreSQL's server binaries are needed")
    return found[-1]


class PrivatePostgres:
    """initdb + pg_ctl on a spare port in a temporary directory, as the postgres user when
    run as root (PostgreSQL refuses to run as root). Trust authentication, no fsync. For
    tests that stop and start it, and for figures of a server's own (its WAL, say) that
    the shared server mixes with everyone else's."""

    def __init__(self, directory: Path | None = None) -> None:
        """In `directory` (made; by default a new temporary one): data/ and server.log."""
        self.port = spare_port()
        if directory is None:
            self.dir = Path(tempfile.mkdtemp(prefix="euchre-pg-"))
        else:
            self.dir = Path(directory)
            self.dir.mkdir(parents=True, exist_ok=True)
        self.data = self.dir / "data"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")

    def _run(self, *args: str) -> None:
        command = [*args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}\n{self.log()}")

    def log(self) -> str:
        path = self.dir / "server.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def init(self) -> "PrivatePostgres":
        self._run(_postgres_binary("initdb"), "-D", str(self.data), "-U", "postgres",
                  "--auth=trust", "-E", "UTF8", "--no-sync")  # fmt: skip
        return self

    def start(self, **settings: str) -> None:
        """pg_ctl start, waiting until it accepts connections (a standby: until it is
        consistent); `settings`: more -c name=value for the server."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        options += "".join(f" -c {name}={value}" for name, value in settings.items())
        self._run(_postgres_binary("pg_ctl"), "-D", str(self.data), "-l",
                  str(self.dir / "server.log"), "-w", "-o", options, "start")  # fmt: skip

    def pid(self) -> int:
        """The postmaster's (its backends and helpers are its children)."""
        with open(self.data / "postmaster.pid") as f:
            return int(f.readline())

    def stop(self) -> None:
        self._run(_postgres_binary("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def migrate(self) -> None:
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT, env={**os.environ, "DATABASE_URL": self.url},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]

    def destroy(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisServer:
    """A real Redis server of its own on a spare port, in `directory` (its log there),
    that a test or the cluster stops and starts again (the shared Redis on 6379 is never
    touched)."""

    def __init__(self, directory: Path) -> None:
        self.port = spare_port()
        self.directory = Path(directory)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> "RedisServer":  # generous: a busy machine
        import redis

        log = open(self.directory / f"redis-{self.port}.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.directory)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.client().ping():
                    return self
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"redis-server did not answer ({self.proc.returncode})")
            time.sleep(0.05)

    def stop(self) -> None:
        """Kills the server (as a crash would) and waits until its port refuses."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # a stopped process dies too
            self.proc.wait(10)
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", self.port)) != 0, "the port still answers"

    def pause(self) -> None:
        """Freezes the server (SIGSTOP): connections open, nothing answers, as when it
        hangs or the network drops packets."""
        os.killpg(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.killpg(self.proc.pid, signal.SIGCONT)

    def client(self):
        import redis

        return redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1)
