"""The REST API: one view per operation, each authenticate, validate, call, answer."""

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
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
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import accounts, hints, selectors, services
from games import engine as E
from games.api_classes import TokenAuthentication
from games.api_schema import (
    ACTION_REQUESTS,
    CARDS,
    HintSerializer,
    LoggedEventField,
    MatchEventField,
    OptionsSerializer,
    PlayerViewSerializer,
    SeatSerializer,
)
from games.api_support import JsonErrorsMixin, StrictBooleanField, StrictSerializer
from games.engine import LONE_LEAD_CHOICES, TARGET_SCORE_MAX, TARGET_SCORE_MIN
from games.errors import BadInput, Conflict
from games.levels import LEVELS
from games.models import MatchStatus
from games.throttling import ServiceThrottle, WritesThrottle

# Visible ASCII, no spaces: a UUID, base64 or hex token all fit.
IDEMPOTENCY_KEY = re.compile(r"[!-~]{1,128}")


class MatchViewSerializer(serializers.Serializer):
    """A match and what the caller's seat sees of it."""

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
    you = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Your seat, 0 south to 3 east (null once you left).",
    )
    view = PlayerViewSerializer(
        required=False,
        help_text="The rules engine's view of your seat (docs/rules.md): your cards, the "
        "bidding, trump, tricks, scores, whose turn, and your legal actions. Absent once "
        "you left the match.",
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


class MatchSummarySerializer(serializers.Serializer):
    """A match, seen by no seat in particular."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=MatchStatus.choices)
    seq = serializers.IntegerField(help_text="The newest event's sequence number.")
    options = OptionsSerializer()
    hints_allowed = StrictBooleanField()
    turn_seconds = serializers.IntegerField(allow_null=True)
    turn_deadline = serializers.CharField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    winner_team = serializers.IntegerField(allow_null=True)
    hands_played = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    created_at = serializers.CharField()
    finished_at = serializers.CharField(allow_null=True)


class ReplaySerializer(MatchSummarySerializer):
    """A finished match, hand by hand."""

    setup = serializers.ListField(
        child=LoggedEventField(), help_text="The events before the first deal."
    )
    hands = ReplayedHandSerializer(many=True)

    class Meta:
        ref_name = "Replay"


class MatchPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = MatchViewSerializer(many=True)


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
            if name.casefold().startswith(accounts.GUEST_PREFIX):
                raise serializers.ValidationError(
                    f"Names starting with {accounts.GUEST_PREFIX!r} are kept for guests."
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
        return Response({"id": user.pk, "username": user.get_username()}, status=201)


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


class MatchPagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class MatchListCreateApi(APIView):
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

        def validate_seats(self, seats: list[services.SeatSpec]) -> list[services.SeatSpec]:
            try:
                return services.seats_check(seats)
            except BadInput as exc:
                raise serializers.ValidationError(exc.detail) from exc

    class MatchListCreateFilterSerializer(StrictSerializer):
        status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)
        page = serializers.IntegerField(min_value=1, required=False)
        page_size = serializers.IntegerField(
            min_value=1, max_value=MatchPagination.max_page_size, required=False
        )

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
        filters = self.MatchListCreateFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        matches = selectors.matches_for_user(
            user=request.user, status=filters.validated_data.get("status")
        )
        paginator = MatchPagination()
        page = paginator.paginate_queryset(matches, request, view=self)
        return paginator.get_paginated_response(
            [selectors.match_summary(m, _seat_of(m, request.user)) for m in page]
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
        )
        match, seat = selectors.match_for_user(match_id=match.pk, user=request.user)
        return Response(selectors.player_view_get(match=match, seat=seat), status=201)


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
        return Response(
            {"token": token, "expiry": expiry.isoformat(), "username": user.get_username()},
            status=201,
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
        summary="Your view of a match",
        description=(
            "The match summary and your seat's view: your cards, the upcard, bids, trump, "
            "tricks, scores, whose turn, and your legal actions (post one of them to "
            ".../actions)."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, seat = selectors.match_for_user(match_id=match_id, user=request.user)
        return Response(selectors.player_view_get(match=match, seat=seat))


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
            "players (an invitation is its id). A match that is no longer waiting is 404 to "
            "anyone not seated at it."
        ),
    )
    def post(self, request: Request, match_id: str) -> Response:
        serializer = self.MatchJoinInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.match_join(
            match_id=match_id,
            user=request.user,
            seat_index=serializer.validated_data.get("seat"),
        )
        match, seat = selectors.match_for_user(match_id=match_id, user=request.user)
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
                "response again; with a different request, 422 idempotency_key_mismatch. "
                "1 to 128 visible ASCII characters (else 400 invalid_idempotency_key).",
            )
        ],
        responses={200: MatchViewSerializer},
        summary="Bid, discard or play",
        description=(
            "One action of your seat's `legal_actions`: `pass`, `order_up`, `call`, `discard`, "
            "`defend_alone` or `play`. Send `expected_seq` (the seq you last saw) to be refused "
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
        return Response(result.body, status=result.status)


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
            "card to the dealer alone."
        ),
    )
    def get(self, request: Request, match_id: str) -> Response:
        match, seat = selectors.match_for_user(match_id=match_id, user=request.user)
        filters = self.MatchEventsFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        events = selectors.events_for_seat(
            match=match, seat=seat, after=filters.validated_data["after"]
        )
        return Response({"seq": match.seq, "events": events})


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
        match, _seat = selectors.match_for_user(match_id=match_id, user=request.user)
        if match.status != MatchStatus.FINISHED:
            raise Conflict("match_not_finished", "A replay is available once the match is over.")
        return Response(selectors.replay_get(match=match))


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
        return Response(hints.hint_body(hint), status=202)


class HintDetailApi(APIView):
    @extend_schema(
        responses={200: HintSerializer},
        summary="A hint you asked for",
        description="Its status (pending, done or failed), and the suggested action once done.",
    )
    def get(self, request: Request, hint_id: str) -> Response:
        return Response(hints.hint_body(hints.hint_get(hint_id=hint_id, user=request.user)))


# ---------------------------------------------------------------- the OpenAPI document


class SchemaApi(JsonErrorsMixin, SpectacularAPIView):
    """The OpenAPI document (YAML, or JSON with ?format=json)."""


class DocsApi(JsonErrorsMixin, SpectacularSwaggerView):
    """Swagger UI over the OpenAPI document."""
