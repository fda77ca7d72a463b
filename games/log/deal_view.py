"""Who got which cards of a recorded deck, by the engine's own deal convention."""

from games import engine as E


def seat_cards(deck: list[str], dealer: int, seat: int) -> list[str]:
    hands, _kitty = E.hands_from_deck(tuple(E.parse_card(c) for c in deck), dealer)
    return [E.card_str(c) for c in E.cards_of(hands[seat])]
