"""GET /api/v1/me/stream, the player's own feed: through real uvicorn processes, PostgreSQL
and Redis (issue 11). Everything addressed to a person across their matches, pushed on
commit, resumable with Last-Event-ID, and never another person's."""

import time

import pytest
import requests
from django.test import Client

from tests.games.helpers import assert_error
from tests.games.server_support import Player, SseClient

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SHORT = {"target_score": 3}


def feed(player: Player, last_event_id: int | None = None) -> SseClient:
    headers = dict(player.headers)
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    client = SseClient(f"{player.server.url}/api/v1/me/stream", headers)
    # After what was missed, before live items: from here on nothing is lost.
    client.wait_for(lambda c: ": live" in c.comments, what="the feed to be live")
    return client


def create(player: Player, seats: list[str]) -> str:
    body = {"seats": [{"kind": s} for s in seats], "options": SHORT}
    return player.call("POST", "matches", body, status=201)["id"]


def kinds(client: SseClient, match_id: str | None = None) -> list[str]:
    return [e["type"] for e in client.events if match_id is None or e["match"] == match_id]


def has(client: SseClient, kind: str, match_id: str, count: int = 1):
    return lambda c: kinds(c, match_id).count(kind) >= count


def feed_item_validator():
    from drf_spectacular.generators import SchemaGenerator

    from tests.games.http.test_schema_contract import validator

    return validator(SchemaGenerator().get_schema(request=None, public=True), "FeedItem")


def act_first_legal(player: Player, match_id: str) -> dict:
    view = player.call("GET", f"matches/{match_id}")
    legal = view["view"]["legal_actions"]
    assert legal, view["view"]
    return player.call("POST", f"matches/{match_id}/actions", legal[0])


def test_a_seat_taken_the_start_and_your_turn_reach_the_right_person_at_once(servers):
    # Keep-alives an hour apart: what reaches a feed in this test was pushed on commit,
    # not found when a keep-alive woke the feed.
    server = servers(STREAM_KEEPALIVE_SECONDS="3600")
    alice, bob = Player(server), Player(server)
    alices_feed, bobs_feed = feed(alice), feed(bob)
    match_id = create(alice, ["me", "open", "computer", "computer"])
    elsewhere = create(alice, ["me", "computer", "computer", "computer"])  # not bob's

    alices_feed.wait_for(has(alices_feed, "your_turn", elsewhere), what="alice's turn")
    bob.call("POST", f"matches/{match_id}/join", {"seat": 1})
    # Seat 0 bids first (the first dealer is east): alice's turn, pushed on commit.
    alices_feed.wait_for(has(alices_feed, "your_turn", match_id), what="alice's turn")
    assert kinds(alices_feed, match_id)[-4:] == [
        "seat_taken", "seat_taken", "match_started", "your_turn"
    ]  # fmt: skip
    taken = [e for e in alices_feed.events if e["type"] == "seat_taken" and e["match"] == match_id]
    assert {(e["seat"], e["you"]) for e in taken} >= {(0, True), (1, False)}
    assert taken[-1]["username"] == bob.username
    turns = [e for e in alices_feed.events if e["type"] == "your_turn"]
    turn = next(e for e in turns if e["match"] == match_id)
    assert turn["seat"] == 0 and turn["deadline"] is None and turn["seq"] >= 1
    bobs_feed.wait_for(has(bobs_feed, "match_started", match_id), what="the start, for bob")
    assert "your_turn" not in kinds(bobs_feed)

    act_first_legal(alice, match_id)  # alice passes or orders up: then bob's turn, or play on
    view = alice.call("GET", f"matches/{match_id}")
    if view["view"]["turn"] == 1:  # pushed: no keep-alive comes within the test
        bobs_feed.wait_for(has(bobs_feed, "your_turn", match_id), what="bob's turn")
    assert elsewhere not in {e["match"] for e in bobs_feed.events}  # never another's match
    assert alices_feed.ids == sorted(alices_feed.ids) and len(set(alices_feed.ids)) == len(
        alices_feed.ids
    )
    alices_feed.close()
    bobs_feed.close()


def test_a_phone_that_reconnects_gets_exactly_what_it_missed_across_two_matches(servers):
    server = servers()
    alice, bob = Player(server), Player(server)
    first = create(alice, ["me", "computer", "computer", "computer"])
    second = create(alice, ["me", "open", "computer", "computer"])
    before = feed(alice)
    before.wait_for(has(before, "your_turn", first), what="the current turn")
    seen = before.ids[-1]
    before.close()

    # While the phone is away: bob sits down at the second match (it starts: alice's turn
    # there), and alice plays on in the first from another device until it is her turn again.
    bob.call("POST", f"matches/{second}/join", {"seat": 1})
    seq_before = alice.call("GET", f"matches/{first}")["seq"]
    act_first_legal(alice, first)
    for _ in range(200):
        view = alice.call("GET", f"matches/{first}")
        if view["view"]["turn"] == 0 and view["seq"] > seq_before + 1:
            break
        if view["view"]["legal_actions"]:
            act_first_legal(alice, first)
        time.sleep(0.05)

    after = feed(alice, last_event_id=seen)
    after.wait_for(has(after, "your_turn", second), what="the second match's turn")
    after.wait_for(has(after, "your_turn", first), what="the first match's turn")
    time.sleep(0.5)  # anything more would come now
    missed = [(e["match"], e["type"]) for e in after.events]
    assert (second, "seat_taken") in missed and (second, "match_started") in missed
    assert [k for m, k in missed if m == second] == ["seat_taken", "match_started", "your_turn"]
    assert [k for m, k in missed if m == first] == ["your_turn"]  # only the turn that is hers now
    assert all(i > seen for i in after.ids)  # nothing she had again
    assert after.ids == sorted(after.ids)
    after.close()

    check = feed_item_validator()
    for item in before.events + after.events:
        check.validate(item)  # every item is what the committed schema says (FeedItem)

    # The same cursor again gives the same items: the feed is stored (it is the log).
    again = feed(alice, last_event_id=seen)
    again.wait_for(lambda c: len(c.events) >= len(missed), what="the same items")
    assert [(e["match"], e["type"]) for e in again.events][: len(missed)] == missed
    again.close()


@pytest.mark.parametrize("mode", ["redis", "embedded"])
def test_a_match_joined_while_connected_is_followed_at_once(servers, mode):
    server = servers() if mode == "redis" else servers(REDIS_URL="")  # its own hub
    alice, bob = Player(server), Player(server)
    match_id = create(alice, ["me", "open", "computer", "computer"])
    bobs_feed = feed(bob)
    bob.call("POST", f"matches/{match_id}/join")
    bobs_feed.wait_for(has(bobs_feed, "match_started", match_id), what="the start")
    assert kinds(bobs_feed, match_id)[0] == "seat_taken"  # his own, nothing from before it
    assert bobs_feed.events[0]["you"] is True
    bobs_feed.close()


def test_a_cursor_older_than_the_retention_is_told_to_resync(servers):
    server = servers(FEED_RETENTION_SECONDS="1")
    alice = Player(server)
    create(alice, ["me", "computer", "computer", "computer"])
    time.sleep(1.5)
    response = requests.get(
        f"{server.url}/api/v1/me/stream",
        headers={**alice.headers, "Last-Event-ID": "0"},
        timeout=10,
    )
    assert response.status_code == 410
    assert response.json()["code"] == "feed_cursor_expired"
    assert "/me/matches" in response.json()["detail"]
    fresh = feed(alice)  # without a cursor: the current turns, then live
    fresh.wait_for(lambda c: "your_turn" in kinds(c), what="the current turn")
    fresh.close()


def test_the_feed_needs_a_token_and_a_well_formed_cursor():
    assert_error(Client().get("/api/v1/me/stream"), 401, "not_authenticated")
    bad = Client().get("/api/v1/me/stream", HTTP_AUTHORIZATION="Token nope")
    assert_error(bad, 401, "authentication_failed")
    response = Client().post("/api/v1/me/stream")
    assert_error(response, 405, "method_not_allowed")


def test_a_bad_last_event_id_is_invalid_input(player):
    _user, client = player
    token = client._credentials["HTTP_AUTHORIZATION"]
    response = Client().get("/api/v1/me/stream", HTTP_AUTHORIZATION=token, HTTP_LAST_EVENT_ID="12x")
    assert_error(response, 400, "invalid_input")


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("Threads:")).split()[1])


def test_feeds_hold_no_thread_each(servers):
    """An earlier try held a thread per feed (1011 threads for 1000 feeds): a feed is a
    coroutine, its reads in the event loop's small pool."""
    server = servers()
    people = [Player(server) for _ in range(40)]
    for person in people[:10]:
        create(person, ["me", "computer", "computer", "computer"])
    warm = feed(people[0])  # the pool and the hub exist before counting
    before = _threads(server.proc.pid)
    feeds = [feed(person) for person in people[1:]]
    assert _threads(server.proc.pid) <= before + 4, (before, _threads(server.proc.pid))
    for client in [warm, *feeds]:
        client.close()
