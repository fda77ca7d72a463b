"""The REST API: one view per operation, each authenticate, validate, call, answer."""

import hashlib
import json
import re
from base64 import b64decode
from collections.abc import Callable
from contextlib import nullcontext
from datetime import UTC
from typing import Any
from urllib import parse

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from knox import views as knox_views
from knox.views import LoginView as KnoxLoginView
from rest_framework import serializers
from rest_framework.pagination import Cursor, CursorPagination, PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param
from rest_framework.views import APIView

from games import engine as E
from games.engine import LONE_LEAD_CHOICES, TARGET_SCORE_MAX, TARGET_SCORE_MIN
from games.http.api_classes import TokenAuthentication
from games.http.api_schema import (
    ACTION_REQUESTS,
    CARDS,
    HintSerializer,
    LoggedEventField,
    MatchEventField,
    OptionsSerializer,
    PlayerViewSerializer,
    ReviewSerializer,
    SeatSerializer,
    SpectatorViewSerializer,
)
from games.http.api_support import (
    JsonErrorsMixin,
    StrictBooleanField,
    StrictSerializer,
    conditional,
    created,
)
from games.http.throttling import ServiceThrottle, WritesThrottle
from games.live import presence
from games.log import replica
from games.log.levels import LEVELS
from games.models import (
    GUEST_PREFIX,
    MatchStatus,
    Opposition,
    RematchStatus,
    SeatKind,
    Visibility,
)
from games.people import accounts, history, quickplay, rematch
from games.play import hints, reviews, selectors, services
from games.play.errors import BadInput, Conflict

# A match in these no longer changes.
ENDED = (MatchStatus.FINISHED, MatchStatus.ABANDONED)

# Visible ASCII, no spaces: a UUID, base64 or hex token all fit.
IDEMPOTENCY_KEY = re.compile(r"[!-~]{1,128}")


class QuickplayInfoSerializer(serializers.Serializer):
    computers = serializers.BooleanField(help_text="Computer players take the open seats.")
    level = serializers.ChoiceField(choices=LEVELS, allow_null=True)
    starts_at = serializers.CharField(
        allow_null=True,
        help_text="While the table waits: when computer players take its open seats.",
    )

    class Meta:
        ref_name = "QuickplayInfo"


class RematchAnswerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    answer = serializers.ChoiceField(choices=[rematch.PENDING, rematch.ACCEPTED, rematch.DECLINED])

    class Meta:
        ref_name = "RematchAnswer"


class RematchSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=RematchStatus.choices)
    offered_by = serializers.CharField()
    expires_at = serializers.CharField()
    answers = RematchAnswerSerializer(many=True)
    match = serializers.UUIDField(allow_null=True, help_text="The rematch, once it started.")

    class Meta:
        ref_name = "Rematch"


class SocialFieldsSerializer(serializers.Serializer):
    """What quick play, rematches and spectators add to a match."""

    visibility = serializers.ChoiceField(
        choices=Visibility.choices, help_text="public: anyone signed in may watch it."
    )
    watching = serializers.IntegerField(min_value=0, help_text="Spectators watching live.")
    quickplay = QuickplayInfoSerializer(allow_null=True, help_text="A quick play table's.")
    rematch_of = serializers.UUIDField(
        allow_null=True, help_text="The finished match this is the rematch of."
    )
    rematch = RematchSerializer(
        allow_null=True, help_text="A finished match's rematch offer, and the rematch."
    )


class MatchSummarySerializer(SocialFieldsSerializer):
    """A match, seen by no seat in particular."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    seq = serializers.IntegerField(help_text="The newest event's sequence number.")
    options = OptionsSerializer()
    hints_allowed = StrictBooleanField()
    turn_seconds = serializers.IntegerField(
        allow_null=True, help_text="The turn timer, if the match has one."
    )
    turn_deadline = serializers.CharField(
        allow_null=True, help_text="When the person to act is replaced by a computer player."
    )
    scores = serializers.ListField(child=serializers.IntegerField())
    winner_team = serializers.IntegerField(allow_null=True)
    hands_played = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    created_at = serializers.CharField()
    finished_at = serializers.CharField(allow_null=True)


class MatchViewSerializer(MatchSummarySerializer):
    """A match and what the caller's seat (or a spectator) sees of it."""

    you = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Your seat, 0 south to 3 east (null once you left, or as a spectator).",
    )
    view = PlayerViewSerializer(
        required=False,
        help_text="The rules engine's view of your seat (docs/rules.md): your cards, the "
        "bidding, trump, tricks, scores, whose turn, and your legal actions. Absent once "
        "you left the match, and for a spectator.",
    )
    spectator_view = SpectatorViewSerializer(
        required=False,
        help_text="A public match you have no seat at: what a spectator sees (the bidding, "
        "the cards played, tricks, scores, whose turn; no one's cards). Instead of `view`.",
    )


class ReplayedHandSerializer(serializers.Serializer):
    hand = serializers.IntegerField(min_value=1)
    dealer = serializers.IntegerField(min_value=0, max_value=3)
    deck = serializers.ListField(child=serializers.ChoiceField(choices=CARDS))
    salt = serializers.CharField()
    commitment = serializers.CharField(help_text='sha256 of "<salt>:<deck>".')
    commitment_verified = serializers.BooleanField()
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.ChoiceField(choices=CARDS)),
        help_text="Each seat's five cards as dealt, south to east.",
    )
    kitty = serializers.ListField(child=serializers.ChoiceField(choices=CARDS))
    events = serializers.ListField(child=LoggedEventField())

    class Meta:
        ref_name = "ReplayedHand"


class ReplaySerializer(MatchSummarySerializer):
    """A finished match, hand by hand."""

    setup = serializers.ListField(
        child=LoggedEventField(), help_text="The events before the first deal."
    )
    hands = ReplayedHandSerializer(many=True)

    class Meta:
        ref_name = "Replay"


# Every page of a list links to the pages beside it (a comment, not a docstring: that
# would become each page's description in the schema).
class PageLinksSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page, if any.")
    previous = serializers.URLField(allow_null=True, help_text="The page before, if any.")


class CountSerializer(serializers.Serializer):
    count = serializers.IntegerField()


class MatchPageSerializer(CountSerializer, PageLinksSerializer):
    results = MatchViewSerializer(many=True)


class PublicMatchPageSerializer(CountSerializer, PageLinksSerializer):
    results = MatchSummarySerializer(many=True)

    class Meta:
        ref_name = "PublicMatchPage"


# ---------------------------------------------------------------- accounts


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ServiceThrottle]
    throttle_scope = "auth"

    class RegisterInputSerializer(StrictSerializer):
        # No schema pattern: the rule is Python's Unicode \w, which a JSON Schema pattern
        # (ECMA regex, \w ASCII only) cannot state; it is checked on the stored form below.
        username = serializers.CharField(
            min_length=1,
            max_length=150,
            help_text="Letters (any alphabet), digits and . @ + - _ only. Stored "
            "NFKC-normalised (as 'ｂｏｂ' is 'bob'); unique ignoring case.",
        )
        password = serializers.CharField(min_length=8, max_length=128, write_only=True)

        def validate_username(self, value: str) -> str:
            # Every rule again on the stored form: NFKC can lengthen a name ("ﷺ" is 18
            # characters), change its characters, or make it start with the guest prefix.
            name = accounts.normalize_username(value)
            User = get_user_model()
            try:
                User._meta.get_field(User.USERNAME_FIELD).run_validators(name)
            except DjangoValidationError as exc:
                stored = f" (NFKC-normalised, as stored: {name!r})" if name != value else ""
                raise serializers.ValidationError([m + stored for m in exc.messages]) from exc
            if name.casefold().startswith(GUEST_PREFIX):
                raise serializers.ValidationError(
                    f"Names starting with {GUEST_PREFIX!r} are kept for guests."
                )
            return name

        def validate(self, data: dict[str, Any]) -> dict[str, Any]:
            try:
                validate_password(data["password"], get_user_model()(username=data["username"]))
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"password": exc.messages}) from exc
            return data

    @extend_schema(
        request=RegisterInputSerializer,
        responses={
            201: inline_serializer(
                "Registered",
                {"id": serializers.IntegerField(), "username": serializers.CharField()},
            ),
        },
        summary="Create an account",
        description=(
            "A username (stored NFKC-normalised, unique ignoring case) and a password (Django's "
            "password rules). Then sign in with POST /auth/token."
        ),
    )
    def post(self, request: Request) -> Response:
        serializer = self.RegisterInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = accounts.user_register(**serializer.validated_data)
        return created({"id": user.pk, "username": user.get_username()}, "me")


class TokenApi(KnoxLoginView):
    """A new token for one device; revoke it with /auth/logout."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ServiceThrottle]
    throttle_scope = "auth"

    class TokenInputSerializer(StrictSerializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, write_only=True)

        def validate_username(self, value: str) -> str:
            return accounts.normalize_username(value)  # as registering stored it

    def get_authenticate_header(self, request: Request) -> str:
        return "Token"  # so that a wrong password is a 401, as for any other credential

    @extend_schema(
        request=TokenInputSerializer,
        responses={
            200: inline_serializer(
                "Token", {"token": serializers.CharField(), "expiry": serializers.CharField()}
            ),
        },
        summary="Sign in: a token for this device",
        description=(
            "A new token for this device, sent as `Authorization: Token <token>`. Wrong passwords"
            " are limited per username (429). A user keeps at most 50 tokens: one more retires "
            "the least used."
        ),
    )
    def post(self, request: Request, format: Any = None) -> Response:
        serializer = self.TokenInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        request.user = accounts.sign_in(request=request, **serializer.validated_data)
        return super().post(request, format)

    def get_token_limit_per_user(self) -> None:
        return None  # never knox's undocumented 403: create_token retires the oldest

    def create_token(self) -> tuple[Any, str]:
        return accounts.device_token_create(self.request.user)


# ---------------------------------------------------------------- matches


class SeatInputSerializer(StrictSerializer):
    # The choices are the domain's; services.SeatSpec.checked makes the rules.
    kind = serializers.ChoiceField(choices=services.SEAT_SPEC_KINDS)
    level = serializers.ChoiceField(choices=LEVELS, required=False)

    def validate(self, data: dict[str, Any]) -> services.SeatSpec:
        try:
            return services.SeatSpec(data["kind"], data.get("level", "")).checked()
        except BadInput as exc:
            field = "level" if exc.code == "invalid_level" else "kind"
            raise serializers.ValidationError({field: [exc.detail]}) from exc


class OptionsInputSerializer(StrictSerializer):
    # The engine's options and their ranges (games/engine/options.py); Options checks them.
    target_score = serializers.IntegerField(
        min_value=TARGET_SCORE_MIN, max_value=TARGET_SCORE_MAX, required=False
    )
    stick_the_dealer = StrictBooleanField(required=False)
    going_alone = StrictBooleanField(required=False)
    lone_lead = serializers.ChoiceField(choices=LONE_LEAD_CHOICES, required=False)
    defending_alone = StrictBooleanField(required=False)
    joker = StrictBooleanField(required=False)
    joker_upcard = serializers.ChoiceField(choices=E.JOKER_UPCARD_CHOICES, required=False)
    farmers_hand = StrictBooleanField(required=False)
    farmers_hand_form = serializers.ChoiceField(choices=E.FARMERS_HAND_FORMS, required=False)
    no_ace_no_face_no_trump = StrictBooleanField(required=False)


# ---------------------------------------------------------------- lists, a page at a time


class PageSizes:
    """Every list's page: 20 items, or `page_size` up to 100."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class MatchPagination(PageSizes, PageNumberPagination):
    pass


class CursorPages(PageSizes, CursorPagination):
    """The cursor lists' pages. A cursor is taken only if the list could have given it:
    base64 of `o` (an offset, 0 to DRF's cutoff), `r` (0 or 1) and `p` (the position: every
    cursor list here is ordered by a date-time first), each at most once; anything else is
    400 invalid_cursor. DRF's own decoding answered a 404 for some, the first page for
    non-base64 (`!!!`) and a 500 for a position that is not a date-time (issue 33)."""

    MAX_LENGTH = 512  # a cursor the lists give is under 100 characters

    @classmethod
    def parse(cls, encoded: str) -> Cursor | None:
        """The cursor `encoded` stands for, or None if no list gives it."""
        if not encoded or len(encoded) > cls.MAX_LENGTH:
            return None
        try:
            text = b64decode(encoded.encode("ascii"), validate=True).decode("ascii")
            pairs = parse.parse_qsl(text, keep_blank_values=True, strict_parsing=True)
        except ValueError:  # not ASCII, not base64, not a query string
            return None
        tokens = dict(pairs)
        if not tokens or len(tokens) != len(pairs) or not set(tokens) <= {"o", "r", "p"}:
            return None
        offset, reverse = tokens.get("o", "0"), tokens.get("r", "0")
        position = tokens.get("p")
        if not (offset.isascii() and offset.isdigit() and int(offset) <= cls.offset_cutoff):
            return None
        if reverse not in ("0", "1") or (position is not None and not _a_moment(position)):
            return None
        return Cursor(offset=int(offset), reverse=reverse == "1", position=position)

    @classmethod
    def check(cls, request: Request) -> None:
        """400 invalid_cursor unless the request's cursor, if any, is one a list gives
        (before the query's shape is checked: a blank or long cursor is this error too)."""
        values = request.query_params.getlist(cls.cursor_query_param)
        if any(cls.parse(value) is None for value in values):
            raise BadInput(
                "invalid_cursor", "The cursor is not one this list gave: start again without it."
            )

    def decode_cursor(self, request: Request) -> Cursor | None:
        self.check(request)
        encoded = request.query_params.get(self.cursor_query_param)
        return None if encoded is None else self.parse(encoded)

    def encode_cursor(self, cursor: Cursor) -> str:
        if cursor == Cursor(offset=0, reverse=False, position=None):
            # The first page (DRF would encode it as an empty cursor, which is refused).
            return remove_query_param(self.base_url, self.cursor_query_param)
        return super().encode_cursor(cursor)


def cursor_field() -> serializers.CharField:
    """A cursor list's `cursor` query parameter (CursorPages.check has checked it)."""
    return serializers.CharField(
        max_length=CursorPages.MAX_LENGTH, required=False, help_text="From `next` or `previous`."
    )


def _a_moment(text: str) -> bool:
    """`text` is a date-time with its offset from UTC, as a cursor's position is."""
    try:
        moment = parse_datetime(text)
        if moment is None or moment.tzinfo is None:
            return False
        moment.astimezone(UTC)  # in range in UTC too (the database compares in UTC)
    except (ValueError, OverflowError):  # an offset of +99:00; a year out of range in UTC
        return False
    return True


class PagedFilterSerializer(StrictSerializer):
    """A list's query: its filters, and how it pages (`page_size`; `page` or `cursor`, as
    each list declares), which are the pagination's, not filters."""

    PAGING = ("page", "cursor", "page_size")

    page_size = serializers.IntegerField(
        min_value=1, max_value=PageSizes.max_page_size, required=False
    )


class PagedListApi(APIView):
    """A GET of a list: its query checked by `Filters`, its rows cut into pages by `pages`."""

    Filters: type[PagedFilterSerializer]
    pages: type[PageNumberPagination | CursorPagination]

    def filters(self, request: Request) -> dict[str, Any]:
        """The query's filters, checked (400 invalid_input), without the paging fields."""
        if issubclass(self.pages, CursorPages):
            self.pages.check(request)
        query = self.Filters(data=request.query_params)
        query.is_valid(raise_exception=True)
        return {k: v for k, v in query.validated_data.items() if k not in query.PAGING}

    def page(self, request: Request, rows: Any, render: Callable[[list], list]) -> Response:
        """The page the request asks for (a page past the last, or a cursor the list did
        not give, is refused by the pagination), each row as `render` shows them."""
        paginator = self.pages()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(render(page))


class MatchListCreateApi(PagedListApi):
    throttle_classes = [WritesThrottle]  # creating, not listing
    throttle_scope = "matches"

    class MatchListCreateInputSerializer(StrictSerializer):
        seats = SeatInputSerializer(
            many=True,
            min_length=4,
            max_length=4,
            help_text="Four seats, south, west, north, east; exactly one of kind 'me'.",
        )
        options = OptionsInputSerializer(required=False)
        hints_allowed = StrictBooleanField(required=False, default=True)
        turn_seconds = serializers.IntegerField(
            min_value=services.MIN_TURN_SECONDS,
            max_value=services.MAX_TURN_SECONDS,
            required=False,
            allow_null=True,
            help_text="A turn timer: a person who does not act in time is played for by a "
            "computer player until they take the seat back (POST .../return). None: off.",
        )
        visibility = serializers.ChoiceField(
            choices=Visibility.choices,
            required=False,
            default=Visibility.PRIVATE,
            help_text="private (only the seated see it) or public (anyone signed in may "
            "watch it, seeing no one's cards).",
        )

        def validate_seats(self, seats: list[services.SeatSpec]) -> list[services.SeatSpec]:
            try:
                return services.seats_check(seats)
            except BadInput as exc:
                raise serializers.ValidationError(exc.detail) from exc

    class MatchListCreateFilterSerializer(PagedFilterSerializer):
        status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
        page = serializers.IntegerField(min_value=1, required=False)

    Filters, pages = MatchListCreateFilterSerializer, MatchPagination

    @extend_schema(
        parameters=[MatchListCreateFilterSerializer],
        responses={200: MatchPageSerializer},
        operation_id="matches_list",
        summary="Your matches, newest first",
        description=(
            "The matches you sit at (or sat at), newest first, paged (`page`, `page_size` up to "
            "100; a page past the last is 404), optionally by status."
        ),
    )
    def get(self, request: Request) -> Response:
        filters = self.filters(request)
        matches = selectors.matches_for_user(user=request.user, **filters)
        # Matches that are over no longer change: that list may lag (the replica, if any).
        reads = replica.lagging_reads if filters.get("status") in ENDED else nullcontext
        with reads():
            return self.page(
                request,
                matches,
                lambda page: [selectors.match_summary(m, _seat_of(m, request.user)) for m in page],
            )

    @extend_schema(
        request=MatchListCreateInputSerializer,
        responses={201: MatchViewSerializer},
        summary="Create a match: you, open seats and computer players",
        description=(
            "Four seats (south, west, north, east), exactly one of kind `me`; the others `open` "
            "(for people to join) or `computer` with a level. The match starts when every seat is"
            " taken. Answers your view of the new match."
        ),
    )
    def post(self, request: Request) -> Response:
        serializer = self.MatchListCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        match = services.match_create(
            user=request.user,
            seats=data["seats"],
            options=data.get("options") or {},
            hints_allowed=data["hints_allowed"],
            turn_seconds=data.get("turn_seconds"),
            visibility=data["visibility"],
        )
        match, seat = selectors.match_for_user(match_id=match.pk, user=request.user)
        return created(selectors.player_view_get(match=match, seat=seat), "match", match.pk)


class GuestApi(APIView):
    """A new guest account and a token for it: play at once, no password to choose."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ServiceThrottle]
    throttle_scope = "guests"

    @extend_schema(
        request=None,
        responses={
            201: inline_serializer(
                "GuestToken",
                {
                    "token": serializers.CharField(),
                    "expiry": serializers.CharField(),
                    "username": serializers.CharField(),
                },
            ),
        },
        summary="Play as a guest: a new account and its token",
        description=(
            "A new guest account with a generated name and a token for it: play at once, no "
            "password."
        ),
    )
    def post(self, request: Request) -> Response:
        user, token, expiry = accounts.guest_create()
        return created(
            {"token": token, "expiry": expiry.isoformat(), "username": user.get_username()}, "me"
        )


class LogoutApi(knox_views.LogoutView):
    authentication_classes = [TokenAuthentication]  # knox's views name knox's own class

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Revoke this token",
        description="The token sent with this request stops working.",
    )
    def post(self, request: Request, format: Any = None) -> Response:
        return super().post(request, format)


class LogoutAllApi(knox_views.LogoutAllView):
    authentication_classes = [TokenAuthentication]

    @extend_schema(
        request=None,
        responses={204: None},
        summary="Revoke all your tokens",
        description="Every token of yours, on every device, stops working.",
    )
    def post(self, request: Request, format: Any = None) -> Response:
        return super().post(request, format)


def _seat_of(match: Any, user: Any) -> int | None:
    return next((s.index for s in match.seats.all() if s.user_id == user.pk), None)


class MatchDetailApi(APIView):
    @extend_schema(
        responses={200: MatchViewSerializer},
        summary="Your view of a match (or a spectator's of a public one)",
        description=(
            "The match summary and your seat's view: your cards, the upcard, bids, trump, "
            "tricks, scores, whose turn, and your legal actions (post one of them to "
            ".../actions). A public match you do not sit at: the spectator's view (no one's "
            "cards, `you` null); a private one: 404."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, seat = selectors.match_for_viewer(match_id=match_id, user=request.user)
        # The view changes with the log (seq), who is present and, at a public match, how
        # many watch (both in the cache), and once finished with its rematch offer (answers
        # and expiry change no event of this match): the tag is these and the seat (a
        # spectator's is "s-"), computed before (and instead of) the view.
        at = presence.at_match(match.pk, public=match.visibility == Visibility.PUBLIC)
        present = "".join(str(i) for i in sorted(at.present))
        tag = f"m{match.seq}.s{'-' if seat is None else seat}.p{present}.w{at.watching}"
        if match.status == MatchStatus.FINISHED:
            offer = json.dumps(selectors.rematch_body(match), sort_keys=True)
            tag += ".r" + hashlib.sha256(offer.encode()).hexdigest()[:16]
        return conditional(request, tag, lambda: selectors.view_get(match=match, seat=seat, at=at))


class MatchJoinApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "matches"

    class MatchJoinInputSerializer(StrictSerializer):
        seat = serializers.IntegerField(
            min_value=0, max_value=len(E.SEAT_NAMES) - 1, required=False
        )

    @extend_schema(
        request=MatchJoinInputSerializer,
        responses={200: MatchViewSerializer},
        summary="Take an open seat",
        description=(
            "Take the first open seat, or the one named by `seat`, of a match that waits for "
            "players (an invitation is its id). A private match that is no longer waiting is "
            "404 to anyone not seated at it; a public one is 409 `match_started` or "
            "`match_finished`. A seat at a quick play table is a place in its queue: you leave "
            "the table you waited at in another (one queue at a time)."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        serializer = self.MatchJoinInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        match, seat = quickplay.match_join(
            match_id=match_id,
            user=request.user,
            seat_index=serializer.validated_data.get("seat"),
        )
        return Response(selectors.player_view_get(match=match, seat=seat))


class MatchLeaveApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "matches"

    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer},
        summary="Leave: a computer player takes your seat",
        description=(
            "A computer player plays your seat from now on; you no longer see its cards (`you` is"
            " null). When the last person leaves, the match is abandoned."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        match = services.match_leave(match_id=match_id, user=request.user)  # 404 if no seat
        match.refresh_from_db()
        return Response({**selectors.match_summary(match), "you": None})


class MatchReturnApi(APIView):
    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer},
        summary="Take your seat back after your turn timer ran out",
        description=(
            "After your turn timer ran out a computer plays for you (`away` on your seat); this "
            "takes your seat back (acting does too)."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        services.seat_return(match_id=match_id, user=request.user)
        match, seat = selectors.match_for_user(match_id=match_id, user=request.user)
        return Response(selectors.player_view_get(match=match, seat=seat))


class MatchActionApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "actions"

    class MatchActionInputSerializer(StrictSerializer):
        # The shape only (the schema's); the engine parses the action (action_from_dict).
        type = serializers.ChoiceField(choices=E.ACTION_TYPES)
        card = serializers.CharField(max_length=3, required=False, help_text="e.g. 'JH', 'TD'")
        suit = serializers.CharField(max_length=1, required=False, help_text="C, D, H or S")
        alone = StrictBooleanField(required=False)
        expected_seq = serializers.IntegerField(
            min_value=0,
            required=False,
            help_text="The seq you last saw; 409 stale_sequence if the match has moved on.",
        )

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="Action",  # for the request: ActionRequest
            serializers=ACTION_REQUESTS,
            resource_type_field_name="type",
        ),
        examples=[
            OpenApiExample(name, value=value, request_only=True)
            for name, value in (
                ("pass", {"type": "pass", "expected_seq": 7}),
                ("order up", {"type": "order_up", "alone": False}),
                ("call hearts alone", {"type": "call", "suit": "H", "alone": True}),
                ("discard", {"type": "discard", "card": "9C"}),
                ("defend alone", {"type": "defend_alone"}),
                ("play", {"type": "play", "card": "JH", "expected_seq": 12}),
                ("name the joker's suit", {"type": "name_suit", "suit": "S"}),
                ("farm a nine", {"type": "farm", "card": "9C"}),
                ("call a redeal", {"type": "redeal"}),
            )
        ],
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 128,
                    "pattern": "^[!-~]+$",
                },
                OpenApiParameter.HEADER,
                required=False,
                description="Sending the same key again with the same request gives the first "
                "response again; with a different request (another body or another match), 422 "
                "idempotency_key_mismatch; while another of your requests uses it at another "
                "match, 409 idempotency_key_reused. 1 to 128 visible ASCII characters (else 400 "
                "invalid_idempotency_key).",
            )
        ],
        responses={200: MatchViewSerializer},
        summary="Bid, discard or play",
        description=(
            "One action of your seat's `legal_actions`: `pass`, `order_up`, `call`, `discard` "
            "or `play`; under the rules options that allow them, `defend_alone` "
            "(defending_alone), `name_suit` (joker: the dealer names the suit of a joker turned "
            "up), `farm` (farmers_hand: a card put under the upcard) and `redeal` "
            "(no_ace_no_face_no_trump, or a farmer's hand asking for a new deal). "
            "Send `expected_seq` (the seq you last saw) to be refused "
            "with 409 stale_sequence rather than act on a table that moved, and an `Idempotency-"
            "Key` to retry safely. A rule broken is 400 (malformed), 409 (not your turn) or 422 "
            "(illegal), with `seq`. Answers your view after the action."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        # The caller's seat is checked under the match's row lock (action_submit reads
        # the match and its seats in one query); a request refused for its shape checks
        # it first, so that a match not yours is a 404 whatever the body.
        serializer = self.MatchActionInputSerializer(data=request.data)
        key = request.headers.get("Idempotency-Key")
        key_ok = key is None or IDEMPOTENCY_KEY.fullmatch(key)
        if not serializer.is_valid() or not key_ok:
            selectors.match_for_user(match_id=match_id, user=request.user)
            serializer.is_valid(raise_exception=True)
            raise BadInput(
                "invalid_idempotency_key",
                "An Idempotency-Key is 1 to 128 visible ASCII characters (no spaces), e.g. a UUID.",
            )
        action = dict(serializer.validated_data)
        expected_seq = action.pop("expected_seq", None)
        result = services.action_submit(
            match_id=match_id,
            action=action,
            expected_seq=expected_seq,
            idempotency_key=key,
            user=request.user,
        )
        response = Response(result.body, status=result.status)
        if result.replayed:
            response["Idempotent-Replayed"] = "true"  # as Stripe: the first answer, again
        return response


class MatchEventsApi(APIView):
    class MatchEventsFilterSerializer(StrictSerializer):
        # At most a PostgreSQL bigint: a larger number cannot be compared with seq on SQLite.
        after = serializers.IntegerField(
            min_value=0, max_value=2**63 - 1, required=False, default=0
        )

    @extend_schema(
        parameters=[MatchEventsFilterSerializer],
        responses={
            200: inline_serializer(
                "Events",
                {
                    "seq": serializers.IntegerField(help_text="The match's newest event."),
                    "events": serializers.ListField(child=MatchEventField()),
                },
            ),
        },
        summary="The log as you may see it",
        description=(
            "The match's events after `after` (a seq), each as your seat may see it: before the "
            "match is finished a deal shows no deck or salt but your cards, and a discard its "
            "card to the dealer alone. A spectator of a public match sees no cards of a deal "
            "and no discard."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, seat = selectors.match_for_viewer(match_id=match_id, user=request.user)
        filters = self.MatchEventsFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        after = filters.validated_data["after"]
        return conditional(
            request,
            f"e{match.seq}.s{seat}.a{after}",
            lambda: {
                "seq": match.seq,
                "events": selectors.events_for_seat(match=match, seat=seat, after=after),
            },
        )


class MatchReplayApi(APIView):
    @extend_schema(
        responses={
            200: ReplaySerializer,
        },
        summary="A finished match, every hand with its deal",
        description=(
            "Every hand of a finished match: its deck, salt and commitment (and whether they "
            "agree), each seat's cards, the kitty, and its events as logged. 409 "
            "match_not_finished before the end."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, _seat = selectors.match_for_viewer(match_id=match_id, user=request.user)
        if match.status != MatchStatus.FINISHED:
            raise Conflict("match_not_finished", "A replay is available once the match is over.")
        # The same for every seat, and final: the match's last seq says it all.
        return conditional(request, f"r{match.seq}", lambda: selectors.replay_get(match=match))


class PublicMatchesApi(PagedListApi):
    class PublicMatchesFilterSerializer(PagedFilterSerializer):
        page = serializers.IntegerField(min_value=1, required=False)

    Filters, pages = PublicMatchesFilterSerializer, MatchPagination

    @extend_schema(
        parameters=[PublicMatchesFilterSerializer],
        responses={200: PublicMatchPageSerializer},
        operation_id="matches_public_list",
        summary="Public matches being played now (to watch)",
        description=(
            "Public matches being played now, the most recently moved first, paged like GET "
            "/matches. Watch one with GET /matches/{id} (and its events and stream): you see "
            "what a spectator may, no one's cards."
        ),
    )
    def get(self, request: Request) -> Response:
        self.filters(request)  # paging only: checked all the same
        rows = selectors.public_matches()
        return self.page(request, rows, lambda page: [selectors.match_summary(m) for m in page])


# ---------------------------------------------------------------- quick play


class QuickplayApi(APIView):
    throttle_classes = [WritesThrottle]
    throttle_scope = "matches"

    class QuickplayInputSerializer(StrictSerializer):
        preset = serializers.ChoiceField(
            choices=list(quickplay.PRESETS),
            required=False,
            default=quickplay.DEFAULT_PRESET,
            help_text="The rules: "
            + "; ".join(
                f"{name} {opts or 'the defaults'}" for name, opts in quickplay.PRESETS.items()
            ),
        )
        computers = StrictBooleanField(
            required=False,
            default=True,
            help_text="Whether computer players take the seats still open after the wait.",
        )
        level = serializers.ChoiceField(
            choices=LEVELS, required=False, default=quickplay.DEFAULT_LEVEL
        )
        turn_seconds = serializers.IntegerField(
            min_value=services.MIN_TURN_SECONDS,
            max_value=services.MAX_TURN_SECONDS,
            required=False,
            allow_null=True,
            default=None,
        )

    @extend_schema(
        request=QuickplayInputSerializer,
        responses={200: MatchViewSerializer},
        operation_id="quickplay_create",
        summary="Quick play: a seat at a public table with these options",
        description=(
            "A seat at the public table waiting for people who asked for the same options "
            "(rules preset, computer players or not and their level, turn timer), or a new one."
            " Four people start it; otherwise, after the wait (`quickplay.starts_at`), computer "
            "players take the open seats if you asked for them. You wait in one queue at a "
            "time, even when you ask several times at once: asking again with the same options "
            "answers the same table, and with other options moves you to their queue (your "
            "seat at the table you waited at is open again). Answers your view of it."
        ),
    )
    def post(self, request: Request) -> Response:
        serializer = self.QuickplayInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        match, seat = quickplay.quickplay_join(
            user=request.user, ask=quickplay.Ask(**serializer.validated_data)
        )
        return Response(selectors.player_view_get(match=match, seat=seat))

    @extend_schema(
        request=None,
        responses={
            200: inline_serializer(
                "QuickplayLeft", {"left": serializers.ListField(child=serializers.UUIDField())}
            )
        },
        operation_id="quickplay_destroy",
        summary="Leave the quick play queue",
        description=(
            "Before the table starts: your seat is open again (a table nobody waits at any "
            "more is abandoned). 409 not_in_queue if you wait at none (once it started, leave "
            "the match with POST /matches/{id}/leave)."
        ),
    )
    def delete(self, request: Request) -> Response:
        return Response({"left": quickplay.quickplay_leave(user=request.user)})


# ---------------------------------------------------------------- rematch


class RematchOfferApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "matches"

    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer},
        operation_id="matches_rematch_create",
        summary="Offer a rematch (or accept the one on offer)",
        description=(
            "At a finished match you sat at: a new match with the same seats, rules and timer, "
            "the dealer moved on one seat. Every person must accept (POST .../rematch/accept); "
            "computer seats accept at once. It starts when all have; `rematch.match` is its id."
            " The offer expires after a while. Answers the finished match's view."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        rematch.rematch_offer(match_id=match_id, user=request.user)
        return _finished_view(match_id, request)


class RematchAnswerApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "matches"
    accept = True

    @extend_schema(request=None, responses={200: MatchViewSerializer})
    def post(self, request: Request, match_id: str) -> Response:
        rematch.rematch_answer(match_id=match_id, user=request.user, accept=self.accept)
        return _finished_view(match_id, request)


class RematchAcceptApi(RematchAnswerApi):
    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer},
        operation_id="matches_rematch_accept_create",
        summary="Accept the rematch on offer",
        description="When the last person accepts, the rematch starts (`rematch.match`).",
    )
    def post(self, request: Request, match_id: str) -> Response:
        return super().post(request, match_id)


class RematchDeclineApi(RematchAnswerApi):
    accept = False

    @extend_schema(
        request=None,
        responses={200: MatchViewSerializer},
        operation_id="matches_rematch_decline_create",
        summary="Decline the rematch on offer",
        description="The offer ends (anyone may offer again).",
    )
    def post(self, request: Request, match_id: str) -> Response:
        return super().post(request, match_id)


def _finished_view(match_id: str, request: Request) -> Response:
    match, seat = selectors.match_for_user(match_id=match_id, user=request.user)
    return Response(selectors.player_view_get(match=match, seat=seat))


class MatchReviewApi(APIView):
    @extend_schema(
        responses={200: ReviewSerializer, 202: ReviewSerializer},
        summary="A finished match's review: each hand's biggest mistakes, each person's accuracy",
        description=(
            "Every decision of every person, valued from what their seat knew then (the hidden "
            "cards dealt many ways that agree with it) and with all cards shown. Per hand the "
            "biggest mistakes, each with the step it happened on (`seq`) and a sentence; per "
            "person an accuracy (decisions within 0.1 point of the best) and the points given "
            "up. Worked out in the background when the match ends: 202 with code "
            "`review_pending` (and Retry-After) until it is ready. For the people seated at the "
            "match and, at a public match, anyone signed in (404 to others, as every match "
            "endpoint); 409 match_not_finished before the end."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        status, body = reviews.review_get(match_id=match_id, user=request.user)
        headers = {"Retry-After": "2"} if status == 202 else None
        return Response(body, status=status, headers=headers)


# ---------------------------------------------------------------- hints


class HintRequestApi(APIView):
    throttle_classes = [ServiceThrottle]
    throttle_scope = "actions"

    @extend_schema(
        request=None,
        responses={202: HintSerializer},
        summary="Ask for a hint on your turn; poll /hints/{id} for it",
        description=(
            "A computer player's suggestion for your turn, worked out in the background: poll GET"
            " /hints/{id} until its status is done (with `action` and `explanation`) or failed "
            "(with `code`)."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        hint = hints.hint_request(match_id=match_id, user=request.user)
        return created(hints.hint_body(hint), "hint", hint.pk, status=202)


class HintDetailApi(APIView):
    @extend_schema(
        responses={200: HintSerializer},
        summary="A hint you asked for",
        description="Its status (pending, done or failed), and the suggested action once done.",
    )
    def get(self, request: Request, hint_id: str) -> Response:
        return Response(hints.hint_body(hints.hint_get(hint_id=hint_id, user=request.user)))


# ---------------------------------------------------------------- records and ratings
# (games/log/records.py writes them, games/people/history.py reads them and says who sees what)


class RatingChangeSerializer(serializers.Serializer):
    before = serializers.FloatField(help_text="The rating (mu - 3 sigma) before the match.")
    after = serializers.FloatField(help_text="...and after it.")
    change = serializers.FloatField(help_text="after - before.")
    mu = serializers.FloatField(help_text="openskill's mu after the match.")
    sigma = serializers.FloatField(help_text="openskill's sigma after the match.")

    class Meta:
        ref_name = "RatingChange"


class RecordPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    name = serializers.ChoiceField(choices=E.SEAT_NAMES)
    kind = serializers.ChoiceField(
        choices=["human", "computer"], help_text="As the seat was when the match started."
    )
    username = serializers.CharField(allow_null=True)
    level = serializers.ChoiceField(choices=LEVELS, allow_null=True)
    left = serializers.BooleanField(help_text="The person left before the end.")

    class Meta:
        ref_name = "RecordPlayer"


class HistoryItemSerializer(serializers.Serializer):
    """One finished match in a person's history: what a result table shows."""

    match = serializers.UUIDField()
    finished_at = serializers.CharField()
    options = OptionsSerializer()
    seat = serializers.IntegerField(min_value=0, max_value=3)
    team = serializers.IntegerField(min_value=0, max_value=1)
    result = serializers.ChoiceField(choices=["won", "lost"])
    scores = serializers.ListField(
        child=serializers.IntegerField(min_value=0), help_text="[their team's, the other's]."
    )
    hands = serializers.IntegerField(min_value=0)
    opposition = serializers.ChoiceField(choices=Opposition.choices)
    left = serializers.BooleanField(help_text="They left before the end.")
    players = RecordPlayerSerializer(many=True)
    rating = RatingChangeSerializer(
        allow_null=True, help_text="Their rating change (null: not rated, e.g. a guest)."
    )

    class Meta:
        ref_name = "HistoryItem"


class HistoryPageSerializer(PageLinksSerializer):
    results = HistoryItemSerializer(many=True)

    class Meta:
        ref_name = "HistoryPage"


class HistoryPagination(CursorPages):
    ordering = ("-finished_at", "-id")


def _yes_no(help_text: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=["true", "false"], required=False, help_text=help_text)


class UserMatchesApi(PagedListApi):
    class UserMatchesFilterSerializer(PagedFilterSerializer):
        result = serializers.ChoiceField(choices=["won", "lost"], required=False)
        opponent = serializers.CharField(
            max_length=150, required=False, help_text="A person who sat against them."
        )
        partner = serializers.CharField(
            max_length=150, required=False, help_text="A person who sat with them."
        )
        opposition = serializers.ChoiceField(choices=Opposition.choices, required=False)
        since = serializers.DateField(required=False, help_text="Finished on or after (UTC).")
        until = serializers.DateField(required=False, help_text="Finished on or before (UTC).")
        target_score = serializers.IntegerField(
            min_value=TARGET_SCORE_MIN, max_value=TARGET_SCORE_MAX, required=False
        )
        stick_the_dealer = _yes_no("Played with stick the dealer, or without.")
        going_alone = _yes_no("Played with going alone allowed, or not.")
        lone_lead = serializers.ChoiceField(choices=LONE_LEAD_CHOICES, required=False)
        defending_alone = _yes_no("Played with defending alone allowed, or not.")
        cursor = cursor_field()

    Filters, pages = UserMatchesFilterSerializer, HistoryPagination
    RULES = ("target_score", "stick_the_dealer", "going_alone", "lone_lead", "defending_alone")

    @extend_schema(
        parameters=[UserMatchesFilterSerializer],
        responses={200: HistoryPageSerializer},
        summary="A person's finished matches, newest first",
        description=(
            "Their finished matches (abandoned ones have no result and are not listed), newest "
            "first, a page at a time: follow `next` (a cursor; `page_size` up to 100). Filters:"
            " the result, a person who sat against or with them, who they played against "
            "(`opposition`), the days (UTC) and the rules. Each shows what a result table "
            "shows, never cards. A registered person's history is shown to anyone signed in;"
            " a guest's to that guest alone (404 user_not_found to others)."
        ),
    )
    def get(self, request: Request, username: str) -> Response:
        data = self.filters(request)
        rules = {k: data.pop(k) for k in self.RULES if k in data}
        for name, value in rules.items():
            if value in ("true", "false"):
                rules[name] = value == "true"
        user = history.user_for_record(username=username, viewer=request.user)
        rows = history.history(user=user, rules=rules, **data)
        with replica.lagging_reads():  # the user on the primary: a new account is found
            return self.page(request, rows, history.history_items)


class FiguresSerializer(serializers.Serializer):
    matches = serializers.IntegerField(min_value=0)
    wins = serializers.IntegerField(min_value=0)
    losses = serializers.IntegerField(min_value=0)
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / matches")
    hands = serializers.IntegerField(min_value=0, help_text="Hands dealt (thrown in too).")
    points = serializers.IntegerField(min_value=0, help_text="Their team's points.")
    points_per_hand = serializers.FloatField(allow_null=True)
    made_trump = serializers.IntegerField(min_value=0, help_text="Hands they made trump.")
    made_trump_rate = serializers.FloatField(allow_null=True, help_text="made_trump / hands")
    euchred = serializers.IntegerField(min_value=0, help_text="...and were euchred.")
    euchred_rate = serializers.FloatField(allow_null=True, help_text="euchred / made_trump")
    alone_tried = serializers.IntegerField(min_value=0, help_text="Lone hands they called.")
    alone_made = serializers.IntegerField(min_value=0, help_text="...not euchred.")
    alone_made_rate = serializers.FloatField(allow_null=True)

    class Meta:
        ref_name = "Figures"


class RatingSerializer(serializers.Serializer):
    username = serializers.CharField()
    rating = serializers.FloatField(help_text="mu - 3 sigma: what is ranked (a newcomer's is 0).")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    matches = serializers.IntegerField(min_value=0, help_text="Rated matches.")
    place = serializers.IntegerField(min_value=1, help_text="On the leaderboard.")

    class Meta:
        ref_name = "Rating"


class StatsSerializer(serializers.Serializer):
    username = serializers.CharField()
    guest = serializers.BooleanField(help_text="A guest is never rated.")
    rating = RatingSerializer(allow_null=True, help_text="Null until a rated match.")
    all = FiguresSerializer(help_text="Every finished match.")
    people = FiguresSerializer(help_text="Against two people.")
    random = FiguresSerializer(help_text="Against two computers: random.")
    easy = FiguresSerializer(help_text="Against two computers: easy.")
    medium = FiguresSerializer(help_text="Against two computers: medium.")
    hard = FiguresSerializer(help_text="Against two computers: hard.")
    mixed = FiguresSerializer(help_text="Against a person and a computer, or two levels.")

    class Meta:
        ref_name = "Stats"


class UserStatsApi(APIView):
    @extend_schema(
        responses={200: StatsSerializer},
        summary="A person's statistics and rating",
        description=(
            "Over their finished matches, in all and by who they played against (two people, "
            "two computers of one level, or mixed): matches and win rate, points per hand, how"
            " often they made trump and were euchred, lone hands called and made; and their "
            "rating. Who may see it: as for their history."
        ),
    )
    def get(self, request: Request, username: str) -> Response:
        user = history.user_for_record(username=username, viewer=request.user)
        with replica.lagging_reads():
            return Response(history.stats(user=user))


class LeaderboardEntrySerializer(serializers.Serializer):
    place = serializers.IntegerField(min_value=1)
    username = serializers.CharField()
    rating = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    matches = serializers.IntegerField(min_value=0)

    class Meta:
        ref_name = "LeaderboardEntry"


class LeaderboardApi(APIView):
    class LeaderboardFilterSerializer(StrictSerializer):
        limit = serializers.IntegerField(min_value=1, max_value=100, required=False, default=20)

    @extend_schema(
        parameters=[LeaderboardFilterSerializer],
        responses={
            200: inline_serializer(
                "Leaderboard",
                {
                    "count": serializers.IntegerField(help_text="Rated people."),
                    "top": LeaderboardEntrySerializer(many=True),
                    "you": RatingSerializer(allow_null=True, help_text="Null: not rated yet."),
                    "newcomer": serializers.FloatField(help_text="A newcomer's rating."),
                },
            )
        },
        summary="The best rated people, and your place",
        description=(
            "The `limit` (up to 100) best ratings (mu - 3 sigma, then more matches, then the "
            "name), and your own place. Only registered people who finished a match are rated."
        ),
    )
    def get(self, request: Request) -> Response:
        filters = self.LeaderboardFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        with replica.lagging_reads():
            board = history.leaderboard(viewer=request.user, limit=filters.validated_data["limit"])
        return Response(board)


class MatchRatingsApi(APIView):
    @extend_schema(
        responses={
            200: inline_serializer(
                "MatchRatings",
                {
                    "changes": inline_serializer(
                        "SeatRatingChange",
                        {
                            "seat": serializers.IntegerField(min_value=0, max_value=3),
                            "username": serializers.CharField(),
                            "before": serializers.FloatField(),
                            "after": serializers.FloatField(),
                            "change": serializers.FloatField(),
                            "mu": serializers.FloatField(),
                            "sigma": serializers.FloatField(),
                        },
                        many=True,
                    )
                },
            )
        },
        summary="What a finished match did to its players' ratings",
        description=(
            "Each rated person's rating before and after the match, by seat (empty until the "
            "match is finished, and for guests). For the people seated at it."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, _seat = selectors.match_for_user(match_id=match_id, user=request.user)
        with replica.lagging_reads():
            return Response({"changes": history.match_ratings(match_id=match.pk)})


# ---------------------------------------------------------------- the player's own


class MeApi(APIView):
    @extend_schema(
        responses={
            200: inline_serializer(
                "Me",
                {
                    "id": serializers.IntegerField(),
                    "username": serializers.CharField(),
                    "is_guest": serializers.BooleanField(),
                },
            )
        },
        summary="Your account",
        description="Who the token belongs to (the Location of a new account or guest).",
    )
    def get(self, request: Request) -> Response:
        return Response(accounts.account_summary(request.user))


class MyMatchesPagination(CursorPages):
    ordering = ("-created_at", "-id")  # newest first; the id breaks ties (a stable cursor)


class PlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    kind = serializers.ChoiceField(choices=SeatKind.choices)
    username = serializers.CharField(allow_null=True)
    level = serializers.ChoiceField(choices=LEVELS, allow_null=True)
    away = serializers.BooleanField(help_text="Its turn timer ran out: a computer plays for it.")

    class Meta:
        ref_name = "MatchPlayer"


class MyMatchSerializer(serializers.Serializer):
    """One of your matches, as a list of matches shows it."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    seq = serializers.IntegerField(help_text="The newest event's sequence number.")
    your_seat = serializers.IntegerField(min_value=0, max_value=3)
    your_team = serializers.IntegerField(
        min_value=0, max_value=1, help_text="0 south-north, 1 west-east."
    )
    is_my_turn = serializers.BooleanField(
        help_text="It is your seat's turn (and no computer plays for you)."
    )
    turn_seat = serializers.IntegerField(
        min_value=0, max_value=3, allow_null=True, help_text="Whose turn it is, if anyone's."
    )
    turn_deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the person to act is replaced (turn timer)."
    )
    partner = PlayerSerializer()
    opponents = PlayerSerializer(many=True)
    scores = serializers.ListField(
        child=serializers.IntegerField(min_value=0), min_length=2, max_length=2,
        help_text="Team 0 (south-north), team 1 (west-east).",
    )  # fmt: skip
    your_score = serializers.IntegerField(min_value=0)
    their_score = serializers.IntegerField(min_value=0)
    winner_team = serializers.IntegerField(min_value=0, max_value=1, allow_null=True)
    you_won = serializers.BooleanField(allow_null=True, help_text="Null until it is finished.")
    hands_played = serializers.IntegerField(min_value=0)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "MyMatch"


class MyMatchPageSerializer(PageLinksSerializer):
    results = MyMatchSerializer(many=True)

    class Meta:
        ref_name = "MyMatchPage"


class MyMatchesApi(PagedListApi):
    class MyMatchesFilterSerializer(PagedFilterSerializer):
        status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
        # A choice, not a BooleanField: DRF reads a boolean missing from a query as false.
        my_turn = serializers.ChoiceField(
            choices=["true", "false"],
            required=False,
            help_text="true: only where it is your turn; false: only the others.",
        )
        opponent = serializers.CharField(
            max_length=150, required=False, help_text="A username on the other team."
        )
        created_after = serializers.DateTimeField(required=False)
        created_before = serializers.DateTimeField(required=False)
        cursor = cursor_field()

    Filters, pages = MyMatchesFilterSerializer, MyMatchesPagination

    @extend_schema(
        parameters=[MyMatchesFilterSerializer],
        responses={200: MyMatchPageSerializer},
        operation_id="me_matches_list",
        summary="Your matches: whose turn, the score, who plays",
        description=(
            "Every match you sit at, newest first, each with `is_my_turn`, the turn's deadline, "
            "your partner and opponents and the score. Filters: `status`, `my_turn`, "
            "`opponent` (a username), `created_after`/`created_before`. Paged by cursor: "
            "follow `next` (stable while matches are created meanwhile)."
        ),
    )
    def get(self, request: Request) -> Response:
        data = self.filters(request)
        if "my_turn" in data:
            data["my_turn"] = data["my_turn"] == "true"
        matches = selectors.my_matches(user=request.user, **data)
        return self.page(request, matches, lambda page: [selectors.my_match(m) for m in page])


# ---------------------------------------------------------------- the OpenAPI document


class SchemaApi(JsonErrorsMixin, SpectacularAPIView):
    """The OpenAPI document (YAML, or JSON with ?format=json)."""


class DocsApi(JsonErrorsMixin, SpectacularSwaggerView):
    """Swagger UI over the OpenAPI document."""
