"""Throttles: who the client is, and counters that survive the cache going down. (Limits
on failures rather than on requests, wrong passwords: games.people.accounts.FailureLimit.)

The client's address is REMOTE_ADDR, unless the peer is a proxy the settings trust
(TRUSTED_PROXY_COUNT hops, the nearest one at an address in FORWARDED_ALLOW_IPS):
then it is the address that proxy wrote into X-Forwarded-For. A header the client
wrote itself is never believed.

Counters live in Django's cache (Redis in production, shared by every process).
When the cache is unreachable, a throttle must not turn a person's request into a
500: through games.live.shared_cache the counters move to this process's memory until
the cache answers again.
"""

import ipaddress
import logging
import math
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from games.live import shared_cache

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- the client's address


@lru_cache(maxsize=8)
def _networks(spec: str) -> tuple[Any, ...] | None:
    """FORWARDED_ALLOW_IPS ("127.0.0.1", "10.0.0.0/8,::1", "*") as networks; None: any."""
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if "*" in items:
        return None
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            log.warning("FORWARDED_ALLOW_IPS: %r is not an address or network; ignored", item)
    return tuple(networks)


def _is_trusted_proxy(address: str) -> bool:
    networks = _networks(settings.FORWARDED_ALLOW_IPS)
    if networks is None:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request: Any) -> str:
    """The address the request came from, as far as the settings let us know it."""
    remote = request.META.get("REMOTE_ADDR") or ""
    hops = settings.TRUSTED_PROXY_COUNT
    if hops <= 0 or not _is_trusted_proxy(remote):
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [a for a in forwarded if a]
    if not forwarded:
        return remote
    # Each trusted proxy appended the address it saw: the one `hops` from the end was
    # written by the outermost trusted proxy. Anything left of it came from the client.
    return forwarded[-min(hops, len(forwarded))]


# ---------------------------------------------------------------- throttles


class ServiceThrottle(ScopedRateThrottle):
    """Every throttle of the API: a rate per `throttle_scope` (REST_FRAMEWORK's
    DEFAULT_THROTTLE_RATES), per user, or per client address for anonymous callers;
    never a 500 because the cache is down."""

    @property
    def THROTTLE_RATES(self) -> dict[str, str | None]:  # noqa: N802 - DRF's name
        return api_settings.DEFAULT_THROTTLE_RATES  # as now, not as at import

    def get_ident(self, request: Any) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        return shared_cache.run(lambda cache: self._allow_with(cache, request, view))

    def _allow_with(self, cache: BaseCache, request: Any, view: Any) -> bool:
        self.cache = cache
        allowed = super().allow_request(request, view)
        if getattr(self, "rate", None) is not None and hasattr(self, "history"):
            _note_limit(request, self._state(allowed))
        return allowed

    def _state(self, allowed: bool) -> "RateLimitState":
        """The window as DRF's throttle left it: `history` holds this scope's request times,
        newest first (this request included when allowed); the oldest leaves the window
        first, giving one request back."""
        limit, used = self.num_requests, len(self.history)
        oldest = self.history[-1] if self.history else self.now
        reset = max(1, math.ceil(oldest + self.duration - self.now))
        return RateLimitState(limit, max(0, limit - used), reset if used else 0)


class RateLimitState(tuple):
    """(limit, remaining, reset seconds) of one throttle for one request."""

    def __new__(cls, limit: int, remaining: int, reset: int) -> "RateLimitState":
        return super().__new__(cls, (limit, remaining, reset))


def _note_limit(request: Any, state: RateLimitState) -> None:
    """Remembered on Django's request (DRF's wraps it) for RateLimitHeadersMiddleware; of
    several throttles, the one closest to its limit."""
    django_request = getattr(request, "_request", request)
    previous = getattr(django_request, "rate_limit", None)
    if previous is None or state[1] < previous[1]:
        django_request.rate_limit = state


class RateLimitHeadersMiddleware:
    """RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (the IETF httpapi draft's
    names, as GitHub's X-RateLimit-*) on every answer a ServiceThrottle counted, the 429
    included (which DRF gives Retry-After). Read from DRF's own throttle state: no second
    count, no extra cache round trip."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        response = self.get_response(request)
        state = getattr(request, "rate_limit", None)
        if state is not None:
            limit, remaining, reset = state
            response["RateLimit-Limit"] = str(limit)
            response["RateLimit-Remaining"] = str(remaining)
            response["RateLimit-Reset"] = str(reset)
        return response


class WritesThrottle(ServiceThrottle):
    """Throttles only the view's unsafe methods (POST), so that reads of the same URL
    (the match list) are not counted."""

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)
