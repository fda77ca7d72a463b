"""The service on several "nodes" of this machine (issue 36), each a group of processes on
its own loopback ports, started from the repository with nothing done by hand:

- a PostgreSQL primary and a hot standby made from it with pg_basebackup, streaming
  replication (each its own port and data folder under the run directory);
- Redis (broker, cache, pub/sub);
- nginx serving deploy/nginx.conf, its upstreams' servers replaced by the nodes' ports
  (`nginx_config`), in front of two API nodes (gunicorn) and one stream node (uvicorn);
- two Celery turn workers (the default queue), the review worker (the review queue)
  and beat;
- every process's DATABASE_URL names both PostgreSQL servers with
  target_session_attrs=read-write (whichever is the primary now: after a failover the
  promoted standby, with no change of configuration), and DATABASE_REPLICA_URL names
  the standby first with target_session_attrs=prefer-standby (the primary when no
  standby answers).

`bin/cluster up|down` runs it from a shell (the run directory's cluster.json says where
everything is); benchmarks/cluster.py and tests/service/test_cluster.py run it in their
own process, which kills and restarts its parts.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._server import (  # noqa: E402
    ROOT,
    STREAM_STOP_GRACE,
    PrivatePostgres,
    RedisServer,
    Stack,
    _postgres_binary,
    spare_port,
)

DATABASE = "euchre"
# The standby's name as the primary sees it (a walreceiver's default application_name):
# synchronous_standby_names names it, not '*', which pg_basebackup's stream would match.
STANDBY = "walreceiver"
API_UPSTREAM = re.compile(r"^(\s*)server api:8000(.*);$", re.MULTILINE)
STREAM_UPSTREAM = re.compile(r"^(\s*)server stream:8001(.*);$", re.MULTILINE)
LISTEN = re.compile(r"^(\s*)listen 8080;$", re.MULTILINE)


def nginx_server_config(api: list[int], stream: list[int], listen: int) -> str:
    """deploy/nginx.conf with its upstreams' servers on these loopback ports (each line
    repeated once a port, its parameters kept) and listening on 127.0.0.1:`listen`;
    every other line as production has it (tests/service/test_cluster.py)."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    for pattern, ports in ((API_UPSTREAM, api), (STREAM_UPSTREAM, stream)):
        if len(pattern.findall(text)) != 1:
            raise AssertionError(f"deploy/nginx.conf: one line {pattern.pattern} expected")
        text = pattern.sub(
            lambda m, ports=ports: "\n".join(
                f"{m.group(1)}server 127.0.0.1:{port}{m.group(2)};" for port in ports
            ),
            text,
        )
    if len(LISTEN.findall(text)) != 1:
        raise AssertionError("deploy/nginx.conf: one line 'listen 8080;' expected")
    return LISTEN.sub(lambda m: f"{m.group(1)}listen 127.0.0.1:{listen};", text)


def nginx_main_config(run_dir: Path, server_config: Path) -> str:
    """The main file around it (the Debian package's nginx.conf does this part in
    production: the server file is included in its http block), everything under
    `run_dir`; an access log line per request with the upstream that served it."""
    temp = run_dir / "nginx-temp"
    return f"""
{"user root;" if os.geteuid() == 0 else ""}
daemon off;
worker_processes 1;
pid {run_dir / "nginx.pid"};
error_log {run_dir / "logs" / "nginx-error.log"} warn;
events {{ worker_connections 4096; }}
http {{
    log_format upstream '$msec $status $request_method $uri $upstream_addr $upstream_status';
    access_log {run_dir / "logs" / "nginx-access.log"} upstream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {server_config};
}}
"""


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        raise AssertionError("nginx not found: apt-get install -y nginx-light")
    return found


class Cluster:
    """Everything above, in `run_dir`. start() brings it up; stop() takes it all down."""

    def __init__(
        self,
        run_dir: Path,
        *,
        api_processes: int = 1,
        api_threads: int = 4,
        synchronous: bool = False,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.run_dir = Path(run_dir)
        (self.run_dir / "logs").mkdir(parents=True, exist_ok=True)
        self.run_dir.chmod(0o755)  # the postgres user reaches its data folders inside
        (self.run_dir / "nginx-temp").mkdir(exist_ok=True)
        self.primary = PrivatePostgres(self.run_dir / "pg-a")
        self.standby = PrivatePostgres(self.run_dir / "pg-b")
        self.redis = RedisServer(self.run_dir / "logs")
        self.api_ports = [spare_port(), spare_port()]
        self.stream_port = spare_port()
        self.nginx_port = spare_port()
        self.api_processes = api_processes
        self.api_threads = api_threads
        self.synchronous = synchronous
        self.extra_env = dict(extra_env or {})
        self.stack: Stack | None = None  # the environment and the processes' handles
        self.nginx: subprocess.Popen | None = None

    # ------------------------------------------------------------ addresses

    def database_url(self) -> str:
        """Both servers, the primary wanted: the one that is now."""
        a, b = self.primary.port, self.standby.port
        return f"postgres://postgres@127.0.0.1:{a},127.0.0.1:{b}/{DATABASE}?target_session_attrs=read-write"

    def replica_url(self) -> str:
        a, b = self.primary.port, self.standby.port
        return f"postgres://postgres@127.0.0.1:{b},127.0.0.1:{a}/{DATABASE}?target_session_attrs=prefer-standby"

    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.nginx_port}"

    # ------------------------------------------------------------ PostgreSQL

    def sql(self, server: PrivatePostgres, statement: str, database: str = DATABASE) -> list:
        import psycopg

        url = f"postgres://postgres@127.0.0.1:{server.port}/{database}"
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def start_databases(self) -> None:
        self.primary.init()
        # Connections: two API nodes x processes x threads, four workers, beat, the
        # clients' checks; 100 is enough for the default shape.
        # wal_sender_timeout: a standby that hangs (not gone) is let go after 5 s, so
        # that commits waiting on it (synchronous) wait that long at most (the keeper).
        self.primary.start(max_connections="200", wal_keep_size="512MB", wal_sender_timeout="5s")
        self.sql(self.primary, f'CREATE DATABASE "{DATABASE}"', database="postgres")
        self.make_standby()
        self.set_synchronous(self.synchronous)

    def make_standby(self) -> None:
        """A hot standby of the primary now (pg_basebackup -R: streaming replication)."""
        shutil.rmtree(self.standby.data, ignore_errors=True)
        self.standby._run(
            _postgres_binary("pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.primary.port),
            "-U", "postgres", "-D", str(self.standby.data), "-R", "-X", "stream",
            "--no-sync", "-c", "fast",
        )  # fmt: skip
        self.standby.start(
            hot_standby_feedback="on", max_connections="200", wal_sender_timeout="5s"
        )
        self.wait_streaming()

    def wait_streaming(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.sql(self.primary, "SELECT state FROM pg_stat_replication")
            if rows and rows[0][0] == "streaming":
                return
            time.sleep(0.2)
        raise AssertionError(f"the standby does not stream:\n{self.standby.log()}")

    def set_synchronous(self, on: bool) -> None:
        """The primary waits for the standby's flush before a commit returns (`on`:
        synchronous_standby_names the standby, synchronous_commit on), or does not. ALTER SYSTEM
        on the primary alone: a standby made after keeps its own (none)."""
        (self.run_dir / "synchronous").write_text("on\n" if on else "off\n")  # the keeper's
        set_standby_names(self.sql, self.primary, STANDBY if on else "")
        self.synchronous = on

    def kill_postgres(self, server: PrivatePostgres) -> None:
        """SIGKILL to the postmaster and every process of it, as a machine that dies."""
        pid = server.pid()
        children = [
            int(entry.name)
            for entry in os.scandir("/proc")
            if entry.name.isdigit() and _parent(int(entry.name)) == pid
        ]
        for each in (pid, *children):
            try:
                os.kill(each, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 30
        while any(_alive(each) for each in (pid, *children)):
            if time.monotonic() > deadline:
                raise AssertionError("PostgreSQL did not die")
            time.sleep(0.05)
        (server.data / "postmaster.pid").unlink(missing_ok=True)

    def promote(self, server: PrivatePostgres) -> None:
        rows = self.sql(server, "SELECT pg_promote(true, 60)")
        if not rows or not rows[0][0]:
            raise AssertionError(f"pg_promote failed:\n{server.log()}")

    def failover(self) -> None:
        """The standby is the primary now, and the old primary's folder the new standby's
        (once rebuild_standby runs): the two swap names, the URLs stay the same."""
        self.primary, self.standby = self.standby, self.primary

    def rebuild_standby(self) -> None:
        """The old primary (dead) made anew as a standby of the new one: its data folder
        replaced with a base backup, on its old port (what an operator does after a
        failover; pg_rewind would save the copy)."""
        if (self.standby.data / "postmaster.pid").exists():
            self.kill_postgres(self.standby)
        self.make_standby()
        if self.synchronous:
            self.set_synchronous(True)

    # ------------------------------------------------------------ the service

    def env(self) -> dict[str, str]:
        return {
            "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
            "DATABASE_URL": self.database_url(),
            "DATABASE_REPLICA_URL": self.replica_url(),
            "TRUSTED_PROXY_COUNT": "1",
            **self.extra_env,
        }

    def start_service(self) -> None:
        self.redis.start()
        self.stack = Stack(
            database_url=f"postgres://postgres@127.0.0.1:{self.primary.port}/{DATABASE}",
            redis_url=f"redis://127.0.0.1:{self.redis.port}",
            broker_db=0,
            cache_db=1,
            port=self.api_ports[0],
            log_dir=self.run_dir / "logs",
            workers=self.api_processes,
            threads=self.api_threads,
            extra_env=self.env(),
        )
        self.stack.migrate()
        for node in range(2):
            self.start_api(node)
        self.start_stream()
        self.start_worker("turn1", "celery")
        self.start_worker("turn2", "celery")
        self.start_worker("review", "review")
        self.stack.start_beat()
        self.start_nginx()

    def start_api(self, node: int) -> subprocess.Popen:
        port = self.api_ports[node]
        name = f"api{node + 1}"
        proc = self.stack._start(
            name,
            [sys.executable, "-m", "gunicorn", "-c", "euchre_service/gunicorn.conf.py",
             "euchre_service.wsgi:application"],
            env={"GUNICORN_BIND": f"127.0.0.1:{port}"},
        )  # fmt: skip
        self.stack._wait_healthy(name, proc, 120, port)
        return proc

    def start_stream(self) -> subprocess.Popen:
        from euchre_service.uvicorn_errors import PROTOCOL

        proc = self.stack._start(
            "stream",
            [sys.executable, "-m", "uvicorn", "euchre_service.asgi:application", "--http",
             PROTOCOL, "--host", "127.0.0.1", "--port", str(self.stream_port), "--workers",
             "1", "--no-access-log", "--log-level", "warning",
             "--timeout-graceful-shutdown", STREAM_STOP_GRACE],
            env={"STREAM_MAX_SECONDS": "3600"},
        )  # fmt: skip
        self.stack._wait_healthy("stream", proc, 120, self.stream_port)
        return proc

    def start_worker(self, name: str, queue: str, timeout: float = 120) -> subprocess.Popen:
        node = f"{name}-{self.redis.port}@%h"
        proc = self.stack._start(
            name,
            [sys.executable, "-m", "celery", "-A", "euchre_service", "worker", "--concurrency",
             "1", "--loglevel", "INFO", "-n", node, "-Q", queue, "--without-gossip",
             "--without-mingle"],
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while "ready." not in self.stack.log_tail(name, 200):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{name} did not start:\n{self.stack.log_tail(name)}")
            time.sleep(0.2)
        return proc

    def start_nginx(self) -> None:
        server = self.run_dir / "nginx-server.conf"
        server.write_text(nginx_server_config(self.api_ports, [self.stream_port], self.nginx_port))
        main = self.run_dir / "nginx.conf"
        main.write_text(nginx_main_config(self.run_dir, server))
        self.nginx = self.stack._start("nginx", [nginx_binary(), "-c", str(main)])
        self.stack._wait_healthy("nginx", self.nginx, 60, self.nginx_port)

    def process(self, name: str) -> subprocess.Popen:
        return next(proc for each, proc in reversed(self.stack.processes) if each == name)

    def kill(self, name: str) -> None:
        """SIGKILL to a process group (an API node, a worker and its children): a crash."""
        proc = self.process(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        self.stack.processes = [(n, p) for n, p in self.stack.processes if p is not proc]

    # ------------------------------------------------------------ whole

    def start(self) -> "Cluster":
        try:
            self.start_databases()
            self.start_service()
            self.write_state()
            self.stack._start(
                "keeper", [sys.executable, "benchmarks/_cluster.py", "keep", "--run-dir",
                           str(self.run_dir)],
            )  # fmt: skip
        except BaseException:
            self.stop()
            raise
        self.write_state()
        return self

    def write_state(self) -> None:
        state = {
            "url": self.base_url(),
            "database_url": self.database_url(),
            "replica_url": self.replica_url(),
            "redis": self.redis.url,
            "postgres": {"primary": str(self.primary.dir), "standby": str(self.standby.dir)},
            "ports": {
                "nginx": self.nginx_port,
                "api": self.api_ports,
                "stream": self.stream_port,
                "primary": self.primary.port,
                "standby": self.standby.port,
                "redis": self.redis.port,
            },
            "process_groups": {name: proc.pid for name, proc in self.stack.processes}
            | {"redis": self.redis.proc.pid},
            "secret_key": self.stack.secret_key,
        }
        (self.run_dir / "cluster.json").write_text(json.dumps(state, indent=2) + "\n")

    def stop(self) -> None:
        if self.stack is not None:
            self.stack.stop()
        if self.redis.proc is not None:
            self.redis.stop()
        for server in (self.primary, self.standby):
            if (server.data / "postmaster.pid").exists():
                try:
                    server._run(_postgres_binary("pg_ctl"), "-D", str(server.data), "-m",
                                "immediate", "-w", "stop")  # fmt: skip
                except AssertionError:
                    self.kill_postgres(server)


def set_standby_names(sql, server, names: str) -> None:
    sql(server, f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
    sql(server, "SELECT pg_reload_conf()")


def keep(run_dir: Path, grace: float = 1.0, interval: float = 0.2) -> None:
    """The keeper of the commit mode (what Patroni's synchronous_mode does, not strict):
    whichever server is the primary now waits for its standby's flush before a commit
    returns while synchronous replication is wanted (run_dir/synchronous says "on") and a
    standby streams; when none has streamed for `grace` seconds it stops waiting (a commit
    would otherwise wait for ever: play must not wait on the replica), and waits again
    once one streams. Each change is a line on its output."""
    import psycopg

    ports = json.loads((run_dir / "cluster.json").read_text())["ports"]
    missing_since: float | None = None

    def sql(port: int, statement: str) -> list:
        url = f"postgres://postgres@127.0.0.1:{port}/postgres"
        with psycopg.connect(url, autocommit=True, connect_timeout=2) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    while True:
        time.sleep(interval)
        wanted = (run_dir / "synchronous").read_text().strip() == "on"
        for port in (ports["primary"], ports["standby"]):
            try:
                if sql(port, "SELECT pg_is_in_recovery()")[0][0]:
                    continue
                streaming = sql(
                    port,
                    "SELECT count(*) FROM pg_stat_replication"
                    f" WHERE state = 'streaming' AND application_name = '{STANDBY}'",
                )[0][0]
                names = sql(port, "SHOW synchronous_standby_names")[0][0]
            except (psycopg.Error, IndexError):
                continue
            now = time.monotonic()
            missing_since = None if streaming else (missing_since or now)
            if not wanted or (not streaming and now - missing_since >= grace):
                target = ""
            elif streaming:
                target = STANDBY
            else:
                target = names  # a standby gone for less than `grace`: unchanged for now
            if target != names:
                sql(port, f"ALTER SYSTEM SET synchronous_standby_names = '{target}'")
                sql(port, "SELECT pg_reload_conf()")
                change = f"'{names}' -> '{target}' (standbys streaming: {streaming})"
                print(f"{time.time():.3f} keeper: {port} {change}", flush=True)
            break


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return int(stat[stat.rindex(")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def down(run_dir: Path) -> None:
    """Stops what `up` started in `run_dir` (from cluster.json) and removes its data."""
    state = json.loads((run_dir / "cluster.json").read_text())
    for _name, pgid in reversed(state["process_groups"].items()):
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(p) for p in state["process_groups"].values()):
        time.sleep(0.2)
    for pgid in state["process_groups"].values():
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for folder in state["postgres"].values():
        data = Path(folder) / "data"
        if (data / "postmaster.pid").exists():
            command = [_postgres_binary("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
            if os.geteuid() == 0:
                command = ["runuser", "-u", "postgres", "--", *command]
            subprocess.run(command, capture_output=True, timeout=120)
    shutil.rmtree(run_dir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["up", "down", "keep"])
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "euchre-cluster",
        help="where the data folders, logs and cluster.json go (/tmp/euchre-cluster)",
    )
    parser.add_argument("--synchronous", action="store_true", help="synchronous replication")
    args = parser.parse_args()
    if args.command == "keep":  # started by `up`, beside the service
        keep(args.run_dir)
        return 0
    if args.command == "down":
        if not (args.run_dir / "cluster.json").exists():
            print(f"cluster: nothing running in {args.run_dir}")
            return 0
        down(args.run_dir)
        print(f"cluster: stopped, {args.run_dir} removed")
        return 0
    if (args.run_dir / "cluster.json").exists():
        raise SystemExit(f"cluster: already up in {args.run_dir} (bin/cluster down first)")
    shutil.rmtree(args.run_dir, ignore_errors=True)
    cluster = Cluster(args.run_dir, synchronous=args.synchronous).start()
    print(f"cluster: up in {args.run_dir} (cluster.json says where each part is)")
    print(f"  the service through nginx: {cluster.base_url()}")
    print(f"  DATABASE_URL={cluster.database_url()}")
    print(f"  DATABASE_REPLICA_URL={cluster.replica_url()}")
    print(f"  logs: {args.run_dir / 'logs'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
