"""Reading the others' plays (bots/inference.py): a deal that gives a seat cards the
Medium rules would not have played that way from is less likely in Hard's sample."""

import random

from bots.inference import play_misses, unexplained_plays
from bots.players.hard import DEFAULT_BUDGET, Budget, _sample
from games import engine as E
from games.engine.cards import CARD_BY_TEXT, SPADES, mask_of
from games.engine.seen import read_view
from tests.engine.helpers import cards

from .positions import new_hand, play, states_met


def after_a_low_club_lead() -> E.MatchState:
    """Spades called in round two by East (seat 1); South (seat 0) leads the nine of
    clubs from no side ace: East to play."""
    state = new_hand(3, {0: "9C QD KD 9D TD", 1: "JS AS KS QC JC"}, "9H")
    for _ in range(5):
        state.apply_action(state.turn, E.PASS)  # round one, then South in round two
    state.apply_action(1, E.call(SPADES))
    play(state, "9C")
    assert state.turn == 1
    return state


def with_south(seen, hand: str) -> list[int]:
    """Some deal of the hidden cards with South holding `hand`."""
    south = mask_of(cards(hand))
    rest = [c for c in range(24) if (seen.unknown & ~south) >> c & 1]
    hands = list(seen.known)
    hands[0] = south  # its cards now (the nine of clubs is played)
    hands[2] = mask_of(rest[:5])
    hands[3] = mask_of(rest[5:10])
    return hands


def test_a_lead_the_rules_would_not_make_from_the_deal_is_unexplained():
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))
    # From QD KD 9D TD the rules lead the lowest card of the shortest suit: the nine of clubs.
    assert unexplained_plays(seen, with_south(seen, "QD KD 9D TD")) == 0
    # With the ace of diamonds they would have led it (the highest diamond left).
    assert unexplained_plays(seen, with_south(seen, "AD KD 9D TD")) == 1


def test_an_unexplained_play_is_counted_at_the_seat_that_made_it():
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))
    assert play_misses(seen, with_south(seen, "QD KD 9D TD")) == [0, 0, 0, 0]
    assert play_misses(seen, with_south(seen, "AD KD 9D TD")) == [1, 0, 0, 0]


SIDE_ACES = mask_of([CARD_BY_TEXT[c] for c in ("AC", "AD", "AH")])


def south_side_ace_share(seat: int, budget: Budget, deals: int = 400) -> float:
    """How often South holds a side ace in the deals `seat` samples after South's lead of
    the nine of clubs (which the rules would not lead beside a side ace)."""
    seen = read_view(E.player_view(after_a_low_club_lead(), seat))
    rng = random.Random(5)
    sampled = [_sample(seen, rng, budget)[0] for _ in range(deals)]
    return sum(bool(hands[0] & SIDE_ACES) for hands in sampled) / len(sampled)


def test_the_partners_plays_are_read_at_their_own_odds():
    partner_only = Budget(play_belief=1.0, play_belief_partner=0.1)
    opponents_only = Budget(play_belief=0.1, play_belief_partner=1.0)
    for seat, south_is_partner in ((2, True), (1, False)):  # North, then East
        unread = south_side_ace_share(seat, Budget(play_belief=1.0))
        assert unread > 0.2  # dealt blind, South often holds a side ace
        reading, not_reading = (
            (partner_only, opponents_only) if south_is_partner else (opponents_only, partner_only)
        )
        assert south_side_ace_share(seat, reading) < unread / 2
        assert south_side_ace_share(seat, not_reading) == unread


def test_reading_plays_makes_deals_that_contradict_a_play_less_likely():
    seen = read_view(E.player_view(after_a_low_club_lead(), 1))

    def share_with_a_side_ace(play_belief: float) -> float:
        rng = random.Random(5)
        budget = Budget(play_belief=play_belief)
        deals = [_sample(seen, rng, budget)[0] for _ in range(400)]
        return sum(bool(hands[0] & SIDE_ACES) for hands in deals) / len(deals)

    unread, read = share_with_a_side_ace(1.0), share_with_a_side_ace(0.1)
    assert unread > 0.3  # dealt blind, South often holds a side ace
    assert read < unread / 3
    # The service's Hard reads the plays too, less strictly (docs/bots/hard.md).
    assert DEFAULT_BUDGET.play_belief < 1.0
    served = share_with_a_side_ace(DEFAULT_BUDGET.play_belief)
    assert read < served < unread - 0.1, (read, served, unread)


def test_the_medium_rules_plays_are_explained_by_the_real_cards():
    # Every play of four Medium players, read from any seat's view with the real deal:
    # none is unexplained (hands where the upcard was turned down, so every seat saw it).
    checked = 0
    for seed in (3, 4, 5):
        for state in states_met(seed, 120):
            if state.phase != "play" or state.upcard_fate != "turned_down":
                continue
            seen = read_view(E.player_view(state, state.turn))
            if seen.played:
                assert unexplained_plays(seen, list(state.hands)) == 0
                checked += 1
    assert checked > 20
