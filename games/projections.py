"""Match summaries and hand rows, derived from events.

`project` is called with the events just appended, in the same transaction;
`rebuild` clears the projections of a match and projects its whole log, so
both paths share one piece of code. A match's match_finished event also writes its
people's records and ratings (games/records.py); `rebuild` rewrites the records of the
match, and only `records.rebuild_all` the ratings (they depend on the order of matches).
"""

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from games import engine as E
from games import eventlog, records
from games import events as V
from games.models import Event, Hand, Match, MatchStatus, Visibility


def project(match: Match, events: Iterable[Event], *, rebuilding: bool = False) -> None:
    """Update `match` (saved by the caller) and its Hand rows for new events; when the
    match finishes (not `rebuilding`), its records and ratings."""
    finished = False
    for event in events:
        handler = _HANDLERS.get(event.type)
        if handler is not None:
            handler(match, event)
        finished = finished or event.type == V.MATCH_FINISHED
    if finished and not rebuilding:
        records.match_finished(match)


def writes_rows(events: Iterable[V.NewEvent]) -> bool:
    """Whether projecting these events writes a row other than the match's own (a hand's,
    a record's); the others change only fields of the match."""
    for event in events:
        if event.type in (V.HAND_DEALT, V.HAND_SCORED, V.HAND_THROWN_IN, V.MATCH_FINISHED):
            return True
        if event.type == V.BID and _makes_trump(event.payload["action"]):
            return True
    return False


def _makes_trump(action: dict) -> bool:
    """A bid that names trump (and so writes its hand's trump, maker and alone)."""
    return action["type"] in ("order_up", "call")


def before_append(events: Iterable[V.NewEvent]) -> None:
    """Called before events are appended: a match about to finish waits for any other
    finishing one (records.finishing), so ratings follow the finish order."""
    if any(e.type == V.MATCH_FINISHED for e in events):
        records.finishing()


def _match_created(match: Match, event: Event) -> None:
    match.status = MatchStatus.WAITING
    match.visibility = event.payload.get("visibility", Visibility.PRIVATE)
    match.rematch_of_id = event.payload.get("rematch_of")
    match.score_ns = match.score_we = match.hands_played = 0
    match.winner_team = None
    match.finished_at = None


def _match_started(match: Match, event: Event) -> None:
    match.status = MatchStatus.ACTIVE


def _hand_dealt(match: Match, event: Event) -> None:
    p = event.payload
    Hand.objects.create(
        match=match,
        number=p["hand"],
        dealer=p["dealer"],
        commitment=p["commitment"],
        upcard=p["upcard"],
        first_seq=event.seq,
    )


def _bid(match: Match, event: Event) -> None:
    action = event.payload["action"]
    if not _makes_trump(action):
        return
    if action["type"] == "order_up":
        trump = _upcard_suit(match, match.hands.latest("number"))
    else:
        trump = action["suit"]
    match.hands.filter(number=match.hands.latest("number").number).update(
        trump=trump, maker=event.seat, alone=action["alone"]
    )


def _hand_over(match: Match, event: Event) -> None:
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
    match.hands.filter(number=p["hand"]).update(**fields)
    match.hands_played = p["hand"]


def _match_finished(match: Match, event: Event) -> None:
    match.status = MatchStatus.FINISHED
    match.winner_team = event.payload["winner"]
    match.finished_at = event.created_at or timezone.now()


def _match_abandoned(match: Match, event: Event) -> None:
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
