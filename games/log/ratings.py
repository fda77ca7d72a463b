"""Skill ratings: openskill's PlackettLuce model over two teams of two.

Why PlackettLuce: openskill's default and, in its own benchmarks, its most accurate model;
it models teams (a team's strength is the sum of its players' mu, its uncertainty the sum
of their sigma squared), and with two teams and no draws it is the Bradley-Terry model, the
one Euchre's win-or-lose result fits. Everything is plain float arithmetic on the sequence
of finished matches, so the same sequence gives the same ratings to the last bit.

Who is rated (games/log/records.py decides who sat where):
- a registered person seated when the match started (one who left before the end too:
  leaving does not dodge the result), after a finished match; abandoned matches have no
  result and do not count;
- a guest plays as a newcomer (openskill's default rating, mu 25, sigma 25/3) and is never
  rated;
- a computer seat plays at its level's fixed rating (COMPUTER_RATINGS), never updated: a
  match against computers moves the person's rating as a match against people of that
  strength would.
"""

from dataclasses import dataclass

from openskill.models import PlackettLuce

from games.log.levels import EASY, HARD, MEDIUM, RANDOM

MODEL = PlackettLuce()
NEWCOMER_MU, NEWCOMER_SIGMA = MODEL.mu, MODEL.sigma  # 25, 25/3

# Fixed: their sigma is small (we are sure of them). The mu are fitted to the levels'
# measured win rates (docs/bots.md, and `manage.py simulate --games 1000 --levels
# easy,random --seed 5`: Easy wins 98.9 %): Medium is 25, a newcomer's mu; under this model
# a team of two at these ratings wins as often as the simulations say (Hard against Medium
# 59.9 %, Medium against Easy 86.9 %, Easy against Random 98.9 %; tests/games/test_ratings.py).
COMPUTER_SIGMA = 1.0
COMPUTER_RATINGS: dict[str, float] = {
    RANDOM: 14.38,
    EASY: 21.51,
    MEDIUM: 25.0,
    HARD: 25.78,
}


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """What is shown and ranked: mu - 3 sigma (a newcomer's is 0)."""
        return self.mu - 3 * self.sigma


NEWCOMER = Skill(NEWCOMER_MU, NEWCOMER_SIGMA)


def computer(level: str) -> Skill:
    return Skill(COMPUTER_RATINGS[level], COMPUTER_SIGMA)


def rate(teams: tuple[list[Skill], list[Skill]], winner: int) -> tuple[list[Skill], list[Skill]]:
    """Every seat's skill after its team won (winner) or lost; the caller keeps only the
    registered people's."""
    rated = MODEL.rate(
        [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams],
        ranks=[0, 1] if winner == 0 else [1, 0],
    )
    new = tuple([Skill(r.mu, r.sigma) for r in team] for team in rated)
    return new[0], new[1]


def win_chance(team: list[Skill], other: list[Skill]) -> float:
    """The model's chance that `team` beats `other`."""
    ratings = [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in t] for t in (team, other)]
    return MODEL.predict_win(ratings)[0]
