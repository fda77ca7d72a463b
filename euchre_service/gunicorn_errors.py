"""gunicorn's own refusals as the API's JSON error body.

gunicorn answers some requests itself, before any of the service's code runs: a request
line or headers over its limits (414, 431), or HTTP it cannot parse (400). Its answer is
an HTML page; euchre_service/gunicorn.conf.py installs this one instead, so that every
error a client gets from the API process is {"code", "detail"} (docs/errors.md).
"""

import json

from gunicorn import util

CODES = {
    400: "malformed_request",
    403: "permission_denied",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "server_error",
    501: "not_implemented",
}


def write_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """Replaces gunicorn.util.write_error (same signature): the same status, JSON body."""
    detail = f"{reason}: {mesg}".rstrip(".") + "."
    body = json.dumps({"code": CODES.get(status_int, "malformed_request"), "detail": detail})
    payload = body.encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + payload)


def install() -> None:
    util.write_error = write_error
