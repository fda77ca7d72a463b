"""The reference web client: one page at /play/, plain HTML with a few ES modules.

The page needs no session or sign-in of its own: it talks to the REST API with a
token it keeps in the browser's localStorage (docs/web-client.md).
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe


@require_safe
def play(request: HttpRequest) -> HttpResponse:
    response = render(request, "play/index.html")
    # The page itself is a shell; the client's state lives in the API.
    response["Cache-Control"] = "no-cache"
    response["Referrer-Policy"] = "same-origin"
    return response
