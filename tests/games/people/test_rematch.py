"""Rematch: the same seats again, the dealer moved on one; everyone accepts (computers at
once), and the finished match links to it; declines and expiry; accepting at once."""

import pytest
import requests

from games.models import Event, Match, MatchStatus, SeatKind
from tests.games.helpers import assert_error, create_match, view
from tests.games.social_support import finished_match, people, race


def post(client, match_id: str, what: str = ""):
    return client.post(f"/api/v1/matches/{match_id}/rematch{what}")


@pytest.mark.django_db(transaction=True)
def test_a_rematch_against_computers_starts_at_once_with_the_dealer_moved_on(settings):
    ((_, alice, _),) = people("alice")
    finished = finished_match([alice], computers=3, turn_seconds=60, visibility="public")
    old = Match.objects.get(pk=finished)
    response = post(alice, finished)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["rematch"]["status"] == "started" and body["rematch"]["offered_by"] == "alice"
    new = Match.objects.get(pk=body["rematch"]["match"])
    assert new.rematch_of_id == old.pk and view(alice, new.pk)["rematch_of"] == str(old.pk)
    assert new.first_dealer == (old.first_dealer + 1) % 4
    assert (new.options, new.turn_seconds, new.hints_allowed, new.visibility) == (
        old.options, old.turn_seconds, old.hints_allowed, old.visibility,
    )  # fmt: skip
    assert [(s.kind, s.user_id, s.bot_level) for s in new.seats.order_by("index")] == [
        (s.kind, s.user_id, s.bot_level) for s in old.seats.order_by("index")
    ]
    assert new.status != MatchStatus.WAITING
    created = Event.objects.get(match=new, type="match_created").payload
    assert created["rematch_of"] == str(old.pk) and created["visibility"] == "public"
    # Offering again is no second rematch.
    assert post(alice, finished).json()["rematch"]["match"] == str(new.pk)
    assert Match.objects.filter(rematch_of=old).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_rematch_starts_when_every_person_has_accepted():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    finished = finished_match([alice, bob], computers=2)
    offer = post(alice, finished).json()["rematch"]
    assert offer["status"] == "pending" and offer["match"] is None
    answers = [a["answer"] for a in offer["answers"]]
    assert answers == ["accepted", "pending", "accepted", "accepted"]
    assert view(bob, finished)["rematch"]["status"] == "pending"
    accepted = post(bob, finished, "/accept").json()["rematch"]
    assert accepted["status"] == "started" and accepted["match"]
    assert view(bob, accepted["match"])["you"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_declined_offer_ends_and_may_be_made_again():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    finished = finished_match([alice, bob], computers=2)
    post(alice, finished)
    assert post(bob, finished, "/decline").json()["rematch"]["status"] == "declined"
    assert_error(post(alice, finished, "/accept"), 409, "no_rematch_offer")
    again = post(bob, finished).json()["rematch"]
    assert again["status"] == "pending" and again["offered_by"] == "bob"
    assert post(alice, finished, "/accept").json()["rematch"]["status"] == "started"


@pytest.mark.django_db(transaction=True)
def test_an_offer_expires(settings):
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    finished = finished_match([alice, bob], computers=2)
    settings.REMATCH_OFFER_SECONDS = 0
    post(alice, finished)
    assert view(bob, finished)["rematch"]["status"] == "expired"
    body = assert_error(post(bob, finished, "/accept"), 409, "no_rematch_offer")
    assert "expired" in body["detail"]
    assert not Match.objects.filter(rematch_of_id=finished).exists()


@pytest.mark.django_db(transaction=True)
def test_no_rematch_before_the_end_nor_for_someone_not_seated():
    (_, alice, _), (_, carol, _) = people("alice", "carol")
    playing = create_match(alice)["id"]
    assert_error(post(alice, playing), 409, "match_not_finished")
    finished = finished_match([alice], computers=3)
    assert_error(post(carol, finished), 404, "not_found")
    assert_error(post(alice, finished, "/accept"), 409, "no_rematch_offer")


@pytest.mark.django_db(transaction=True)
def test_everyone_accepting_at_once_over_http_starts_exactly_one_rematch(servers):
    """Four people: one offers, three accept at the same moment (and the offerer offers
    again): one rematch, with each person at their seat."""
    server = servers()
    crowd = people("r0", "r1", "r2", "r3")
    finished = finished_match([c for _, c, _ in crowd])
    assert post(crowd[0][1], finished).status_code == 200

    def one(i: int) -> int:
        path = "rematch" if i == 0 else "rematch/accept"
        response = requests.post(
            f"{server.url}/api/v1/matches/{finished}/{path}",
            headers={"Authorization": f"Token {crowd[i][2]}"},
            timeout=60,
        )
        return response.status_code

    assert race(4, one) == [200, 200, 200, 200]
    rematches = Match.objects.filter(rematch_of_id=finished)
    assert rematches.count() == 1
    seats = rematches.get().seats.order_by("index")
    assert [s.user_id for s in seats] == [u.pk for u, _, _ in crowd]
    assert all(s.kind == SeatKind.HUMAN for s in seats)
    assert view(crowd[3][1], finished)["rematch"]["status"] == "started"


@pytest.mark.django_db(transaction=True)
def test_the_last_two_acceptances_at_once_over_http_start_one_rematch(servers):
    server = servers()
    crowd = people("s0", "s1", "s2")
    finished = finished_match([c for _, c, _ in crowd], computers=1)
    post(crowd[0][1], finished)

    def one(i: int) -> int:
        response = requests.post(
            f"{server.url}/api/v1/matches/{finished}/rematch/accept",
            headers={"Authorization": f"Token {crowd[i + 1][2]}"},
            timeout=60,
        )
        return response.status_code

    assert race(2, one) == [200, 200]
    assert Match.objects.filter(rematch_of_id=finished).count() == 1


@pytest.mark.django_db(transaction=True)
def test_visibility_and_the_rematch_link_are_rebuilt_from_the_log():
    from games.log import projections

    ((_, alice, _),) = people("alice")
    finished = finished_match([alice], computers=3, visibility="public")
    rematch_id = post(alice, finished).json()["rematch"]["match"]
    for match_id, link in ((finished, None), (rematch_id, finished)):
        Match.objects.filter(pk=match_id).update(visibility="private", rematch_of=None)
        projections.rebuild(Match.objects.get(pk=match_id))
        match = Match.objects.get(pk=match_id)
        assert match.visibility == "public"
        assert (str(match.rematch_of_id) if match.rematch_of_id else None) == link
