"""What every answer of the API must be, as one function both the schemathesis hooks
(tests/hostile/st_hooks.py, in the `st` process) and the hand-made fuzzing use."""

import json

from games.http.error_codes import CATALOGUE


def answer_problem(status: int, content_type: str, body: bytes) -> str | None:
    """Why this answer under /api/ breaks the promise, or None: no 5xx, and every error
    is the JSON body {"code", "detail"} with a catalogued code and one of its statuses."""
    if status >= 500:  # even a JSON one: with every server up, nothing should be unavailable
        return f"server error {status}"
    if status < 400:
        return None
    if content_type.split(";")[0].strip().lower() != "application/json":
        return f"{status} error with Content-Type {content_type!r}, not JSON"
    try:
        data = json.loads(body)
    except ValueError:
        return f"{status} error body is not JSON"
    if not isinstance(data, dict) or not isinstance(data.get("code"), str):
        return f"{status} error body has no code"
    if not isinstance(data.get("detail"), str):
        return f"{status} error body has no detail"
    code = data["code"]
    if code not in CATALOGUE:
        return f"{status} error code {code!r} is not in games/http/error_codes.py"
    if status not in CATALOGUE[code].statuses:
        return f"error code {code!r} came with {status}, catalogued {CATALOGUE[code].statuses}"
    return None
