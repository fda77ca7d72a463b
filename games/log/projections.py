"""Match summaries and hand rows, derived from events.

`project` is called with the events just appended, in the same transaction;
`rebuild` clears the projections of a match and projects its whole log, so
both paths share one piece of code. A match's match_finished event also writes its
people's records and ratings (games/log/records.py); `rebuild` rewrites the records of the
match, and only `records.rebuild_all` the ratings (they depend on the order of matches).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games import engine as E
from games.log import eventlog, records
from games.log import events as V
from games.models import Event, Hand, Match, MatchStatus, Visibility


@dataclass
class HandWrite:
    """A write of one hand's row that events make: a new row (its deal), or some of its
    fields (trump named, the hand over)."""

    number: int
    fields: dict[str, Any]
    new: bool = False


def project(
    match: Match,
    events: Iterable[Event],
    *,
    rebuilding: bool = False,
    state: E.MatchState | None = None,
) -> list[HandWrite]:
    """Update `match` (saved by the caller) and its Hand rows for new events; when the
    match finishes (not `rebuilding`), its records and ratings.

    With `state` (the engine's state after the events, for events `deferrable` says so of),
    the Hand rows are not written but returned, each hand's writes merged into one, for the
    caller to write with the events (hand_statements); `match` is updated all the same."""
    finished = False
    writes: dict[int, HandWrite] = {}
    for event in events:
        handler = _HANDLERS.get(event.type)
        write = handler(match, event, state) if handler is not None else None
        if write is not None and state is None:
            _write_now(match, write)
        elif write is not None:
            _merge(writes, write)
        finished = finished or event.type == V.MATCH_FINISHED
    if finished and not rebuilding:
        records.match_finished(match)
    return list(writes.values())


def deferrable(events: Iterable[V.NewEvent]) -> bool:
    """Whether project(state=...) can answer these events' Hand rows for the caller to
    write: not the end of a match (its records read the whole log, written first), nor a
    bid naming trump with a new deal after it (the state after both is another hand's)."""
    types = [e.type for e in events]
    if V.MATCH_FINISHED in types:
        return False
    return not (V.HAND_DEALT in types and any(_names_trump(e) for e in events))


def _names_trump(event: Any) -> bool:
    return event.type == V.BID and _makes_trump(event.payload["action"])


def _makes_trump(action: dict) -> bool:
    """A bid that names trump (and so writes its hand's trump, maker and alone)."""
    return action["type"] in ("order_up", "call")


def before_append(events: Iterable[V.NewEvent]) -> None:
    """Called before events are appended: a match about to finish waits for any other
    finishing one (records.finishing), so ratings follow the finish order."""
    if any(e.type == V.MATCH_FINISHED for e in events):
        records.finishing()


def _write_now(match: Match, write: HandWrite) -> None:
    if write.new:
        Hand.objects.create(match=match, number=write.number, **write.fields)
    else:
        match.hands.filter(number=write.number).update(**write.fields)


def _merge(writes: dict[int, HandWrite], write: HandWrite) -> None:
    earlier = writes.get(write.number)
    if earlier is None:
        writes[write.number] = write
    else:
        writes[write.number] = HandWrite(
            write.number, {**earlier.fields, **write.fields}, earlier.new or write.new
        )


def hand_statements(
    match: Match, writes: list[HandWrite], gate: str | None = None
) -> list[tuple[str, list[Any]]]:
    """The writes as PostgreSQL statements (SQL, parameters), each to go in the events'
    statement as a data-modifying WITH; `gate`: the name of a WITH query that returns a row
    only if the match was written, so that the hands are written only then too."""
    return [_hand_statement(match, write, gate) for write in writes]


def _hand_statement(match: Match, write: HandWrite, gate: str | None) -> tuple[str, list[Any]]:
    if write.new:
        values = {**_NEW_HAND, **write.fields, "match": match.pk, "number": write.number}
        return _insert_sql(tuple(values), gate), list(values.values())
    params = [*write.fields.values(), match.pk, write.number]
    return _update_sql(tuple(write.fields), gate), params


@lru_cache(maxsize=16)
def _insert_sql(names: tuple[str, ...], gate: str | None) -> str:
    # The text for these columns, made once: the columns' types cost more than the rest.
    columns = [Hand._meta.get_field(name) for name in names]
    # Typed: a SELECT list takes no types from the table it is inserted into.
    typed = ", ".join(f"%s::{field.db_type(connection)}" for field in columns)
    return (
        f"INSERT INTO {Hand._meta.db_table} ({', '.join(f.column for f in columns)})"
        f" SELECT {typed}{f' FROM {gate}' if gate else ''}"
    )


@lru_cache(maxsize=16)
def _update_sql(names: tuple[str, ...], gate: str | None) -> str:
    table = Hand._meta.db_table
    assignments = ", ".join(f"{Hand._meta.get_field(name).column} = %s" for name in names)
    source = f" FROM {gate}" if gate else ""
    where = f"{table}.match_id = %s AND {table}.number = %s"
    return f"UPDATE {table} SET {assignments}{source} WHERE {where}"


# A new hand's row as Hand() makes it: its fields' defaults (not the database's).
_NEW_HAND = {
    field.name: field.get_default()
    for field in Hand._meta.concrete_fields
    if not field.primary_key and field.name not in ("match", "number")
}


def _match_created(match: Match, event: Event, state: Any) -> None:
    match.status = MatchStatus.WAITING
    match.visibility = event.payload.get("visibility", Visibility.PRIVATE)
    match.rematch_of_id = event.payload.get("rematch_of")
    match.score_ns = match.score_we = match.hands_played = 0
    match.winner_team = None
    match.finished_at = None


def _match_started(match: Match, event: Event, state: Any) -> None:
    match.status = MatchStatus.ACTIVE


def _hand_dealt(match: Match, event: Event, state: Any) -> HandWrite:
    p = event.payload
    fields = {
        "dealer": p["dealer"],
        "commitment": p["commitment"],
        "upcard": p["upcard"],
        "first_seq": event.seq,
    }
    return HandWrite(p["hand"], fields, new=True)


def _bid(match: Match, event: Event, state: E.MatchState | None) -> HandWrite | None:
    action = event.payload["action"]
    if not _makes_trump(action):
        return None
    fields = {"maker": event.seat, "alone": action["alone"]}
    if state is not None:  # the state of this hand, trump named (deferrable)
        return HandWrite(state.hand_number, {"trump": E.suit_str(state.trump), **fields})
    hand = match.hands.latest("number")
    trump = _upcard_suit(match, hand) if action["type"] == "order_up" else action["suit"]
    return HandWrite(hand.number, {"trump": trump, **fields})


def _hand_over(match: Match, event: Event, state: Any) -> HandWrite:
    p = event.payload
    fields = {"last_seq": event.seq}
    if event.type == V.HAND_SCORED:
        fields.update(
            result=p["result"],
            scoring_team=p["team"],
            points=p["points"],
            makers_tricks=p["makers_tricks"],
        )
        match.score_ns, match.score_we = p["scores"]
    else:
        fields["result"] = "thrown_in"
    match.hands_played = p["hand"]
    return HandWrite(p["hand"], fields)


def _match_finished(match: Match, event: Event, state: Any) -> None:
    match.status = MatchStatus.FINISHED
    match.winner_team = event.payload["winner"]
    match.finished_at = event.created_at or timezone.now()


def _match_abandoned(match: Match, event: Event, state: Any) -> None:
    match.status = MatchStatus.ABANDONED
    match.finished_at = event.created_at or timezone.now()


def _upcard_suit(match: Match, hand: Hand) -> str:
    """The suit the upcard counts as: its own, or a joker's (option joker): the fixed
    suit of the options, or the suit the dealer named in this hand."""
    if hand.upcard != E.card_str(E.JOKER):
        return hand.upcard[-1]
    fixed = (match.options or {}).get("joker_upcard", "dealer_names")
    if fixed != "dealer_names":
        return E.SUIT_LETTERS[E.parse_suit(fixed)]
    named = [
        e
        for e in eventlog.events_of(match, after=hand.first_seq)
        if e.type == V.BID and e.payload["action"]["type"] == E.NAME_SUIT
    ]
    return named[-1].payload["action"]["suit"]


_HANDLERS = {
    V.MATCH_CREATED: _match_created,
    V.MATCH_STARTED: _match_started,
    V.HAND_DEALT: _hand_dealt,
    V.BID: _bid,
    V.HAND_SCORED: _hand_over,
    V.HAND_THROWN_IN: _hand_over,
    V.MATCH_FINISHED: _match_finished,
    V.MATCH_ABANDONED: _match_abandoned,
}


def rebuild(match: Match) -> None:
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match.pk)
        match.hands.all().delete()
        project(match, eventlog.events_of(match), rebuilding=True)
        match.save()
        records.record_match(match)
