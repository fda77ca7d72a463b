"""euchre_service.settings_production, run as production runs it: in a fresh process
with only the environment (DJANGO_SETTINGS_MODULE and the variables it requires)."""

import json
import os
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks._server import with_path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = "euchre_service.settings_production"
# What the tests' own environment may carry that must not leak into "production".
SCRUB = (
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "REDIS_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "SECURE_SSL_REDIRECT",
    "DATABASE_CONN_MAX_AGE",
    "DATABASE_REPLICA_URL",
)


def production_env(**overrides: str | None) -> dict[str, str]:
    """The process environment with the required production variables; None removes one."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    database = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/euchre")
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": PRODUCTION,
            "SECRET_KEY": secrets.token_urlsafe(50),
            # The maintenance database: always there, and these processes only SELECT 1.
            "DATABASE_URL": with_path(database, "/postgres"),
            "CELERY_BROKER_URL": broker,
            "ALLOWED_HOSTS": "euchre.example.com",
            "PYTHONPATH": str(ROOT),
        }
    )
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def settings_of(env: dict[str, str], *names: str) -> dict:
    script = textwrap.dedent(
        f"""
        import json
        from django.conf import settings
        print(json.dumps({{n: getattr(settings, n) for n in {list(names)!r}}}, default=str))
        """
    )
    done = run(["-c", script], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_django_deploy_checks_pass_at_warning_level():
    done = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING", "--tag", "security"],
        production_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_manage_check_deploy_passes_at_warning_level():
    """Everything `check --deploy` runs, the OpenAPI schema generation included."""
    done = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env())
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_replica_url_adds_the_read_only_alias_and_the_deploy_checks_stay_clean():
    """DATABASE_REPLICA_URL (games/log/replica.py): the `replica` alias, a mirror in tests."""
    database = production_env()["DATABASE_URL"]
    replica = database + "?options=-c%20default_transaction_read_only%3Don"
    env = production_env(DATABASE_REPLICA_URL=replica)
    done = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    found = settings_of(env, "DATABASES", "DATABASE_ROUTERS")
    assert set(found["DATABASES"]) == {"default", "replica"}
    alias = found["DATABASES"]["replica"]
    assert alias["OPTIONS"]["options"] == "-c default_transaction_read_only=on"
    assert alias["TEST"] == {"MIRROR": "default"} and alias["CONN_MAX_AGE"] == 60
    assert found["DATABASE_ROUTERS"] == ["games.log.replica.ReplicaRouter"]
    assert set(settings_of(production_env(), "DATABASES")["DATABASES"]) == {"default"}


@pytest.mark.parametrize("value", [None, "", "   "])
def test_a_missing_secret_key_refuses_to_start_with_a_clear_message(value):
    done = run(["manage.py", "check"], production_env(SECRET_KEY=value))
    assert done.returncode != 0
    last_line = done.stderr.strip().splitlines()[-1]
    assert "ImproperlyConfigured: SECRET_KEY must be set" in last_line
    assert "secrets.token_urlsafe" in last_line  # says how to make one


@pytest.mark.parametrize("missing", ["SECRET_KEY", "DATABASE_URL"])
def test_check_deploy_without_a_required_variable_says_so_in_one_line(missing):
    """What an operator runs first (README, "Check a configuration"): one line naming the
    variable, not a traceback through Django's lazy settings."""
    done = run(["manage.py", "check", "--deploy"], production_env(**{missing: None}))
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"ImproperlyConfigured: {missing} must be set in the environment")
    assert done.stdout == ""


@pytest.mark.parametrize(
    "key",
    [
        "dev-only-insecure-key-do-not-use-in-production",
        "short-but-random-Zq8",
        "a" * 60,
        # (a named case: a random id would differ between the test processes' collections)
        pytest.param("django-insecure-" + secrets.token_urlsafe(50), id="django-insecure-random"),
    ],
)
def test_a_weak_secret_key_refuses_to_start(key):
    done = run(["manage.py", "check"], production_env(SECRET_KEY=key))
    assert done.returncode != 0
    assert "SECRET_KEY is too weak" in done.stderr


@pytest.mark.parametrize("name", ["DATABASE_URL", "CELERY_BROKER_URL", "ALLOWED_HOSTS"])
def test_each_required_variable_is_named_when_missing(name):
    done = run(["manage.py", "check"], production_env(**{name: None}))
    assert done.returncode != 0
    assert f"{name} must be set" in done.stderr.strip().splitlines()[-1]


def test_debug_and_in_process_tasks_cannot_be_switched_on():
    env = production_env(DEBUG="true", CELERY_TASK_ALWAYS_EAGER="1")
    assert settings_of(env, "DEBUG", "CELERY_TASK_ALWAYS_EAGER") == {
        "DEBUG": False,
        "CELERY_TASK_ALWAYS_EAGER": False,
    }


def test_database_connections_persist_and_are_health_checked():
    db = settings_of(production_env(), "DATABASES")["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert db["CONN_MAX_AGE"] == 60
    assert db["CONN_HEALTH_CHECKS"] is True


def test_the_cache_is_redis_at_redis_url():
    env = production_env(REDIS_URL="redis://127.0.0.1:6379/3")
    cache = settings_of(env, "CACHES")["CACHES"]["default"]
    assert cache["BACKEND"] == "games.live.redis_cache.SharedPoolRedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/3"


def test_a_hung_cache_server_costs_a_request_at_most_a_second():
    cache = settings_of(production_env(), "CACHES")["CACHES"]["default"]
    assert cache["OPTIONS"]["socket_connect_timeout"] <= 1
    assert cache["OPTIONS"]["socket_timeout"] <= 1


def test_the_client_address_is_remote_addr_unless_a_trusted_proxy_is_configured():
    unset = production_env(TRUSTED_PROXY_COUNT=None, FORWARDED_ALLOW_IPS=None)
    found = settings_of(unset, "TRUSTED_PROXY_COUNT", "FORWARDED_ALLOW_IPS")
    assert found == {"TRUSTED_PROXY_COUNT": 0, "FORWARDED_ALLOW_IPS": "127.0.0.1"}
    env = production_env(TRUSTED_PROXY_COUNT="1", FORWARDED_ALLOW_IPS="*")
    found = settings_of(env, "TRUSTED_PROXY_COUNT", "FORWARDED_ALLOW_IPS", "REST_FRAMEWORK")
    assert found["TRUSTED_PROXY_COUNT"] == found["REST_FRAMEWORK"]["NUM_PROXIES"] == 1
    assert found["FORWARDED_ALLOW_IPS"] == "*"


def test_without_redis_url_the_cache_is_the_brokers_redis():
    # Throttle counters must be shared by every API process: never a per-process cache.
    env = production_env(CELERY_BROKER_URL="redis://127.0.0.1:6379/7")
    cache = settings_of(env, "CACHES")["CACHES"]["default"]
    assert cache["BACKEND"] == "games.live.redis_cache.SharedPoolRedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/7"


def test_a_broker_that_is_not_redis_needs_redis_url():
    done = run(["manage.py", "check"], production_env(CELERY_BROKER_URL="amqp://127.0.0.1//"))
    assert done.returncode != 0
    assert "REDIS_URL must be set" in done.stderr.strip().splitlines()[-1]


HTTPS_PROBE = textwrap.dedent(
    """
    import json
    import django
    django.setup()
    from django.test import Client
    client = Client(HTTP_HOST="euchre.example.com")
    def seen(r):
        return [r.status_code, r.get("Location"), r.get("Strict-Transport-Security")]
    out = {path: seen(client.get(path)) for path in ("/healthz", "/api/v1/matches")}
    out["https"] = seen(client.get("/api/v1/matches", HTTP_X_FORWARDED_PROTO="https"))
    print(json.dumps(out))
    """
)


def test_http_is_redirected_to_https_except_healthz():
    done = run(["-c", HTTPS_PROBE], production_env())
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["/healthz"][:2] == [200, None]  # load balancers probe it over plain HTTP
    assert seen["/api/v1/matches"][:2] == [301, "https://euchre.example.com/api/v1/matches"]
    # Behind the TLS proxy (X-Forwarded-Proto: https): served, with HSTS.
    status, location, hsts = seen["https"]
    assert (status, location) == (401, None)
    assert hsts.startswith("max-age=31536000")


def test_the_redirect_can_be_switched_off_for_a_plain_http_trial():
    done = run(["-c", HTTPS_PROBE], production_env(SECURE_SSL_REDIRECT="false"))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["/api/v1/matches"][:2] == [401, None]
