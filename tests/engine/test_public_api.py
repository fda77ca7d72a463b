"""The engine's public API answers or raises RuleError, whatever it is given (issue 9, item 8).

Every name games.engine exports, and the methods of MatchState, Action and Options,
is called with arbitrary JSON-like values (and values a Python caller could pass:
dicts with non-string keys, huge ints, NaN) as well as good ones, over states
reached by random play under random options. Nothing but a RuleError may escape.
explain_illegal must agree with legal_actions (and apply_action) on every action.
"""

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine as E
from games.engine import actions as A

from .helpers import EAST, N, S, W, new_hand, pass_round

EVERY_ACTION = (
    A.PASS_ACTION,
    A.DEFEND_ALONE_ACTION,
    *A.ORDER_UP_ACTIONS,
    *(a for pair in A.CALL_ACTIONS for a in pair),
    *A.DISCARD_ACTIONS,
    *A.PLAY_ACTIONS,
)

options_st = st.builds(
    E.Options,
    target_score=st.integers(1, 15),
    stick_the_dealer=st.booleans(),
    going_alone=st.booleans(),
    lone_lead=st.sampled_from(["dealer_left", "loner_left", "canadian"]),
    defending_alone=st.booleans(),
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-30, 30),
    st.integers(),  # any size, including ints too long to print
    st.floats(),  # NaN and the infinities too
    st.text(max_size=30),
    st.sampled_from(["pass", "play", "call", "JH", "10♦", "S", "hearts", "type", "alone"]),
)
# JSON values, and the dicts a Python caller could build (keys that are not text).
json_like = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["type", "card"])), inner),
        st.dictionaries(st.one_of(st.integers(), st.none(), st.booleans(), st.text()), inner),
    ),
    max_leaves=8,
)
action_dicts = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(A.ACTION_TYPES), json_like)},
    optional={"card": json_like, "suit": json_like, "alone": json_like},
)
# Actions as the engine's callers hold them: every real one, and ones built from junk.
actions = st.one_of(
    st.sampled_from(EVERY_ACTION),
    st.builds(
        A.Action,
        type=st.one_of(st.sampled_from(A.ACTION_TYPES), json_like),
        card=st.one_of(st.none(), st.integers(-2, 25), json_like),
        suit=st.one_of(st.none(), st.integers(-1, 4), json_like),
        alone=st.one_of(st.booleans(), json_like),
    ),
    json_like,
)
cards = st.one_of(st.integers(-2, 25), json_like)
suits = st.one_of(st.integers(-1, 4), json_like)
seats = st.one_of(st.integers(-1, 4), st.just(2.0), json_like)
decks = st.one_of(
    st.permutations(list(range(24))),
    st.lists(st.integers(-1, 24), min_size=23, max_size=25),
    json_like,
)


def property_test(max_examples: int):
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def random_state(options: E.Options, seed: int, steps: int) -> E.MatchState:
    """A state reached by random legal play: between hands, mid-hand or finished."""
    rng = random.Random(seed)
    state = E.MatchState(options, rng.randrange(4))
    for _ in range(steps):
        if state.phase == E.FINISHED:
            break
        if state.phase == E.DEAL:
            state.deal(E.seeded_deck(rng))
            continue
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    return state


def answers_or_rule_error(call, *args) -> None:
    try:
        call(*args)
    except E.RuleError as err:
        assert type(err.code) is str and err.code and type(err.message) is str and err.message


# ------------------------------------------------------------------ the property tests


@property_test(400)
@given(
    options=options_st,
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 200),
    data=st.data(),
)
def test_every_public_function_answers_or_raises_a_rule_error_whatever_it_is_given(
    options, seed, steps, data
):
    state = random_state(options, seed, steps)
    state_or_junk = st.one_of(st.just(state), json_like)

    def draw(strategy):
        return data.draw(strategy)

    calls = [
        (E.action_from_dict, draw(st.one_of(action_dicts, json_like))),
        (E.order_up, draw(st.one_of(st.booleans(), json_like))),
        (E.call, draw(suits), draw(st.one_of(st.booleans(), json_like))),
        (E.discard, draw(cards)),
        (E.play, draw(cards)),
        (E.card_name, draw(cards)),
        (E.card_str, draw(cards)),
        (E.suit_of, draw(cards)),
        (E.effective_suit, draw(cards), draw(suits)),
        (E.parse_card, draw(st.one_of(st.text(max_size=4), json_like))),
        (E.parse_suit, draw(st.one_of(st.text(max_size=8), json_like))),
        (E.suit_str, draw(suits)),
        (
            E.trick_winner_index,
            draw(st.one_of(st.lists(cards, max_size=5), json_like)),
            draw(suits),
        ),
        (E.trump_order, draw(suits)),
        (E.seeded_deck, draw(st.one_of(st.integers(), json_like))),
        (E.shuffled_deck,),
        (E.validate_deck, draw(decks)),
        (E.Options.from_dict, draw(json_like)),
        (
            lambda name, value: E.Options(**{name: value}),
            draw(
                st.sampled_from(
                    [
                        "target_score",
                        "stick_the_dealer",
                        "going_alone",
                        "lone_lead",
                        "defending_alone",
                    ]
                )
            ),
            draw(json_like),
        ),
        (E.MatchState, draw(st.one_of(st.none(), st.just(options), json_like)), draw(seats)),
        (E.partner, draw(seats)),
        (E.team_of, draw(seats)),
        (E.player_view, draw(state_or_junk), draw(seats)),
        (E.spectator_view, draw(state_or_junk)),
        (E.full_view, draw(state_or_junk)),
        (state.legal_actions,),
        (state.clone,),
        (state.hand_of, draw(seats)),
        (state.explain_illegal, draw(seats), draw(actions)),
        (state.clone().apply_action, draw(seats), draw(actions)),
        (state.clone().deal, draw(decks)),
        (options.to_dict,),
    ]
    action = draw(actions)
    if isinstance(action, A.Action):
        calls += [(action.to_dict,), (str, action), (repr, action)]
    for call, *args in calls:
        answers_or_rule_error(call, *args)


@property_test(300)
@given(
    options=options_st,
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 200),
    junk=st.lists(actions, max_size=6),
    seat=seats,
)
def test_explain_illegal_agrees_with_legal_actions_and_apply_action_on_every_action(
    options, seed, steps, junk, seat
):
    state = random_state(options, seed, steps)
    legal = state.legal_actions()
    for who in {0, 1, 2, 3, state.turn} | ({seat} if isinstance(seat, int | float) else set()):
        if isinstance(who, float) and math.isnan(who):
            continue
        for action in (*EVERY_ACTION, *junk):
            is_legal = who == state.turn and action in legal
            reason = state.explain_illegal(who, action)
            if is_legal:
                assert reason is None, (who, action, reason)
            else:
                assert isinstance(reason, E.RuleError), (who, action)
                assert reason.code and reason.message and reason.code != "legal"
            try:
                state.clone().apply_action(who, action)
            except E.RuleError as err:
                assert reason is not None and err.code == reason.code, (who, action)
            else:
                assert reason is None, (who, action, reason)


# ------------------------------------------------------------------ the cases found


def led_trick() -> E.MatchState:
    """Hearts trump; south (on lead) holds five clubs, west none."""
    state = new_hand(EAST, {S: "9C TC JC QC KC", W: "9S TS JS QS KS"}, upcard="AH")
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, state.legal_actions()[0])
    assert state.phase == E.PLAY and state.turn == S and not state.trick_cards
    return state


def test_explain_illegal_of_a_legal_lead_says_it_is_legal():
    state = led_trick()
    lead = E.play(E.parse_card("9C"))
    assert lead in state.legal_actions()
    assert state.explain_illegal(S, lead) is None  # was an IndexError


def test_explain_illegal_of_a_void_players_off_suit_play_says_it_is_legal():
    state = led_trick()
    state.apply_action(S, E.play(E.parse_card("9C")))
    off_suit = E.play(E.parse_card("9S"))  # west holds no club
    assert state.turn == W and off_suit in state.legal_actions()
    assert state.explain_illegal(W, off_suit) is None  # was an IndexError


def test_explain_illegal_of_a_non_dealers_round_two_pass_says_it_is_legal():
    state = new_hand(EAST, {}, upcard="AH")  # stick the dealer is on by default
    pass_round(state)
    assert state.phase == E.BID2 and state.turn == S and E.PASS in state.legal_actions()
    assert state.explain_illegal(S, E.PASS) is None  # was "dealer_must_call"


def test_the_stuck_dealers_round_two_pass_is_still_dealer_must_call():
    state = new_hand(EAST, {}, upcard="AH")
    pass_round(state)
    pass_round(state, 3)
    assert state.turn == EAST
    assert state.explain_illegal(EAST, E.PASS).code == "dealer_must_call"


@pytest.mark.parametrize(
    "action, code",
    [
        (E.play(E.parse_card("9D")), "wrong_phase"),
        (E.order_up(alone=True), None),
        (A.Action("order_up", alone="yes"), "invalid_action"),
        (A.Action("order_up", card=3), "illegal_action"),
        (A.Action("pass", alone=True), "illegal_action"),
        ({"type": "pass"}, "invalid_action"),
    ],
)
def test_explain_illegal_in_round_one_answers_with_the_reason_or_none(action, code):
    state = new_hand(EAST, {}, upcard="AH")
    reason = state.explain_illegal(S, action)
    assert (reason and reason.code) == code
    assert state.explain_illegal(N, E.PASS).code == "not_your_turn"


def test_explain_illegal_of_a_lone_play_flag_is_not_going_alone_disabled():
    state = new_hand(EAST, {S: "9C TC JC QC KC"}, upcard="AH", going_alone=False)
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, state.legal_actions()[0])
    reason = state.explain_illegal(S, A.Action("play", card=E.parse_card("9C"), alone=True))
    assert reason.code == "illegal_action"


@pytest.mark.parametrize(
    "data",
    [{"type": []}, {"type": {}}, {"type": ["pass"]}],
    ids=["list", "dict", "list-of-pass"],
)
def test_action_from_dict_with_an_unhashable_type_is_invalid_action(data):
    with pytest.raises(E.RuleError) as err:
        E.action_from_dict(data)  # was a TypeError
    assert err.value.code == "invalid_action"


@pytest.mark.parametrize(
    "data",
    [{"type": "pass", 1: True}, {"type": "play", "card": "JH", None: 1}, {(1, 2): "x"}],
    ids=["int-key", "none-key", "tuple-key"],
)
def test_action_from_dict_with_keys_that_are_not_text_is_invalid_action(data):
    with pytest.raises(E.RuleError) as err:
        E.action_from_dict(data)  # was a TypeError
    assert err.value.code == "invalid_action"


@pytest.mark.parametrize("seat", [4, 5, 100, -1, -4, True, False, 2.0, "0", None, [0]])
def test_hand_of_anything_but_a_seat_number_is_invalid_seat_never_another_seats_cards(seat):
    state = new_hand(EAST, {}, upcard="AH")
    with pytest.raises(E.RuleError) as err:
        state.hand_of(seat)  # 5: an IndexError; -1, True: east's and west's cards
    assert err.value.code == "invalid_seat"


@pytest.mark.parametrize("data", [[], "", 0, False, (), set()], ids=repr)
def test_options_from_an_empty_non_object_is_invalid_option_not_the_defaults(data):
    with pytest.raises(E.RuleError) as err:
        E.Options.from_dict(data)  # was the defaults
    assert err.value.code == "invalid_option"


def test_options_from_dict_with_a_key_that_is_not_text_is_invalid_option():
    with pytest.raises(E.RuleError) as err:
        E.Options.from_dict({1: 2, "target_score": 5})  # was a TypeError
    assert err.value.code == "invalid_option"


def test_options_from_none_is_still_the_defaults():
    assert E.Options.from_dict(None) == E.Options() == E.Options.from_dict({})


@pytest.mark.parametrize(
    "call, args, code",
    [
        (E.card_str, (-1,), "invalid_card"),  # was "AS", quietly
        (E.card_str, (25,), "invalid_card"),  # was an IndexError (24 is the joker)
        (E.card_name, (True,), "invalid_card"),
        (E.suit_of, ("JH",), "invalid_card"),
        (E.suit_str, (4,), "invalid_suit"),
        (E.suit_str, (-1,), "invalid_suit"),
        (E.effective_suit, (0, 9), "invalid_suit"),
        (E.trump_order, (None,), "invalid_suit"),
        (E.trick_winner_index, ([], 0), "invalid_card"),
        (E.trick_winner_index, ([0, 0], 0), "invalid_card"),
        (E.play, (25,), "invalid_card"),
        (E.discard, (-1,), "invalid_card"),
        (E.order_up, (5,), "invalid_action"),
        (E.call, (7,), "invalid_suit"),
        (E.call, (E.SPADES, "yes"), "invalid_action"),
        (E.partner, ("x",), "invalid_seat"),
        (E.team_of, (None,), "invalid_seat"),
        (E.seeded_deck, ([1, 2],), "invalid_seed"),
        (E.player_view, ("state", 0), "invalid_state"),
        (E.spectator_view, (None,), "invalid_state"),
        (E.full_view, ({},), "invalid_state"),
        (E.parse_card, ("[" * 2000,), "invalid_card"),
        (E.parse_card, ([[[[[]]]]],), "invalid_card"),
        (E.action_from_dict, ({"type": 10**5000},), "invalid_action"),
        (A.Action("play", card=99).to_dict, (), "invalid_card"),
    ],
)
def test_public_functions_refuse_wrong_types_and_ranges_with_a_rule_error(call, args, code):
    with pytest.raises(E.RuleError) as err:
        call(*args)
    assert err.value.code == code
    assert len(err.value.message) < 300  # input is never copied into the sentence at length


def test_an_action_built_from_junk_still_prints():
    assert str(A.Action("play", card=99)) == "play 99"
    assert str(A.Action([], card=[1], suit={})) == "a list a list a dict"
