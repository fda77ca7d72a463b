"""History, statistics, ratings and the leaderboard (issue 13), over HTTP.

Records and ratings are projections of the logs: written when a match finishes, in the
transaction of its match_finished event, and rebuilt from the logs alone by
`rebuild_projections --all` to the same numbers.
"""

import datetime
import threading

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection, connections, transaction
from rest_framework.test import APIClient

from games.log import events as V
from games.log import projections, ratings
from games.models import Hand, Match, MatchRecord, Rating, RatingChange
from tests.conftest import make_player
from tests.games.helpers import OPEN, assert_error, create_match, play_to_the_end, view

pytestmark = pytest.mark.django_db(transaction=True)

HARD = [{"kind": "me"}] + [{"kind": "computer", "level": "hard"}] * 3
RANDOM = [{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 3


def quick(client, seats=RANDOM, target=1, **options) -> dict:
    """A match against computers played to the end by the client's seat."""
    body = create_match(client, seats, options={"target_score": target, **options})
    return play_to_the_end(client, body["id"])


def guest() -> APIClient:
    body = APIClient().post("/api/v1/auth/guest").json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    client.username = body["username"]
    return client


def play_all(clients: dict[int, APIClient], match_id: str) -> dict:
    """Every person's seat plays its first legal action in turn (computers play theirs)."""
    any_client = next(iter(clients.values()))
    for _ in range(3000):
        body = view(any_client, match_id)
        if body["status"] == "finished":
            return body
        turn = body["view"]["turn"]
        mine = view(clients[turn], match_id)
        action = mine["view"]["legal_actions"][0]
        response = clients[turn].post(f"/api/v1/matches/{match_id}/actions", action, format="json")
        assert response.status_code == 200, response.content
    raise AssertionError("the match did not end")


def four_people(names=("alice", "bob", "carol", "dave"), target=1) -> tuple[dict, str]:
    """A match of four people (south, west, north, east) played to the end."""
    clients = {i: make_player(name)[1] for i, name in enumerate(names)}
    match_id = create_match(clients[0], OPEN, options={"target_score": target})["id"]
    for seat in (1, 2, 3):
        response = clients[seat].post(
            f"/api/v1/matches/{match_id}/join", {"seat": seat}, format="json"
        )
        assert response.status_code == 200, response.content
    play_all(clients, match_id)
    return clients, match_id


def history(client, username: str, **params) -> dict:
    response = client.get(f"/api/v1/users/{username}/matches", params)
    assert response.status_code == 200, response.content
    return response.json()


def stats(client, username: str) -> dict:
    response = client.get(f"/api/v1/users/{username}/stats")
    assert response.status_code == 200, response.content
    return response.json()


# ---------------------------------------------------------------- history


def test_a_finished_match_is_in_the_history_with_what_a_result_table_shows(player):
    _user, client = player
    final = quick(client)
    page = history(client, "alice")
    assert page["previous"] is None and page["next"] is None
    [item] = page["results"]
    assert item["match"] == final["id"]
    assert item["result"] == ("won" if final["winner_team"] == 0 else "lost")
    assert item["scores"] == [final["scores"][0], final["scores"][1]]
    assert item["hands"] == final["hands_played"]
    assert item["opposition"] == "random" and item["seat"] == 0 and item["team"] == 0
    assert [p["kind"] for p in item["players"]] == ["human"] + ["computer"] * 3
    assert [p["level"] for p in item["players"][1:]] == ["random"] * 3
    assert item["options"]["target_score"] == 1
    assert item["rating"]["after"] == pytest.approx(
        item["rating"]["before"] + item["rating"]["change"]
    )
    assert "deck" not in str(item) and "action" not in str(item)  # no cards, no bids


def test_a_match_being_played_or_abandoned_is_not_in_the_history(player):
    _user, client = player
    playing = create_match(client, RANDOM)["id"]
    abandoned = create_match(client, RANDOM)["id"]
    assert client.post(f"/api/v1/matches/{abandoned}/leave").status_code == 200
    assert Match.objects.get(pk=abandoned).status == "abandoned"
    assert history(client, "alice")["results"] == []
    assert stats(client, "alice")["all"]["matches"] == 0
    assert not RatingChange.objects.exists() and playing


def test_the_history_pages_with_a_cursor_newest_first(player):
    _user, client = player
    ids = [quick(client)["id"] for _ in range(5)]
    seen, params = [], {"page_size": 2}
    while True:
        page = history(client, "alice", **params)
        seen += [item["match"] for item in page["results"]]
        if page["next"] is None:
            break
        params = {"page_size": 2, "cursor": page["next"].split("cursor=")[1].split("&")[0]}
    assert seen == ids[::-1]
    response = client.get("/api/v1/users/alice/matches", {"cursor": "not-a-cursor"})
    assert_error(response, 400, "invalid_cursor")
    response = client.get("/api/v1/users/alice/matches", {"page_size": 101})
    assert_error(response, 400, "invalid_input")


def test_the_history_filters_by_result_and_rules_and_day(player):
    _user, client = player
    one = [quick(client, target=1) for _ in range(3)]
    two = quick(client, target=2, stick_the_dealer=False)
    assert {i["match"] for i in history(client, "alice", target_score=2)["results"]} == {two["id"]}
    no_stick = history(client, "alice", stick_the_dealer="false")["results"]
    assert [i["match"] for i in no_stick] == [two["id"]]
    assert len(history(client, "alice", stick_the_dealer="true")["results"]) == 3
    won = {m["id"] for m in [*one, two] if m["winner_team"] == 0}
    assert {i["match"] for i in history(client, "alice", result="won")["results"]} == won
    lost = history(client, "alice", result="lost")["results"]
    assert len(lost) == 4 - len(won)
    today = datetime.datetime.now(datetime.UTC).date()
    day = datetime.timedelta(days=1)
    assert len(history(client, "alice", since=today, until=today)["results"]) == 4
    assert history(client, "alice", since=today + day)["results"] == []
    assert history(client, "alice", until=today - day)["results"] == []
    assert len(history(client, "alice", opposition="random")["results"]) == 4
    assert history(client, "alice", opposition="people")["results"] == []
    response = client.get("/api/v1/users/alice/matches", {"result": "drawn"})
    assert_error(response, 400, "invalid_input")
    response = client.get("/api/v1/users/alice/matches", {"colour": "red"})
    assert_error(response, 400, "invalid_input")


def test_the_history_filters_by_opponent_and_partner(db):
    clients, match_id = four_people()
    _bob, _carol = clients[1], clients[2]
    alice = clients[0]
    assert [i["match"] for i in history(alice, "alice", opponent="bob")["results"]] == [match_id]
    assert [i["match"] for i in history(alice, "alice", opponent="DAVE")["results"]] == [match_id]
    assert history(alice, "alice", opponent="carol")["results"] == []
    assert [i["match"] for i in history(alice, "alice", partner="carol")["results"]] == [match_id]
    assert history(alice, "alice", partner="bob")["results"] == []
    assert history(alice, "alice", partner="alice")["results"] == []  # not their own partner
    [item] = history(alice, "bob")["results"]  # another's history
    assert item["seat"] == 1 and item["opposition"] == "people"
    assert [p["username"] for p in item["players"]] == ["alice", "bob", "carol", "dave"]


# ---------------------------------------------------------------- statistics


def test_the_statistics_are_the_hands_of_the_log(player):
    _user, client = player
    finals = [quick(client, target=3) for _ in range(2)] + [quick(client, HARD, target=2)]
    body = stats(client, "alice")
    hands = Hand.objects.filter(match_id__in=[f["id"] for f in finals])
    made = hands.filter(maker=0).exclude(result="")
    expected = {
        "matches": 3,
        "wins": sum(f["winner_team"] == 0 for f in finals),
        "hands": hands.count(),
        "points": sum(f["scores"][0] for f in finals),
        "made_trump": made.count(),
        "euchred": made.filter(result__startswith="euchred").count(),
        "alone_tried": made.filter(alone=True).count(),
        "alone_made": made.filter(alone=True).exclude(result__startswith="euchred").count(),
    }
    assert {k: body["all"][k] for k in expected} == expected
    assert body["all"]["losses"] == 3 - expected["wins"]
    assert body["all"]["win_rate"] == pytest.approx(expected["wins"] / 3)
    assert body["all"]["points_per_hand"] == pytest.approx(expected["points"] / expected["hands"])
    assert body["random"]["matches"] == 2 and body["hard"]["matches"] == 1
    assert body["people"]["matches"] == body["easy"]["matches"] == 0
    assert body["people"]["win_rate"] is None  # no matches: no rate
    assert body["rating"]["matches"] == 3 and body["rating"]["place"] == 1


def test_someone_who_left_keeps_the_result_and_it_counts_against_people_and_a_computer(db):
    _alice, alice = make_player("alice")
    _bob, bob = make_player("bob")
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "computer", "level": "easy"},
             {"kind": "computer", "level": "easy"}]  # fmt: skip
    match_id = create_match(alice, seats, options={"target_score": 1})["id"]
    assert bob.post(f"/api/v1/matches/{match_id}/join", {}, format="json").status_code == 200
    assert bob.post(f"/api/v1/matches/{match_id}/leave").status_code == 200
    final = play_to_the_end(alice, match_id)
    [item] = history(alice, "bob")["results"]
    assert item["left"] is True and item["players"][1]["left"] is True
    assert item["result"] == ("won" if final["winner_team"] == 1 else "lost")
    assert item["opposition"] == "mixed" and item["rating"] is not None
    assert history(bob, "alice")["results"][0]["opposition"] == "mixed"  # a person and a computer


# ---------------------------------------------------------------- who sees what


def test_a_guests_record_is_theirs_alone_and_a_guest_is_never_rated(player):
    _user, alice = player
    visitor = guest()
    final = quick(visitor)
    [item] = history(visitor, visitor.username)["results"]
    assert item["match"] == final["id"] and item["rating"] is None
    assert stats(visitor, visitor.username)["guest"] is True
    assert stats(visitor, visitor.username)["rating"] is None
    assert_error(alice.get(f"/api/v1/users/{visitor.username}/matches"), 404, "user_not_found")
    assert_error(alice.get(f"/api/v1/users/{visitor.username}/stats"), 404, "user_not_found")
    assert not Rating.objects.exists()
    # ...and a guest may read a registered person's record
    quick(alice)
    assert len(history(visitor, "alice")["results"]) == 1
    assert stats(visitor, "Alice")["all"]["matches"] == 1  # names ignore case


def test_a_person_at_a_table_with_a_guest_is_rated_and_the_guest_plays_as_a_newcomer(player):
    _user, alice = player
    visitor = guest()
    seats = [{"kind": "me"}, {"kind": "computer", "level": "medium"}, {"kind": "open"},
             {"kind": "computer", "level": "medium"}]  # fmt: skip
    match_id = create_match(alice, seats, options={"target_score": 1})["id"]
    assert visitor.post(f"/api/v1/matches/{match_id}/join", {}, format="json").status_code == 200
    play_all({0: alice, 2: visitor}, match_id)
    [change] = RatingChange.objects.all()
    assert change.user.username == "alice"
    won = Match.objects.get(pk=match_id).winner_team == 0
    newcomer, medium = ratings.NEWCOMER, ratings.computer("medium")
    team0, team1 = ratings.rate(([newcomer, newcomer], [medium, medium]), 0 if won else 1)
    assert (change.mu_after, change.sigma_after) == (team0[0].mu, team0[0].sigma)


def test_records_need_a_token_and_a_user_that_exists(player):
    _user, client = player
    assert_error(APIClient().get("/api/v1/users/alice/matches"), 401, "not_authenticated")
    assert_error(APIClient().get("/api/v1/users/alice/stats"), 401, "not_authenticated")
    assert_error(APIClient().get("/api/v1/leaderboard"), 401, "not_authenticated")
    assert_error(client.get("/api/v1/users/nobody/matches"), 404, "user_not_found")
    assert_error(client.get("/api/v1/users/nobody/stats"), 404, "user_not_found")


def test_a_matchs_rating_changes_are_for_the_people_seated_at_it(player, other_player):
    _user, alice = player
    _bob, bob = other_player
    match_id = create_match(alice, RANDOM, options={"target_score": 1})["id"]
    assert alice.get(f"/api/v1/matches/{match_id}/ratings").json() == {"changes": []}
    play_to_the_end(alice, match_id)
    [change] = alice.get(f"/api/v1/matches/{match_id}/ratings").json()["changes"]
    assert change["seat"] == 0 and change["username"] == "alice"
    assert change["after"] - change["before"] == pytest.approx(change["change"])
    assert_error(bob.get(f"/api/v1/matches/{match_id}/ratings"), 404, "not_found")


# ---------------------------------------------------------------- ratings


def test_four_people_partners_move_together_and_opponents_the_other_way(db):
    clients, match_id = four_people()
    winner = Match.objects.get(pk=match_id).winner_team
    changes = {c.seat: c for c in RatingChange.objects.filter(match_id=match_id)}
    assert set(changes) == {0, 1, 2, 3}
    for seat, c in changes.items():
        assert (c.mu_after > c.mu_before) == (seat % 2 == winner)
        assert c.sigma_after < c.sigma_before  # more known after a match
    assert changes[0].mu_after == changes[2].mu_after  # partners, both newcomers
    board = clients[0].get("/api/v1/leaderboard").json()
    assert board["count"] == 4
    assert [e["place"] for e in board["top"]] == [1, 2, 3, 4]
    winners = {e["username"] for e in board["top"][:2]}
    assert winners == ({"alice", "carol"} if winner == 0 else {"bob", "dave"})
    assert board["top"][0]["rating"] >= board["top"][1]["rating"] > board["top"][2]["rating"]
    you = board["you"]
    assert you["username"] == "alice" and you["place"] == (1 if winner == 0 else 3)
    assert [e["username"] for e in clients[1].get("/api/v1/leaderboard", {"limit": 1}).json()[
        "top"]] == [board["top"][0]["username"]]  # fmt: skip


def test_an_unrated_caller_has_no_place_on_the_leaderboard(player, other_player):
    _user, alice = player
    quick(alice)
    board = other_player[1].get("/api/v1/leaderboard").json()
    assert board["you"] is None and [e["username"] for e in board["top"]] == ["alice"]
    assert board["newcomer"] == 0
    assert_error(other_player[1].get("/api/v1/leaderboard", {"limit": 0}), 400, "invalid_input")


def test_beating_hard_computers_is_worth_more_than_beating_random_ones():
    me = ratings.NEWCOMER
    hard, rnd = ratings.computer("hard"), ratings.computer("random")
    after_hard = ratings.rate(([me, me], [hard, hard]), 0)[0][0]
    after_random = ratings.rate(([me, me], [rnd, rnd]), 0)[0][0]
    assert after_hard.mu > after_random.mu > me.mu
    lost_random = ratings.rate(([me, me], [rnd, rnd]), 1)[0][0]
    lost_hard = ratings.rate(([me, me], [hard, hard]), 1)[0][0]
    assert lost_random.mu < lost_hard.mu < me.mu


@pytest.mark.parametrize(
    "strong, weak, measured",
    [("hard", "medium", 0.5985), ("medium", "easy", 0.869), ("easy", "random", 0.989)],
)
def test_the_computer_levels_fixed_ratings_predict_their_measured_win_rates(strong, weak, measured):
    """docs/bots.md's simulations (and Easy against Random, 1,000 matches, seed 5)."""
    a, b = ratings.computer(strong), ratings.computer(weak)
    assert ratings.win_chance([a, a], [b, b]) == pytest.approx(measured, abs=0.002)


# ---------------------------------------------------------------- rebuilt from the logs


def _snapshot(client, names) -> dict:
    return {
        "records": sorted(
            MatchRecord.objects.values_list(
                "match_id", "user_id", "seat", "won", "finished_at", "opposition", "points_for",
                "hands", "made_trump", "euchred", "alone_tried", "alone_made", "left", "guest",
            )
        ),
        "ratings": sorted(
            Rating.objects.values_list("user_id", "mu", "sigma", "ordinal", "matches")
        ),
        "changes": sorted(
            RatingChange.objects.values_list(
                "match_id", "user_id", "mu_before", "sigma_before", "mu_after", "sigma_after"
            )
        ),
        "stats": {n: stats(client, n) for n in names},
        "history": {n: history(client, n)["results"] for n in names},
        "board": client.get("/api/v1/leaderboard").json(),
    }  # fmt: skip


def test_wiping_records_and_ratings_and_rebuilding_from_the_logs_gives_the_same_numbers(db):
    clients, _ = four_people(target=2)
    alice, bob = clients[0], clients[1]
    for _ in range(2):  # ratings carry over from match to match
        play_all(clients, _four_again(clients))
    quick(alice, HARD)
    quick(bob, target=2)
    visitor = guest()
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "computer", "level": "easy"},
             {"kind": "computer", "level": "easy"}]  # fmt: skip
    match_id = create_match(alice, seats, options={"target_score": 1})["id"]
    assert visitor.post(f"/api/v1/matches/{match_id}/join", {}, format="json").status_code == 200
    play_all({0: alice, 1: visitor}, match_id)
    abandoned = create_match(bob, RANDOM)["id"]
    bob.post(f"/api/v1/matches/{abandoned}/leave")
    names = ("alice", "bob", "carol", "dave")
    before = _snapshot(alice, names)
    assert len(before["records"]) == 3 * 4 + 2 + 2 and len(before["ratings"]) == 4

    MatchRecord.objects.all().delete()
    Rating.objects.all().delete()
    RatingChange.objects.all().delete()
    assert stats(alice, "alice")["all"]["matches"] == 0
    call_command("rebuild_projections", "--all", stdout=open("/dev/null", "w"))

    assert _snapshot(alice, names) == before


def test_rebuilding_one_match_rewrites_its_records_and_keeps_the_ratings(player):
    _user, client = player
    final = quick(client)
    ratings_before = list(Rating.objects.values_list("mu", "sigma"))
    MatchRecord.objects.all().delete()
    call_command("rebuild_projections", final["id"], stdout=open("/dev/null", "w"))
    assert MatchRecord.objects.get().match_id.hex == final["id"].replace("-", "")
    assert list(Rating.objects.values_list("mu", "sigma")) == ratings_before
    assert RatingChange.objects.count() == 1


def _four_again(clients) -> str:
    match_id = create_match(clients[0], OPEN, options={"target_score": 2})["id"]
    for seat in (1, 2, 3):
        response = clients[seat].post(
            f"/api/v1/matches/{match_id}/join", {"seat": seat}, format="json"
        )
        assert response.status_code == 200, response.content
    return match_id


def test_odd_names_and_the_last_day_there_is_are_answered_not_failed(player):
    """The hostile suite's kind of input: a NUL in the name (PostgreSQL refuses it in
    text), and `until` the last date a date can be (the day after it does not exist)."""
    _user, client = player
    quick(client)
    assert_error(client.get("/api/v1/users/al%00ice/matches"), 404, "user_not_found")
    assert_error(client.get("/api/v1/users/al%00ice/stats"), 404, "user_not_found")
    assert_error(client.get("/api/v1/users/alice/matches?opponent=b%00b"), 400, "bad_request")
    assert len(history(client, "alice", until="9999-12-31")["results"]) == 1
    assert len(history(client, "alice", since="0001-01-01")["results"]) == 1


def test_a_match_about_to_finish_waits_for_one_finishing_now(db):
    """Ratings follow the finish order: the transaction that appends a match_finished
    event first takes the finishing lock (records.finishing), so two matches finishing
    at once are stamped and rated one after the other, as the rebuild replays them."""
    held, release = threading.Event(), threading.Event()

    def finishing_elsewhere() -> None:
        try:
            with transaction.atomic():
                projections.before_append([V.NewEvent(V.MATCH_FINISHED, None, {})])
                held.set()
                release.wait(10)
        finally:
            connections.close_all()

    other = threading.Thread(target=finishing_elsewhere)
    other.start()
    try:
        assert held.wait(10)

        def try_to(events) -> bool:
            try:
                with transaction.atomic():
                    with connection.cursor() as cursor:
                        cursor.execute("SET LOCAL lock_timeout = '300ms'")
                    projections.before_append(events)
                return True
            except OperationalError:
                return False

        assert try_to([V.NewEvent(V.CARD_PLAYED, 0, {})])  # any other event: no wait
        assert not try_to([V.NewEvent(V.MATCH_FINISHED, None, {})])  # waits its turn
        release.set()
        other.join(10)
        assert try_to([V.NewEvent(V.MATCH_FINISHED, None, {})])
    finally:
        release.set()
        other.join(10)
