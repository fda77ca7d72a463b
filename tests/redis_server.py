"""A real Redis server of the test's own, on a spare port, that the test can stop and
start again (the shared Redis on 6379 is never touched)."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, directory: Path) -> None:
        self.port = _free_port()
        self.directory = directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> "RedisServer":  # generous: a busy machine
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

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=1)
