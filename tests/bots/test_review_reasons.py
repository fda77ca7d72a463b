"""The reasons in the review's sentences (bots/reasons.py): each common mistake, in a worked
position, gets the reason a person would give, from what the seat knew; no sentence names a
card the seat could not see."""

from bots import policy as P
from bots.hints import trump_card_name
from bots.review import sentence
from games import engine as E

from .positions import new_hand, play, states_met
from .test_players import POSITIONS

SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3
PASS = {"type": "pass"}
ORDER_UP = {"type": "order_up", "alone": False}
ALONE = {"type": "order_up", "alone": True}


def act(state: E.MatchState, *actions: dict) -> None:
    for action in actions:
        state.apply_action(state.turn, E.action_from_dict(action))


def card(text: str) -> dict:
    return {"type": "play", "card": text}


def discard(text: str) -> dict:
    return {"type": "discard", "card": text}


def said(state: E.MatchState, chosen: dict, best: dict, loss: float = 0.6) -> str:
    """The sentence for the seat to move, had it chosen `chosen` where `best` was best."""
    seen = E.read_view(E.player_view(state, state.turn))
    assert chosen in seen.legal and best in seen.legal
    return sentence(seen, chosen, best, loss)


def reason_of(words: str) -> str:
    """The reason: between 'gave up about x points: ' and '; better: '."""
    head, _better = words.split("; better: ")
    _done, _colon, why = head.partition(" points: ")
    return why


def north_leads_after_south_orders_up(north: str, east: str) -> E.MatchState:
    """West deals; south orders up hearts (the nine turned up) with the right bower, the
    ace and the king, void in clubs; west discards the nine of clubs; north leads."""
    hands = {NORTH: north, EAST: east, SOUTH: "JH AH KH 9D TD", WEST: "9C JC QC KD JS"}
    state = new_hand(WEST, hands, "9H")
    act(state, PASS, PASS, ORDER_UP, discard("9C"))
    return state


# ---------------------------------------------------------------- the bidding


def test_ordering_up_a_weak_hand_counts_its_trumps_bowers_and_aces():
    state = new_hand(EAST, {SOUTH: "9H TH AC KS QD"}, "QH")
    assert said(state, ORDER_UP, PASS).startswith(
        "ordering it up gave up about 0.6 points: you held only two hearts, with no bower "
        "and no ace among them, and one side ace; better: pass"
    )


def test_ordering_up_three_trumps_with_the_right_bower_is_not_called_weak():
    """ "only" is said of a short hand: here pass was better for another reason (the
    hand's count is given, no judgement on it)."""
    state = new_hand(EAST, {SOUTH: "JH TH 9H KS QD"}, "QH")
    assert reason_of(said(state, ORDER_UP, PASS)) == (
        "you held three hearts, with the right bower, and no side ace"
    )


def test_calling_a_suit_with_one_trump_says_so():
    state = new_hand(EAST, {SOUTH: "9S AC KC QD TD"}, "QH")
    act(state, PASS, PASS, PASS, PASS)  # hearts turned down: round two
    call = {"type": "call", "suit": "S", "alone": False}
    assert reason_of(said(state, call, PASS)) == (
        "you held only one spade, with no bower and no ace among them, and one side ace"
    )


def test_passing_a_strong_hand_names_the_bowers_and_the_ace_it_held():
    state = new_hand(EAST, {SOUTH: "JH JD AH 9C 9S"}, "9H")
    assert said(state, PASS, ORDER_UP).startswith(
        "passing gave up about 0.6 points: you held three hearts, with the right bower, the "
        "left bower and the ace of hearts, and no side ace; better: order it up"
    )


def test_a_dealer_who_turns_down_counts_the_upcard_it_would_have_had():
    state = new_hand(SOUTH, {SOUTH: "JH AH 9C 9S TS"}, "JD")
    act(state, PASS, PASS, PASS)
    assert reason_of(said(state, PASS, ORDER_UP)) == (
        "you held two diamonds, with the right bower and the left bower, and one side ace"
    )  # the jack of diamonds turned up is the right bower it would have picked up


def test_not_going_alone_with_a_lone_march_says_it_could_take_all_five():
    state = new_hand(EAST, {SOUTH: "JH JD AH KH QH"}, "9H")
    assert reason_of(said(state, ORDER_UP, ALONE)) == (
        "you held five hearts, with the right bower, the left bower and the ace of hearts, "
        "and no side ace: enough to hope for all five tricks alone, for 4 points"
    )


def test_going_alone_with_two_trumps_says_the_partner_was_needed():
    state = new_hand(EAST, {SOUTH: "JH TH AC KS QD"}, "9H")
    assert said(state, ALONE, ORDER_UP).startswith(
        "ordering it up alone gave up about 0.6 points: you held only two hearts, with the "
        "right bower, and one side ace: too little to take three tricks without your partner"
    )


def test_defending_alone_or_not_counts_the_defenders_hand():
    state = new_hand(EAST, {SOUTH: "JC JS AC KC 9D", WEST: "JH JD AH KH QH"}, "9H",
                     defending_alone=True)  # fmt: skip
    act(state, PASS, ALONE)  # west orders up alone; south may defend alone
    defend = {"type": "defend_alone"}
    assert reason_of(said(state, defend, PASS)) == (
        "you held no hearts, and one side ace: too little to euchre the makers without your partner"
    )
    assert reason_of(said(state, PASS, defend)).startswith("you held no hearts")


# ---------------------------------------------------------------- the play


def test_trumping_the_partners_winner_says_the_partner_was_winning():
    state = north_leads_after_south_orders_up("AC KC TS QS KS", "TC QD 9S AS AD")
    play(state, "AC TC")
    assert said(state, card("KH"), card("9D")).startswith(
        "playing the king of trump gave up about 0.6 points: your partner's ace of clubs was "
        "already winning the trick; better: play the 9 of diamonds"
    )


def test_last_to_play_the_partners_winner_had_already_won_the_trick():
    state = new_hand(SOUTH, {SOUTH: "JH AH KH 9C TC", WEST: "9D QD 9S TS QS",
                             NORTH: "AD AC KC QC JS", EAST: "TD KD KS AS JD"}, "9H")  # fmt: skip
    act(state, PASS, ORDER_UP, discard("TC"))  # north orders up, south deals
    play(state, "9D AD TD")  # west leads, north's ace wins so far; south is last
    assert reason_of(said(state, card("KH"), card("9C"))) == (
        "your partner's ace of diamonds had already won the trick"
    )


def test_not_winning_a_trick_that_could_be_won_names_the_card_that_would_have():
    state = north_leads_after_south_orders_up("KC TS QS KS QD", "AC TC 9S AS AD")
    play(state, "KC AC")
    assert said(state, card("9D"), card("KH")).startswith(
        "playing the 9 of diamonds gave up about 0.6 points: east's ace of clubs was winning "
        "the trick, and your king of trump would have beaten it; better: trump it"
    )


def test_leading_a_side_ace_when_the_partner_made_trump_says_to_lead_trump():
    state = new_hand(EAST, {SOUTH: "JH AC KC 9S TS", EAST: "9C 9D TD QD KD"}, "9H")
    act(state, PASS, PASS, ORDER_UP, discard("9C"))  # north orders up, east discards
    assert said(state, card("AC"), card("JH")).startswith(
        "leading the ace of clubs gave up about 0.6 points: your partner made trump, and "
        "leading trump draws the opponents' trumps; better: lead the jack of hearts"
    )


def test_leading_trump_into_the_makers_says_who_made_it():
    state = new_hand(EAST, {SOUTH: "JH AC KC 9S TS", EAST: "9C 9D TD QD KD"}, "9H")
    act(state, PASS, ORDER_UP, discard("9C"))  # west orders up, east discards
    assert reason_of(said(state, card("JH"), card("AC"))) == (
        "west made trump, and leading trump into the makers draws your side's trumps"
    )


def test_leading_a_suit_an_opponent_showed_out_of_says_so():
    state = new_hand(NORTH, {SOUTH: "AC QC JH AH TD", EAST: "KC TC 9S TS QS",
                             WEST: "AD KD QD 9D AS", NORTH: "JC 9C KS JS KH"}, "9H")  # fmt: skip
    act(state, PASS, ORDER_UP, discard("KS"))  # south orders up, north deals
    play(state, "KC AC AD 9C")  # west shows out of clubs; south's ace wins
    assert state.turn == SOUTH
    assert said(state, card("QC"), card("JH")).startswith(
        "leading the queen of clubs gave up about 0.6 points: west had shown out of clubs; "
        "better: lead the jack of hearts"
    )


# ---------------------------------------------------------------- discards


def test_discarding_a_trump_says_which_card_could_be_spared():
    state = new_hand(SOUTH, {SOUTH: "TH QH 9C AS KS"}, "JH")
    act(state, PASS, PASS, PASS, ORDER_UP)  # south deals and picks up the right bower
    assert reason_of(said(state, discard("JH"), discard("9C"))) == (
        "the right bower was a trump, and you could spare the 9 of clubs"
    )


def test_discarding_the_best_card_left_of_a_suit_says_it_was_a_likely_trick():
    state = new_hand(SOUTH, {SOUTH: "TH QH 9C AS KS"}, "JH")
    act(state, PASS, PASS, PASS, ORDER_UP)
    assert reason_of(said(state, discard("AS"), discard("9C"))) == (
        "the ace of spades was the highest spade left, a likely trick"
    )


def test_keeping_a_lone_card_instead_of_making_a_void_says_so():
    state = new_hand(SOUTH, {SOUTH: "TH QH 9C AS KS"}, "JH")
    act(state, PASS, PASS, PASS, ORDER_UP)
    # The king under the seat's own ace is no sure trick: the reason is the void.
    assert reason_of(said(state, discard("KS"), discard("9C"))) == (
        "you kept the 9 of clubs, your only club, and so no void to trump clubs with"
    )


# ---------------------------------------------------------------- no hidden card


def hidden_names(seen) -> list[str]:
    """The names of the cards the seat cannot see (not its own, not played, not known
    to be anywhere, not the upcard), as a sentence would say them."""
    visible = seen.hand | seen.gone | seen.kitty_known | E.BIT[seen.upcard]
    for known in seen.known:
        visible |= known
    names = []
    for c in E.cards_of(P.ALL & ~visible & ~seen.absent):
        names.append(E.card_name(c)[4:])  # "ace of clubs", also after "your partner's"
        if seen.trump is not None and E.EFFECTIVE_SUIT[seen.trump][c] == seen.trump:
            names.append(trump_card_name(c, seen.trump)[4:])  # "right bower", "ace of trump"
    return names


def test_no_sentence_names_a_card_the_seat_could_not_see():
    """Every pair of legal actions (chosen, best) at positions of every kind: the sentence,
    its reason and its better action, names no card hidden from the seat."""
    states = POSITIONS + states_met(5, 80) + states_met(11, 80)
    checked = 0
    for state in states:
        view = E.player_view(state, state.turn)
        seen = E.read_view(view)
        hidden = hidden_names(seen)
        for chosen in seen.legal:
            for best in seen.legal:
                if chosen == best:
                    continue
                words = sentence(seen, chosen, best, 0.6)
                leaked = [name for name in hidden if name in words]
                assert not leaked, (words, leaked)
                checked += 1
    assert checked > 500
