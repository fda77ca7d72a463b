"""The admin: matches with their seats and hands, the event log, and a page for each hand.

Nothing here edits a match. Matches, seats, hands and events can be looked at,
never added, changed or deleted: a match changes only through games.play.services,
Hand rows and match summaries are projections of the log, and the log is
append-only (down to a database trigger). The one thing the admin writes is
what `manage.py rebuild_projections` writes: a match's projections, rebuilt
from its log (an action on the match list).

The page for a hand (/admin/games/match/<id>/hand/<number>/) is built from the
log alone: every seat's cards from the dealt deck, the bidding and each trick
from the events, all of it checked by replaying the log through the engine, and
the deal's commitment checked with games.log.fairness.

The fairness promise holds here too: a hand's deck, salt, dealt cards, kitty and
the dealer's discard are shown only once the hand is revealed (its hand_revealed
event), as the players see them, on the hand page and in the event log alike;
until then, what a spectator may see (games.log.events.event_for_seat).
"""

import dataclasses
import json
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from games import engine as E
from games.http.throttling import client_address
from games.log import events as V
from games.log import fairness, hands, projections
from games.log.deal_view import seat_cards
from games.log.eventlog import LogError, events_of
from games.log.events import event_for_seat
from games.log.levels import LEVELS
from games.log.log_check import check_events
from games.models import (
    Event,
    EventArchive,
    EventChunk,
    Hand,
    Hint,
    Match,
    MatchReview,
    ReviewStatus,
    Seat,
    SeatKind,
)
from games.people.accounts import FailureLimit, normalized_name

TEAM_NAMES = ("south-north", "west-east")
SUIT_SYMBOLS = dict(zip(E.SUIT_LETTERS, E.SUIT_SYMBOLS, strict=True))  # "C" -> "♣"
SUIT_NAMES = dict(zip(E.SUIT_LETTERS, E.SUIT_NAMES, strict=True))  # "C" -> "clubs"
RESULT_WORDS = {
    "made": "made it",
    "march": "march: all five tricks",
    "lone_march": "lone march: all five tricks alone",
    "euchred": "euchred",
    "euchred_by_lone_defender": "euchred by a lone defender",
    "thrown_in": "thrown in: everyone passed twice",
}


# ---------------------------------------------------------------- display helpers


def seat_name(index: int | None) -> str:
    return E.SEAT_NAMES[index] if index is not None and 0 <= index < 4 else "-"


def card_view(code: str) -> dict[str, Any]:
    """A card for the templates: 'TH' -> 10♥, red; 'JK' -> the joker (option joker)."""
    if code == "JK":
        return {"code": code, "text": "joker", "red": False}
    rank, suit = code[:-1], code[-1]
    return {
        "code": code,
        "text": ("10" if rank == "T" else rank) + SUIT_SYMBOLS.get(suit, suit),
        "red": suit in "DH",
    }


def seat_label(seat: Seat) -> str:
    if seat.kind == SeatKind.HUMAN:
        return seat.user.get_username() if seat.user else "?"
    if seat.kind == SeatKind.COMPUTER:
        return f"computer ({seat.bot_level})"
    return "open seat"


def options_text(options: dict[str, Any] | None) -> str:
    """{'target_score': 10, 'stick_the_dealer': True, ...} -> 'to 10; stick the dealer; ...'"""
    options = dict(options or {})
    # The JSON column keeps no key order: show them in the engine's order.
    rank = {f.name: i for i, f in enumerate(dataclasses.fields(E.Options))}
    parts = []
    if "target_score" in options:
        parts.append(f"to {options.pop('target_score')}")
    for key, value in sorted(options.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])):
        words = key.replace("_", " ")
        if value is True:
            parts.append(words)
        elif value is False:
            parts.append(f"no {words}")
        else:
            parts.append(f"{words}: {str(value).replace('_', ' ')}")
    return "; ".join(parts)


def action_text(
    action: dict[str, Any], seat: int | None, dealer: int | None, before_trump: bool = False
) -> str:
    """A seat's action in words; `before_trump`: taken before trump was made (a redeal
    then is a farmer's hand asking for a new deal, not no ace, no face, no trump)."""
    kind = action.get("type")
    alone = " alone" if action.get("alone") else ""
    if kind == "order_up":
        return ("picks it up" if seat == dealer else "orders it up") + alone
    if kind == "call":
        return f"calls {SUIT_NAMES.get(action.get('suit'), action.get('suit'))}{alone}"
    if kind == "discard":
        if "card" not in action:
            return "discards a card"  # not revealed yet
        return f"discards {card_view(action['card'])['text']}"
    if kind == "play":
        return f"plays {card_view(action['card'])['text']}"
    if kind == "name_suit":
        return f"names {SUIT_NAMES.get(action.get('suit'), action.get('suit'))} for the joker"
    if kind == "farm":  # a farmer's hand: the card is shown once the hand may be
        if "card" not in action:
            return "puts a card under the upcard (farmer's hand)"
        return f"puts {card_view(action['card'])['text']} under the upcard (farmer's hand)"
    if kind == "redeal" and before_trump:
        return "asks for a new deal (farmer's hand)"
    if kind == "redeal":
        return "calls a redeal: no ace, no face, no trump"
    return str(kind).replace("_", " ") + "es" * (kind == "pass")


def admin_url(name: str, *args: Any) -> str:
    return reverse(f"admin:games_{name}", args=args)


def hand_page_url(match_id: Any, number: int) -> str:
    return admin_url("match_hand", match_id, number)


# ---------------------------------------------------------------- a hand, from the log


def hand_record(match: Match, number: int) -> dict[str, Any]:
    """Everything about hand `number` of `match`, read from its log (games.log.hands: the
    log cut into hands, and the hand replayed).

    Every seat's cards come from the recorded deck by the engine's deal; the bidding
    and the tricks from the events; trump, the makers and who sat out from the
    engine's state as the log replays. The replay checks every event (and the trick
    winners and scores the log records); the first one that does not replay is
    reported, not hidden."""
    log = hands.log_by_hand(match)
    hand = log.hand(number)
    if hand is None:
        raise Http404(f"Match {match.pk} has no hand {number}.")
    numbers = log.numbers()
    dealt = hand.dealt
    dealer = dealt["dealer"]
    shown = hand.revealed
    deck = (dealt.get("deck") or []) if shown else []  # no cards before the reveal

    players = _players_at(log.events[: hand.end])
    moves = _moves(log.events[: hand.end], hand.start)
    replay = hands.replay_hand(log, hand)
    state_view = replay.view or {}
    trump = state_view.get("trump")
    maker = state_view.get("maker")
    sitting_out = state_view.get("sitting_out", [])
    seats = []
    for s in range(4):
        roles = []
        if s == dealer:
            roles.append("dealer")
        if s == maker:
            roles.append("maker, alone" if state_view.get("alone") == s else "maker")
        if s == state_view.get("defender_alone"):
            roles.append("defends alone")
        if s in sitting_out:
            roles.append("sits out")
        seats.append(
            {
                "index": s,
                "name": seat_name(s),
                "team": TEAM_NAMES[s % 2],
                "player": players[s],
                "roles": roles,
                "cards": [card_view(c) for c in _seat_cards(deck, dealer, s)],
                "tricks_won": 0,
            }
        )

    bidding, tricks, current = [], [], []
    result = None
    revealed = None
    trump_at = _trump_made_at(hand.events)
    for event in hand.events:
        p = admin_payload(event, shown)
        if event.type in (V.BID, V.DISCARD, V.FARM):
            bidding.append(
                {
                    "seq": event.seq,
                    "seat": seat_name(event.seat),
                    "text": action_text(
                        p.get("action", {}), event.seat, dealer, event.seq < trump_at
                    ),
                    **moves[event.seq],
                }
            )
        elif event.type == V.CARD_PLAYED:
            current.append(
                {"seat": event.seat, "card": card_view(p["action"]["card"]), **moves[event.seq]}
            )
        elif event.type == V.TRICK_WON:
            winner = p.get("seat")
            for play in current:
                play["wins"] = play["seat"] == winner
                play["seat_name"] = seat_name(play["seat"])
            tricks.append(
                {
                    "number": p.get("trick"),
                    "seq": event.seq,
                    "leader": seat_name(current[0]["seat"]) if current else "-",
                    "plays": current,
                    "winner": seat_name(winner),
                }
            )
            if winner in range(4):
                seats[winner]["tricks_won"] += 1
            current = []
        elif event.type in V.HAND_OVER:
            result = _result(event)
        elif event.type == V.MATCH_ABANDONED:
            result = {
                "text": "abandoned: no person was left at the table",
                "seq": event.seq,
                "scores": p.get("scores"),
            }
        elif event.type == V.HAND_REVEALED:
            revealed = {
                "seq": event.seq,
                "same_as_dealt": all(p.get(k) == dealt.get(k) for k in ("deck", "salt")),
            }
    for play in current:  # a trick still being played
        play["seat_name"] = seat_name(play["seat"])

    salt = dealt.get("salt", "") if shown else ""
    commitment = dealt.get("commitment", "")
    return {
        "number": number,
        "first_seq": hand.events[0].seq,
        "dealt_at": hand.events[0].created_at,
        "last_seq": hand.events[-1].seq,
        "dealer": seat_name(dealer),
        "seats": seats,
        "upcard": card_view(dealt["upcard"]),
        "upcard_fate": (state_view.get("upcard_fate") or "").replace("_", " "),
        "kitty": [card_view(c) for c in deck[20:]],
        "discard": (
            card_view(state_view["discard"]) if shown and state_view.get("discard") else None
        ),
        "trump": SUIT_NAMES.get(trump, trump) if trump else None,
        "trump_symbol": SUIT_SYMBOLS.get(trump, "") if trump else "",
        "bidding": bidding,
        "tricks": tricks,
        "current_trick": current,
        "result": result,
        "over": result is not None,
        "deck": [card_view(c) for c in deck],
        "salt": salt,
        "commitment": commitment,
        "commitment_ok": bool(deck) and fairness.verify(deck, salt, commitment),
        "revealed": revealed,
        "cards_shown": shown,
        "problem": replay.problem,
        "hints": _hints_by_seat(match, hand, shown),
        "away_moves": sum(1 for m in moves.values() if m["by_computer"]),
        "events": [
            {
                "seq": e.seq,
                "type": e.type,
                "at": e.created_at,
                "by_computer": moves.get(e.seq, {}).get("by_computer", False),
                "seat": seat_name(e.seat) if e.seat is not None else "",
                "payload": json.dumps(admin_payload(e, shown), sort_keys=True),
            }
            for e in hand.events
        ],
        "previous": number - 1 if number - 1 in numbers else None,
        "next": number + 1 if number + 1 in numbers else None,
    }


def admin_payload(event: Event, revealed: bool) -> dict[str, Any]:
    """An event's payload as the admin shows it: everything once its hand is revealed,
    before that only what a spectator of the match may see (no deck, salt or discard)."""
    return event_for_seat(event, None, finished=revealed)["payload"]


def _seat_cards(deck: list[str], dealer: int, seat: int) -> list[str]:
    try:
        return seat_cards(deck, dealer, seat)
    except (E.RuleError, TypeError, ValueError):
        return []  # a deck the engine cannot deal: the replay reports it


# Events that do not give anyone the turn: a seat changing hands between a person and
# the computer playing for them. A move's time runs from the event before it that is not
# one of these (the last move, the deal, or the trick that made the seat lead).
NOT_A_TURN = (V.SEAT_TIMED_OUT, V.SEAT_RETURNED)


def _moves(events: list[Event], start: int) -> dict[int, dict[str, Any]]:
    """For each move (bid, discard, card) from index `start` on, by its seq: when it was
    made, how long the seat took, and whether a computer made it for a person whose turn
    timer ran out (the seat is away from its seat_timed_out until its seat_returned)."""
    away: dict[int, dict[str, Any]] = {}  # seat -> its seat_timed_out payload
    turn_from = None  # the created_at of the last event that gave someone the turn
    moves = {}
    for index, event in enumerate(events):
        p = event.payload
        if event.type == V.SEAT_TIMED_OUT and p.get("seat") in range(4):
            away[p["seat"]] = {"level": p.get("level"), "seconds": p.get("seconds")}
        elif event.type == V.SEAT_RETURNED and p.get("seat") in range(4):
            away.pop(p["seat"], None)
        if event.type in V.ACTION_EVENTS and index >= start:
            timed_out = away.get(event.seat)
            took = (event.created_at - turn_from).total_seconds() if turn_from else None
            moves[event.seq] = {
                "seq": event.seq,
                "at": event.created_at,
                "took": took,
                "by_computer": timed_out is not None,
                "computer_level": (timed_out or {}).get("level"),
            }
        if event.type not in NOT_A_TURN:
            turn_from = event.created_at
    return moves


def _hints_by_seat(match: Match, hand: hands.HandSlice, shown: bool) -> list[dict[str, Any]]:
    """The hints asked during the hand, per seat, in the order asked. What a hint
    recommended names a card of the seat's hand: like the cards, it is shown only once
    the hand is revealed."""
    first, last = hand.events[0].seq, hand.events[-1].seq
    asked = Hint.objects.filter(match=match, seq__gte=first, seq__lte=last).order_by(
        "seat", "seq", "created_at"
    )
    seats: list[dict[str, Any]] = [{"name": seat_name(s), "hints": []} for s in range(4)]
    trump_at = _trump_made_at(hand.events)
    for hint in asked:
        if hint.seat not in range(4):
            continue
        action = hint.action or {}
        seats[hint.seat]["hints"].append(
            {
                "seq": hint.seq,
                "status": hint.status,
                "status_text": hint.get_status_display(),
                "code": hint.code,
                "asked_at": hint.created_at,
                "answered_at": hint.completed_at,
                "shown": shown,
                "action": action_text(
                    action, hint.seat, hand.dealt.get("dealer"), hint.seq < trump_at
                )
                if shown and action
                else "",
                "explanation": hint.explanation if shown else "",
            }
        )
    return [s for s in seats if s["hints"]]


def _players_at(events: list[Event]) -> list[str]:
    """Who sat where, as the log says up to this hand's end."""
    players = ["open seat"] * 4
    for event in events:
        p = event.payload
        if event.type == V.SEAT_TAKEN and p.get("seat") in range(4):
            if p.get("kind") == SeatKind.HUMAN:
                players[p["seat"]] = p.get("username") or f"user {p.get('user_id')}"
            else:
                players[p["seat"]] = f"computer ({p.get('level')})"
        elif event.type == V.SEAT_LEFT and p.get("seat") in range(4):
            players[p["seat"]] = f"computer ({p.get('level')}), after {players[p['seat']]} left"
    return players


def _trump_made_at(events: list[Event]) -> float:
    """The seq of the hand's bid that made trump (an order up or a call); infinity if none
    did. A seat acts after the event at the hint's seq, so hint.seq < it: before trump."""
    for event in events:
        if event.type == V.BID and event.payload.get("action", {}).get("type") in (
            "order_up",
            "call",
        ):
            return event.seq
    return float("inf")


def _result(event: Event) -> dict[str, Any]:
    p = event.payload
    if event.type == V.HAND_THROWN_IN and p.get("reason") == E.FARM_REDEAL_REASON:
        cards = " ".join(card_view(c)["text"] for c in p.get("cards", []))
        return {
            "text": (
                f"thrown in: {E.SEAT_NAMES[p['seat']] if p.get('seat') in range(4) else '?'} "
                f"asked for a new deal with a farmer's hand ({cards})"
            ),
            "seq": event.seq,
            "scores": None,
        }
    if event.type == V.HAND_THROWN_IN and p.get("reason") == E.REDEAL_REASON:
        cards = " ".join(card_view(c)["text"] for c in p.get("cards", []))
        return {
            "text": (
                f"thrown in: {E.SEAT_NAMES[p['seat']] if p.get('seat') in range(4) else '?'} "
                f"called a redeal holding no ace, no face and no trump ({cards})"
            ),
            "seq": event.seq,
            "scores": None,
        }
    if event.type == V.HAND_THROWN_IN:
        return {"text": RESULT_WORDS["thrown_in"], "seq": event.seq, "scores": None}
    makers = p.get("makers")
    team = p.get("team")
    words = RESULT_WORDS.get(p.get("result"), str(p.get("result")).replace("_", " "))
    return {
        "seq": event.seq,
        "text": (
            f"{TEAM_NAMES[makers] if makers in (0, 1) else '?'} made trump and took "
            f"{p.get('makers_tricks')} tricks: {words}; "
            f"{p.get('points')} point{'s' * (p.get('points') != 1)} to "
            f"{TEAM_NAMES[team] if team in (0, 1) else '?'}"
        ),
        "scores": p.get("scores"),
    }


# ---------------------------------------------------------------- the match's review


def seconds_text(seconds: float | None) -> str:
    """How long something took, as a person reads it: '0.29 s' (not 0.2877418849999458)."""
    return "-" if seconds is None else f"{seconds:.2f} s"


def review_of(match: Match) -> dict[str, Any]:
    """The match's review as the match and hand pages show it: its status in words, a
    link to its own page, each person's accuracy, and its mistakes in the order played,
    each with its hand and the move's anchor on that hand's page (#seq-<seq>)."""
    review = MatchReview.objects.filter(match=match).first()
    out: dict[str, Any] = {"ready": False, "url": None, "players": [], "mistakes": []}
    if review is None:
        out["status"] = "none yet (it is worked out once the match is over)"
        return out
    out["url"] = admin_url("matchreview_change", match.pk)
    if review.status == ReviewStatus.PENDING:
        out["status"] = f"being worked out (asked {review.requested_at:%Y-%m-%d %H:%M:%S} UTC)"
        return out
    if review.status == ReviewStatus.FAILED or not review.body:
        out["status"] = f"failed ({review.code or 'review_failed'})"
        return out
    body = review.body
    built = f" at {review.built_at:%Y-%m-%d %H:%M:%S} UTC" if review.built_at else ""
    out.update(
        ready=True,
        status=f"ready, worked out in {seconds_text(review.seconds)}{built}",
        threshold=body.get("threshold"),
        players=[
            f"{seat_name(p['seat'])} ({p['username']}): "
            + ("no choices" if p["accuracy"] is None else f"{p['accuracy']}% accurate")
            + f", {p['mistakes']} mistake{'s' * (p['mistakes'] != 1)}, "
            f"about {p['points_lost']:.1f} points given up"
            for p in body.get("players", [])
        ],
    )
    for hand in body.get("hands", []):
        for m in hand.get("mistakes", []):
            out["mistakes"].append(
                {
                    **m,
                    "hand": hand["hand"],
                    "seat_name": seat_name(m.get("seat")),
                    "url": f"{hand_page_url(match.pk, hand['hand'])}#seq-{m['seq']}",
                }
            )
    out["mistakes"].sort(key=lambda m: m["seq"])
    return out


def mark_mistakes(hand: dict[str, Any], mistakes: list[dict[str, Any]]) -> None:
    """Puts each of the review's mistakes on its move of the hand page (by seq)."""
    by_seq = {m["seq"]: m for m in mistakes}
    plays = [p for t in hand["tricks"] for p in t["plays"]] + hand["current_trick"]
    for move in hand["bidding"] + plays:
        move["mistake"] = by_seq.get(move.get("seq"))


# ---------------------------------------------------------------- the login


class GuardedLoginForm(AdminAuthenticationForm):
    """The admin's login, with at most THROTTLE_ADMIN_LOGIN failures per client address
    and per username. Past that the password is not even checked (so the right one
    does not get in either) until the oldest failure leaves the window. Failures are
    counted in the cache, like the API's throttles (and in the process's memory while
    the cache is down)."""

    def _counters(self) -> list[tuple[FailureLimit, str]]:
        limit = FailureLimit("admin_login")
        counters = [(limit, "address:" + client_address(self.request))]
        username = self.data.get("username")
        if isinstance(username, str) and username:
            counters.append((limit, "user:" + normalized_name(username)))
        return counters

    def clean(self) -> dict[str, Any]:
        counters = self._counters()
        waits = [wait for limit, ident in counters if (wait := limit.wait(ident)) is not None]
        if waits:
            raise ValidationError(
                "Too many failed logins: try again in %(minutes)d minutes.",
                code="throttled",
                params={"minutes": max(1, round(max(waits) / 60))},
            )
        try:
            return super().clean()
        except ValidationError:
            for limit, ident in counters:
                limit.record(ident)
            raise


admin.site.login_form = GuardedLoginForm


# ---------------------------------------------------------------- read-only admin bases


class ReadOnlyMixin:
    """Look, never touch: no add, change or delete, whoever asks."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = ("index", "seat", "kind", "user", "computer_player")
    readonly_fields = ("seat", "computer_player")
    extra = 0
    can_delete = False

    @admin.display(description="seat")
    def seat(self, obj: Seat) -> str:
        return seat_name(obj.index)

    @admin.display(description="computer player")
    def computer_player(self, obj: Seat) -> str:
        """The level of the computer that plays the seat: a computer's seat, or a person's
        while they are away (their turn timer ran out; it plays for them until they are
        back). A person's bot_level means nothing else, and says so."""
        if obj.kind == SeatKind.COMPUTER:
            return obj.bot_level
        if obj.kind == SeatKind.HUMAN and obj.away:
            return (
                f"{obj.bot_level or 'medium'}: plays for this person, away since their turn "
                "timer ran out (until they come back)"
            )
        if obj.kind == SeatKind.HUMAN:
            return "none: the person plays"
        return "-"


class HandColumns:
    """A hand's dealer and maker by seat name, and the link to its page: the match's
    hands (inline) and the list of hands show them alike."""

    @admin.display(description="dealer")
    def dealer_name(self, obj: Hand) -> str:
        return seat_name(obj.dealer)

    @admin.display(description="maker")
    def maker_name(self, obj: Hand) -> str:
        return seat_name(obj.maker)

    @admin.display(description="cards, bidding and tricks")
    def page(self, obj: Hand) -> str:
        return format_html(
            '<a href="{}">hand {}</a>', hand_page_url(obj.match_id, obj.number), obj.number
        )


class HandInline(HandColumns, ReadOnlyMixin, admin.TabularInline):
    model = Hand
    fields = (
        "number",
        "dealer_name",
        "upcard",
        "trump",
        "maker_name",
        "alone",
        "result",
        "points",
        "makers_tricks",
        "first_seq",
        "last_seq",
        "page",
    )
    readonly_fields = ("dealer_name", "maker_name", "page")
    extra = 0
    can_delete = False
    show_change_link = True


# ---------------------------------------------------------------- the match list's filters


def _short_time(when: Any) -> str:
    """2026-12-01 / 02:23 (UTC) on two lines, for the list's columns."""
    if not when:
        return "-"
    return format_html("{}<br>{}", when.strftime("%Y-%m-%d"), when.strftime("%H:%M:%S"))


def _matches_with_seat(**seat: Any):
    """Matches with a seat like `seat`, one row each (a filter over the seats, not a join
    that would list a match once per matching seat)."""
    return Exists(Seat.objects.filter(match=OuterRef("pk"), **seat))


class PlayerFilter(admin.SimpleListFilter):
    """Matches a person sat at, by username. The list offers the people seated in the
    matches; any username works in the address (?player=alice)."""

    title = "player"
    parameter_name = "player"
    OFFERED = 100  # at most this many names in the sidebar

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        names = (
            Seat.objects.filter(kind=SeatKind.HUMAN, user__isnull=False)
            .values_list("user__username", flat=True)
            .distinct()
            .order_by("user__username")[: self.OFFERED]
        )
        return [(name, name) for name in names]

    def queryset(self, request: HttpRequest, queryset):
        if self.value():
            return queryset.filter(
                _matches_with_seat(kind=SeatKind.HUMAN, user__username=self.value())
            )
        return queryset


class ComputerLevelFilter(admin.SimpleListFilter):
    """Matches with a computer player of a level: a computer seat, or a person's seat a
    computer plays (they left, or their turn timer ran out)."""

    title = "computer level"
    parameter_name = "level"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(level, level) for level in LEVELS]

    def queryset(self, request: HttpRequest, queryset):
        if self.value():
            return queryset.filter(_matches_with_seat(bot_level=self.value()))
        return queryset


class TimedOutFilter(admin.SimpleListFilter):
    """Matches where a person's turn timer ran out (a seat_timed_out in the log)."""

    title = "turn timer ran out"
    parameter_name = "timed_out"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "yes"), ("no", "no")]

    def queryset(self, request: HttpRequest, queryset):
        timed_out = Exists(Event.objects.filter(match=OuterRef("pk"), type=V.SEAT_TIMED_OUT))
        if self.value() == "yes":
            return queryset.filter(timed_out)
        if self.value() == "no":
            return queryset.exclude(timed_out)
        return queryset


class RulesOptionFilter(admin.SimpleListFilter):
    """Matches played under one value of one rules option (?option=target_score=5): the
    values the matches have, option by option in the engine's order."""

    title = "rules option"
    parameter_name = "option"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        # One query: the distinct sets of options (a handful), then their values.
        sets = Match.objects.order_by().values_list("options", flat=True).distinct()
        values: dict[str, set[str]] = {}
        for options in sets:
            for key, value in (options or {}).items():
                values.setdefault(key, set()).add(json.dumps(value))
        choices = []
        for field in dataclasses.fields(E.Options):
            for raw in sorted(values.get(field.name, ()), key=lambda v: (len(v), v)):
                label = options_text({field.name: json.loads(raw)})
                choices.append((f"{field.name}={raw}", label))
        return choices

    def queryset(self, request: HttpRequest, queryset):
        if not self.value():
            return queryset
        key, _, raw = self.value().partition("=")
        try:
            value = json.loads(raw)
        except ValueError:
            return queryset.none()  # not a value any match has
        return queryset.filter(options__contains={key: value})


# ---------------------------------------------------------------- matches


@admin.register(Match)
class MatchAdmin(ReadOnlyMixin, admin.ModelAdmin):
    # The list fits a 1280 px screen (tests/games/test_admin_browser.py): a short id, a
    # seat a line, the options that differ from the engine's defaults, compact dates,
    # and no navigation sidebar on this page (changelist_view).
    list_display = (
        "match_id",
        "status",
        "players_list",
        "options_summary",
        "score",
        "hands_played",
        "created",
        "finished",
    )
    list_filter = (
        "status",
        PlayerFilter,
        ComputerLevelFilter,
        TimedOutFilter,
        RulesOptionFilter,
        "hints_allowed",
        "created_at",
        "finished_at",
    )
    search_fields = ("id", "seats__user__username")
    search_help_text = "A match id (or part of one), or a player's username."
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    inlines = (SeatInline, HandInline)
    actions = ("rebuild_projections",)
    fieldsets = (
        (None, {"fields": ("id", "status", "created_by", "players", "score", "winner")}),
        ("Review", {"fields": ("review_summary",)}),
        (
            "Rules",
            {"fields": ("options_summary", "options", "hints_allowed", "first_dealer")},
        ),
        (
            "Log",
            {
                "fields": (
                    "seq",
                    "hands_played",
                    "event_log",
                    "log_check",
                    "created_at",
                    "updated_at",
                    "finished_at",
                )
            },
        ),
    )
    readonly_fields = (
        "players",
        "score",
        "winner",
        "review_summary",
        "options_summary",
        "event_log",
        "log_check",
    )

    class Media:
        css = {"all": ("games/admin/match_list.css",)}

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).prefetch_related("seats__user")

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):
        # The list needs the width the app sidebar takes; the breadcrumbs stay.
        context = {"is_nav_sidebar_enabled": False, **(extra_context or {})}
        return super().changelist_view(request, extra_context=context)

    def get_urls(self):
        hand = path(
            "<uuid:match_id>/hand/<int:number>/",
            self.admin_site.admin_view(self.hand_view),
            name="games_match_hand",
        )
        return [hand, *super().get_urls()]  # before the catch-all "<object_id>/"

    # -------------------------------------------------------- columns

    @admin.display(description="players")
    def players(self, obj: Match) -> str:
        seats = sorted(obj.seats.all(), key=lambda s: s.index)
        return ", ".join(f"{seat_name(s.index)}: {seat_label(s)}" for s in seats)

    @admin.display(description="match", ordering="id")
    def match_id(self, obj: Match) -> str:
        return format_html('<span title="{}">{}</span>', obj.pk, str(obj.pk)[:8])

    @admin.display(description="players")
    def players_list(self, obj: Match) -> str:
        """A seat a line; a person whose timer ran out says who plays for them."""
        seats = sorted(obj.seats.all(), key=lambda s: s.index)
        rows = (
            (
                "away" if s.away else "seat",
                seat_name(s.index),
                seat_label(s),
                f" (away: computer, {s.bot_level})" if s.away else "",
            )
            for s in seats
        )
        return format_html_join(mark_safe("<br>"), '<span class="{}">{}: {}{}</span>', rows)

    @admin.display(description="options")
    def options_summary(self, obj: Match) -> str:
        """In the list: the target and what differs from the engine's defaults (all of
        them in the title, and on the match's page)."""
        options = dict(obj.options or {})
        defaults = dataclasses.asdict(E.Options())
        changed = {k: v for k, v in options.items() if k != "target_score" and defaults.get(k) != v}
        short = options_text({"target_score": options.get("target_score"), **changed})
        if not changed:
            short += "; usual rules"
        return format_html('<span title="{}">{}</span>', options_text(options), short)

    @admin.display(description="created (UTC)", ordering="created_at")
    def created(self, obj: Match) -> str:
        return _short_time(obj.created_at)

    @admin.display(description="finished (UTC)", ordering="finished_at")
    def finished(self, obj: Match) -> str:
        return _short_time(obj.finished_at)

    @admin.display(description="score (S-N to W-E)")
    def score(self, obj: Match) -> str:
        return f"{obj.score_ns}-{obj.score_we}"

    @admin.display(description="winner")
    def winner(self, obj: Match) -> str:
        return TEAM_NAMES[obj.winner_team] if obj.winner_team is not None else "-"

    @admin.display(description="review")
    def review_summary(self, obj: Match) -> str:
        """The review on the match's page: its status, each person's accuracy, and every
        mistake with a link to its move on its hand's page."""
        review = review_of(obj)
        status = (
            format_html('<a href="{}">{}</a>', review["url"], review["status"])
            if review["url"]
            else review["status"]
        )
        if not review["ready"]:
            return format_html('<span id="review-status">{}</span>', status)
        players = format_html_join("", "<li>{}</li>", ((p,) for p in review["players"]))
        mistakes = format_html_join(
            "",
            '<li class="review-mistake"><a href="{}">hand {}, seq {}</a>: {}: {}</li>',
            (
                (m["url"], m["hand"], m["seq"], m["seat_name"], m["sentence"])
                for m in review["mistakes"]
            ),
        )
        return format_html(
            '<span id="review-status">{}</span><ul class="review-players">{}</ul>'
            '<p>{}</p><ol id="review-mistakes">{}</ol>',
            status,
            players,
            f"{len(review['mistakes'])} mistake{'s' * (len(review['mistakes']) != 1)} "
            "(the biggest of each hand), each on its hand's page:"
            if review["mistakes"]
            else "No mistakes.",
            mistakes,
        )

    @admin.display(description="event log")
    def event_log(self, obj: Match) -> str:
        archive = EventArchive.objects.filter(match=obj).values_list("count", flat=True).first()
        if archive is not None:  # its rows are gone: the hand pages and the check read it
            return f"{archive} events, archived in one row"
        url = admin_url("event_changelist") + f"?match__id__exact={obj.pk}"
        rows = obj.events.count()
        if rows == obj.seq:
            return format_html('<a href="{}">{} events</a>', url, rows)
        # The hands over of a match being played are chunks (games.log.archive.compact_match):
        # the event list shows the rows, the hand pages and the log check the whole log.
        return format_html(
            '{} events: <a href="{}">the newest {} as rows</a>, the hands before in {} chunks',
            obj.seq,
            url,
            rows,
            EventChunk.objects.filter(match=obj).count(),
        )

    @admin.display(description="log check")
    def log_check(self, obj: Match) -> str:
        """The log replayed through the engine, every deal against its commitment."""
        try:
            summary = check_events(events_of(obj))
        except LogError as problem:
            return format_html('<strong style="color:#ba2121">FAILED: {}</strong>', str(problem))
        return str(summary)

    # -------------------------------------------------------- the page for a hand

    def hand_view(self, request: HttpRequest, match_id: Any, number: int) -> TemplateResponse:
        match = self.get_object(request, str(match_id))
        if match is None:
            raise Http404("No such match.")
        if not self.has_view_permission(request, match):
            raise PermissionDenied
        hand = hand_record(match, number)
        review = review_of(match)
        review["mistakes"] = [m for m in review["mistakes"] if m["hand"] == number]
        mark_mistakes(hand, review["mistakes"])
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Hand {number} of match {match.pk}",
            "subtitle": None,
            "match": match,
            "match_url": admin_url("match_change", match.pk),
            "hand": hand,
            "review": review,
            "previous_url": hand_page_url(match.pk, hand["previous"]) if hand["previous"] else None,
            "next_url": hand_page_url(match.pk, hand["next"]) if hand["next"] else None,
        }
        return TemplateResponse(request, "admin/games/match/hand.html", context)

    # -------------------------------------------------------- the one write

    @admin.action(description="Rebuild projections (hands, score, status) from the log")
    def rebuild_projections(self, request: HttpRequest, queryset) -> None:
        count = 0
        for match in queryset.order_by("created_at"):
            projections.rebuild(match)
            count += 1
        self.message_user(
            request,
            f"Rebuilt the projections of {count} match{'es' * (count != 1)}.",
            messages.SUCCESS,
        )

    rebuild_projections.allowed_permissions = ("rebuild",)

    def has_rebuild_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_match")


# ---------------------------------------------------------------- hands


@admin.register(Hand)
class HandAdmin(HandColumns, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "__str__",
        "match_link",
        "number",
        "dealer_name",
        "upcard",
        "trump",
        "maker_name",
        "alone",
        "result",
        "points",
        "page",
    )
    list_filter = ("result", "alone", "trump")
    search_fields = ("=match__id",)
    search_help_text = "A match id."
    list_select_related = ("match",)
    readonly_fields = ("match_link", "dealer_name", "maker_name", "page")
    fields = (
        "match_link",
        "number",
        "dealer_name",
        "commitment",
        "upcard",
        "trump",
        "maker_name",
        "alone",
        "result",
        "scoring_team",
        "points",
        "makers_tricks",
        "first_seq",
        "last_seq",
        "page",
    )

    @admin.display(description="match", ordering="match__created_at")
    def match_link(self, obj: Hand) -> str:
        return format_html(
            '<a href="{}">{}</a>', admin_url("match_change", obj.match_id), obj.match_id
        )


# ---------------------------------------------------------------- the event log


@admin.register(Event)
class EventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The log, read-only: events are never added, changed or deleted here."""

    list_display = ("seq", "match_link", "type", "seat_name", "payload_summary", "created_at")
    list_display_links = ("seq",)
    list_filter = ("type",)
    search_fields = ("=match__id",)
    search_help_text = "A match id: its whole log in order."
    list_select_related = ("match",)
    ordering = ("match", "seq")
    list_per_page = 200
    show_full_result_count = False
    fields = ("match_link", "seq", "type", "seat_name", "payload_pretty", "created_at")
    readonly_fields = ("match_link", "seat_name", "payload_pretty")

    def get_queryset(self, request: HttpRequest):
        # Whether each event's hand has been revealed: a hand's reveal is the first
        # hand_revealed after any of its events.
        later_reveal = Event.objects.filter(
            match=OuterRef("match"), type=V.HAND_REVEALED, seq__gt=OuterRef("seq")
        )
        return super().get_queryset(request).annotate(revealed=Exists(later_reveal))

    @admin.display(description="match")
    def match_link(self, obj: Event) -> str:
        return format_html(
            '<a href="{}">{}</a>', admin_url("match_change", obj.match_id), obj.match_id
        )

    @admin.display(description="seat", ordering="seat")
    def seat_name(self, obj: Event) -> str:
        return seat_name(obj.seat) if obj.seat is not None else ""

    @admin.display(description="payload")
    def payload_summary(self, obj: Event) -> str:
        text = json.dumps(admin_payload(obj, obj.revealed), sort_keys=True)
        return text if len(text) <= 120 else text[:117] + "..."

    @admin.display(description="payload")
    def payload_pretty(self, obj: Event) -> str:
        payload = admin_payload(obj, obj.revealed)
        return format_html("<pre>{}</pre>", json.dumps(payload, indent=2, sort_keys=True))


@admin.register(MatchReview)
class MatchReviewAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Each match's review: pending, ready or failed (with the error), how long it took.
    Rebuild one with `manage.py review_match <match id>` (docs/bots.md, "Match review")."""

    list_display = (
        "__str__",
        "status",
        "code",
        "attempts",
        "version",
        "took",
        "requested_at",
        "built_at",
    )
    list_filter = ("status", "code")
    fields = (
        "match_link",
        "status",
        "code",
        "attempts",
        "version",
        "took",
        "error",
        "requested_at",
        "built_at",
        "body_pretty",
    )
    readonly_fields = fields
    ordering = ("-requested_at",)

    @admin.display(description="match")
    def match_link(self, obj: MatchReview) -> str:
        """Back to the match, whose page shows the review readably (and its hands, each
        mistake on its move)."""
        return format_html(
            '<a href="{}">{}</a> (the review is shown there, each mistake on its hand)',
            admin_url("match_change", obj.match_id),
            obj.match_id,
        )

    @admin.display(description="took", ordering="seconds")
    def took(self, obj: MatchReview) -> str:
        return seconds_text(obj.seconds)

    @admin.display(description="body")
    def body_pretty(self, obj: MatchReview) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.body, indent=2, sort_keys=True))
