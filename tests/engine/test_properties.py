"""Properties over random deals, random options and random legal play (hypothesis).

Each example is a seed: the decks and every choice come from random.Random(seed),
so a failure shrinks to a seed and an option set that replay exactly.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine as E
from games.engine import actions as A
from games.engine.cards import BIT
from games.engine.state import MatchState


def _options(**fields) -> E.Options:
    if not fields["farmers_hand"]:  # a farmer's hand's form needs the option on
        fields["farmers_hand_form"] = "exchange"
    return E.Options(**fields)


options_st = st.builds(
    _options,
    target_score=st.integers(1, 15),
    stick_the_dealer=st.booleans(),
    going_alone=st.booleans(),
    lone_lead=st.sampled_from(["dealer_left", "loner_left", "canadian"]),
    defending_alone=st.booleans(),
    # the table variants (docs/rules.md), each on in about half the examples
    joker=st.booleans(),
    joker_upcard=st.sampled_from(E.JOKER_UPCARD_CHOICES),
    farmers_hand=st.booleans(),
    farmers_hand_form=st.sampled_from(E.FARMERS_HAND_FORMS),
    no_ace_no_face_no_trump=st.booleans(),
)
seeds = st.integers(0, 2**32 - 1)
seats = st.integers(0, 3)

# Every action there is: the legal ones of a moment are always among these.
EVERY_ACTION = (
    A.PASS_ACTION,
    A.DEFEND_ALONE_ACTION,
    *A.ORDER_UP_ACTIONS,
    *(a for pair in A.CALL_ACTIONS for a in pair),
    *A.DISCARD_ACTIONS,
    *A.PLAY_ACTIONS,
    *A.NAME_SUIT_ACTIONS,
    *A.FARM_ACTIONS,
    A.REDEAL_ACTION,
)


def property_test(max_examples: int):
    """Seeded and reproducible (derandomize), no per-example deadline on a slow VM."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


def played_mask(state: MatchState) -> int:
    mask = 0
    for _, cards, _ in state.tricks:
        for c in cards:
            mask |= BIT[c]
    for c in state.trick_cards:
        mask |= BIT[c]
    return mask


def assert_cards_conserved(state: MatchState) -> None:
    """Hands, kitty and played cards (and a farmer's cards on their way to the kitty)
    are the 24 cards, or the 25 with the joker, each exactly once."""
    if state.deck is None or state.phase in (E.DEAL, E.FINISHED) and not state.tricks:
        return
    places = [*state.hands, *(BIT[c] for c in state.kitty), played_mask(state)]
    if not state.farm_in:
        places += [BIT[c] for c in state.farm_out]
    assert sum(p.bit_count() for p in places) == len(state.deck)
    union = 0
    for p in places:
        assert not union & p, "a card is in two places"
        union |= p
    assert union == E.deck_mask(state.options.joker)


def snapshot(state: MatchState) -> tuple:
    return tuple(repr(getattr(state, name)) for name in MatchState.__slots__ if name != "_legal")


def check_hand_result(state: MatchState, outcomes: list[dict], before: list[int]) -> None:
    ends = [o for o in outcomes if o["type"] in ("hand_scored", "hand_thrown_in")]
    assert len(ends) == 1
    end = ends[0]
    if end["type"] == "hand_thrown_in" and end.get("reason") == E.REDEAL_REASON:
        assert state.options.no_ace_no_face_no_trump and not state.tricks
        assert state.scores == before
        return
    if end["type"] == "hand_thrown_in" and end.get("reason") == E.FARM_REDEAL_REASON:
        assert state.options.farm_redeal and state.trump is None and not state.bids
        assert state.scores == before
        return
    if end["type"] == "hand_thrown_in":
        assert not state.options.stick_the_dealer
        assert state.trump is None and not state.tricks
        assert state.scores == before
        return
    for seats, cards, winner in state.tricks:  # against the reference function of cards.py
        assert winner == seats[E.trick_winner_index(cards, state.trump)]
    trick_sizes = {len(cards) for _, cards, _ in state.tricks}
    assert len(state.tricks) == 5 and sum(state.tricks_won) == 5
    assert trick_sizes == {4 - sum(state.out)}
    assert [o["trick"] for o in outcomes if o["type"] == "trick_won"] == [1, 2, 3, 4, 5]
    gained = [state.scores[t] - before[t] for t in (0, 1)]
    assert gained.count(0) == 1, "exactly one team scores"
    points = max(gained)
    assert points in (1, 2, 4) and gained[end["team"]] == points == end["points"]
    makers = state.maker % 2
    taken = state.tricks_won[makers] + state.tricks_won[makers + 2]
    assert end["makers_tricks"] == taken
    if taken == 5:
        assert (end["team"], points) == (makers, 4 if state.alone else 2)
    elif taken >= 3:
        assert (end["team"], points) == (makers, 1)
    else:
        assert end["team"] == 1 - makers
        assert points == (4 if state.defender_alone is not None else 2)


@property_test(1000)
@given(options=options_st, seed=seeds, first_dealer=seats)
def test_random_matches_keep_every_rule_of_the_hand_and_the_match(options, seed, first_dealer):
    rng = random.Random(seed)
    state = E.MatchState(options, first_dealer)
    dealer = first_dealer
    for _ in range(60):
        assert state.phase == E.DEAL and state.winner is None
        assert max(state.scores) < options.target_score
        assert state.dealer == dealer
        before = state.scores[:]
        state.deal(E.seeded_deck(rng, options.joker))
        assert_cards_conserved(state)
        outcomes: list[dict] = []
        while state.turn is not None:
            assert not state.out[state.turn]
            legal = state.legal_actions()
            assert legal
            outcomes += state.apply_action(state.turn, legal[rng.randrange(len(legal))])
            assert_cards_conserved(state)
        check_hand_result(state, outcomes, before)
        if state.phase == E.FINISHED:
            # the match ends exactly when a team reaches the target, at the end of a hand
            assert outcomes[-1]["type"] == "match_finished"
            assert state.scores[state.winner] >= options.target_score
            assert state.scores[1 - state.winner] < options.target_score
            assert state.legal_actions() == ()
            return
        assert all(o["type"] != "match_finished" for o in outcomes)
        dealer = (dealer + 1) % 4
    # With only throw-ins a match could go on; scoring hands end it well within 60.
    assert not options.stick_the_dealer


@property_test(300)
@given(options=options_st, seed=seeds, first_dealer=seats)
def test_every_legal_action_applies_and_every_other_raises_and_changes_nothing(
    options, seed, first_dealer
):
    rng = random.Random(seed)
    state = E.MatchState(options, first_dealer)
    for _ in range(2):
        if state.phase == E.FINISHED:
            break
        state.deal(E.seeded_deck(rng, options.joker))
        while state.turn is not None:
            seat = state.turn
            legal = state.legal_actions()
            assert len(set(legal)) == len(legal)
            before = snapshot(state)
            for action in EVERY_ACTION:
                if action in legal:
                    state.clone().apply_action(seat, action)  # applies without error
                else:
                    try:
                        state.apply_action(seat, action)
                    except E.RuleError as err:
                        assert err.code and err.message
                    else:
                        raise AssertionError(f"{action} applied but is not legal")
            for other in range(4):
                if other != seat:
                    try:
                        state.apply_action(other, rng.choice(EVERY_ACTION))
                    except E.RuleError as err:
                        assert err.code in ("not_your_turn", "sitting_out")
                    else:
                        raise AssertionError("a seat acted out of turn")
            assert snapshot(state) == before
            assert state.legal_actions() == legal
            state.apply_action(seat, legal[rng.randrange(len(legal))])


@property_test(200)
@given(options=options_st, seed=seeds, first_dealer=seats)
def test_replaying_the_recorded_setup_decks_and_actions_gives_the_same_state(
    options, seed, first_dealer
):
    rng = random.Random(seed)
    # What an event log records: the setup, each deck, each (seat, action), as JSON.
    setup = {"options": options.to_dict(), "first_dealer": first_dealer}
    log: list[tuple[str, object]] = []
    state = E.MatchState(options, first_dealer)
    views = []
    for _ in range(6):
        if state.phase == E.FINISHED:
            break
        deck = E.seeded_deck(rng, options.joker)
        log.append(("deal", [E.card_str(c) for c in deck]))
        state.deal(deck)
        while state.turn is not None:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            log.append(("action", (state.turn, action.to_dict())))
            state.apply_action(state.turn, action)
            views.append(E.full_view(state))

    replay = E.MatchState(E.Options.from_dict(setup["options"]), setup["first_dealer"])
    replayed_views = []
    for kind, payload in log:
        if kind == "deal":
            replay.deal([E.parse_card(c) for c in payload])
        else:
            seat, action = payload
            replay.apply_action(seat, E.action_from_dict(action))
            replayed_views.append(E.full_view(replay))
    assert replayed_views == views
    assert E.full_view(replay) == E.full_view(state)
    for seat in range(4):
        assert E.player_view(replay, seat) == E.player_view(state, seat)


@property_test(200)
@given(options=options_st, seed=seeds, first_dealer=seats)
def test_a_clone_is_independent_of_its_original(options, seed, first_dealer):
    rng = random.Random(seed)
    state = E.MatchState(options, first_dealer)
    state.deal(E.seeded_deck(rng, options.joker))
    for _ in range(rng.randrange(12)):
        if state.turn is None:
            break
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    view = E.full_view(state)
    copy = state.clone()
    assert E.full_view(copy) == view
    while copy.turn is not None:
        legal = copy.legal_actions()
        copy.apply_action(copy.turn, legal[rng.randrange(len(legal))])
    assert E.full_view(state) == view


def test_clone_copies_every_slot_and_shares_no_list():
    rng = random.Random(8)
    state = E.MatchState(E.Options(defending_alone=True), first_dealer=2)
    state.deal(E.seeded_deck(rng))
    for _ in range(9):
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    copy = state.clone()
    for name in MatchState.__slots__:
        mine, theirs = getattr(state, name), getattr(copy, name)
        assert theirs == mine, name
        if isinstance(mine, list):
            assert theirs is not mine, name


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-30, 30),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.just(2.0),
)
malformed_actions = st.one_of(
    st.builds(
        A.Action,
        type=st.sampled_from(A.ACTION_TYPES),
        card=st.one_of(st.integers(0, 24), junk),
        suit=st.one_of(st.integers(0, 3), junk),
        alone=junk,
    ),
    st.builds(A.Action, type=st.text(max_size=8), card=junk, suit=junk, alone=junk),
    junk,
    st.dictionaries(st.text(max_size=5), junk, max_size=3),
    st.tuples(st.sampled_from(A.ACTION_TYPES), junk),
)


@property_test(300)
@given(
    options=options_st,
    seed=seeds,
    steps=st.integers(0, 30),
    actions=st.lists(malformed_actions, min_size=1, max_size=12),
    seat=junk,
)
def test_any_action_at_all_is_applied_or_refused_with_a_rule_error(
    options, seed, steps, actions, seat
):
    rng = random.Random(seed)
    state = E.MatchState(options, 3)
    state.deal(E.seeded_deck(rng, options.joker))
    for _ in range(steps):
        if state.turn is None:
            break
        legal = state.legal_actions()
        state.apply_action(state.turn, legal[rng.randrange(len(legal))])
    for action in actions:
        for who in (seat, state.turn):
            before = snapshot(state)
            try:
                state.clone().apply_action(who, action)
            except E.RuleError:
                try:
                    state.apply_action(who, action)
                except E.RuleError:
                    assert snapshot(state) == before
                else:
                    raise AssertionError("refused on a clone, applied on the state") from None


@pytest.mark.parametrize(
    "action",
    [
        A.Action("play"),
        A.Action("play", card=5.0),
        A.Action("play", card=-1),
        A.Action("play", card="JH"),
        A.Action("discard"),
        A.Action("call", suit=2.0),
    ],
)
def test_actions_with_malformed_fields_are_rule_errors(action):
    state = E.MatchState(E.Options(), 3)
    state.deal(E.seeded_deck(1))
    state.apply_action(0, E.order_up())
    state.apply_action(3, state.legal_actions()[0])
    before = snapshot(state)
    try:
        state.apply_action(0, action)
    except E.RuleError:
        assert snapshot(state) == before


def test_an_equal_action_spelt_oddly_is_applied_as_the_engine_own():
    state = E.MatchState(E.Options(), 3)
    state.deal(E.seeded_deck(1))
    state.apply_action(0, E.order_up())
    state.apply_action(3, state.legal_actions()[0])
    card = state.legal_actions()[0].card
    state.apply_action(0, A.Action("play", card=float(card)))
    assert state.trick_cards == [card] and type(state.trick_cards[0]) is int
