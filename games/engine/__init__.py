"""The Euchre rules engine: pure Python, no Django, no I/O.

    from games import engine as E
    state = E.MatchState(E.Options(), first_dealer=3)
    state.deal(E.seeded_deck(1))
    while state.phase != "deal":
        seat = state.turn
        state.apply_action(seat, state.legal_actions()[0])

See docs/rules.md for the rules as implemented and the whole API. Code outside
the engine imports only from here (tests/engine/test_api_boundary.py checks bots/ and
games/): the names in `__all__` are the engine's API, the last group of them the
fast, unchecked one the computer players search with.
"""

from .actions import (
    ACTION_FIELDS,
    ACTION_TYPES,
    PLAY_ACTIONS,
    Action,
    action_from_dict,
    call,
    discard,
    farm,
    name_suit,
    order_up,
    play,
)
from .actions import DEFEND_ALONE_ACTION as DEFEND_ALONE
from .actions import DISCARD as ACTION_DISCARD
from .actions import PASS_ACTION as PASS
from .actions import PLAY as ACTION_PLAY
from .actions import REDEAL_ACTION as CALL_REDEAL
from .cards import (
    ACE,
    BIT,
    CARD_BY_TEXT,
    CLUBS,
    DECK,
    DECK_WITH_JOKER,
    DIAMONDS,
    EFFECTIVE_SUIT,
    HEARTS,
    JACK,
    JOKER,
    LOW_MASK,
    RANK_NAMES,
    SPADES,
    STRENGTH,
    SUIT_BY_LETTER,
    SUIT_LETTERS,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card,
    card_name,
    card_str,
    cards_of,
    deck_mask,
    effective_suit,
    parse_card,
    parse_suit,
    same_color,
    suit_of,
    suit_str,
    trick_winner_index,
    trump_order,
)
from .deal import hands_from_deck, seeded_deck, shuffled_deck, validate_deck
from .errors import KINDS as RULE_KINDS
from .errors import RuleError, RuleKind
from .options import (
    FARMERS_HAND_FORMS,
    JOKER_UPCARD_CHOICES,
    LONE_LEAD_CHOICES,
    TARGET_SCORE_MAX,
    TARGET_SCORE_MIN,
    Options,
)
from .outcomes import HAND_SCORED, HAND_THROWN_IN, MATCH_FINISHED, TRICK_WON
from .sampling import state_from_view, with_hands
from .seen import Seen, bid_phases, read_view
from .state import (
    BID1,
    BID2,
    DEAL,
    DEFEND,
    DISCARD,
    FARM,
    FARM_REDEAL_REASON,
    FINISHED,
    NAME_SUIT,
    PHASE_ACTIONS,
    PLAY,
    REDEAL,
    REDEAL_REASON,
    SEAT_NAMES,
    MatchState,
    partner,
    team_of,
)
from .views import full_view, player_view, spectator_view

__all__ = [
    "ACTION_FIELDS",
    "ACTION_TYPES",
    "Action",
    "action_from_dict",
    "call",
    "discard",
    "order_up",
    "play",
    "PASS",
    "DEFEND_ALONE",
    "name_suit",
    "farm",
    "CALL_REDEAL",
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "SPADES",
    "DECK",
    "DECK_WITH_JOKER",
    "JOKER",
    "card_name",
    "card_str",
    "effective_suit",
    "parse_card",
    "parse_suit",
    "suit_of",
    "suit_str",
    "trick_winner_index",
    "trump_order",
    "seeded_deck",
    "shuffled_deck",
    "validate_deck",
    "RuleError",
    "RuleKind",
    "RULE_KINDS",
    "Options",
    "BID1",
    "BID2",
    "DEAL",
    "DEFEND",
    "DISCARD",
    "FINISHED",
    "PLAY",
    "PHASE_ACTIONS",
    "NAME_SUIT",
    "FARM",
    "REDEAL",
    "REDEAL_REASON",
    "FARM_REDEAL_REASON",
    "SEAT_NAMES",
    "MatchState",
    "partner",
    "team_of",
    "full_view",
    "player_view",
    "spectator_view",
    "ACTION_DISCARD",
    "ACTION_PLAY",
    "TRICK_WON",
    "HAND_SCORED",
    "HAND_THROWN_IN",
    "MATCH_FINISHED",
    "LONE_LEAD_CHOICES",
    "JOKER_UPCARD_CHOICES",
    "FARMERS_HAND_FORMS",
    "TARGET_SCORE_MIN",
    "TARGET_SCORE_MAX",
    "SUIT_LETTERS",
    "SUIT_SYMBOLS",
    # For the computer players: tables and helpers that trust their input (no checks,
    # for speed), the view read back (Seen) and engine states rebuilt from it.
    "ACE",
    "BIT",
    "CARD_BY_TEXT",
    "EFFECTIVE_SUIT",
    "JACK",
    "LOW_MASK",
    "PLAY_ACTIONS",
    "RANK_NAMES",
    "STRENGTH",
    "SUIT_BY_LETTER",
    "SUIT_MASK",
    "SUIT_NAMES",
    "card",
    "cards_of",
    "deck_mask",
    "hands_from_deck",
    "same_color",
    "Seen",
    "bid_phases",
    "read_view",
    "state_from_view",
    "with_hands",
]
