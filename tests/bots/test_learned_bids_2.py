"""The second, richer abstraction of the learned bids (bots/bid_policy.py `abstraction=2`,
bots/data/bid_cfr2.json.gz): its information set on hand-picked hands, training it in
chunks (and in worker processes) gives exactly one run's state, an information set it
never met is read by the first abstraction's policy, and Hard picks it by its budget."""

import random

import pytest

from bots import bid_policy as BP
from bots import learn_bids as L
from bots.players.hard import Budget, learned_bid_odds, learned_rule_bid, make_hard, search
from games import engine as E
from games.engine.cards import mask_of
from games.engine.seen import read_view
from tests.engine.helpers import cards

from .positions import new_hand, west_passed_the_nine_of_hearts


def features(text: str, trump: str, round_: int, upcard: str, down: str | None = None) -> str:
    suit = E.SUIT_BY_LETTER[trump]
    turned_down = None if down is None else E.SUIT_BY_LETTER[down]
    return BP.hand_features(mask_of(cards(text)), suit, round_, E.parse_card(upcard), turned_down)


def test_the_hand_features_count_trumps_bowers_side_aces_the_upcard_and_next():
    # Both bowers, the ace and king of hearts (the left bower counts as a trump), the
    # club ace; a low upcard.
    assert features("JH JD AH KH AC", "H", 1, "9H") == "n3:b3:x1:u2"
    # The left bower alone and the nine: two trumps; two side aces; the upcard a jack.
    assert features("JD 9H AS AC 9C", "H", 1, "JH") == "n1:b1:x2:u0"
    # The right bower, no other trump; the trump ace is not a side ace; a king turned up.
    assert features("JH 9C TS QD 9D", "H", 1, "KH") == "n0:b2:x0:u1"
    # Round two: hearts is next to a turned-down diamond, not to a spade.
    assert features("JH 9H TH AS KC", "H", 2, "9D", "D") == "n2:b2:x1:next1"
    assert features("JH 9H TH AS KC", "H", 2, "9S", "S") == "n2:b2:x1:next0"


def test_the_key_adds_the_features_of_the_team_bids_suit_to_a_coarser_value():
    # The dealer (seat 3) holds the right bower and junk and picks up the ace of hearts:
    # its key reads the hand it plays (two trumps, the ace among them, no side ace).
    state = new_hand(3, {3: "JH 9C 9D TD QS"}, "AH")
    hand = state.hands[3]
    key, team_suit, alone_suit = BP.decision(hand, 1, 0, state.upcard, None, False, 2)
    assert team_suit == alone_suit == E.SUIT_BY_LETTER["H"]
    first, _, _ = BP.decision(hand, 1, 0, state.upcard, None, False, 1)
    mine = BP.P.after_pickup(hand, state.upcard)
    assert key.startswith("r1:p0:T") and key.endswith(":n1:b2:x0:u1")
    assert key.endswith(BP.hand_features(mine, team_suit, 1, state.upcard, None))
    assert first.startswith("r1:p0:t") and "|" not in first  # the first abstraction's as it was
    t = int(first.split(":t")[1].split(":")[0])
    assert f":T{t // 2}:" in key  # the value bucket twice as wide
    # Round two names the suit the fitted values like best: its features are that suit's.
    strong = mask_of(cards("JS JC AS KS QD"))
    key, team_suit, _ = BP.decision(strong, 2, 1, E.parse_card("9H"), 2, False, 2)
    assert team_suit == E.SUIT_BY_LETTER["S"] and key.endswith(":n3:b3:x0:next0")
    stuck, _, _ = BP.decision(strong, 2, 0, E.parse_card("9H"), 2, True, 2)
    assert stuck.startswith("r2:p0:stuck:T")


def test_training_the_second_abstraction_in_chunks_and_workers_gives_one_runs_state(tmp_path):
    whole = L.run_chunk(L.new_state(), 24, seed=4, abstraction=2)
    first = L.run_chunk(L.new_state(), 10, seed=4, abstraction=2, workers=2)
    path = tmp_path / "state.json.gz"
    L.write_state(first, path)
    resumed = L.run_chunk(BP.read_state(path), 14, seed=4, abstraction=2)
    assert resumed["iteration"] == whole["iteration"] == 24
    assert resumed["regret"] == whole["regret"] and resumed["strategy"] == whole["strategy"]
    assert all(":n" in key for key in whole["regret"])  # the richer keys
    with pytest.raises(ValueError):
        L.run_chunk(whole, 1, seed=4, abstraction=1)  # a state goes on with its abstraction
    with pytest.raises(ValueError):
        L.run_chunk(L.run_chunk(L.new_state(), 2, seed=4), 1, seed=4, abstraction=2)


def test_an_information_set_never_met_is_read_by_the_first_abstractions_policy():
    hand = mask_of(cards("JH JD AH KH AC"))
    up = E.parse_card("9H")
    unmet, _, _ = BP.probabilities(hand, 1, 1, up, None, False, policy={}, abstraction=2)
    assert unmet == BP.probabilities(hand, 1, 1, up, None, False, abstraction=1)[0]
    key = BP.decision(hand, 1, 1, up, None, False, 2)[0]
    met = BP.probabilities(hand, 1, 1, up, None, False, {key: (0.2, 0.3, 0.5)}, 2)[0]
    assert met == {BP.PASS: 0.2, BP.TEAM: 0.3, BP.ALONE: 0.5}


def test_hard_with_the_second_abstraction_orders_up_a_monster_and_reads_a_pass_by_it():
    budget = Budget(samples=8, playouts=40, learned_bids=True, learned_abstraction=2)
    hard = make_hard(budget)
    for hand, order in (("JH JD AH KH AC", True), ("9C TD QS 9S TC", False)):
        state = new_hand(3, {0: hand}, "9H")
        action = hard(E.player_view(state, 0), random.Random(0))
        assert (action["type"] == "order_up") is order, (hand, action)
    # West (the dealer's left) passed the nine of hearts; north is to bid.
    seen, west_strong, west_weak = west_passed_the_nine_of_hearts()
    odds = [learned_bid_odds(seen, hands, 0.1, abstraction=2) for hands in (west_strong, west_weak)]
    assert odds[0] < 0.3 * odds[1]


class PassEverywhere(dict):
    """A policy that passes in every information set (the stuck dealer bids with its
    partner)."""

    def get(self, key, default=None):
        return (1.0, 0.0) if ":stuck" in key else (1.0, 0.0, 0.0)


def test_the_budget_picks_the_second_abstractions_policy(monkeypatch):
    real = BP.table
    monkeypatch.setattr(
        BP, "table", lambda path=str(BP.DATA): PassEverywhere() if path == str(BP.DATA2) else real()
    )
    state = new_hand(3, {0: "JH JD AH KH AC"}, "9H")
    view = E.player_view(state, 0)
    seen = read_view(view)
    assert learned_rule_bid(seen, 1)["type"] == "order_up"
    assert learned_rule_bid(seen, 2)["type"] == "pass"
    for abstraction, rule in ((1, "order_up"), (2, "pass")):
        budget = Budget(samples=2, playouts=8, learned_bids=True, learned_abstraction=abstraction)
        assert search(view, random.Random(0), budget).rule_choice["type"] == rule
    # West passed with the monster: the first policy finds that unlikely, the second not.
    state.apply_action(0, E.PASS)
    seen = read_view(E.player_view(state, 1))
    hands = [mask_of(cards("JH JD AH KH AC")), seen.hand, 0, 0]
    assert learned_bid_odds(seen, hands, 0.1, abstraction=1) < 0.5
    assert learned_bid_odds(seen, hands, 0.1, abstraction=2) == 1.0


def test_reading_the_second_policy_and_falling_back_on_the_first_reads_each_file_once(
    monkeypatch,
):
    reads = []
    read, decision = BP.read_state, BP.decision
    monkeypatch.setattr(BP, "read_state", lambda path: reads.append(str(path)) or read(path))
    # A key of the second abstraction that no training meets: read by the first's policy.
    unmet = ("r1:p1:T99:a0:n0:b0:x0:u0", 1, 1)
    monkeypatch.setattr(BP, "decision", lambda *a: unmet if a[-1] == 2 else decision(*a))
    BP.table.cache_clear()
    hand, up = mask_of(cards("JH JD AH KH AC")), E.parse_card("9H")
    try:
        for _ in range(3):
            first = BP.probabilities(hand, 1, 1, up, None, False, abstraction=1)[0]
            assert BP.probabilities(hand, 1, 1, up, None, False, abstraction=2)[0] == first
    finally:
        BP.table.cache_clear()
    assert sorted(reads) == sorted([str(BP.DATA), str(BP.DATA2)])
