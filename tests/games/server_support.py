"""Real API processes (uvicorn, the production ASGI server) and a Server-Sent Events client."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

import requests

from benchmarks._server import STREAM_STOP_GRACE, spare_port
from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL
from tests.bots.worker_support import ARTIFACTS, ROOT, database_url_for_tests


class ApiServer:
    """`uvicorn euchre_service.asgi:application` on the test database, in its own process
    group. Computer players move in-process (as in the embedded default) unless the env
    says otherwise; with REDIS_URL set, events are published through Redis."""

    def __init__(self, **env: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.port = spare_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = ARTIFACTS / f"api-{uuid.uuid4().hex[:8]}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url_for_tests(),
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "THROTTLE_ACTIONS": "100000/min",
            "THROTTLE_AUTH": "100000/min",
            "THROTTLE_GUESTS": "100000/hour",
            "THROTTLE_MATCHES": "100000/min",
            **env,
        }
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> "ApiServer":  # generous: a busy machine
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            self.command(), cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"API server exited:\n{self.log()[-3000:]}")
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except requests.RequestException:  # not listening yet, or still loading the app
                pass
            time.sleep(0.1)
        raise AssertionError(f"API server did not answer:\n{self.log()[-3000:]}")

    def command(self) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "euchre_service.asgi:application",
                "--http", UVICORN_PROTOCOL,
                "--host", "127.0.0.1", "--port", str(self.port), "--no-access-log",
                "--timeout-graceful-shutdown", STREAM_STOP_GRACE]  # fmt: skip

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


class GunicornServer(ApiServer):
    """`gunicorn euchre_service.wsgi` with the production config file (gthread workers),
    as production serves everything but the live streams."""

    def command(self) -> list[str]:
        return [sys.executable, "-m", "gunicorn", "-c", "euchre_service/gunicorn.conf.py",
                "--bind", f"127.0.0.1:{self.port}", "--workers", "1", "--threads", "4",
                # (gunicorn's control socket is one path per user: test servers share none)
                "--no-control-socket", "euchre_service.wsgi:application"]  # fmt: skip


class Player:
    """A guest signed in on one server."""

    def __init__(self, server: ApiServer) -> None:
        self.server = server
        response = requests.post(f"{server.url}/api/v1/auth/guest", timeout=10)
        assert response.status_code == 201, response.text
        self.username = response.json()["username"]
        self.headers = {"Authorization": f"Token {response.json()['token']}"}

    def on(self, server: ApiServer) -> "Player":
        """The same account, talking to another API process."""
        other = object.__new__(Player)
        other.server, other.username, other.headers = server, self.username, self.headers
        return other

    def call(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        response = requests.request(
            method, f"{self.server.url}/api/v1/{path}", json=body, headers=self.headers, timeout=30
        )
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    def stream(self, match_id: str, last_event_id: int | None = None) -> "SseClient":
        headers = dict(self.headers)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        return SseClient(f"{self.server.url}/api/v1/matches/{match_id}/stream", headers)


class SseClient:
    """Reads a stream in a thread: every message's id and data, and the comments."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.response = requests.get(url, headers=headers, stream=True, timeout=(5, 60))
        assert self.response.status_code == 200, self.response.text
        assert self.response.headers["Content-Type"].startswith("text/event-stream")
        self.events: list[dict[str, Any]] = []
        self.ids: list[int] = []
        self.comments: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        message: dict[str, str] = {}
        try:
            for raw in self.response.iter_lines(decode_unicode=True):
                line = raw or ""
                if line.startswith(":"):
                    with self._changed:
                        self.comments.append(line)
                        self._changed.notify_all()
                elif line:
                    field, _, value = line.partition(":")
                    message[field] = value.removeprefix(" ")
                elif "data" in message:
                    with self._changed:
                        self.ids.append(int(message["id"]))
                        self.events.append(json.loads(message["data"]))
                        self._changed.notify_all()
                    message = {}
                else:
                    message = {}
        except (requests.RequestException, AttributeError, ValueError):
            pass  # closed by close()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for(self, predicate, timeout: float = 30, what: str = "") -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self), timeout):
                raise AssertionError(f"stream: timed out waiting for {what}; got {self.ids}")

    def wait_for_seq(self, seq: int, timeout: float = 30) -> None:
        self.wait_for(lambda c: c.ids and c.ids[-1] >= seq, timeout, f"seq {seq}")

    def close(self) -> None:
        """Hang up at once: shut the socket down under the reader thread's blocked read
        (closing the response alone waits for the next bytes or the read timeout)."""
        with contextlib.suppress(AttributeError, OSError):
            self.response.raw._fp.fp.raw._sock.shutdown(socket.SHUT_RDWR)
        self.response.close()
        self._thread.join(5)
        assert not self._thread.is_alive(), "the stream reader did not stop"
