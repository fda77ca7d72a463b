"""A private PostgreSQL server for tests that stop and start it (never the shared one)."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bots.worker_support import ROOT
from tests.games.server_support import free_port


def _binary(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name)]
    if not found[-1]:
        raise AssertionError(f"{name} not found: PostgreSQL's server binaries are needed")
    return found[-1]


class PrivatePostgres:
    """initdb + pg_ctl on a spare port in a temporary directory, as the postgres user when
    run as root (PostgreSQL refuses to run as root). Trust authentication, no fsync."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="euchre-pg-"))
        self.data = self.dir / "data"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")

    def _run(self, *args: str) -> None:
        command = [*args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}\n{self.log()}")

    def log(self) -> str:
        path = self.dir / "server.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def init(self) -> "PrivatePostgres":
        self._run(_binary("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync")  # fmt: skip
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "server.log"),
                  "-w", "-o", options, "start")  # fmt: skip

    def stop(self) -> None:
        self._run(_binary("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

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
