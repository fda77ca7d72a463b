"""End to end, in headless Chromium: quick play from the lobby, a rematch at the end of a
match, and watching a public match (the watch page, the table in spectator mode); at a
phone's size and a desktop's, with the keyboard, and axe-core on each new screen."""

import pytest

from tests.web.support import DESKTOP, PHONE, api_in_page, guest_page
from tests.web.test_table_e2e import axe_violations

pytestmark = pytest.mark.slow

# A quick play table waits 3 s for people here, not 20.
SERVER_ENV = {"QUICKPLAY_WAIT_SECONDS": "3"}
COMPUTERS = [{"kind": "computer", "level": "random"}] * 3


def no_axe_violations(page, where: str) -> None:
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        scroll = page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        )
        assert scroll <= size["width"], f"{where}: {scroll} px wide at {size['width']}"
        assert page.locator("h1").count() == 1, f"{where}: not one h1"
        violations = axe_violations(page)
        assert not violations, f"axe on {where} at {size}: {violations}"
    page.set_viewport_size(PHONE)


def open_match(page, match_id: str):
    page.evaluate("(id) => { location.hash = `#/match/${id}`; }", match_id)
    match = page.locator(f"#match[data-match-id='{match_id}']")
    match.wait_for()
    return match


def test_quick_play_from_the_lobby_two_guests_one_table_and_leaving_the_queue(
    server, browser, artifacts
):
    one, first, errors_one = guest_page(browser, f"{server}/play/", viewport=PHONE)
    two, second, errors_two = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        ids = []
        for page in (first, second):
            page.get_by_test_id("custom-link").click()  # quick play's options
            page.get_by_test_id("qp-computers").uncheck()  # people only: the table waits
            assert page.get_by_test_id("qp-level").is_disabled()
            page.get_by_test_id("qp-preset").select_option("short")
            page.get_by_test_id("quickplay").click()
            page.get_by_test_id("quickplay-wait").wait_for()
            ids.append(page.locator("#match").get_attribute("data-match-id"))
        assert ids[0] == ids[1]
        assert "four people" in first.get_by_test_id("quickplay-wait").inner_text()
        first.screenshot(path=str(artifacts / "quickplay-waiting-phone.png"))
        no_axe_violations(first, "a quick play table waiting")

        # The keyboard alone leaves the queue.
        leave = second.get_by_test_id("quickplay-leave")
        leave.focus()
        second.keyboard.press("Enter")
        second.get_by_test_id("lobby").wait_for()
        body = api_in_page(first, "GET", f"matches/{ids[0]}")
        assert [s["kind"] for s in body["seats"]] == ["human", "open", "open", "open"]
        errors_one.check()
        errors_two.check()
    finally:
        one.close()
        two.close()


def test_quick_play_with_computer_players_starts_after_the_wait(server, browser, artifacts):
    context, page, errors = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        # The front page's one click: quick play with people, computers for the seats
        # no one takes.
        page.get_by_test_id("play-people").click()
        page.locator("#match").wait_for()
        # The table is drawn first, then the first view: the waiting box comes with it.
        page.get_by_test_id("quickplay-wait").wait_for(state="visible", timeout=60_000)
        assert (
            "Computer players take the open seats"
            in page.get_by_test_id("quickplay-wait").inner_text()
        )
        # After the wait (3 s here) computer players sit down and the cards are dealt.
        page.wait_for_function(
            "() => document.querySelector('#match').dataset.status === 'active'", timeout=60_000
        )
        page.get_by_test_id("hand").locator("[data-testid=card]").first.wait_for()
        assert page.get_by_test_id("quickplay-wait").is_hidden()
        assert "anyone may watch" in page.get_by_test_id("watching").inner_text()
        errors.check()
    finally:
        context.close()


def test_a_rematch_offered_at_the_end_and_accepted_with_the_keyboard(server, browser, artifacts):
    one, alice, errors_a = guest_page(browser, f"{server}/play/", viewport=PHONE)
    two, bob, errors_b = guest_page(browser, f"{server}/play/", viewport=DESKTOP)
    try:
        seats = [{"kind": "me"}, {"kind": "open"}, *COMPUTERS[:2]]
        created = api_in_page(
            alice, "POST", "matches", {"seats": seats, "options": {"target_score": 1}}
        )
        match_id = created["id"]
        api_in_page(bob, "POST", f"matches/{match_id}/join", {})
        for _ in range(400):
            if api_in_page(alice, "GET", f"matches/{match_id}")["status"] == "finished":
                break
            for page in (alice, bob):
                body = api_in_page(page, "GET", f"matches/{match_id}")
                if body["status"] == "active" and body["view"]["legal_actions"]:
                    api_in_page(page, "POST", f"matches/{match_id}/actions",
                                body["view"]["legal_actions"][0])  # fmt: skip
        open_match(alice, match_id)
        open_match(bob, match_id)
        # A match to 1 point is over after one hand, and the banner says so in English.
        final = alice.get_by_test_id("final-score").inner_text()
        assert final.endswith("after 1 hand."), final
        alice.get_by_test_id("rematch-offer").click()
        alice.locator("[data-testid=rematch][data-rematch-status=pending]").wait_for()
        assert "waiting for West" in alice.get_by_test_id("rematch").inner_text()
        no_axe_violations(alice, "a rematch offered")

        # Bob's page asks again every few seconds while an offer waits: he sees it, and
        # accepts with the keyboard.
        accept = bob.get_by_test_id("rematch-accept")
        accept.wait_for(timeout=60_000)
        accept.focus()
        bob.keyboard.press("Enter")
        bob.get_by_test_id("rematch-link").wait_for()
        alice.get_by_test_id("rematch-link").wait_for(timeout=60_000)
        bob.screenshot(path=str(artifacts / "rematch-started-desktop.png"))
        alice.get_by_test_id("rematch-link").click()
        rematch = alice.locator("#match")
        alice.wait_for_function(
            "(old) => { const m = document.querySelector('#match');"
            " return m && m.dataset.matchId !== old && m.dataset.status === 'active'; }",
            arg=match_id,
        )
        new_id = rematch.get_attribute("data-match-id")
        body = api_in_page(alice, "GET", f"matches/{new_id}")
        assert body["rematch_of"] == match_id and body["you"] == 0
        assert api_in_page(bob, "GET", f"matches/{new_id}")["you"] == 1
        errors_a.check()
        errors_b.check()
    finally:
        one.close()
        two.close()


def test_watching_a_public_match_from_the_watch_page(server, browser, artifacts):
    one, player, errors_p = guest_page(browser, f"{server}/play/", viewport=DESKTOP)
    two, watcher, errors_w = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        created = api_in_page(
            player, "POST", "matches",
            {"seats": [{"kind": "me"}, *COMPUTERS], "visibility": "public"},
        )  # fmt: skip
        match_id = created["id"]
        open_match(player, match_id)

        watcher.get_by_test_id("watch-link").click()
        watcher.get_by_test_id("watch-screen").wait_for()
        # Every number of watchers the spectator's own page ever draws (it was 0 at
        # first, while the API already counted them, for up to 45 s).
        watcher.evaluate(
            """() => {
                window.__watching = [];
                const look = () => {
                    const w = document.querySelector('[data-testid=watching]');
                    if (w && !w.hidden && w.dataset.count !== undefined
                        && window.__watching.at(-1) !== w.dataset.count)
                        window.__watching.push(w.dataset.count);
                };
                new MutationObserver(look).observe(document.documentElement,
                    {subtree: true, childList: true, attributes: true, characterData: true});
            }"""
        )
        item = watcher.locator(f"[data-testid=public-item][data-match-id='{match_id}']")
        item.wait_for()
        no_axe_violations(watcher, "the watch page")
        item.locator("a").focus()
        watcher.keyboard.press("Enter")
        table = watcher.locator(f"#match[data-match-id='{match_id}']")
        table.wait_for()
        watcher.get_by_test_id("spectator-note").wait_for()
        assert table.get_attribute("data-seat") == "null"
        assert watcher.locator("[data-testid=card]").count() == 0
        assert watcher.locator("[data-testid=action]").count() == 0
        assert watcher.get_by_test_id("hint-button").is_hidden()
        assert watcher.get_by_test_id("leave-button").is_hidden()
        assert "You are watching" in watcher.get_by_test_id("watching").inner_text()
        assert "1 watching now" in watcher.get_by_test_id("watching").inner_text()
        # A spectator has no keys to press and no table of their own to pace: the settings
        # menu holds the deck's colours and the sound only (the player's has the pace and
        # the keys).
        assert watcher.get_by_test_id("shortcuts").count() == 0
        assert watcher.get_by_test_id("pace").count() == 0
        assert player.get_by_test_id("shortcuts").count() == 1
        assert player.get_by_test_id("pace").count() == 1
        watcher.get_by_test_id("settings-button").click()
        watcher.get_by_test_id("four-colour").wait_for()
        watcher.get_by_test_id("settings-button").click()
        watcher.screenshot(path=str(artifacts / "watching-phone.png"))
        no_axe_violations(watcher, "the table, watching")

        # The player sees one watching (their page looks again at each keep-alive).
        player.wait_for_function(
            "() => document.querySelector('[data-testid=watching]')?.dataset.count === '1'",
            timeout=60_000,
        )
        # The player moves; the spectator's table follows, still without anyone's cards.
        seq = table.get_attribute("data-seq")
        body = api_in_page(player, "GET", f"matches/{match_id}")
        api_in_page(player, "POST", f"matches/{match_id}/actions", body["view"]["legal_actions"][0])
        watcher.wait_for_function(
            "(seq) => document.querySelector('#match').dataset.seq !== seq", arg=seq
        )
        assert watcher.locator("[data-testid=card]").count() == 0
        drawn = watcher.evaluate("() => window.__watching")
        assert drawn and "0" not in drawn, f"the spectator's page said {drawn} watching"
        errors_p.check()
        errors_w.check()
    finally:
        one.close()
        two.close()
