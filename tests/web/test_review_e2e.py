"""End to end, in headless Chromium: the replay of a finished match shows its review (issue
14): each person's accuracy, and each mistake on the step where it happened, reached from
the hand's list of mistakes; the screen fits a phone and a desktop and passes axe."""

import time

from tests.web.support import PHONE, api_in_page, guest_page
from tests.web.test_table_e2e import check_screen

COMPUTERS = [{"kind": "me"}] + [{"kind": "computer", "level": "medium"}] * 3
# The review is worked out in a niced process of its own after the match: a few seconds on
# a quiet machine, much longer on a busy one. The wait ends as soon as it is on the page.
REVIEW_WAIT_MS = 300_000


def play_recklessly(page, match_id: str) -> dict:
    """The guest orders up (or calls) alone whenever it may bid, whatever it holds, and
    plays the first legal card: a lone call on an ordinary hand gives up points nearly
    every time, so the review has mistakes to show. The computer players answer
    in-process."""
    for _ in range(400):
        body = api_in_page(page, "GET", f"matches/{match_id}")
        if body["status"] == "finished":
            return body
        legal = body["view"]["legal_actions"]
        assert legal, "the guest is the only person at the table"
        alone = [a for a in legal if a.get("alone")]
        api_in_page(page, "POST", f"matches/{match_id}/actions", (alone or legal)[0])
    raise AssertionError("the match did not end")


def test_the_replay_shows_each_mistake_on_the_step_where_it_happened(server, browser, artifacts):
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        created = api_in_page(
            page, "POST", "matches", {"seats": COMPUTERS, "options": {"target_score": 5}}
        )
        match_id = created["id"]
        play_recklessly(page, match_id)
        ended = time.monotonic()

        page.goto(f"{server}/play/#/replay/{match_id}")
        page.get_by_test_id("replay").wait_for()
        # Worked out in the background after the match (a thread, in-process here): the
        # page polls while it is pending.
        accuracy = page.get_by_test_id("review-accuracy")
        accuracy.first.wait_for(timeout=REVIEW_WAIT_MS)
        print(f"\nthe review was on the page {time.monotonic() - ended:.1f} s after the end")
        assert accuracy.count() == 1  # one person; the computer seats are not reviewed
        assert "% accurate" in accuracy.inner_text()

        review = api_in_page(page, "GET", f"matches/{match_id}/review")
        assert review["status"] == "ready"
        with_mistakes = [i for i, h in enumerate(review["hands"]) if h["mistakes"]]
        assert with_mistakes, "a player who calls alone on every hand erred"
        hand = review["hands"][with_mistakes[0]]
        mistake = hand["mistakes"][0]
        replay = api_in_page(page, "GET", f"matches/{match_id}/replay")
        numbers = [h["hand"] for h in replay["hands"]]
        page.get_by_test_id("replay-hand").select_option(str(numbers.index(hand["hand"])))
        assert page.get_by_test_id("replay-mistake").is_hidden()  # the deal: no mistake yet
        page.get_by_test_id("review-goto").first.click()

        shown = page.get_by_test_id("replay-mistake")
        shown.wait_for()
        assert shown.get_attribute("data-seq") == str(mistake["seq"])
        assert mistake["sentence"] in shown.inner_text()
        assert "gave up about" in shown.inner_text()
        # The step shown is the logged action that was the mistake, by the seat that made it.
        step = page.get_by_test_id("replay-step")
        assert step.get_attribute("data-event") in ("bid", "discard", "card_played")
        erred = page.locator(".seat.erred")
        assert erred.count() == 1 and "South" in erred.inner_text()
        page.screenshot(path=str(artifacts / "e2e-review-mistake.png"), full_page=True)
        # The review beside the replay fits a phone and a desktop and passes axe.
        check_screen(page, artifacts, "replay-review", table=False)

        # One step on, the mistake's note is gone (unless the next step is one too).
        page.get_by_test_id("replay-next").click()
        seqs = {m["seq"] for m in hand["mistakes"]}
        assert int(step.get_attribute("data-step")) >= 1
        if shown.is_visible():
            assert int(shown.get_attribute("data-seq")) in seqs
        errors.check()
    finally:
        context.close()


def tab_to(page, selector: str, limit: int = 120) -> int:
    """Tab until the focus is on `selector` (the keyboard's way there); returns the Tabs."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return presses
    raise AssertionError(f"{limit} Tabs did not reach {selector}")


def test_the_keyboard_alone_follows_a_mistake_to_its_step_on_a_phone(server, browser, artifacts):
    """With no pointer, on a phone: Tab to Next hand, Enter to the first hand with a
    mistake, Tab to its first mistake in the review, Enter: the replay is on the step of
    that mistake, and the focus is on the mistake's note, in view (the review is below the
    table on a phone: the step changed out of sight, the focus left on the link)."""
    context, page, errors = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        created = api_in_page(
            page, "POST", "matches", {"seats": COMPUTERS, "options": {"target_score": 5}}
        )
        match_id = created["id"]
        play_recklessly(page, match_id)
        page.goto(f"{server}/play/#/replay/{match_id}")
        page.get_by_test_id("review-accuracy").first.wait_for(timeout=REVIEW_WAIT_MS)
        review = api_in_page(page, "GET", f"matches/{match_id}/review")
        with_mistakes = [i for i, h in enumerate(review["hands"]) if h["mistakes"]]
        assert with_mistakes, "a player who calls alone on every hand erred"
        hand = review["hands"][with_mistakes[0]]
        mistake = hand["mistakes"][0]
        numbers = [
            h["hand"] for h in api_in_page(page, "GET", f"matches/{match_id}/replay")["hands"]
        ]
        index = numbers.index(hand["hand"])
        page.evaluate(
            """() => { window.__pointer = 0;
                for (const type of ['pointerdown', 'mousedown', 'touchstart'])
                    document.addEventListener(type, () => { window.__pointer += 1; }, true); }"""
        )

        if index:
            tab_to(page, "[data-testid=replay-next-hand]")
            for _ in range(index):
                page.keyboard.press("Enter")
        assert page.get_by_test_id("replay-hand").input_value() == str(index)
        tabs = tab_to(page, "[data-testid=review-goto]")
        assert mistake["sentence"] in page.evaluate("() => document.activeElement.textContent")
        page.keyboard.press("Enter")

        shown = page.get_by_test_id("replay-mistake")
        shown.wait_for()
        assert shown.get_attribute("data-seq") == str(mistake["seq"])
        assert mistake["sentence"] in shown.inner_text()
        where = page.evaluate(
            """() => { const a = document.activeElement, r = a.getBoundingClientRect();
                       return {testid: a.dataset.testid || null,
                               inView: r.top >= 0 && r.bottom <= innerHeight}; }"""
        )
        assert where == {"testid": "replay-mistake", "inView": True}, where
        assert page.get_by_test_id("replay-step").get_attribute("data-event") in (
            "bid",
            "discard",
            "card_played",
        )
        # The arrow keys step on from there, as anywhere in the replay.
        step = int(page.get_by_test_id("replay-step").get_attribute("data-step"))
        page.keyboard.press("ArrowRight")
        assert int(page.get_by_test_id("replay-step").get_attribute("data-step")) == step + 1
        assert page.evaluate("() => window.__pointer") == 0
        page.screenshot(path=str(artifacts / "review-mistake-keyboard-phone.png"))
        print(f"\nthe first mistake of hand {hand['hand']}: {tabs} Tabs to reach it")
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "review-keyboard-failure.png"), full_page=True)
        raise
    finally:
        context.close()
