"""What each seat may see: player, spectator and full views."""

import json
import random
import re

import pytest

from games import engine as E

from .helpers import EAST, N, S, W, names, new_hand, pass_round, random_hand

CARD_TEXT = re.compile(r'"([9TJQKA][CDHS])"')


def cards_in(view) -> set[str]:
    return set(CARD_TEXT.findall(json.dumps(view)))


def ordered_up_hand() -> E.MatchState:
    """East deals, South orders up the A♥, East discards the 9♦."""
    state = new_hand(EAST, {S: "9C TC JC QC KC", EAST: "9D TD JD QD KD"}, upcard="AH")
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    return state


def test_player_view_shows_own_cards_only():
    state = ordered_up_hand()
    view = E.player_view(state, S)
    assert view["seat"] == S and view["seat_name"] == "south"
    assert view["hand"]["cards"] == ["9C", "TC", "JC", "QC", "KC"]
    assert "hands" not in view["hand"] and "kitty" not in view["hand"]
    assert "deck" not in view["hand"] and "discard" not in view["hand"]
    assert cards_in(view) == {"9C", "TC", "JC", "QC", "KC", "AH"}


def test_player_view_has_the_public_facts_of_the_hand():
    state = ordered_up_hand()
    hand = E.player_view(state, W)["hand"]
    assert hand["upcard"] == "AH" and hand["upcard_fate"] == "picked_up"
    assert hand["turned_down"] is None
    assert hand["bids"] == [{"seat": S, "type": "order_up", "alone": False}]
    assert hand["trump"] == "H" and hand["maker"] == S
    assert hand["alone"] is None and hand["defender_alone"] is None
    assert hand["sitting_out"] == []
    assert hand["discarded"] is True
    assert hand["hand_sizes"] == [5, 5, 5, 5]
    assert hand["current_trick"] == [] and hand["tricks"] == []
    assert hand["tricks_won"] == [0, 0, 0, 0]


def test_the_dealer_discard_is_seen_by_the_dealer_alone():
    state = ordered_up_hand()
    assert E.player_view(state, EAST)["hand"]["my_discard"] == "9D"
    for seat in (S, W, N):
        view = E.player_view(state, seat)
        assert "my_discard" not in view["hand"]
        assert "9D" not in cards_in(view)
    assert "9D" not in cards_in(E.spectator_view(state))
    assert E.full_view(state)["hand"]["discard"] == "9D"


def test_turned_down_suit_and_every_bid_are_public():
    state = new_hand(EAST, {}, upcard="AH")
    pass_round(state)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.SPADES, alone=True))
    hand = E.spectator_view(state)["hand"]
    assert hand["turned_down"] == "H" and hand["upcard_fate"] == "turned_down"
    assert [b["type"] for b in hand["bids"]] == ["pass"] * 5 + ["call"]
    assert hand["bids"][-1] == {"seat": W, "type": "call", "suit": "S", "alone": True}
    assert hand["alone"] == W and hand["sitting_out"] == [EAST]


def test_played_cards_and_tricks_are_public():
    state = ordered_up_hand()
    for _ in range(5):
        state.apply_action(state.turn, state.legal_actions()[0])
    view = E.player_view(state, N)
    trick = view["hand"]["tricks"][0]
    assert trick["leader"] == S and [c["seat"] for c in trick["cards"]] == [S, W, N, EAST]
    assert trick["winner"] in (S, W, N, EAST)
    assert view["hand"]["current_trick"] == [
        {"seat": trick["winner"], "card": E.card_str(state.trick_cards[0])}
    ]
    assert sum(view["hand"]["tricks_won"]) == 1


def test_only_the_seat_on_turn_gets_legal_actions():
    state = ordered_up_hand()
    assert state.turn == S
    assert E.player_view(state, S)["legal_actions"] == [
        {"type": "play", "card": c} for c in ["9C", "TC", "JC", "QC", "KC"]
    ]
    for seat in (W, N, EAST):
        assert E.player_view(state, seat)["legal_actions"] == []
    assert E.spectator_view(state)["legal_actions"] == []


def test_spectator_view_has_no_hand_at_all():
    state = ordered_up_hand()
    view = E.spectator_view(state)
    assert view["seat"] is None and "cards" not in view["hand"]
    assert cards_in(view) == {"AH"}


def test_full_view_has_every_hand_the_kitty_and_the_deck():
    state = ordered_up_hand()
    hand = E.full_view(state)["hand"]
    assert hand["hands"][S] == ["9C", "TC", "JC", "QC", "KC"]
    assert hand["hands"][EAST] == ["TD", "JD", "QD", "KD", "AH"]
    assert len(hand["kitty"]) == 4 and "9D" in hand["kitty"]
    assert hand["deck"] == names(state.deck)


def test_between_hands_the_view_has_no_hand_and_shows_the_last_result():
    rng = random.Random(1)
    state = E.MatchState(E.Options(), first_dealer=EAST)
    view = E.player_view(state, S)
    assert view["phase"] == "deal" and view["hand"] is None and view["last_hand"] is None
    state.deal(E.seeded_deck(rng))
    outcomes = random_hand(state, rng)
    view = E.player_view(state, S)
    assert view["hand"] is None
    assert view["last_hand"] == outcomes[-1]
    assert view["scores"] == state.scores and view["dealer"] == S
    assert view["options"] == E.Options().to_dict()


def test_views_are_json_and_changing_one_never_changes_the_state():
    rng = random.Random(2)
    state = E.MatchState(E.Options(), first_dealer=EAST)
    state.deal(E.seeded_deck(rng))
    random_hand(state, rng)
    before = json.dumps(E.full_view(state), sort_keys=True)
    view = E.full_view(state)
    view["last_hand"]["scores"].append(99)
    view["scores"].append(99)
    assert json.dumps(E.full_view(state), sort_keys=True) == before


def test_no_seat_ever_sees_another_hand_or_the_kitty_in_random_matches():
    rng = random.Random(5)
    options = E.Options(defending_alone=True)
    for _ in range(30):
        state = E.MatchState(options, first_dealer=rng.randrange(4))
        state.deal(E.seeded_deck(rng))
        while True:
            played = {E.card_str(c) for t in state.tricks for c in t[1]}
            played |= {E.card_str(c) for c in state.trick_cards}
            for seat in range(4):
                own = set(names(state.hand_of(seat)))
                if seat == state.dealer and state.discarded is not None:
                    own.add(E.card_str(state.discarded))
                allowed = own | played | {E.card_str(state.upcard)}
                assert cards_in(E.player_view(state, seat)) <= allowed
            assert cards_in(E.spectator_view(state)) <= played | {E.card_str(state.upcard)}
            if state.turn is None:
                break
            legal = state.legal_actions()
            state.apply_action(state.turn, legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("seat", [-1, 4, "0", None, True])
def test_player_view_of_a_seat_that_does_not_exist(seat):
    state = ordered_up_hand()
    with pytest.raises(E.RuleError) as err:
        E.player_view(state, seat)
    assert err.value.code == "invalid_seat"
