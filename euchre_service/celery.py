"""The Celery app. Configured from Django settings (the CELERY_ namespace)."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "euchre_service.settings")

app = Celery("euchre_service")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Celery's Django fixup closes every database connection before and after each task
# unless CELERY_DB_REUSE_MAX is set: a new PostgreSQL session per task (the soak: 24,881
# sessions for 24,192 tasks, 18 new sessions a second). With it out of reach the fixup
# leaves connections alone, and each task begins and ends as a Django request does:
# close_old_connections closes one past CONN_MAX_AGE, unusable, or left mid-transaction
# (tests/bots/test_worker_connections.py).
app.conf.update(CELERY_DB_REUSE_MAX=2**31)


@task_prerun.connect
@task_postrun.connect
def _database_connection_as_a_request_does(sender: Any = None, **kwargs: Any) -> None:
    # Not for a task run eagerly: that runs inside the caller's request (and perhaps its
    # transaction), whose connection Django manages.
    if sender is not None and not getattr(sender.request, "is_eager", False):
        close_old_connections()


@worker_process_init.connect
def _freeze_what_start_up_made(**kwargs: Any) -> None:
    # In each pool process, once forked: it serves tasks for hours (euchre_service/heap.py).
    from euchre_service.heap import freeze_what_start_up_made

    freeze_what_start_up_made()
