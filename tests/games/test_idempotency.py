"""Idempotent responses: kept small (what a replay needs, not a whole view), replayed the
same after the match has moved on, expired after IDEMPOTENCY_KEY_HOURS and pruned by the
periodic task (with expired device tokens)."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import get_token_model

from games import tasks
from games.models import IdempotentResponse
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, view


def _players():
    players = [make_player(name) for name in ("s", "w", "n", "e")]
    return [user for user, _ in players], [client for _, client in players]


@pytest.mark.django_db
def test_a_replay_after_the_match_moved_on_is_the_first_answer_and_no_view_is_stored():
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    key = str(uuid.uuid4())
    first = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert first.status_code == 200
    # Others play on: the replay still answers the table as the first answer showed it.
    for _ in range(3):
        state = view(clients[0], match_id)
        nxt = state["view"]["turn"]
        legal = view(clients[nxt], match_id)["view"]["legal_actions"]
        assert act(clients[nxt], match_id, legal[0]).status_code == 200
    again = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 200
    assert again.json() == first.json()
    stored = IdempotentResponse.objects.get(key=key)
    assert stored.body is None and stored.seq == first.json()["seq"]
    assert len(str(stored.summary)) < 600  # the changing summary fields, not the view


@pytest.mark.django_db
def test_a_response_stored_whole_before_is_still_replayed_from_its_body():
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    key = str(uuid.uuid4())
    IdempotentResponse.objects.create(
        user=users[turn], key=key, match_id=match_id, status_code=200, body={"old": True}
    )
    again = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 200 and again.json() == {"old": True}


@pytest.mark.django_db
def test_an_idempotency_key_expires_after_its_hours_and_the_prune_deletes_it(settings):
    settings.IDEMPOTENCY_KEY_HOURS = 24
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    old_key, new_key = str(uuid.uuid4()), str(uuid.uuid4())
    assert (
        act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=old_key).status_code
        == 200
    )
    nxt = view(clients[0], match_id)["view"]["turn"]
    assert (
        act(clients[nxt], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=new_key).status_code
        == 200
    )
    IdempotentResponse.objects.filter(key=old_key).update(
        created_at=timezone.now() - timedelta(hours=24, minutes=1)
    )
    assert tasks.prune()["idempotent_responses"] == 1
    assert list(IdempotentResponse.objects.values_list("key", flat=True)) == [new_key]


@pytest.mark.django_db
def test_an_expired_key_not_yet_pruned_is_a_new_request(settings):
    settings.IDEMPOTENCY_KEY_HOURS = 24
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    key = str(uuid.uuid4())
    first = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    IdempotentResponse.objects.filter(key=key).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    # The key is new again: the same request acts again (and is refused by the rules,
    # since it is no longer this seat's turn), instead of replaying the first answer.
    again = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 409 and again.json()["code"] == "not_your_turn"
    assert first.status_code == 200


@pytest.mark.django_db
def test_the_prune_deletes_expired_device_tokens_only():
    user, client = make_player("t")
    tokens = get_token_model().objects.filter(user=user)
    _, other = get_token_model().objects.create(user=user)
    tokens.exclude(digest=tokens.order_by("created").first().digest).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert tasks.prune()["tokens"] == 1
    assert tokens.count() == 1
    assert client.get("/api/v1/matches").status_code == 200
