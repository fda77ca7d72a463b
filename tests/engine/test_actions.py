"""Actions and their JSON form (the API and the event log use it)."""

import pytest

from games import engine as E

JSON_FORMS = [
    ({"type": "pass"}, E.PASS),
    ({"type": "order_up", "alone": False}, E.order_up()),
    ({"type": "order_up", "alone": True}, E.order_up(alone=True)),
    ({"type": "call", "suit": "S", "alone": False}, E.call(E.SPADES)),
    ({"type": "call", "suit": "D", "alone": True}, E.call(E.DIAMONDS, alone=True)),
    ({"type": "discard", "card": "9C"}, E.discard(0)),
    ({"type": "defend_alone"}, E.DEFEND_ALONE),
    ({"type": "play", "card": "JD"}, E.play(E.parse_card("JD"))),
]


@pytest.mark.parametrize("data, action", JSON_FORMS)
def test_action_json_form_round_trips(data, action):
    assert action.to_dict() == data
    assert E.action_from_dict(data) is action  # the shared instance


def test_alone_defaults_to_false_and_other_spellings_are_accepted():
    assert E.action_from_dict({"type": "order_up"}) is E.order_up()
    assert E.action_from_dict({"type": "call", "suit": "♥"}) is E.call(E.HEARTS)
    assert E.action_from_dict({"type": "call", "suit": "hearts"}) is E.call(E.HEARTS)
    assert E.action_from_dict({"type": "play", "card": "10♦"}) is E.play(E.parse_card("TD"))


def test_action_types_are_the_six_documented_and_the_three_of_the_variants():
    assert E.ACTION_TYPES == (
        "pass",
        "order_up",
        "call",
        "discard",
        "defend_alone",
        "play",
        "name_suit",  # option joker: the dealer names a joker upcard's suit
        "farm",  # option farmers_hand
        "redeal",  # option no_ace_no_face_no_trump
    )


def test_actions_print_readably():
    assert str(E.call(E.SPADES, alone=True)) == "call S alone"
    assert str(E.play(E.parse_card("JH"))) == "play JH"
    assert str(E.PASS) == "pass"


@pytest.mark.parametrize(
    "data, code, words",
    [
        ("pass", "invalid_action", "An action must be a JSON object with a 'type'."),
        ({}, "invalid_action", "Unknown action type None: use one of pass, order_up, call, "),
        ({"type": "bid"}, "invalid_action", "Unknown action type 'bid'"),
        ({"type": "pass", "alone": True}, "invalid_action", "A pass action takes no field alone."),
        ({"type": "play", "card": "JD", "suit": "H"}, "invalid_action", "takes no field suit"),
        ({"type": "order_up", "alone": "yes"}, "invalid_action", "'alone' must be true or false."),
        ({"type": "order_up", "alone": 1}, "invalid_action", "'alone' must be true or false."),
        ({"type": "call"}, "invalid_action", "A call names a suit: C, D, H or S."),
        ({"type": "call", "suit": "X"}, "invalid_suit", "'X' is not a suit: use C, D, H or S."),
        ({"type": "play"}, "invalid_action", "A play action names a card, as in 'JH'."),
        ({"type": "discard"}, "invalid_action", "A discard action names a card, as in 'JH'."),
        ({"type": "play", "card": "ZZ"}, "invalid_card", "'ZZ' is not a card"),
        ({"type": "discard", "card": 5}, "invalid_card", "5 is not a card"),
    ],
)
def test_malformed_json_actions(data, code, words):
    with pytest.raises(E.RuleError) as err:
        E.action_from_dict(data)
    assert err.value.code == code
    assert err.value.message.startswith(words) or words in err.value.message
