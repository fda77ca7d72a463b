"""The API's shared plumbing: the error body, the body size limit, strict input."""

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from rest_framework import exceptions, serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import ServiceError


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


def error_response(code: str, detail: str, status: int) -> JsonResponse:
    """The API's error body, for answers given outside DRF (middleware, async views)."""
    return JsonResponse({"code": code, "detail": detail}, status=status)


def ascii_whole_number(value: str) -> int | None:
    """A whole number written in ASCII digits, or None. (str.isdigit() is also true of
    "²" and "٣", which int() refuses or reads as another number.)"""
    return int(value) if value.isascii() and value.isdigit() else None


class TokenScheme(KnoxTokenScheme):
    """The OpenAPI security scheme of knox's tokens, for the subclass above too."""

    target_class = "games.api_classes.TokenAuthentication"


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


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is an error rather than ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["This field is not allowed."] for name in unknown}
                )
        return super().to_internal_value(data)


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable, for programs to switch on.")
    detail = serializers.CharField(help_text="A sentence for a person.")
    errors = serializers.DictField(required=False, help_text="Per-field problems (400 only).")
    seq = serializers.IntegerField(required=False, help_text="The match's newest event.")
    retry_after = serializers.IntegerField(required=False, help_text="Seconds (429 only).")


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
