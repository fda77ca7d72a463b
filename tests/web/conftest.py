"""Fixtures of the browser tests: the service under uvicorn, headless Chromium, artifacts.

The service runs as it does for `bin/serve` (SQLite, tasks in-process) under uvicorn in a
temporary directory, on a free port: one per test module, so that what one module leaves
running on it (computer players finishing a match, turn timers) ends with the module.
Chromium is Debian's (/usr/bin/chromium, installed by bin/browser-up), driven by the
`playwright` package; Playwright's own browser download is not used.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ServerFailed, serve


@pytest.fixture(scope="module")
def server(tmp_path_factory, request) -> Iterator[str]:
    """The service on the embedded default under uvicorn; yields its base URL. A module's
    SERVER_ENV (a dict) adds to or overrides its environment."""
    tmp = tmp_path_factory.mktemp("e2e-server")
    try:
        with serve(tmp, getattr(request.module, "SERVER_ENV", {})) as base:
            yield base
    except ServerFailed as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def browser():
    # One Chromium a module, not a session: while Playwright's sync API is open it runs an
    # event loop on the main thread, and Django then refuses the ORM ("cannot call this
    # from an async context") to any test after it in the same process: under bin/test's
    # two processes, database tests follow browser modules.
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
