"""End to end: the table variants through the web client (docs/web-client.md). A guest
chooses the joker, the farmer's hand and the no-ace-no-face-no-trump redeal in the new
match form, plays a match to 3 by clicking against three Medium computer players, and
the table draws the joker (a card face "JK") with no page error; the rules line names
the three variants. The last hand's summary explains a farmer's exchange: who, three
cards, and which ones only to the farmer."""

import pytest

from tests.web.support import (
    api_in_page,
    guest_page,
    label_of,
    wait_for_my_move,
    wait_for_seq_change,
)

pytestmark = pytest.mark.slow


def test_a_match_with_the_three_variants_chosen_in_the_form(server, browser, artifacts):
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        page.get_by_test_id("new-match-form").wait_for()
        for seat in ("west", "north", "east"):
            page.get_by_test_id(f"seat-{seat}").select_option("computer:medium")
        page.get_by_test_id("opt-target-score").fill("3")
        page.get_by_test_id("opt-joker").check()
        page.get_by_test_id("opt-joker-upcard").select_option("dealer_names")
        page.get_by_test_id("opt-farmers_hand").check()
        page.get_by_test_id("opt-no_ace_no_face_no_trump").check()
        page.get_by_test_id("create-match").click()
        page.get_by_test_id("match").wait_for()
        wait_for_my_move(page)
        rules = page.get_by_test_id("rules").inner_text()
        assert "joker" in rules and "farmer's hand" in rules and "no ace" in rules, rules
        match_id = page.url.rsplit("/", 1)[-1]
        options = api_in_page(page, "GET", f"matches/{match_id}")["options"]
        assert options["joker"] and options["farmers_hand"] and options["no_ace_no_face_no_trump"]

        seen = {"joker": False, "farm_prompt": False, "moves": 0}
        match = page.locator("#match")
        for _ in range(600):
            wait_for_my_move(page)
            if match.get_attribute("data-status") == "finished":
                break
            if page.locator("[data-card=JK]").count():
                seen["joker"] = True
            if page.locator("[data-testid=action][data-action=farm]").count() or (
                page.locator("[data-testid=card][data-legal=true]").count()
                and "farmer" in page.locator("#match").inner_text()
            ):
                seen["farm_prompt"] = True
            seq = match.get_attribute("data-seq")
            legal = page.locator("[data-testid=card][data-legal=true]")
            if legal.count():
                legal.first.click()
            else:
                page.get_by_test_id("action").first.click()
            seen["moves"] += 1
            wait_for_seq_change(page, seq)
        assert match.get_attribute("data-status") == "finished"
        assert seen["joker"], "the joker was never drawn on the table or in our hand"
        page.screenshot(path=str(artifacts / "e2e-variants.png"), full_page=True)
        errors.check()
        print(f"\n{seen}")
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-variants-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_the_last_hands_summary_explains_a_farmers_exchange(server, browser, artifacts):
    """Against three Medium players (who always exchange a farmer's hand; we put out the
    first nine or ten offered), a farmer's hand comes in about two hands of three: play
    until the summary has explained another seat's exchange (and ours, if we farmed)."""
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        page.get_by_test_id("new-match-form").wait_for()
        for seat in ("west", "north", "east"):
            page.get_by_test_id(f"seat-{seat}").select_option("computer:medium")
        page.get_by_test_id("opt-target-score").fill("15")
        page.get_by_test_id("opt-farmers_hand").check()
        page.get_by_test_id("create-match").click()
        page.get_by_test_id("match").wait_for()
        match_id = page.url.rsplit("/", 1)[-1]
        match = page.locator("#match")
        explained: dict[str, str] = {}  # "ours" / "theirs": the summary's text
        checked = set()
        for _ in range(1500):
            wait_for_my_move(page)
            view = api_in_page(page, "GET", f"matches/{match_id}")["view"]
            last = view["last_hand"]
            if last is not None and last["farmer"] is not None and last["hand"] not in checked:
                checked.add(last["hand"])
                text = page.get_by_test_id("last-hand").inner_text()
                assert "exchanged three nines and tens, face down" in text, text
                if last["farmer"] == view["seat"]:  # ours: which cards went and came
                    gave = " ".join(label_of(c) for c in last["my_farm"]["gave"])
                    assert f"You put out {gave} and took" in text, text
                    explained["ours"] = text
                else:  # another seat's: never which cards (a hand's result names none)
                    assert "my_farm" not in last
                    assert not set("♣♦♥♠") & set(text) and "Joker" not in text, text
                    explained["theirs"] = text
                    break
            assert view["hand_number"] <= 15, f"no other seat's exchange in 14 hands: {view}"
            seq = match.get_attribute("data-seq")
            legal = page.locator("[data-testid=card][data-legal=true]")
            if legal.count():
                legal.first.click()
            else:
                page.get_by_test_id("action").first.click()
            wait_for_seq_change(page, seq)
        assert "theirs" in explained, "the summary never explained another seat's exchange"
        page.screenshot(path=str(artifacts / "e2e-farm-summary.png"), full_page=True)
        errors.check()
        print(f"\n{explained}")
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-farm-summary-failure.png"), full_page=True)
        raise
    finally:
        context.close()
