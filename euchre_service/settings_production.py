"""Production: everything from the environment, nothing insecure by default.

Required: SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, ALLOWED_HOSTS.
"""

import os

from .settings import *  # noqa: F403
from .settings import env_bool


def _required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(f"{name} must be set for production settings")
    return value


SECRET_KEY = _required("SECRET_KEY")
_required("DATABASE_URL")
_required("CELERY_BROKER_URL")
_required("ALLOWED_HOSTS")
DEBUG = False
CELERY_TASK_ALWAYS_EAGER = False

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
