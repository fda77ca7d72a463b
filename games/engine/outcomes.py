"""The names of the events the rules derive (apply_action's outcomes).

The engine imports nothing outside itself, so it names the four events it
derives here; games/log/events.py gives each its payload record and the rule for
who may see it, and is where the rest of the service takes these names from.
"""

TRICK_WON = "trick_won"
HAND_SCORED = "hand_scored"
HAND_THROWN_IN = "hand_thrown_in"
MATCH_FINISHED = "match_finished"
