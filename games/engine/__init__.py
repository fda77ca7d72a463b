"""The Euchre rules engine: pure Python, no Django, no I/O.

    from games import engine as E
    state = E.MatchState(E.Options(), first_dealer=3)
    state.deal(E.seeded_deck(1))
    while state.phase != "deal":
        seat = state.turn
        state.apply_action(seat, state.legal_actions()[0])

See docs/rules.md for the rules as implemented and the whole API.
"""

from .actions import (
    ACTION_TYPES,
    Action,
    action_from_dict,
    call,
    discard,
    order_up,
    play,
)
from .actions import DEFEND_ALONE_ACTION as DEFEND_ALONE
from .actions import PASS_ACTION as PASS
from .cards import (
    CLUBS,
    DECK,
    DIAMONDS,
    HEARTS,
    SPADES,
    card_name,
    card_str,
    effective_suit,
    parse_card,
    parse_suit,
    suit_of,
    suit_str,
    trick_winner_index,
    trump_order,
)
from .deal import seeded_deck, shuffled_deck, validate_deck
from .errors import RuleError, RuleKind
from .options import Options
from .state import (
    BID1,
    BID2,
    DEAL,
    DEFEND,
    DISCARD,
    FINISHED,
    PLAY,
    SEAT_NAMES,
    MatchState,
    partner,
    team_of,
)
from .views import full_view, player_view, spectator_view

__all__ = [
    "ACTION_TYPES",
    "Action",
    "action_from_dict",
    "call",
    "discard",
    "order_up",
    "play",
    "PASS",
    "DEFEND_ALONE",
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "SPADES",
    "DECK",
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
    "Options",
    "BID1",
    "BID2",
    "DEAL",
    "DEFEND",
    "DISCARD",
    "FINISHED",
    "PLAY",
    "SEAT_NAMES",
    "MatchState",
    "partner",
    "team_of",
    "full_view",
    "player_view",
    "spectator_view",
]
