"""A person whose partner goes alone sits the hand out: the computer players play the
whole hand through without them and bid the next one until it is the person's turn.
The hand over moves from its rows into a chunk as the next is dealt (games.log.archive),
so its events are read through the log (eventlog.events_of), never from the rows alone:
tests that read a computer's move from the rows failed on the machine whose deal gave
the partner a lone hand."""

import pytest

from games import engine as E
from games.log import archive, eventlog
from games.models import Event, Match
from games.play import selectors, services
from tests.bots.test_worker import person_and_computers
from tests.bots.worker_support import logged_event
from tests.engine.helpers import deck_for

pytestmark = pytest.mark.django_db(transaction=True)

# East deals the first hand. West (the dealer's partner) holds nothing; north, south's
# partner, holds the five best hearts with the nine of hearts turned up: the Medium rules
# go alone with a hand that takes every trick.
LONE_NORTH = {0: "9S TS QS 9C TC", 1: "9D TD QD KD QC", 2: "JH JD AH KH QH"}


def test_the_computers_play_a_partners_lone_hand_through_and_bid_the_next(monkeypatch):
    deck = tuple(deck_for(3, LONE_NORTH, "9H"))
    monkeypatch.setattr(E, "shuffled_deck", lambda joker=False: deck)  # every deal
    user, match = person_and_computers("medium")
    seq = Match.objects.get(pk=match.pk).seq + 1  # south's pass (tasks run in-process)

    services.action_submit(match_id=match.pk, seat_index=0, action={"type": "pass"}, user=user)

    west, north = logged_event(match, seq + 1), logged_event(match, seq + 2)
    assert (west.seat, west.payload["action"]) == (1, {"type": "pass"})
    assert (north.seat, north.payload["action"]) == (2, {"type": "order_up", "alone": True})
    match.refresh_from_db()
    view = selectors.player_view_get(match=match, seat=0)["view"]
    # The next hand waits on south (its dealer: the upcard to pick up, or a bid).
    assert view["hand_number"] == 2 and view["turn"] == 0 and view["scores"] == [4, 0]
    # The hand over moves into a chunk: the compact_log task a worker runs as hand 2 is
    # dealt (the tests' in-process mode starts no timer thread for it: run it here).
    archive.compact_match(match.pk)
    assert not Event.objects.filter(match=match, seq=seq + 1).exists()  # the rows are gone
    assert logged_event(match, seq + 1) == west  # and the log reads it from the chunk
    seqs = [e.seq for e in eventlog.events_of(match)]
    assert seqs == list(range(1, match.seq + 1))
