"""Fixtures of the browser tests: the service under uvicorn, headless Chromium, artifacts.

The service runs as it does for `bin/serve` (SQLite, tasks in-process) under uvicorn in a
temporary directory, on a free port: one per test module, so that what one module leaves
running on it (computer players finishing a match, turn timers) ends with the module.
Chromium is Debian's (/usr/bin/chromium, installed by bin/browser-up), driven by the
`playwright` package; Playwright's own browser download is not used.
"""

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL
from tests.web.support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ROOT, free_port, stop


@pytest.fixture(scope="module")
def server(tmp_path_factory, request) -> Iterator[str]:
    """The service on the embedded default under uvicorn; yields its base URL. A module's
    SERVER_ENV (a dict) adds to or overrides its environment."""
    tmp = tmp_path_factory.mktemp("e2e-server")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "COMPUTER_MOVE_DELAY": "0",
        "TURN_TIMER_THREADS": "1",
        # Keep-alives (and so the page's looks at who is at the table) every 2 s, not 15.
        "STREAM_KEEPALIVE_SECONDS": "2",
        # One browser address for the whole module: its guests and matches are many.
        "THROTTLE_GUESTS": "100000/hour",
        "THROTTLE_MATCHES": "100000/min",
        "STATIC_ROOT": str(tmp / "static"),
        "PYTHONPATH": str(ROOT),
        **getattr(request.module, "SERVER_ENV", {}),
    }
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput"],
        cwd=tmp,
        env=env,
        check=True,
        capture_output=True,
        timeout=180,
    )
    port = free_port()
    log_path = tmp / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "euchre_service.asgi:application"]
            + ["--http", UVICORN_PROTOCOL]
            + ["--host", "127.0.0.1", "--port", str(port), "--no-access-log"],
            cwd=tmp,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as a whole
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180  # generous: a busy machine imports Django slowly
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the server exited with {proc.returncode}:\n{log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer /healthz in 180 s:\n{log_path.read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: run bin/browser-up "
            "(it installs Debian's chromium package), or set CHROMIUM_PATH."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
