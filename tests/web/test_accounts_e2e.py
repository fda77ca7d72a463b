"""Accounts in the page: create one, sign out (the token is revoked), sign back in."""

import secrets

import pytest

from tests.web.support import PageErrors

pytestmark = pytest.mark.slow


def test_an_account_made_in_the_page_signs_out_and_back_in(server, browser, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors = PageErrors(page)
    username, password = f"carol-{secrets.token_hex(3)}", "correct horse battery"
    try:
        page.goto(f"{server}/play/")
        page.get_by_test_id("username").fill(username)
        page.get_by_test_id("password").fill(password)
        page.get_by_test_id("register").click()
        page.get_by_test_id("who").filter(has_text=f"Signed in as {username}").wait_for()
        page.get_by_test_id("play-computers").click()
        page.wait_for_function("() => document.querySelector('#match')?.dataset.status")
        token = page.evaluate("() => localStorage.getItem('euchre.token')")

        page.get_by_test_id("sign-out").click()
        page.get_by_test_id("sign-in-screen").wait_for()
        assert page.evaluate("() => localStorage.getItem('euchre.token')") is None
        revoked = page.evaluate(
            """async (token) => (await fetch('/api/v1/matches',
                {headers: {Authorization: 'Token ' + token}})).status""",
            token,
        )
        assert revoked == 401  # signing out revoked the token on the server too

        page.get_by_test_id("username").fill(username)
        page.get_by_test_id("password").fill("not the password")
        page.get_by_test_id("sign-in").click()
        wrong = page.get_by_test_id("sign-in-error").filter(has_text="Wrong username or password")
        wrong.wait_for()

        page.get_by_test_id("password").fill(password)
        page.get_by_test_id("sign-in").click()
        page.get_by_test_id("who").filter(has_text=f"Signed in as {username}").wait_for()
        page.get_by_test_id("match-item").first.wait_for()
        assert page.get_by_test_id("match-item").count() == 1  # the match made before
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-accounts-failure.png"), full_page=True)
        raise
    finally:
        context.close()
