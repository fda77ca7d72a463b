"""Accounts: registering, and the guests the service makes itself."""

import datetime
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from knox.models import AuthToken

from games.errors import Conflict

GUEST_PREFIX = "guest-"


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
    instance, token = AuthToken.objects.create(user)
    return user, token, instance.expiry
