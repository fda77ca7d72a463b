"""README's "Play a match with curl", run as a reader runs it: its shell blocks in order,
in one bash (`set -u`: a variable used but never defined stops it), against the service
as `bin/serve` runs it (SQLite, tasks in-process, under uvicorn). Every request it makes
answers 2xx, and what each example says it shows is what it shows. The docs beside it
say what the code does (docs/web-client.md and the rematch)."""

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks._server import spare_port
from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SECTION = "## Play a match with curl"
MARK = "@@@ block "
STREAM_SECONDS = 2  # how long the walkthrough watches a stream


def walkthrough_blocks() -> list[str]:
    text = README.read_text()
    assert SECTION in text
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """bin/serve's service on a free port, its access log kept: yields (url, log path)."""
    tmp = tmp_path_factory.mktemp("readme")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "euchre_service.settings",
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "REVIEW_SAMPLES": "4",  # the review is ready sooner; its sentences are the same kind
        "STATIC_ROOT": str(tmp / "static"),
        "PYTHONPATH": str(ROOT),
    }
    for name in ("TEST_DATABASE_URL", "TEST_REDIS_URL", "TEST_BROKER_URL"):
        env.pop(name, None)
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput"],
        cwd=tmp, env=env, check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    port = spare_port()
    log_path = tmp / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "euchre_service.asgi:application",
             "--http", UVICORN_PROTOCOL, "--host", "127.0.0.1", "--port", str(port)],
            cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180  # generous: a busy machine imports Django slowly
        while True:
            assert proc.poll() is None, log_path.read_text()
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        yield url, log_path
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(30)


def run_walkthrough(url: str, tmp_path: Path) -> tuple[list[str], str]:
    """Each block's output, and what bash said on stderr. A stream (`curl -sN`) never ends
    by itself: curl gives up on it after 2 s, as a reader's Ctrl-C. Only the streams: with
    a max-time on every curl (a .curlrc), a request that a loaded machine answered in more
    than 2 s was cut, its output empty, and the match loop ended before the match did (a
    fresh-clone CI run: 19 requests where a match takes 40 and more)."""
    script = ["set -u"]
    for i, block in enumerate(walkthrough_blocks()):
        block = block.replace("curl -sN ", f"curl -sN --max-time {STREAM_SECONDS} ")
        # The match loop's file is the reader's /tmp/view.json; the test's own, so that two
        # runs of the suite on one machine do not read each other's view.
        block = block.replace("/tmp/view.json", str(tmp_path / "view.json"))
        script += [f'echo "{MARK}{i}"', f'echo "{MARK}{i}" >&2', block]
    done = subprocess.run(
        ["bash", "-c", "\n".join(script).replace("http://127.0.0.1:8000", url)],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CURL_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=900,  # a hang's guard only: a loaded machine plays the match slowly
    )
    outputs = re.split(rf"{MARK}\d+\n", done.stdout)[1:]
    return outputs, done.stderr


def shown_after(block: str, command: str) -> list[str]:
    """The output a block shows (its comment lines) after the line holding `command`."""
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if command in line)
    shown = []
    for line in lines[start + 1 :]:
        if not line.startswith("#"):
            break
        shown.append(line[2:] if line.startswith("# ") else "")
    return shown


def test_the_readme_walkthrough_runs_and_shows_what_it_says(serve, tmp_path):
    for tool in ("bash", "curl", "jq"):  # what the walkthrough asks of a reader
        assert shutil.which(tool), f"{tool} is not installed: apt-get install {tool}"
    url, log_path = serve
    blocks = walkthrough_blocks()
    outputs, stderr = run_walkthrough(url, tmp_path)
    assert len(outputs) == len(blocks), stderr
    assert "unbound variable" not in stderr, stderr  # every variable defined before its use
    assert "command not found" not in stderr, stderr

    # Every request the walkthrough made was answered 2xx: none refused (a rematch of a
    # match not yet over is 409), none for a match or person that does not exist.
    requests = re.findall(
        r'"(GET|POST|DELETE|PUT|PATCH) (/api/\S+) HTTP/1.1" (\d{3})', log_path.read_text()
    )
    refused = [r for r in requests if not r[2].startswith("2")]
    assert not refused, (refused, stderr)
    assert len(requests) > 20, (requests, outputs, stderr)

    def output_of(command: str) -> str:
        return next(out for block, out in zip(blocks, outputs, strict=True) if command in block)

    # jq prints null for a field the answer lacks: no example shows one.
    for block, out in zip(blocks, outputs, strict=True):
        assert "null" not in out.splitlines(), (block, out)

    # The registration shows its answer as it is on a fresh server.
    register = output_of("/auth/register")
    assert register.strip() == shown_after(blocks[0], '-d \'{"username": "alice"')[0]

    # The view: the keys shown are the keys answered.
    view = output_of("phase: .view.phase")
    shown = " ".join(shown_after(next(b for b in blocks if "phase: .view.phase" in b), "jq '{"))
    assert re.findall(r'"(\w+)":\s', shown)[:6] == re.findall(r'"(\w+)":\s', view)[:6]

    # The stream: its first lines are the lines shown, field by field (retry, then the
    # first event: id 1, its type, its data).
    stream_block = next(b for b in blocks if "/stream?after=0" in b)
    shown = shown_after(stream_block, "/stream?after=0")
    got = output_of("/stream?after=0").splitlines()[: len(shown)]
    field = lambda line: line.split(":", 1)[0]  # noqa: E731
    assert [field(line) for line in got] == [field(line) for line in shown], (got, shown)
    assert got[:3] == shown[:3]  # "retry: 2000", the blank line, "id: 1"

    # The rematch: offered once the match is over, started at once with computers.
    rematch = output_of("/rematch")
    assert '"status": "started"' in rematch
    assert re.search(r'"match": "[0-9a-f-]{36}"', rematch), rematch

    # The history example lists the match just played (not a filter that can only be empty).
    history = output_of("/users/alice/matches")
    assert '"results": []' not in history
    assert '"opposition": "random"' in history


def test_the_web_client_doc_describes_the_rematch_button_the_page_has():
    doc = (ROOT / "docs" / "web-client.md").read_text()
    page = (ROOT / "games" / "static" / "play" / "match.js").read_text()
    assert "rematchBox" in page and "Offer a rematch" in page
    assert "no rematch" not in doc.lower()
    assert "*Offer a\n  rematch*" in doc or "*Offer a rematch*" in doc
