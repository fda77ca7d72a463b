"""The admin: match list, seats and hands, the read-only event log, and the page for a hand."""

import datetime
import html
import json

import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from games.log import eventlog
from games.log.deal_view import seat_cards
from games.models import Event, Hand, Match, MatchStatus
from games.play import services
from games.play.services import SeatSpec
from tests.games.test_commands import play_to_the_end

pytestmark = pytest.mark.django_db

SHORT = {"target_score": 2}


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


@pytest.fixture
def finished(alice) -> Match:
    return play_to_the_end(alice, seed=7, options=SHORT)


def url(name: str, *args) -> str:
    return reverse(f"admin:games_{name}", args=args)


def hand_url(match: Match, number: int) -> str:
    return url("match_hand", match.pk, number)


def events_of(match: Match, number: int) -> list[Event]:
    hand = Hand.objects.get(match=match, number=number)
    last = hand.last_seq
    return list(match.events.filter(seq__gte=hand.first_seq, seq__lte=last).order_by("seq"))


def results(response) -> list:
    assert response.status_code == 200, response.content[:500]
    return list(response.context["cl"].result_list)


# ---------------------------------------------------------------- the match list


def test_the_match_list_shows_status_players_options_score_hands_and_dates(admin_client, finished):
    response = admin_client.get(url("match_changelist"))
    assert results(response) == [finished]
    page = response.content.decode()
    assert str(finished.pk) in page
    assert "south: alice</span><br>" in page and "west: computer (random)" in page
    # The list shows the target and what differs from the defaults; all of it in the title.
    assert "to 2; usual rules" in page
    assert (
        'title="to 2; stick the dealer; going alone; lone lead: dealer left; no defending' in page
    )
    assert f"{finished.score_ns}-{finished.score_we}" in page
    assert "finished" in page


def test_the_match_list_searches_by_match_id_or_part_of_it_and_by_username(
    admin_client, alice, finished, django_user_model
):
    bob = django_user_model.objects.create_user("bob")
    with TestCase.captureOnCommitCallbacks(execute=False):
        bobs = services.match_create(user=bob, seats=[SeatSpec("me")] + [SeatSpec("open")] * 3)
    changelist = url("match_changelist")
    assert results(admin_client.get(changelist, {"q": str(finished.pk)})) == [finished]
    assert results(admin_client.get(changelist, {"q": str(bobs.pk)[:13]})) == [bobs]
    assert results(admin_client.get(changelist, {"q": "bob"})) == [bobs]
    assert results(admin_client.get(changelist, {"q": "alice"})) == [finished]
    assert results(admin_client.get(changelist, {"q": "nobody"})) == []


def test_the_match_list_filters_by_status_hints_and_created_date(admin_client, alice, finished):
    waiting = services.match_create(
        user=alice, seats=[SeatSpec("me")] + [SeatSpec("open")] * 3, hints_allowed=False
    )
    Match.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - datetime.timedelta(60))
    changelist = url("match_changelist")
    assert results(admin_client.get(changelist, {"status__exact": "finished"})) == [finished]
    assert results(admin_client.get(changelist, {"status__exact": "waiting"})) == [waiting]
    assert results(admin_client.get(changelist, {"hints_allowed__exact": "0"})) == [waiting]
    response = admin_client.get(changelist)
    cl = response.context["cl"]
    created = next(f for f in cl.filter_specs if getattr(f, "field_path", "") == "created_at")
    past_week = next(c for c in created.choices(cl) if c["display"] == "Past 7 days")
    assert results(admin_client.get(changelist + past_week["query_string"])) == [finished]


# ---------------------------------------------------------------- a match


def test_the_match_page_shows_seats_hands_with_links_to_their_pages_and_a_passing_log_check(
    admin_client, finished
):
    response = admin_client.get(url("match_change", finished.pk))
    assert response.status_code == 200
    page = response.content.decode()
    hands = list(finished.hands.order_by("number"))
    assert len(hands) == finished.hands_played >= 1
    for hand in hands:
        assert hand_url(finished, hand.number) in page
    assert f"OK: {finished.seq} events, {len(hands)} hands, final score" in page
    assert f"?match__id__exact={finished.pk}" in page
    assert 'name="_save"' not in page  # read-only
    assert url("match_delete", finished.pk) not in page


def test_matches_cannot_be_added_changed_or_deleted_in_the_admin(admin_client, finished):
    assert admin_client.get(url("match_add")).status_code == 403
    changed = admin_client.post(url("match_change", finished.pk), {"status": "waiting"})
    assert changed.status_code == 403
    assert admin_client.get(url("match_delete", finished.pk)).status_code == 403
    assert admin_client.post(url("match_delete", finished.pk), {"post": "yes"}).status_code == 403
    bulk = admin_client.post(
        url("match_changelist"), {"action": "delete_selected", "_selected_action": [finished.pk]}
    )
    assert bulk.status_code in (200, 302)
    finished.refresh_from_db()
    assert finished.status == MatchStatus.FINISHED


def test_the_rebuild_action_rewrites_corrupted_projections_from_the_log(admin_client, finished):
    scores = (finished.score_ns, finished.score_we)
    results_before = list(finished.hands.values_list("number", "result", "points"))
    Hand.objects.filter(match=finished).update(result="", points=0)
    Match.objects.filter(pk=finished.pk).update(score_ns=0, score_we=0)
    response = admin_client.post(
        url("match_changelist"),
        {"action": "rebuild_projections", "_selected_action": [finished.pk]},
        follow=True,
    )
    assert "Rebuilt the projections of 1 match." in response.content.decode()
    finished.refresh_from_db()
    assert (finished.score_ns, finished.score_we) == scores
    assert list(finished.hands.values_list("number", "result", "points")) == results_before


# ---------------------------------------------------------------- the page for a hand


def test_the_hand_page_shows_all_four_hands_the_kitty_the_bidding_every_trick_and_the_result(
    admin_client, finished
):
    events = events_of(finished, 1)
    dealt = events[0].payload
    response = admin_client.get(hand_url(finished, 1))
    assert response.status_code == 200
    hand = response.context["hand"]
    page = response.content.decode()

    assert hand["problem"] is None
    for seat in range(4):
        expected = seat_cards(dealt["deck"], dealt["dealer"], seat)
        assert [c["code"] for c in hand["seats"][seat]["cards"]] == expected
        assert len(expected) == 5
        assert f'id="seat-{seat}"' in page
    assert [c["code"] for c in hand["kitty"]] == dealt["deck"][20:]
    assert hand["upcard"]["code"] == dealt["upcard"]

    bids = [e for e in events if e.type in ("bid", "discard")]
    assert [b["seq"] for b in hand["bidding"]] == [e.seq for e in bids]
    assert page.count('class="bid"') == len(bids)

    won = [e for e in events if e.type == "trick_won"]
    plays = [e for e in events if e.type == "card_played"]
    assert len(won) == 5 and page.count('class="trick"') == 5
    assert [t["number"] for t in hand["tricks"]] == [1, 2, 3, 4, 5]
    assert [t["winner"] for t in hand["tricks"]] == [
        ("south", "west", "north", "east")[e.payload["seat"]] for e in won
    ]
    played = [(p["seat"], p["card"]["code"]) for t in hand["tricks"] for p in t["plays"]]
    assert played == [(e.seat, e.payload["action"]["card"]) for e in plays]
    for trick in hand["tricks"]:
        assert [p["seat_name"] for p in trick["plays"] if p["wins"]] == [trick["winner"]]

    scored = next(e for e in events if e.type == "hand_scored").payload
    assert hand["result"]["scores"] == scored["scores"]
    assert f"{scored['points']} point" in hand["result"]["text"]
    assert hand["commitment_ok"] and 'id="commitment-ok"' in page
    assert hand["revealed"]["same_as_dealt"]


def test_the_hand_page_links_to_its_neighbours_and_is_404_for_a_hand_never_dealt(
    admin_client, finished
):
    last = finished.hands_played
    response = admin_client.get(hand_url(finished, last))
    assert response.status_code == 200
    if last > 1:
        assert hand_url(finished, last - 1) in response.content.decode()
    assert admin_client.get(hand_url(finished, last + 1)).status_code == 404
    missing = "00000000-0000-0000-0000-000000000000"
    assert admin_client.get(f"/admin/games/match/{missing}/hand/1/").status_code == 404


def test_the_hand_page_of_a_hand_being_played_says_so(admin_client, alice):
    match = services.match_create(
        user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
    )
    response = admin_client.get(hand_url(match, 1))
    assert response.status_code == 200
    assert not response.context["hand"]["over"]
    assert "still being played" in response.content.decode()
    assert response.context["hand"]["tricks"] == []


def test_a_deck_that_does_not_match_its_commitment_is_flagged_on_the_hand_and_match_pages(
    admin_client, alice, finished
):
    """Events cannot be changed, so the tampered log is a copy appended to a new match."""
    copy = Match.objects.create(
        created_by=alice, options=finished.options, first_dealer=finished.first_dealer
    )
    rows = []
    for event in finished.events.order_by("seq"):
        payload = dict(event.payload)
        if event.type == "hand_dealt" and payload["hand"] == 1:
            deck = list(payload["deck"])
            deck[20], deck[21] = deck[21], deck[20]  # a different upcard
            payload["deck"] = deck
        rows.append(
            Event(match=copy, seq=event.seq, type=event.type, seat=event.seat, payload=payload)
        )
    Event.objects.bulk_create(rows)
    Match.objects.filter(pk=copy.pk).update(seq=finished.seq)

    hand_page = admin_client.get(hand_url(copy, 1))
    assert hand_page.status_code == 200
    assert not hand_page.context["hand"]["commitment_ok"]
    assert 'id="commitment-bad"' in hand_page.content.decode()

    match_page = admin_client.get(url("match_change", copy.pk)).content.decode()
    dealt = next(e for e in rows if e.type == "hand_dealt")
    assert f"FAILED: event {dealt.seq - 1} (seq {dealt.seq}, hand_dealt): commitment_mismatch" in (
        match_page
    )


def test_the_hand_list_links_each_hand_to_its_page(admin_client, finished):
    response = admin_client.get(url("hand_changelist"), {"q": str(finished.pk)})
    hands = results(response)
    assert len(hands) == finished.hands_played
    for hand in hands:
        assert hand_url(finished, hand.number) in response.content.decode()
    detail = admin_client.get(url("hand_change", hands[0].pk))
    assert detail.status_code == 200
    assert hand_url(finished, hands[0].number) in detail.content.decode()
    assert admin_client.post(url("hand_change", hands[0].pk), {"points": 9}).status_code == 403
    assert admin_client.get(url("hand_delete", hands[0].pk)).status_code == 403


def test_staff_without_the_view_permission_gets_403_for_the_hand_page(
    client, django_user_model, finished
):
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    client.force_login(staff)
    assert client.get(hand_url(finished, 1)).status_code == 403


# ---------------------------------------------------------------- the event log


def test_the_event_log_lists_a_matchs_events_in_seq_order(admin_client, finished):
    response = admin_client.get(url("event_changelist"), {"match__id__exact": str(finished.pk)})
    events = results(response)
    assert [e.seq for e in events] == list(range(1, finished.seq + 1))
    page = response.content.decode()
    assert "hand_dealt" in page and "card_played" in page
    detail = admin_client.get(url("event_change", events[0].pk))
    assert detail.status_code == 200
    assert "match_created" in detail.content.decode()
    assert 'name="_save"' not in detail.content.decode()


def test_the_event_admin_refuses_to_add_change_or_delete_an_event(admin_client, finished):
    event = finished.events.get(seq=1)
    before = list(finished.events.order_by("seq").values_list("seq", "type", "seat", "payload"))
    assert admin_client.get(url("event_add")).status_code == 403
    added = admin_client.post(url("event_add"), {"match": finished.pk, "seq": 999, "type": "x"})
    assert added.status_code == 403
    changed = admin_client.post(
        url("event_change", event.pk),
        {"match": finished.pk, "seq": 1, "type": "tampered", "payload": "{}"},
    )
    assert changed.status_code == 403
    assert admin_client.get(url("event_delete", event.pk)).status_code == 403
    assert admin_client.post(url("event_delete", event.pk), {"post": "yes"}).status_code == 403
    admin_client.post(
        url("event_changelist"), {"action": "delete_selected", "_selected_action": [event.pk]}
    )
    after = list(finished.events.order_by("seq").values_list("seq", "type", "seat", "payload"))
    assert after == before


def test_the_hand_page_of_a_hand_thrown_in_shows_eight_passes_and_no_trick(admin_client, alice):
    match = services.match_create(
        user=alice,
        seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3,
        options={"stick_the_dealer": False},
    )
    for _ in range(8):  # outside a commit the computer seats wait: the test passes for them
        match.refresh_from_db()  # a state is folded up to the row's seq, so read it fresh
        seat = eventlog.load(match).state.turn
        services.action_submit(match_id=match.pk, seat_index=seat, action={"type": "pass"})
    response = admin_client.get(hand_url(match, 1))
    hand = response.context["hand"]
    assert [b["text"] for b in hand["bidding"]] == ["passes"] * 8
    assert hand["tricks"] == [] and hand["over"]
    assert hand["result"]["text"].startswith("thrown in")
    assert hand["revealed"]["same_as_dealt"] and hand["commitment_ok"]
    assert hand_url(match, 2) in response.content.decode()


# ---------------------------------------------------------------- the fairness promise


def _running_match_in_its_second_hand(alice) -> Match:
    """Hand 1 thrown in (eight passes) and revealed; hand 2 dealt, its dealer has
    picked up and discarded: nothing of hand 2 is revealed yet."""
    match = services.match_create(
        user=alice,
        seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3,
        options={"stick_the_dealer": False},
    )

    def act(action: dict) -> None:
        match.refresh_from_db()
        seat = eventlog.load(match).state.turn
        services.action_submit(match_id=match.pk, seat_index=seat, action=action)

    for _ in range(8):
        act({"type": "pass"})
    act({"type": "order_up"})
    match.refresh_from_db()
    dealer = eventlog.load(match).state.turn  # the dealer discards now
    dealt = match.events.filter(type="hand_dealt").order_by("-seq").first().payload
    hand = seat_cards(dealt["deck"], dealt["dealer"], dealer)
    act({"type": "discard", "card": hand[0]})
    return match


def secrets_of(dealt: dict) -> list[str]:
    return [dealt["salt"], " ".join(dealt["deck"]), json.dumps(dealt["deck"])]


def test_the_admin_shows_no_card_of_a_hand_not_yet_revealed(admin_client, alice):
    match = _running_match_in_its_second_hand(alice)
    first, second = (e.payload for e in match.events.filter(type="hand_dealt").order_by("seq"))
    discard = match.events.get(type="discard").payload["action"]["card"]

    page = admin_client.get(hand_url(match, 2))
    hand = page.context["hand"]
    text = html.unescape(page.content.decode())
    for secret in secrets_of(second):
        assert secret not in text
    assert f'"card": "{discard}"' not in text
    assert not hand["cards_shown"] and 'id="cards-hidden"' in text
    assert all(seat["cards"] == [] for seat in hand["seats"])
    assert hand["kitty"] == [] and hand["deck"] == [] and hand["salt"] == ""
    assert hand["discard"] is None
    assert [b["text"] for b in hand["bidding"]][-1] == "discards a card"
    assert hand["commitment"] == second["commitment"]  # the commitment is public
    # Hand 1 was revealed: all of it is shown.
    shown = admin_client.get(hand_url(match, 1)).context["hand"]
    assert shown["cards_shown"] and [c["code"] for c in shown["deck"]] == first["deck"]

    # The event log: hand 2's deal and discard without the secrets; hand 1's whole.
    listing = admin_client.get(url("event_changelist"), {"match__id__exact": str(match.pk)})
    text = html.unescape(listing.content.decode())
    assert '"type": "discard"' in text
    assert second["salt"] not in text and f'"card": "{discard}"' not in text
    for event_type in ("hand_dealt", "discard"):
        event = match.events.filter(type=event_type).order_by("-seq").first()
        detail = html.unescape(admin_client.get(url("event_change", event.pk)).content.decode())
        for secret in secrets_of(second):
            assert secret not in detail, event_type
        assert f'"card": "{discard}"' not in detail


def test_once_the_hand_is_revealed_the_admin_shows_its_cards(admin_client, finished):
    for event in finished.events.filter(type__in=["hand_dealt", "discard"]):
        detail = html.unescape(admin_client.get(url("event_change", event.pk)).content.decode())
        if event.type == "hand_dealt":
            assert event.payload["salt"] in detail
        else:
            assert f'"card": "{event.payload["action"]["card"]}"' in detail


def test_an_abandoned_match_shows_its_status_and_its_last_hand_ends_abandoned(admin_client, alice):
    with TestCase.captureOnCommitCallbacks(execute=True):
        match = services.match_create(
            user=alice, seats=[SeatSpec("me")] + [SeatSpec("computer", "random")] * 3
        )
        services.match_leave(match_id=match.pk, user=alice)
    match.refresh_from_db()
    assert match.status == MatchStatus.ABANDONED
    listing = admin_client.get(url("match_changelist"), {"status__exact": "abandoned"})
    assert results(listing) == [match]
    page = admin_client.get(url("match_change", match.pk)).content.decode()
    assert "(the match was abandoned: no person was left at it)" in page
    response = admin_client.get(hand_url(match, 1))
    assert response.status_code == 200
    hand = response.context["hand"]
    assert hand["over"] and hand["result"]["text"] == "abandoned: no person was left at the table"
    assert "abandoned: no person was left at the table" in response.content.decode()


def test_the_hand_pages_of_a_match_with_the_table_variants(admin_client, alice):
    """Every hand of a match with the joker, the farmer's hand and the redeal on: the
    kitty of five, the joker shown as a card, a farmer's cards among the bidding once
    revealed, and the log check passing."""
    options = {
        "target_score": 3,
        "joker": True,
        "farmers_hand": True,
        "no_ace_no_face_no_trump": True,
    }
    match = play_to_the_end(alice, seed=11, options=options)
    farms = 0
    for hand in Hand.objects.filter(match=match).order_by("number"):
        response = admin_client.get(hand_url(match, hand.number))
        assert response.status_code == 200
        page = response.context["hand"]
        assert page["problem"] is None and page["commitment_ok"]
        assert len(page["kitty"]) == 5 and len(page["deck"]) == 25
        assert any(c["code"] == "JK" and c["text"] == "joker" for c in page["deck"])
        events = events_of(match, hand.number)
        farmed = [e for e in events if e.type == "farm_exchange"]
        farms += len(farmed)
        texts = [b["text"] for b in page["bidding"]]
        assert sum("under the upcard" in t for t in texts) == len(farmed)
    assert farms % 3 == 0
    response = admin_client.get(url("match_change", match.pk))
    assert response.status_code == 200


def test_a_hand_thrown_in_by_a_farmers_hand_asking_for_a_new_deal_says_so(admin_client, alice):
    """The redeal form of the farmer's hand: the bidding reads "asks for a new deal" (not
    no ace, no face, no trump, the redeal once trump is made) and the result names the
    seat and shows the hand that let it ask. Random play: some seat holds a farmer's hand
    in about three deals of five and asks half the time, so the first match almost always
    has one; another is played until one does (at most 30)."""
    options = {
        "target_score": 2,
        "farmers_hand": True,
        "farmers_hand_form": "redeal",
        "no_ace_no_face_no_trump": True,
    }
    for seed in range(30):
        match = play_to_the_end(alice, seed=seed, options=options)
        thrown = [  # the log as every reader reads it: rows, chunks or archive
            e
            for e in eventlog.events_of(match)
            if e.type == "hand_thrown_in" and e.payload.get("reason") == "farmers_hand"
        ]
        if thrown:
            break
    asked = thrown[0]
    number = asked.payload["hand"]
    page = admin_client.get(hand_url(match, number)).context["hand"]
    assert page["problem"] is None
    assert page["bidding"][-1]["text"] == "asks for a new deal (farmer's hand)"
    seat = ("south", "west", "north", "east")[asked.payload["seat"]]
    assert page["result"]["text"].startswith(
        f"thrown in: {seat} asked for a new deal with a farmer's hand ("
    )
    assert not any("no ace" in b["text"] for b in page["bidding"])
