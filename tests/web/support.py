"""Helpers of the browser tests: the browser, a guest's page, waiting on the table, the API
from inside the page, and the cards (the left bower) as the page shows them."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


class ServerFailed(Exception):
    """The service did not start."""


@contextmanager
def serve(tmp: Path, extra_env: dict | None = None) -> Iterator[str]:
    """The service as `bin/serve` runs it (SQLite in `tmp`, tasks in-process, turn timer
    threads on) under uvicorn on a free port; yields its base URL and stops it after.
    `extra_env` adds to or overrides its environment."""
    from benchmarks._server import spare_port
    from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL

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
        **(extra_env or {}),
    }
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput"],
        cwd=tmp,
        env=env,
        check=True,
        capture_output=True,
        timeout=180,
    )
    port = spare_port()
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
                log_text = log_path.read_text()
                raise ServerFailed(f"the server exited with {proc.returncode}:\n{log_text}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                log_text = log_path.read_text()
                raise ServerFailed(f"the server did not answer /healthz in 180 s:\n{log_text}")
            time.sleep(0.2)
        yield base
    finally:
        stop(proc)


class PageErrors:
    """JavaScript errors on a page fail the test."""

    def __init__(self, page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def check(self) -> None:
        assert not self.errors, f"JavaScript errors on the page: {self.errors}"


# The table's pace (games/static/play/pace.js) for tests that do not watch it: cards
# still go through the paced path, only quickly. The person-pace test uses the default.
QUICK_PACE = '{"card": 10, "hold": 20, "move": 0}'
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def guest_page(
    browser, url: str, pace: str | None = QUICK_PACE, viewport: dict | None = None, **options
):
    """A fresh browser context (its own localStorage) signed in as a new guest at `url`.
    `pace` is put in localStorage before the page's scripts run (None: the default pace);
    `options` go to the context (e.g. reduced_motion="reduce")."""
    context = browser.new_context(viewport=viewport or DESKTOP, **options)
    context.set_default_timeout(30_000)
    if pace is None:
        context.add_init_script("localStorage.removeItem('euchre.pace')")
    else:
        context.add_init_script(f"localStorage.setItem('euchre.pace', {pace!r})")
    page = context.new_page()
    errors = PageErrors(page)
    page.goto(url)
    page.get_by_test_id("guest").click()
    page.get_by_test_id("who").filter(has_text="Signed in as guest-").wait_for()
    return context, page, errors


def api_in_page(page, method: str, path: str, body: Any = None) -> Any:
    """A call to /api/v1/<path> from the page, with the token it keeps (as the page's own
    code makes them); returns the JSON body, fails on an error status."""
    result = page.evaluate(
        """async ([method, path, body]) => {
            const init = {method, headers: {
                Accept: 'application/json',
                Authorization: 'Token ' + localStorage.getItem('euchre.token'),
            }};
            if (body !== null) {
                init.headers['Content-Type'] = 'application/json';
                init.body = JSON.stringify(body);
            }
            const response = await fetch('/api/v1/' + path, init);
            return {status: response.status, body: await response.json()};
        }""",
        [method, path, body],
    )
    assert 200 <= result["status"] < 300, f"{method} {path}: {result}"
    return result["body"]


def wait_for_my_move(page) -> None:
    page.wait_for_function(
        """() => {
            const m = document.querySelector('#match');
            return m && m.dataset.seq && m.dataset.busy === 'false'
                && (m.dataset.status === 'finished' || m.dataset.myTurn === 'true');
        }"""
    )


def wait_for_seq_change(page, seq: str) -> None:
    page.wait_for_function(
        "(seq) => { const m = document.querySelector('#match');"
        " return m && m.dataset.seq !== seq && m.dataset.busy === 'false'; }",
        arg=seq,
    )


def play_first_offered(page) -> None:
    """Our move, as a hurried person makes it: the first legal card, or else the first
    action button; then wait until the table has moved on."""
    seq = page.locator("#match").get_attribute("data-seq")
    legal = page.locator("[data-testid=card][data-legal=true]")
    if legal.count():
        legal.first.click()
    else:
        page.get_by_test_id("action").first.click()
    wait_for_seq_change(page, seq)


def table_snapshot(page) -> dict:
    """What the table shows, in one round trip: the phase, trump, the card led, the upcard,
    our cards (and which are legal), the bidding buttons, the countdown."""
    return page.evaluate(
        """() => {
            const q = (s) => document.querySelector(s);
            const m = q('#match');
            const trump = q('[data-testid=trump]');
            const led = q('[data-testid=trick] [data-testid=played-card]');
            const upcard = q('.upcard [data-card]');
            const countdown = q('[data-testid=turn-countdown]');
            return {
                status: m.dataset.status,
                phase: m.dataset.phase,
                seq: m.dataset.seq,
                dealer: m.dataset.dealer === m.dataset.seat,
                trump: (trump && trump.dataset.trump) || null,
                led: led ? led.dataset.card : null,
                upcard: upcard ? upcard.dataset.card : null,
                cards: [...document.querySelectorAll('[data-testid=card]')]
                    .map((b) => [b.dataset.card, b.dataset.legal === 'true']),
                actions: [...document.querySelectorAll('[data-testid=action]')]
                    .map((b) => ({type: b.dataset.action, suit: b.dataset.suit || null,
                                  alone: b.dataset.alone === 'true'})),
                countdown: countdown && !countdown.hidden ? countdown.textContent : null,
            };
        }"""
    )


# ------------------------------------------------------------------ cards ("JH": jack of hearts)

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
RANKS = "9TJQKA"


def left_bower(trump: str) -> str:
    """The jack of the other suit of trump's colour: a trump for the hand."""
    return "J" + SAME_COLOUR[trump]


def effective_suit(card: str, trump: str | None) -> str:
    return trump if trump and card == left_bower(trump) else card[1]


def left_bower_tap(cards: list[tuple[str, bool]], trump: str, led: str) -> str | None:
    """A dimmed card whose reason the left bower is part of, if we hold one: with trump led
    and the left bower in hand, any dimmed card (the left bower is a trump we must play);
    with the left bower's printed suit led, the left bower itself when it is dimmed (it
    is no card of that suit, and we hold one that is)."""
    left = left_bower(trump)
    held = {card for card, _ in cards}
    dimmed = [card for card, legal in cards if not legal]
    if left not in held or not dimmed:
        return None
    suit_led = effective_suit(led, trump)
    if suit_led == trump:
        return dimmed[0]
    if suit_led == left[1] and left in dimmed:
        return left
    return None


def keep_value(card: str, trump: str | None) -> tuple[int, int]:
    """How much we want to keep a card, to meet the left bower's case: the left bower most,
    then cards of its printed suit, then other trumps, then plain cards; low ones first."""
    value = 0
    if trump:
        left = left_bower(trump)
        if card == left:
            value = 3
        elif card[1] == left[1]:
            value = 2
        elif card[1] == trump:
            value = 1
    return value, RANKS.index(card[0])


def label_of(card: str) -> str:
    """The card as the page writes it (cards.js cardLabel): "10♠", "A♥"."""
    ranks = {"T": "10"}
    suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    return ranks.get(card[0], card[0]) + suits[card[1]]


def card_name(card: str) -> str:
    ranks = {"9": "9", "T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
    return f"{ranks[card[0]]} of {SUIT_NAMES[card[1]]}"
