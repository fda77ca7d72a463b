"""uvicorn's own refusals as the API's JSON error body (as gunicorn_errors for gunicorn).

uvicorn answers a request it cannot parse itself, before the service's code runs: a
method its parser does not know (`BREW /api/v1/me/stream`), a malformed request line or
header. Its answer is a text/plain 400; uvicorn serves the live streams under /api/, so
every uvicorn that serves the service runs with this protocol instead
(`--http euchre_service.uvicorn_errors:JsonErrorsProtocol`), and every error a client gets
from it is {"code", "detail"} (docs/errors.md).
"""

import json

from uvicorn.protocols.http.auto import AutoHTTPProtocol

PROTOCOL = "euchre_service.uvicorn_errors:JsonErrorsProtocol"  # uvicorn's --http


class JsonErrorsProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP/1.1 protocol (httptools, or h11 without it), answering what it
    cannot parse with 400 `malformed_request` JSON."""

    def send_400_response(self, msg: str) -> None:
        detail = f"Bad Request: {msg}".rstrip(".") + "."
        body = json.dumps({"code": "malformed_request", "detail": detail}).encode()
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        for name, value in self.server_state.default_headers:  # server, date
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()
