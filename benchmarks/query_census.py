"""Benchmark-only middleware: the SQL statements a request ran, counted in the server
(and, in WorkerPidMiddleware, which server process answered).

A request that carries `X-Bench-Queries: 1` gets back `X-Bench-Queries`: a JSON list of
its statements, each cut to its first words (the commit is not a statement Django runs
through a cursor, so it is not listed: add one round trip for it). Requests without the
header run untouched, so the measured phases pay nothing for it. Installed by
benchmarks/bench_settings.py with BENCHMARK_ENDPOINTS=1 only.
"""

import json
import os
import re
from collections.abc import Callable
from typing import Any

from django.db import connection

_WORDS = re.compile(r"\s+")
_SUBQUERY = re.compile(r"\([^()]*\)")


def statement(sql: str) -> str:
    """A statement's shape: its verb and table (`SELECT games_match FOR UPDATE`)."""
    sql = _WORDS.sub(" ", sql.strip())
    verb = sql.split(" ", 1)[0].upper()
    if verb == "WITH":  # data-modifying WITH: its inner statement, then the outer one
        inner = re.match(r'WITH \w+ AS \((\w+) (?:INTO |FROM )?"?([a-z_]+)', sql, re.IGNORECASE)
        if inner:
            rest = _after_with(sql).strip()
            if rest.startswith(","):  # the next query of the same WITH
                rest = "WITH " + rest[1:]
            return f"{inner.group(1).upper()} {inner.group(2)} + {statement(rest)}"
    outer = sql
    while _SUBQUERY.search(outer):  # the statement's own table, not a subquery's
        outer = _SUBQUERY.sub("", outer)
    table = re.search(r'(?:FROM|INTO|UPDATE) "?([a-z_]+)"?', outer)
    shape = f"{verb} {table.group(1)}" if table else sql[:40]
    if verb == "SELECT" and "FOR UPDATE" in sql:
        shape += " FOR UPDATE"
    return shape


def _after_with(sql: str) -> str:
    """The statement after a WITH's parenthesised one."""
    depth, start = 0, sql.index("(")
    for i, char in enumerate(sql[start:], start):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return sql[i + 1 :]
    return sql


class QueryCensusMiddleware:
    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        if request.META.get("HTTP_X_BENCH_QUERIES") != "1":
            return self.get_response(request)
        seen: list[str] = []

        def record(execute, sql, params, many, context):  # noqa: ANN001 - Django's signature
            seen.append(statement(sql))
            return execute(sql, params, many, context)

        with connection.execute_wrapper(record):
            response = self.get_response(request)
        response["X-Bench-Queries"] = json.dumps(seen)
        return response


class WorkerPidMiddleware:
    """A request that carries `X-Bench-Worker: 1` gets back `X-Bench-Worker`: the pid of
    the server process that answered it (benchmarks/spread.py counts the processes that
    served each half minute)."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        response = self.get_response(request)
        if request.META.get("HTTP_X_BENCH_WORKER") == "1":
            response["X-Bench-Worker"] = str(os.getpid())
        return response
