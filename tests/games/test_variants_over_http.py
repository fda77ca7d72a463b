"""The table variants over HTTP: a match with all three on, played to the end by a
person and three computer players (one of each level), replayed, its deals verified,
and its log checked (games/log_check.py)."""

import pytest

from games import eventlog, fairness
from games import events as V
from games.log_check import check_events, check_log, export_match_log
from games.models import Event, Match
from tests.games.helpers import create_match, play_to_the_end

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

    events = list(match.events.order_by("seq"))
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
    farms = Event.objects.filter(match_id=final["id"], type=V.FARM)
    # After the match everything is shown; the redaction rule itself, for south:
    for event in farms:
        seen = V.redact(event, 0, finished=False)
        if event.seat != 0:
            assert seen == {"action": {"type": "farm"}}
        else:
            assert seen == event.payload
