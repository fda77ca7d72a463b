"""The ASGI application: the whole service, and what production runs for live streams.

Django gives every ASGI request a thread of its own for its synchronous steps
(signals, middleware), kept until the response ends. A stream's response lasts as
long as the client stays, so each idle client would keep a thread. Stream requests
therefore run their few synchronous steps on one shared thread instead; their
database reads go to the event loop's small pool (games.live.in_pool).
"""

import os
import warnings

import django
from django.core.handlers.asgi import ASGIHandler
from django.urls import Resolver404, resolve

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
        await super().__call__(scope, receive, send)


application = Handler()
