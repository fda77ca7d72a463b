"""RuleError: every code with its sentence, and an illegal action never changes the state."""

import random

import pytest

from games import engine as E
from games.engine.state import MatchState

from .helpers import EAST, N, S, W, new_hand, pass_round, play_cards, random_hand
from .test_play import reach_spot


def snapshot(state: MatchState) -> tuple:
    """Everything the state holds, except the cache of legal actions."""
    return tuple(repr(getattr(state, name)) for name in MatchState.__slots__ if name != "_legal")


def rejected(state: MatchState, seat, action) -> E.RuleError:
    """Apply an action that must fail; check the state did not change at all."""
    view, inner = E.full_view(state), snapshot(state)
    with pytest.raises(E.RuleError) as err:
        state.apply_action(seat, action)
    assert E.full_view(state) == view
    assert snapshot(state) == inner
    return err.value


def bidding() -> MatchState:
    return new_hand(EAST, {S: "9C TC JC QC KC", EAST: "9D TD JD QD KD"}, upcard="AH")


def playing() -> MatchState:
    state = bidding()
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    return state


def test_not_your_turn():
    err = rejected(bidding(), W, E.PASS)
    assert (err.code, err.message) == ("not_your_turn", "It is south's turn, not west's.")


def test_wrong_phase_playing_a_card_while_bidding():
    err = rejected(bidding(), S, E.play(E.parse_card("9C")))
    assert err.code == "wrong_phase"
    assert err.message == "You cannot play now: round one of bidding: pass or order it up."


@pytest.mark.parametrize(
    "action, words",
    [
        (E.call(E.SPADES), "You cannot call now: round one of bidding: pass or order it up."),
        (E.DEFEND_ALONE, "You cannot defend_alone now: round one of bidding: pass or order it up."),
    ],
)
def test_wrong_phase_for_each_kind_of_action(action, words):
    err = rejected(bidding(), S, action)
    assert (err.code, err.message) == ("wrong_phase", words)


def test_wrong_phase_ordering_up_in_round_two_and_discarding_during_play():
    state = bidding()
    pass_round(state)
    err = rejected(state, S, E.order_up())
    assert err.code == "wrong_phase" and "round two of bidding" in err.message
    err = rejected(playing(), S, E.discard(E.parse_card("9C")))
    assert (err.code, err.message) == (
        "wrong_phase",
        "You cannot discard now: the play: play a card.",
    )


def test_wrong_phase_between_hands_and_after_the_match():
    state = E.MatchState(E.Options(target_score=1), first_dealer=EAST)
    err = rejected(state, S, E.PASS)
    assert err.code == "wrong_phase"
    assert err.message == "No one can act now: the cards are about to be dealt."
    state.deal(E.seeded_deck(1))
    random_hand(state, random.Random(1))
    assert state.phase == E.FINISHED
    err = rejected(state, S, E.PASS)
    assert (err.code, err.message) == ("wrong_phase", "No one can act now: the match is over.")


def test_wrong_phase_dealing_in_the_middle_of_a_hand():
    state = bidding()
    before = E.full_view(state)
    with pytest.raises(E.RuleError) as err:
        state.deal(E.seeded_deck(3))
    assert err.value.code == "wrong_phase"
    assert err.value.message == (
        "Cards are dealt between hands; now round one of bidding: pass or order it up."
    )
    assert E.full_view(state) == before


def test_card_not_in_hand():
    err = rejected(playing(), S, E.play(E.parse_card("AS")))
    assert (err.code, err.message) == ("card_not_in_hand", "You do not hold the ace of spades.")


def test_card_not_in_hand_when_discarding():
    state = bidding()
    state.apply_action(S, E.order_up())
    err = rejected(state, EAST, E.discard(E.parse_card("9C")))
    assert (err.code, err.message) == ("card_not_in_hand", "You do not hold the 9 of clubs.")


def test_must_follow_suit_names_the_suit_led_and_the_cards_that_follow():
    err = rejected(reach_spot(0), S, E.play(E.parse_card("AC")))
    assert err.code == "must_follow_suit"
    assert err.message == (
        "Diamonds were led and you hold the king of diamonds, so you must follow suit."
    )


def test_must_follow_suit_says_the_left_bower_is_not_of_its_printed_suit():
    err = rejected(reach_spot(0), S, E.play(E.parse_card("JD")))
    assert err.code == "must_follow_suit"
    assert err.message == (
        "The jack of diamonds is the left bower: this hand it counts as one of the hearts, "
        "which are trump, not as one of the diamonds. "
        "Diamonds were led and you hold the king of diamonds, so you must follow suit."
    )


def test_must_follow_suit_says_the_left_bower_follows_a_trump_lead():
    err = rejected(reach_spot(2), S, E.play(E.parse_card("KD")))
    assert err.code == "must_follow_suit"
    assert err.message == (
        "Hearts (trump) were led and you hold the jack of diamonds, so you must follow suit. "
        "The jack of diamonds is the left bower and counts as trump."
    )


def test_must_follow_suit_says_a_jack_of_the_led_suit_colour_is_not_of_that_suit():
    # Hearts are trump and East leads a club: the jack of spades is a spade.
    state = new_hand(N, {EAST: "AC AH KH QH TH", S: "9C JS 9D TD QD"}, upcard="9S")
    pass_round(state)
    state.apply_action(EAST, E.call(E.HEARTS))
    play_cards(state, "AC")
    err = rejected(state, S, E.play(E.parse_card("JS")))
    assert err.code == "must_follow_suit"
    assert err.message == (
        "Clubs were led and you hold the 9 of clubs, so you must follow suit. "
        "The jack of spades is one of the spades, not of the clubs: "
        "only the jack of trump's colour changes suit."
    )


def test_cannot_name_the_turned_down_suit():
    state = bidding()
    pass_round(state)
    err = rejected(state, S, E.call(E.HEARTS))
    assert err.code == "cannot_name_turned_down_suit"
    assert err.message == "Hearts were turned down this hand; name another suit."


def test_the_stuck_dealer_must_call():
    state = bidding()
    pass_round(state, 7)
    err = rejected(state, EAST, E.PASS)
    assert err.code == "dealer_must_call"
    assert err.message == (
        "Stick the dealer: everyone else passed twice, so the dealer must name a suit."
    )


def test_going_alone_disabled():
    state = new_hand(EAST, {}, upcard="AH", going_alone=False)
    err = rejected(state, S, E.order_up(alone=True))
    assert (err.code, err.message) == (
        "going_alone_disabled",
        "Going alone is switched off in this match.",
    )


def test_a_seat_sitting_out_cannot_act():
    state = bidding()
    state.apply_action(S, E.order_up(alone=True))
    state.apply_action(EAST, E.discard(E.parse_card("9D")))
    err = rejected(state, N, E.play(state.hand_of(N)[0]))
    assert err.code == "sitting_out"
    assert err.message == "You sit this hand out: your partner went alone."


def test_a_card_that_does_not_exist():
    err = rejected(playing(), S, E.Action("play", card=99))
    assert (err.code, err.message) == ("invalid_card", "That is not a card.")


@pytest.mark.parametrize("seat", [7, -1, "south", None])
def test_a_seat_that_does_not_exist(seat):
    err = rejected(playing(), seat, E.PASS)
    assert (err.code, err.message) == ("invalid_seat", "A seat is a number from 0 to 3.")


@pytest.mark.parametrize("seat", [4, -1, "3", None, True])
def test_the_first_dealer_is_a_seat(seat):
    with pytest.raises(E.RuleError) as err:
        E.MatchState(E.Options(), first_dealer=seat)
    assert err.value.code == "invalid_seat"


@pytest.mark.parametrize("action", [{"type": "pass"}, "pass", None, ("pass",)])
def test_something_that_is_not_an_action(action):
    err = rejected(bidding(), S, action)
    assert (err.code, err.message) == ("invalid_action", "That is not an action.")


def test_an_action_with_fields_that_make_no_sense():
    err = rejected(bidding(), S, E.Action("order_up", card=3))
    assert err.code == "illegal_action"
    assert err.message == "You cannot do that now: round one of bidding: pass or order it up."


@pytest.mark.parametrize(
    "deck",
    [
        list(range(23)),
        list(range(23)) + [0],
        list(range(25)),
        [True] + list(range(1, 24)),
        [float(c) for c in range(24)],
        [E.card_str(c) for c in range(24)],
        [[c] for c in range(24)],
        None,
        "9C TC",
        set(range(24)),
    ],
    ids=[
        "short",
        "duplicate",
        "long",
        "bool",
        "floats",
        "text",
        "unhashable",
        "none",
        "str",
        "set",
    ],
)
def test_invalid_deck(deck):
    state = E.MatchState(E.Options(), first_dealer=EAST)
    before = E.full_view(state)
    with pytest.raises(E.RuleError) as err:
        state.deal(deck)
    assert err.value.code == "invalid_deck"
    assert err.value.message == "A deck is the 24 cards, each exactly once."
    assert E.full_view(state) == before and state.hand_number == 0


def test_rule_error_carries_code_and_sentence():
    err = E.RuleError("not_your_turn", "It is south's turn, not west's.")
    assert str(err) == err.message == "It is south's turn, not west's."
    assert repr(err) == "RuleError('not_your_turn', \"It is south's turn, not west's.\")"
    assert isinstance(err, Exception)


def test_every_seat_out_of_turn_is_refused_in_every_phase():
    rng = random.Random(9)
    state = E.MatchState(E.Options(defending_alone=True), first_dealer=W)
    state.deal(E.seeded_deck(rng))
    while state.turn is not None:
        for seat in range(4):
            if seat != state.turn:
                code = "sitting_out" if state.out[seat] else "not_your_turn"
                assert rejected(state, seat, state.legal_actions()[0]).code == code
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
