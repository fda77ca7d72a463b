"""Screenshots of every screen and phase of /play/ at a phone's size (390 x 844) and a
desktop's (1280 x 800), for docs/web-client.md: `bin/screenshots` (this module) starts the
service as the browser tests do, plays a match to 3 against computer players as a person
would (pass when it may, else the first bid; the first legal card) and writes
docs/screenshots/<screen>-<phone|desktop>.png, made smaller with pngquant when it is
installed. Not a test: it asserts nothing, it shows.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.web.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    ROOT,
    api_in_page,
    serve,
    table_snapshot,
    wait_for_my_move,
    wait_for_seq_change,
)
from tests.web.test_table_e2e import click_move, set_pace

OUT = ROOT / "docs" / "screenshots"
SIZES = {"phone": PHONE, "desktop": {"width": 1280, "height": 800}}
QUICK = '{"card": 10, "hold": 20, "move": 0}'
HOLD = '{"card": 10, "hold": 600000, "move": 0}'


def shoot(page, name: str, full_page: bool = False) -> None:
    """The screen as it is, at both sizes."""
    for size_name, size in SIZES.items():
        page.set_viewport_size(size)
        page.evaluate(
            "() => new Promise((r) => { window.scrollTo(0, 0);"
            " requestAnimationFrame(() => setTimeout(r, 80)); })"
        )
        path = OUT / f"{name}-{size_name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        print(path.relative_to(ROOT))
    page.set_viewport_size(PHONE)


def settle(page) -> None:
    page.evaluate("() => new Promise((r) => setTimeout(r, 150))")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, serve(Path(tmp)) as base:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=PHONE)
            context.set_default_timeout(60_000)
            context.add_init_script(f"localStorage.setItem('euchre.pace', {QUICK!r})")
            page = context.new_page()
            page.goto(f"{base}/play/")
            page.get_by_test_id("play-computers").wait_for()
            shoot(page, "front-page")
            page.get_by_test_id("guest").click()
            page.get_by_test_id("lobby").wait_for()
            page.evaluate("() => { location.hash = '#/new'; }")
            page.get_by_test_id("new-match-form").wait_for()
            shoot(page, "custom-match")
            # Matches to 3, no going alone (we play every hand), against easy players (then
            # random ones): a second or third only if round two or the discard never came.
            seen: set = set()
            for number in range(4):
                play_a_match(page, seen, first=number == 0)
                if {"bidding-round-two", "discard"} <= seen:
                    break
            page.get_by_test_id("match-over").wait_for()
            settle(page)
            shoot(page, "match-over")
            page.get_by_test_id("replay-link").click()
            page.get_by_test_id("replay-next").wait_for()
            for _ in range(8):
                page.get_by_test_id("replay-next").click()
            shoot(page, "replay")
            page.evaluate("() => { location.hash = '#/record'; }")
            page.get_by_test_id("my-stats").wait_for()
            settle(page)
            shoot(page, "record")
            # A spectator's table: a second guest watches a public match of the first.
            public = api_in_page(
                page,
                "POST",
                "matches",
                {
                    "seats": [{"kind": "me"}] + [{"kind": "computer", "level": "easy"}] * 3,
                    "visibility": "public",
                },
            )
            watcher_context = browser.new_context(viewport=PHONE)
            watcher_context.add_init_script(f"localStorage.setItem('euchre.pace', {QUICK!r})")
            watcher = watcher_context.new_page()
            watcher.goto(f"{base}/play/")
            watcher.get_by_test_id("guest").click()
            watcher.get_by_test_id("lobby").wait_for()
            watcher.evaluate("() => { location.hash = '#/watch'; }")
            watcher.locator(f"[data-match-id='{public['id']}']").wait_for()
            shoot(watcher, "watch")
            watcher.evaluate("(id) => { location.hash = '#/match/' + id; }", public["id"])
            watcher.get_by_test_id("spectator-note").wait_for()
            settle(watcher)
            shoot(watcher, "spectator")
            browser.close()
    quantize()


def play_a_match(page, seen: set, first: bool) -> None:
    """A match to 3 played as a person would; each phase shot the first time it comes
    (in the first match also the settings, the hint, a trick's end and the last trick)."""
    # Random players pass in round one about half the time: round two comes up.
    level = "easy" if first else "random"
    body = {
        "seats": [{"kind": "me"}] + [{"kind": "computer", "level": level}] * 3,
        "options": {"target_score": 3, "going_alone": False},
        "hints_allowed": True,
    }
    match_id = api_in_page(page, "POST", "matches", body)["id"]
    page.evaluate("(id) => { location.hash = '#/match/' + id; }", match_id)
    page.locator(f"#match[data-match-id='{match_id}']").wait_for()
    tricks_held = 0 if first else 1
    for _ in range(400):
        wait_for_my_move(page)
        snap = table_snapshot(page)
        if snap["status"] == "finished":
            break
        phase = snap["phase"]
        name = {"bid1": "bidding", "bid2": "bidding-round-two"}.get(phase, phase)
        if phase == "play" and snap["led"] and "play" in seen and "play-trick" not in seen:
            name = "play-trick"  # cards on the table on our turn
        if name not in seen:
            seen.add(name)
            settle(page)
            shoot(page, name)
            if name == "bidding":
                page.get_by_test_id("settings-button").click()
                shoot(page, "settings")
                page.get_by_test_id("four-colour").check()
                page.get_by_test_id("settings-button").click()
                shoot(page, "four-colour-deck")
                page.get_by_test_id("settings-button").click()
                page.get_by_test_id("four-colour").uncheck()
                page.get_by_test_id("settings-button").click()
            if name == "play-trick":
                page.get_by_test_id("hint-button").click()
                page.get_by_test_id("hint-explanation").wait_for()
                shoot(page, "hint")
        if phase == "play" and tricks_held == 0 and "play-trick" in seen:
            # A trick's end, held for the look, then the last trick's panel.
            set_pace(page, HOLD)
            click_move(page, snap)
            page.locator("[data-testid=trick][data-complete=true]").wait_for()
            shoot(page, "trick-end")
            set_pace(page, QUICK)
            page.get_by_test_id("table").click()
            wait_for_seq_change(page, snap["seq"])
            wait_for_my_move(page)
            page.get_by_test_id("last-trick-button").click()
            shoot(page, "last-trick")
            page.get_by_test_id("last-trick-button").click()
            tricks_held = 1
            continue
        click_move(page, snap)
        wait_for_seq_change(page, snap["seq"])
    page.get_by_test_id("match-over").wait_for()


def quantize() -> None:
    """Smaller PNGs (256 colours) with pngquant, when it is installed."""
    tool = shutil.which("pngquant")
    if not tool:
        print("pngquant is not installed (apt-get install pngquant): the PNGs stay as taken")
        return
    for path in sorted(OUT.glob("*.png")):
        subprocess.run(
            [tool, "--force", "--skip-if-larger", "--ext", ".png", "--quality", "60-90", str(path)],
            check=False,
        )
    total = sum(p.stat().st_size for p in OUT.glob("*.png"))
    print(f"{len(list(OUT.glob('*.png')))} screenshots, {total // 1024} KiB in all")


if __name__ == "__main__":
    sys.exit(main())
