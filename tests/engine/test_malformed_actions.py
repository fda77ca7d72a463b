"""A malformed action is a RuleError of kind malformed from the engine's own API, whatever
the phase and whoever sends it (docs/rules.md, "Errors"; issue 33): every type of action
with the card or suit it takes missing or not a card or suit, `alone` not true or false,
an unknown type, something that is not an Action. apply_action raises it and changes
nothing; explain_illegal returns it. Never a TypeError (before: `Action("farm")` in the
farmer's exchange), never an out-of-turn or illegal answer for what is not an action."""

import random

import pytest

from games import engine as E
from tests.engine.helpers import EAST, S, W
from tests.engine.test_variants import (
    JOKER_UP,
    JOKER_UP_KITTY,
    deck25,
    farm_hand,
    joker_hand,
    nanfnt_hand,
)

NOT_CARDS = ("9C", 25, -1, 2**70, 0.5, [0])  # (5.0 and True equal a card: spelt oddly)
NOT_SUITS = ("S", 4, -1, 2**70, 0.5, [1])
NOT_BOOLS = (None, "yes", 2, [True])


def malformed_actions() -> list[tuple[str, object, str]]:
    """(id, action, code): every way to get each type of action wrong."""
    cases: list[tuple[str, object, str]] = []
    for kind in E.ACTION_TYPES:
        takes = E.ACTION_FIELDS[kind]
        suit = 0 if "suit" in takes else None
        card = 0 if "card" in takes else None
        if "card" in takes:
            cases.append((f"{kind} without its card", E.Action(kind), "invalid_action"))
            cases += [
                (f"{kind} card={bad!r}", E.Action(kind, card=bad), "invalid_card")
                for bad in NOT_CARDS
            ]
        else:  # a field it does not take, and not a card either
            cases.append((f"{kind} card='9C'", E.Action(kind, "9C", suit), "invalid_card"))
        if "suit" in takes:
            cases.append((f"{kind} without its suit", E.Action(kind), "invalid_action"))
            cases += [
                (f"{kind} suit={bad!r}", E.Action(kind, suit=bad), "invalid_suit")
                for bad in NOT_SUITS
            ]
        else:
            cases.append((f"{kind} suit='S'", E.Action(kind, card, "S"), "invalid_suit"))
        cases += [
            (f"{kind} alone={bad!r}", E.Action(kind, card, suit, bad), "invalid_action")
            for bad in NOT_BOOLS
        ]
    for kind in ("bid", "PLAY", None, ["pass"]):
        cases.append((f"type {kind!r}", E.Action(kind), "invalid_action"))
    for thing in (None, "pass", {"type": "pass"}, ("pass",), E.PASS.to_dict()):
        cases.append((f"not an Action: {thing!r}", thing, "invalid_action"))
    return cases


MALFORMED = malformed_actions()
ALL_VARIANTS = {
    "joker": True,
    "farmers_hand": True,
    "no_ace_no_face_no_trump": True,
    "defending_alone": True,
}


def _to_the_end_of_the_hand(state: E.MatchState, rng: random.Random) -> list[E.MatchState]:
    """Copies of `state` at each action until the hand is over (random legal actions)."""
    seen = []
    while state.turn is not None:
        seen.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    return [*seen, state.clone()]


def _whole_match(options: E.Options, seed: int) -> list[E.MatchState]:
    rng = random.Random(seed)
    state = E.MatchState(options, first_dealer=seed % 4)
    seen = []
    while state.phase != E.FINISHED:
        state.deal(E.seeded_deck(rng, joker=options.joker))
        seen += _to_the_end_of_the_hand(state, rng)
    return seen


def _joker_upcard() -> E.MatchState:
    state = E.MatchState(E.Options(**ALL_VARIANTS), first_dealer=EAST)
    state.deal(deck25(EAST, JOKER_UP, JOKER_UP_KITTY))
    return state


def _farm_under_way() -> E.MatchState:
    state = farm_hand()
    state.apply_action(S, E.farm(E.parse_card("9C")))
    return state


def _redeal_asked() -> E.MatchState:
    state = nanfnt_hand(defending_alone=True)
    state.apply_action(S, E.order_up())
    state.apply_action(EAST, E.discard(E.parse_card("KS")))
    assert state.phase == E.REDEAL and state.turn == W
    return state


def _farm_redeal_asked() -> E.MatchState:
    return farm_hand(farmers_hand_form="redeal")


def states_in_every_phase(per_phase: int = 4) -> list[E.MatchState]:
    """Up to `per_phase` states of each phase from each source: whole matches with no
    variant and with every variant (each lead rule), and hands built to reach the joker
    upcard, the farmer's exchange (begun too), a farmer's hand in the redeal form and the
    no ace, no face, no trump redeal."""
    rng = random.Random(33)
    sources = [_whole_match(E.Options(target_score=3), 1)]
    for i, lead in enumerate(E.LONE_LEAD_CHOICES):
        sources.append(_whole_match(E.Options(target_score=3, lone_lead=lead, **ALL_VARIANTS), i))
    starts = (_joker_upcard, joker_hand, farm_hand, _farm_under_way, _farm_redeal_asked)
    for start in (*starts, _redeal_asked):
        sources.append(_to_the_end_of_the_hand(start(), rng))
    chosen = []
    for states in sources:
        taken: dict[str, int] = {}
        for state in states:
            if taken.get(state.phase, 0) < per_phase:
                taken[state.phase] = taken.get(state.phase, 0) + 1
                chosen.append(state)
    return chosen


@pytest.fixture(scope="module")
def states() -> list[E.MatchState]:
    found = states_in_every_phase()
    assert {s.phase for s in found} == {
        E.DEAL, E.BID1, E.BID2, E.DISCARD, E.DEFEND, E.PLAY, E.FINISHED,
        E.NAME_SUIT, E.FARM, E.REDEAL,
    }  # fmt: skip
    assert any(s.phase == E.FARM and s.farm_out for s in found)  # an exchange under way
    assert any(s.phase == E.FARM and s.options.farm_redeal for s in found)  # the redeal form
    return found


def _snapshot(state: E.MatchState) -> tuple:
    return (
        E.full_view(state),
        list(state.hands),
        list(state.kitty),
        (state.phase, state.turn),
        list(state.farm_out),
        list(state.bids),
        list(state.declarations),
    )


def _seats(state: E.MatchState) -> list[int]:
    """The seat on turn and another (or any seat between hands and at the end)."""
    turn = state.turn
    return [0, 2] if turn is None else [turn, (turn + 1) % 4]


@pytest.mark.parametrize(
    ("action", "code"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_a_malformed_action_is_a_malformed_rule_error_in_every_phase(states, action, code):
    for state in states:
        for seat in _seats(state):
            before = _snapshot(state)
            with pytest.raises(E.RuleError) as raised:
                state.apply_action(seat, action)
            explained = state.explain_illegal(seat, action)
            where = f"{state.phase}, seat {seat}"
            for err in (raised.value, explained):
                assert isinstance(err, E.RuleError), where
                assert (err.kind, err.code) == (E.RuleKind.MALFORMED, code), where
                assert err.message.endswith(".") and not err.message[:1].islower(), where
            assert (explained.code, explained.message) == (raised.value.code, raised.value.message)
            assert _snapshot(state) == before, f"{where}: the state changed"


def test_a_farm_without_its_card_in_the_farmers_exchange_is_invalid_action():
    """The case issue 33 found: a TypeError from both."""
    state = farm_hand()
    assert state.phase == E.FARM and state.turn == S
    with pytest.raises(E.RuleError) as err:
        state.apply_action(S, E.Action("farm"))
    assert (err.value.code, err.value.message) == ("invalid_action", "A farm action names a card.")
    assert state.explain_illegal(S, E.Action("farm")).code == "invalid_action"


def test_an_action_equal_to_a_legal_one_spelt_oddly_is_still_legal(states):
    """The malformed checks come after the legal ones: 5.0 for 5 and True for 1 are taken,
    as they always were, and applied as the engine's own."""
    for state in states:
        for action in state.legal_actions()[:3]:
            odd = action._replace(
                card=None if action.card is None else float(action.card),
                suit=None if action.suit is None else float(action.suit),
            )
            assert state.explain_illegal(state.turn, odd) is None
            state.clone().apply_action(state.turn, odd)
