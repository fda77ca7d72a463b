"""Production: everything from the environment, nothing insecure by default.

Required: SECRET_KEY (50+ random characters), DATABASE_URL, CELERY_BROKER_URL,
ALLOWED_HOSTS. A missing or weak one stops the process at start-up with a
message naming it. See docs/operations/configuration.md for every variable.

- Computer players' turns always go to Celery workers through the broker.
- The cache (the throttles' shared counters) is Redis: REDIS_URL, or when that
  is unset the broker's Redis server when the broker is Redis. A per-process
  cache would let every API process count its own requests, so with neither
  the settings refuse to start.
- HTTPS: requests are redirected to https (SECURE_SSL_REDIRECT, default on)
  except GET /healthz, which load balancers and health checks call over plain
  HTTP. Behind a TLS-terminating proxy that proxy must set X-Forwarded-Proto.
"""

import os
import sys

from django.core.exceptions import ImproperlyConfigured

from .settings import *  # noqa: F403
from .settings import database_from_env, env_bool, replica_from_env

_MODULE = "euchre_service.settings_production"
_DEV_KEY = "dev-only-insecure-key-do-not-use-in-production"
_KEY_HINT = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"


class SettingRefused(ImproperlyConfigured):
    """A required variable missing or unfit: the process stops, saying which in one line."""


def _refusal_in_one_line(kind, value, traceback, _before=sys.excepthook):
    """A refusal that no one caught (manage.py, a worker starting) is printed as its one
    line, not as the traceback through Django's lazy settings that led to it: the message
    names the variable and how to set it, the rest says nothing to the operator. (Django
    imports this module again at each access to a setting after a failed import: the
    refusal is known by its class's name, not by one import's class object.)"""
    if isinstance(value, ImproperlyConfigured) and type(value).__name__ == "SettingRefused":
        sys.stderr.write(f"ImproperlyConfigured: {value}\n")
    else:
        _before(kind, value, traceback)


if sys.excepthook.__name__ != _refusal_in_one_line.__name__:  # Django may import this twice
    sys.excepthook = _refusal_in_one_line


def _required(name: str, hint: str = "") -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise SettingRefused(
            f"{name} must be set in the environment for {_MODULE}" + (f" ({hint})" if hint else "")
        )
    return value


SECRET_KEY = _required("SECRET_KEY", f"make one with {_KEY_HINT}")
if (
    SECRET_KEY == _DEV_KEY
    or SECRET_KEY.startswith("django-insecure")
    or len(SECRET_KEY) < 50
    or len(set(SECRET_KEY)) < 5
):
    raise SettingRefused(
        f"SECRET_KEY is too weak for {_MODULE}: use 50 or more random characters "
        f"(make one with {_KEY_HINT})"
    )

DEBUG = False
ALLOWED_HOSTS = [
    h.strip() for h in _required("ALLOWED_HOSTS", "comma-separated").split(",") if h.strip()
]

# Persistent connections: a request should not pay for a new PostgreSQL connection.
DATABASES = {
    "default": database_from_env(
        _required("DATABASE_URL", "e.g. postgres://user:pass@host:5432/euchre"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
_replica = replica_from_env(int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")))
if _replica:  # DATABASE_REPLICA_URL: reads that may lag go there (games/log/replica.py)
    DATABASES["replica"] = _replica

CELERY_BROKER_URL = _required("CELERY_BROKER_URL", "e.g. redis://host:6379/0")
CELERY_TASK_ALWAYS_EAGER = False

REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if not REDIS_URL and CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    REDIS_URL = CELERY_BROKER_URL
if not REDIS_URL:
    raise SettingRefused(
        f"REDIS_URL must be set for {_MODULE} when the broker is not Redis: "
        "the throttles need a cache shared by every API process"
    )
CACHES = {
    "default": {
        "BACKEND": "games.live.redis_cache.SharedPoolRedisCache",  # one bounded pool a process
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "euchre"),
        "OPTIONS": CACHE_OPTIONS,  # noqa: F405
    }
}

# The image collects static files at build time; whitenoise serves them from STATIC_ROOT.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", False)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
