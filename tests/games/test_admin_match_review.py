"""The admin shows a match's review where the match is (issue 35): on the match's page each
person's accuracy and every mistake, linked to its move on its hand's page, which marks it
there; the review's own page says how long it took in seconds a person reads, and links
back. A person's seat says what its computer level means."""

import datetime
import html
import re

import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from bots.services import review_build
from games.log import eventlog
from games.models import Match, MatchReview, MatchStatus
from games.play import services
from games.play.services import SeatSpec

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


def reckless_match(alice) -> Match:
    """A finished match: alice orders up or calls alone whenever she may, whatever she
    holds (a mistake nearly every time), else takes her first legal action; the computer
    seats' turns are taken here, their first legal action each."""
    seats = [SeatSpec("me")] + [SeatSpec("computer", "medium")] * 3
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(user=alice, seats=seats, options={"target_score": 5})
    for _ in range(2000):
        match.refresh_from_db()
        if match.status == MatchStatus.FINISHED:
            return match
        state = eventlog.load(match).state
        legal = [a.to_dict() for a in state.legal_actions()]
        action = (
            next((a for a in legal if a.get("alone")), legal[0]) if state.turn == 0 else legal[0]
        )
        with TestCase.captureOnCommitCallbacks(execute=False):
            services.action_submit(
                match_id=match.pk,
                seat_index=state.turn,
                action=action,
                user=alice if state.turn == 0 else None,
            )
    raise AssertionError("the match did not end")


@pytest.fixture
def reviewed(alice, settings):
    """A finished match alice played recklessly, its review built (by the worker's own
    function, with fewer samples than production's: the same kind of review, sooner)."""
    settings.REVIEW_SAMPLES = 8
    match = reckless_match(alice)
    assert review_build(match_id=match.pk, force=True)
    review = MatchReview.objects.get(match=match)
    mistakes = [dict(m, hand=h["hand"]) for h in review.body["hands"] for m in h["mistakes"]]
    assert mistakes, "calling alone on every hand gives points up"
    return match, review, sorted(mistakes, key=lambda m: m["seq"])


def match_url(match: Match) -> str:
    return reverse("admin:games_match_change", args=(match.pk,))


def hand_url(match: Match, number: int) -> str:
    return reverse("admin:games_match_hand", args=(match.pk, number))


def element_with_id(page: str, ident: str) -> str:
    """The <li id=...> element's HTML, up to its end."""
    found = re.search(rf'<li[^>]* id="{ident}"[^>]*>(.*?)</li>', page, re.S)
    assert found, f"no element {ident}"
    return found.group(0)


def test_the_review_is_on_the_match_page_and_each_mistake_on_its_move(admin_client, reviewed):
    """The review was a separate page of raw JSON that nothing linked to. Now the match's
    page shows it, each mistake linked to its move on its hand's page, marked there; the
    review's page rounds its seconds ("Seconds: 0.2877418849999458") and links back."""
    match, review, mistakes = reviewed
    response = admin_client.get(match_url(match))
    assert response.status_code == 200
    page = response.content.decode()
    review_url = reverse("admin:games_matchreview_change", args=(match.pk,))
    assert f'href="{review_url}"' in page  # the review's own page, one click away
    assert f"worked out in {review.seconds:.2f} s" in page
    (person,) = review.body["players"]
    assert f"south (alice): {person['accuracy']}% accurate, {person['mistakes']} mistake" in page
    listed = re.findall(r'<li class="review-mistake"><a href="([^"]+)">hand (\d+), seq (\d+)', page)
    assert [(int(h), int(s)) for _, h, s in listed] == [(m["hand"], m["seq"]) for m in mistakes]
    for (link, _, _), m in zip(listed, mistakes, strict=True):
        assert html.unescape(link) == f"{hand_url(match, m['hand'])}#seq-{m['seq']}"
        assert html.escape(m["sentence"], quote=True) in page

    # Each hand's page: the mistake on its move (the link's target), and listed.
    for number in sorted({m["hand"] for m in mistakes}):
        page = admin_client.get(hand_url(match, number)).content.decode()
        here = [m for m in mistakes if m["hand"] == number]
        assert page.count('data-mistake="true"') == len(here)
        for m in here:
            move = element_with_id(page, f"seq-{m['seq']}")
            assert 'data-mistake="true"' in move
            assert f"mistake: {html.escape(m['sentence'], quote=True)}" in move
        listed = re.findall(r'<li class="review-mistake"><a href="#seq-(\d+)">', page)
        assert [int(s) for s in listed] == [m["seq"] for m in here]
    clean = sorted(set(range(1, match.hands_played + 1)) - {m["hand"] for m in mistakes})
    if clean:
        page = admin_client.get(hand_url(match, clean[0])).content.decode()
        assert 'id="review-clean"' in page and 'data-mistake="true"' not in page

    # The review's own page and the list: seconds as a person reads them, and the match.
    review.seconds = 0.2877418849999458  # as issue 35 saw it
    review.save(update_fields=["seconds"])
    for url in (review_url, reverse("admin:games_matchreview_changelist")):
        page = admin_client.get(url).content.decode()
        assert "0.29 s" in page and "0.2877" not in page
    assert f'href="{match_url(match)}"' in admin_client.get(review_url).content.decode()


def test_a_persons_seat_says_what_its_computer_level_is(admin_client, alice):
    """A person's seat showed "BOT LEVEL medium" unexplained: it is the computer playing
    for them since their turn timer ran out."""
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(
            user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "hard")] * 3, turn_seconds=30
        )
    page = admin_client.get(match_url(match)).content.decode()
    assert "none: the person plays" in page
    assert "Bot level" not in page and "bot level" not in page.lower()

    Match.objects.filter(pk=match.pk).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=1)
    )
    with TestCase.captureOnCommitCallbacks(execute=False):
        assert services.seat_time_out(match_id=match.pk)
    page = admin_client.get(match_url(match)).content.decode()
    assert "medium: plays for this person, away since their turn timer ran out" in page
    assert len(re.findall(r'field-computer_player">\s*<p>hard</p>', page)) == 3
