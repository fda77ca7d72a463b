"""What a server's process made while starting is frozen out of the garbage collector's
passes (euchre_service/heap.py): gunicorn's (WSGI), uvicorn's (ASGI) and the Celery
pool's processes, unless GC_FREEZE=0. Each checked in a new Python process, as a
server starts one."""

import os
import subprocess
import sys

import pytest

FROZEN = "import gc; print(gc.get_freeze_count(), gc.get_count()[2])"
STARTS = {
    "wsgi": "import euchre_service.wsgi",
    "asgi": "import euchre_service.asgi",
    "celery": (
        "import django; django.setup(); from celery.signals import worker_process_init;"
        " worker_process_init.send(sender=None)"
    ),
}


def frozen_after(start: str, **env: str) -> int:
    """How many objects are frozen once `start` ran in a new process."""
    done = subprocess.run(
        [sys.executable, "-c", f"{start}; {FROZEN}"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "euchre_service.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout.split()[-2])


@pytest.mark.parametrize("server", sorted(STARTS))
def test_a_servers_process_freezes_what_it_loaded(server):
    # The URLconf and every view it imports are loaded before the freeze, not at the
    # first request: tens of thousands of objects, where Python alone makes a few.
    assert frozen_after(STARTS[server]) > 50_000


@pytest.mark.parametrize("server", sorted(STARTS))
def test_gc_freeze_0_leaves_the_collector_as_python_sets_it(server):
    assert frozen_after(STARTS[server], GC_FREEZE="0") == 0
