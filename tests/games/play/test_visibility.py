"""After every event of a full match, each seat sees only what a person at that seat may."""

import re
from typing import Any

import pytest

from games.models import Event
from tests.conftest import make_player
from tests.games.helpers import act, four_player_match, view

CARD = re.compile(r"^(?:(?:[9TJQKA]|10)[CDHS]|JK)$")  # JK: the joker (option joker)


def cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value)) if value else set()
    return set()


def allowed_cards(match_id: str, seat: int) -> set[str]:
    """What `seat` may know of the hand being played: its own dealt cards (a dealer to
    name a joker upcard's suit: not before naming it), the upcard,
    the cards played so far, (for the dealer) its own discard, (for a farmer) the
    cards it took from under the upcard, the hand a seat showed to call a redeal
    in the hand before (the last hand's summary shows it), and (for the farmer of the
    hand before) the cards it exchanged then (the same summary shows it to the farmer)."""
    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    deck, dealer = deal.payload["deck"], deal.payload["dealer"]
    position = (seat - dealer - 1) % 4
    allowed = set(deck[5 * position : 5 * position + 5]) | {deck[20]}
    later = Event.objects.filter(match_id=match_id, seq__gt=deal.seq)
    if seat == dealer and deal.payload.get("dealer_names_suit"):
        # A joker upcard: the dealer looks at their hand only once they have named its suit.
        if not later.filter(type="bid", payload__action__type="name_suit").exists():
            allowed = {deck[20]}
    for event in later:
        if event.type == "card_played":
            allowed.add(event.payload["action"]["card"])
        if event.type == "discard" and event.seat == seat:
            allowed.add(event.payload["action"]["card"])
    farmed = later.filter(type="farm_exchange", seat=seat).count()
    if farmed == 3:  # the exchange is done: the three cards under the upcard are its own
        allowed |= set(deck[21:24])
    before = Event.objects.filter(match_id=match_id, seq__lt=deal.seq, type="hand_thrown_in")
    last = before.order_by("-seq").first()
    if last is not None:
        allowed |= set(last.payload.get("cards", []))
    deals = Event.objects.filter(match_id=match_id, type="hand_dealt", seq__lt=deal.seq)
    previous = deals.order_by("-seq").first()
    if previous is not None:  # the last hand's summary shows its farmer what it exchanged
        between = Event.objects.filter(match_id=match_id, seq__gt=previous.seq, seq__lt=deal.seq)
        farmed = between.filter(type="farm_exchange", seat=seat)
        if farmed.count() == 3:
            allowed |= {e.payload["action"]["card"] for e in farmed}
            allowed |= set(previous.payload["deck"][21:24])
    return allowed


def check_seat(client, match_id: str, seat: int) -> None:
    body = view(client, match_id)
    if body["status"] == "finished":
        return
    allowed = allowed_cards(match_id, seat)
    assert cards_in(body) <= allowed, f"seat {seat} view shows {cards_in(body) - allowed}"
    assert not {"deck", "salt", "kitty", "hands"} & keys_in(body)

    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    events = client.get(f"/api/v1/matches/{match_id}/events", {"after": deal.seq - 1}).json()
    current = cards_in(events["events"])
    assert current <= allowed, f"seat {seat} events show {current - allowed}"
    assert not {"deck", "salt", "kitty", "hands"} & keys_in(events["events"][:1])
    whole_log = client.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    for event in whole_log:
        if event["type"] == "hand_dealt":
            assert "deck" not in event["payload"] and "salt" not in event["payload"]
        if event["type"] in ("discard", "farm_exchange") and event["seat"] != seat:
            assert "card" not in event["payload"]["action"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "options",
    [
        {"target_score": 5},
        # the table variants, each on (docs/rules.md): every seat plays its last legal
        # action, so a farmer's hand is always exchanged and a redeal always called
        {"target_score": 3, "joker": True},
        {"target_score": 3, "joker": True, "joker_upcard": "hearts"},
        {"target_score": 3, "farmers_hand": True},
        # ...and a farmer's hand always asks for a new deal: its cards are shown to all
        {"target_score": 3, "farmers_hand": True, "farmers_hand_form": "redeal"},
        {"target_score": 3, "no_ace_no_face_no_trump": True},
    ],
    ids=[
        "defaults",
        "joker",
        "joker_fixed_suit",
        "farmers_hand",
        "farmers_hand_redeal",
        "no_ace_no_face_no_trump",
    ],
)
def test_each_seat_sees_only_its_own_cards_after_every_event_of_a_match(options):
    clients = [make_player(name)[1] for name in ("south", "west", "north", "east")]
    match_id = four_player_match(clients, options=options)
    for _ in range(2000):
        bodies = [view(c, match_id) for c in clients]
        if bodies[0]["status"] == "finished":
            break
        for seat, client in enumerate(clients):
            check_seat(client, match_id, seat)
        turn = bodies[0]["view"]["turn"]
        legal = bodies[turn]["view"]["legal_actions"]
        assert act(clients[turn], match_id, legal[-1]).status_code == 200
    else:
        raise AssertionError("the match did not end")

    final = client.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    assert any("deck" in e["payload"] for e in final if e["type"] == "hand_dealt")


@pytest.mark.django_db(transaction=True)
def test_people_leaving_one_by_one_until_the_match_is_abandoned_see_only_their_own_cards():
    """The leak check through the end that match_abandoned makes: after each person
    leaves, the others still see only their own; once nobody is left, the log as any
    seat (or a spectator) would get it keeps the hand being played secret."""
    from games.log.events import EVENT_TYPES
    from games.models import Match
    from games.play import selectors

    clients = [make_player(name)[1] for name in ("south", "west", "north", "east")]
    match_id = four_player_match(clients, options={"target_score": 5})
    for _ in range(12):  # into the play of the first hand
        body = view(clients[0], match_id)
        turn = body["view"]["turn"]
        act(clients[turn], match_id, view(clients[turn], match_id)["view"]["legal_actions"][-1])
    for leaving in range(4):
        assert clients[leaving].post(f"/api/v1/matches/{match_id}/leave").status_code == 200
        assert clients[leaving].get(f"/api/v1/matches/{match_id}").status_code == 404
        for seat in range(leaving + 1, 4):
            check_seat(clients[seat], match_id, seat)

    match = Match.objects.get(pk=match_id)
    assert match.status == "abandoned"
    types = set(Event.objects.filter(match=match).values_list("type", flat=True))
    assert "match_abandoned" in types
    unrevealed = Event.objects.filter(match=match, type="hand_dealt").order_by("-seq").first()
    assert not Event.objects.filter(
        match=match, type="hand_revealed", payload__hand=unrevealed.payload["hand"]
    ).exists()
    for seat in (0, 1, 2, 3, None):
        events = selectors.events_for_seat(match=match, seat=seat)
        for event in events:
            if event["type"] == "hand_dealt":
                assert "deck" not in event["payload"] and "salt" not in event["payload"]
            if event["type"] == "discard" and event["seat"] != seat:
                assert "card" not in event["payload"]["action"]
        current = [e for e in events if e["seq"] > unrevealed.seq]
        played = {
            e.payload["action"]["card"]
            for e in Event.objects.filter(match=match, type="card_played")
        }
        # A seat: its own dealt cards, the upcard, what was played; a spectator: the last two.
        allowed = allowed_cards(match_id, seat) if seat is not None else set()
        allowed |= {unrevealed.payload["deck"][20]} | played
        assert cards_in(current) <= allowed, f"seat {seat} sees {cards_in(current) - allowed}"
    assert types <= set(EVENT_TYPES)


def spectator_allowed_cards(match_id: str) -> set[str]:
    """What a spectator may know of the hand being played: the upcard and the cards played."""
    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    later = Event.objects.filter(match_id=match_id, seq__gt=deal.seq, type="card_played")
    return {deal.payload["deck"][20]} | {e.payload["action"]["card"] for e in later}


def check_spectator(client, match_id: str) -> None:
    """The spectator's view, its events and the whole log, as check_seat does for a seat."""
    body = view(client, match_id)
    if body["status"] == "finished":
        return
    assert body["you"] is None and "view" not in body
    assert not {"seat", "seat_name", "legal_actions"} & set(body["spectator_view"])
    allowed = spectator_allowed_cards(match_id)
    assert cards_in(body) <= allowed, f"the spectator's view shows {cards_in(body) - allowed}"
    assert not {"deck", "salt", "kitty", "hands", "my_discard"} & keys_in(body)
    if body["spectator_view"]["hand"] is not None:  # (a trick's "cards" are cards played)
        assert "cards" not in body["spectator_view"]["hand"]

    deal = Event.objects.filter(match_id=match_id, type="hand_dealt").order_by("-seq").first()
    events = client.get(f"/api/v1/matches/{match_id}/events", {"after": deal.seq - 1}).json()
    current = cards_in(events["events"])
    assert current <= allowed, f"the spectator's events show {current - allowed}"
    whole_log = client.get(f"/api/v1/matches/{match_id}/events").json()["events"]
    for event in whole_log:
        if event["type"] == "hand_dealt":
            assert not {"deck", "salt", "cards"} & set(event["payload"])
        if event["type"] == "discard":
            assert "card" not in event["payload"]["action"]
    replay = client.get(f"/api/v1/matches/{match_id}/replay")
    assert replay.status_code == 409 and replay.json()["code"] == "match_not_finished"


# Several public matches, each under other rules: every way a hand can go (alone, defending
# alone, thrown in, discards) is met, and the spectator is checked after every event.
PUBLIC_MATCHES = [
    {"target_score": 5},
    {"target_score": 3, "stick_the_dealer": False, "lone_lead": "loner_left"},
    {"target_score": 3, "defending_alone": True, "lone_lead": "canadian"},
]


@pytest.mark.django_db(transaction=True)
def test_a_spectator_sees_no_hidden_card_after_every_event_of_several_public_matches():
    _, spectator = make_player("watcher")
    seen_types: set[str] = set()
    for n, options in enumerate(PUBLIC_MATCHES):
        clients = [make_player(f"{name}{n}")[1] for name in ("south", "west", "north", "east")]
        match_id = four_player_match(clients, options=options, visibility="public")
        checked = 0
        for step in range(3000):
            bodies = [view(c, match_id) for c in clients]
            if bodies[0]["status"] == "finished":
                break
            check_spectator(spectator, match_id)
            checked = Event.objects.filter(match_id=match_id).count()
            turn = bodies[0]["view"]["turn"]
            legal = bodies[turn]["view"]["legal_actions"]
            # Vary the choices: the last legal action mostly, the first now and then.
            chosen = legal[0] if step % 5 == 0 else legal[-1]
            assert act(clients[turn], match_id, chosen).status_code == 200
        else:
            raise AssertionError("the match did not end")
        assert checked > 20
        seen_types |= set(Event.objects.filter(match_id=match_id).values_list("type", flat=True))
        # Once finished, the spectator sees everything, as the seats do, and the replay.
        final = spectator.get(f"/api/v1/matches/{match_id}/events").json()["events"]
        assert any("deck" in e["payload"] for e in final if e["type"] == "hand_dealt")
        assert spectator.get(f"/api/v1/matches/{match_id}/replay").status_code == 200
    assert {"discard", "card_played", "hand_revealed", "match_finished"} <= seen_types


def test_an_event_type_the_filter_does_not_know_shows_no_payload():
    """Fail closed: a type added later and forgotten in events.redact leaks
    nothing; every known type is either filtered or listed as public."""
    from django.utils import timezone

    from games.log import events
    from games.log.events import EVENT_TYPES

    hidden = {"hand_dealt", "bid", "discard", "farm_exchange"}  # bid: a naming's cards
    assert set(EVENT_TYPES) - events.PUBLIC_EVENT_TYPES == hidden
    secret = Event(seq=9, type="hand_peeked", seat=None, payload={"deck": ["9C"]})
    secret.created_at = timezone.now()
    assert events.event_for_seat(secret, 0, finished=False)["payload"] == {}
