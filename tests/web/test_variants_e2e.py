"""End to end: the table variants through the web client (docs/web-client.md). A guest
chooses the joker, the farmer's hand and the no-ace-no-face-no-trump redeal in the new
match form, plays a match to 3 by clicking against three Medium computer players, and
the table draws the joker (a card face "JK") with no page error; the rules line names
the three variants. The last hand's summary explains a farmer's exchange: who, three
cards, and which ones only to the farmer. The variants' own screens (the dealer naming a
turned-up joker's suit, a farmer's hand) by keyboard, at a phone's size and a desktop's,
with axe-core. The farmer's hand's redeal form: offered by the form, and at the table
asking for a new deal."""

import pytest

from tests.web.support import (
    PHONE,
    SUIT_NAMES,
    api_in_page,
    guest_page,
    label_of,
    play_first_offered,
    table_snapshot,
    wait_for_my_move,
    wait_for_seq_change,
)
from tests.web.test_table_e2e import check_screen, open_match

pytestmark = pytest.mark.slow

# The tests of a variant's own screen make matches until one deals it (below).
SERVER_ENV = {"MAX_ACTIVE_MATCHES_PER_USER": "100000"}


def test_a_match_with_the_three_variants_chosen_in_the_form(server, browser, artifacts):
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        page.get_by_test_id("custom-link").click()  # the front page\'s Custom match
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
            # A page error (a throw mid-render leaves no buttons) is the failure, not a
            # click's wait for a button that never comes.
            errors.check()
            play_first_offered(page)
            seen["moves"] += 1
        assert match.get_attribute("data-status") == "finished"
        if not seen["joker"]:
            # A short match may never show us the joker (in the kitty, or played where we
            # did not look): a match that deals it to us shows it in the hand for sure.
            seats = [{"kind": "me"}] + [{"kind": "computer", "level": "medium"}] * 3
            chosen = {
                "target_score": 3,
                "joker": True,
                "joker_upcard": "dealer_names",
                "farmers_hand": True,
                "no_ace_no_face_no_trump": True,
            }
            dealt = match_dealing(page, seats, chosen, 60, card="JK")
            open_match(page, dealt)
            wait_for_my_move(page)
            page.locator("[data-testid=hand] [data-card=JK]").wait_for()
            seen["joker"] = "in a hand dealt to us"
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
        page.get_by_test_id("custom-link").click()  # the front page\'s Custom match
        page.get_by_test_id("new-match-form").wait_for()
        for seat in ("west", "north", "east"):
            page.get_by_test_id(f"seat-{seat}").select_option("computer:medium")
        page.get_by_test_id("opt-target-score").fill("15")
        page.get_by_test_id("opt-farmers_hand").check()
        page.get_by_test_id("create-match").click()
        page.get_by_test_id("match").wait_for()
        match_id = page.url.rsplit("/", 1)[-1]
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
            play_first_offered(page)
        assert "theirs" in explained, "the summary never explained another seat's exchange"
        page.screenshot(path=str(artifacts / "e2e-farm-summary.png"), full_page=True)
        errors.check()
        print(f"\n{explained}")
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-farm-summary-failure.png"), full_page=True)
        raise
    finally:
        context.close()


# ------------------------------------------------------------------ the variants' own screens

# A match is made until one deals the screen wanted (the deck is shuffled by the service):
# each costs a request or two, and the computer players' bids up to our turn.
FIND_MATCH = """async ([body, want, tries]) => {
    const headers = {
        Accept: 'application/json', 'Content-Type': 'application/json',
        Authorization: 'Token ' + localStorage.getItem('euchre.token'),
    };
    for (let i = 1; i <= tries; i++) {
        const made = await fetch('/api/v1/matches',
            {method: 'POST', headers, body: JSON.stringify(body)});
        if (made.status !== 201) return {error: made.status, body: await made.json()};
        const {id} = await made.json();
        for (let look = 0; look < 100; look++) {
            const view = (await (await fetch('/api/v1/matches/' + id, {headers})).json()).view;
            if (view.turn === view.seat) {
                const cards = view.hand ? view.hand.cards : [];
                if ((!want.phase || view.phase === want.phase)
                    && (!want.card || cards.includes(want.card))) return {id, tries: i};
                break;
            }
            await new Promise((r) => setTimeout(r, 20));
        }
    }
    return {error: 'none of ' + tries + ' matches dealt us ' + JSON.stringify(want)};
}"""


def match_dealing(
    page, seats: list, options: dict, tries: int, *, phase: str = "", card: str = ""
) -> str:
    """A new match, made again until it is our turn in `phase` or with `card` in hand."""
    want = {"phase": phase, "card": card}
    found = page.evaluate(FIND_MATCH, [{"seats": seats, "options": options}, want, tries])
    assert "id" in found, found
    print(f"\n{want}: the match made {found['tries']} tries")
    return found["id"]


def focus_at_the_table(page) -> dict:
    """Where the focus is: on the hand or the next control after a move, not <body>."""
    focus = page.evaluate(
        """() => { const a = document.activeElement;
                   return {tag: a.tagName,
                           inHand: Boolean(a.closest('[data-testid=hand]')),
                           inActions: Boolean(a.closest('[data-testid=actions]'))}; }"""
    )
    assert focus["inHand"] or focus["inActions"], f"the focus is elsewhere: {focus}"
    return focus


def test_the_dealer_names_the_jokers_suit_with_the_keyboard(server, browser, artifacts):
    """The joker turned up, the dealer to name its suit: the table shows the four suits as
    buttons with the focus on the first, fits a phone with trump and score in view, passes
    axe, and Enter names the suit. (The prompt of every phase was built for each turn,
    and the joker's suit read before it was named threw: no buttons, a page error.)"""
    context, page, errors = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        # We are east, the first dealer: the joker turned up is ours to name (1 in 25).
        # To 5: no hand ends the match (a lone hand's march is 4), so after our move the
        # focus is at the table, not on the match-over banner's link (to 3, a random
        # partner's march alone, played out within our answer, ended it).
        seats = [{"kind": "computer", "level": "random"}] * 3 + [{"kind": "me"}]
        options = {"target_score": 5, "joker": True, "joker_upcard": "dealer_names"}
        match_id = match_dealing(page, seats, options, 400, phase="name_suit")
        open_match(page, match_id)
        wait_for_my_move(page)
        snap = table_snapshot(page)
        assert snap["upcard"] == "JK", snap
        assert [a["type"] for a in snap["actions"]] == ["name_suit"] * 4, snap["actions"]
        assert "name its suit" in page.get_by_test_id("status").inner_text()
        assert "P pass" in page.get_by_test_id("shortcuts").inner_text()
        focus = focus_at_the_table(page)
        assert focus["inActions"], focus
        check_screen(page, artifacts, "name-suit")
        named = snap["actions"][0]["suit"]
        page.keyboard.press("Enter")
        wait_for_seq_change(page, snap["seq"])
        log = api_in_page(page, "GET", f"matches/{match_id}/events")["events"]
        bids = [e for e in log if e["type"] == "bid" and e["seat"] == 3]
        assert bids[0]["payload"]["action"] == {"type": "name_suit", "suit": named}, bids
        # The table says what the joker counts as while the hand lasts. A random partner
        # may go alone and the others play the hand out within our own answer (we sit
        # out): then the table is at the next hand, whose upcard is no joker.
        if page.get_by_test_id("hand-number").inner_text().startswith("1,"):
            page.get_by_test_id("joker-suit").filter(has_text=SUIT_NAMES[named]).wait_for()
        focus_at_the_table(page)
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-name-suit-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_a_farmers_hand_put_out_with_the_keyboard(server, browser, artifacts):
    """Our farmer's hand: the table offers the nines and tens to put out (and a button to
    keep the hand), fits a phone, passes axe; keys 1-5 put out three, the focus staying at
    the table after each; then round one's bidding, the exchange said in the hand's
    summary."""
    context, page, errors = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        seats = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3
        options = {"target_score": 3, "farmers_hand": True}
        match_id = match_dealing(page, seats, options, 100, phase="farm")
        open_match(page, match_id)
        wait_for_my_move(page)
        assert "farmer's hand" in page.get_by_test_id("status").inner_text()
        assert "1–5" in page.get_by_test_id("shortcuts").inner_text()
        assert page.locator("[data-testid=action][data-action=pass]").is_visible()
        focus_at_the_table(page)
        check_screen(page, artifacts, "farm")
        put_out = []
        for _ in range(3):
            snap = table_snapshot(page)
            assert snap["phase"] == "farm", snap
            index = [ok for _, ok in snap["cards"]].index(True)
            put_out.append(snap["cards"][index][0])
            page.keyboard.press(str(index + 1))
            wait_for_seq_change(page, snap["seq"])
            wait_for_my_move(page)
            focus_at_the_table(page)
        assert all(card[0] in "9T" for card in put_out), put_out
        snap = table_snapshot(page)
        assert snap["phase"] == "bid1", snap  # south, on the dealer's left, bids first
        assert not set(put_out) & {card for card, _ in snap["cards"]}
        summary = page.get_by_test_id("farmer").inner_text()
        assert summary.startswith("You exchanged") and "You put out" in summary, summary
        check_screen(page, artifacts, "farmed")
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-farm-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_the_form_offers_a_farmers_hand_that_asks_for_a_new_deal(server, browser, artifacts):
    """The new match form's farmer's hand has its two forms: exchanging (the usual, sent
    as nothing) or asking for a new deal (farmers_hand_form "redeal"); the match is made
    with it and the rules line says so. The form passes axe at both sizes."""
    context, page, errors = guest_page(browser, f"{server}/play/")
    try:
        page.get_by_test_id("custom-link").click()  # the front page\'s Custom match
        page.get_by_test_id("new-match-form").wait_for()
        form = page.get_by_test_id("opt-farmers-hand-form")
        offered = form.locator("option").evaluate_all("(os) => os.map((o) => o.value)")
        assert offered == ["exchange", "redeal"], offered
        assert page.get_by_label("With a farmer's hand, a player may").count() == 1
        check_screen(page, artifacts, "form-farmers-hand", table=False, shots=False)
        for seat in ("west", "north", "east"):
            page.get_by_test_id(f"seat-{seat}").select_option("computer:medium")
        page.get_by_test_id("opt-target-score").fill("3")
        page.get_by_test_id("opt-farmers_hand").check()
        form.select_option("redeal")
        page.get_by_test_id("create-match").click()
        page.get_by_test_id("match").wait_for()
        wait_for_my_move(page)
        rules = page.get_by_test_id("rules").inner_text()
        assert "farmer's hand (a new deal)" in rules, rules
        match_id = page.url.rsplit("/", 1)[-1]
        options = api_in_page(page, "GET", f"matches/{match_id}")["options"]
        assert options["farmers_hand"] and options["farmers_hand_form"] == "redeal", options
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-farm-form-failure.png"), full_page=True)
        raise
    finally:
        context.close()


def test_a_farmers_hand_asks_for_a_new_deal_at_the_table(server, browser, artifacts):
    """Our farmer's hand in the redeal form: the table says we may ask for a new deal or
    keep the hand, offers the two as buttons (no card to put out), fits a phone and a
    desktop, passes axe; the button throws the hand in, and the hand's summary says who
    asked and shows the hand that let it."""
    context, page, errors = guest_page(browser, f"{server}/play/", viewport=PHONE)
    try:
        seats = [{"kind": "me"}] + [{"kind": "computer", "level": "medium"}] * 3
        options = {"target_score": 3, "farmers_hand": True, "farmers_hand_form": "redeal"}
        match_id = match_dealing(page, seats, options, 200, phase="farm")
        open_match(page, match_id)
        wait_for_my_move(page)
        status = page.get_by_test_id("status").inner_text()
        assert "farmer's hand" in status and "ask for a new deal" in status, status
        snap = table_snapshot(page)
        assert [a["type"] for a in snap["actions"]] == ["pass", "redeal"], snap["actions"]
        assert not any(legal for _card, legal in snap["cards"]), snap["cards"]
        ask = page.locator("[data-testid=action][data-action=redeal]")
        assert ask.inner_text() == "Ask for a new deal (a farmer's hand)"
        keep = page.locator("[data-testid=action][data-action=pass]")
        assert keep.inner_text() == "Keep my hand (no new deal)"
        focus_at_the_table(page)
        check_screen(page, artifacts, "farm-redeal")
        # (a random player may have asked for a new deal in a hand before ours)
        number = api_in_page(page, "GET", f"matches/{match_id}")["view"]["hand_number"]
        ask.click()
        wait_for_seq_change(page, snap["seq"])
        log = api_in_page(page, "GET", f"matches/{match_id}/events")["events"]
        thrown = [
            e["payload"]
            for e in log
            if e["type"] == "hand_thrown_in" and e["payload"]["hand"] == number
        ]
        assert thrown[0]["reason"] == "farmers_hand" and thrown[0]["seat"] == 0, thrown
        # The summary is of the last hand: ours, unless the next was played out without
        # us (our partner alone: Medium rarely goes alone) before our turn came.
        wait_for_my_move(page)
        last = api_in_page(page, "GET", f"matches/{match_id}")["view"]["last_hand"]
        if last["hand"] == number:
            summary = page.get_by_test_id("last-hand").inner_text()
            assert "South asked for a new deal with a farmer's hand" in summary, summary
            assert "Nobody scores; the next player deals." in summary, summary
        errors.check()
    except Exception:
        page.screenshot(path=str(artifacts / "e2e-farm-redeal-failure.png"), full_page=True)
        raise
    finally:
        context.close()
