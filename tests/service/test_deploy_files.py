"""docker-compose.yml, Dockerfile, .dockerignore and .env.example.

Docker cannot run here, so the files are checked for what they promise, and the
commands compose runs (migrate, gunicorn, the Celery worker and beat, and their
health checks) are run as they are written, against this machine's PostgreSQL
and Redis instead of the containers'.
"""

import http.client
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from benchmarks._server import spare_port, with_path
from euchre_service.uvicorn_errors import PROTOCOL as UVICORN_PROTOCOL

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("migrate", "api", "stream", "worker", "review-worker", "beat")
LONG_RUNNING = ("postgres", "redis", "api", "stream", "proxy", "worker", "review-worker", "beat")
VARIABLE = re.compile(r"(?<!\$)\$\{(\w+)(?::?([-?])([^}]*))?\}")


def compose_text() -> str:
    return (ROOT / "docker-compose.yml").read_text()


def interpolate(value, env: dict[str, str]):
    """Compose's variable substitution: ${X}, ${X:-default}, ${X:?error}, $$ for $."""

    def one(match: re.Match) -> str:
        name, op, arg = match.groups()
        found = env.get(name, "")
        if op == "?" and not found:
            raise KeyError(f"{name}: {arg}")
        if op == "-" and not found:
            return arg
        return found

    if isinstance(value, str):
        return VARIABLE.sub(one, value).replace("$$", "$")
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    return value


def services(env: dict[str, str] | None = None) -> dict:
    env = {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "pw"} if env is None else env
    return interpolate(yaml.safe_load(compose_text()), env)["services"]


def command(service: dict) -> list[str]:
    cmd = service.get("command")
    return shlex.split(cmd) if isinstance(cmd, str) else list(cmd)


def health_test(service: dict) -> list[str]:
    return service["healthcheck"]["test"]


# ---------------------------------------------------------------- the compose file


def test_compose_runs_the_whole_stack():
    found = services()
    assert set(found) == {
        "postgres",
        "redis",
        "migrate",
        "api",
        "stream",
        "proxy",
        "worker",
        "review-worker",
        "beat",
    }
    assert found["postgres"]["image"] == "postgres:16"
    assert found["redis"]["image"] == "redis:7"
    for name in APP_SERVICES:
        assert found[name]["build"] == "."
        assert found[name]["image"] == found["api"]["image"]
    assert command(found["api"])[0] == "gunicorn"
    assert command(found["stream"])[:2] == ["uvicorn", "euchre_service.asgi:application"]
    stream = command(found["stream"])
    assert stream[stream.index("--http") + 1] == UVICORN_PROTOCOL  # JSON for what it refuses
    assert found["proxy"]["image"].startswith("nginx:")
    assert command(found["worker"])[:4] == ["celery", "-A", "euchre_service", "worker"]
    assert command(found["beat"])[:4] == ["celery", "-A", "euchre_service", "beat"]
    assert command(found["migrate"]) == ["python", "manage.py", "migrate", "--noinput"]
    assert found["migrate"]["restart"] == "no"


def test_match_reviews_have_a_queue_and_a_worker_of_their_own_at_a_lower_priority():
    """The turn worker consumes the default queue only; the review worker the review
    queue only (settings.CELERY_REVIEW_QUEUE's default), one task at a time, niced."""
    found = services()
    worker, review = command(found["worker"]), command(found["review-worker"])
    assert worker[worker.index("-Q") + 1] == "celery"
    assert review[:3] == ["nice", "-n", "10"]
    assert review[3:7] == ["celery", "-A", "euchre_service", "worker"]
    assert review[review.index("-Q") + 1] == "review"
    assert review[review.index("--concurrency") + 1] == "1"
    assert "review@" in " ".join(health_test(found["review-worker"]))
    assert "inspect ping" in " ".join(health_test(found["review-worker"]))


def test_every_long_running_service_has_a_health_check():
    found = services()
    for name in LONG_RUNNING:
        check = found[name]["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert {"interval", "timeout", "retries"} <= set(check), name
    assert "pg_isready" in " ".join(health_test(found["postgres"]))
    assert health_test(found["redis"]) == ["CMD", "redis-cli", "ping"]
    assert "/healthz" in " ".join(health_test(found["api"]))
    assert "8001/healthz" in " ".join(health_test(found["stream"]))
    assert "8080/healthz" in " ".join(health_test(found["proxy"]))
    assert "inspect ping" in " ".join(health_test(found["worker"]))
    assert "healthcheck" not in found["migrate"]  # a one-shot job: it exits when done


def test_services_start_once_what_they_need_is_healthy():
    found = services()
    assert found["migrate"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert found["proxy"]["depends_on"] == {
        "api": {"condition": "service_healthy"},
        "stream": {"condition": "service_healthy"},
    }
    for name in ("api", "stream", "worker", "review-worker", "beat"):
        needs = found[name]["depends_on"]
        assert needs["postgres"] == {"condition": "service_healthy"}, name
        assert needs["redis"] == {"condition": "service_healthy"}, name
        assert needs["migrate"] == {"condition": "service_completed_successfully"}, name


def test_the_app_services_run_the_production_settings_on_the_stacks_servers():
    for name in APP_SERVICES:
        env = services()[name]["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "euchre_service.settings_production", name
        assert {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "ALLOWED_HOSTS"} <= set(env)
        assert urlsplit(env["DATABASE_URL"]).hostname == "postgres"
        assert urlsplit(env["CELERY_BROKER_URL"]).hostname == "redis"
        # The cache (throttles) and the broker share the Redis server, not the database.
        assert env["REDIS_URL"] != env["CELERY_BROKER_URL"]


def test_the_compose_file_holds_no_secret():
    text = compose_text()
    assert re.search(r"SECRET_KEY: \$\{SECRET_KEY:\?", text)
    assert re.search(r"POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?", text)
    for required in ("SECRET_KEY", "POSTGRES_PASSWORD"):
        env = {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "pw"}
        del env[required]
        with pytest.raises(KeyError, match=required):
            services(env)  # compose refuses to start without it
    tracked = subprocess.run(
        ["git", "ls-files", ".env"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert tracked.stdout.strip() == ""


def test_env_example_names_every_variable_compose_reads():
    example = (ROOT / ".env.example").read_text()
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]*)=", example, re.MULTILINE))
    used = {m.group(1) for m in VARIABLE.finditer(compose_text())}
    used |= {  # passed through from the shell or .env when set there
        name
        for service in services().values()
        for name, value in (service.get("environment") or {}).items()
        if value is None
    }
    assert {"WEB_CONCURRENCY", "GUNICORN_THREADS"} <= used
    assert used - named == set()
    # The secrets are there to fill in, empty: the example holds no secret either.
    for required in ("SECRET_KEY", "POSTGRES_PASSWORD"):
        assert re.search(rf"^{required}=$", example, re.MULTILINE), required


# ---------------------------------------------------------------- the Dockerfile


def dockerfile() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_dockerfile_installs_the_project_and_runs_unprivileged():
    steps = dockerfile()
    assert steps[0] == ("FROM", "python:3.11-slim")
    runs = " && ".join(arg for op, arg in steps if op == "RUN")
    assert "pip install ." in runs
    assert "collectstatic --noinput" in runs
    users = [arg for op, arg in steps if op == "USER"]
    assert users and users[-1] not in ("root", "0")
    for op, arg in steps:
        if op == "COPY":
            *sources, _dest = arg.split()
            for source in sources:
                assert (ROOT / source).exists(), source
    env = " ".join(arg for op, arg in steps if op == "ENV")
    assert "DJANGO_SETTINGS_MODULE=euchre_service.settings_production" in env
    cmd = [arg for op, arg in steps if op == "CMD"][-1]
    assert yaml.safe_load(cmd) == command(services()["api"])


def test_dockerignore_keeps_secrets_and_local_state_out_of_the_image():
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".env", ".venv", ".git", "db.sqlite3"} <= ignored
    copied = [arg.split()[:-1] for op, arg in dockerfile() if op == "COPY"]
    for source in (s for sources in copied for s in sources):
        assert source not in ignored, source


# ---------------------------------------------------------------- the commands, run here


def _local_env(service: dict, database_url: str, port: int) -> dict[str, str]:
    """The service's compose environment, pointed at this machine's servers."""
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DEBUG")}
    # A variable with no value is passed through from compose's environment, or unset.
    env.update({k: str(v) for k, v in service["environment"].items() if v is not None})
    env.update(
        {
            "DATABASE_URL": database_url,
            # Spare Redis databases, so no other test's worker takes these tasks.
            "CELERY_BROKER_URL": with_path(broker, "/9"),
            "REDIS_URL": with_path(broker, "/8"),
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT),
            "HOSTNAME": socket.gethostname(),
        }
    )
    return env


def test_the_stream_server_closes_open_streams_before_compose_would_kill_it():
    """docker stop sends SIGTERM, then SIGKILL after the service's stop_grace_period (10 s
    unless set): uvicorn must close its open streams (they reconnect elsewhere) sooner."""
    stream = services()["stream"]
    cmd = command(stream)
    grace = float(cmd[cmd.index("--timeout-graceful-shutdown") + 1])
    assert "stop_grace_period" not in stream and 0 < grace < 10


def test_the_commands_compose_runs_name_modules_that_exist():
    api = command(services()["api"])
    assert api[:2] == ["gunicorn", "-c"] and (ROOT / api[2]).is_file()
    module, attr = api[3].split(":")
    assert (ROOT / "manage.py").is_file()
    env = _local_env(services()["api"], os.environ["DATABASE_URL"], spare_port())
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    probe = (
        f"import importlib; from celery import Celery; import euchre_service.celery as c; "
        f"assert callable(importlib.import_module({module!r}).{attr}); "
        f"assert isinstance(c.app, Celery) and c.app.main == 'euchre_service'"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    check = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--check-config", *api[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def _start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=10)


def _health(test: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    argv = ["sh", "-c", test[1]] if test[0] == "CMD-SHELL" else test[1:]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def _until_healthy(test: list[str], env: dict[str, str], proc, log: Path, seconds=180):
    deadline = time.monotonic() + seconds
    while True:
        done = _health(test, env)
        if done.returncode == 0:
            return
        assert proc.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, done.stderr[-2000:] + log.read_text()[-3000:]
        time.sleep(0.5)


@pytest.fixture
def scratch_database():
    import psycopg

    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/euchre")
    name = f"euchre_deploy_{os.getpid()}"
    admin = with_path(base, "/postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield with_path(base, f"/{name}")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.slow
def test_migrate_api_stream_worker_and_beat_start_and_pass_their_health_checks(
    scratch_database, tmp_path
):
    key = secrets.token_urlsafe(50)
    found = services({"SECRET_KEY": key, "POSTGRES_PASSWORD": "unused", "CELERY_CONCURRENCY": "1"})
    port = spare_port()
    env = {name: _local_env(found[name], scratch_database, port) for name in APP_SERVICES}

    migrate = subprocess.run(
        [sys.executable if c == "python" else c for c in command(found["migrate"])],
        cwd=ROOT,
        env=env["migrate"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrate.returncode == 0, migrate.stderr

    def here(words: list[str]) -> list[str]:  # the container's paths and port, made local
        return [
            w.replace("/tmp/", f"{tmp_path}/").replace("127.0.0.1:8000", f"127.0.0.1:{port}")
            for w in words
        ]

    stream_port = spare_port()

    def stream_here(words: list[str]) -> list[str]:
        return [w.replace("8001", str(stream_port)) for w in here(words)]

    started = []
    try:
        for name in ("api", "stream", "worker", "review-worker", "beat"):
            local = stream_here if name == "stream" else here
            log = tmp_path / f"{name}.log"
            started.append(_start(local(command(found[name])), env[name], log))
            _until_healthy(local(health_test(found[name])), env[name], started[-1], log)
        # The healthy API answers with the production settings: plain HTTP is redirected,
        # except /healthz.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/v1/matches", headers={"Host": "localhost"})
        response = conn.getresponse()
        conn.close()
        assert response.status == 301
        assert response.getheader("Location") == "https://localhost/api/v1/matches"
    finally:
        for proc in reversed(started):
            _stop(proc)


# ---------------------------------------------------------------- the proxy


def nginx_conf() -> str:
    return (ROOT / "deploy" / "nginx.conf").read_text()


def test_the_proxy_sends_streams_to_the_asgi_server_and_the_rest_to_gunicorn():
    conf = nginx_conf()
    streams = re.search(r"location ~ (\S+) \{(.*?)\}", conf, re.DOTALL)
    assert streams, "a regex location for the streams"
    pattern, block = re.compile(streams.group(1)), streams.group(2)
    assert pattern.match("/api/v1/matches/6f1c2a9e-0000-4000-8000-000000000000/stream")
    for other in ("/api/v1/matches/x/events", "/api/v1/matches", "/api/v1/matches/x/stream/x"):
        assert not pattern.match(other), other
    assert "proxy_pass http://euchre_stream;" in block
    assert "proxy_buffering off;" in block  # each event passed on as it comes
    assert re.search(r"proxy_read_timeout (\d+)h;", block)  # idle streams stay open
    rest = re.search(r"location / \{(.*?)\}", conf, re.DOTALL).group(1)
    assert "proxy_pass http://euchre_api;" in rest
    found = services()
    for upstream, service in (("euchre_api", "api"), ("euchre_stream", "stream")):
        server = re.search(rf"upstream {upstream} \{{[^}}]*?\n\s*server (\S+):(\d+)[ ;]", conf)
        assert server and server.group(1) == service
        assert server.group(2) in found[service]["expose"]
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in found["proxy"]["volumes"]
    assert found["proxy"]["ports"] == ["8000:8080"] and "listen 8080;" in conf
    assert "ports" not in found["api"] and "ports" not in found["stream"]


def test_the_proxy_passes_on_the_original_scheme_for_the_https_checks():
    conf = nginx_conf()
    assert "proxy_set_header X-Forwarded-Proto $forwarded_proto;" in conf
    assert "proxy_set_header Host $host;" in conf


def test_the_client_address_comes_from_the_one_proxy_the_stack_trusts():
    """nginx replaces whatever X-Forwarded-For a client sent with the address it saw;
    the app services trust exactly that one hop, from the proxy's network (only the
    proxy reaches them: they publish no port); uvicorn trusts the same peers."""
    conf = nginx_conf()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in conf
    assert "$proxy_add_x_forwarded_for" not in conf  # that would keep the client's own
    found = services()
    for name in APP_SERVICES:
        env = found[name]["environment"]
        assert env["TRUSTED_PROXY_COUNT"] == "1", name
        assert env["FORWARDED_ALLOW_IPS"] == "*", name
    stream = command(found["stream"])
    assert "--proxy-headers" in stream
    assert stream[stream.index("--forwarded-allow-ips") + 1] == "*"
    assert "ports" not in found["api"] and "ports" not in found["stream"]
    # Set in .env, the one value reaches Django, gunicorn and uvicorn alike.
    custom = {
        "SECRET_KEY": "k" * 50,
        "POSTGRES_PASSWORD": "pw",
        "FORWARDED_ALLOW_IPS": "10.0.0.0/8",
    }
    mine = services(custom)
    stream = command(mine["stream"])
    assert stream[stream.index("--forwarded-allow-ips") + 1] == "10.0.0.0/8"
    assert mine["api"]["environment"]["FORWARDED_ALLOW_IPS"] == "10.0.0.0/8"
    example = (ROOT / ".env.example").read_text()
    assert re.search(r"^TRUSTED_PROXY_COUNT=1$", example, re.MULTILINE)
    assert re.search(r"^FORWARDED_ALLOW_IPS=\*$", example, re.MULTILINE)


def test_gunicorn_and_the_settings_default_to_the_same_trusted_proxy(monkeypatch):
    """Outside compose both read FORWARDED_ALLOW_IPS, and default to 127.0.0.1 (a proxy
    on the same machine); the settings believe no X-Forwarded-For unless told."""
    import runpy

    from euchre_service import settings as base

    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    conf = runpy.run_path(str(ROOT / "euchre_service" / "gunicorn.conf.py"))
    assert conf["forwarded_allow_ips"] == "127.0.0.1"
    source = (ROOT / "euchre_service" / "settings.py").read_text()
    assert 'os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")' in source
    assert 'os.environ.get("TRUSTED_PROXY_COUNT", "0")' in source
    assert base.REST_FRAMEWORK["NUM_PROXIES"] == base.TRUSTED_PROXY_COUNT
