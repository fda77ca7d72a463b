"""Schemathesis hooks for the hostile-client suite (SCHEMATHESIS_HOOKS=tests.hostile.st_hooks):
one more check on every answer, run with the built-in ones."""

import schemathesis

from tests.hostile.answers import answer_problem


def _header(headers, name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else value
    return ""


@schemathesis.check
def errors_are_catalogued_json(ctx, response, case):
    """No 5xx; every error a JSON {"code", "detail"} with a code from docs/errors.md."""
    problem = answer_problem(
        response.status_code, _header(response.headers, "content-type"), response.content
    )
    if problem:
        raise AssertionError(problem)
