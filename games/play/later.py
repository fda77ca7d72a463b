"""The one seam for "run this task later": on a Celery worker, or in this process.

Games sends tasks BY NAME (games.tasks names its own, bots.tasks the computer players'
and the hints'): games never imports bots, bots sits above games and registers its
tasks with the worker. Both functions answer at once and never raise; False means the
broker did not take the task (the person's action has committed all the same, and the
periodic sweep, games.tasks.sweep_waiting_matches, recovers what was lost).

Worker mode: the task is published with retry=False and the broker's short timeouts,
so a broker that is down never holds a person's request.

In-process mode (CELERY_TASK_ALWAYS_EAGER, the embedded default and most tests):
- `run_soon` runs the task here and now, unless this thread is already running one:
  then it runs after that one, in a loop rather than nested inside its commit (a match of
  four computer players does not recurse once per card). Its countdown (pacing) is a
  worker's; here it is skipped.
- `run_after` runs the task in a timer thread once `seconds` have passed (a deadline
  that must not come early), if TURN_TIMER_THREADS; otherwise not at all (the sweep).
- `run_in_background` (a match's review) runs it in a process of its own, niced
  (`manage.py run_task`), if TURN_TIMER_THREADS; otherwise not at all (asked again later).
"""

import logging
import os
import subprocess
import sys
import threading
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connections

# The tasks games asks for, by name: the contract between games and what runs the tasks
# (tests/games/test_seams.py checks each is registered with the worker).
PLAY_COMPUTER_TURN = "bots.tasks.play_computer_turn"  # (match_id, expected_seq)
COMPUTE_HINT = "bots.tasks.compute_hint"  # (hint_id,)
TIME_OUT_TURN = "games.tasks.time_out_turn"  # (match_id,)
SWEEP_WAITING_MATCHES = "games.tasks.sweep_waiting_matches"  # (), sent by celery beat
START_QUICKPLAY = "games.tasks.start_quickplay"  # (match_id,), when its wait is over
PRUNE = "games.tasks.prune"  # (), sent by celery beat
ARCHIVE_EVENTS = "games.tasks.archive_events"  # (), sent by celery beat (review queue)
COMPACT_LOG = "games.tasks.compact_log"  # (match_id,), as a hand ends: its rows to a chunk
REVIEW_MATCH = "bots.tasks.review_match"  # (match_id,), on the review queue
TASK_NAMES = (
    PLAY_COMPUTER_TURN,
    COMPUTE_HINT,
    TIME_OUT_TURN,
    SWEEP_WAITING_MATCHES,
    START_QUICKPLAY,
    REVIEW_MATCH,
    PRUNE,
    ARCHIVE_EVENTS,
    COMPACT_LOG,
)
# Tasks that go to the review queue (settings.CELERY_REVIEW_QUEUE), not the default one:
# work that may take seconds and that nobody at a table waits for. A worker of its own
# consumes that queue (docker-compose's review-worker, at a lower CPU priority), so a
# review never holds a worker or a queue place that a computer turn needs.
BACKGROUND_TASKS = (REVIEW_MATCH, ARCHIVE_EVENTS)

log = logging.getLogger(__name__)
_local = threading.local()


def run_soon(task: str, *args: Any, countdown: float | None = None) -> bool:
    """Run the task named `task` with `args`: on a worker (after `countdown` seconds,
    if given), or in this process at once, after the one this thread runs now."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return _publish(task, args, countdown)
    pending = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((task, args))
        return True
    _local.pending = [(task, args)]
    try:
        while _local.pending:
            _run_here(*_local.pending.pop(0))
    finally:
        _local.pending = None
    return True


def run_after(task: str, *args: Any, seconds: float) -> bool:
    """Run the task named `task` with `args` no sooner than `seconds` from now: on a
    worker (a countdown), or in this process in a timer thread."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return _publish(task, args, seconds)
    if settings.TURN_TIMER_THREADS:
        timer = threading.Timer(seconds + 0.05, _run_in_thread, (task, args))
        timer.daemon = True
        timer.start()
    return True


def run_in_background(task: str, *args: Any) -> bool:
    """Run the task named `task` with `args` (strings) where it delays nobody: on its own
    queue (BACKGROUND_TASKS) in worker mode; in in-process mode in a process of its own
    (`manage.py run_task`, at nice 10: neither this server's GIL nor its CPU share), if
    TURN_TIMER_THREADS (otherwise not at all: what asked for it can ask again)."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return _publish(task, args, None)
    if settings.TURN_TIMER_THREADS:
        argv = [sys.executable, str(settings.BASE_DIR / "manage.py"), "run_task", task]
        try:
            proc = subprocess.Popen(
                [*argv, *map(str, args)],
                cwd=settings.BASE_DIR,
                preexec_fn=_lower_priority,
                start_new_session=True,  # not stopped by a Ctrl-C meant for the server
            )
        except OSError:
            log.exception("could not start %s%r", task, args)
            return False
        threading.Thread(target=proc.wait, daemon=True).start()  # reap it when it ends
    return True


def _lower_priority() -> None:
    os.nice(10)


def run_here_now(task: str, args: tuple) -> None:
    """Run the task here and now (`manage.py run_task`); an exception is logged."""
    _run_here(task, args)


def queue_of(task: str) -> str | None:
    """The queue a task goes to: the review queue for BACKGROUND_TASKS, else the default."""
    return settings.CELERY_REVIEW_QUEUE if task in BACKGROUND_TASKS else None


def _publish(task: str, args: tuple, countdown: float | None) -> bool:
    try:
        current_app.send_task(task, args, countdown=countdown, retry=False, queue=queue_of(task))
    except Exception:
        log.warning("could not queue %s%r; the sweep will", task, args)
        return False
    return True


def _run_here(task: str, args: tuple) -> None:
    try:
        _registered(task).apply(args)
    except Exception:  # what asked for it has committed; log, don't fail it
        log.exception("%s%r failed", task, args)


def _run_in_thread(task: str, args: tuple) -> None:
    try:
        _run_here(task, args)
    finally:
        connections.close_all()  # this thread's own connections


def _registered(task: str) -> Any:
    """The task registered under `task` (each app registers its tasks when it is ready:
    games/apps.py, bots/apps.py). Not Celery's import_default_modules: under Django that
    sets Django up again, which reconfigures logging and runs every system check."""
    return current_app.tasks[task]
