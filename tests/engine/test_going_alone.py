"""Going alone, who leads a lone hand (three lone-lead options), and defending alone."""

import pytest

from games import engine as E

from .helpers import EAST, N, S, W, names, new_hand, pass_round


def hand(dealer=EAST, upcard="AH", **options) -> E.MatchState:
    return new_hand(dealer, {dealer: "9D TD JD QD KD"}, upcard, **options)


def finish_discard(state: E.MatchState) -> None:
    if state.phase == E.DISCARD:
        state.apply_action(state.dealer, state.legal_actions()[0])


# ---------------------------------------------------------------- the two details of 000


def test_going_alone_partner_sits_out_and_tricks_have_three_cards():
    state = hand()
    state.apply_action(S, E.order_up(alone=True))
    finish_discard(state)
    assert state.alone and state.maker == S
    assert state.out == [False, False, True, False]
    seats = []
    for _ in range(3):
        seats.append(state.turn)
        state.apply_action(state.turn, state.legal_actions()[0])
    assert N not in seats and len(seats) == 3
    assert len(state.tricks) == 1 and len(state.tricks[0][1]) == 3


def test_lone_hand_lead_skips_the_dealer_left_when_that_seat_sits_out():
    # East deals; South is the dealer's left; North goes alone, so South sits out.
    state = hand()
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.PASS)
    state.apply_action(N, E.order_up(alone=True))
    finish_discard(state)
    assert state.out[S]
    assert state.leader == state.turn == W  # the next player leads instead


def test_dealer_partner_ordering_up_alone_makes_the_dealer_sit_out_without_picking_up():
    state = hand()
    dealer_hand = state.hands[EAST]
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.order_up(alone=True))  # West is East's partner
    assert state.out[EAST]
    assert state.upcard_fate == "stays_in_kitty"
    assert state.hands[EAST] == dealer_hand  # no pickup, no discard
    assert E.parse_card("AH") in state.kitty and len(state.kitty) == 4
    assert state.discarded is None
    assert state.phase == E.PLAY and state.turn == S


@pytest.mark.parametrize("loner", [S, N, EAST])
def test_anyone_else_going_alone_the_dealer_still_picks_up_and_discards(loner):
    state = hand()
    while state.turn != loner:
        state.apply_action(state.turn, E.PASS)
    state.apply_action(loner, E.order_up(alone=True))
    assert state.phase == E.DISCARD and state.turn == EAST
    assert names(state.hand_of(EAST)) == ["9D", "TD", "JD", "QD", "KD", "AH"]
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    assert state.out[(loner + 2) % 4] and not state.out[EAST]
    assert state.phase == E.PLAY


def test_calling_alone_in_round_two_benches_the_partner_and_no_one_picks_up():
    state = hand()
    pass_round(state)
    state.apply_action(S, E.call(E.SPADES, alone=True))
    assert state.alone and state.out == [False, False, True, False]
    assert state.phase == E.PLAY and state.turn == S  # the dealer left, who is the loner


def test_a_sitting_out_seat_is_never_on_turn():
    state = hand()
    state.apply_action(S, E.order_up(alone=True))
    finish_discard(state)
    while state.turn is not None:
        assert state.turn != N
        state.apply_action(state.turn, state.legal_actions()[-1])
    assert state.hands[N].bit_count() == 5  # north's cards stay face down


# ---------------------------------------------------------------- going alone switched off (003)


def test_going_alone_can_be_switched_off():
    state = hand(going_alone=False)
    assert state.legal_actions() == (E.PASS, E.order_up())
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.order_up(alone=True))
    assert err.value.code == "going_alone_disabled"
    pass_round(state)
    assert not any(a.alone for a in state.legal_actions())
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.call(E.SPADES, alone=True))
    assert err.value.code == "going_alone_disabled"


# ---------------------------------------------------------------- lone-hand lead options


def lone_lead(option: str, bidder: int, round_: int, dealer: int = EAST) -> int:
    state = hand(dealer, lone_lead=option)
    if round_ == 2:
        pass_round(state)
    while state.turn != bidder:
        state.apply_action(state.turn, E.PASS)
    if round_ == 1:
        state.apply_action(bidder, E.order_up(alone=True))
    else:
        state.apply_action(bidder, E.call(E.SPADES, alone=True))
    finish_discard(state)
    assert state.phase == E.PLAY
    return state.turn


@pytest.mark.parametrize(
    "option, loner, round_, leader",
    [
        # default (000): the dealer's left, skipping a player who sits out
        ("dealer_left", W, 1, S),
        ("dealer_left", N, 1, W),
        ("dealer_left", N, 2, W),
        ("dealer_left", EAST, 1, S),
        # the player on the loner's left, always
        ("loner_left", W, 1, N),
        ("loner_left", N, 2, EAST),
        ("loner_left", EAST, 1, S),
        # Canadian loner (002): the loner's left when the loner ordered up the upcard
        ("canadian", W, 1, N),
        ("canadian", N, 1, EAST),
        ("canadian", S, 1, W),
        ("canadian", W, 2, S),  # named in round two: the dealer's left as usual
        ("canadian", N, 2, W),
    ],
)
def test_who_leads_a_lone_hand(option, loner, round_, leader):
    assert lone_lead(option, loner, round_) == leader


def test_lone_lead_options_leave_a_partnered_hand_alone():
    for option in ("dealer_left", "loner_left", "canadian"):
        state = hand(lone_lead=option)
        state.apply_action(S, E.PASS)
        state.apply_action(W, E.order_up())
        finish_discard(state)
        assert state.turn == S


# ---------------------------------------------------------------- defending alone (002)


def defending(maker_alone=False, **options) -> E.MatchState:
    state = hand(defending_alone=True, **options)
    state.apply_action(S, E.order_up(alone=maker_alone))
    finish_discard(state)
    return state


def test_defending_alone_is_off_by_default():
    state = hand()
    state.apply_action(S, E.order_up())
    finish_discard(state)
    assert state.phase == E.PLAY


def test_with_defending_alone_the_defenders_are_asked_in_turn_from_the_dealer_left():
    state = defending()
    assert state.phase == E.DEFEND
    assert state.defend_order == (W, EAST)
    assert state.turn == W
    assert state.legal_actions() == (E.PASS, E.DEFEND_ALONE)
    state.apply_action(W, E.PASS)
    assert state.turn == EAST
    state.apply_action(EAST, E.PASS)
    assert state.phase == E.PLAY and state.defender_alone is None
    assert state.turn == S


def test_the_first_defender_to_declare_plays_alone_and_the_partner_sits_out():
    state = defending()
    state.apply_action(W, E.DEFEND_ALONE)
    assert state.defender_alone == W and state.out[EAST]
    assert state.phase == E.PLAY and state.turn == S


def test_the_second_defender_may_declare_after_the_first_passes():
    state = defending()
    state.apply_action(W, E.PASS)
    state.apply_action(EAST, E.DEFEND_ALONE)
    assert state.defender_alone == EAST and state.out[W]


def test_defending_alone_comes_after_the_dealer_discard():
    state = hand(defending_alone=True)
    state.apply_action(S, E.order_up())
    assert state.phase == E.DISCARD
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    assert state.phase == E.DEFEND


def test_defenders_of_the_dealer_team_are_asked_from_the_dealer_left():
    state = hand(defending_alone=True)
    pass_round(state)
    state.apply_action(S, E.PASS)
    state.apply_action(W, E.call(E.SPADES))
    assert state.defend_order == (S, N) and state.turn == S


def test_a_lone_defender_against_a_loner_leaves_two_seats_playing():
    state = defending(maker_alone=True)
    state.apply_action(W, E.DEFEND_ALONE)
    assert state.out == [False, False, True, True]
    state.apply_action(state.turn, state.legal_actions()[0])
    state.apply_action(state.turn, state.legal_actions()[0])
    assert len(state.tricks) == 1 and len(state.tricks[0][1]) == 2


def test_makers_cannot_defend_alone():
    state = defending()
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.DEFEND_ALONE)
    assert err.value.code == "not_your_turn"
