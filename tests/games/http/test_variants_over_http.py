"""The table variants over HTTP: a match with all three on, played to the end by a
person and three computer players (one of each level), replayed, its deals verified,
and its log checked (games/log/log_check.py)."""

import pytest

from games.log import eventlog, fairness
from games.log import events as V
from games.log.deal_view import seat_cards
from games.log.log_check import check_events, check_log, export_match_log
from games.models import Event, Match
from tests.games.helpers import COMPUTERS, act, assert_error, create_match, play_to_the_end, view
from tests.games.play.test_visibility import cards_in
from tests.games.server_support import Player

ALL_THREE = {
    "target_score": 5,
    "joker": True,
    "farmers_hand": True,
    "no_ace_no_face_no_trump": True,
}
SEATS = [
    {"kind": "me"},
    {"kind": "computer", "level": "easy"},
    {"kind": "computer", "level": "medium"},
    {"kind": "computer", "level": "hard"},
]


@pytest.mark.django_db(transaction=True)
def test_a_match_with_all_three_variants_is_played_replayed_and_its_deals_verified(player):
    _user, client = player
    created = create_match(client, SEATS, options=ALL_THREE)
    assert created["options"]["joker"] is True and created["options"]["farmers_hand"] is True
    final = play_to_the_end(client, created["id"])
    match = Match.objects.get(pk=final["id"])
    assert max(final["scores"]) >= 5

    events = eventlog.events_of(match)  # rows, chunks or archive
    replayed = eventlog.fold(events)
    assert replayed.scores == final["scores"] and replayed.winner == final["winner_team"]
    assert replayed.options.joker and replayed.options.farmers_hand

    dealt = [e for e in events if e.type == V.HAND_DEALT]
    revealed = [e for e in events if e.type == V.HAND_REVEALED]
    assert len(dealt) == len(revealed) == match.hands_played
    for deal, reveal in zip(dealt, revealed, strict=True):
        assert len(reveal.payload["deck"]) == 25 and "JK" in reveal.payload["deck"]
        assert fairness.verify(
            reveal.payload["deck"], reveal.payload["salt"], deal.payload["commitment"]
        )

    replay = client.get(f"/api/v1/matches/{match.pk}/replay").json()
    assert len(replay["hands"]) == match.hands_played
    assert all(hand["commitment_verified"] for hand in replay["hands"])
    assert all(len(hand["kitty"]) == 5 for hand in replay["hands"])

    assert check_events(events).finished
    assert check_log(export_match_log(match)).hands == match.hands_played


@pytest.mark.django_db(transaction=True)
def test_a_farmers_cards_are_logged_face_down_for_the_others(player):
    """The person (south) plays its first legal action: with a farmer's hand that is
    keeping it (pass comes first), so the farmers here are the computer players; every
    farm_exchange event is shown to south without its card until the match is over."""
    _user, client = player
    created = create_match(client, options={"target_score": 3, "farmers_hand": True, "joker": True})
    final = play_to_the_end(client, created["id"])
    farms = [e for e in eventlog.events_of(final["id"]) if e.type == V.FARM]
    # After the match everything is shown; the redaction rule itself, for south:
    for event in farms:
        seen = V.redact(event, 0, finished=False)
        if event.seat != 0:
            assert seen == {"action": {"type": "farm"}}
        else:
            assert seen == event.payload


# ---------------------------------------------------------------- a joker upcard's dealer

JOKER_THROWN_IN_FAST = {"target_score": 1, "joker": True, "stick_the_dealer": False}


def pass_until_the_dealer_names(players: list[Player], match_id: str) -> dict:
    """Everyone passes (with stick the dealer off, eight passes throw the hand in and the
    next is dealt) until a deal turns the joker up; the match's view then. Each pass's
    answer is the passer's view of the match after it (the next deal's, once eight have
    passed), which says whose turn is next: one request a pass."""
    body = players[0].call("GET", f"matches/{match_id}")
    for _ in range(4000):  # (24/25)**500 hands: the joker is turned up long before
        if body["view"]["phase"] == "name_suit":
            return body
        turn = body["view"]["turn"]
        body = players[turn].call("POST", f"matches/{match_id}/actions", {"type": "pass"})
    raise AssertionError("the joker was never turned up")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_dealer_naming_a_joker_upcards_suit_sees_its_cards_only_with_the_naming(servers):
    """docs/rules.md: the dealer names the joker's suit before looking at their hand. The
    dealer's seat learns its five cards from the naming's bid, never from the deal: not
    in its view, its stream or its events; the other seats get theirs at the deal; the
    finished match replays and its deals verify."""
    server = servers()
    players = [Player(server) for _ in range(4)]
    body = {"seats": [{"kind": "me"}] + [{"kind": "open"}] * 3, "options": JOKER_THROWN_IN_FAST}
    match_id = players[0].call("POST", "matches", body, status=201)["id"]
    for seat, player in enumerate(players[1:], start=1):
        player.call("POST", f"matches/{match_id}/join", {"seat": seat})

    naming = pass_until_the_dealer_names(players, match_id)
    dealer = naming["view"]["dealer"]
    deal = Event.objects.filter(match_id=match_id, type=V.HAND_DEALT).order_by("-seq").first()
    assert deal.payload["upcard"] == "JK"
    dealt = seat_cards(deal.payload["deck"], dealer, dealer)

    seen = players[dealer].call("GET", f"matches/{match_id}")["view"]["hand"]
    assert seen["cards"] == [] and seen["cards_hidden"] is True
    stream = players[dealer].stream(match_id, last_event_id=deal.seq - 1)
    stream.wait_for_seq(deal.seq)
    streamed = stream.events[0]["payload"]
    assert streamed["cards"] == [] and streamed["cards_hidden"] is True
    events = players[dealer].call("GET", f"matches/{match_id}/events?after={deal.seq - 1}")
    assert cards_in(events["events"]) == {"JK"}  # the upcard, nothing of its own
    assert streamed["dealer_names_suit"] is True  # the mark the redaction reads
    for seat in set(range(4)) - {dealer}:  # the others see their own five at the deal
        theirs = players[seat].call("GET", f"matches/{match_id}/events?after={deal.seq - 1}")
        assert theirs["events"][0]["payload"]["cards"] == seat_cards(
            deal.payload["deck"], dealer, seat
        )

    players[dealer].call("POST", f"matches/{match_id}/actions", {"type": "name_suit", "suit": "H"})
    stream.wait_for_seq(deal.seq + 1)
    named = stream.events[1]
    assert named["type"] == "bid" and named["payload"]["cards"] == dealt
    assert players[dealer].call("GET", f"matches/{match_id}")["view"]["hand"]["cards"] == dealt
    for seat in set(range(4)) - {dealer}:
        theirs = players[seat].call("GET", f"matches/{match_id}/events?after={deal.seq}")
        assert theirs["events"][0]["payload"] == {"action": {"type": "name_suit", "suit": "H"}}
    stream.close()

    final = play_all_to_the_end(players, match_id)
    match = Match.objects.get(pk=final["id"])
    logged = eventlog.events_of(match)
    assert check_events(logged).finished  # the strict replay: deals, commitments, the cards
    assert eventlog.fold(logged).scores == final["scores"]
    replay = players[dealer].call("GET", f"matches/{match_id}/replay")
    assert all(hand["commitment_verified"] for hand in replay["hands"])
    joker_hand = next(h for h in replay["hands"] if h["hand"] == deal.payload["hand"])
    assert joker_hand["hands"][dealer] == dealt
    assert joker_hand["events"][1]["payload"]["cards"] == dealt  # once finished, all is shown


def play_all_to_the_end(players: list[Player], match_id: str) -> dict:
    """Each seat takes its last legal action (ordering up when it may) until the end."""
    for _ in range(3000):
        body = players[0].call("GET", f"matches/{match_id}")
        if body["status"] == "finished":
            return body
        turn = body["view"]["turn"]
        legal = players[turn].call("GET", f"matches/{match_id}")["view"]["legal_actions"]
        players[turn].call("POST", f"matches/{match_id}/actions", legal[-1])
    raise AssertionError("the match did not end")


# ---------------------------------------------------------------- a farmer's hand's redeal form

REDEAL_FORM = {"target_score": 3, "farmers_hand": True, "farmers_hand_form": "redeal"}
REDEAL_SEATS = [{"kind": "me"}] + [{"kind": "computer", "level": "medium"}] * 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "options, code",
    [
        ({"farmers_hand_form": "redeal"}, "invalid_option"),  # the form needs the option on
        ({"farmers_hand": False, "farmers_hand_form": "redeal"}, "invalid_option"),
        ({"farmers_hand": True, "farmers_hand_form": "swap"}, "invalid_input"),
        ({"farmers_hand": True, "farmers_hand_form": True}, "invalid_input"),
    ],
)
def test_a_farmers_hand_form_that_cannot_be_played_is_a_400(player, options, code):
    _user, client = player
    body = {"seats": COMPUTERS, "options": options}
    error = assert_error(client.post("/api/v1/matches", body, format="json"), 400, code)
    if code == "invalid_option":
        assert error["detail"] == "farmers_hand_form redeal needs farmers_hand true."
    else:  # refused for its shape: the field is named
        assert "farmers_hand_form" in error["errors"]["options"]
    assert Match.objects.count() == 0


@pytest.mark.django_db
def test_the_exchange_form_is_the_default_and_left_out_of_the_options(player):
    _user, client = player
    given = {"farmers_hand": True, "farmers_hand_form": "exchange"}
    created = create_match(client, options=given)
    assert created["options"]["farmers_hand"] is True
    assert "farmers_hand_form" not in created["options"]
    logged = Event.objects.get(match_id=created["id"], type=V.MATCH_CREATED)
    assert "farmers_hand_form" not in logged.payload["options"]  # as every older match's


def play_asking_for_new_deals(client, match_id: str) -> dict:
    """The person asks for a new deal whenever it may, else takes its first legal action;
    the computers (Medium) ask with a farmer's hand they would not bid with."""
    body = view(client, match_id)
    for _ in range(3000):
        if body["status"] == "finished":
            return body
        legal = body["view"]["legal_actions"]
        chosen = {"type": "redeal"} if {"type": "redeal"} in legal else legal[0]
        assert act(client, match_id, chosen).status_code == 200
        body = view(client, match_id)
    raise AssertionError("the match did not end")


@pytest.mark.django_db(transaction=True)
def test_a_farmers_hand_asks_for_a_new_deal_over_http_and_the_log_replays(player):
    """docs/rules.md, the redeal form: the seat asked sees pass and redeal; a new deal
    asked for is a public bid and a hand_thrown_in with reason farmers_hand, the seat and
    its cards; the deal moves left; the match replays, its deals verify and its log checks.
    Some seat holds a farmer's hand in about three deals of five: another match is played
    until one asked (at most 20)."""
    _user, client = player
    for _ in range(20):
        created = create_match(client, REDEAL_SEATS, options=REDEAL_FORM)
        assert created["options"]["farmers_hand_form"] == "redeal"
        final = play_asking_for_new_deals(client, created["id"])
        events = eventlog.events_of(final["id"])  # rows, chunks or archive
        asked = [e for e in events if e.type == V.HAND_THROWN_IN and e.payload.get("reason")]
        if asked:
            break
    thrown = asked[0]
    assert thrown.payload["reason"] == "farmers_hand"
    index = events.index(thrown)
    bid = events[index - 1]
    assert bid.type == V.BID and bid.seat == thrown.payload["seat"]
    assert bid.payload == {"action": {"type": "redeal"}}
    deal = next(e for e in reversed(events[:index]) if e.type == V.HAND_DEALT)
    dealt = seat_cards(deal.payload["deck"], deal.payload["dealer"], bid.seat)
    assert sorted(thrown.payload["cards"]) == sorted(dealt)  # its hand as dealt, shown
    assert sum(c[0] in "9T" for c in dealt if c != "JK") >= 3
    following = next(e for e in events[index:] if e.type == V.HAND_DEALT)
    assert following.payload["dealer"] == (deal.payload["dealer"] + 1) % 4
    assert not any(e.type == V.FARM for e in events)  # no one exchanges in this form
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # the whole log

    match = Match.objects.get(pk=final["id"])
    replayed = eventlog.fold(events)
    assert replayed.scores == final["scores"] and replayed.options.farm_redeal
    assert check_events(events).finished
    assert check_log(export_match_log(match)).hands == match.hands_played
    replay = client.get(f"/api/v1/matches/{match.pk}/replay").json()
    assert all(hand["commitment_verified"] for hand in replay["hands"])
