"""Hard reading and continuing its opponents' bids by the fitted contract values
(bots/fitted_bids.py, the model reference_plus bids by; `Budget.fitted_opponents`): the
model's bids on hand-picked hands, a pass read as a hand the model would not have bid
with, the partner's bids left to Hard's own reading unless `Budget.fitted_partner` asks
for the model there too, and the search's later bids of those seats made by the model."""

import random

from bots import fitted_bids as F
from bots.players.hard import (
    Budget,
    _scores_after,
    fitted_bid_odds,
    fitted_seats,
    make_hard,
    search,
)
from games import engine as E
from games.engine.cards import mask_of
from games.engine.seen import read_view
from tests.engine.helpers import cards

from .positions import new_hand, west_passed_the_nine_of_hearts

HEARTS = E.SUIT_BY_LETTER["H"]
# South deals the king of hearts. North holds the right bower and the ace of diamonds:
# the fitted model orders its partner up, the Medium rules pass.
KING_OF_HEARTS_DEAL = {
    0: "TD JD AH 9S KS",
    1: "TC QC KC 9H TH",
    2: "9C QD AD JH TS",
    3: "JC AC KD JS QS",
}


def test_the_model_orders_up_a_monster_passes_junk_and_sticks_the_dealer():
    up = E.parse_card("9H")
    monster, junk = mask_of(cards("JH JD AH KH AC")), mask_of(cards("9C TD QS 9S TC"))
    assert F.bid(monster, 1, 1, up, None, False, True)[0] == HEARTS
    assert F.bid(junk, 1, 1, up, None, False, True) == (None, False)
    assert F.bid(monster, 1, 1, up, None, False, False) == (HEARTS, False)  # no going alone
    # Round two, the dealer stuck: it names its best suit, however poor.
    trump, _ = F.bid(junk, 2, 0, up, HEARTS, True, True)
    assert trump is not None and trump != HEARTS


def test_the_models_bid_on_an_engine_state_is_the_bid_for_that_seats_hand():
    state = new_hand(0, KING_OF_HEARTS_DEAL, "KH")
    state.apply_action(1, E.PASS)
    assert F.state_action(state) == E.order_up(False)
    # The same hand without the right bower passes.
    weak = {**KING_OF_HEARTS_DEAL, 2: "9C QD TD 9D TS", 0: "JH JD AH 9S KS"}
    state = new_hand(0, weak, "KH")
    state.apply_action(1, E.PASS)
    assert F.state_action(state) == E.PASS


def test_hard_reads_an_opponents_pass_as_a_hand_the_model_would_not_have_bid_with():
    # West (the dealer's left, north's opponent) passed the nine of hearts; north is to bid.
    seen, west_strong, west_weak = west_passed_the_nine_of_hearts()
    strong = fitted_bid_odds(seen, west_strong, 0.1)
    weak = fitted_bid_odds(seen, west_weak, 0.1)
    assert weak > 0.9 and strong < 0.3 * weak


def test_the_partners_bids_are_left_to_hards_own_reading():
    seen, west_strong, west_weak = west_passed_the_nine_of_hearts()
    state_east = new_hand(0, {1: "9C TC 9D TD QS", 2: "9S TS KS QC KD"}, "9H")
    state_east.apply_action(1, E.PASS)
    east = read_view(E.player_view(state_east, 3))  # west is east's partner
    for hands in (west_strong, west_weak):
        assert fitted_bid_odds(east, hands, 0.1) == 1.0


def test_the_fitted_seats_are_the_opponents_the_partner_or_all_three_by_the_knobs():
    seen, _, _ = west_passed_the_nine_of_hearts()  # north's view: west and east oppose
    assert fitted_seats(seen, Budget()) == ()
    assert fitted_seats(seen, Budget(fitted_opponents=True)) == (1, 3)
    assert fitted_seats(seen, Budget(fitted_partner=True)) == (0,)
    assert fitted_seats(seen, Budget(fitted_opponents=True, fitted_partner=True)) == (0, 1, 3)
    # Without the standard bidding (the dealer not stuck) the model does not apply.
    state = new_hand(0, {2: "9S TS KS QC KD"}, "9H", stick_the_dealer=False)
    loose = read_view(E.player_view(state, 1))
    assert fitted_seats(loose, Budget(fitted_opponents=True, fitted_partner=True)) == ()


def test_with_the_partner_knob_a_partners_pass_is_read_by_the_model():
    # East's partner, west, passed the nine of hearts: read as a hand the model passes.
    _, west_strong, west_weak = west_passed_the_nine_of_hearts()
    state_east = new_hand(0, {1: "9C TC 9D TD QS", 2: "9S TS KS QC KD"}, "9H")
    state_east.apply_action(1, E.PASS)
    east = read_view(E.player_view(state_east, 3))
    seats = fitted_seats(east, Budget(fitted_partner=True))
    assert seats == (1,)
    strong = fitted_bid_odds(east, west_strong, 0.1, seats)
    weak = fitted_bid_odds(east, west_weak, 0.1, seats)
    assert weak > 0.9 and strong < 0.3 * weak


def test_the_search_continues_the_partners_bids_by_the_model_with_the_partner_knob():
    state = new_hand(0, KING_OF_HEARTS_DEAL, "KH")
    state.apply_action(1, E.PASS)  # north (south's partner) to bid: south's search values it
    fitted = state.clone()
    _scores_after(fitted, list(state.scores), 0, [0, 0, 0, 0], team=0, fitted=(2,))
    assert fitted.maker == 2 and fitted.trump == HEARTS  # north orders up, by the model
    medium = state.clone()
    _scores_after(medium, list(state.scores), 0, [0, 0, 0, 0], team=0)
    assert medium.maker != 2  # the Medium rules pass with north's hand


def test_the_search_continues_the_opponents_bids_by_the_model():
    state = new_hand(0, KING_OF_HEARTS_DEAL, "KH")
    state.apply_action(1, E.PASS)  # west (team 1) passes: its search values this
    fitted = state.clone()
    _scores_after(fitted, list(state.scores), 0, [0, 0, 0, 0], team=1, fitted=(0, 2))
    assert fitted.maker == 2 and fitted.trump == HEARTS  # north orders up, by the model
    medium = state.clone()
    _scores_after(medium, list(state.scores), 0, [0, 0, 0, 0], team=1)
    assert medium.maker != 2  # the Medium rules pass with north's hand


def test_hard_with_the_knob_bids_a_monster_passes_junk_and_leaves_other_tables_alone():
    hard = make_hard(Budget(samples=8, playouts=40, fitted_opponents=True))
    for hand, order in (("JH JD AH KH AC", True), ("9C TD QS 9S TC", False)):
        state = new_hand(3, {0: hand}, "9H")
        action = hard(E.player_view(state, 0), random.Random(0))
        assert (action["type"] == "order_up") is order, (hand, action)
    # Where the dealer is not stuck the model does not apply: Hard reads as before.
    state = new_hand(3, {0: "JH JD AH KH AC"}, "9H", stick_the_dealer=False)
    view = E.player_view(state, 0)
    on = search(view, random.Random(2), Budget(samples=4, playouts=16, fitted_opponents=True))
    off = search(view, random.Random(2), Budget(samples=4, playouts=16))
    assert on.scores == off.scores and on.action == off.action
