"""Match options: every way the rule documents differ. Defaults follow Poozee (000)."""

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import RuleError, shown

LONE_LEAD_CHOICES = ("dealer_left", "loner_left", "canadian")
TARGET_SCORE_MIN, TARGET_SCORE_MAX = 1, 15


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
    """

    target_score: int = 10
    stick_the_dealer: bool = True
    going_alone: bool = True
    lone_lead: str = "dealer_left"
    defending_alone: bool = False

    def __post_init__(self) -> None:
        score = self.target_score
        if type(score) is not int or not TARGET_SCORE_MIN <= score <= TARGET_SCORE_MAX:
            raise RuleError(
                "invalid_option",
                f"target_score must be a whole number from {TARGET_SCORE_MIN} to "
                f"{TARGET_SCORE_MAX}.",
            )
        for name in ("stick_the_dealer", "going_alone", "defending_alone"):
            if type(getattr(self, name)) is not bool:
                raise RuleError("invalid_option", f"{name} must be true or false.")
        if self.lone_lead not in LONE_LEAD_CHOICES:
            raise RuleError(
                "invalid_option", f"lone_lead must be one of {', '.join(LONE_LEAD_CHOICES)}."
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

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
