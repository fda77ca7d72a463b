"""The OpenAPI contract's typed parts, made from the domain rather than copied from it.

- Event objects: one schema per event type, generated from games/log/events.py's payload
  records (REGISTRY; the `seen` record where a seat sees another shape before the match
  ends), as a `oneOf` with the `type` as discriminator (`MatchEvent`: as a seat may see
  it; `LoggedEvent`: as logged, for replays of finished matches); a discard or a farmer's
  card the others see with no card is a shape of its own (`HiddenDiscardAction`).
- Actions: one schema per action type, from the engine's ACTION_FIELDS, for the request
  (a `oneOf` on `type`, with examples) and for the answers (legal actions, bids), which
  have every field the request takes: a legal action is posted as it is.
- The match view: serializers whose choices are the engine's (phases, cards, suits).
- Errors: each operation lists the statuses it can answer and, per status, its codes and
  their meaning from games/http/error_codes.py (`schema_hook`, a drf-spectacular postprocessing
  hook run after games.http.streams.schema_hook); an error's `code` is their enum (ErrorCode).
- What tools read: OpenAPI 3.1's null throughout (`or_null`, `as_openapi_31`), every tag
  defined, each stream's events described; no error or warning from Redocly's and
  Spectral's rulesets (tests/clients/test_schema_linters.py).
"""

import copy
import types
from typing import Any, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import engine as E
from games.http.api_support import StrictBooleanField, StrictSerializer
from games.http.error_codes import CATALOGUE, ENGINE_INTERNAL
from games.log import events as V
from games.log.levels import LEVELS
from games.models import HintStatus, ReviewStatus, SeatKind

CARDS = [E.card_str(c) for c in E.DECK_WITH_JOKER]  # "JK", the joker, with the option joker
SUITS = list(E.SUIT_LETTERS)
PHASES = [
    E.DEAL,
    E.NAME_SUIT,
    E.FARM,
    E.BID1,
    E.DISCARD,
    E.BID2,
    E.REDEAL,
    E.DEFEND,
    E.PLAY,
    E.FINISHED,
]
BID_TYPES = [t for t, event in V.ACTION_EVENT_TYPES.items() if event == V.BID]

REF = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# ---------------------------------------------------------------- leaves

# The enums of cards and suits, one component each (ENUM_NAME_OVERRIDES names the serializers'
# the same), so that a generated client has one Card type and one Suit type.
CARD = _ref("Card")
SUIT = _ref("Suit")
ENUMS = {
    "Card": {
        "type": "string",
        "enum": CARDS,
        "description": "A card: rank (9 T J Q K A), suit; JK the joker (option joker).",
    },
    "Suit": {"type": "string", "enum": SUITS, "description": "A suit: C, D, H or S."},
}
SEAT = {"type": "integer", "minimum": 0, "maximum": 3, "description": "0 south ... 3 east."}
TEAM = {"type": "integer", "minimum": 0, "maximum": 1, "description": "0 south-north, 1 west-east."}
SCORES = {
    "type": "array",
    "items": {"type": "integer", "minimum": 0},
    "minItems": 2,
    "maxItems": 2,
    "description": "Points of team 0 (south-north) and team 1 (west-east).",
}
DECK = {
    "type": "array",
    "items": CARD,
    "minItems": 24,
    "maxItems": 25,
    "description": "24 cards, or 25 with the joker.",
}

# A payload field's schema by its name, where its Python type says less than the name:
# the vocabulary uses one name for one thing (a seat, a deck, the scores) across records.
FIELD_SCHEMAS: dict[str, dict[str, Any]] = {
    "seat": SEAT,
    "dealer": SEAT,
    "first_dealer": SEAT,
    "makers": TEAM,
    "team": TEAM,
    "winner": TEAM,
    "upcard": CARD,
    "card": CARD,
    "suit": SUIT,
    "deck": DECK,
    "cards": {"type": "array", "items": CARD, "maxItems": 5},
    "scores": SCORES,
    "options": _ref("Options"),
    "action": _ref("Action"),
    "kind": {"type": "string", "enum": [SeatKind.HUMAN.value, SeatKind.COMPUTER.value]},
    "level": {"type": "string", "enum": list(LEVELS)},
    "commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "sha256 hex."},
}


NULL = {"type": "null"}


def or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` or null, in OpenAPI 3.1's words (JSON Schema's; 3.0's `nullable` is gone):
    null added to a type, to an enum (checked besides the type), to a union's members; a
    reference or an allOf becomes a oneOf of it and null. Every tool reads this one way,
    where datamodel-code-generator read a 3.0 `nullable` beside a required field as not
    null."""
    schema = {k: v for k, v in schema.items() if k != "nullable"}
    if "$ref" in schema or "allOf" in schema:
        if "$ref" in schema:
            inner: dict[str, Any] = {"$ref": schema.pop("$ref")}
        else:
            parts = schema.pop("allOf")
            inner = parts[0] if len(parts) == 1 else {"allOf": parts}
        kept = {k: schema.pop(k) for k in ("description", "title") if k in schema}
        return {"oneOf": [{**inner, **schema} if schema else inner, NULL], **kept}
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        schema["type"] = kinds if "null" in kinds else [*kinds, "null"]
    for union in ("oneOf", "anyOf"):
        if union in schema and NULL not in schema[union]:
            schema[union] = [*schema[union], NULL]
    if not {"type", "oneOf", "anyOf", "enum"} & set(schema):
        raise ValueError(f"no way to add null to {schema!r}")
    return schema


def _type_schema(name: str, annotation: Any) -> dict[str, Any]:
    """A payload field's schema from its Python type (and its name, FIELD_SCHEMAS)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is NotRequired:
        return _type_schema(name, args[0])
    if origin in (Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        schema = dict(_type_schema(name, present[0]))
        return schema if len(present) == len(args) else or_null(schema)
    if name in FIELD_SCHEMAS:
        return dict(FIELD_SCHEMAS[name])
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is str:
        return {"type": "string"}
    if origin is list:
        return {"type": "array", "items": _type_schema(name, args[0])}
    raise TypeError(f"no schema for the payload field {name}: {annotation!r}")


def record_schema(record: type) -> dict[str, Any]:
    """A TypedDict as a closed object schema: its fields, the required ones, no others."""
    assert is_typeddict(record), record
    hints = get_type_hints(record, include_extras=True)
    properties = {name: _type_schema(name, t) for name, t in hints.items()}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    required = sorted(record.__required_keys__)  # type: ignore[attr-defined]
    if required:
        schema["required"] = required
    if record.__doc__ and not record.__doc__.startswith(record.__name__ + "("):
        schema["description"] = record.__doc__.strip()
    return schema


# ---------------------------------------------------------------- actions

ACTION_FIELD_SCHEMAS: dict[str, dict[str, Any]] = {
    "card": CARD,
    "suit": SUIT,
    "alone": {"type": "boolean", "description": "Play alone (your partner sits out)."},
}
ACTION_DOCS = {
    "pass": "Pass (in either round of bidding, or as a defender: not defending alone).",
    "order_up": "Round one: order the upcard up to the dealer (by the dealer: pick it up).",
    "call": "Round two: name trump (not the suit turned down).",
    "discard": "The dealer, after taking the upcard, buries a card (the others see no card: "
    "HiddenDiscardAction).",
    "defend_alone": "A defender (defending_alone option) declares to defend alone.",
    "play": "Play a card.",
    "name_suit": "The dealer (joker option) names the suit of a joker turned up.",
    "farm": "A farmer's hand (farmers_hand option): put out one of three nines or tens (the "
    "others see no card: HiddenFarmAction).",
    "redeal": "Throw the hand in: no ace, no face, no trump (that option), or a farmer's hand "
    "asking for a new deal (farmers_hand_form redeal).",
}


# The actions whose card the others do not see before the match is finished: the event
# that logs one shows them {"type": ...} alone (games/log/events.py discard_seen, farm_seen).
HIDDEN_CARD_ACTIONS = {V.ACTION_EVENT_TYPES[kind]: kind for kind in (E.ACTION_DISCARD, E.FARM)}


def action_schemas() -> dict[str, dict[str, Any]]:
    """One schema per action type as the API answers it (legal actions, hints, reviews, the
    events as logged), every field required: a legal action is the body that takes it. And
    `Action`, their oneOf on `type`; and `Hidden<Kind>Action`, a discard or a farmer's
    card put out as the others see it in the events, with no card."""
    components: dict[str, dict[str, Any]] = {}
    for kind in E.ACTION_TYPES:
        fields = sorted(E.ACTION_FIELDS[kind])
        components[f"{_camel(kind)}Action"] = {
            "type": "object",
            "description": ACTION_DOCS[kind],
            "properties": {
                "type": {"type": "string", "enum": [kind]},
                **{f: ACTION_FIELD_SCHEMAS[f] for f in fields},
            },
            "required": ["type", *fields],
            "additionalProperties": False,
        }
    for kind in HIDDEN_CARD_ACTIONS.values():
        components[f"Hidden{_camel(kind)}Action"] = {
            "type": "object",
            "description": f"A `{kind}` as the others see it before the match is finished: "
            "no card.",
            "properties": {"type": {"type": "string", "enum": [kind]}},
            "required": ["type"],
            "additionalProperties": False,
        }
    components["Action"] = {
        "oneOf": [_ref(f"{_camel(k)}Action") for k in E.ACTION_TYPES],
        "discriminator": {
            "propertyName": "type",
            "mapping": {k: REF + f"{_camel(k)}Action" for k in E.ACTION_TYPES},
        },
    }
    return components


def _action_request(kind: str) -> type[StrictSerializer]:
    fields: dict[str, serializers.Field] = {
        "type": serializers.ChoiceField(choices=[kind]),
        "expected_seq": serializers.IntegerField(
            min_value=0,
            required=False,
            help_text="The seq you last saw; 409 stale_sequence if the match has moved on.",
        ),
    }
    if "card" in E.ACTION_FIELDS[kind]:
        fields["card"] = serializers.CharField(max_length=3, help_text="e.g. 'JH', 'TD'")
    if "suit" in E.ACTION_FIELDS[kind]:
        fields["suit"] = serializers.CharField(max_length=1, help_text="C, D, H or S")
    if "alone" in E.ACTION_FIELDS[kind]:
        fields["alone"] = StrictBooleanField(required=False, help_text="Default false.")
    name = f"{_camel(kind)}Action"  # the request's component: <name>Request
    return type(name, (StrictSerializer,), {**fields, "__doc__": ACTION_DOCS[kind]})


ACTION_REQUESTS = {kind: _action_request(kind) for kind in E.ACTION_TYPES}


# ---------------------------------------------------------------- events

EVENT_FIELDS = {
    "seq": {"type": "integer", "minimum": 1, "description": "Its place in the log."},
    "seat": or_null({**SEAT, "description": "The seat it is about, if any."}),
    "created_at": {"type": "string", "format": "date-time"},
}


def event_schemas() -> dict[str, dict[str, Any]]:
    """Payload records and event objects for every type of games/log/events.py REGISTRY."""
    components: dict[str, dict[str, Any]] = {}
    seen_variants, logged_variants = {}, {}
    for name, definition in V.REGISTRY.items():
        camel = _camel(name)
        records = {definition.payload.__name__: definition.payload}
        if definition.seen is not None:
            records[definition.seen.__name__] = definition.seen
        for record_name, record in records.items():
            components[f"{record_name}Payload"] = record_schema(record)
        logged = _ref(f"{definition.payload.__name__}Payload")
        if name in HIDDEN_CARD_ACTIONS:  # an action whose card the others do not see
            hidden = f"Hidden{_camel(HIDDEN_CARD_ACTIONS[name])}"
            components[f"{hidden}Payload"] = {
                "type": "object",
                "description": "The action as the others see it before the match is finished.",
                "properties": {"action": _ref(f"{hidden}Action")},
                "required": ["action"],
                "additionalProperties": False,
            }
            seen = {"oneOf": [_ref(f"{hidden}Payload"), logged]}
        elif definition.seen is None:
            seen = logged
        else:  # before the match ends the seen shape; once it is finished, as logged
            seen = {"oneOf": [_ref(f"{definition.seen.__name__}Payload"), logged]}
        for suffix, payload, variants in (("Event", seen, seen_variants),
                                          ("LoggedEvent", logged, logged_variants)):  # fmt: skip
            component = f"{camel}{suffix}"
            components[component] = {
                "type": "object",
                "description": f"`{name}`: {definition.doc}.",
                "properties": {
                    "seq": EVENT_FIELDS["seq"],
                    "type": {"type": "string", "enum": [name]},
                    "seat": EVENT_FIELDS["seat"],
                    "payload": payload,
                    "created_at": EVENT_FIELDS["created_at"],
                },
                "required": ["seq", "type", "seat", "payload", "created_at"],
            }
            variants[name] = component
    for union, variants, doc in (
        ("MatchEvent", seen_variants,
         "An event as your seat may see it: before the match is finished a deal shows no "
         "deck or salt but your cards, and a discard its card to the dealer alone; once it "
         "is finished, every payload as logged."),
        ("LoggedEvent", logged_variants, "An event as logged (a finished match's replay)."),
    ):  # fmt: skip
        components[union] = {
            "description": doc,
            "oneOf": [_ref(c) for c in variants.values()],
            "discriminator": {
                "propertyName": "type",
                "mapping": {name: REF + c for name, c in variants.items()},
            },
        }
    return components


@extend_schema_field(_ref("MatchEvent"))
class MatchEventField(serializers.DictField):
    pass


@extend_schema_field(_ref("LoggedEvent"))
class LoggedEventField(serializers.DictField):
    pass


@extend_schema_field(_ref("Action"))
class ActionField(serializers.DictField):
    pass


# ---------------------------------------------------------------- the match view


class OptionsSerializer(serializers.Serializer):
    """The rules the match is played under (docs/rules.md)."""

    target_score = serializers.IntegerField(
        min_value=E.TARGET_SCORE_MIN, max_value=E.TARGET_SCORE_MAX
    )
    stick_the_dealer = serializers.BooleanField()
    going_alone = serializers.BooleanField()
    lone_lead = serializers.ChoiceField(choices=E.LONE_LEAD_CHOICES)
    defending_alone = serializers.BooleanField()
    # The table variants: present only when not at their defaults (docs/rules.md).
    joker = serializers.BooleanField(required=False)
    joker_upcard = serializers.ChoiceField(choices=E.JOKER_UPCARD_CHOICES, required=False)
    farmers_hand = serializers.BooleanField(required=False)
    farmers_hand_form = serializers.ChoiceField(
        choices=E.FARMERS_HAND_FORMS,
        required=False,
        help_text="With farmers_hand: exchange three nines and tens for the cards under the "
        "upcard (exchange, the default) or ask for a new deal (redeal). Present only when "
        "not exchange; redeal without farmers_hand is invalid_option.",
    )
    no_ace_no_face_no_trump = serializers.BooleanField(required=False)

    class Meta:
        ref_name = "Options"


class SeatSerializer(serializers.Serializer):
    index = serializers.IntegerField(min_value=0, max_value=3)
    name = serializers.ChoiceField(choices=E.SEAT_NAMES)
    kind = serializers.ChoiceField(choices=SeatKind.choices)
    username = serializers.CharField(allow_null=True)
    level = serializers.ChoiceField(choices=LEVELS, allow_null=True)
    is_you = serializers.BooleanField()
    away = serializers.BooleanField(help_text="Its turn timer ran out: a computer plays for it.")
    present = serializers.BooleanField(help_text="A live stream of theirs is open.")

    class Meta:
        ref_name = "Seat"


class BidSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    type = serializers.ChoiceField(choices=BID_TYPES)
    suit = serializers.ChoiceField(choices=SUITS, required=False, help_text="A call's.")
    alone = serializers.BooleanField(required=False, help_text="An order_up's or a call's.")

    class Meta:
        ref_name = "Bid"


class PlayedCardSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    card = serializers.ChoiceField(choices=CARDS)

    class Meta:
        ref_name = "PlayedCard"


class TrickSerializer(serializers.Serializer):
    leader = serializers.IntegerField(min_value=0, max_value=3)
    cards = PlayedCardSerializer(many=True)
    winner = serializers.IntegerField(min_value=0, max_value=3)

    class Meta:
        ref_name = "Trick"


class FarmSerializer(serializers.Serializer):
    gave = serializers.ListField(child=serializers.ChoiceField(choices=CARDS))
    got = serializers.ListField(child=serializers.ChoiceField(choices=CARDS))

    class Meta:
        ref_name = "FarmExchange"


class LastHandSerializer(serializers.Serializer):
    """How the last hand ended: hand_scored (with its points) or hand_thrown_in."""

    type = serializers.ChoiceField(choices=[V.HAND_SCORED, V.HAND_THROWN_IN])
    hand = serializers.IntegerField(min_value=1)
    team = serializers.IntegerField(min_value=0, max_value=1, required=False)
    points = serializers.IntegerField(min_value=0, required=False)
    result = serializers.CharField(required=False)
    makers = serializers.IntegerField(min_value=0, max_value=1, required=False)
    makers_tricks = serializers.IntegerField(min_value=0, max_value=5, required=False)
    scores = serializers.ListField(child=serializers.IntegerField(), required=False)
    reason = serializers.ChoiceField(
        choices=[E.REDEAL_REASON, E.FARM_REDEAL_REASON],
        required=False,
        help_text="A called redeal: why (no ace, no face, no trump; or a farmer's hand "
        "asking for a new deal).",
    )
    seat = serializers.IntegerField(
        min_value=0, max_value=3, required=False, help_text="A called redeal: who called it."
    )
    cards = serializers.ListField(
        child=serializers.ChoiceField(choices=CARDS),
        required=False,
        help_text="A called redeal: the hand that let the seat call it, shown to all.",
    )
    farmer = serializers.IntegerField(
        min_value=0,
        max_value=3,
        allow_null=True,
        required=False,
        help_text="Option farmers_hand (the exchange form): the seat that exchanged in that "
        "hand, never which cards.",
    )
    my_farm = FarmSerializer(
        required=False, help_text="The farmer only: its exchange in that hand."
    )

    class Meta:
        ref_name = "LastHand"


def _seat_or_null(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=3, allow_null=True, help_text=help_text)


class HandViewSerializer(serializers.Serializer):
    """The hand being played, as your seat sees it."""

    upcard = serializers.ChoiceField(choices=CARDS)
    upcard_fate = serializers.ChoiceField(
        choices=["face_up", "picked_up", "turned_down", "stays_in_kitty"]
    )
    turned_down = serializers.ChoiceField(choices=SUITS, allow_null=True)
    bids = BidSerializer(many=True)
    trump = serializers.ChoiceField(choices=SUITS, allow_null=True)
    maker = _seat_or_null("The seat that made trump.")
    alone = _seat_or_null("The maker, if playing alone.")
    defender_alone = _seat_or_null("A defender defending alone.")
    sitting_out = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=3))
    discarded = serializers.BooleanField()
    hand_sizes = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=6))
    current_trick = PlayedCardSerializer(many=True)
    tricks = TrickSerializer(many=True)
    tricks_won = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=5))
    cards = serializers.ListField(child=serializers.ChoiceField(choices=CARDS))
    my_discard = serializers.ChoiceField(
        choices=CARDS, required=False, help_text="The card you buried, if you are the dealer."
    )
    commitment = serializers.CharField(help_text="sha256 of the deal, revealed after the hand.")
    upcard_suit = serializers.ChoiceField(
        choices=SUITS,
        allow_null=True,
        required=False,
        help_text="Option joker: the suit the upcard counts as (null while being named).",
    )
    cards_hidden = serializers.BooleanField(
        required=False, help_text="The dealer names a joker upcard's suit before looking."
    )
    farmer = serializers.IntegerField(
        min_value=0,
        max_value=3,
        allow_null=True,
        required=False,
        help_text="Option farmers_hand (the exchange form): the seat that exchanged, never "
        "which cards.",
    )
    my_farm = FarmSerializer(required=False, help_text="The farmer only: its exchange.")

    class Meta:
        ref_name = "HandView"


class PlayerViewSerializer(serializers.Serializer):
    """The rules engine's view of your seat (docs/rules.md)."""

    phase = serializers.ChoiceField(choices=PHASES)
    options = OptionsSerializer()
    scores = serializers.ListField(child=serializers.IntegerField(min_value=0))
    winner = serializers.IntegerField(min_value=0, max_value=1, allow_null=True)
    dealer = serializers.IntegerField(min_value=0, max_value=3)
    hand_number = serializers.IntegerField(min_value=0)
    turn = _seat_or_null("Whose turn it is (none while dealing or once finished).")
    last_hand = LastHandSerializer(allow_null=True)
    hand = HandViewSerializer(allow_null=True)
    seat = serializers.IntegerField(min_value=0, max_value=3)
    seat_name = serializers.ChoiceField(choices=E.SEAT_NAMES)
    legal_actions = serializers.ListField(
        child=ActionField(), help_text="What you may do now (empty unless it is your turn)."
    )

    class Meta:
        ref_name = "PlayerView"


class SpectatorHandViewSerializer(HandViewSerializer):
    """The hand being played, as a spectator sees it: no one's cards."""

    cards = None
    my_discard = None

    class Meta:
        ref_name = "SpectatorHandView"


class SpectatorViewSerializer(PlayerViewSerializer):
    """The rules engine's view of a public match for a person with no seat at it
    (engine.spectator_view): the bidding, the cards played, tricks, scores, whose turn;
    no one's cards, and nothing to do."""

    hand = SpectatorHandViewSerializer(allow_null=True)
    seat = None
    seat_name = None
    legal_actions = None

    class Meta:
        ref_name = "SpectatorView"


# ---------------------------------------------------------------- error responses

# The codes any request may be answered with, whatever the operation: refusals of the HTTP
# server (euchre_service/gunicorn_errors.py) and of Django before the view, the body size
# limit, and a database that is down.
TRANSPORT_CODES = (
    "malformed_request",
    "bad_host",
    "bad_request",
    "permission_denied",
    "payload_too_large",
    "uri_too_long",
    "headers_too_large",
    "expectation_failed",
    "not_implemented",
    "service_unavailable",
)
# DRF views: content negotiation (Accept, ?format=) and a method the path does not take.
DRF_CODES = ("not_acceptable", "not_found", "method_not_allowed")
TOKEN = ("not_authenticated", "authentication_failed")
BODY = ("invalid_input", "malformed_json", "unsupported_media_type")
RULES = tuple(sorted(c for c in E.RULE_KINDS if c not in ENGINE_INTERNAL))  # with `seq`

OPERATION_CODES: dict[str, tuple[str, ...]] = {
    "auth_register_create": (*BODY, "username_taken", "throttled"),
    "auth_token_create": (*BODY, "authentication_failed", "throttled"),
    "auth_guest_create": ("throttled",),
    "auth_logout_create": TOKEN,
    "auth_logout_all_create": TOKEN,
    "matches_list": (*TOKEN, "invalid_input", "not_found"),
    "matches_create": (
        *TOKEN,
        *BODY,
        "invalid_seats",
        "invalid_level",
        "invalid_turn_seconds",
        "invalid_option",
        "too_many_active_matches",
        "throttled",
    ),  # fmt: skip
    "matches_retrieve": (*TOKEN, "not_found"),
    # A private match that no longer waits is 404 to anyone not seated at it, a public one
    # 409 (services.seat_join).
    "matches_join_create": (
        *TOKEN,
        *BODY,
        "not_found",
        "already_seated",
        "seat_taken",
        "match_started",
        "match_finished",
        "too_many_active_matches",
        "throttled",
    ),  # fmt: skip
    "matches_leave_create": (*TOKEN, "not_found", "match_finished", "throttled"),
    "matches_return_create": (*TOKEN, "not_found", "not_away", "match_finished"),
    "matches_actions_create": (
        *TOKEN,
        *BODY,
        "not_found",
        "invalid_idempotency_key",
        "idempotency_key_mismatch",
        "idempotency_key_reused",
        "stale_sequence",
        "match_not_started",
        "match_finished",
        "throttled",
        *RULES,
    ),  # fmt: skip
    "matches_events_retrieve": (*TOKEN, "invalid_input", "not_found"),
    "matches_replay_retrieve": (*TOKEN, "not_found", "match_not_finished"),
    "matches_hints_create": (
        *TOKEN,
        "not_found",
        "hints_disabled",
        "match_not_active",
        "not_your_turn",
        "throttled",
    ),  # fmt: skip
    "hints_retrieve": (*TOKEN, "not_found"),
    "matches_public_list": (*TOKEN, "invalid_input", "not_found"),
    "quickplay_create": (
        *TOKEN,
        *BODY,
        "invalid_option",
        "invalid_level",
        "invalid_turn_seconds",
        "too_many_active_matches",
        "throttled",
    ),  # fmt: skip
    "quickplay_destroy": (*TOKEN, "not_in_queue", "throttled"),
    "matches_rematch_create": (
        *TOKEN,
        "not_found",
        "match_not_finished",
        "too_many_active_matches",
        "throttled",
    ),  # fmt: skip
    "matches_rematch_accept_create": (
        *TOKEN,
        "not_found",
        "match_not_finished",
        "no_rematch_offer",
        "too_many_active_matches",
        "throttled",
    ),  # fmt: skip
    "matches_rematch_decline_create": (
        *TOKEN,
        "not_found",
        "match_not_finished",
        "no_rematch_offer",
        "throttled",
    ),  # fmt: skip
    "matches_review_retrieve": (*TOKEN, "not_found", "match_not_finished"),
    "matches_ratings_retrieve": (*TOKEN, "not_found"),
    "users_matches_retrieve": (*TOKEN, "invalid_input", "invalid_cursor", "user_not_found"),
    "users_stats_retrieve": (*TOKEN, "user_not_found"),
    "leaderboard_retrieve": (*TOKEN, "invalid_input"),
    "me_retrieve": TOKEN,
    "me_matches_list": (*TOKEN, "invalid_input", "invalid_cursor"),
    "me_stream": (
        *TOKEN,
        "invalid_input",
        "method_not_allowed",
        "stream_needs_asgi",
        "feed_cursor_expired",
    ),  # fmt: skip
    # An async view, not DRF's: no content negotiation; its own 405.
    "matches_stream": (
        *TOKEN,
        "invalid_input",
        "not_found",
        "method_not_allowed",
        "stream_needs_asgi",
    ),  # fmt: skip
}


STREAM_OPERATIONS = ("matches_stream", "me_stream")  # async views, not DRF's


def operation_codes(operation_id: str) -> list[str]:
    """Every error code an operation can answer with (its own, then any request's)."""
    own = OPERATION_CODES[operation_id]
    drf = () if operation_id in STREAM_OPERATIONS else DRF_CODES
    return sorted({*own, *drf, *TRANSPORT_CODES})


def _error_response(status: int, codes: list[str]) -> dict[str, Any]:
    lines = [f"- `{code}`: {CATALOGUE[code].meaning}" for code in codes]
    return {
        "description": "\n".join(lines),
        "x-error-codes": codes,
        "content": {
            "application/json": {
                "schema": _ref("Error"),
                "examples": {
                    code: {
                        "summary": CATALOGUE[code].meaning,
                        "value": {"code": code, "detail": CATALOGUE[code].meaning},
                    }
                    for code in codes
                },
            }
        },
    }


def error_responses(operation_id: str) -> dict[str, dict[str, Any]]:
    """status -> its response: the operation's codes with that status (500 is no answer
    the contract makes: a bug, logged)."""
    by_status: dict[int, list[str]] = {}
    for code in operation_codes(operation_id):
        for status in CATALOGUE[code].statuses:
            if status >= 400:
                by_status.setdefault(status, []).append(code)
    return {str(s): _error_response(s, codes) for s, codes in sorted(by_status.items())}


ERROR_SCHEMAS: dict[str, dict[str, Any]] = {
    "Error": {
        "type": "object",
        "description": "Every error under /api/ (docs/errors.md).",
        "properties": {
            "code": _ref("ErrorCode"),
            "detail": {"type": "string", "description": "A sentence for a person."},
            "errors": _ref("FieldErrors"),
            "seq": {"type": "integer", "description": "The match's newest event."},
            "retry_after": {"type": "integer", "description": "Seconds (429 only)."},
        },
        "required": ["code", "detail"],
    },
    # Every code of the catalogue, so that a generated client has a type to switch on.
    "ErrorCode": {
        "type": "string",
        "enum": sorted(CATALOGUE),
        "description": "Stable, for programs to switch on: each operation lists its codes per "
        "status, with their meaning (docs/errors.md: the catalogue). A new code is a new "
        "value here (a minor version); treat a code you do not know by its status.",
    },
    "FieldErrors": {
        "type": "object",
        "description": "Per-field problems (400 only): field name (or list index) -> its "
        "problems, or a nested field's.",
        "additionalProperties": {
            "oneOf": [
                {"type": "array", "items": {"oneOf": [{"type": "string"}, _ref("FieldErrors")]}},
                _ref("FieldErrors"),
            ]
        },
    },
}


def view_per_phase(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The seat's view (PlayerViewSerializer's schema) cut by phase: a `oneOf` on `phase`,
    each phase with the actions it takes (E.PHASE_ACTIONS) as its legal actions; while
    dealing and once the match is over no one acts (while dealing `hand` is null)."""
    components: dict[str, dict[str, Any]] = {}
    for phase in PHASES:
        kinds = E.PHASE_ACTIONS.get(phase, ())
        properties = dict(view["properties"])
        properties["phase"] = {"type": "string", "enum": [phase]}
        legal: dict[str, Any] = {"type": "array", "description": "What you may do now "
                                 "(empty unless it is your turn)."}  # fmt: skip
        if kinds:
            items = [_ref(f"{_camel(k)}Action") for k in kinds]
            legal["items"] = items[0] if len(items) == 1 else {
                "oneOf": items,
                "discriminator": {
                    "propertyName": "type",
                    "mapping": {k: REF + f"{_camel(k)}Action" for k in kinds},
                },
            }  # fmt: skip
        else:
            legal["items"] = _ref("Action")
            legal["maxItems"] = 0  # and `turn` is null
        properties["legal_actions"] = legal
        components[f"PlayerView{_camel(phase)}"] = {
            **view,
            "description": f"Your view in the phase `{phase}`.",
            "properties": properties,
        }
    components["PlayerView"] = {
        "description": view.get("description", ""),
        "oneOf": [_ref(name) for name in components],
        "discriminator": {
            "propertyName": "phase",
            "mapping": {p: REF + f"PlayerView{_camel(p)}" for p in PHASES},
        },
    }
    return components


# ---------------------------------------------------------------- HTTP conventions

# The answers with an ETag (If-None-Match -> 304): games.http.api_support.conditional.
CONDITIONAL_OPERATIONS = ("matches_retrieve", "matches_events_retrieve", "matches_replay_retrieve")


def _header(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "schema": schema}


INT = {"type": "integer", "minimum": 0}
ETAG = _header(
    'A weak tag of this answer (W/"..."): send it as If-None-Match to get 304 while it is '
    "unchanged. It changes with every event of the match (and the seat, the query, who is "
    "present).",
    {"type": "string"},
)
CACHE_CONTROL = _header(
    "private, no-cache: your seat's cards are never for a shared cache; check before reuse.",
    {"type": "string"},
)
RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": _header("Requests allowed in this operation's window.", INT),
    "RateLimit-Remaining": _header("Requests left in the window.", INT),
    "RateLimit-Reset": _header("Seconds until one more request is allowed again.", INT),
}
RETRY_AFTER = _header("Seconds to wait before trying again.", INT)
LOCATION = _header("The URL of what was created (for a 202: where to poll).", {"type": "string"})
IDEMPOTENT_REPLAYED = _header(
    "`true` when this is the stored answer to an Idempotency-Key sent before (nothing was "
    "done again). Absent otherwise.",
    {"type": "string", "enum": ["true"]},
)
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "The ETag of the answer you have: 304 (no body) while it is current.",
    "schema": {"type": "string"},
}


def http_conventions(operation_id: str, operation: dict[str, Any]) -> None:
    """The response headers a client reads (docs/api-versioning.md, "HTTP conventions")."""
    responses = operation["responses"]
    # Copies: a YAML dump would write one object met twice as an anchor and an alias.
    rate_limit, etag, cache = copy.deepcopy((RATE_LIMIT_HEADERS, ETAG, CACHE_CONTROL))
    if "429" in responses:
        for status, response in responses.items():
            if status.startswith("2") or status == "429":
                response.setdefault("headers", {}).update(copy.deepcopy(rate_limit))
        responses["429"]["headers"]["Retry-After"] = dict(RETRY_AFTER)
    for status in ("201", "202"):
        if status in responses:
            responses[status].setdefault("headers", {})["Location"] = copy.deepcopy(LOCATION)
    if operation_id == "matches_actions_create":
        responses["200"].setdefault("headers", {})["Idempotent-Replayed"] = copy.deepcopy(
            IDEMPOTENT_REPLAYED
        )
    if operation_id in CONDITIONAL_OPERATIONS:
        operation.setdefault("parameters", []).append(copy.deepcopy(IF_NONE_MATCH))
        responses["200"].setdefault("headers", {}).update({"ETag": etag, "Cache-Control": cache})
        responses["304"] = {
            "description": "Not modified: the answer you have (its ETag) is current.",
            "headers": copy.deepcopy({"ETag": etag, "Cache-Control": cache}),
        }
        operation["responses"] = dict(sorted(responses.items()))


def schema_hook(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing: the generated event and action schemas, the view
    per phase, each operation's error responses, and the headers of the HTTP conventions."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(ERROR_SCHEMAS)
    schemas.update(ENUMS)
    schemas.update(action_schemas())
    schemas.update(event_schemas())
    schemas.update(view_per_phase(schemas["PlayerView"]))
    # The field's enum, now one value per phase of the player's view; the spectator's
    # view (one schema for every phase) states it in place.
    schemas["SpectatorView"]["properties"]["phase"] = {"type": "string", "enum": list(PHASES)}
    del schemas["PhaseEnum"]
    for operations in result["paths"].values():
        for operation in operations.values():
            operation_id = operation.get("operationId")
            if operation_id not in OPERATION_CODES:
                continue
            responses = {
                s: r for s, r in operation["responses"].items() if not s.startswith(("4", "5"))
            }
            responses.update(error_responses(operation_id))
            operation["responses"] = responses
            http_conventions(operation_id, operation)
            if operation_id in STREAM_ITEMS:
                stream_items(operation_id, operation, schemas)
    result["tags"] = operation_tags(result)
    return as_openapi_31(result)


# ---------------------------------------------------------------- what linters and generators read

# A stream's events: their `event:` names (None: the types of the component's union), the
# component each `data:` is, and a line on them.
STREAM_ITEMS: dict[str, tuple[list[str] | None, str, str]] = {
    "matches_stream": (["match_event"], "MatchEvent", "A match event: its `id:` is its seq."),
    "me_stream": (None, "FeedItem", "An item of the feed: its `event:` is the item's type."),
}


def event_stream_schema(events: list[str], data: str, description: str) -> dict[str, Any]:
    """A text/event-stream answer's schema: one event of the stream (OpenAPI before 3.2,
    which has no itemSchema, describes each event with `schema`, as schemathesis checks
    it), its fields as strings, its `data:` the JSON of the component `data`. Comments
    (`: keep-alive`) and a `retry:` alone are not events."""
    return {
        "type": "object",
        "description": description,
        "properties": {
            "id": {"type": "string"},
            "event": {"type": "string", "enum": events},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": _ref(data),
            },
        },
        "required": ["id", "event", "data"],
    }


def stream_items(operation_id: str, operation: dict[str, Any], schemas: dict[str, Any]) -> None:
    """The schema of a stream's 200 (games/http/streams.py and games/http/feed.py describe
    the rest)."""
    events, data, description = STREAM_ITEMS[operation_id]
    if events is None:
        events = list(schemas[data]["discriminator"]["mapping"])
    schema = event_stream_schema(events, data, description)
    operation["responses"]["200"]["content"] = {"text/event-stream": {"schema": schema}}


TAGS = {
    "auth": "Accounts and tokens: register, sign in (a person or a guest), sign out.",
    "hints": "A hint asked for during a match, worked out later: poll it.",
    "leaderboard": "The rated players, best first.",
    "matches": "Matches: create, join, play, the events and their live stream, the replay, "
    "the review, the ratings, rematches, public matches.",
    "me": "The caller's own account, matches and live feed.",
    "quickplay": "The quick play queue: a table with whoever else is waiting.",
    "users": "A person's public records: matches played and statistics.",
}


def operation_tags(result: dict[str, Any]) -> list[dict[str, str]]:
    """Every tag an operation has, defined once at the top (with its description)."""
    operations = [op for ops in result["paths"].values() for op in ops.values()]
    used = {tag for operation in operations for tag in operation.get("tags", [])}
    return [{"name": t, **({"description": TAGS[t]} if t in TAGS else {})} for t in sorted(used)]


def _null_components(schemas: dict[str, Any]) -> set[str]:
    """drf-spectacular's NullEnum (a nullable choice's null, a component of its own)."""
    return {name for name, schema in schemas.items() if schema in (NULL, {"enum": [None]})}


def as_openapi_31(result: dict[str, Any]) -> dict[str, Any]:
    """The document in OpenAPI 3.1's words throughout (settings' OAS_VERSION): a `nullable`
    that a hook wrote in 3.0's (games/http/feed.py's items) becomes null in the type or a union
    (or_null), and a reference to a component that is null alone becomes null in place, so
    that every generator makes `X | None` of it rather than a type named NullEnum."""
    schemas = result["components"]["schemas"]
    nulls = {REF + name for name in _null_components(schemas)}

    def convert(node: Any) -> Any:
        if isinstance(node, list):
            return [convert(n) for n in node]
        if not isinstance(node, dict):
            return node
        if node.get("$ref") in nulls:
            return dict(NULL)
        node = {k: convert(v) for k, v in node.items()}
        if node.pop("nullable", False):
            return or_null(node)
        return node

    converted = convert(result)
    for ref in nulls:
        del converted["components"]["schemas"][ref.removeprefix(REF)]
    return converted


HINT_FAILURES = [
    c for c, entry in CATALOGUE.items() if entry.statuses[0] < 400 and c.startswith("hint_")
]
REVIEW_CODES = [c for c in CATALOGUE if c.startswith("review_")]


class HintSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    match = serializers.UUIDField()
    seat = serializers.IntegerField(min_value=0, max_value=3)
    seq = serializers.IntegerField(help_text="The position the hint is for.")
    status = serializers.ChoiceField(choices=HintStatus.choices)
    action = ActionField(allow_null=True, help_text="The suggested action, when done.")
    explanation = serializers.CharField(allow_null=True)
    code = serializers.ChoiceField(
        choices=HINT_FAILURES,
        allow_null=True,
        help_text="Why a failed hint failed: "
        + "; ".join(f"{c}: {CATALOGUE[c].meaning}" for c in HINT_FAILURES),
    )

    class Meta:
        ref_name = "Hint"


class ReviewMistakeSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The event that logged the action: the replay's step.")
    seat = serializers.IntegerField(min_value=0, max_value=3)
    phase = serializers.CharField(help_text="bid1, bid2, discard, defend or play.")
    action = ActionField(help_text="What the person did.")
    best = ActionField(help_text="The best action from what the seat knew.")
    loss = serializers.FloatField(
        help_text="Points given up against the best, from what the seat knew."
    )
    shown_loss = serializers.FloatField(
        help_text="Points given up against the best with all cards shown (what was possible)."
    )
    sentence = serializers.CharField()

    class Meta:
        ref_name = "ReviewMistake"


class ReviewHandSerializer(serializers.Serializer):
    hand = serializers.IntegerField()
    decisions = serializers.IntegerField(help_text="People's decisions with a choice in it.")
    points_lost = serializers.FloatField()
    mistakes = ReviewMistakeSerializer(many=True, help_text="The biggest first (three at most).")

    class Meta:
        ref_name = "ReviewHand"


class ReviewPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    username = serializers.CharField()
    decisions = serializers.IntegerField(help_text="Decisions with more than one legal action.")
    accurate = serializers.IntegerField(help_text="Of those, within 0.1 point of the best.")
    accuracy = serializers.FloatField(allow_null=True, help_text="accurate / decisions, in %.")
    mistakes = serializers.IntegerField()
    points_lost = serializers.FloatField(help_text="From what the seat knew.")
    points_lost_shown = serializers.FloatField(help_text="With all cards shown.")

    class Meta:
        ref_name = "ReviewPlayer"


class ReviewSerializer(serializers.Serializer):
    match = serializers.UUIDField()
    status = serializers.ChoiceField(choices=ReviewStatus.choices)
    code = serializers.ChoiceField(
        choices=REVIEW_CODES,
        allow_null=True,
        help_text="While not ready: "
        + "; ".join(f"{c}: {CATALOGUE[c].meaning}" for c in REVIEW_CODES),
    )
    method = serializers.CharField(
        allow_null=True, help_text="How the deals were valued: solver or playouts."
    )
    threshold = serializers.FloatField(
        allow_null=True, help_text="Points given up from which a choice is a mistake."
    )
    players = ReviewPlayerSerializer(many=True, help_text="Each person at the table.")
    hands = ReviewHandSerializer(many=True)
    built_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True, help_text="How long building it took.")

    class Meta:
        ref_name = "Review"
