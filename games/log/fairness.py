"""Fair dealing: a commitment to each deck, published before the first bid.

commitment = sha256("<salt>:<deck>") in hex, where <deck> is the 24 cards (25 with
the joker option, the joker written "JK") in deal order in the engine's notation
joined by spaces ("JH TD 9C ...") and
<salt> is 32 random hex digits. Players see only the commitment while the hand
runs; when it ends, the log reveals deck and salt, and anyone can recompute it.
"""

import hashlib
import secrets

from games.engine import card_str


def deck_text(deck: tuple[int, ...] | list[int]) -> str:
    return " ".join(card_str(c) for c in deck)


def new_salt() -> str:
    return secrets.token_hex(16)


def commitment(deck_cards: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{deck_cards}".encode()).hexdigest()


def verify(deck_cards: list[str], salt: str, expected: str) -> bool:
    return secrets.compare_digest(commitment(" ".join(deck_cards), salt), expected)
