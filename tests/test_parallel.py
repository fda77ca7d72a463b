"""tests/parallel.py: each xdist worker's databases, Redis databases and channels."""

import os

from django.conf import settings

from tests.parallel import worker_environment

RUN = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/euchre",
    "REDIS_URL": "redis://127.0.0.1:6379/14",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/15",
}


def test_the_first_worker_keeps_the_runs_redis_databases_and_names_its_own_database():
    assert worker_environment(RUN, "gw0") == {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/euchre_gw0",
        "LIVE_CHANNEL_PREFIX": "euchre-gw0:",
    }


def test_each_later_worker_takes_the_redis_databases_two_below_the_last():
    assert worker_environment(RUN, "gw1") == {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/euchre_gw1",
        "REDIS_URL": "redis://127.0.0.1:6379/12",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
        "LIVE_CHANNEL_PREFIX": "euchre-gw1:",
    }
    assert worker_environment(RUN, "gw7")["REDIS_URL"] == "redis://127.0.0.1:6379/0"


def test_an_embedded_run_keeps_its_sqlite_file_and_memory_broker():
    embedded = {"DATABASE_URL": "sqlite:///db.sqlite3", "CELERY_BROKER_URL": "memory://"}
    assert worker_environment(embedded, "gw1") == {"LIVE_CHANNEL_PREFIX": "euchre-gw1:"}


def test_this_process_runs_on_what_its_worker_was_given():
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:  # plain pytest, or -n 0
        assert settings.LIVE_CHANNEL_PREFIX == "euchre:"
        return
    assert settings.LIVE_CHANNEL_PREFIX == f"euchre-{worker}:"
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        assert settings.DATABASES["default"]["NAME"].endswith(f"_{worker}")
