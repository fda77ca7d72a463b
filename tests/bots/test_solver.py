"""The double-dummy solver (bots/solver.py): exact, checked against plain minimax over the
engine's own legal_actions and apply_action; the same value whatever order the moves are
tried in; the C search and the Python one agree."""

import random

import pytest

from bots import solver as S
from games import engine as E

from .positions import new_hand


def random_hand_in_play(rng: random.Random, options: E.Options) -> E.MatchState:
    """A hand whose bidding was made by random legal bids (so lone makers and lone
    defenders come up), at its first lead."""
    while True:
        state = E.MatchState(options, first_dealer=rng.randrange(4))
        state.deal(E.seeded_deck(rng, joker=options.joker))
        while state.turn is not None and state.phase != E.PLAY:
            state.apply_action(state.turn, rng.choice(state.legal_actions()))
        if state.phase == E.PLAY:
            return state


def ending(rng: random.Random, tricks_left: int, options: E.Options) -> E.MatchState:
    """A position with `tricks_left` tricks to go (and maybe part of a trick played),
    reached by random legal plays."""
    state = random_hand_in_play(rng, options)
    cards_each = 5 - tricks_left
    while len(state.tricks) < cards_each:
        state.apply_action(state.turn, rng.choice(state.legal_actions()))
    for _ in range(rng.randrange(4 - sum(state.out))):  # sometimes a trick under way
        state.apply_action(state.turn, rng.choice(state.legal_actions()))
    return state


def minimax_tricks(state: E.MatchState) -> int:
    """The makers' tricks with perfect play, by trying every legal card (no pruning)."""
    makers = state.maker % 2
    best = None
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(state.turn, action)
        if child.phase != E.PLAY:
            value = child.last_hand["makers_tricks"]
        else:
            value = minimax_tricks(child)
        if best is None or (value > best if state.turn % 2 == makers else value < best):
            best = value
    return best


ALL_OPTIONS = E.Options(going_alone=True, defending_alone=True)
JOKER_OPTIONS = E.Options(going_alone=True, defending_alone=True, joker=True)


@pytest.mark.parametrize("tricks_left", [1, 2, 3])
def test_the_solver_agrees_with_brute_force_on_small_endings(tricks_left):
    rng = random.Random(100 + tricks_left)
    for _ in range(60 if tricks_left < 3 else 25):
        state = ending(rng, tricks_left, ALL_OPTIONS)
        assert S.solve(state) == minimax_tricks(state)


def test_the_solver_agrees_with_brute_force_with_lone_players():
    rng = random.Random(5)
    seen_alone = seen_defender = 0
    while seen_alone < 8 or seen_defender < 4:
        state = ending(rng, 3, ALL_OPTIONS)
        if not state.alone and state.defender_alone is None:
            continue
        seen_alone += state.alone
        seen_defender += state.defender_alone is not None
        assert S.solve(state) == minimax_tricks(state)


@pytest.mark.parametrize("tricks_left", [1, 2, 3])
def test_the_solver_agrees_with_brute_force_with_the_joker_in_the_deck(tricks_left):
    """The joker option's 25th card: the highest trump, a trump for following (the solver
    takes it from the engine's tables; an IndexError once showed it knew only 24 cards)."""
    rng = random.Random(300 + tricks_left)
    jokers_in_play = 0
    for _ in range(80 if tricks_left < 3 else 30):
        state = ending(rng, tricks_left, JOKER_OPTIONS)
        jokers_in_play += any(E.JOKER in E.cards_of(hand) for hand in state.hands)
        assert S.solve(state) == minimax_tricks(state)
    assert jokers_in_play > 0


def test_points_follow_euchre_scoring():
    rng = random.Random(9)
    for _ in range(80):
        state = ending(rng, 3, ALL_OPTIONS)
        assert S.solve_points(state) == S.hand_points(state, S.solve(state))


def test_the_same_value_from_any_move_order():
    rng = random.Random(11)
    for _ in range(30):
        state = random_hand_in_play(rng, ALL_OPTIONS)
        exact = S.PySolver(state.trump, state.maker % 2, state.out).tricks(
            state.hands, state.leader
        )
        for seed in range(3):
            shuffled = S.PySolver(state.trump, state.maker % 2, state.out)
            shuffled.shuffle = random.Random(seed)
            assert shuffled.tricks(state.hands, state.leader) == exact


def test_the_same_value_whichever_order_the_same_tricks_were_played_in():
    # Two tricks played in either order reach the same position: one value.
    state = new_hand(
        3,
        {
            0: "JS AS KH 9D TC",
            1: "TS QS AH QH TD",
            2: "KS JC TH 9H AD",
            3: "AC KC QC JH KD",
        },
        "9S",
    )
    state.apply_action(0, E.order_up())
    state.apply_action(3, E.discard(E.parse_card("KD")))
    first, second = state.clone(), state.clone()
    # South leads and wins both tricks; the same cards leave each hand in either order.
    for position, tricks in (
        (first, ("JS TS JC 9S", "AS QS KS AC")),
        (second, ("AS QS KS 9S", "JS TS JC AC")),
    ):
        for text in tricks:
            for c in text.split():
                position.apply_action(position.turn, E.play(E.parse_card(c)))
    assert first.hands == second.hands and first.turn == second.turn == 0
    assert S.solve(first) == S.solve(second) == minimax_tricks(first)


def test_the_c_search_and_the_python_search_agree():
    if S._c_library() is None:
        pytest.fail("the C search did not build (is a C compiler installed?)")
    rng = random.Random(13)
    for _ in range(200):
        state = ending(rng, rng.randint(1, 5), rng.choice([ALL_OPTIONS, JOKER_OPTIONS]))
        c = S.CSolver(state.trump, state.maker % 2, state.out)
        py = S.PySolver(state.trump, state.maker % 2, state.out)
        assert c.tricks(state.hands, state.leader, state.trick_cards) == py.tricks(
            state.hands, state.leader, state.trick_cards
        )


def test_action_values_are_the_points_each_card_leads_to():
    rng = random.Random(17)
    for _ in range(40):
        state = ending(rng, 3, ALL_OPTIONS)
        seat = state.turn
        values = S.action_values(state, seat)
        assert set(values) == set(state.legal_actions())
        for action, value in values.items():
            child = state.clone()
            child.apply_action(seat, action)
            if child.phase == E.PLAY:
                tricks = minimax_tricks(child)
            else:
                tricks = child.last_hand["makers_tricks"]
            points = S.hand_points(state, tricks)
            assert value == (points if seat % 2 == state.maker % 2 else -points)
        # The best card's value is the position's own.
        own = S.solve_points(state)
        assert max(values.values()) == (own if seat % 2 == state.maker % 2 else -own)


def test_action_values_in_the_bidding_take_the_best_contract():
    # South holds both bowers and the three top hearts: ordering hearts up wins all five.
    state = new_hand(
        3,
        {
            0: "JH JD AH KH QH",
            1: "9C TC JC 9S TS",
            2: "AC KC QC AS KS",
            3: "QS JS AD KD QD",
        },
        "9H",
        going_alone=True,
    )
    values = S.action_values(state, 0)
    assert values[E.order_up(alone=True)] == 4
    assert values[E.order_up()] == 2
    assert values[E.PASS] < 4


def test_state_value_lets_every_later_bidder_choose_for_its_own_side():
    # South, with nothing, is first to bid; west (seat 1) holds the five best hearts. With
    # every card shown, west goes alone if south passes; so south orders the nine up itself
    # and is euchred for 2, not marched on for 4.
    state = new_hand(3, {0: "9C TC 9D TD QS", 1: "JH JD AH KH QH"}, "9H")
    after_pass = state.clone()
    after_pass.apply_action(0, E.PASS)
    assert S.state_value(after_pass, 0) == -4 and S.state_value(after_pass, 1) == 4
    assert S.state_value(state, 0) == -2
    assert S.action_values(state, 0)[E.order_up()] == -2


def test_state_value_of_a_hand_every_seat_passes_twice_is_nothing():
    state = new_hand(3, {}, "9H", stick_the_dealer=False)
    for _ in range(8):
        state.apply_action(state.turn, E.PASS)
    assert S.state_value(state, 0) == 0 and S.state_value(state, 1) == 0


def test_threads_searching_at_once_get_the_same_values_as_one_alone():
    # ctypes lets go of the GIL during the C search: each thread has its own solvers.
    import threading

    rng = random.Random(21)
    states = [random_hand_in_play(rng, ALL_OPTIONS) for _ in range(40)]
    expected = [S.solve(s) for s in states]
    results: dict[int, list[int]] = {}

    def work(k: int) -> None:
        results[k] = [S.solve(s) for s in states]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(4))


def test_a_python_solver_keeps_a_few_deals_worth_of_memory_whatever_it_has_solved():
    """Every thread keeps a solver per trump, making side and seats out, for as long as
    the process lives (a review worker's, a turn worker's): what each remembers between
    calls must stay small, however many deals it solves. Counted in the memory blocks of
    Python's allocator (sys.getallocatedblocks: exact, whatever the machine's speed):
    about 25,000 at most (TABLE_LIMIT entries in each of the two), where a table and a
    memo of moves kept to 200,000 entries each held 468,000 blocks after these 150 deals
    (a process reviewing matches on the Python search was at 280 MB after two, issue 33)."""
    import gc
    import sys

    rng = random.Random(33)
    deals = []
    for _ in range(150):
        state = E.MatchState(E.Options(), first_dealer=rng.randrange(4))
        state.deal(E.seeded_deck(rng))
        deals.append((list(state.hands), state.turn))
    solver = S.PySolver(trump=0, makers=0)
    gc.collect()
    before = sys.getallocatedblocks()
    for hands, leader in deals:  # any full deal is a search for this trump and side
        solver.tricks(hands, leader)
    gc.collect()
    assert sys.getallocatedblocks() - before < 50_000
