"""Gunicorn for the API: `gunicorn -c euchre_service/gunicorn.conf.py euchre_service.wsgi`.

Threaded workers (gthread): a request mostly waits on PostgreSQL, so a few
threads per process keep the cores busy without a process per connection.
Every value can be set from the environment. The default, one process more
than there are cores with 4 threads each, was the best shape benchmarks/api.py
found on 2 cores (docs/operations/capacity.md): the extra process keeps both cores busy
when one process's threads all wait, or hold more of the keep-alive connections.
"""

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


bind = os.environ.get("GUNICORN_BIND", f"0.0.0.0:{_int('PORT', 8000)}")
worker_class = "gthread"
workers = _int("WEB_CONCURRENCY", min(multiprocessing.cpu_count() + 1, 9))
threads = _int("GUNICORN_THREADS", 4)
# A request slower than this is stuck: the worker is killed and replaced.
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# Clients (and the proxy in front) reuse connections between moves.
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# Recycle processes now and then, at different times, to bound slow leaks.
max_requests = _int("GUNICORN_MAX_REQUESTS", 20000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 2000)
# A keep-alive connection is answered `Connection: close` at its Nth request (0: never),
# so its client (or the proxy) connects again and the kernel hands the new connection to
# whichever process accepts first. Without it, a process that replaced a recycled one got
# only new clients: the kept-alive ones stayed where they were, and the API ran on two of
# three processes (benchmarks/spread.py). gunicorn has no setting for this (its
# `keepalive` is an idle timeout), hence the hook below.
max_requests_per_connection = _int("GUNICORN_MAX_REQUESTS_PER_CONNECTION", 50)


def pre_request(worker, req) -> None:  # noqa: ANN001 - gunicorn's hook signature
    """gunicorn's hook before each request: the default's debug line, then `Connection:
    close` on the connection's last request (req.req_number counts them from 1)."""
    worker.log.debug("%s %s", req.method, req.path)
    if max_requests_per_connection and req.req_number >= max_requests_per_connection:
        req.force_close()


# The proxy's addresses (comma-separated addresses or networks, or *), trusted for
# X-Forwarded-Proto. The same variable, with the same default, tells the service
# (settings.FORWARDED_ALLOW_IPS) which peer may tell it the client's address.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Access log to stdout unless GUNICORN_ACCESS_LOG is empty ("-" means stdout).
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# /dev/shm for the worker heartbeat files: a container's /tmp may be a slow disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

# gunicorn's own refusals (over its limits, malformed HTTP) in the API's JSON error format.
from euchre_service.gunicorn_errors import install as _json_errors  # noqa: E402

_json_errors()
