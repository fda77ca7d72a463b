"""A variant match's review through the service (issue 33): 8 of 14 joker matches ended
review_failed, every one whose dealer named a joker upcard's suit and most with a farmer's
exchange (RuleError inconsistent_sample from the rebuild of a seat's view).

Four people play through the games services a match with the joker (the dealer names
its suit) and the farmer's hand: every seat asked exchanges, and everyone passes (stick
the dealer off: the hand is thrown in) until the joker has been turned up (its dealer
names a suit) and a farmer has exchanged; then the first seat orders it up, and the hand
ends the match (target 1). The review task then runs as the review worker runs it,
eagerly: the review is ready, with the naming and the exchanges among the decisions it valued."""

import pytest
from django.contrib.auth import get_user_model

from bots import tasks
from games.models import Match, MatchReview, ReviewStatus
from games.people import quickplay
from games.play import selectors, services
from games.play.services import SeatSpec
from tests.conftest import make_player

pytestmark = pytest.mark.django_db(transaction=True)

OPTIONS = {"target_score": 1, "joker": True, "farmers_hand": True, "stick_the_dealer": False}


@pytest.fixture(autouse=True)
def _small_review_budget(settings):
    settings.REVIEW_SAMPLES = 2


def choose(phase: str, legal: list[dict], done: bool) -> dict:
    """Exchange a farmer's hand, pass every bid until `done` (a joker upcard's suit was
    named and a farmer exchanged), then order it up (or call) and play the first card."""
    wanted = {
        "farm": "farm",
        "name_suit": "name_suit",
        "bid1": "order_up" if done else "pass",
        "bid2": "call" if done else "pass",
    }.get(phase)
    return next((a for a in legal if a["type"] == wanted and not a.get("alone")), legal[0])


def test_a_match_whose_dealer_named_the_joker_and_whose_farmers_exchanged_is_reviewed():
    users = [get_user_model().objects.create_user(name) for name in ("ann", "bob", "cy", "di")]
    seats = [SeatSpec("me")] + [SeatSpec("open")] * 3
    match_id = services.match_create(user=users[0], seats=seats, options=OPTIONS).pk
    for seat in (1, 2, 3):
        quickplay.match_join(match_id=match_id, user=users[seat], seat_index=seat)
    body = selectors.player_view_get(match=Match.objects.get(pk=match_id), seat=0)
    met: set[str] = set()
    for _ in range(6000):  # (24/25)**600 hands: the joker is turned up long before
        if body["status"] == "finished":
            break
        seat = body["view"]["turn"]
        mine = selectors.player_view_get(match=Match.objects.get(pk=match_id), seat=seat)
        legal = mine["view"]["legal_actions"]
        action = choose(mine["view"]["phase"], legal, {"name_suit", "farm"} <= met)
        met.add(action["type"])
        body = services.action_submit(match_id=match_id, action=action, user=users[seat]).body
    assert {"name_suit", "farm"} <= met and body["status"] == "finished"

    tasks.review_match.apply(args=(match_id,)).get()  # as the review worker runs it

    review = MatchReview.objects.get(match_id=match_id)
    assert review.status == ReviewStatus.READY, review.error
    phases = {d["phase"] for d in review.body["decisions"]}
    assert {"name_suit", "farm"} <= phases
    _user, client = make_player("eve")  # not seated: the review is not theirs
    assert client.get(f"/api/v1/matches/{match_id}/review").status_code == 404
