"""Accounts the service makes itself: guests."""

import datetime
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from knox.models import AuthToken

GUEST_PREFIX = "guest-"


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
