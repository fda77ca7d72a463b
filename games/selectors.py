"""Reads: each seat's view, the log as a seat may see it, replays.

Every outbound path goes through here so that no seat ever sees another's
hand, the kitty, or a deck before its hand is over.
"""

import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from games import engine as E
from games import eventlog, fairness, presence
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

# Event types whose payload any seat may see as it is. hand_dealt and discard are
# filtered below; a type not listed here (one added later and forgotten) shows no payload.
PUBLIC_EVENT_TYPES = frozenset(eventlog.EVENT_TYPES) - {"hand_dealt", "discard"}


def event_for_seat(event: Event, seat: int | None, finished: bool) -> dict[str, Any]:
    """One event as `seat` may see it (None: a spectator). Once the match is finished,
    everything is shown (not once it is abandoned: the hand being played stays secret)."""
    payload = event.payload
    if not finished:
        if event.type == "hand_dealt":
            payload = {k: v for k, v in payload.items() if k not in ("deck", "salt")}
            if seat is not None:
                payload["cards"] = seat_cards(event.payload["deck"], event.payload["dealer"], seat)
        elif event.type == "discard":
            if seat != event.seat:
                payload = {"action": {"type": "discard"}}
        elif event.type not in PUBLIC_EVENT_TYPES:
            payload = {}
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "payload": payload,
        "created_at": event.created_at.isoformat(),
    }


def events_for_seat(*, match: Match, seat: int | None, after: int = 0) -> list[dict[str, Any]]:
    finished = match.status == MatchStatus.FINISHED
    events = Event.objects.filter(match=match, seq__gt=after).order_by("seq")
    return [event_for_seat(e, seat, finished) for e in events]


def replay_get(*, match: Match) -> dict[str, Any]:
    """A finished match hand by hand: each deal (deck, salt, commitment, whether they
    agree, every seat's cards) and the events of the hand in order."""
    hands: list[dict[str, Any]] = []
    preamble: list[dict[str, Any]] = []
    for event in Event.objects.filter(match=match).order_by("seq"):
        item = event_for_seat(event, None, True)
        if event.type == "hand_dealt":
            p = event.payload
            hands.append(
                {
                    "hand": p["hand"],
                    "dealer": p["dealer"],
                    "deck": p["deck"],
                    "salt": p["salt"],
                    "commitment": p["commitment"],
                    "commitment_verified": _verify(p),
                    "hands": [seat_cards(p["deck"], p["dealer"], s) for s in range(4)],
                    "kitty": p["deck"][20:],
                    "events": [item],
                }
            )
        elif hands:
            hands[-1]["events"].append(item)
        else:
            preamble.append(item)
    return {**match_summary(match), "setup": preamble, "hands": hands}


def _verify(payload: dict[str, Any]) -> bool:
    return fairness.verify(payload["deck"], payload["salt"], payload["commitment"])
