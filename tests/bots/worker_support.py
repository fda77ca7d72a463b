"""Real Celery worker processes and a private Redis for the worker tests."""

import atexit
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.db import connection

from euchre_service.celery import app as celery_app
from games.log import eventlog
from games.models import Event

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
# A queue of this test run's own, so that two test runs sharing a Redis never take
# each other's tasks.
QUEUE = f"test-{uuid.uuid4().hex[:10]}"
# Its match reviews' queue (games.play.later.BACKGROUND_TASKS): the test workers consume both.
REVIEW_QUEUE = f"{QUEUE}-review"
_started: list["Worker"] = []


@atexit.register
def _kill_leftover_workers() -> None:
    for worker in _started:
        worker.kill()


def database_url_for_tests() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Worker:
    """`celery worker` in its own process group, logging to test-artifacts/."""

    def __init__(self, broker_url: str, **env: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / f"worker-{uuid.uuid4().hex[:8]}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url_for_tests(),
            "CELERY_BROKER_URL": broker_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
            "CELERY_REVIEW_QUEUE": REVIEW_QUEUE,
            "LOG_LEVEL": "INFO",
            **env,
        }
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> "Worker":  # generous: a busy machine
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "euchre_service", *self.arguments()],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_for_log(self.ready, timeout)
        return self

    ready = "ready"

    def arguments(self) -> list[str]:
        name = f"test-{uuid.uuid4().hex[:6]}@%h"
        return ["worker", "-P", "solo", "--without-mingle", "--without-gossip"] + [
            *("-l", "INFO", "-n", name, "-Q", f"{QUEUE},{REVIEW_QUEUE}")
        ]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log():
                return
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"worker exited:\n{self.log()[-3000:]}")
            time.sleep(0.1)
        raise AssertionError(f"worker log never said {text!r}:\n{self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-task with no chance to clean up."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


class Beat(Worker):
    """`celery beat`, sending the periodic tasks to this test run's queue."""

    ready = "beat: Starting"

    def arguments(self) -> list[str]:
        state = ARTIFACTS / f"beat-{uuid.uuid4().hex[:8]}"
        return ["beat", "-l", "INFO", "-s", f"{state}-schedule", "--pidfile", f"{state}.pid"]


def use_broker(url: str) -> None:
    """Point this (test) process's Celery app at `url` and publish for real."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    celery_app.conf.task_always_eager = False
    # Celery reads CELERY_BROKER_URL from the environment before its own conf.
    os.environ["CELERY_BROKER_URL"] = celery_app.conf.broker_url = url
    celery_app.conf.task_default_queue = QUEUE
    settings.CELERY_REVIEW_QUEUE = REVIEW_QUEUE
    # Connections and producers are pooled per app; drop them so the new URL is used.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def logged_event(match, seq: int) -> Event | None:
    """The match's event at `seq`, wherever the log keeps it: a row, or, once the worker
    played on past a hand's end (south sits out when north goes alone), a chunk."""
    return next(iter(eventlog.events_of(match, after=seq - 1, upto=seq)), None)
