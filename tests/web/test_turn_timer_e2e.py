"""End to end: the turn timer in the web client. A guest who does not act in time is
played for by a computer player, the page says so, and "I'm back" takes the seat back.

In its own module, so its own server (tests/web/conftest.py): with the person away, four
computer players play on in-process at full speed, and whatever this match still has to
play after the test ends with the module's server rather than slowing other tests.

The server runs on a PostgreSQL database of the module's own rather than SQLite, so that
the test can hold locks from connections of its own and see in pg_stat_activity who waits
for them: what happens between the time out and "I'm back" is decided by the locks, not
by how fast this machine is (on a busy one the four computer players once finished the
whole match before the click landed). Two facts make it exact, not merely likely:
a waiter for a row that another transaction UPDATEs must find the row's new version and
may lose it to a newcomer, so no hand-over of the row here follows an update; and a
computer move's first read of the match reads its seats in the same statement (the row
lock comes after), where a person's return locks the row first and reads the seats next.

- The time out (services.seat_time_out) locks the match's row, marks south away, then
  waits at its write of the match for the test's SHARE lock of the match table.
- The test asks for the seats' table (ACCESS EXCLUSIVE) behind it and gets it at the
  time out's commit; the first computer move (south's, played for it) then waits for the
  seats before it asks for the row, and the test takes the row (FOR NO KEY UPDATE, as a
  writer of it) and lets the seats go: the move waits for the row, south away, no move made.
- "I'm back" (services.seat_return) waits for the row behind the move. The test asks for
  the seats again (behind the move's read of them), then lets the row go: the move commits
  (one bid, at 0-0: no match to 15 ends there), the test has the seats at that commit, so
  the next computer move (asked for by it) waits at its first read, and the return takes
  the row and waits at its read of the seats; the test lets them go and the return
  commits before any other move.
"""

import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

from games.models import Match, Seat
from tests.web.support import ServerFailed, api_in_page, guest_page, serve

# The form offers 15 s at the least (time to read the table and think); this test makes
# its match through the API with as much: the page must be open, the countdown read,
# before the time runs out, and on a busy machine opening the page took more than 5 s.
FORM_CHOICES = ["", "15", "30", "60", "120"]
TURN_SECONDS = 15
LOCK_WAIT_SECONDS = 180  # generous: what a busy machine may take to come to the lock

pytestmark = pytest.mark.slow


def _postgres() -> dict:
    """How to reach the PostgreSQL server the tests use (DATABASE_URL, as bin/test sets it)."""
    s = settings.DATABASES["default"]
    if s["ENGINE"] != "django.db.backends.postgresql":
        pytest.fail("the turn timer's browser test runs its server on PostgreSQL (DATABASE_URL)")
    return {
        "host": s["HOST"] or "127.0.0.1",
        "port": int(s["PORT"] or 5432),
        "user": s["USER"] or "postgres",
        "password": s["PASSWORD"] or None,
        "base": s["NAME"],
    }


@pytest.fixture(scope="module")
def server_database():
    """A database of this module's own on the tests' PostgreSQL server (the server
    migrates it); its URL. Dropped afterwards."""
    pg = _postgres()
    name = f"{pg['base']}_turn_timer_{uuid.uuid4().hex[:8]}"
    admin = {k: pg[k] for k in ("host", "port", "user", "password")}
    with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    auth = pg["user"] + (f":{pg['password']}" if pg["password"] else "")
    try:
        yield f"postgres://{auth}@{pg['host']}:{pg['port']}/{name}"
    finally:
        with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="module")
def server(tmp_path_factory, server_database):
    """The module's server (tests/web/conftest.py's), on `server_database`."""
    tmp = tmp_path_factory.mktemp("e2e-server")
    try:
        with serve(tmp, {"DATABASE_URL": server_database}) as base:
            yield base
    except ServerFailed as exc:
        pytest.fail(str(exc))


MATCHES, SEATS = (sql.Identifier(m._meta.db_table) for m in (Match, Seat))


class Holder:
    """A connection of the test's own, in a transaction: what it locks it holds until
    release()."""

    def __init__(self, url: str) -> None:
        self.conn = psycopg.connect(url)
        self.pid = self.conn.info.backend_pid

    def lock_row(self, match_id: str) -> None:
        query = sql.SQL("SELECT 1 FROM {} WHERE id = %s FOR NO KEY UPDATE").format(MATCHES)
        self.conn.execute(query, (uuid.UUID(match_id),))

    def lock_table(self, table: sql.Identifier, mode: str) -> None:
        self.conn.execute(sql.SQL("LOCK TABLE {} IN {} MODE").format(table, sql.SQL(mode)))

    def south(self, match_id: str) -> tuple[bool, int | None]:
        """South's `away` and the seat to act, as this transaction now reads them."""
        query = sql.SQL(
            "SELECT s.away, m.turn_seat FROM {} m JOIN {} s ON s.match_id = m.id"
            ' WHERE m.id = %s AND s."index" = 0'
        ).format(MATCHES, SEATS)
        away, turn = self.conn.execute(query, (uuid.UUID(match_id),)).fetchone()
        return away, turn

    def release(self) -> None:
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()  # releases its locks too, should the test have failed holding them


def blocked_by(watcher, pid: int) -> list[int]:
    """The sessions of the server's database waiting for a lock that `pid` holds (or asks
    for ahead of them)."""
    rows = watcher.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND %s = ANY(pg_blocking_pids(pid)) ORDER BY pid",
        (pid,),
    ).fetchall()
    return [row[0] for row in rows]


def wait_for_one_blocked_by(watcher, pid: int, what: str) -> int:
    """The one session that comes to wait behind `pid` (`what`); never two."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        waiting = blocked_by(watcher, pid)
        assert len(waiting) <= 1, f"more than {what} waits behind {pid}: {waiting}"
        if waiting:
            return waiting[0]
        assert time.monotonic() < deadline, f"{what} did not come to wait behind {pid}"
        time.sleep(0.05)


def wait_until_blocked_by(watcher, pid: int, waiter: int, what: str) -> None:
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while waiter not in blocked_by(watcher, pid):
        assert time.monotonic() < deadline, f"{what} ({waiter}) did not wait behind {pid}"
        time.sleep(0.05)


def test_a_player_whose_time_runs_out_is_played_for_and_comes_back(
    server, server_database, browser, artifacts
):
    context, page, errors = guest_page(browser, f"{server}/play/")
    # The match table's writers, the seats, the row; the seats again.
    writes, seats_gate, row, seats_again = (Holder(server_database) for _ in range(4))
    pool = ThreadPoolExecutor(2)
    watcher = psycopg.connect(server_database, autocommit=True)
    try:
        page.get_by_test_id("custom-link").click()
        choices = page.get_by_test_id("opt-turn-seconds").locator("option")
        # The form is drawn when the route changes, after the click: wait for its last
        # choice (count() does not wait, and on a busy machine it read 0 options).
        choices.nth(len(FORM_CHOICES) - 1).wait_for(state="attached")
        assert [choices.nth(i).get_attribute("value") for i in range(choices.count())] == (
            FORM_CHOICES
        )
        assert page.get_by_test_id("opt-turn-seconds").input_value() == "", "not off by default"

        # Three Hard computer players, as a person would pick them; how fast they play no
        # longer matters (the lock's line decides what comes before "I'm back").
        seats = [{"kind": "me"}] + [{"kind": "computer", "level": "hard"}] * 3
        created = api_in_page(
            page,
            "POST",
            "matches",
            {"seats": seats, "options": {"target_score": 15}, "turn_seconds": TURN_SECONDS},
        )
        assert created["turn_seconds"] == TURN_SECONDS and created["turn_deadline"], created
        match_id = created["id"]
        # Held from now on: the time out (15 s from now) will wait at its write of the match.
        writes.lock_table(MATCHES, "SHARE")
        assert writes.south(match_id) == (False, 0), "the time ran out before the lock"
        page.evaluate("(id) => { location.hash = `#/match/${id}`; }", match_id)
        match = page.locator("#match")
        match.wait_for()

        # Our turn (south bids first), with the countdown running on this browser's clock.
        countdown = page.get_by_test_id("turn-countdown")
        countdown.wait_for(state="visible")
        assert match.get_attribute("data-my-turn") == "true"
        first = countdown.inner_text()
        assert re.fullmatch(r"\d+ s left", first), first
        assert 1 <= int(first.split()[0]) <= TURN_SECONDS, first
        assert f"turn timer: {TURN_SECONDS} s" in page.get_by_test_id("rules").inner_text()
        status = page.get_by_test_id("status").inner_text()
        assert status.startswith("Your turn") and first in status, status
        # It counts down (or runs out, if it was at 1 s).
        page.wait_for_function(
            """(first) => {
                const c = document.querySelector('[data-testid=turn-countdown]');
                return c && !c.hidden && Number(c.dataset.seconds) < first;
            }""",
            arg=int(first.split()[0]),
        )

        # We do nothing: the deadline passes; the time out has marked south away and waits
        # at its write of the match; the test asks for the seats behind it.
        started = time.monotonic()
        time_out = wait_for_one_blocked_by(watcher, writes.pid, "the time out")
        gate = pool.submit(seats_gate.lock_table, SEATS, "ACCESS EXCLUSIVE")
        wait_until_blocked_by(watcher, time_out, seats_gate.pid, "the test's lock of the seats")
        writes.release()
        gate.result(timeout=LOCK_WAIT_SECONDS)  # at the time out's commit
        row.lock_row(match_id)  # no computer move can have it: each waits for the seats
        now = seats_gate.south(match_id)  # (the one that may read the seats now)
        assert now == (True, 0), f"away, and no computer moved yet: {now}"
        seats_gate.release()

        # A computer player takes over (none has moved yet): the page says so.
        notice = page.get_by_test_id("away-notice")
        notice.wait_for(state="visible", timeout=60_000)
        waited = time.monotonic() - started
        assert "Your time ran out: a computer player is playing for you" in notice.inner_text()
        south = page.get_by_test_id("seat-south")
        assert south.get_attribute("data-away") == "true"
        assert "(away — computer playing)" in south.inner_text()
        assert match.get_attribute("data-away") == "true"
        assert countdown.is_hidden(), "a countdown while computer players play"
        page.screenshot(path=str(artifacts / "e2e-away.png"), full_page=True)

        # The first computer move waits for the row, "I'm back" behind it; the test asks
        # for the seats behind the move's read of them, then lets the row go.
        move = wait_for_one_blocked_by(watcher, row.pid, "the first computer move")
        page.get_by_test_id("return-button").click()
        back = wait_for_one_blocked_by(watcher, move, "the return (I'm back)")
        gate = pool.submit(seats_again.lock_table, SEATS, "ACCESS EXCLUSIVE")
        wait_until_blocked_by(watcher, move, seats_again.pid, "the test's second lock of the seats")
        row.release()
        gate.result(timeout=LOCK_WAIT_SECONDS)  # at the move's commit
        # The return has the row (it waits at its read of the seats, its next statement);
        # the next computer move, asked for by the first one's commit, waits at its first.
        wait_until_blocked_by(watcher, seats_again.pid, back, "the return")
        seats_again.release()
        notice.wait_for(state="hidden")
        assert match.get_attribute("data-status") == "active", (
            "the computer players finished the match before we were back"
        )
        assert south.get_attribute("data-away") == "false"
        assert south.get_by_test_id("away-note").count() == 0
        assert match.get_attribute("data-away") == "false"
        assert page.get_by_test_id("reason").is_hidden(), page.get_by_test_id("reason").inner_text()
        # Back: either it is our turn again, with the whole time to act, or the computer
        # players are still to reach it.
        view = api_in_page(page, "GET", f"matches/{match_id}")
        assert view["seats"][0]["away"] is False, view["seats"][0]
        if view["view"]["turn"] == 0:
            assert view["turn_deadline"], view
            countdown.wait_for(state="visible")
        log = api_in_page(page, "GET", f"matches/{match_id}/events")["events"]
        timed_out = [e for e in log if e["type"] == "seat_timed_out"]
        returned = [e for e in log if e["type"] == "seat_returned"]
        assert timed_out and timed_out[0]["payload"]["seat"] == 0, timed_out
        assert timed_out[0]["payload"]["seconds"] == TURN_SECONDS, timed_out
        assert returned and returned[0]["payload"]["seat"] == 0, returned
        # Between them, the one move that waited ahead of the return: south's bid.
        between = [e for e in log if timed_out[0]["seq"] < e["seq"] < returned[0]["seq"]]
        assert [(e["type"], e["seat"]) for e in between] == [("bid", 0)], between
        errors.check()
        print(f"\naway notice {waited:.1f} s after the countdown ticked; {len(log)} events")
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-away-failure.png"), full_page=True)
        raise
    finally:
        for holder in (writes, seats_gate, row, seats_again):
            holder.close()  # in this order: each lets the one still waiting behind it go
        pool.shutdown()
        watcher.close()
        context.close()
