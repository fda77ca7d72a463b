"""The classes DRF's settings name: the JSON parser and the token authentication.

Apart from games.http.api_support, which imports DRF's views: importing those reads these
settings, and so imports this module.
"""

import math
import re
from typing import Any

from django.utils import timezone
from knox import auth as knox_auth
from knox.signals import token_expired
from rest_framework import exceptions, parsers

MAX_JSON_DEPTH = 32  # far deeper than any request needs (a match is 3 levels deep)
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing with 400 `malformed_json` what would break further in:
    nesting deeper than MAX_JSON_DEPTH (Python's decoder raises RecursionError near 1,000
    levels, and deep values break error messages that quote them), strings with an
    unpaired surrogate escape such as "\\ud800" (not Unicode text: no answer quoting
    it can be encoded, and nothing can store it), and numbers too large for a float
    (1e400 would be read as infinity, which no JSON answer can hold)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise exceptions.ParseError(_TOO_DEEP) from exc
        _refuse_unusable(data)
        return data


_TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep"


def _refuse_unusable(data: Any) -> None:
    """Walks the parsed document without recursion."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise exceptions.ParseError(_TOO_DEEP)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise exceptions.ParseError("a name is not Unicode text")
                stack.append((item, depth + 1))
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise exceptions.ParseError("a string is not Unicode text: an unpaired surrogate")
        elif isinstance(value, float) and not math.isfinite(value):  # 1e400 reads as inf
            raise exceptions.ParseError("a number is out of range")


class TokenAuthentication(knox_auth.TokenAuthentication):
    """knox's token authentication, answering a token that is not printable ASCII with
    401 `authentication_failed` (knox decodes the header's bytes as UTF-8 and raised on
    anything else; knox tokens are hex).

    knox also reads every other token of the user on every request, to delete the
    expired ones (its `_cleanup_token`): a second query per request, up to
    TOKEN_LIMIT_PER_USER rows. Here a request checks its own token's expiry only (an
    expired token is refused and deleted, as knox does), and the others expire where
    they are: the periodic `games.tasks.prune` deletes them (games.people.accounts)."""

    def authenticate_credentials(self, token: bytes) -> Any:
        if not (token.isascii() and token.decode("ascii").isprintable()):
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)

    def _cleanup_token(self, auth_token: Any) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False
