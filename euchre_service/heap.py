"""What a process made while starting, kept out of the garbage collector's passes.

A process serving requests holds about 130,000 objects from its start (modules,
classes, Django's URL patterns, settings and model metadata, DRF's fields) that live as
long as it does. The collector's oldest generation walks every one of them at each of
its passes, and a pass holds the interpreter's lock from every thread serving a request:
in benchmarks/api.py's gunicorn processes each such pass cost 88 to 103 ms of CPU, a
stall of up to four requests, and 6 to 16 ms once frozen (docs/measurements/, issue 15's
seventh pass). `gc.freeze()` moves what exists once the service is loaded into a
permanent generation the collector never walks, as Python's documentation suggests for
servers that fork their workers; objects made later are collected as before. The price:
something made at start that later becomes cyclic garbage is never freed, which
start-up objects, kept for the process's life, do not do.
"""

import gc

from django.conf import settings


def freeze_what_start_up_made() -> None:
    """Load what the first request would (the URLconf, and with it every view and its
    serializers), collect once, and freeze the rest; GC_FREEZE=0 leaves the collector
    as Python sets it."""
    if not settings.GC_FREEZE:
        return
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the views' modules
    gc.collect()
    gc.freeze()
