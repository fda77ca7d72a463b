"""The suite on several processes (pytest-xdist; bin/test runs `-n 2` by default).

Loaded with `-p tests.parallel` before pytest-django reads the settings, so each xdist
worker (gw0, gw1, ...) sets up its own shared resources in the environment, which its
settings and every server, worker and benchmark a test starts then read:
- DATABASE_URL: a database name of its own (pytest-django's test database is made from
  it, and so are the scratch databases the benchmarks and fault tests name after it);
- REDIS_URL and CELERY_BROKER_URL: Redis databases of their own, two below the run's for
  each worker after the first (14 and 15 by default, then 12 and 13): a test flushes its
  cache and its queues. With the defaults that allows three workers: a fourth would take
  8 and 9, the spare databases tests/service/test_deploy_files.py starts its stack on;
- LIVE_CHANNEL_PREFIX: pub/sub channels are one namespace for the whole Redis server,
  whatever the database number, and user ids start at 1 in every worker's database.
The ports its servers listen on come from a block of its own too
(benchmarks._server.spare_port reads PYTEST_XDIST_WORKER itself).
Outside xdist (plain `pytest`, or `-n 0`) nothing changes.
"""

import os
from urllib.parse import urlsplit, urlunsplit


# Not benchmarks._server.with_path: this module is loaded before the settings are read and
# must import nothing of the project's (euchre_service's package starts the Celery app).
def _with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path))


def _database_of_its_own(url: str, worker: str) -> str:
    name = urlsplit(url).path.lstrip("/") or "euchre"
    return _with_path(url, f"/{name}_{worker}")


def _redis_database_below(url: str, by: int) -> str:
    number = int(urlsplit(url).path.lstrip("/") or 0)
    return _with_path(url, f"/{(number - by) % 16}")


def worker_environment(environ: dict[str, str], worker: str) -> dict[str, str]:
    """What worker `worker` (gw0, gw1, ...) changes in the run's environment."""
    index = int(worker.removeprefix("gw"))
    changed = {"LIVE_CHANNEL_PREFIX": f"euchre-{worker}:"}
    database = environ.get("DATABASE_URL", "")
    if database.startswith("postgres"):
        changed["DATABASE_URL"] = _database_of_its_own(database, worker)
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        url = environ.get(name, "")
        if index and url.startswith(("redis://", "rediss://")):
            changed[name] = _redis_database_below(url, 2 * index)
    return changed


_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER:
    os.environ.update(worker_environment(dict(os.environ), _WORKER))
