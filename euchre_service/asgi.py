"""The ASGI application: the whole service, and what production runs for live streams.

Django gives every ASGI request a thread of its own for its synchronous steps
(signals, middleware), kept until the response ends. A stream's response lasts as
long as the client stays, so each idle client would keep a thread. Stream requests
therefore run their few synchronous steps on one shared thread instead; their
database reads go to the event loop's small pool (games.live.live.in_pool).

Every other request runs its synchronous steps (the view, the middleware) on a thread
of its own that ends with the request (asgiref's ThreadSensitiveContext). Django's
request_finished keeps that thread's database connection open for CONN_MAX_AGE, as if
the thread would serve the next request; it never does, so each request left a
PostgreSQL session behind until the garbage collector found it (84 sessions under 8
clients in issue 15). So the thread closes its connections before it ends.
"""

import os
import warnings

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import connections
from django.urls import Resolver404, resolve

from euchre_service.heap import freeze_what_start_up_made

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "euchre_service.settings")
django.setup(set_prefix=False)

# whitenoise serves static files with a synchronous file iterator, which Django reads in a
# thread under ASGI and warns about at every file; that is fine for these small files.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators"
)


STREAMS = {"match-stream", "me-stream"}


def _is_stream(path: str) -> bool:
    try:
        return resolve(path).url_name in STREAMS
    except Resolver404:
        return False


class Handler(ASGIHandler):
    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and _is_stream(scope["path"]):
            await self.handle(scope, receive, send)  # no thread of its own
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # refused there, as before
            return
        async with ThreadSensitiveContext():  # as ASGIHandler.__call__, plus the close
            try:
                await self.handle(scope, receive, send)
            finally:
                # On the request's own thread: the one whose connections these are.
                await sync_to_async(connections.close_all, thread_sensitive=True)()


application = Handler()
freeze_what_start_up_made()
