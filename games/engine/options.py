"""Match options: every way the rule documents differ. Defaults follow Poozee (000)."""

from dataclasses import dataclass, fields
from typing import Any

from .cards import SUIT_NAMES
from .errors import RuleError, shown

LONE_LEAD_CHOICES = ("dealer_left", "loner_left", "canadian")
TARGET_SCORE_MIN, TARGET_SCORE_MAX = 1, 15
# When the joker is the upcard: the dealer names its suit before looking at their hand,
# or it counts as a fixed suit.
JOKER_UPCARD_CHOICES = ("dealer_names", *SUIT_NAMES)
# What a farmer's hand may do: exchange three nines and tens for the cards under the
# upcard (the common form), or ask for a new deal (002's wording: a throw-in).
FARMERS_HAND_FORMS = ("exchange", "redeal")
# The table variants of 000 and 002 added later: off by default, and left out of the
# JSON form while at their defaults, so that every match made before them (its stored
# options, its log, its views) reads exactly as it did.
VARIANT_DEFAULTS = {
    "joker": False,
    "joker_upcard": "dealer_names",
    "farmers_hand": False,
    "farmers_hand_form": "exchange",
    "no_ace_no_face_no_trump": False,
}


@dataclass(frozen=True, slots=True)
class Options:
    """The rules a match is played under.

    target_score      1..15, first team to reach it wins (000: 10; 003: settable 1 to 15).
    stick_the_dealer  the dealer may not pass in round two (000, 002 default; 003 default off).
                      Off: four passes in round two throw the hand in; the deal moves left.
    going_alone       the maker may go alone (003 lets a table switch it off).
    lone_lead         who leads the first trick of a hand the maker plays alone:
                      "dealer_left" (000): the dealer's left, skipping a seat that sits out;
                      "loner_left": the seat on the loner's left;
                      "canadian" (002): the loner's left when the loner ordered up the upcard
                      in round one, otherwise the dealer's left.
    defending_alone   (002) after trump is fixed and before the first lead, each defender in
                      turn from the dealer's left may declare alone; the first to do so plays
                      without a partner, and euchring the makers that way scores 4.
    joker             (000's other tables) a 25-card deck: the joker is the highest trump.
    joker_upcard      the joker turned up: "dealer_names" (the dealer names its suit before
                      looking at their hand) or a fixed suit ("hearts", ...).
    farmers_hand      (002) before the bidding, a seat holding three or more nines and tens
                      may exchange three of them face down for the three cards under the upcard.
    farmers_hand_form what such a seat may do: "exchange" (the above) or "redeal" (ask for a
                      new deal: the hand is thrown in). Any form but "exchange" needs
                      farmers_hand on (invalid_option otherwise: it would change nothing).
    no_ace_no_face_no_trump  (002) after trump is fixed and before the first lead, a seat
                      holding no ace, no face card and no trump may call a redeal (a throw-in).
    """

    target_score: int = 10
    stick_the_dealer: bool = True
    going_alone: bool = True
    lone_lead: str = "dealer_left"
    defending_alone: bool = False
    joker: bool = False
    joker_upcard: str = "dealer_names"
    farmers_hand: bool = False
    farmers_hand_form: str = "exchange"
    no_ace_no_face_no_trump: bool = False

    def __post_init__(self) -> None:
        score = self.target_score
        if type(score) is not int or not TARGET_SCORE_MIN <= score <= TARGET_SCORE_MAX:
            raise RuleError(
                "invalid_option",
                f"target_score must be a whole number from {TARGET_SCORE_MIN} to "
                f"{TARGET_SCORE_MAX}.",
            )
        for name in (
            "stick_the_dealer",
            "going_alone",
            "defending_alone",
            "joker",
            "farmers_hand",
            "no_ace_no_face_no_trump",
        ):
            if type(getattr(self, name)) is not bool:
                raise RuleError("invalid_option", f"{name} must be true or false.")
        if self.lone_lead not in LONE_LEAD_CHOICES:
            raise RuleError(
                "invalid_option", f"lone_lead must be one of {', '.join(LONE_LEAD_CHOICES)}."
            )

        if type(self.joker_upcard) is not str or self.joker_upcard not in JOKER_UPCARD_CHOICES:
            raise RuleError(
                "invalid_option",
                f"joker_upcard must be one of {', '.join(JOKER_UPCARD_CHOICES)}.",
            )
        form = self.farmers_hand_form
        if type(form) is not str or form not in FARMERS_HAND_FORMS:
            raise RuleError(
                "invalid_option",
                f"farmers_hand_form must be one of {', '.join(FARMERS_HAND_FORMS)}.",
            )
        if form != "exchange" and not self.farmers_hand:
            # A form with the option off would play a match without it: say so instead.
            raise RuleError("invalid_option", f"farmers_hand_form {form} needs farmers_hand true.")

    @property
    def deck_size(self) -> int:
        return 25 if self.joker else 24

    @property
    def farm_exchange(self) -> bool:
        """A farmer's hand may be exchanged with the kitty (farmers_hand, its common form)."""
        return self.farmers_hand and self.farmers_hand_form == "exchange"

    @property
    def farm_redeal(self) -> bool:
        """A farmer's hand may ask for a new deal (farmers_hand, 002's wording)."""
        return self.farmers_hand and self.farmers_hand_form == "redeal"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; the variant options only when not at their defaults."""
        # Every field is a scalar: a shallow dict is asdict's answer, without its deep
        # copy (which cost more than the rest of a player's view).
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, default in VARIANT_DEFAULTS.items():
            if data[name] == default:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Options":
        if data is None:  # no options at all: the defaults
            return cls()
        if not isinstance(data, dict):  # not even an empty list: only an object is options
            raise RuleError("invalid_option", "options must be an object.")
        if not all(type(key) is str for key in data):
            raise RuleError("invalid_option", "option names are text.")
        unknown = sorted(set(data) - _KNOWN)
        if unknown:
            names = ", ".join(k if len(k) <= 20 else shown(k) for k in unknown[:5])
            raise RuleError("invalid_option", f"unknown option: {names}.")
        return cls(**data)


_KNOWN = frozenset(f.name for f in fields(Options))
