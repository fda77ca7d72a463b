"""The match review's valuation (bots/review.py): an obvious mistake is flagged with the
right action, a perfect hand shows none, and the "from what the seat knew" part never
reads a hidden card."""

import random

from bots.players import PLAYERS
from bots.review import Decision, ReviewBudget, knew_values, review_decision, review_match
from games import engine as E

from .positions import new_hand
from .test_players import POSITIONS, twin

BUDGET = ReviewBudget(samples=16)
SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3


def medium(state: E.MatchState) -> dict:
    return PLAYERS["medium"](E.player_view(state, state.turn), random.Random(0))


def play_hand(state: E.MatchState, script: dict[int, dict], person: int = SOUTH) -> list[Decision]:
    """Play the hand to its end: the person's n-th decision is script[n] if given, else
    Medium's; everyone else by the Medium rules. The person's decisions, as logged."""
    decisions = []
    seq = 0
    while state.turn is not None and state.phase != E.DEAL:
        seat = state.turn
        seq += 1
        if seat == person:
            action = script.get(len(decisions), medium(state))
            decisions.append(Decision(seq, state.hand_number, seat, state.clone(), action))
        else:
            action = medium(state)
        state.apply_action(seat, E.action_from_dict(action))
    return decisions


def test_discarding_the_right_bower_is_flagged_with_the_discard_that_was_right():
    # South deals with four hearts and the ace of spades and picks up the right bower
    # (the jack of hearts), then throws it away instead of the ace of spades.
    hands = {
        SOUTH: "AH KH QH TH AS",
        WEST: "9C TC QC KC AC",
        NORTH: "9S TS QS KS JS",
        EAST: "JD AD KD QD TD",
    }
    state = new_hand(SOUTH, hands, "JH")
    assert [a["type"] for a in (medium(state),)] == ["pass"]  # west passes: a sane deal
    pick_up = {"type": "order_up", "alone": False}
    blunder = {"type": "discard", "card": "JH"}
    decisions = play_hand(state, {0: pick_up, 1: blunder})
    assert decisions[1].state.phase == E.DISCARD
    reviewed = review_decision(decisions[1], BUDGET, "blunder")
    assert reviewed["mistake"], reviewed
    assert reviewed["best"] == {"type": "discard", "card": "AS"}
    assert reviewed["loss"] >= 0.5
    assert reviewed["sentence"].startswith("discarding the right bower gave up about")
    # Why, from what the dealer knew (bots/reasons.py), then the better discard explained.
    assert (
        "points: the right bower was a trump, and you could spare the ace of spades;"
        in (reviewed["sentence"])
    )
    assert "discard the ace of spades" in reviewed["sentence"]
    match = review_match(decisions, {SOUTH: "alice"}, BUDGET, "blunder")
    (hand,) = match["hands"]
    flagged = {m["seq"]: m for m in hand["mistakes"]}
    assert flagged[decisions[1].seq]["best"] == {"type": "discard", "card": "AS"}
    losses = [m["loss"] for m in hand["mistakes"]]
    assert losses == sorted(losses, reverse=True)  # the biggest first
    (alice,) = match["players"]
    assert alice["mistakes"] >= 1 and alice["accuracy"] < 100


def test_passing_a_hand_that_marches_alone_is_flagged_with_ordering_up_alone():
    # South, left of the dealer, holds the five highest hearts: a lone march, 4 points.
    state = new_hand(EAST, {SOUTH: "JH JD AH KH QH"}, "9H")
    decisions = play_hand(state, {0: {"type": "pass"}})
    reviewed = review_decision(decisions[0], BUDGET, "pass")
    assert reviewed["mistake"]
    assert reviewed["best"] == {"type": "order_up", "alone": True}
    assert reviewed["loss"] >= 2.0
    assert reviewed["sentence"].startswith("passing gave up about")
    assert (
        "points: you held five hearts, with the right bower, the left bower and the ace"
        in (reviewed["sentence"])
    )


def test_a_perfectly_played_hand_shows_no_mistake():
    state = new_hand(EAST, {SOUTH: "JH JD AH KH QH"}, "9H")
    decisions = play_hand(state, {0: {"type": "order_up", "alone": True}})
    assert len(decisions) == 6  # the bid and five cards
    match = review_match(decisions, {SOUTH: "alice"}, BUDGET, "perfect")
    assert [h["mistakes"] for h in match["hands"]] == [[]]
    (alice,) = match["players"]
    assert alice["mistakes"] == 0 and alice["points_lost"] == 0
    assert alice["accuracy"] == 100.0


def test_what_the_seat_knew_does_not_change_when_only_the_hidden_cards_do():
    """The no-cheating test, for the review: a second state gives the seat the same view
    with the hidden cards dealt otherwise; every "from what the seat knew" figure is the
    same (only the all-cards-shown figures may differ)."""
    knew_fields = ("best", "loss", "noise", "mistake", "accurate", "sentence", "method")
    for i, state in enumerate(POSITIONS):
        other = twin(state, i)
        seat = state.turn
        assert other.hands != state.hands
        action = E.player_view(state, seat)["legal_actions"][-1]
        a = review_decision(Decision(i, state.hand_number, seat, state, action), BUDGET, "x")
        b = review_decision(Decision(i, other.hand_number, seat, other, action), BUDGET, "x")
        assert {k: a.get(k) for k in knew_fields} == {k: b.get(k) for k in knew_fields}
        assert [v["value"] for v in a["values"]] == [v["value"] for v in b["values"]]
        view = E.player_view(state, seat)
        assert (
            knew_values(view, random.Random(i), BUDGET).values
            == knew_values(E.player_view(other, seat), random.Random(i), BUDGET).values
        )


def test_a_hand_played_by_the_best_choice_at_every_turn_shows_no_mistake():
    """A dealt hand with real choices at every step: south plays, each time, the action the
    review values best from what it knew; the review of that hand flags nothing."""
    state = E.MatchState(E.Options(), first_dealer=3)
    state.deal(E.seeded_deck(random.Random(21)))
    decisions, seq = [], 0
    while state.turn is not None and state.phase != E.DEAL:
        seat = state.turn
        seq += 1
        action = medium(state)
        if seat == SOUTH:
            probe = review_decision(Decision(seq, 1, seat, state.clone(), action), BUDGET, "best")
            action = probe["best"] if probe else action
            decisions.append(Decision(seq, 1, seat, state.clone(), action))
        state.apply_action(seat, E.action_from_dict(action))
    match = review_match(decisions, {SOUTH: "alice"}, BUDGET, "best")
    (alice,) = match["players"]
    assert alice["decisions"] >= 2  # real choices were made
    assert alice["mistakes"] == 0 and alice["points_lost"] == 0
    assert [h["mistakes"] for h in match["hands"]] == [[]]
