"""End to end: the turn timer in the web client. A guest who does not act in time is
played for by a computer player, the page says so, and "I'm back" takes the seat back.

In its own module, so its own server (tests/web/conftest.py): with the person away, four
computer players play on in-process at full speed, and whatever this match still has to
play after the test ends with the module's server rather than slowing other tests.
"""

import re
import time

import pytest

from tests.web.support import api_in_page, guest_page

# The form offers 15 s at the least (time to read the table and think); this test makes
# its match through the API with as much: the page must be open, the countdown read,
# before the time runs out, and on a busy machine opening the page took more than 5 s.
FORM_CHOICES = ["", "15", "30", "60", "120"]
TURN_SECONDS = 15

pytestmark = pytest.mark.slow


def test_a_player_whose_time_runs_out_is_played_for_and_comes_back(server, browser, artifacts):
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        page.get_by_test_id("custom-link").click()
        choices = page.get_by_test_id("opt-turn-seconds").locator("option")
        assert [choices.nth(i).get_attribute("value") for i in range(choices.count())] == (
            FORM_CHOICES
        )
        assert page.get_by_test_id("opt-turn-seconds").input_value() == "", "not off by default"

        # Hard computer players are the slowest: with us away, four computer players finish
        # a match to 15 in several seconds rather than one or two, time enough to come back.
        seats = [{"kind": "me"}] + [{"kind": "computer", "level": "hard"}] * 3
        created = api_in_page(
            page,
            "POST",
            "matches",
            {"seats": seats, "options": {"target_score": 15}, "turn_seconds": TURN_SECONDS},
        )
        assert created["turn_seconds"] == TURN_SECONDS and created["turn_deadline"], created
        match_id = created["id"]
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
                const notice = document.querySelector('[data-testid=away-notice]');
                return (c && !c.hidden && Number(c.dataset.seconds) < first)
                    || (notice && !notice.hidden);
            }""",
            arg=int(first.split()[0]),
        )

        # We do nothing: the deadline passes, a computer player takes over.
        notice = page.get_by_test_id("away-notice")
        started = time.monotonic()
        notice.wait_for(state="visible", timeout=TURN_SECONDS * 1000 + 60_000)
        waited = time.monotonic() - started
        assert "Your time ran out: a computer player is playing for you" in notice.inner_text()
        south = page.get_by_test_id("seat-south")
        assert south.get_attribute("data-away") == "true"
        assert "(away — computer playing)" in south.inner_text()
        assert match.get_attribute("data-away") == "true"
        assert countdown.is_hidden(), "a countdown while computer players play"
        page.screenshot(path=str(artifacts / "e2e-away.png"), full_page=True)

        page.get_by_test_id("return-button").click()
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
        errors.check()
        print(f"\naway notice {waited:.1f} s after the countdown ticked; {len(log)} events")
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-away-failure.png"), full_page=True)
        raise
    finally:
        context.close()
