"""Schemathesis hooks for the hostile-client suite (SCHEMATHESIS_HOOKS=tests.hostile.st_hooks):
one more check on every answer, run with the built-in ones; and ast.parse one thread at a time."""

import ast
import threading

import schemathesis

from tests.hostile.answers import answer_problem

# CPython 3.11 keeps the depth counter of ast.parse's tree building in one
# interpreter-wide place (python/cpython#106905). Schemathesis' two workers are threads,
# and Hypothesis parses a module's source to describe a filter's lambda: when a garbage
# collection inside one parse runs a finalizer that lets the other thread parse, the first
# fails with "SystemError: AST constructor recursion depth mismatch" and the run stops
# with a Runtime Error (it did, in CI). Parsing one at a time costs the fuzzer nothing
# measurable: Hypothesis caches each description.
_parse_lock = threading.RLock()
_parse = ast.parse


def _parse_one_at_a_time(*args, **kwargs):
    with _parse_lock:
        return _parse(*args, **kwargs)


ast.parse = _parse_one_at_a_time


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
