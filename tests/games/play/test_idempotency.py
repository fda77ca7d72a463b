"""Idempotency-Keys: each kept as little as a replay needs (the key's digest, the request's
hash, the seq its action made; games/play/idempotency.py), the first answer given again from the
log byte for byte however far the match moved on (its events chunked, then archived),
expired after IDEMPOTENCY_KEY_HOURS and pruned by the periodic task (with expired device
tokens)."""

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.utils import timezone
from knox.models import get_token_model

from games import tasks
from games.log import archive
from games.models import IdempotencyKeys, IdempotentResponse, Match
from games.play import idempotency, services
from tests.conftest import make_player
from tests.games.helpers import act, assert_error, four_player_match, view


def records(*users) -> list[tuple[bytes, idempotency.Stored]]:
    """Every key the users' rows keep: its digest and its record."""
    rows = IdempotencyKeys.objects.filter(user__in=users).order_by("user_id", "match_id", "page")
    return [record for row in rows for record in idempotency.records_of(row)]


def used_long_ago(user, **ago) -> None:
    """Every key of `user` as if used `ago` (timedelta's arguments) ago."""
    then = timezone.now() - timedelta(**ago)
    seconds = int((then - idempotency.EPOCH).total_seconds())
    for row in IdempotencyKeys.objects.filter(user=user):
        entries = b"".join(
            idempotency.ENTRY.pack(hashed, seq, seconds, deadline)
            for hashed, seq, _used, deadline in idempotency.ENTRY.iter_unpack(bytes(row.entries))
        )
        IdempotencyKeys.objects.filter(pk=row.pk).update(
            entries=entries, created_at=then, updated_at=then
        )


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
    assert again.content == first.content
    [(digest, stored)] = records(users[turn])
    assert digest == idempotency.digest(key) and stored.seq == first.json()["seq"]
    assert not IdempotentResponse.objects.exists()  # no view, no summary: the log has them


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
    used_long_ago(users[turn], hours=24, minutes=1)
    assert tasks.prune()["idempotent_responses"] == 1
    assert [digest for digest, _ in records(*users)] == [idempotency.digest(new_key)]


@pytest.mark.django_db
def test_an_expired_key_not_yet_pruned_is_a_new_request(settings):
    settings.IDEMPOTENCY_KEY_HOURS = 24
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    key = str(uuid.uuid4())
    first = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    used_long_ago(users[turn], hours=25)
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


# ---------------------------------------------------------------- what is kept (issue 33)

PASS = {"type": "pass"}


@pytest.mark.django_db
def test_a_keys_record_holds_its_digest_the_requests_hash_the_seq_and_when_40_bytes():
    users, clients = _players()
    match_id = four_player_match(clients)
    columns = {field.name for field in IdempotencyKeys._meta.concrete_fields}
    assert columns == {
        "id", "user", "match", "page", "keys", "entries", "created_at", "updated_at"
    }  # fmt: skip
    sent = []
    for _ in range(6):  # the bidding goes round the table one and a half times
        state = view(clients[0], match_id)
        turn, seq = state["view"]["turn"], state["seq"]
        key = str(uuid.uuid4())
        answer = act(clients[turn], match_id, {"type": "pass", "expected_seq": seq},
                     HTTP_IDEMPOTENCY_KEY=key)  # fmt: skip
        assert answer.status_code == 200, answer.content
        sent.append((users[turn], key, seq, answer.json()["seq"]))

    for user in {user for user, *_ in sent}:
        row = IdempotencyKeys.objects.get(user=user, match_id=match_id)
        mine = [(key, before, after) for who, key, before, after in sent if who == user]
        # 8 bytes a key, 32 of record: nothing of the view, the summary or the key's text.
        assert (len(row.keys), len(row.entries)) == (8 * len(mine), 32 * len(mine))
        for (digest, record), (key, before, after) in zip(
            idempotency.records_of(row), mine, strict=True
        ):
            request = services.request_fingerprint("match_action", match_id, PASS, before)
            assert digest == idempotency.digest(key) and record.same_request(request)
            assert record.request_hash == request[:32] and record.seq == after
            assert abs(record.used_at - timezone.now()) < timedelta(minutes=5)
            assert record.turn_deadline is None  # no turn timer at this match
    assert IdempotencyKeys.objects.count() == 4 and not IdempotentResponse.objects.exists()


@pytest.mark.django_db
def test_a_persons_keys_at_a_match_fill_rows_of_32_and_each_is_found_again():
    users, clients = _players()
    match = Match.objects.get(pk=four_player_match(clients))
    keys = [f"key-{i}" for i in range(2 * IdempotencyKeys.PAGE_KEYS + 3)]

    def request(text: str) -> str:
        return services.request_fingerprint("match_action", match.pk, text)

    for seq, key in enumerate(keys, start=1):
        match.seq = seq
        idempotency.store(users[0], key, match, request(key), None)
    rows = IdempotencyKeys.objects.filter(user=users[0], match=match).order_by("page")
    assert [len(row.keys) // 8 for row in rows] == [32, 32, 3]
    for seq, key in enumerate(keys, start=1):
        found = idempotency.stored(users[0], key)
        assert found.seq == seq and found.same_request(request(key))
        assert not found.same_request(request("another request"))
    assert idempotency.stored(users[1], keys[0]) is None  # a key is a person's own


@pytest.mark.django_db(transaction=True)
def test_every_answer_of_a_whole_match_is_given_again_byte_for_byte_from_its_chunks_and_archive(
    settings,
):
    """Three people and a computer, a turn timer, a person timed out and back: every keyed
    action's answer, asked again after the match finished, once its hands over are chunks
    and once its log is archived, is the same bytes (the summary as the log says it was:
    seats, scores, status, the deadline kept with the key)."""
    settings.EVENT_ARCHIVE_AFTER_MINUTES = 0
    users, clients = _players()
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "computer"}, {"kind": "open"}]
    response = clients[0].post(
        "/api/v1/matches", {"seats": seats, "turn_seconds": 60, "options": {"target_score": 5}},
        format="json",
    )  # fmt: skip
    match_id = response.json()["id"]
    people = {0: clients[0], 1: clients[1], 3: clients[3]}
    for seat in (1, 3):
        assert people[seat].post(f"/api/v1/matches/{match_id}/join", {"seat": seat},
                                 format="json").status_code == 200  # fmt: skip
    answers, away, back = [], None, False
    for _ in range(2000):
        state = view(clients[0], match_id)
        if state["status"] == "finished":
            break
        turn = state["view"]["turn"]
        if len(answers) >= 20 and away is None and turn in people:
            away = _time_out(match_id, turn)  # a computer plays for them meanwhile
            continue
        if len(answers) >= 40 and away is not None and not back:
            back = people[away].post(f"/api/v1/matches/{match_id}/return").status_code == 200
            assert back
            continue
        legal = view(people[turn], match_id)["view"]["legal_actions"]
        sent, key = {**legal[0], "expected_seq": state["seq"]}, str(uuid.uuid4())
        first = act(people[turn], match_id, sent, HTTP_IDEMPOTENCY_KEY=key)
        assert first.status_code == 200, first.content
        answers.append((people[turn], sent, key, first.content))
    assert state["status"] == "finished" and away is not None
    assert {b'"away":true' in a[3] for a in answers} == {True, False}
    assert {b'"turn_deadline":null' in a[3] for a in answers} == {True, False}

    def all_again() -> None:
        for client, sent, key, content in answers:
            again = act(client, match_id, sent, HTTP_IDEMPOTENCY_KEY=key)
            assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
            assert again.content == content

    pages = IdempotencyKeys.objects.filter(match_id=match_id)
    assert sum(len(row.keys) for row in pages) == 8 * len(answers)
    all_again()  # from the rows
    assert archive.compact_match(match_id) > 0
    all_again()  # the hands over from their chunk
    assert archive.archive_due() == 1
    all_again()  # from the archive


def _time_out(match_id: str, seat: int) -> int:
    """The deadline of the person at `seat`, whose turn it is, passes: the timer's task
    (run here) puts a computer in for them. Their seat."""
    Match.objects.filter(pk=match_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.seat_time_out(match_id=match_id)
    return seat


@pytest.mark.django_db(transaction=True)
def test_a_key_in_use_at_another_match_right_now_is_a_409_retry_then_a_422():
    """The key's lock (a transaction-level advisory lock) stands where the unique index of
    a row a key stood: the same person's same key at two matches at once acts at one."""
    users, clients = _players()
    first, second = four_player_match(clients), four_player_match(clients)
    turn = view(clients[0], second)["view"]["turn"]  # the person who acts at the second
    user, client, key = users[turn], clients[turn], str(uuid.uuid4())
    held, release = threading.Event(), threading.Event()

    def at_the_first_match() -> None:  # their action with the key, at the first match
        try:
            with transaction.atomic():
                assert idempotency.hold(user, key)
                held.set()
                release.wait(30)
        finally:
            connections.close_all()

    worker = threading.Thread(target=at_the_first_match)
    worker.start()
    try:
        assert held.wait(30)
        at_once = act(client, second, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
        assert_error(at_once, 409, "idempotency_key_reused")
    finally:
        release.set()
        worker.join(30)
    retried = act(client, second, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert retried.status_code == 200  # nothing was kept at the first: the key acts here
    assert_error(act(client, first, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key), 422,
                 "idempotency_key_mismatch")  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_repeat_at_the_same_match_waits_out_the_first_ones_lock_and_is_replayed():
    """Committing, PostgreSQL frees a transaction's row lock before its advisory locks: a
    repeat that waited for the first request's row lock could find the key's lock still
    taken for a moment, and was answered 409 idempotency_key_reused (CI, 5 requests with
    one key at once). Here a transaction holds the key's lock after the key was kept, as
    that moment does, until the repeat waits for it: the repeat gets the first answer."""
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    user, client, key = users[turn], clients[turn], str(uuid.uuid4())
    first = act(client, match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    assert first.status_code == 200
    held, waited = threading.Event(), threading.Event()

    def the_first_ones_lock() -> None:
        try:
            with transaction.atomic():
                assert idempotency.hold(user, key)  # taken at once
                held.set()
                with connections["default"].cursor() as cursor:
                    for _ in range(3000):  # until the repeat waits for the lock (30 s)
                        cursor.execute(
                            "SELECT count(*) FROM pg_locks"
                            " WHERE locktype = 'advisory' AND NOT granted"
                        )
                        if cursor.fetchone()[0]:
                            waited.set()
                            break
                        cursor.execute("SELECT pg_sleep(0.01)")
        finally:
            connections.close_all()

    worker = threading.Thread(target=the_first_ones_lock)
    worker.start()
    try:
        assert held.wait(30)
        again = act(client, match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY=key)
    finally:
        worker.join(60)
    assert waited.is_set()  # the repeat found the key's lock taken and waited
    assert again.status_code == 200, again.content
    assert again.json() == first.json()


@pytest.mark.django_db
def test_a_response_stored_as_its_summary_before_is_still_replayed_the_same():
    """A row of the table used before IdempotencyKeys (issue 15: the seq, the seat and the
    summary's changing fields) answers as it did until it expires."""
    users, clients = _players()
    match_id = four_player_match(clients)
    turn = view(clients[0], match_id)["view"]["turn"]
    first = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="new-key")
    body = first.json()
    static = ("id", "options", "hints_allowed", "turn_seconds", "created_at", "seq", "you", "view")
    summary = {k: v for k, v in body.items() if k not in static}
    changing = ("kind", "username", "level", "away")
    summary["seats"] = [[seat[k] for k in changing] for seat in body["seats"]]
    IdempotentResponse.objects.create(
        user=users[turn], key="old-key", match_id=match_id, status_code=200, seq=body["seq"],
        seat=turn, summary=summary,
        request_hash=services.request_fingerprint("match_action", match_id, PASS, None),
    )  # fmt: skip
    nxt = view(clients[0], match_id)["view"]["turn"]
    assert act(clients[nxt], match_id, {"type": "pass"}).status_code == 200  # it moves on

    again = act(clients[turn], match_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="old-key")
    assert again.status_code == 200 and again.content == first.content
    other = act(clients[turn], match_id, {"type": "order_up"}, HTTP_IDEMPOTENCY_KEY="old-key")
    assert_error(other, 422, "idempotency_key_mismatch")
