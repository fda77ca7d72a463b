"""The levels of computer player a seat may have, as games owns its seat kinds.

Games stores a seat's level, offers the choice in the API and names the level that
takes over a seat; bots.players plays each one (a test checks bots register exactly
these). Pure Python: bots.players and the engine-only simulation read it without Django.
"""

RANDOM, EASY, MEDIUM, HARD = "random", "easy", "medium", "hard"
# In the order the API offers them.
LEVELS = (RANDOM, EASY, MEDIUM, HARD)
# A computer seat created without a level, a seat left, a turn timed out: Medium plays it.
DEFAULT_LEVEL = MEDIUM
