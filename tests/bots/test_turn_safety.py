"""A computer player's bug never freezes a match: the turn is logged as an error and the
seat falls back to Medium, then to the first legal action (issue 9, item 2)."""

import logging

import pytest

from bots import players
from games.models import Event, Match, Seat
from games.play import services
from games.tasks import sweep_waiting_matches
from tests.bots.test_worker import person_and_computers
from tests.bots.worker_support import logged_event

pytestmark = pytest.mark.django_db(transaction=True)


def broken(view, rng):
    raise TypeError("unsupported operand type(s) for -: 'int' and 'NoneType'")


def illegal(view, rng):
    return {"type": "play", "card": "XX"}


def person_passes(match: Match, user) -> int:
    """South passes (tasks run in-process: the computers' turns follow at once). Returns
    the seq of south's pass."""
    seq = Match.objects.get(pk=match.pk).seq + 1
    services.action_submit(match_id=match.pk, seat_index=0, action={"type": "pass"}, user=user)
    return seq


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_computer_player_that_raises_is_logged_and_the_seat_falls_back_to_medium(
    monkeypatch, caplog
):
    monkeypatch.setitem(players.PLAYERS, "hard", broken)
    user, match = person_and_computers("hard")
    seq = person_passes(match, user)
    match.refresh_from_db()
    # West moved (by Medium's rules), and the others until the match waits on south again.
    assert logged_event(match, seq + 1).seat == 1
    assert not match.awaiting_computer
    assert services.player_view_get(match=match, seat=0)["view"]["turn"] == 0
    messages = errors(caplog)
    assert any(f"match {match.pk} seat 1, level hard" in m for m in messages), messages
    record = next(r for r in caplog.records if r.levelno >= logging.ERROR)
    assert record.exc_info is not None  # logger.exception: the traceback is in the log


def test_when_medium_fails_too_the_seat_plays_the_first_legal_action(monkeypatch, caplog):
    monkeypatch.setitem(players.PLAYERS, "hard", broken)
    monkeypatch.setitem(players.PLAYERS, "medium", illegal)
    user, match = person_and_computers("hard")
    seq = person_passes(match, user)
    bids = Event.objects.filter(match=match, seq__gt=seq, type="bid").order_by("seq")
    assert [(e.seat, e.payload["action"]) for e in bids[:3]] == [
        (s, {"type": "pass"})
        for s in (1, 2, 3)  # the first legal action in round one
    ]
    assert any("illegal action" in m and "level medium" in m for m in errors(caplog))


def test_a_seat_whose_level_no_longer_exists_plays_on_as_medium(caplog):
    user, match = person_and_computers("medium")
    Seat.objects.filter(match=match, index=1).update(bot_level="expert")  # an old level name
    seq = person_passes(match, user)
    assert logged_event(match, seq + 1).seat == 1
    assert any("level expert" in m for m in errors(caplog))


def test_a_hard_player_with_defending_alone_on_plays_a_match_to_the_end_in_the_service(
    settings,
):
    """The freeze of issue 9 as the service met it: Hard at every other seat, defending
    alone on, the person playing the first legal action."""
    settings.HARD_SAMPLES, settings.HARD_PLAYOUTS = 6, 30
    user, match = person_and_computers("hard", defending_alone=True, target_score=3)
    for _ in range(500):
        match.refresh_from_db()
        if match.status != "active":
            break
        view = services.player_view_get(match=match, seat=0)["view"]
        assert view["turn"] == 0 and not match.awaiting_computer, "the match froze"
        services.action_submit(
            match_id=match.pk, seat_index=0, action=view["legal_actions"][0], user=user
        )
    assert match.status == "finished"
    assert sweep_waiting_matches() == 0
