"""Whole matches under each rules option, and the three table variants together: every
decision can be rebuilt, reviewed, hinted and searched (issue 33).

A match's review, a hint and Hard's search each rebuild an engine state from one seat's
view and a deal of the cards it cannot see (games/engine/sampling.py `state_from_view`,
bots/knowledge.py `sample_hidden`). Joker matches failed their review when the dealer
named a joker upcard's suit (its own five cards, unseen, were dealt to no one) and after
a farmer's exchange had begun (the nines and tens put out were in no hand and no kitty),
with RuleError inconsistent_sample. A farmer's hand in its redeal form (farmers_hand_form
"redeal": ask for a new deal, a throw-in) goes through the same rebuilds.

Each example is a seeded match (hypothesis, derandomized: the same matches every run)
between players that follow the Medium rules or take a random legal action, the variants'
decisions of the first hand by the rules (later, a farmer's hand is kept half the time).
The decks are stacked a little so that the variants' decisions come up: the first hand
of a joker match turns the joker up, and a seat of the first hand of a farmer's-hand or
redeal match holds five nines and tens outside the upcard's suit (a farmer's hand, and no
trump if the upcard's suit is made); later hands, each now and then. For each match:

- from every seat's view before every action, a state rebuilt with a deal of the hidden
  cards shows that seat the same view, and so does a copy given another deal (with_hands);
- the review is built as the review worker builds it (bots/review.py `review_match`, every
  seat a person, a small budget);
- a hint (bots/hints.py) and Hard's search, with every phase searched (the service's Hard
  searches from the bidding on), are asked at every variant decision and every fifth other.
"""

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.hints import recommend
from bots.knowledge import sample_hidden
from bots.players import PLAYERS
from bots.players.hard import Budget, search
from bots.review import Decision, ReviewBudget, review_match
from games import engine as E
from games.engine.options import LONE_LEAD_CHOICES
from games.engine.sampling import state_from_view, with_hands
from games.engine.seen import read_view

VARIANT_PHASES = (E.NAME_SUIT, E.FARM, E.REDEAL)
EVERY_PHASE = ("bid1", "bid2", "discard", "defend", "play", *VARIANT_PHASES)
SEARCH = Budget(samples=3, playouts=12, search_phases=EVERY_PHASE)
HINT = Budget(samples=3, playouts=12)
# The next card chosen once for the deals that look alike, in every play decision.
FUSED = Budget(samples=3, playouts=12, next_choice=5)
REVIEW = ReviewBudget(samples=2)
MATCHES = 8  # per option mix and test
LOWS = E.cards_of(E.LOW_MASK)  # the nines and tens

ALL_THREE = {"joker": True, "farmers_hand": True, "no_ace_no_face_no_trump": True}
# Each option away from its default, alone, then the three variants together with
# defending alone under each lead rule.
MIXES = {
    "joker_named_by_dealer": {"joker": True},
    "joker_fixed_suit": {"joker": True, "joker_upcard": "spades"},
    "farmers_hand": {"farmers_hand": True},
    "farmers_hand_redeal": {"farmers_hand": True, "farmers_hand_form": "redeal"},
    "no_ace_no_face_no_trump": {"no_ace_no_face_no_trump": True},
    "no_stick_the_dealer": {"stick_the_dealer": False},
    "no_going_alone": {"going_alone": False},
    "defending_alone": {"defending_alone": True},
    "loner_left": {"lone_lead": "loner_left"},
    "canadian": {"lone_lead": "canadian"},
    **{
        f"all_three_defending_alone_{lead}": {
            **ALL_THREE,
            "defending_alone": True,
            "lone_lead": lead,
        }
        for lead in LONE_LEAD_CHOICES
    },
    # The three with a farmer's hand asking for a new deal: two redeals, one before the
    # bidding and one once trump is fixed.
    "all_three_redeal_form_defending_alone_canadian": {
        **ALL_THREE,
        "farmers_hand_form": "redeal",
        "defending_alone": True,
        "lone_lead": "canadian",
    },
}


def test_the_mixes_cover_every_option_away_from_its_default():
    defaults = E.Options()
    changed = {
        name
        for mix in MIXES.values()
        for name, value in mix.items()
        if value != getattr(defaults, name)
    }
    names = set(E.Options.__dataclass_fields__) - {"target_score"}  # varied in every match
    assert changed == names


def stacked_deck(options: E.Options, rng: random.Random, first_hand: bool) -> list[int]:
    """A shuffled deck, on the first hand with the joker turned up and a seat given five
    nines and tens outside the upcard's suit; later, each now and then."""
    deck = list(E.seeded_deck(rng, options.joker))
    if options.joker and (first_hand or rng.random() < 0.3):
        i = deck.index(E.JOKER)
        deck[i], deck[20] = deck[20], deck[i]
    if (options.farmers_hand or options.no_ace_no_face_no_trump) and (
        first_hand or rng.random() < 0.5
    ):
        upcard = deck[20]
        lows = [c for c in LOWS if upcard == E.JOKER or c // 6 != upcard // 6 and c != upcard]
        at = 5 * rng.randrange(4)  # a seat's five cards (deal.py: five each, in turn)
        for k, c in enumerate(rng.sample(lows, 5)):
            i = deck.index(c)
            deck[i], deck[at + k] = deck[at + k], deck[i]
    return deck


def play_match(mix: dict[str, Any], seed: int) -> tuple[list[Decision], E.MatchState]:
    """A whole match; every action with the state just before it, as the review worker
    reads them from the log (bots/services.py people_and_decisions)."""
    rng = random.Random(seed)
    options = E.Options.from_dict({**mix, "target_score": rng.randint(1, 4)})
    state = E.MatchState(options, first_dealer=seed % 4)
    decisions = []
    while state.phase != E.FINISHED:
        state.deal(stacked_deck(options, rng, first_hand=state.hand_number == 0))
        while state.turn is not None:
            seat = state.turn
            view = E.player_view(state, seat)
            by_rules = state.hand_number == 1 and state.phase in VARIANT_PHASES
            if not by_rules and state.phase == E.FARM and not state.farm_out:
                # Later, a farmer's hand is kept half the time: the redeal may come up.
                action = rng.choice([{"type": "pass"}, PLAYERS["medium"](view, rng)])
            elif by_rules or rng.random() < 0.6:
                action = PLAYERS["medium"](view, rng)
            else:
                action = rng.choice(view["legal_actions"])
            before = state.clone()
            decisions.append(Decision(len(decisions), state.hand_number, seat, before, action))
            state.apply_action(seat, E.action_from_dict(action))
    return decisions, state


def rebuilt_from_every_seat(state: E.MatchState, rng: random.Random) -> None:
    for seat in range(4):
        view = E.player_view(state, seat)
        seen = read_view(view)
        hands, kitty = sample_hidden(seen, rng)
        rebuilt = state_from_view(seen, {s: E.cards_of(hands[s]) for s in range(4)}, kitty)
        assert E.player_view(rebuilt, seat) == view
        other_hands, other_kitty = sample_hidden(seen, rng)
        copied = with_hands(rebuilt, other_hands, other_kitty)
        assert E.player_view(copied, seat) == view
        # Every card once: in a hand, the kitty, played, or put out in an exchange under way.
        aside = copied.farm_out if copied.phase == E.FARM else []
        places = [c for h in copied.hands for c in E.cards_of(h)] + copied.kitty + aside
        places += E.cards_of(seen.played)
        assert sorted(places) == E.cards_of(E.deck_mask(state.options.joker))


def property_test(max_examples: int):
    """Seeded and reproducible (derandomize), no per-example deadline on a slow machine."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


MIX = pytest.mark.parametrize("mix", list(MIXES.values()), ids=list(MIXES))


@MIX
@property_test(MATCHES)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_seats_view_of_every_decision_is_rebuilt_to_the_same_view(mix, seed):
    decisions, _final = play_match(mix, seed)
    rng = random.Random(seed)
    for d in decisions:
        rebuilt_from_every_seat(d.state, rng)
    met = {d.state.phase for d in decisions}
    if mix.get("joker") and "joker_upcard" not in mix:
        assert E.NAME_SUIT in met  # the stacked first hand: the dealer names the suit
    if mix.get("farmers_hand_form") == "redeal":  # the stacked first hand: asked
        asked = [d for d in decisions if d.state.phase == E.FARM]
        assert asked and all(d.action["type"] in ("pass", "redeal") for d in asked)
        if not mix.get("joker"):  # (a dealer picking up the joker may keep the hand)
            assert any(d.action["type"] == "redeal" for d in asked)  # a new deal asked for
    elif mix.get("farmers_hand"):
        assert any(d.state.farm_out for d in decisions)  # an exchange under way was met


@MIX
@property_test(MATCHES)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_match_is_reviewed_as_the_review_worker_reviews_it(mix, seed):
    decisions, final = play_match(mix, seed)
    assert final.winner in (0, 1)
    review = review_match(decisions, {s: f"p{s}" for s in range(4)}, REVIEW, str(seed))
    assert sum(p["decisions"] for p in review["players"]) == len(review["decisions"]) > 0
    for r in review["decisions"]:
        assert len(r["values"]) >= 2 and r["action"] in [v["action"] for v in r["values"]]
        if r["mistake"]:  # the sentence names what was done: a farm is not "passing"
            assert "gave up about" in r["sentence"]
            kept = r["phase"] == E.FARM and r["action"]["type"] == "pass"
            passed = r["action"]["type"] == "pass" and not kept
            assert r["sentence"].startswith("passing") == passed
            assert r["sentence"].startswith("keeping the hand") == kept
            if r["phase"] == E.FARM and r["action"]["type"] == "redeal":
                assert r["sentence"].startswith("asking for a new deal")


@MIX
@property_test(MATCHES)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_hint_and_hards_search_are_given_at_every_variant_decision_and_every_fifth(mix, seed):
    decisions, _final = play_match(mix, seed)
    rng = random.Random(seed)
    for i, d in enumerate(decisions):
        if d.state.phase not in VARIANT_PHASES and i % 5:
            continue
        view = E.player_view(d.state, d.seat)
        assert recommend(view, rng, HINT)["action"] in view["legal_actions"]
        assert search(view, rng, SEARCH).action in view["legal_actions"]
        if d.state.phase == "play":
            assert search(view, rng, FUSED).action in view["legal_actions"]
