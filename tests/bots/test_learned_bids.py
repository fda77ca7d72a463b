"""The bids learned by self-play (bots/learn_bids.py, bots/bid_policy.py) and Hard's use of
them (Budget.learned_bids): CFR converges on Kuhn poker to its known value, training in
chunks gives what one run gives, the learned bids agree with the solver on clear hands,
and Hard reading the bids by the learned policy sees no hidden card."""

import itertools
import random

import pytest

from bots import bid_policy as BP
from bots import learn_bids as L
from bots.learn_bidding import contract_value
from bots.players.hard import Budget, learned_bid_odds, make_hard
from games import engine as E
from tests.engine.helpers import deck_for

from .positions import new_hand, west_passed_the_nine_of_hearts


class Kuhn:
    """Kuhn poker: three cards, one each, ante 1, one bet of 1; its value for the first
    player is -1/18."""

    players = 2

    def sample(self, rng):
        return tuple(rng.sample([0, 1, 2], 2))

    def root(self, deal):
        return ""

    def terminal(self, deal, h):
        win = 1 if deal[0] > deal[1] else -1
        if h == "pp":
            return [win, -win]
        if h in ("bb", "pbb"):
            return [2 * win, -2 * win]
        if h == "bp":
            return [1, -1]
        if h == "pbp":
            return [-1, 1]
        return None

    def to_move(self, deal, h):
        return len(h) % 2

    def infoset(self, deal, h):
        return f"{deal[len(h) % 2]}{h}"

    def actions(self, deal, h):
        return ("p", "b")

    def child(self, deal, h, a):
        return h + a


def test_cfr_finds_kuhn_pokers_equilibrium_and_its_value_minus_one_eighteenth():
    game = Kuhn()
    state = L.iterate(game, L.new_state(), 12000, seed=1)
    policy = BP.strategy_from(state)

    def value(deal, h):
        u = game.terminal(deal, h)
        if u is not None:
            return u[0]
        probs = policy[game.infoset(deal, h)]
        return sum(p * value(deal, h + a) for p, a in zip(probs, "pb", strict=True))

    deals = list(itertools.permutations(range(3), 2))
    assert sum(value(d, "") for d in deals) / 6 == pytest.approx(-1 / 18, abs=0.003)
    bet = {key: probs[1] for key, probs in policy.items()}
    # The equilibrium's shape: the queen never opens with a bet, the king bets three
    # times as often as the jack bluffs, the second player's king always bets and calls,
    # its jack never calls.
    assert bet["1"] < 0.03 and bet["2"] == pytest.approx(3 * bet["0"], abs=0.08)
    assert bet["2p"] > 0.97 and bet["2b"] > 0.97 and bet["0b"] < 0.03


def test_training_in_two_chunks_gives_exactly_one_runs_state(tmp_path):
    whole = L.run_chunk(L.new_state(), 30, seed=4)
    first = L.run_chunk(L.new_state(), 12, seed=4)
    path = tmp_path / "state.json.gz"
    L.write_state(first, path)
    resumed = L.run_chunk(BP.read_state(path), 18, seed=4)
    assert resumed["iteration"] == whole["iteration"] == 30
    assert resumed["regret"] == whole["regret"] and resumed["strategy"] == whole["strategy"]
    L.write_state(whole, path)
    again = tmp_path / "again.json.gz"
    L.write_state(BP.read_state(path), again)
    assert path.read_bytes() == again.read_bytes()  # the same bytes for the same state
    with pytest.raises(ValueError):
        L.run_chunk(whole, 1, seed=5)  # a state goes on with its own seed


def solved(dealer: int, hands: dict[int, str], upcard: str, maker: int) -> int:
    """The double-dummy points of `maker` ordering the upcard up (with its partner)."""
    deck = deck_for(dealer, hands, upcard)
    return contract_value(deck, dealer, maker, E.parse_card(upcard) // 6, 1, False)[1]


CLEAR = [
    # (dealer, the seat's hand, upcard, the seat): the solver and the learned bid agree
    (3, "JH JD AH KH AC", "9H", 0, True),  # both bowers and the ace of trumps, a side ace
    (0, "JS JC AS TS AD", "KS", 2, True),  # the dealer's partner, the top three trumps
    (1, "JD AD KD QD AS", "9D", 1, True),  # the dealer itself, five trumps after pickup
    (3, "9C TD QS 9S TC", "AH", 0, False),  # no trump, no ace
    (0, "9D TD KC 9S TC", "JH", 1, False),  # the dealer's left, the right bower to the dealer
    (0, "9H TC QC KS 9D", "QH", 3, False),  # the dealer's right, one low trump
]


@pytest.mark.parametrize("dealer,hand,upcard,seat,order", CLEAR)
def test_the_learned_bid_agrees_with_the_solver_on_a_clear_hand(dealer, hand, upcard, seat, order):
    points = solved(dealer, {seat: hand}, upcard, seat)
    assert (points > 0) is order  # the solver: the contract makes, or is euchred
    state = new_hand(dealer, {seat: hand}, upcard)
    while state.turn != seat:
        state.apply_action(state.turn, E.PASS)
    position = (seat - dealer) % 4
    probs, _, _ = BP.probabilities(state.hands[seat], 1, position, state.upcard, None, stuck=False)
    made = probs[BP.TEAM] + probs[BP.ALONE]
    assert (made > 0.5) is order, probs
    bid = BP.state_action(state).type
    assert (bid == "order_up") is order
    hard = make_hard(Budget(samples=8, playouts=40, learned_bids=True))
    assert (hard(E.player_view(state, seat), random.Random(0))["type"] == "order_up") is order


def test_the_stuck_dealer_names_a_suit_and_the_table_covers_the_standard_bidding_only():
    state = new_hand(3, {3: "9D TD QH 9C TH"}, "9S")
    for _ in range(7):
        state.apply_action(state.turn, E.PASS)
    assert state.turn == 3 and BP.state_action(state).type == "call"
    assert BP.applies(E.Options().to_dict())
    for options in ({"joker": True}, {"farmers_hand": True}, {"stick_the_dealer": False}):
        assert not BP.applies(E.Options.from_dict(options).to_dict())


def test_a_pass_read_by_the_learned_policy_weighs_down_the_deals_where_it_held_a_monster():
    # West (the dealer's left) passed the nine of hearts; north is to bid.
    seen, west_strong, west_weak = west_passed_the_nine_of_hearts()
    assert learned_bid_odds(seen, west_strong, 0.1) < 0.3 * learned_bid_odds(seen, west_weak, 0.1)
    assert learned_bid_odds(seen, west_strong, 1.0) == 1.0  # a floor of 1: nothing read
    # Mixed wholly to the Medium rules, which order up with west's strong hand: the floor.
    assert learned_bid_odds(seen, west_strong, 0.1, mix=0.0) == pytest.approx(0.1)
    assert learned_bid_odds(seen, west_weak, 0.1, mix=0.0) == 1.0
