"""The API's shared plumbing: the error body, the body size limit, strict input."""

import copy
import re
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse, QueryDict
from django.urls import reverse
from django.utils.http import parse_etags
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import exceptions, serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.play.errors import ServiceError


class BodySizeLimitMiddleware:
    """Answers 413 in the API's error format for a body over DATA_UPLOAD_MAX_MEMORY_SIZE,
    before anything reads it (Django's own check answers a bare 400 page)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        length = ascii_whole_number(request.META.get("CONTENT_LENGTH") or "")
        if limit is not None and length is not None and length > limit:
            return error_response(
                "payload_too_large", f"The request body is larger than {limit} bytes.", 413
            )
        return self.get_response(request)


class ReleaseRenderedDataMiddleware:
    """Lets go of a DRF answer's data once it is rendered: from then on its bytes are the
    answer. DRF's view, request and response point at each other, so whatever they hold
    is freed only by the garbage collector, and a match view's data (a few dozen dicts
    and lists) is most of what an action or a view leaves it beyond what a one-row
    insert's answer does (issue 15; tests/games/play/test_garbage.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(response, "is_rendered", False) and hasattr(response, "data"):
            response.data = None
        return response


def error_response(code: str, detail: str, status: int) -> JsonResponse:
    """The API's error body, for answers given outside DRF (middleware, async views)."""
    return JsonResponse({"code": code, "detail": detail}, status=status)


# ---------------------------------------------------------------- HTTP conventions
# (docs/api-versioning.md, "HTTP conventions")

# A seat's cards are in these answers: a browser or app may keep them, no shared cache may;
# and a kept copy is checked (If-None-Match) before it is used again.
PRIVATE = "private, no-cache"


def conditional(request: Any, tag: str, build: Any) -> Response:
    """An answer with a weak ETag (`W/"<tag>"`, `tag` computed by the view from what the
    body depends on, without building it), or 304 Not Modified with no body when the
    client's If-None-Match already names it (weak comparison, RFC 9110 13.1.2)."""
    etag = f'W/"{tag}"'
    sent = request.headers.get("If-None-Match", "")
    known = {t.removeprefix("W/") for t in parse_etags(sent)} if sent else set()
    if "*" in known or etag.removeprefix("W/") in known:
        response = Response(status=304)
    else:
        response = Response(build())
    response["ETag"] = etag
    response["Cache-Control"] = PRIVATE
    return response


def created(body: Any, url_name: str, *args: Any, status: int = 201) -> Response:
    """A 201 (or 202) with Location: the new resource's (or, for 202, where to poll)."""
    response = Response(body, status=status)
    response["Location"] = reverse(url_name, args=[str(a) for a in args])
    return response


def ascii_whole_number(value: str) -> int | None:
    """A whole number written in ASCII digits, or None. (str.isdigit() is also true of
    "²" and "٣", which int() refuses or reads as another number.)"""
    return int(value) if value.isascii() and value.isdigit() else None


class TokenScheme(KnoxTokenScheme):
    """The OpenAPI security scheme of knox's tokens, for the subclass above too."""

    target_class = "games.http.api_classes.TokenAuthentication"


class JsonErrorsMixin:
    """For a DRF view whose answers are not JSON (the OpenAPI document's YAML, Swagger UI's
    HTML): its errors (?format=xml, a wrong method, a bad token) are still the API's JSON
    error body."""

    def finalize_response(self, request: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        if response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only: not "yes", 1 or "on"."""

    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("invalid", input=data)
        return data


_INTEGER = re.compile(r"-?[0-9]+")


def _fresh(field: serializers.Field) -> serializers.Field:
    """A declared field's copy for one serializer instance to bind. DRF deep-copies each
    declared field (building it again from its arguments), two thirds of validating an
    action's body (issue 15); a plain field's binding only sets attributes of its own
    (name, parent, source), so a shallow copy with its own list of validators is enough.
    A field holding other fields (a nested serializer, a list's or a dict's child) keeps
    DRF's deep copy: they are bound to it, and through it to the serializer; so does a
    field whose default is a list, dict or set, which a request could change for the next."""
    holds_fields = hasattr(field, "child") or hasattr(field, "child_relation")
    shared_default = isinstance(getattr(field, "default", None), list | dict | set)
    if isinstance(field, serializers.BaseSerializer) or holds_fields or shared_default:
        return copy.deepcopy(field)
    fresh = copy.copy(field)
    if "_validators" in field.__dict__:
        fresh._validators = list(field._validators)
    return fresh


class StrictSerializer(serializers.Serializer):
    # Input exactly as the OpenAPI schema states it (StrictSerializerSchema below). A JSON
    # body: no field it does not know (a typo is an error rather than ignored), a string
    # field takes a JSON string and an integer field a JSON integer (DRF would take 5 for
    # "5", and "5" or 5.0 for 5). Query parameters: none it does not know, none given
    # twice, none given empty. Strings are taken as sent: DRF would trim their whitespace,
    # so " alice" would pass a pattern the schema says it fails, and "  " a minLength of 1
    # be refused as blank. (No docstring: the schema would show it for each subclass.)

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = {name: _fresh(field) for name, field in self._declared_fields.items()}
        for field in fields.values():
            if isinstance(field, serializers.CharField):
                field.trim_whitespace = False
        return fields

    def to_internal_value(self, data: Any) -> Any:
        problems: dict[str, list[str]] = {}
        if isinstance(data, QueryDict):
            for name, values in data.lists():
                if name not in self.fields:
                    problems[name] = ["This parameter is not allowed."]
                elif len(values) > 1:
                    problems[name] = ["Give this parameter once."]
                elif values[0] == "" and not getattr(self.fields[name], "allow_blank", False):
                    problems[name] = ["This parameter may not be empty."]
                elif isinstance(self.fields[name], serializers.IntegerField) and not (
                    _INTEGER.fullmatch(values[0])
                ):  # DRF would take "1.0", "1e0"-free decimals and non-ASCII digits
                    problems[name] = ["A valid integer is required."]
        elif isinstance(data, dict):
            for name in sorted(set(data) - set(self.fields)):
                problems[name] = ["This field is not allowed."]
            for name, field in self.fields.items():
                value = data.get(name)
                if value is None or field.read_only:
                    continue
                if isinstance(field, serializers.CharField) and not isinstance(value, str):
                    problems[name] = ["Not a valid string."]
                elif isinstance(field, serializers.IntegerField) and (type(value) is not int):
                    problems[name] = ["A valid integer is required."]
        if problems:
            raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class StrictSerializerSchema(OpenApiSerializerExtension):
    """drf-spectacular: a strict serializer's request body says it takes no other field,
    and a list of nested serializers says how many items it takes (spectacular leaves out
    a ListSerializer's min_length and max_length)."""

    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return schema
        schema["additionalProperties"] = False
        serializer = self.target if isinstance(self.target, serializers.Serializer) else None
        fields = serializer.fields if serializer else self.target().fields
        for name, field in fields.items():
            prop = schema.get("properties", {}).get(name)
            if isinstance(field, serializers.ListSerializer) and prop is not None:
                if field.min_length is not None:
                    prop["minItems"] = field.min_length
                if field.max_length is not None:
                    prop["maxItems"] = field.max_length
        return schema


_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.ParseError: "malformed_json",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid_input",
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error as {"code", "detail"} (plus "errors", "seq" or "retry_after")."""
    if isinstance(exc, ServiceError):
        return Response({"code": exc.code, "detail": exc.detail, **exc.extra}, status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    # Django's own Http404 (e.g. ?format=xml) and PermissionDenied, as DRF answers them.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    code = next((c for t, c in _CODES.items() if isinstance(exc, t)), None)
    if code is None:
        code = getattr(exc, "default_code", "error")
    body: dict[str, Any] = {"code": code}
    if isinstance(exc, exceptions.ValidationError):
        body["detail"] = (
            "The request has invalid fields: "
            + ", ".join(sorted(exc.detail) if isinstance(exc.detail, dict) else ["(body)"])
            + "."
        )
        body["errors"] = exc.detail if isinstance(exc.detail, dict) else {"body": exc.detail}
    elif isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait or 1)
        body["detail"] = f"Too many requests: retry in {wait} seconds."
        body["retry_after"] = wait
    elif isinstance(exc, exceptions.ParseError):
        body["detail"] = f"The body is not valid JSON ({exc.detail})."
    else:
        body["detail"] = _sentence(str(exc.detail))
    response.data = body
    return response


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."
