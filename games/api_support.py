"""The API's shared plumbing: the error body, the size-limited JSON parser, strict input."""

from typing import Any

from django.conf import settings
from rest_framework import exceptions, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import ServiceError


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = "The request body is too large."


class LimitedJSONParser(JSONParser):
    """JSON, refusing bodies over DATA_UPLOAD_MAX_MEMORY_SIZE before reading them whole."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        request = (parser_context or {}).get("request")
        length = request.META.get("CONTENT_LENGTH") if request is not None else None
        if length and length.isdigit() and int(length) > limit:
            raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        return super().parse(stream, media_type, parser_context)


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
        body["detail"] = f"The body is not valid JSON: {exc.detail}"
    else:
        body["detail"] = str(exc.detail)
    response.data = body
    return response
