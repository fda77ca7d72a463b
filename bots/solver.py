"""An exact double-dummy solver: the best play for both sides with every card shown.

    tricks = solve(state)                 # the makers' tricks this hand, both sides perfect
    values = action_values(state, seat)   # {action: points of the hand for seat's side}

`state` is an engine `MatchState` whose every card is known (a real state, or one
rebuilt from a view and a sampled deal: games.engine.state_from_view). The search is
alpha-beta over the remaining tricks, one card at a time, with

- a transposition table at trick boundaries (the hands left and who leads, which fix
  the rest of the hand), holding lower and upper bounds of the makers' tricks;
- equivalent cards searched once: two cards of one hand that touch in their suit once
  the cards played are gone (nothing another seat holds, and nothing in the current
  trick, lies between them) give the same value;
- move ordering: the leader tries its strongest cards first; a follower tries the
  cheapest card that takes the trick from the other side first, and low cards when its
  partner is winning;
- null-window searches for points: the hand's score changes only at three tricks and at
  five, so `points` asks "can the makers reach 3?" and "5?" instead of the exact count.

Everything about cards comes from the engine: the legal plays (follow the effective
suit led if you can, games.engine.SUIT_MASK and EFFECTIVE_SUIT), who wins a trick
(STRENGTH, as games.engine.trick_winner_index), every card there is (DECK_WITH_JOKER: the
joker option's 25th card too), and who sits out; nothing here assumes 24 cards. The
tests check the solver against plain minimax over the engine's own legal_actions and
apply_action.

Before the play (bidding, the discard, defending alone) `action_values` searches the
rest of the bidding with every card shown too: each seat picks the bid best for its
side, the dealer the best discard, and each contract is then solved as above.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import random
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from games.engine import (
    BID1,
    BID2,
    BIT,
    DECK_WITH_JOKER,
    DEFEND,
    DISCARD,
    EFFECTIVE_SUIT,
    HAND_SCORED,
    PLAY,
    STRENGTH,
    SUIT_MASK,
    Action,
    MatchState,
    cards_of,
)

logger = logging.getLogger(__name__)

# Beyond this many entries a Python solver's transposition table, and its memo of moves,
# is emptied. A full deal's search needs at most about 1,100 and 3,200 of them, and what
# is kept from other deals saves no time that shows (reviews and Hard's search timed at
# 200,000 and at 4,096: the same), while every thread keeps a solver per trump, making
# side and seats out (24 to 72 of them): at 200,000 a process reviewing matches on the
# Python search was at 280 MB after two matches (41 MB at 4,096). At 4,096 a solver holds
# about 1.4 MB at most.
TABLE_LIMIT = 4_096
_SHIFT = len(DECK_WITH_JOKER)


def _popcount(mask: int) -> int:
    return mask.bit_count()


class PySolver:
    """A double-dummy search for one trump, one making team and one set of seats sitting
    out, in Python (the C search, CSolver, does the same faster; Solver is whichever is
    available). Its transposition table is kept between calls (any deal with the same trump and
    sides), so solving many deals or many actions of one deal shares the work."""

    def __init__(self, trump: int, makers: int, out: Iterable[bool] = (False,) * 4) -> None:
        self.trump = trump
        self.makers = makers  # the making team, 0 or 1
        self.out = tuple(bool(o) for o in out)
        eff = EFFECTIVE_SUIT[trump]
        suits = range(len(SUIT_MASK[trump]))
        self.power = tuple(STRENGTH[trump][eff[c]][c] for c in DECK_WITH_JOKER)
        self.follow = tuple(SUIT_MASK[trump][eff[c]] for c in DECK_WITH_JOKER)
        self.lead_strength = tuple(STRENGTH[trump][eff[c]] for c in DECK_WITH_JOKER)
        # Each effective suit's cards, strongest first.
        self.suit_order = tuple(
            tuple(sorted(cards_of(SUIT_MASK[trump][s]), key=lambda c: -self.power[c]))
            for s in suits
        )
        self.suit_mask = tuple(SUIT_MASK[trump][s] for s in suits)
        playing = [s for s in range(4) if not self.out[s]]
        self.order = tuple(
            tuple(s for s in ((leader + k) % 4 for k in range(4)) if not self.out[s])
            if not self.out[leader]
            else ()
            for leader in range(4)
        )
        self.players = len(playing)
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0
        self.shuffle: random.Random | None = None  # tests: any move order, same value
        self._moves_cache: dict[tuple[int, int], tuple[int, ...]] = {}

    def clear(self) -> None:
        """Empty the transposition table."""
        self.table.clear()

    # ------------------------------------------------------------------ moves

    def _moves(self, legal: int, blockers: int) -> tuple[int, ...]:
        """distinct_moves, remembered: the Python search asks at every node."""
        key = (legal, blockers)
        found = self._moves_cache.get(key)
        if found is not None:
            return found
        found = self.distinct_moves(legal, blockers)
        if len(self._moves_cache) > TABLE_LIMIT:
            self._moves_cache.clear()
        self._moves_cache[key] = found
        return found

    def distinct_moves(self, legal: int, blockers: int) -> tuple[int, ...]:
        """The legal cards worth trying, one of each run of equivalent cards, weakest
        first. `blockers`: the cards that split a run (other hands, the current trick)."""
        keep = []
        for s, mask in enumerate(self.suit_mask):
            if not legal & mask:
                continue
            mine_last = False
            for c in self.suit_order[s]:
                b = BIT[c]
                if legal & b:
                    if not mine_last:
                        keep.append(c)
                    mine_last = True
                elif blockers & b:
                    mine_last = False
        power = self.power
        keep.sort(key=lambda c: power[c])
        return tuple(keep)

    # ------------------------------------------------------------------ search

    def tricks(
        self,
        hands: list[int],
        leader: int,
        trick: list[int] | tuple[int, ...] = (),
        alpha: int = -1,
        beta: int = 99,
    ) -> int:
        """The makers' tricks from the current trick on (it included), with `hands` the
        cards each seat holds and `trick` the cards played to it so far from `leader`.
        With a window (alpha, beta) the answer is exact inside it, and otherwise a bound
        on the right side of it (fail-soft alpha-beta)."""
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        hands = list(hands)
        if not trick:
            return self._node(hands, leader, alpha, beta)
        order = self.order[leader]
        first = trick[0]
        strength = self.lead_strength[first]
        top, winner = -1, leader
        in_trick = 0
        for seat, c in zip(order, trick, strict=False):
            in_trick |= BIT[c]
            if strength[c] > top:
                top, winner = strength[c], seat
        return self._play(
            hands,
            order,
            len(trick),
            in_trick,
            top,
            winner,
            strength,
            self.follow[first],
            alpha,
            beta,
        )

    def _node(self, hands: list[int], leader: int, alpha: int, beta: int) -> int:
        """At a trick boundary: the makers' tricks among those left."""
        left = _popcount(hands[leader])
        if left == 0:
            return 0
        self.nodes += 1
        key = (((hands[0] << _SHIFT | hands[1]) << _SHIFT | hands[2]) << _SHIFT | hands[3]) << 2 | (
            leader
        )
        entry = self.table.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            lo, hi = 0, left
        if left == 1:  # one card each: no choice left
            order = self.order[leader]
            first = hands[leader].bit_length() - 1
            strength = self.lead_strength[first]
            winner, top = leader, strength[first]
            for seat in order[1:]:
                c = hands[seat].bit_length() - 1
                if strength[c] > top:
                    top, winner = strength[c], seat
            value = int(winner & 1 == self.makers)
            self.table[key] = (value, value)
            return value
        value = self._play(hands, self.order[leader], 0, 0, -1, leader, None, 0, alpha, beta)
        if value <= alpha:
            hi = min(hi, value)
        elif value >= beta:
            lo = max(lo, value)
        else:
            lo = hi = value
        self.table[key] = (lo, hi)
        return value

    def _play(
        self,
        hands: list[int],
        order: tuple[int, ...],
        pos: int,
        in_trick: int,
        top: int,
        winner: int,
        strength: tuple[int, ...] | None,
        follow: int,
        alpha: int,
        beta: int,
    ) -> int:
        seat = order[pos]
        hand = hands[seat]
        legal = hand & follow or hand
        live = 0
        for h in hands:
            live |= h
        moves = self._moves(legal, (live & ~hand) | in_trick)
        makers = self.makers
        maximizing = seat & 1 == makers
        last = pos == len(order) - 1
        if pos == 0:
            moves = moves[::-1]  # lead the strongest first
        elif len(moves) > 1:
            # Take the trick from the other side with the cheapest card that does; when
            # the own side is winning, throw low first.
            if (winner & 1) == (seat & 1):
                pass  # weakest first, as they are
            else:
                winners = [c for c in moves if strength[c] > top]
                if winners:
                    moves = tuple(winners) + tuple(c for c in moves if strength[c] <= top)
        if self.shuffle is not None:
            moves = list(moves)
            self.shuffle.shuffle(moves)
        best = -1 if maximizing else 99
        for c in moves:
            hands[seat] = hand ^ BIT[c]
            if pos == 0:
                st = self.lead_strength[c]
                t, w, fol = st[c], seat, self.follow[c]
            else:
                st, fol = strength, follow
                t = strength[c]
                if t > top:
                    w = seat
                else:
                    t, w = top, winner
            if last:
                won = int(w & 1 == makers)
                value = won + self._node(hands, w, alpha - won, beta - won)
            else:
                value = self._play(
                    hands, order, pos + 1, in_trick | BIT[c], t, w, st, fol, alpha, beta
                )
            hands[seat] = hand
            if maximizing:
                if value > best:
                    best = value
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
            elif value < best:
                best = value
                if best < beta:
                    beta = best
                    if alpha >= beta:
                        break
        return best


# ---------------------------------------------------------------------- the C search

_C_SOURCE = Path(__file__).with_name("_dds.c")
_C_LIB: ctypes.CDLL | None = None
_C_TRIED = False


def _library_dirs() -> list[Path]:
    """Where the compiled search may be: beside the source (an install that built it),
    then a per-user cache."""
    dirs = [_C_SOURCE.parent]
    if os.environ.get("EUCHRE_BOTS_CACHE"):
        dirs.append(Path(os.environ["EUCHRE_BOTS_CACHE"]))
    dirs.append(Path.home() / ".cache" / "euchre-bots")
    dirs.append(Path(tempfile.gettempdir()) / f"euchre-bots-{os.getuid()}")
    return dirs


def build_c(quiet: bool = True) -> Path | None:
    """Compile bots/_dds.c with the system's C compiler into the first writable place
    (the file is named by a hash of the source, so an edit is rebuilt); None if there
    is no compiler or no place. Written to a temporary name and renamed, so processes
    that build at once do not see half a file."""
    source = _C_SOURCE.read_bytes()
    name = f"_dds-{hashlib.sha1(source).hexdigest()[:12]}.so"
    for folder in _library_dirs():
        if (folder / name).exists():
            return folder / name
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    for folder in _library_dirs():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(suffix=".so", dir=folder)
            os.close(fd)
        except OSError:
            continue
        done = subprocess.run(
            [compiler, "-O2", "-shared", "-fPIC", "-o", tmp, str(_C_SOURCE)],
            capture_output=quiet,
            check=False,
        )
        if done.returncode == 0:
            os.replace(tmp, folder / name)
            return folder / name
        os.unlink(tmp)
        return None
    return None


def _c_library() -> ctypes.CDLL | None:
    """The compiled search, built on first use; None where it cannot be (no compiler),
    or when EUCHRE_SOLVER=python asks for the Python one."""
    global _C_LIB, _C_TRIED
    if _C_TRIED:
        return _C_LIB
    _C_TRIED = True
    if os.environ.get("EUCHRE_SOLVER") == "python":
        return None
    try:
        path = build_c()
        if path is None:
            raise OSError("no C compiler")
        lib = ctypes.CDLL(str(path))
    except OSError as error:
        logger.warning("double-dummy solver: the C search is unavailable (%s): using Python", error)
        return None
    p, i = ctypes.c_void_p, ctypes.c_int
    lib.dds_new.restype = p
    lib.dds_new.argtypes = [i, i, i, i, p, p, p, p, p, p, p, i]
    lib.dds_free.argtypes = [p]
    lib.dds_nodes.argtypes = [p]
    lib.dds_nodes.restype = ctypes.c_long
    lib.dds_clear.argtypes = [p]
    lib.dds_tricks.argtypes = [p, p, i, p, i, i, i]
    lib.dds_tricks.restype = i
    _C_LIB = lib
    return lib


class CSolver:
    """PySolver's search in C (bots/_dds.c), from the same tables."""

    def __init__(self, trump: int, makers: int, out: Iterable[bool] = (False,) * 4) -> None:
        lib = _c_library()
        if lib is None:
            raise RuntimeError("the C search is unavailable")
        self._lib = lib
        py = PySolver(trump, makers, out)  # the tables, made once in Python
        self.trump, self.makers, self.out = py.trump, py.makers, py.out
        self.suit_mask, self.suit_order = py.suit_mask, py.suit_order
        # Asked once per action_values (the C search finds its own moves), so not
        # remembered: a memo keyed by the cards of every deal solved kept about 250 KB
        # for each match a review worker reviewed, for as long as the process lived.
        self._moves = py.distinct_moves
        n = len(DECK_WITH_JOKER)
        u64, i32, u8 = ctypes.c_uint64, ctypes.c_int, ctypes.c_uint8
        follow = (u64 * n)(*py.follow)
        cards = DECK_WITH_JOKER
        strength = (u8 * (n * n))(*[py.lead_strength[lead][c] for lead in cards for c in cards])
        power = (i32 * n)(*py.power)
        suits = len(py.suit_mask)
        suit_mask = (u64 * suits)(*py.suit_mask)
        suit_len = (i32 * suits)(*[len(o) for o in py.suit_order])
        suit_order = (i32 * (suits * n))()
        for s, o in enumerate(py.suit_order):
            for k, c in enumerate(o):
                suit_order[s * n + k] = c
        order = (i32 * 16)(*[(list(o) + [0] * 4)[k] for o in py.order for k in range(4)])
        self._ctx = lib.dds_new(
            n,
            suits,
            py.makers,
            py.players,
            follow,
            strength,
            power,
            suit_mask,
            suit_len,
            suit_order,
            order,
            15,  # 32,768 entries (768 kB)
        )
        if not self._ctx:
            raise RuntimeError("the C search cannot take this deck")
        self._hands = (u64 * 4)()
        self._trick = (i32 * 4)()

    def __del__(self) -> None:
        ctx = getattr(self, "_ctx", None)
        if ctx:
            self._lib.dds_free(ctx)
            self._ctx = None

    @property
    def nodes(self) -> int:
        return self._lib.dds_nodes(self._ctx)

    def clear(self) -> None:
        """Empty the transposition table."""
        self._lib.dds_clear(self._ctx)

    def tricks(
        self,
        hands: list[int],
        leader: int,
        trick: list[int] | tuple[int, ...] = (),
        alpha: int = -1,
        beta: int = 99,
    ) -> int:
        h = self._hands
        h[0], h[1], h[2], h[3] = hands
        t = self._trick
        for k, c in enumerate(trick):
            t[k] = c
        return self._lib.dds_tricks(self._ctx, h, leader, t, len(trick), alpha, beta)


def Solver(trump: int, makers: int, out: Iterable[bool] = (False,) * 4) -> CSolver | PySolver:
    """The fastest search available for this trump, making team and seats out."""
    if _c_library() is not None:
        try:
            return CSolver(trump, makers, out)
        except RuntimeError:
            pass
    return PySolver(trump, makers, out)


# ---------------------------------------------------------------------- on engine states

# One set of solvers per thread: a CSolver's table and buffers are not shared between
# threads (ctypes lets go of the GIL during the search).
_LOCAL = threading.local()


def solver_for(state: MatchState) -> CSolver | PySolver:
    """The thread's shared solver for the state's trump, makers and seats out (its
    transposition table is kept between calls)."""
    solvers = getattr(_LOCAL, "solvers", None)
    if solvers is None:
        solvers = _LOCAL.solvers = {}
    key = (state.trump, state.maker % 2, tuple(state.out))
    solver = solvers.get(key)
    if solver is None:
        solver = solvers[key] = Solver(state.trump, state.maker % 2, state.out)
    return solver


def _won_so_far(state: MatchState) -> int:
    m = state.maker % 2
    return state.tricks_won[m] + state.tricks_won[m + 2]


def hand_points(state: MatchState, makers_tricks: int) -> int:
    """The hand's points for the makers' team if they take `makers_tricks` in all:
    +1 for three or four, +2 for five (+4 alone), -2 when euchred (-4 by a lone
    defender), the negative being the defenders' points (docs/rules.md)."""
    if makers_tricks == 5:
        return 4 if state.alone else 2
    if makers_tricks >= 3:
        return 1
    return -4 if state.defender_alone is not None else -2


def solve(state: MatchState, solver: CSolver | PySolver | None = None) -> int:
    """The makers' tricks this hand (those won so far included) when both sides play
    perfectly from here, every card shown. `state` is in the play."""
    if state.phase != PLAY:
        raise ValueError("solve takes a state in the play (trump made, cards to play)")
    solver = solver or solver_for(state)
    return _won_so_far(state) + solver.tricks(state.hands, state.leader, state.trick_cards)


def solve_points(state: MatchState, solver: CSolver | PySolver | None = None) -> int:
    """The hand's points for the makers (negative: for the defenders), both sides
    perfect. Faster than hand_points(solve(...)): it asks only whether the makers can
    reach three tricks, and then five."""
    if state.phase != PLAY:
        # The hand is over (the last card was played): read its score.
        last = state.last_hand or {}
        if last.get("type") != HAND_SCORED:
            return 0
        return last["points"] if last["team"] == last["makers"] else -last["points"]
    solver = solver or solver_for(state)
    won = _won_so_far(state)
    hands, leader, trick = state.hands, state.leader, state.trick_cards
    if won >= 3:
        need = 5 - won
        full = solver.tricks(hands, leader, trick, need - 1, need) >= need
        return hand_points(state, 5 if full else 3)
    need = 3 - won
    if solver.tricks(hands, leader, trick, need - 1, need) < need:
        return hand_points(state, 0)
    need = 5 - won
    full = solver.tricks(hands, leader, trick, need - 1, need) >= need
    return hand_points(state, 5 if full else 3)


def _hand_over_points(state: MatchState, team: int) -> int:
    last = state.last_hand or {}
    if last.get("type") != HAND_SCORED:
        return 0  # thrown in: no one scores
    return last["points"] if last["team"] == team else -last["points"]


def state_value(state: MatchState, team: int) -> int:
    """The hand's double-dummy points for `team` (negative: the other team's points),
    from any state of the hand: in the bidding every seat bids, discards and defends as
    is best for its side with every card shown, then both sides play perfectly."""
    phase = state.phase
    if phase == PLAY:
        points = solve_points(state)
        return points if state.maker % 2 == team else -points
    if phase not in (BID1, BID2, DISCARD, DEFEND):
        return _hand_over_points(state, team)
    seat = state.turn
    ours = seat % 2 == team
    best = None
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(seat, action)
        value = state_value(child, team)
        if best is None or (value > best if ours else value < best):
            best = value
    return best


def action_values(state: MatchState, seat: int) -> dict[Action, int]:
    """Each legal action of the seat to move, with the hand's points it leads to for
    `seat`'s side when both sides then play perfectly with every card shown (negative:
    points for the other side). Makers score 1, 2 for a march, 4 alone; defenders 2 for
    a euchre, 4 defending alone."""
    team = seat % 2
    values: dict[Action, int] = {}
    mover = state.turn
    if state.phase == PLAY:
        # Equivalent cards get the same value without a search of their own.
        solver = solver_for(state)
        hand = state.hands[mover]
        live = 0
        for h in state.hands:
            live |= h
        in_trick = 0
        for c in state.trick_cards:
            in_trick |= BIT[c]
        legal = state.legal_actions()
        legal_mask = 0
        for a in legal:
            legal_mask |= BIT[a.card]
        searched = set(solver._moves(legal_mask, (live & ~hand) | in_trick))
        by_card: dict[int, int] = {}
        for action in legal:
            if action.card in searched:
                child = state.clone()
                child.apply_action(mover, action)
                points = solve_points(child)
                by_card[action.card] = points if state.maker % 2 == team else -points
        for action in legal:
            c = action.card
            if c not in by_card:
                by_card[c] = by_card[_equivalent_above(solver, c, searched, legal_mask)]
            values[action] = by_card[c]
        return values
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(mover, action)
        values[action] = state_value(child, team)
    return values


def _equivalent_above(
    solver: CSolver | PySolver, c: int, searched: set[int], legal_mask: int
) -> int:
    """The searched card of c's run (the next higher card of the hand in its run)."""
    suit = next(s for s, mask in enumerate(solver.suit_mask) if mask & BIT[c])
    order = solver.suit_order[suit]
    i = order.index(c)
    for above in reversed(order[:i]):
        if above in searched:
            return above
    raise AssertionError("no searched card above an equivalent one")
