"""The admin's match list in Chromium at 1280 px (issue 12): no sideways scrolling, the
options column at most three lines, the dates whole. Debian's /usr/bin/chromium through
the playwright package, as tests/web does; the admin is served by pytest-django's
live_server. A screenshot is saved to test-artifacts/."""

from pathlib import Path

import pytest
from django.test import Client

from games.play import services
from games.play.services import SeatSpec
from tests.games.test_commands import play_to_the_end
from tests.web.support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, DESKTOP

# Every match in the list: three people with long names, every rules option set.
OPTIONS = [
    {},
    {"target_score": 15, "stick_the_dealer": False, "lone_lead": "canadian"},
    {"target_score": 1, "going_alone": False, "defending_alone": True, "lone_lead": "loner_left"},
]

MEASURE = r"""() => {
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].filter(r => r.width > 0)
      .map(r => Math.round(r.top))).size;
  };
  const cells = (name) => [...document.querySelectorAll(`td.field-${name}, th.field-${name}`)];
  const box = document.querySelector('#changelist .results').getBoundingClientRect();
  const clipped = (el) => el.scrollWidth > el.clientWidth + 1
    || el.getBoundingClientRect().right > Math.min(box.right, window.innerWidth) + 1;
  return {
    rows: document.querySelectorAll('#result_list tbody tr').length,
    pageWidth: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
    optionLines: cells('options_summary').map(lines),
    dateLines: [...cells('created'), ...cells('finished')].map(lines),
    clippedCells: [...document.querySelectorAll('#result_list td, #result_list th')]
      .filter(clipped).map(e => e.className),
    finishedDates: cells('finished').filter(e => /\d{4}-\d\d-\d\d/.test(e.textContent)).length,
    datesClipped: [...cells('created'), ...cells('finished')].filter(clipped).length,
    filters: [...document.querySelectorAll('#changelist-filter summary, #changelist-filter h3')]
      .map(e => e.textContent.trim().toLowerCase()),
  };
}"""


@pytest.fixture
def admin_cookies(django_user_model) -> dict:
    admin = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw")
    client = Client()
    client.force_login(admin)
    return {name: morsel.value for name, morsel in client.cookies.items()}


def _matches(django_user_model) -> None:
    names = ("alexandra_montgomery", "bartholomew_kingsley", "christopher_wellington")
    for name, options in zip(names, OPTIONS, strict=True):
        user = django_user_model.objects.create_user(name)
        seats = [SeatSpec("me"), SeatSpec("computer", "hard")]
        seats += [SeatSpec("computer", "medium"), SeatSpec("computer", "random")]
        services.match_create(user=user, seats=seats, options=options, turn_seconds=30)
    # and a finished one, with both dates
    play_to_the_end(django_user_model.objects.create_user("dorothea"), options={"target_score": 1})


def test_the_match_list_fits_a_1280_px_screen(live_server, admin_cookies, django_user_model):
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run bin/browser-up.")
    _matches(django_user_model)  # before the browser: the ORM is not used while it runs
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=DESKTOP)
            context.add_cookies(
                [
                    {"name": name, "value": value, "url": live_server.url}
                    for name, value in admin_cookies.items()
                ]
            )
            page = context.new_page()
            page.goto(f"{live_server.url}/admin/games/match/")
            page.wait_for_selector("#result_list")
            measured = page.evaluate(MEASURE)
            page.screenshot(path=str(ARTIFACTS / "admin-match-list-1280.png"), full_page=True)
        finally:
            browser.close()

    assert measured["rows"] == len(OPTIONS) + 1
    assert measured["pageWidth"] <= measured["viewport"], measured
    assert measured["optionLines"] and max(measured["optionLines"]) <= 3, measured
    assert measured["dateLines"] and max(measured["dateLines"]) <= 2, measured
    assert measured["finishedDates"] == 1, measured
    assert measured["datesClipped"] == 0, measured
    assert measured["clippedCells"] == [], measured  # every column on screen
    for title in ("player", "computer level", "rules option", "turn timer ran out"):
        assert any(title in f for f in measured["filters"]), measured["filters"]
