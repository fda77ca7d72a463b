"""How much a reading of the others' plays tells the real deal from a sampled one.

    .venv/bin/python benchmarks/play_reading.py                  # Hard's own matches
    .venv/bin/python benchmarks/play_reading.py --level reference_plus --matches 8

Issue 34 asks Hard to read the play "by the players' own policies". Hard and the
reference opponents search: each samples deals and plays a card that is best when its
deals are solved exactly. So a candidate reading of their cards is "a best card
double-dummy with the cards this deal gives them". A reading is worth something only
if the real deal explains the plays better than a deal sampled from what the seat knows
(bots/knowledge.py, the same sampler Hard uses).

Plays seeded matches of four players of `--level`; at every position in the play where
another seat has played this hand, counts the others' plays that each reading does not
explain, for the real hidden cards and for one sampled deal:

- `medium`: the Medium rules' card (bots/inference.py `unexplained_plays`, what
  `Budget.play_belief` reads by);
- `fitted model`: the likeliest card of the model fitted to Hard's and reference_plus's
  own plays (bots/play_model.py, what `Budget.play_model` reads by, there graded);
- `solver, outcome`: a card that, double-dummy, ends the hand no worse for its side
  (euchred, made, marched) than any other legal card;
- `solver, tricks`: the same, counted in the makers' tricks.

The ratio (real / sampled) is the baseline's question for every reading: 1.0 tells the
deals apart not at all. From the two rates of a miss a play (real p1, sampled p0) it
prints the odds per miss that weigh a deal as Bayes would, (p1 / p0) / ((1 - p1) /
(1 - p0)): what `Budget.play_belief` is for the Medium reading. No time is measured.
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.inference import others_plays, unexplained_plays  # noqa: E402
from bots.knowledge import sample_hidden  # noqa: E402
from bots.play_model import card_features, fitted_weights, scores  # noqa: E402
from bots.simulation import SIMULATION_PLAYERS as PLAYERS  # noqa: E402
from bots.solver import Solver  # noqa: E402
from games import engine as E  # noqa: E402
from games.engine import BIT, EFFECTIVE_SUIT, STRENGTH, Seen, cards_of, read_view  # noqa: E402


def unsolved_plays(seen: Seen, hands: list[int], by_tricks: bool) -> int:
    """The others' plays this hand that were not a best card double-dummy with the cards
    `hands` gives them (best in the hand's outcome for their side, or in tricks)."""
    trump = seen.trump
    makers = seen.maker % 2
    solver = Solver(trump, makers, seen.out)
    held = [hands[s] | seen.played_by[s] for s in range(4)]
    won = misses = 0
    tricks = list(seen.tricks)
    if seen.trick_cards:
        tricks.append((seen.trick_seats, seen.trick_cards, None))
    for seats, cards, winner in tricks:
        for i, (s, c) in enumerate(zip(seats, cards, strict=True)):
            if s != seen.seat:
                values = _card_values(seen, solver, held, s, seats, cards[:i], won, by_tricks)
                misses += values[c] != max(values.values())
            held[s] &= ~BIT[c]
        if winner is not None:
            won += winner % 2 == makers
    return misses


def unlikely_plays(seen: Seen, hands: list[int]) -> int:
    """The others' plays this hand that were not the fitted model's likeliest card from the
    hand `hands` gives them."""
    weights = fitted_weights()
    misses = 0
    for s, hand, seats, cards, gone, voids, c in others_plays(seen, hands):
        legal, features = card_features(seen, s, hand, seats, cards, gone, voids)
        values = scores(weights, features)
        misses += values[legal.index(c)] < max(values)
    return misses


def _card_values(seen, solver, held, s, seats, trick, won, by_tricks) -> dict[int, int]:
    """Each legal card of seat s, valued double-dummy for its side."""
    eff = EFFECTIVE_SUIT[seen.trump]
    hand = held[s]
    legal = [c for c in cards_of(hand) if trick and eff[c] == eff[trick[0]]] or cards_of(hand)
    sign = 1 if s % 2 == seen.maker % 2 else -1
    values = {}
    for c in legal:
        after = list(held)
        after[s] = hand & ~BIT[c]
        played = [*trick, c]
        if len(played) < seen.trick_size:
            tricks = solver.tricks(after, seats[0], played)
        else:  # the card ends the trick: its winner leads the rest
            strength = STRENGTH[seen.trump][eff[played[0]]]
            winner = seats[max(range(len(played)), key=lambda k: strength[played[k]])]
            left = any(after[x] for x in range(4) if not seen.out[x])
            tricks = (winner % 2 == seen.maker % 2) + (solver.tricks(after, winner) if left else 0)
        total = won + tricks
        outcome = total if by_tricks else (0 if total < 3 else 1 if total < 5 else 2)
        values[c] = sign * outcome
    return values


READINGS = {
    "medium": unexplained_plays,
    "fitted model": unlikely_plays,
    "solver, outcome": lambda seen, hands: unsolved_plays(seen, hands, False),
    "solver, tricks": lambda seen, hands: unsolved_plays(seen, hands, True),
}


def positions(level: str, matches: int, seed: int):
    """Each position in the play of `matches` seeded matches where another seat has
    played this hand: (the mover's read view, the real hands)."""
    for m in range(matches):
        rng = random.Random(f"{seed}:{m}")
        state = E.MatchState(E.Options(), first_dealer=rng.randrange(4))
        while state.phase != E.FINISHED:
            if state.phase == E.DEAL:
                state.deal(E.seeded_deck(rng))
                continue
            seat = state.turn
            view = E.player_view(state, seat)
            if state.phase == E.PLAY:
                seen = read_view(view)
                if seen.played & ~seen.played_by[seat]:
                    yield seen, [state.hands[s] for s in range(4)]
            state.apply_action(seat, E.action_from_dict(PLAYERS[level](view, rng)))


def count_misses(level: str, matches: int, seed: int) -> tuple[dict, dict, int, int]:
    """The misses of each reading on the real deals and on sampled ones, the positions
    read and the plays read."""
    real = dict.fromkeys(READINGS, 0)
    sampled = dict.fromkeys(READINGS, 0)
    count = plays = 0
    for seen, hands in positions(level, matches, seed):
        guess, _ = sample_hidden(seen, random.Random(f"sample:{seed}:{count}"))
        for name, reading in READINGS.items():
            real[name] += reading(seen, hands)
            sampled[name] += reading(seen, guess)
        plays += sum(s != seen.seat for t in seen.tricks for s in t[0])
        plays += sum(s != seen.seat for s in seen.trick_seats)
        count += 1
    return real, sampled, count, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="hard", choices=sorted(PLAYERS))
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    real, sampled, count, plays = count_misses(args.level, args.matches, args.seed)
    print(f"{args.matches} matches of {args.level}: {count} positions, {plays} plays read")
    print(f"{'reading':18} {'the real deal':>14} {'a sampled deal':>15} {'ratio':>7} {'odds':>6}")
    for name in READINGS:
        ratio = real[name] / sampled[name] if sampled[name] else float("nan")
        p1, p0 = real[name] / max(1, plays), sampled[name] / max(1, plays)
        odds = ratio / ((1 - p1) / (1 - p0)) if sampled[name] else float("nan")
        print(f"{name:18} {real[name]:14} {sampled[name]:15} {ratio:7.2f} {odds:6.2f}")


if __name__ == "__main__":
    main()
