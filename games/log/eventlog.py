"""The only code that writes events, and the one fold that turns them into state.

The event types, their payloads and who may see what: games/log/events.py.

The Replayer is also the one checker of a whole log (`strict=True`, used by
games.log.log_check for verify_log, the admin's log check and replays): on top of
replaying every event through the rules engine (which re-derives each trick, score
and end of match and compares them with the log), it checks every dealt deck
against the commitment published with it, that the hand number, dealer and upcard
written beside a deal are what the rules make of the deck, and that each deck is
revealed, as dealt, right after its hand ends. Loading a match's state for an
action (the hot path) replays without those.
"""

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from psycopg.types.json import Jsonb

from games import engine as E
from games.log import events as V
from games.log import fairness, server
from games.log.archive import decode, read_log
from games.log.events import NewEvent
from games.models import Event, EventArchive, Match


class LogError(Exception):
    """A log that does not replay or fails a check: the index of the first bad event in
    the list (len(events) when something is missing at the end), its seq and type when
    known, a stable code and a sentence."""

    def __init__(
        self, index: int, code: str, message: str, seq: Any = None, type_: Any = None
    ) -> None:
        self.index, self.seq, self.type = index, seq, type_
        self.code, self.message = code, message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"event {self.index}"
        if self.seq is not None or self.type is not None:
            where += f" (seq {self.seq}, {self.type})"
        return f"{where}: {self.code}: {self.message}"


class Moved(Exception):
    """append(at_seq=...) wrote nothing: the match is no longer at that seq."""


def append(
    match: Match,
    new_events: list[NewEvent],
    *,
    along: Callable[[list[Event], str | None], list[tuple[str, list[Any]]]] | None = None,
    at_seq: int | None = None,
    at_updated_at: Any = None,
) -> list[Event]:
    """Append events after the match's newest one (`match.seq` moves on to the last).
    The caller holds the match row lock; the unique (match, seq) constraint refuses a
    second writer all the same.

    `along(rows, gate)` (PostgreSQL only): called with the rows once `match.seq` has moved
    on, before anything is written; the statements it returns (SQL, parameters: the
    match's UPDATE first, then any others, such as its hands' rows) go with the INSERT, as
    one statement (data-modifying WITHs): one round trip for all.

    `at_seq` (with `along`): without the row lock, write only if the match is still at that
    seq, else write nothing and raise Moved. The match's UPDATE (which waits for any lock on
    the row and then re-reads its newest version) goes first, named `gate`, and the INSERT
    takes its rows from it; the other statements must write only FROM `gate` too, so that
    all happen or none. `at_updated_at`: and only if the row's updated_at is still that (the
    row as the caller's copy was written: another row at the same seq, as after a failover
    that lost events, writes nothing)."""
    now = timezone.now()
    rows = []
    for i, e in enumerate(new_events, start=1):
        # Every field in order (id, match, seq, type, seat, payload, created_at):
        # Model.__init__'s quick path, a quarter of the CPU of keyword arguments.
        row = Event(None, match.pk, match.seq + i, e.type, e.seat, e.payload or {}, now)
        Event.match.field.set_cached_value(row, match)
        rows.append(row)
    if connection.vendor != "postgresql":  # the embedded default (SQLite)
        if along is not None:
            raise ValueError("append(along=...) is for PostgreSQL only")
        Event.objects.bulk_create(rows)
        match.seq += len(rows)
        return rows
    # One INSERT of plain SQL (bulk_create's query building cost more CPU than the rest of
    # an action); the rows come back without their ids, which nothing on this path reads.
    values = ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))
    sql, params = _INSERT_EVENTS + values, []
    for row in rows:
        params += [match.pk, row.seq, row.type, row.seat, Jsonb(row.payload), now]
    match.seq += len(rows)
    try:
        if along is not None and at_seq is not None:
            (update_sql, update_params), *others = along(rows, _GATE)
            withs, with_params = _withs(others)
            stamp = f" AND {_UPDATED_AT} = %s" if at_updated_at is not None else ""
            sql = (
                f"WITH {_GATE} AS ({update_sql} AND {_SEQ} = %s{stamp} RETURNING 1){withs}"
                f" {_INSERT_EVENTS_HEAD}"
                f" SELECT v.* FROM {_GATE}, (VALUES {_typed_values(len(rows))}) AS v"
            )
            gate = [at_seq] if at_updated_at is None else [at_seq, at_updated_at]
            params = update_params + gate + with_params + params
        elif along is not None:
            (update_sql, update_params), *others = along(rows, None)
            withs, with_params = _withs(others)
            sql = f"WITH appended AS ({sql}){withs} {update_sql}"
            params = params + with_params + update_params
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if at_seq is not None and cursor.rowcount != len(rows):
                raise Moved()
    except BaseException:
        match.seq -= len(rows)  # nothing was appended
        raise
    return rows


_INSERT_EVENTS_HEAD = (
    f"INSERT INTO {Event._meta.db_table} (match_id, seq, type, seat, payload, created_at)"
)
_INSERT_EVENTS = f"{_INSERT_EVENTS_HEAD} VALUES "
_SEQ = Match._meta.get_field("seq").column
_UPDATED_AT = Match._meta.get_field("updated_at").column


_GATE = "moved"  # append(at_seq=...): the match's UPDATE, one row if the match was at at_seq


def _withs(statements: list[tuple[str, list[Any]]]) -> tuple[str, list[Any]]:
    """More data-modifying WITH queries (", w1 AS (...), ..."), and their parameters."""
    sql, params = "", []
    for i, (statement, statement_params) in enumerate(statements, start=1):
        sql += f", w{i} AS ({statement})"
        params += statement_params
    return sql, params


def _typed_values(count: int) -> str:
    # Rows of a VALUES list in a FROM clause take no types from the table: name them.
    row = "(%s::uuid, %s::integer, %s::text, %s::integer, %s::jsonb, %s::timestamptz)"
    return ", ".join([row] * count)


# ---------------------------------------------------------------- the one reader


def events_of(match: Match | Any, after: int = 0, upto: int | None = None) -> list[Event]:
    """A match's events (a Match or its id) with `after` < seq <= `upto`, in seq order:
    its rows, or, for the hands over of a match being played, its chunks, or, once its log
    is archived, its archive (games.log.archive: the same Event objects, the same ids, race-free
    against the compaction and the archiver). Every reader of a match's log reads it here."""
    return read_log(getattr(match, "pk", match), after, upto)


def finish_order() -> list[Any]:
    """The ids of the finished matches in the order their match_finished events were
    logged (created_at, then match id), archived logs included: the one scan of the log
    across matches (games.log.records.rebuild_all). The rows first, then the archives (a
    match archived in between is in both, and counted once)."""
    finished = dict(
        Event.objects.filter(type=V.MATCH_FINISHED).values_list("match_id", "created_at")
    )
    for archive in EventArchive.objects.iterator(chunk_size=100):
        for event in decode(archive):
            if event.type == V.MATCH_FINISHED:
                finished[event.match_id] = event.created_at
    return sorted(finished, key=lambda match_id: (finished[match_id], str(match_id)))


# ---------------------------------------------------------------- the fold


class Replayer:
    """Feeds events, in order, through the rules engine, checking every derived event;
    with `strict`, also the fairness of every deal (see the module's docstring)."""

    def __init__(self, strict: bool = False) -> None:
        self.state: E.MatchState | None = None
        self.deal: dict[str, Any] | None = None  # the newest deal (newest_deal)
        self.pending: list[dict[str, Any]] = []
        self.index = 0
        self.abandoned = False
        self.strict = strict
        self.hands = 0  # hands dealt (counted in strict mode)
        self.dealt: dict[Any, dict[str, Any]] = {}  # strict: each hand's deal
        self.unrevealed: Any = None  # strict: a hand that ended and was not yet revealed
        self.naming_brings_cards = False  # strict: the deal showed the dealer no cards
        self._where: tuple[Any, Any] = (None, None)

    def feed(self, type_: str, seat: int | None, payload: dict[str, Any], seq: Any = None) -> None:
        """Replay one event; with `seq`, a LogError names its seq and type too."""
        self._where = (seq, type_) if seq is not None else (None, None)
        try:
            if self.strict:
                self._check_before(type_, payload)
            self._feed(type_, seat, payload)
            if self.strict:
                self._check_after(type_, payload)
        except LogError:
            raise
        except E.RuleError as exc:
            raise self._error(exc.code, exc.message) from exc
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise self._error("malformed_event", f"{type_}: {exc!r}") from exc
        self.index += 1

    def _error(self, code: str, message: str) -> LogError:
        return LogError(self.index, code, message, *self._where)

    def _feed(self, type_: str, seat: int | None, payload: dict[str, Any]) -> None:
        if type_ == V.MATCH_CREATED:
            if self.state is not None:
                raise self._error("duplicate_match_created", "the match is created twice")
            self.state = E.MatchState(
                E.Options.from_dict(payload["options"]), payload["first_dealer"]
            )
            return
        if self.state is None:
            raise self._error("no_match_created", "the log must start with match_created")
        if self.abandoned:
            raise self._error("event_after_abandoned", f"{type_} after match_abandoned")
        if type_ == V.MATCH_ABANDONED:
            self.abandoned = True
            return
        if type_ in V.NO_ENGINE_EFFECT:
            return
        if type_ in V.OUTCOME_EVENT_TYPES:
            expected = self.pending.pop(0) if self.pending else None
            if expected != {"type": type_, **payload}:
                raise self._error(
                    "derived_event_mismatch",
                    f"the log says {type_} {payload}, the rules say {expected}",
                )
            return
        if self.pending:
            raise self._error("missing_derived_event", f"expected {self.pending[0]}")
        if type_ == V.HAND_DEALT:
            self.state.deal([E.parse_card(c) for c in payload["deck"]])
            self.deal = newest_deal(payload)
            return
        if type_ in V.ACTION_EVENTS:
            action = E.action_from_dict(payload["action"])
            if V.ACTION_EVENT_TYPES[action.type] != type_:
                raise self._error("wrong_event_type", f"{action.type} logged as {type_}")
            self.pending = list(self.state.apply_action(seat, action))
            return
        raise self._error("unknown_event_type", f"unknown event type {type_!r}")

    # -------------------------------------------------------- the strict checks

    def _check_before(self, type_: str, payload: dict[str, Any]) -> None:
        if type_ == V.HAND_DEALT:
            self._check_deal(payload)
        elif type_ == V.HAND_REVEALED:
            self._check_reveal(payload)

    def _check_after(self, type_: str, payload: dict[str, Any]) -> None:
        if type_ == V.HAND_DEALT:
            self._check_deal_agrees(payload)
        elif type_ == V.BID:
            self._check_bid_cards(payload)
        elif type_ in V.HAND_OVER:
            self.unrevealed = payload["hand"]

    def _check_deal(self, payload: dict[str, Any]) -> None:
        if self.unrevealed is not None:
            raise self._error(
                "missing_reveal",
                f"hand {self.unrevealed} ended but its deck was not revealed before the next deal",
            )
        deck, salt, commitment = payload["deck"], payload["salt"], payload["commitment"]
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise TypeError("the deck is a list of cards")
        if not fairness.verify(deck, str(salt), str(commitment)):
            raise self._error(
                "commitment_mismatch",
                f"hand {payload['hand']}: the deck and salt do not hash to the commitment "
                f"{commitment}",
            )
        self.dealt[payload["hand"]] = payload
        self.hands += 1

    def _check_deal_agrees(self, payload: dict[str, Any]) -> None:
        """The replay deals from the deck alone: the hand number, dealer and upcard
        written beside it must be what the rules make of it."""
        state = self.state
        derived = {
            "hand": state.hand_number,
            "dealer": state.dealer,
            "upcard": E.card_str(state.upcard),
        }
        for key, value in derived.items():
            if payload.get(key) != value:
                raise self._error(
                    "deal_mismatch",
                    f"the log says {key} {payload.get(key)!r}, the rules say {value!r}",
                )
        # dealer_names_suit, when written, must be what the rules say (a joker upcard the
        # dealer names). A log from before it was written shows the dealer its cards at
        # the deal: it lacks the mark and still verifies.
        names = state.phase == E.NAME_SUIT
        marked = payload.get("dealer_names_suit")
        if marked is not None and (marked is not True or not names):
            raise self._error(
                "deal_mismatch",
                f"the log says dealer_names_suit {marked!r}, the rules say {names!r}",
            )
        self.naming_brings_cards = marked is True

    def _check_bid_cards(self, payload: dict[str, Any]) -> None:
        """Only the naming of a joker upcard's suit after a deal marked dealer_names_suit
        carries cards: the dealer's hand as dealt."""
        expected = None
        if self.naming_brings_cards and payload["action"]["type"] == E.NAME_SUIT:
            expected = [E.card_str(c) for c in self.state.hand_of(self.state.dealer)]
        if payload.get("cards") != expected:
            raise self._error(
                "bid_cards_mismatch",
                f"the log says the bid brings cards {payload.get('cards')!r}, the rules say "
                f"{expected!r}",
            )

    def _check_reveal(self, payload: dict[str, Any]) -> None:
        dealt = self.dealt.get(payload["hand"])
        if dealt is None:
            raise self._error("reveal_without_deal", f"hand {payload['hand']} was never dealt")
        if not fairness.verify(payload["deck"], payload["salt"], payload["commitment"]):
            raise self._error(
                "commitment_mismatch",
                f"hand {payload['hand']}: the revealed deck and salt do not hash to the commitment",
            )
        for key in ("deck", "salt", "commitment"):
            if payload[key] != dealt[key]:
                raise self._error(
                    "reveal_mismatch",
                    f"hand {payload['hand']}: the revealed {key} is not the one dealt",
                )
        if payload["hand"] != self.unrevealed:
            raise self._error(
                "reveal_out_of_place",
                f"hand {payload['hand']} is revealed, but the hand that just ended is "
                f"{self.unrevealed}: a deck is revealed once, right after its hand ends",
            )
        self.unrevealed = None

    def finish(self) -> E.MatchState:
        """The end of the log: nothing may be missing (an event the rules derive; in
        strict mode, the reveal of a hand that ended). The final state."""
        at = self.index
        if self.state is None:
            raise LogError(at, "no_match_created", "the log is empty")
        if self.pending:
            raise LogError(at, "missing_derived_event", f"expected {self.pending[0]}")
        if self.strict and self.unrevealed is not None:
            raise LogError(
                at,
                "missing_reveal",
                f"hand {self.unrevealed} ended but its deck was never revealed",
            )
        return self.state


def fold(events: Iterable[Event]) -> E.MatchState:
    replayer = Replayer()
    for event in events:
        replayer.feed(event.type, event.seat, event.payload)
    return replayer.state


# A per-process cache of committed states, so an action folds only the events
# since the last one this process saw. Entries are put in on commit only, and
# events are never changed, so a cached (seq, state) pair stays true on the server
# it was committed on: each entry carries that server's generation (games.log.server),
# and all are dropped when the process's connections reach another server (a failover
# may have lost the entry's events, and other events take their seqs). A failover the
# process cannot see (a floating IP) is caught by the entry's stamps, at no extra read:
# the match's row must have the updated_at the entry's commit wrote (when the entry is at
# the row's seq), or the log's event at the entry's seq the created_at it wrote (read
# with the events after it, when the entry is behind).
_CACHE_SIZE = 512


@dataclass(frozen=True)
class _Entry:
    seq: int
    state: E.MatchState
    deal: dict[str, Any] | None
    generation: int  # games.log.server's, of the connection that committed it
    updated_at: Any  # the match row's, as that commit wrote it
    created_at: Any  # the commit's events' (the one `now` of append)


_cache: "OrderedDict[Any, _Entry]" = OrderedDict()
server.on_change(_cache.clear)


@dataclass
class Folded:
    state: E.MatchState  # a copy the caller owns
    deal: dict[str, Any] | None  # the newest deal (newest_deal), revealed when its hand ends

    @property
    def commitment(self) -> str | None:
        """The commitment to the newest deal, which the views show."""
        return self.deal["commitment"] if self.deal is not None else None


def newest_deal(dealt: dict[str, Any]) -> dict[str, Any]:
    """What a hand_dealt's payload holds that its hand_revealed repeats: the hand, the deck,
    the salt and the commitment. Kept with the folded state, so that the end of a hand
    reveals its deck without reading its deal back from the log."""
    return {key: dealt[key] for key in ("hand", "deck", "salt", "commitment")}


def load(match: Match, upto: int | None = None) -> Folded:
    """The state after the match's newest event, `match.seq` (or after event `upto`)."""
    upto = match.seq if upto is None else upto
    cached = _cache.get(match.pk)
    if cached is not None and (cached.seq > upto or cached.generation != server.current()):
        cached = None
    if cached is not None and cached.seq == upto == match.seq:
        # At the row's seq (an action's usual case: nothing to read): the row must be the
        # one the entry's commit wrote, not another at the same seq.
        if cached.updated_at == match.updated_at:
            return _folded(cached, [])
        cached = None
    if cached is not None:
        # Behind: its own event too, in the same read, must be the one its commit wrote.
        events = events_of(match, after=cached.seq - 1, upto=upto)
        if events and events[0].seq == cached.seq and events[0].created_at == cached.created_at:
            return _folded(cached, events[1:])
    # Only up to match.seq: events committed after the row was read belong to a later view.
    return _folded(None, events_of(match, after=0, upto=upto))


def _folded(cached: _Entry | None, events: list[Event]) -> Folded:
    replayer = Replayer()
    if cached is not None:
        replayer.state, replayer.deal = cached.state.clone(), cached.deal
        replayer.index = cached.seq
    for event in events:
        replayer.feed(event.type, event.seat, event.payload)
    return Folded(replayer.state, replayer.deal)


def remember_on_commit(match: Match, folded: Folded, rows: list[Event]) -> None:
    """Once committed, the state after `rows` (the events just appended, match.seq the
    newest) as this process's copy, with the stamps of that commit."""
    entry = _Entry(
        match.seq,
        folded.state.clone(),
        folded.deal,
        server.of(connection),
        match.updated_at,
        rows[-1].created_at,
    )

    def remember() -> None:
        _cache[match.pk] = entry
        _cache.move_to_end(match.pk)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)

    transaction.on_commit(remember)
