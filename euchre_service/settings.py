"""Settings, read from the environment with safe defaults.

With no environment at all this is the embedded default: SQLite in ./db.sqlite3,
an in-process cache, and Celery tasks run in-process (no broker). Production
uses euchre_service.settings_production, which requires the secrets and turns
on the transport security checks.
"""

import os
import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# A development key only; settings_production refuses to start without SECRET_KEY.
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-do-not-use-in-production")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "corsheaders",
    "games",
    "bots",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything that answers: a preflight (OPTIONS) is answered here, and every answer
    # under /api/ (errors too) carries the CORS headers for an allowed origin.
    "corsheaders.middleware.CorsMiddleware",
    # Static files (the web client, the admin, the API docs) in every mode, under ASGI too.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "games.http.api_support.BodySizeLimitMiddleware",
    # The middleware above get a DRF answer without its data (none of them reads it).
    "games.http.api_support.ReleaseRenderedDataMiddleware",
    # An unreachable database: 503 service_unavailable with Retry-After, not a 500.
    "games.http.api_errors.DatabaseUnavailableMiddleware",
    "games.http.api_errors.RefuseNullCharactersMiddleware",
    # RateLimit-* headers on every answer a throttle counted (games/http/throttling.py).
    "games.http.throttling.RateLimitHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "euchre_service.urls"
# Under /api/ a CSRF failure is the API's error body; elsewhere (the admin) Django's page.
CSRF_FAILURE_VIEW = "games.http.api_errors.csrf_failure"
WSGI_APPLICATION = "euchre_service.wsgi.application"
ASGI_APPLICATION = "euchre_service.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _several_hosts(url: str) -> tuple[str, list[tuple[str, str]]]:
    """libpq's several hosts in one URL (postgres://user@h1:5432,h2:5433/db): the URL with
    its first host alone (dj_database_url parses one host and refuses the list), and
    every (host, port) in order, a port "" where none is given; no list: [] ."""
    parts = urlsplit(url)
    userinfo, at, hostlist = parts.netloc.rpartition("@")
    if "," not in hostlist:
        return url, []
    hosts = []
    for item in hostlist.split(","):
        if item.startswith("["):  # [::1]:5432
            host, _, port = item[1:].partition("]")
            hosts.append((host, port.removeprefix(":")))
        else:
            host, _, port = item.partition(":")
            hosts.append((host, port))
    first = hostlist.split(",")[0]
    return urlunsplit(parts._replace(netloc=f"{userinfo}{at}{first}")), hosts


def database_from_env(url: str, conn_max_age: int) -> dict:
    """One DATABASES entry. A persistent connection is checked before a request reuses
    it, so the process recovers by itself after the database restarts; and connecting
    gives up after DATABASE_CONNECT_TIMEOUT seconds (psycopg's own default is 130 s,
    libpq's minimum 2), so a database that is away makes a quick 503, not a hung
    request (games.http.api_errors). Several hosts (h1:5432,h2:5432) with
    ?target_session_attrs=read-write reach whichever is the primary now: after a
    failover the service connects to the promoted standby with no change here
    (docs/operations/several-nodes.md)."""
    url, hosts = _several_hosts(url)
    database = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    if hosts:  # libpq takes comma-separated lists: host=h1,h2 port=5432,5433
        database["HOST"] = ",".join(host for host, _port in hosts)
        database["PORT"] = ",".join(port for _host, port in hosts)
    if database["ENGINE"] == "django.db.backends.postgresql":
        database.setdefault("OPTIONS", {}).setdefault(
            "connect_timeout", int(os.environ.get("DATABASE_CONNECT_TIMEOUT", "2"))
        )
    return database


DATABASES = {
    "default": database_from_env(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default writes from request threads and turn-timer threads at once:
    # take the write lock when a transaction starts (no deadlock upgrading a read lock),
    # wait for it rather than fail at once, and let readers run beside the writer.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )


def replica_from_env(conn_max_age: int) -> dict | None:
    """The `replica` alias from DATABASE_REPLICA_URL (empty: none): a read-only way into
    the same data (a streaming replica), for the reads that may lag (games/log/replica.py).
    In tests it is a mirror of the default database, not a database of its own."""
    url = os.environ.get("DATABASE_REPLICA_URL", "").strip()
    if not url:
        return None
    return {**database_from_env(url, conn_max_age), "TEST": {"MIRROR": "default"}}


_replica = replica_from_env(int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")))
if _replica:
    DATABASES["replica"] = _replica
DATABASE_ROUTERS = ["games.log.replica.ReplicaRouter"]
# A replica further behind the primary than this many seconds (or not answering) is not
# read: the reads that may lag read the primary until it is back within it.
DATABASE_REPLICA_MAX_LAG = float(os.environ.get("DATABASE_REPLICA_MAX_LAG", "30"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis serves the throttles' shared counters and (later) the live streams when
# several API processes run side by side; without it, one process's memory.
REDIS_URL = os.environ.get("REDIS_URL", "")
# A cache server that is down or hung must cost a request at most this long (seconds);
# the throttles then count in the process's memory (games/http/throttling.py) and try the
# cache again after CACHE_RETRY_SECONDS.
CACHE_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 1}
CACHE_RETRY_SECONDS = float(os.environ.get("CACHE_RETRY_SECONDS", "5"))
# Freeze what a process made while starting out of the garbage collector's passes
# (euchre_service/heap.py): the API's, the streams' and the workers' processes.
GC_FREEZE = env_bool("GC_FREEZE", True)
# The live updates' Redis pub/sub channels (games/live/live.py): <prefix>match:<id> and
# <prefix>user:<id>. Channels are global to a Redis server, whatever its database number,
# so two deployments (or two test workers) that share one server need prefixes of their own.
LIVE_CHANNEL_PREFIX = os.environ.get("LIVE_CHANNEL_PREFIX", "euchre:")
# Redis connections per process for the cache (throttles, presence), at most.
REDIS_POOL_SIZE = int(os.environ.get("REDIS_POOL_SIZE", "32"))
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's RedisCache with one bounded pool per process (games/live/redis_cache.py).
            "BACKEND": "games.live.redis_cache.SharedPoolRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": CACHE_OPTIONS,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The client's address, for the throttles: REMOTE_ADDR, unless the peer is a proxy we
# trust. TRUSTED_PROXY_COUNT is how many proxies stand in front of the service, each
# appending the address it saw to X-Forwarded-For (0: none, believe no header; 1: the
# compose nginx); the nearest must connect from an address in FORWARDED_ALLOW_IPS
# (comma-separated addresses or networks, or "*"), the variable gunicorn and uvicorn
# read for the same purpose. See docs/operations/proxy.md, "The client's address".
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0") or 0)
FORWARDED_ALLOW_IPS = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Live streams (GET .../stream): a comment this often keeps idle connections open
# through proxies, and each one also polls the log for anything a message missed.
STREAM_KEEPALIVE_SECONDS = float(os.environ.get("STREAM_KEEPALIVE_SECONDS", "15"))
# A stream is closed after this long; clients reconnect (and are authenticated again).
STREAM_MAX_SECONDS = float(os.environ.get("STREAM_MAX_SECONDS", "3600"))

# The player's own feed (GET /api/v1/me/stream, games/http/feed.py): a Last-Event-ID whose
# events are older than this is answered 410 feed_cursor_expired (resync with /me/matches).
FEED_RETENTION_SECONDS = float(os.environ.get("FEED_RETENTION_SECONDS", str(7 * 24 * 3600)))

# CORS (django-cors-headers), for web apps on other origins: only the API, only the origins
# listed in CORS_ALLOWED_ORIGINS (comma-separated, e.g. "https://app.example.com"; none by
# default). Tokens travel in the Authorization header, never cookies: no credentials mode.
# docs/api-versioning.md, "HTTP conventions".
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_URLS_REGEX = r"^/api/.*$"
# Every method of the API (DELETE: leaving quick play's queue); a test preflights each
# operation of openapi.yaml, so that an operation of a method not listed here fails it.
CORS_ALLOW_METHODS = ["DELETE", "GET", "OPTIONS", "POST"]
CORS_ALLOW_HEADERS = [
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "if-none-match",
    "last-event-id",
]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Idempotent-Replayed",
]
CORS_PREFLIGHT_MAX_AGE = int(os.environ.get("CORS_PREFLIGHT_MAX_AGE", "3600"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Without `collectstatic` (the embedded default, tests) files are found in the apps.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", True)
if WHITENOISE_USE_FINDERS:  # then an empty STATIC_ROOT is expected, not worth a warning
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
# With DEBUG on, files edited while the server runs are served as they are now.
WHITENOISE_AUTOREFRESH = DEBUG

# Requests larger than this are refused before any view reads them.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", "65536"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["games.http.api_classes.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": ["games.http.api_classes.JSONParser"],
    "EXCEPTION_HANDLER": "games.http.api_support.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # Rates are "<count>/<s|min|hour|day>"; throttles are in games/http/throttling.py.
    "DEFAULT_THROTTLE_RATES": {
        # sign-up and sign-in attempts, per client address
        "auth": os.environ.get("THROTTLE_AUTH", "20/min"),
        # wrong passwords per username, from any number of addresses
        "signin_failures": os.environ.get("THROTTLE_SIGNIN_FAILURES", "10/hour"),
        # guest accounts made, per client address
        "guests": os.environ.get("THROTTLE_GUESTS", "30/hour"),
        # failed admin logins, per client address and per username
        "admin_login": os.environ.get("THROTTLE_ADMIN_LOGIN", "10/hour"),
        # bids, plays and hint requests, per user
        "actions": os.environ.get("THROTTLE_ACTIONS", "600/min"),
        # creating, joining and leaving matches, per user
        "matches": os.environ.get("THROTTLE_MATCHES", "30/min"),
    },
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# Matches waiting or being played that one person may sit at, at once.
MAX_ACTIVE_MATCHES_PER_USER = int(os.environ.get("MAX_ACTIVE_MATCHES_PER_USER", "20"))
# How long a response to a request with an Idempotency-Key is kept for a retry (as
# payment APIs keep theirs); games.tasks.prune deletes older ones.
IDEMPOTENCY_KEY_HOURS = float(os.environ.get("IDEMPOTENCY_KEY_HOURS", "24"))

SPECTACULAR_SETTINGS = {
    "TITLE": "Euchre game service",
    "DESCRIPTION": "Four-player Euchre against people and computer players; "
    "every match is an append-only event log.",
    "VERSION": "1.3.1",  # docs/api-versioning.md, the changelog
    # JSON Schema's null (a type list, a union with null): 3.0's `nullable` beside a required
    # field was read as not null by some generators (docs/api-versioning.md).
    "OAS_VERSION": "3.1.0",
    "SERVERS": [{"url": "/", "description": "The host that serves this document."}],
    "LICENSE": {"name": "Proprietary: all rights reserved", "identifier": "LicenseRef-Proprietary"},
    "CONTACT": {"name": "The Euchre game service's maintainers"},
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "Card": "games.http.api_schema.CARDS",
        "Suit": "games.http.api_schema.SUITS",
        "SeatName": "games.engine.SEAT_NAMES",
        "MatchStatus": "games.models.MatchStatus",
        # The seat's kind (a match's seats, /me/matches' players): one enum, as before.
        "SeatKindEnum": "games.models.SeatKind",
        "HintStatus": "games.models.HintStatus",
        "HintFailure": "games.http.api_schema.HINT_FAILURES",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.http.streams.schema_hook",
        "games.http.feed.schema_hook",
        "games.http.api_schema.schema_hook",  # after the stream is described
    ],
}

# One revocable token per device sign-in, kept alive while it is used. A user has at
# most TOKEN_LIMIT_PER_USER: signing in on one more device retires the oldest token
# (games.people.accounts.device_token_create) rather than refusing the new device.
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=int(os.environ.get("TOKEN_TTL_DAYS", "30"))),
    "AUTO_REFRESH": True,
    "TOKEN_LIMIT_PER_USER": 50,
}

# Celery: with no broker the tasks run in-process (the embedded default).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not CELERY_BROKER_URL)
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A pool child is replaced once a task leaves it above this RSS (KiB). Measured over
# hours (benchmarks/celery_memory.py, docs/operations/benchmarks.md "The Celery children's memory"):
# a child starts at 87 MB, is at about 115 MB after its first minutes, then keeps growing
# 25 to 60 MB an hour without levelling off, so it is capped. 200 MB leaves a warmed-up
# child 85 MB of room (a few hours' work at that pace) and bounds a worker machine at
# concurrency x 200 MB. By memory rather than by a task count: only a child that really
# grew is replaced (each new one imports Django and the bots again, about a second of CPU).
CELERY_WORKER_MAX_MEMORY_PER_CHILD = int(os.environ.get("CELERY_MAX_MEMORY_PER_CHILD", "200000"))
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A task that a dead worker had taken is handed out again after this many seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
    # How often workers look for such tasks: every interval x throttle seconds.
    "unacked_restore_interval": int(os.environ.get("CELERY_UNACKED_RESTORE_INTERVAL", "10")),
    "unacked_restore_throttle": int(os.environ.get("CELERY_UNACKED_RESTORE_THROTTLE", "10")),
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
# Publishing a task must not hang a person's request while the broker is down.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    # A turn lost with the broker (an action committed while Redis was down) is queued
    # again at most COMPUTER_TURN_STALE_AFTER + this many seconds later: 25 s, within
    # issue 33's goal of 30 s after Redis is back (tests/bots/test_worker_redis_outage.py).
    "sweep-waiting-matches": {
        "task": "games.tasks.sweep_waiting_matches",
        "schedule": float(os.environ.get("COMPUTER_TURN_SWEEP_EVERY", "5")),
    },
    # Expired idempotent responses and device tokens (games.tasks.prune).
    "prune": {"task": "games.tasks.prune", "schedule": float(os.environ.get("PRUNE_EVERY", "600"))},
}
# Seconds a computer player waits before moving (pacing for people watching): the turn
# task's countdown, so a waiting turn holds no worker.
COMPUTER_MOVE_DELAY = float(os.environ.get("COMPUTER_MOVE_DELAY", "0"))
# A match waiting this long on a computer player is re-queued by the sweep.
COMPUTER_TURN_STALE_AFTER = int(os.environ.get("COMPUTER_TURN_STALE_AFTER", "20"))
# Hard's search per decision (bots/players/hard.py Budget): deals of the hidden cards and
# playouts, for a computer seat and for a hint. Counted, not timed; tests set them low.
HARD_SAMPLES = int(os.environ.get("HARD_SAMPLES", "48"))
HARD_PLAYOUTS = int(os.environ.get("HARD_PLAYOUTS", "240"))
HINT_SAMPLES = int(os.environ.get("HINT_SAMPLES", "96"))
HINT_PLAYOUTS = int(os.environ.get("HINT_PLAYOUTS", "480"))
# The review of a finished match (bots/review.py): deals of the hidden cards per decision;
# how long a review may stay pending (its task lost) before the sweep, or a request for it,
# queues it again; and how many times its task is queued before it ends as failed
# (review_timed_out). A whole match takes seconds to review: 120 s is a lost task.
REVIEW_SAMPLES = int(os.environ.get("REVIEW_SAMPLES", "32"))
REVIEW_STALE_AFTER = int(os.environ.get("REVIEW_STALE_AFTER", "120"))
REVIEW_MAX_ATTEMPTS = int(os.environ.get("REVIEW_MAX_ATTEMPTS", "3"))
# A hint still pending this long (its task lost) is ended by the sweep as failed.
HINT_STALE_AFTER = int(os.environ.get("HINT_STALE_AFTER", "60"))
# A computer turn that fails on a database error is retried this often, backing off
# 1, 2, 4, ... seconds (at most COMPUTER_TURN_RETRY_BACKOFF_MAX), before the sweep's turn.
COMPUTER_TURN_MAX_RETRIES = int(os.environ.get("COMPUTER_TURN_MAX_RETRIES", "5"))
COMPUTER_TURN_RETRY_BACKOFF_MAX = int(os.environ.get("COMPUTER_TURN_RETRY_BACKOFF_MAX", "8"))
# In-process mode (no workers) enforces turn timers with a timer thread per deadline, and
# builds a finished match's review in a niced process of its own (later.run_in_background).
TURN_TIMER_THREADS = env_bool("TURN_TIMER_THREADS", True)
# The sweep also enforces turn deadlines passed by this many seconds (a lost timer task).
TURN_TIMER_SWEEP_GRACE = int(os.environ.get("TURN_TIMER_SWEEP_GRACE", "5"))
# Quick play (games/people/quickplay.py): a table waits this long for people, then computer
# players take its open seats (if the people asked for them) and it starts.
QUICKPLAY_WAIT_SECONDS = float(os.environ.get("QUICKPLAY_WAIT_SECONDS", "20"))
# A rematch offer (games/people/rematch.py) expires if not every person accepted in this time.
REMATCH_OFFER_SECONDS = int(os.environ.get("REMATCH_OFFER_SECONDS", "120"))
# How long a process answers who is at a table from what it last read (games/live/presence.py):
# another process's stream is shown up to this late; 0 reads the cache for every answer.
PRESENCE_READ_SECONDS = float(os.environ.get("PRESENCE_READ_SECONDS", "1"))
# Spectators of one match counted (games/live/presence.py), each in a slot of the cache.
SPECTATOR_SLOTS = int(os.environ.get("SPECTATOR_SLOTS", "200"))
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Match reviews (games.play.later.BACKGROUND_TASKS) go to a queue of their own, consumed by a
# worker of its own (docker-compose's review-worker), so they never delay a computer turn.
CELERY_REVIEW_QUEUE = os.environ.get("CELERY_REVIEW_QUEUE", "review")
# A finished (or abandoned) match's log moves into one compressed archive row this long
# after it ended (games/log/archive.py), by beat's games.tasks.archive_events every
# EVENT_ARCHIVE_EVERY seconds, at most EVENT_ARCHIVE_BATCH matches a run, on the review
# queue (background work nobody waits for).
EVENT_ARCHIVE_AFTER_MINUTES = float(os.environ.get("EVENT_ARCHIVE_AFTER_MINUTES", "60"))
EVENT_ARCHIVE_BATCH = int(os.environ.get("EVENT_ARCHIVE_BATCH", "500"))
CELERY_BEAT_SCHEDULE["archive-events"] = {
    "task": "games.tasks.archive_events",
    "schedule": float(os.environ.get("EVENT_ARCHIVE_EVERY", "300")),
    "options": {"queue": CELERY_REVIEW_QUEUE},
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
