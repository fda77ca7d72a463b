"""The admin's review of a disputed match (issue 12): the hand page marks the moves a
computer made for a person whose turn timer ran out, shows when each move was made and
how long the seat took, and lists the hints asked per seat; the match list filters by
player, computer level, rules option, a timer that ran out, and date."""

import datetime
import html
import time

import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from games.log import eventlog
from games.models import Hint, HintStatus, Match, MatchStatus
from games.play import hints, services
from games.play.services import SeatSpec

pytestmark = pytest.mark.django_db

COMPUTERS = [SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
PAUSE = 0.3  # alice thinks this long (at least) before her own moves


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


def hand_url(match: Match, number: int) -> str:
    return reverse("admin:games_match_hand", args=(match.pk, number))


def changelist() -> str:
    return reverse("admin:games_match_changelist")


def results(response) -> list:
    assert response.status_code == 200, response.content[:500]
    return list(response.context["cl"].result_list)


def state_of(match: Match):
    match.refresh_from_db()  # a state is folded up to the row's seq: read it fresh
    return eventlog.load(match).state


def hand_number(match: Match) -> int:
    return match.events.filter(type="hand_dealt").order_by("-seq").first().payload["hand"]


def ask_hint(match: Match, user) -> Hint:
    with TestCase.captureOnCommitCallbacks(execute=True):  # the hint is worked out here
        hint = hints.hint_request(match_id=match.pk, user=user)
    hint.refresh_from_db()
    assert hint.status == HintStatus.DONE, (hint.status, hint.code)
    return hint


def play_for_the_computers_until_alices_turn(match: Match, number: int) -> bool:
    """The computer seats act, outside a commit, as their queued turns would, until
    south is to act (True) or hand `number` is over (False)."""
    while True:
        state = state_of(match)
        if match.status != MatchStatus.ACTIVE or hand_number(match) != number:
            return False
        if state.turn == 0:
            return True
        action = state.legal_actions()[0].to_dict()
        services.action_submit(match_id=match.pk, seat_index=state.turn, action=action)


def alice_plays(match: Match, alice) -> None:
    time.sleep(PAUSE)
    action = state_of(match).legal_actions()[0].to_dict()
    services.action_submit(match_id=match.pk, seat_index=0, action=action, user=alice)


def disputed_match(alice, options: dict | None = None) -> tuple[Match, list[Hint]]:
    """Hand 1 of a match with a turn timer: alice asks a hint and bids herself; at her
    next turn her timer runs out and the computer plays for her (several moves, the
    computer seats between), she comes back, asks another hint and plays the rest of
    the hand herself. Returns the match, with hand 2 dealt, and the hints."""
    with TestCase.captureOnCommitCallbacks(execute=False):  # no timer thread, no queued turn
        match = services.match_create(
            user=alice, seats=COMPUTERS, turn_seconds=30, options=options or {}
        )
    asked = []
    assert play_for_the_computers_until_alices_turn(match, 1)
    asked.append(ask_hint(match, alice))
    alice_plays(match, alice)
    assert play_for_the_computers_until_alices_turn(match, 1)

    Match.objects.filter(pk=match.pk).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=1)
    )
    with TestCase.captureOnCommitCallbacks(execute=False):
        assert services.seat_time_out(match_id=match.pk)
    # The computer plays for south: three of south's turns, or to the end of the hand.
    for _ in range(3):
        services.action_submit(
            match_id=match.pk,
            seat_index=0,
            action=state_of(match).legal_actions()[0].to_dict(),
        )
        if not play_for_the_computers_until_alices_turn(match, 1):
            break
    else:
        with TestCase.captureOnCommitCallbacks(execute=False):
            services.seat_return(match_id=match.pk, user=alice)
        asked.append(ask_hint(match, alice))
        while True:
            alice_plays(match, alice)
            if not play_for_the_computers_until_alices_turn(match, 1):
                break
    match.refresh_from_db()
    assert hand_number(match) == 2  # hand 1 is over and revealed
    return match, asked


def test_the_hand_page_marks_the_moves_a_computer_made_for_a_person_whose_timer_ran_out(
    admin_client, alice
):
    match, asked = disputed_match(alice)
    assert len(asked) == 2  # one before the timer ran out, one after she came back
    first = match.hands.get(number=1)
    events = list(match.events.filter(seq__gte=first.first_seq, seq__lte=first.last_seq))
    events.sort(key=lambda e: e.seq)
    timed_out = next(e for e in events if e.type == "seat_timed_out")
    returned = next((e for e in events if e.type == "seat_returned"), None)
    end = returned.seq if returned else first.last_seq + 1
    souths = [e for e in events if e.type in ("bid", "discard", "card_played") and e.seat == 0]
    by_computer = {e.seq for e in souths if timed_out.seq < e.seq < end}
    by_alice = {e.seq for e in souths} - by_computer
    assert by_computer and by_alice  # both kinds of south's moves are in the hand

    response = admin_client.get(hand_url(match, 1))
    assert response.status_code == 200
    hand = response.context["hand"]
    page = response.content.decode()
    moves = hand["bidding"] + [p for t in hand["tricks"] for p in t["plays"]]
    marked = {m["seq"] for m in moves if m["by_computer"]}
    assert marked == by_computer  # every computer move for alice, and nothing else
    assert not marked & by_alice
    assert all(m["computer_level"] == "medium" for m in moves if m["by_computer"])
    assert hand["away_moves"] == len(by_computer)
    assert page.count('data-by="computer"') == len(by_computer)
    assert "computer: timer ran out" in page

    # When each move was made, and how long the seat took: since the event before it
    # that gave it the turn (not the seat changing hands).
    at = {e.seq: e for e in events}
    log = list(match.events.order_by("seq"))
    for move in moves:
        event = at[move["seq"]]
        assert move["at"] == event.created_at
        before = [
            e
            for e in log
            if e.seq < event.seq and e.type not in ("seat_timed_out", "seat_returned")
        ]
        assert move["took"] == pytest.approx(
            (event.created_at - before[-1].created_at).total_seconds()
        )
        assert event.created_at.strftime("%H:%M:%S") in page
    alices_own = [m for m in moves if m["seq"] in by_alice]
    assert all(m["took"] >= PAUSE for m in alices_own)
    assert f"took {alices_own[0]['took']:.1f} s" in page

    # The hints, per seat: south asked two, nobody else any.
    assert [s["name"] for s in hand["hints"]] == ["south"]
    listed = hand["hints"][0]["hints"]
    assert [h["seq"] for h in listed] == [h.seq for h in asked]
    assert all(h["status"] == "done" and h["action"] for h in listed)
    assert [h["explanation"] for h in listed] == [h.explanation for h in asked]
    assert 'id="hints-south"' in page and page.count('class="hint"') == len(asked)
    for hint in asked:
        assert html.escape(hint.explanation) in page


def test_a_hint_of_a_hand_not_yet_revealed_shows_no_recommendation(admin_client, alice):
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(user=alice, seats=COMPUTERS)
    assert play_for_the_computers_until_alices_turn(match, 1)
    hint = ask_hint(match, alice)
    response = admin_client.get(hand_url(match, 1))
    listed = response.context["hand"]["hints"]
    assert [(s["name"], [h["seq"] for h in s["hints"]]) for s in listed] == [("south", [hint.seq])]
    shown = listed[0]["hints"][0]
    assert shown["action"] == "" and shown["explanation"] == ""
    page = response.content.decode()
    assert 'id="hints-hidden"' in page and "hidden until revealed" in page
    assert html.escape(hint.explanation) not in page


def test_a_hand_without_hints_or_timeouts_says_so_and_marks_nothing(admin_client, alice):
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(user=alice, seats=COMPUTERS)
    assert play_for_the_computers_until_alices_turn(match, 1)
    alice_plays(match, alice)
    response = admin_client.get(hand_url(match, 1))
    hand = response.context["hand"]
    assert hand["hints"] == [] and 'id="no-hints"' in response.content.decode()
    assert hand["away_moves"] == 0
    assert not any(b["by_computer"] for b in hand["bidding"])


# ---------------------------------------------------------------- the match list


def test_the_match_list_filters_by_player_computer_level_timeout_and_rules_option(
    admin_client, alice, django_user_model
):
    bob = django_user_model.objects.create_user("bob")
    with TestCase.captureOnCommitCallbacks(execute=False):
        alices = services.match_create(
            user=alice, seats=COMPUTERS, options={"target_score": 5, "stick_the_dealer": False}
        )
        bobs = services.match_create(
            user=bob,
            seats=[SeatSpec("me")] + [SeatSpec("computer", "hard")] * 3,
            turn_seconds=30,
        )
    Match.objects.filter(pk=bobs.pk).update(
        turn_deadline=timezone.now() - datetime.timedelta(seconds=1)
    )
    with TestCase.captureOnCommitCallbacks(execute=False):
        assert services.seat_time_out(match_id=bobs.pk)

    assert results(admin_client.get(changelist(), {"player": "alice"})) == [alices]
    assert results(admin_client.get(changelist(), {"player": "bob"})) == [bobs]
    assert results(admin_client.get(changelist(), {"player": "carol"})) == []
    assert results(admin_client.get(changelist(), {"level": "random"})) == [alices]
    # bob's seat is played by a medium computer since his timer ran out
    assert results(admin_client.get(changelist(), {"level": "medium"})) == [bobs]
    assert results(admin_client.get(changelist(), {"level": "hard"})) == [bobs]
    assert results(admin_client.get(changelist(), {"timed_out": "yes"})) == [bobs]
    assert results(admin_client.get(changelist(), {"timed_out": "no"})) == [alices]
    assert results(admin_client.get(changelist(), {"option": "target_score=5"})) == [alices]
    assert results(admin_client.get(changelist(), {"option": "stick_the_dealer=false"})) == [alices]
    assert results(admin_client.get(changelist(), {"option": "stick_the_dealer=true"})) == [bobs]
    assert results(admin_client.get(changelist(), {"option": "target_score=oops"})) == []
    both = results(admin_client.get(changelist(), {"player": "bob", "level": "hard", "q": "bob"}))
    assert both == [bobs]

    page = admin_client.get(changelist()).content.decode()
    for offered in ("?player=alice", "?player=bob", "?level=hard", "?timed_out=yes"):
        assert offered in page
    assert "?option=target_score%3D5" in page or "?option=target_score=5" in page

    Match.objects.filter(pk=alices.pk).update(created_at=timezone.now() - datetime.timedelta(60))
    year = timezone.now().year
    assert results(admin_client.get(changelist(), {"created_at__year": year - 5})) == []
    week = {
        "created_at__gte": str(timezone.now() - datetime.timedelta(days=7)),
    }
    assert results(admin_client.get(changelist(), week)) == [bobs]


def test_a_match_with_three_computers_of_a_level_is_listed_once_under_its_filter(
    admin_client, alice
):
    """The filters look through the seats without joining them: one row per match."""
    with TestCase.captureOnCommitCallbacks(execute=False):
        match = services.match_create(
            user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "easy")] * 3
        )
    assert results(admin_client.get(changelist(), {"level": "easy"})) == [match]
    assert results(admin_client.get(changelist(), {"level": "easy", "player": "alice"})) == [match]
