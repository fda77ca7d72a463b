"""Hard's next card chosen once for the deals that look alike (bots/next_choice.py,
`Budget.next_choice`): the remedy for strategy fusion, where each deal solved
double-dummy picks its own later card."""

import random

from bots.next_choice import branch, fused_values
from bots.players.hard import Budget, search
from bots.solver import action_values
from games import engine as E

from .positions import states_met


def test_deals_that_look_alike_share_one_next_card():
    # Two deals in which the same card fell: the ace wins in the first, the king in the
    # second. Deal by deal each would take its best (1 and 1); together the seat must
    # pick one card for both, and the value is what that card gives in each.
    alike = (7,)
    branches = [(alike, {11: 1, 10: -2}), (alike, {11: -2, 10: 1})]
    assert fused_values(branches, float) in ([1.0, -2.0], [-2.0, 1.0])
    assert sum(fused_values(branches, float)) == -1.0


def test_deals_told_apart_by_what_fell_keep_their_own_next_card():
    branches = [((7,), {11: 1, 10: -2}), ((8,), {11: -2, 10: 1})]
    assert fused_values(branches, float) == [1.0, 1.0]


def test_the_value_goes_through_the_given_function():
    branches = [((7,), {11: 2, 10: 1}), ((7,), {11: 1, 10: 1})]
    assert fused_values(branches, lambda p: 10.0 * p) == [20.0, 10.0]


def late_positions(seed: int) -> list[E.MatchState]:
    """Play decisions of Medium matches with three or four cards in the mover's hand."""
    return [
        s
        for s in states_met(seed, 400)
        if s.phase == "play" and 3 <= s.hands[s.turn].bit_count() <= 4
    ]


def test_a_branch_ends_at_the_seats_next_turn_with_its_double_dummy_values():
    checked = 0
    for state in late_positions(3)[:20]:
        seat = state.turn
        for action in state.legal_actions():
            after = state.clone()
            after.apply_action(seat, action)
            seen, values = branch(after.clone(), seat)
            # the rest of this trick, then the next one's up to the seat's turn
            assert len(seen) <= 6
            assert 1 <= len(values) <= after.hands[seat].bit_count()  # its legal cards then
            # the others' double-dummy play keeps the deal's double-dummy value
            assert max(values.values()) == action_values(state, seat)[action]
            checked += 1
    assert checked > 20


def test_choosing_one_next_card_never_values_a_card_above_the_deal_by_deal_search():
    fused = Budget(samples=12, playouts=60, next_choice=4)
    plain = Budget(samples=12, playouts=60)
    lower = 0
    positions = late_positions(4)[:25]
    for i, state in enumerate(positions):
        view = E.player_view(state, state.turn)
        a = search(view, random.Random(i), fused)
        b = search(view, random.Random(i), plain)
        assert a.actions == b.actions and a.samples == b.samples  # the same deals
        for x, y in zip(a.scores, b.scores, strict=True):
            assert x <= y + 1e-12
        lower += any(x < y - 1e-12 for x, y in zip(a.scores, b.scores, strict=True))
    assert len(positions) >= 10
    assert lower > 0  # somewhere a card was worth less once the next card is shared
