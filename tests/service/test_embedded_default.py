"""The embedded default: no environment at all gives SQLite, in-process tasks, no Redis."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, django
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "options": db.get("OPTIONS", {}),
    "eager": settings.CELERY_TASK_ALWAYS_EAGER, "redis": settings.REDIS_URL,
    "cache": settings.CACHES["default"]["BACKEND"],
}))
"""


def embedded_settings() -> dict:
    env = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "euchre_service.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_no_environment_means_sqlite_in_process_tasks_and_no_redis():
    found = embedded_settings()
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["eager"] is True and found["redis"] == ""
    assert found["cache"].endswith("LocMemCache")


def test_sqlite_takes_the_write_lock_up_front_and_waits_for_it():
    """Request threads and turn-timer threads write at once: IMMEDIATE transactions do not
    deadlock upgrading a read lock, and a writer waits rather than fails."""
    options = embedded_settings()["options"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] >= 5
    assert "journal_mode=WAL" in options["init_command"]
