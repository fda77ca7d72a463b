import pytest

from games.log import eventlog, fairness
from games.models import Event, Hand, Match
from tests.games.helpers import create_match, play_to_the_end


@pytest.mark.django_db(transaction=True)
def test_a_client_plays_a_whole_match_against_computer_players(player):
    _user, client = player
    final = play_to_the_end(client, create_match(client)["id"])
    match = Match.objects.get(pk=final["id"])

    replayed = eventlog.fold(match.events.order_by("seq"))
    assert replayed.scores == final["scores"]
    assert max(final["scores"]) >= 10
    assert final["winner_team"] == replayed.winner

    seqs = list(match.events.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert Hand.objects.filter(match=match).count() == match.hands_played

    replay = client.get(f"/api/v1/matches/{match.pk}/replay").json()
    assert len(replay["hands"]) == match.hands_played
    assert all(hand["commitment_verified"] for hand in replay["hands"])


@pytest.mark.django_db(transaction=True)
def test_every_deal_is_committed_before_the_first_bid_and_revealed_after_the_hand(player):
    _user, client = player
    final = play_to_the_end(client, create_match(client, options={"target_score": 3})["id"])
    events = list(Event.objects.filter(match_id=final["id"]).order_by("seq"))
    dealt = [e for e in events if e.type == "hand_dealt"]
    revealed = [e for e in events if e.type == "hand_revealed"]
    assert len(dealt) == len(revealed)
    for deal, reveal in zip(dealt, revealed, strict=True):
        assert deal.seq < reveal.seq
        assert reveal.payload["commitment"] == deal.payload["commitment"]
        assert fairness.verify(
            reveal.payload["deck"], reveal.payload["salt"], deal.payload["commitment"]
        )
