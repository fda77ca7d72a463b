"""Quick play: people asking with the same options sit at the same table; after the wait
computer players take the open seats (if asked for) and it starts; leaving the queue."""

import json
import threading
from collections import Counter
from datetime import timedelta
from functools import partial

import pytest
import requests
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Event, Match, MatchStatus, Seat, SeatKind
from games.people import quickplay
from games.play import later
from tests.bots.worker_support import wait_until
from tests.conftest import make_player
from tests.games.helpers import assert_error
from tests.games.social_support import people, race


def ask(client, **options):
    response = client.post("/api/v1/quickplay", options, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.django_db(transaction=True)
def test_two_people_with_the_same_options_sit_at_the_same_public_table():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    first = ask(alice, preset="short", level="easy")
    second = ask(bob, preset="short", level="easy")
    assert first["id"] == second["id"]
    assert first["visibility"] == "public" and first["status"] == "waiting"
    assert first["options"]["target_score"] == 5
    assert first["quickplay"]["computers"] and first["quickplay"]["level"] == "easy"
    assert first["quickplay"]["starts_at"]
    assert [s["kind"] for s in second["seats"]] == ["human", "human", "open", "open"]
    assert second["you"] == 1


@pytest.mark.django_db(transaction=True)
def test_other_options_are_another_table_and_asking_again_is_no_second_seat():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    table = ask(alice)["id"]
    assert ask(alice)["id"] == table
    assert ask(bob, turn_seconds=30)["id"] != table
    assert ask(bob, computers=False)["id"] != table
    assert Seat.objects.filter(match_id=table, kind=SeatKind.HUMAN).count() == 1


@pytest.mark.django_db(transaction=True)
def test_asking_with_other_options_moves_you_to_that_queue():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    first = ask(alice)["id"]
    ask(bob)
    second = ask(bob, preset="short")["id"]
    assert Seat.objects.filter(user__username="bob", kind=SeatKind.HUMAN).count() == 1
    assert Match.objects.get(pk=first).seats.get(index=1).kind == SeatKind.OPEN
    assert Seat.objects.get(user__username="bob").match_id == Match.objects.get(pk=second).pk


@pytest.mark.django_db(transaction=True)
def test_the_fourth_person_starts_the_table_and_the_fifth_opens_the_next():
    clients = [c for _, c, _ in people("a1", "a2", "a3", "a4", "a5")]
    ids = [ask(c, computers=False)["id"] for c in clients]
    assert len(set(ids[:4])) == 1 and ids[4] != ids[0]
    full = Match.objects.get(pk=ids[0])
    assert full.status == MatchStatus.ACTIVE
    assert Event.objects.filter(match=full, type="hand_dealt").exists()


@pytest.mark.django_db(transaction=True)
def test_after_the_wait_computer_players_take_the_open_seats_and_it_starts(settings):
    settings.QUICKPLAY_WAIT_SECONDS = 0
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    table = ask(alice, level="random")["id"]
    ask(bob, level="random")
    # The task that start_quickplay names, as a worker runs it (in-process here).
    assert later.run_soon(later.START_QUICKPLAY, table)
    match = Match.objects.get(pk=table)
    assert match.status in (MatchStatus.ACTIVE, MatchStatus.FINISHED)
    kinds = [(s.kind, s.bot_level) for s in match.seats.order_by("index")]
    assert kinds[2:] == [(SeatKind.COMPUTER, "random")] * 2 and kinds[0][0] == SeatKind.HUMAN
    assert alice.get(f"/api/v1/matches/{table}").json()["quickplay"]["starts_at"] is None


@pytest.mark.django_db(transaction=True)
def test_before_the_wait_is_over_the_table_waits_for_people():
    ((_, alice, _),) = people("alice")
    table = ask(alice)["id"]
    assert quickplay.quickplay_start(match_id=table) is False
    assert Match.objects.get(pk=table).status == MatchStatus.WAITING


@pytest.mark.django_db(transaction=True)
def test_a_table_of_people_who_asked_for_no_computers_waits_on_for_people(settings):
    settings.QUICKPLAY_WAIT_SECONDS = 0
    ((_, alice, _),) = people("alice")
    table = ask(alice, computers=False)["id"]
    assert quickplay.quickplay_start(match_id=table) is False
    assert Match.objects.get(pk=table).status == MatchStatus.WAITING


@pytest.mark.django_db(transaction=True)
def test_the_sweep_starts_a_table_whose_start_task_was_lost(settings):
    from games.tasks import sweep

    settings.TURN_TIMER_SWEEP_GRACE = 0
    ((_, alice, _),) = people("alice")
    table = ask(alice, level="random")["id"]
    Match.objects.filter(pk=table).update(quickplay_starts_at=timezone.now() - timedelta(seconds=1))
    sweep()
    assert Match.objects.get(pk=table).status != MatchStatus.WAITING


@pytest.mark.django_db(transaction=True)
def test_leaving_the_queue_opens_the_seat_and_the_last_one_out_abandons_the_table():
    (_, alice, _), (_, bob, _), (_, carol, _) = people("alice", "bob", "carol")
    table = ask(alice)["id"]
    ask(bob)
    response = bob.delete("/api/v1/quickplay")
    assert response.status_code == 200 and response.json() == {"left": [table]}
    assert bob.get(f"/api/v1/matches/{table}").json()["you"] is None  # a spectator now
    assert ask(carol)["you"] == 1  # the seat bob left is open again
    assert Event.objects.filter(match_id=table, type="seat_vacated", seat=1).exists()
    carol.delete("/api/v1/quickplay")
    alice.delete("/api/v1/quickplay")
    assert Match.objects.get(pk=table).status == MatchStatus.ABANDONED
    assert_error(alice.delete("/api/v1/quickplay"), 409, "not_in_queue")
    assert ask(alice)["id"] != table


@pytest.mark.django_db(transaction=True)
def test_a_started_table_is_left_as_a_match_not_as_the_queue():
    clients = [c for _, c, _ in people("a1", "a2", "a3", "a4")]
    table = [ask(c, computers=False)["id"] for c in clients][0]
    assert_error(clients[0].delete("/api/v1/quickplay"), 409, "not_in_queue")
    assert clients[0].post(f"/api/v1/matches/{table}/leave").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_bad_quick_play_options_are_refused():
    _, alice = make_player("alice")
    for wrong in ({"preset": "x"}, {"level": "x"}, {"turn_seconds": 1}, {"computers": "yes"}):
        response = alice.post("/api/v1/quickplay", wrong, format="json")
        assert_error(response, 400, "invalid_input")
    with pytest.raises(quickplay.BadInput):
        quickplay.Ask(preset="nope").checked()


# ---------------------------------------------------------------- concurrency, over HTTP


@pytest.mark.django_db(transaction=True)
def test_many_people_asking_at_once_over_http_fill_whole_tables_with_no_seat_lost(servers):
    """26 people at once, on two API processes, threads each: six full tables and one of
    two, every person at exactly one seat, no two tables waiting with the same options."""
    first = servers(QUICKPLAY_WAIT_SECONDS="600")
    second = servers(QUICKPLAY_WAIT_SECONDS="600")
    crowd = people(*[f"p{i:02}" for i in range(26)])

    def one(i: int) -> str:
        server = (first, second)[i % 2]
        response = requests.post(
            f"{server.url}/api/v1/quickplay",
            json={"computers": False, "preset": "short"},
            headers={"Authorization": f"Token {crowd[i][2]}"},
            timeout=60,
        )
        assert response.status_code == 200, response.text
        return response.json()["id"]

    answers = race(26, one)
    assert all(isinstance(a, str) for a in answers), answers
    sizes = sorted(Counter(answers).values())
    assert sizes == [2, 4, 4, 4, 4, 4, 4]
    for match_id, size in Counter(answers).items():
        match = Match.objects.get(pk=match_id)
        humans = list(match.seats.filter(kind=SeatKind.HUMAN).values_list("user_id", flat=True))
        assert len(humans) == size == len(set(humans))
        assert match.status == (MatchStatus.ACTIVE if size == 4 else MatchStatus.WAITING)
    seated = Seat.objects.filter(user__in=[u for u, _, _ in crowd], kind=SeatKind.HUMAN)
    assert sorted(seated.values_list("user_id", flat=True)) == sorted(u.pk for u, _, _ in crowd)
    assert Match.objects.filter(status=MatchStatus.WAITING).exclude(quickplay_key="").count() == 1


@pytest.mark.django_db(transaction=True)
def test_joining_and_leaving_at_once_over_http_loses_no_seat(servers):
    """Two people leave the queue while thirteen arrive: everyone in the queue sits at
    exactly one seat, the seats left are taken again, one table at most still waits,
    and every table that started has four people."""
    server = servers(QUICKPLAY_WAIT_SECONDS="600")
    crowd = people(*[f"q{i:02}" for i in range(16)])
    headers = [{"Authorization": f"Token {token}"} for _, _, token in crowd]
    for i in range(3):  # three wait at a table; the first two leave during the race
        requests.post(f"{server.url}/api/v1/quickplay", json={"computers": False},
                      headers=headers[i], timeout=30).raise_for_status()  # fmt: skip
    racing = [0, 1, *range(3, 16)]

    def one(k: int) -> int:
        i = racing[k]
        method = "DELETE" if i < 2 else "POST"
        body = None if method == "DELETE" else {"computers": False}
        response = requests.request(
            method, f"{server.url}/api/v1/quickplay", json=body, headers=headers[i], timeout=60
        )
        return response.status_code

    codes = race(len(racing), one)
    # A leaver whose table filled and started before their request is seated there (409
    # not_in_queue: they leave the match instead); every other request is answered 200.
    assert all(code == 200 for code in codes[2:]), codes
    assert all(code in (200, 409) for code in codes[:2]), codes
    stayed = [u.pk for i, (u, _, _) in enumerate(crowd) if i >= 2 or codes[i] == 409]
    seats = Seat.objects.filter(kind=SeatKind.HUMAN, match__quickplay_key__gt="")
    assert sorted(seats.values_list("user_id", flat=True)) == sorted(stayed)
    tables = Match.objects.exclude(quickplay_key="").exclude(status=MatchStatus.ABANDONED)
    waiting = [m for m in tables if m.status == MatchStatus.WAITING]
    assert len(waiting) == (1 if len(stayed) % 4 else 0)
    for match in tables:
        humans = match.seats.filter(kind=SeatKind.HUMAN).count()
        assert humans == 4 if match.status == MatchStatus.ACTIVE else 0 < humans < 4


# ------------------------------------------- one person, many asks at once: one queue

# One person's asks, sent at once: a queue of their own each (other turn timers, rules,
# computer players or not, their level) but the last, which asks for the first again.
MANY_ASKS = [
    {"computers": False},
    {"computers": False, "turn_seconds": 30},
    {"computers": False, "turn_seconds": 45},
    {"computers": False, "turn_seconds": 60},
    {"computers": False, "turn_seconds": 90},
    {"computers": False, "turn_seconds": 120},
    {"computers": False, "preset": "short"},
    {"level": "easy", "preset": "canadian", "turn_seconds": 30},
    {"computers": False},
]
# Tables other people wait at (in no queue above), which the person joins by id at once.
OTHER_TABLES = [
    {"computers": False, "preset": "no_stick"},
    {"preset": "no_stick"},
    {"computers": False, "preset": "no_stick", "turn_seconds": 30},
    {"preset": "no_stick", "level": "hard"},
]


def waiting_tables(user) -> list[str]:
    """The quick play tables `user` waits at."""
    seats = Seat.objects.filter(
        user=user, match__status=MatchStatus.WAITING, match__quickplay_key__gt=""
    )
    return [str(match_id) for match_id in seats.values_list("match_id", flat=True)]


def burst(send, asks: list[dict], opened: list[str]) -> list[str]:
    """One person's `asks` and joins of the `opened` tables by id, all at once, through
    `send(i, method, path, body) -> (status, body)`: each is answered 200; the tables."""
    requests_ = [("POST", "quickplay", body) for body in asks]
    requests_ += [("POST", f"matches/{match_id}/join", None) for match_id in opened]

    def one(i: int) -> str:
        status, body = send(i, *requests_[i])
        assert status == 200, (requests_[i], status, body)
        return body["id"]

    answers = race(len(requests_), one)
    assert all(isinstance(a, str) for a in answers), answers
    return answers


def assert_waits_at_one_table(user, answers: list[str]) -> str:
    waiting = waiting_tables(user)
    assert len(waiting) == 1, f"waits at {len(waiting)} tables at once: {waiting}"
    assert waiting[0] in answers
    twice = Counter(Seat.objects.filter(user=user).values_list("match_id", flat=True))
    assert max(twice.values()) == 1, twice
    return waiting[0]


def fill_every_queue(fillers, user, table: str) -> None:
    """Three more people ask for each of MANY_ASKS' options: every table waiting there
    starts with four people; of those, only `table` (theirs) seats `user`."""
    for k, body in enumerate(MANY_ASKS[:-1]):
        for filler in fillers[3 * k : 3 * k + 3]:
            ask(filler, **body)
    started = Match.objects.filter(status=MatchStatus.ACTIVE, seats__user=user).exclude(
        quickplay_key=""
    )
    assert [str(m.pk) for m in started] == [table]
    assert waiting_tables(user) == []


def open_other_tables(round_: int) -> tuple[list[str], list]:
    """OTHER_TABLES, each opened by a person of its own: their ids, and those people."""
    hosts = [c for _, c, _ in people(*[f"host{round_}.{k}" for k in range(len(OTHER_TABLES))])]
    return [ask(h, **body)["id"] for h, body in zip(hosts, OTHER_TABLES, strict=True)], hosts


def everyone_leaves(send, table: str, hosts) -> None:
    """The person leaves the table they wait at (and no other), then the hosts theirs."""
    assert send(0, "DELETE", "quickplay", None) == (200, {"left": [table]})
    for host in hosts:
        host.delete("/api/v1/quickplay")


@pytest.mark.django_db(transaction=True)
def test_one_person_asking_many_queues_at_once_waits_in_exactly_one(settings):
    """Real threads on real PostgreSQL, round after round (the race the rule had was lost
    in nearly every round), the person's asks and joins of other people's tables by id at
    once, or those joins alone: they wait at one table, whichever request came last, and
    when every queue fills only that table starts with them."""
    settings.QUICKPLAY_WAIT_SECONDS = 600
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "matches": "100000/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ((user, _, token),) = people("many")
    fillers = [client for _, client, _ in people(*[f"f{i:02}" for i in range(24)])]

    def send(i: int, method: str, path: str, body) -> tuple[int, dict]:
        client = APIClient()  # one per thread
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        response = client.generic(
            method, f"/api/v1/{path}", json.dumps(body or {}), content_type="application/json"
        )
        return response.status_code, response.json()

    for round_ in range(6):
        opened, hosts = open_other_tables(round_)
        answers = burst(send, MANY_ASKS if round_ % 2 else [], opened)
        everyone_leaves(send, assert_waits_at_one_table(user, answers), hosts)
    answers = burst(send, MANY_ASKS, [])
    fill_every_queue(fillers, user, assert_waits_at_one_table(user, answers))


@pytest.mark.django_db(transaction=True)
def test_one_person_asking_many_queues_at_once_on_two_api_processes_waits_in_one(servers):
    """The same on two real API processes (each its own threads), the asks alternating
    between them: the rule holds across processes, not only within one."""
    both = (servers(QUICKPLAY_WAIT_SECONDS="600"), servers(QUICKPLAY_WAIT_SECONDS="600"))
    ((user, _, token),) = people("many")
    fillers = [client for _, client, _ in people(*[f"f{i:02}" for i in range(24)])]
    headers = {"Authorization": f"Token {token}"}

    def send(i: int, method: str, path: str, body) -> tuple[int, dict]:
        response = requests.request(
            method, f"{both[i % 2].url}/api/v1/{path}", json=body, headers=headers, timeout=60
        )
        return response.status_code, response.json()

    for round_ in range(4):
        opened, hosts = open_other_tables(round_)
        answers = burst(send, MANY_ASKS if round_ % 2 else [], opened)
        everyone_leaves(send, assert_waits_at_one_table(user, answers), hosts)
    answers = burst(send, MANY_ASKS, [])
    fill_every_queue(fillers, user, assert_waits_at_one_table(user, answers))


@pytest.mark.django_db(transaction=True)
def test_joining_a_quick_play_table_by_its_id_moves_you_out_of_your_queue():
    (_, alice, _), (_, bob, _) = people("alice", "bob")
    mine = ask(bob, turn_seconds=30)["id"]
    theirs = ask(alice)["id"]
    assert bob.post(f"/api/v1/matches/{theirs}/join").status_code == 200
    assert Match.objects.get(pk=mine).status == MatchStatus.ABANDONED  # nobody else waited
    assert Event.objects.filter(match_id=mine, type="seat_vacated").exists()
    assert waiting_tables(Seat.objects.get(match_id=theirs, index=1).user) == [theirs]


@pytest.mark.django_db(transaction=True)
def test_a_refused_ask_leaves_you_in_the_queue_you_wait_in(settings):
    """Moving is one transaction: an ask refused (here: a table that started meanwhile,
    joined by id) does not take you out of the queue you wait in."""
    clients = [c for _, c, _ in people("a1", "a2", "a3", "a4", "bob")]
    full = [ask(c, computers=False)["id"] for c in clients[:4]][0]
    mine = ask(clients[4], turn_seconds=30)["id"]
    assert_error(clients[4].post(f"/api/v1/matches/{full}/join"), 409, "match_started")
    assert waiting_tables(Seat.objects.get(match_id=mine, index=0).user) == [mine]


@pytest.mark.django_db(transaction=True)
def test_people_moving_between_the_same_queues_at_once_never_wait_for_each_other(settings):
    """Three people each ask for four queues at once, each in another order (one moves
    from a queue to another while someone else moves the other way), round after round:
    every ask is answered (the queues' locks are taken in one order, so no two moves wait
    for each other until PostgreSQL calls it a deadlock), each person waits at exactly
    one table, and no table seats anyone twice (three people: no table starts)."""
    settings.QUICKPLAY_WAIT_SECONDS = 600
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "matches": "100000/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    crowd = people("m1", "m2", "m3")
    queues = MANY_ASKS[:4]

    def one(i: int) -> int:
        person, k = divmod(i, len(queues))
        client = APIClient()  # one per thread
        client.credentials(HTTP_AUTHORIZATION=f"Token {crowd[person][2]}")
        body = queues[(k + person) % len(queues)] if person % 2 else queues[-1 - k]
        return client.post("/api/v1/quickplay", body, format="json").status_code

    for _round in range(6):
        codes = race(len(crowd) * len(queues), one)
        assert codes == [200] * len(codes), codes
        for user, client, _ in crowd:
            assert len(waiting_tables(user)) == 1
            assert client.delete("/api/v1/quickplay").status_code == 200
    assert not Seat.objects.filter(match__status=MatchStatus.ACTIVE).exists()


def in_a_thread(work) -> tuple[threading.Thread, dict]:
    """`work()` in a thread of its own (its own connection): the thread, and its result or
    exception under "result" once it ends."""
    out: dict = {}

    def run() -> None:
        try:
            out["result"] = work()
        except Exception as exc:  # the test looks at it
            out["result"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def waiting_for(what: str) -> int:
    """How many sessions of this database wait for a lock of this kind ('advisory',
    'relation'), as pg_stat_activity says."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND wait_event = %s",
            [what],
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("by_id", [False, True], ids=["ask", "join_by_id"])
def test_a_request_answers_the_table_it_seated_you_at_though_the_next_moves_you_at_once(by_id):
    """One person's request that seats them (an ask, or a join of a quick play table by
    its id) answers that table, even when another request of theirs, waiting for their
    lock, moves them out of it the moment the first commits (it was answered 404
    not_found when it read its answer after its commit: under load, the second ran
    between the two). Forced with PostgreSQL's locks, not timing: the first waits for the
    queue's lock (held by a transaction of the test's) having read the matches table; a
    third transaction asks for that table's ACCESS EXCLUSIVE lock, and so waits for the
    first to end, is granted it before the first can read anything more, and moves the
    person in that same transaction (their lock is free then)."""
    (user, client, _), (other, _, _), (_, host, _) = people("mover", "other", "host")
    if by_id:
        table = ask(host, computers=False, preset="no_stick")["id"]
        key = quickplay.Ask(computers=False, preset="no_stick").key()
        request = partial(client.post, f"/api/v1/matches/{table}/join")
    else:
        key = quickplay.Ask(computers=False).key()
        request = partial(client.post, "/api/v1/quickplay", {"computers": False}, format="json")
    held, release = threading.Event(), threading.Event()

    def hold_the_queue() -> None:
        with transaction.atomic():
            quickplay.enter_queue(other, key)  # someone else's ask, holding the queue's lock
            held.set()
            assert release.wait(60)

    def move_the_person_when_it_commits() -> None:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {Match._meta.db_table} IN ACCESS EXCLUSIVE MODE")
            quickplay.quickplay_join(
                user=user, ask=quickplay.Ask(computers=False, turn_seconds=120)
            )

    holder, _ = in_a_thread(hold_the_queue)
    assert held.wait(60)
    first, answer = in_a_thread(request)
    wait_until(lambda: waiting_for("advisory") == 1, 60, "the first request to wait for the queue")
    mover, moved = in_a_thread(move_the_person_when_it_commits)
    wait_until(lambda: waiting_for("relation") == 1, 60, "the move to wait for the first request")
    release.set()
    for thread in (holder, first, mover):
        thread.join(60)
        assert not thread.is_alive()
    response = answer["result"]
    assert response.status_code == 200, response.content
    seated_at = response.json()["id"]
    assert moved["result"] is None, moved["result"]
    assert len(waiting_tables(user)) == 1 and waiting_tables(user) != [seated_at]
    if not by_id:
        assert Match.objects.get(pk=seated_at).status == MatchStatus.ABANDONED
