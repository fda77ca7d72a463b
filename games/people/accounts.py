"""Accounts: registering, guests, signing in, and each device's token; and the limit on
failures (wrong passwords) rather than on requests, counted in the shared cache
(games.live.shared_cache), so that it holds across every process."""

import datetime
import hashlib
import secrets
import time
import unicodedata
from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import BaseCache
from django.db import IntegrityError, transaction
from django.db.models import F
from knox.models import AuthToken
from knox.settings import knox_settings
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from games.live import shared_cache
from games.models import GUEST_PREFIX, is_guest
from games.play.errors import Conflict


def normalize_username(name: str) -> str:
    """The name as it is stored: Unicode NFKC, as Django's create_user stores it ("ｂｏｂ１"
    is "bob1"; "ﷺ" is 18 characters). Check length, characters, the guest prefix and
    uniqueness on this, never on what was typed."""
    return get_user_model().normalize_username(name)


def user_register(*, username: str, password: str) -> AbstractBaseUser:
    """A new account. `username` is normalised already. A name taken ignoring case is a
    409 `username_taken`: whether this check finds it, or a registration racing this one
    commits first (the database's unique index on UPPER(username) decides)."""
    User = get_user_model()
    if User.objects.filter(username__iexact=username).exists():
        raise _taken()
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError as exc:
        raise _taken() from exc


def account_summary(user: AbstractBaseUser) -> dict[str, Any]:
    return {
        "id": user.pk,
        "username": user.get_username(),
        "is_guest": is_guest(user),
    }


def _taken() -> Conflict:
    return Conflict("username_taken", "That username is taken.")


def guest_create() -> tuple[AbstractBaseUser, str, datetime.datetime]:
    """A guest: a user with no usable password (the token is its only way in)."""
    User = get_user_model()
    while True:
        username = GUEST_PREFIX + secrets.token_hex(4)
        if not User.objects.filter(username=username).exists():
            break
    user = User(username=username)
    user.set_unusable_password()
    user.save()
    instance, token = device_token_create(user)
    return user, token, instance.expiry


def sign_in(*, request: Any, username: str, password: str) -> AbstractBaseUser:
    """The user with these credentials, or AuthenticationFailed (401). A username with
    too many wrong passwords lately, from anywhere, is refused with Throttled (429)
    before its password is even checked, so a guess spread over many addresses is
    slowed down as much as one from a single address."""
    failures = FailureLimit("signin_failures")
    ident = normalized_name(username)
    failures.check(ident)
    user = authenticate(request=request, username=username, password=password)
    if user is None:
        failures.record(ident)
        raise AuthenticationFailed("Wrong username or password.")
    return user


def device_token_create(user: AbstractBaseUser) -> tuple[AuthToken, str]:
    """A new token for one device. A user keeps at most knox's TOKEN_LIMIT_PER_USER
    tokens: past that, the ones used least recently (the soonest to expire, since use
    renews a token) are retired, so that signing in on a new phone works; the device
    whose token went signs in again."""
    limit = knox_settings.TOKEN_LIMIT_PER_USER
    with transaction.atomic():
        # One sign-in of this user at a time, so that two at once cannot both keep
        # the token the other retires, or leave more than the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        instance, token = AuthToken.objects.create(
            user=user, expiry=knox_settings.TOKEN_TTL, prefix=knox_settings.TOKEN_PREFIX
        )
        if limit is not None:
            newest_use = (F("expiry").desc(nulls_first=True), F("created").desc())
            keep = AuthToken.objects.filter(user=user).order_by(*newest_use)[:limit]
            AuthToken.objects.filter(user=user).exclude(
                pk__in=list(keep.values_list("pk", flat=True))
            ).delete()
    return instance, token


# ---------------------------------------------------------------- wrong passwords


def normalized_name(username: str) -> str:
    """One key for every spelling of a name: NFKC, case-folded, hashed (short, and no
    odd characters in cache keys)."""
    folded = unicodedata.normalize("NFKC", username).casefold().strip()
    return hashlib.sha256(folded.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class FailureLimit:
    """At most N failures (say, wrong passwords) per `ident` in a sliding window, the
    rate named `scope` in the throttle rates ("10/hour"). Checking does not count;
    only record() does, so that people who get it right are never slowed down."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)
        self.limit, self.window = ScopedRateThrottle().parse_rate(rate)

    def _key(self, ident: str) -> str:
        return f"failures_{self.scope}_{ident}"

    def _recent(self, cache: BaseCache, ident: str, now: float) -> list[float]:
        return [t for t in cache.get(self._key(ident), []) if t > now - self.window]

    def wait(self, ident: str) -> float | None:
        """Seconds until the next attempt is allowed, or None if it is allowed now."""
        if self.limit is None:
            return None
        now = time.time()
        recent = shared_cache.run(lambda cache: self._recent(cache, ident, now))
        if len(recent) < self.limit:
            return None
        return max(1.0, min(recent) + self.window - now)

    def check(self, ident: str) -> None:
        """Raises DRF's Throttled (429 with Retry-After) when over the limit."""
        wait = self.wait(ident)
        if wait is not None:
            raise Throttled(wait=wait)

    def record(self, ident: str) -> None:
        if self.limit is None:
            return
        now = time.time()

        def add(cache: BaseCache) -> None:
            recent = [*self._recent(cache, ident, now), now][-self.limit :]
            cache.set(self._key(ident), recent, self.window)

        shared_cache.run(add)
