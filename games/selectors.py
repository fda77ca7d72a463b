"""Reads: each seat's view, the log as a seat may see it, replays.

Every outbound path goes through here so that no seat ever sees another's
hand, the kitty, or a deck before its hand is over.
"""

import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from games import engine as E
from games import eventlog, events, fairness, hands, presence
from games.deal_view import seat_cards
from games.errors import NotFound
from games.models import Event, Match, MatchStatus, Seat


def match_for_user(*, match_id: Any, user: AbstractBaseUser) -> tuple[Match, int]:
    """The match and the caller's seat; NotFound if there is no such match or no seat
    for the caller at it (the two are indistinguishable from outside)."""
    seat = (
        Seat.objects.select_related("match").filter(match_id=match_id, user=user).first()
        if is_match_id(match_id)
        else None
    )
    if seat is None:
        raise NotFound()
    return seat.match, seat.index


def is_match_id(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def matches_for_user(*, user: AbstractBaseUser, status: str | None = None) -> QuerySet[Match]:
    qs = Match.objects.filter(seats__user=user).prefetch_related("seats__user")
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-created_at")


def seats_summary(match: Match, viewer: int | None = None) -> list[dict[str, Any]]:
    present = presence.present_seats(match.pk)
    return [
        {
            "index": seat.index,
            "name": E.SEAT_NAMES[seat.index],
            "kind": seat.kind,
            "username": seat.user.get_username() if seat.user else None,
            "level": seat.bot_level or None,
            "is_you": seat.index == viewer,
            "away": seat.away,
            "present": seat.index in present,  # a live stream of theirs is open
        }
        for seat in match.seats.all().select_related("user").order_by("index")
    ]


def match_summary(match: Match, viewer: int | None = None) -> dict[str, Any]:
    return {
        "id": str(match.id),
        "status": match.status,
        "seq": match.seq,
        "options": match.options,
        "hints_allowed": match.hints_allowed,
        "turn_seconds": match.turn_seconds,
        "turn_deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
        "scores": [match.score_ns, match.score_we],
        "winner_team": match.winner_team,
        "hands_played": match.hands_played,
        "seats": seats_summary(match, viewer),
        "created_at": match.created_at.isoformat(),
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def player_view_get(
    *, match: Match, seat: int, folded: eventlog.Folded | None = None
) -> dict[str, Any]:
    """The match as the player at `seat` sees it: summary, the engine's view with the
    commitment to the current deal, and the newest sequence number."""
    if folded is None:
        folded = eventlog.load(match)
    view = E.player_view(folded.state, seat)
    if view["hand"] is not None:
        view["hand"]["commitment"] = folded.commitment
    return {**match_summary(match, seat), "you": seat, "view": view}


# ---------------------------------------------------------------- the log, per seat


def event_for_seat(event: Event, seat: int | None, finished: bool) -> dict[str, Any]:
    """One event as `seat` may see it (None: a spectator), by games.events.redact. Once
    the match is finished, everything is shown (not once it is abandoned: the hand being
    played stays secret)."""
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "payload": events.redact(event, seat, finished),
        "created_at": event.created_at.isoformat(),
    }


def events_for_seat(*, match: Match, seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    finished = match.status == MatchStatus.FINISHED
    logged = Event.objects.filter(match=match, seq__gt=after).order_by("seq")
    return [event_for_seat(e, seat, finished) for e in logged]


def replay_get(*, match: Match) -> dict[str, Any]:
    """A finished match hand by hand: each deal (deck, salt, commitment, whether they
    agree, every seat's cards) and the events of the hand in order."""
    log = hands.log_by_hand(match)
    return {
        **match_summary(match),
        "setup": [event_for_seat(e, None, True) for e in log.setup],
        "hands": [_replayed_hand(hand) for hand in log.hands],
    }


def _replayed_hand(hand: hands.HandSlice) -> dict[str, Any]:
    p = hand.dealt
    return {
        "hand": p["hand"],
        "dealer": p["dealer"],
        "deck": p["deck"],
        "salt": p["salt"],
        "commitment": p["commitment"],
        "commitment_verified": fairness.verify(p["deck"], p["salt"], p["commitment"]),
        "hands": [seat_cards(p["deck"], p["dealer"], s) for s in range(4)],
        "kitty": p["deck"][20:],
        "events": [event_for_seat(e, None, True) for e in hand.events],
    }
