"""The Celery app. Configured from Django settings (the CELERY_ namespace)."""

import functools
import os
from collections.abc import Callable
from queue import Empty
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init
from django.db import close_old_connections
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "euchre_service.settings")


def _close_even_with_the_broker_gone(close: Callable[[Any], None]) -> Callable[[Any], None]:
    """kombu's Redis channel, closed while its BRPOP is outstanding, first reads that
    BRPOP's reply (celery/kombu#1733, so that a message popped meanwhile is not lost). When
    Redis has died, that read raises ConnectionError and the close stops half-way: the
    channel is not marked closed, its unacknowledged messages not restored. Celery 5.7's
    consumer, on a lost connection, first collect()s the connection (which detaches its
    transport: transport.client = None) and then close()s it again; the second close takes
    up the channel where it stopped, restores the unacknowledged messages through a
    transport with no client, and raises AttributeError("'NoneType' object has no
    attribute 'hostname'") (kombu.transport.redis.Channel._connparams). That is not a
    connection error, so the worker logs "Unrecoverable error" and exits: every match
    waiting on a computer stayed stuck (issue 33; celery 5.7.0, kombu 5.7.0, redis-py
    8.2.0). It happens when a worker holds an unacknowledged task (acks_late) and has a free
    pool slot, so a BRPOP is outstanding, when Redis dies.

    Reading the reply first here, and taking a connection error as "no reply: the broker
    is gone", lets the first close finish while the transport is still attached (its
    restore of the unacknowledged messages then fails as a connection error, ignored as
    kombu means to, and the second close finds the channel closed). Remove this when
    kombu's Channel.close no longer lets a connection error stop it: the fault test
    tests/bots/test_worker_redis_outage.py fails without it."""

    @functools.wraps(close)
    def close_channel(channel: Any) -> None:
        if channel._in_poll:
            try:
                channel._brpop_read()  # clears _in_poll, so close() does not read again
            except Empty:
                pass
            except channel.connection.connection_errors:
                pass  # the broker, and the reply with it, are gone
        close(channel)

    close_channel.closes_with_the_broker_gone = True  # type: ignore[attr-defined]
    return close_channel


if not getattr(kombu_redis.Channel.close, "closes_with_the_broker_gone", False):
    kombu_redis.Channel.close = _close_even_with_the_broker_gone(kombu_redis.Channel.close)

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
