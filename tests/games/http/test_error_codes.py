"""The error-code catalogue (games/http/error_codes.py): every code the code base can answer
with is in it, with the status it is answered with, and docs/errors.md is generated from it.

How the codes are found (tests can only be as honest as this): the source of games/, bots/
and euchre_service/ is parsed, and every call of an error type (RuleError, ServiceError
and every class that derives from one, found in the same source) or of
api_support.error_response gives its first argument, which must be a string literal or
another error's `.code` passed on (from_rule_error, the stream's error answer); a
`super().__init__("code", ...)` in an error class, any `code="..."` keyword argument, any
`x.code = "..."` assignment and any `{"code": "..."}` dict literal count too. The DRF
exception handler's codes, and those of gunicorn's own refusals
(euchre_service/gunicorn_errors.py), are read from their tables.
A code built at run time any other way would not be seen: the test fails on an error call
whose code it cannot read, so that one cannot be added unnoticed.
"""

import ast
import importlib
import re
from pathlib import Path

import pytest

from games.engine import RuleError, RuleKind
from games.engine.errors import KINDS
from games.http import error_codes
from games.http.error_codes import CATALOGUE, ENGINE_INTERNAL

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ["games", "bots", "euchre_service"]
BASE_ERRORS = {"RuleError", "ServiceError"}


def source_files() -> list[Path]:
    return [
        path
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def parsed() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(), str(path))) for path in source_files()]


def error_classes(trees) -> set[str]:
    """RuleError, ServiceError and every class deriving from them, by name, to a fixpoint."""
    names = set(BASE_ERRORS)
    while True:
        more = {
            node.name
            for _path, tree in trees
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and any(_name(base) in names for base in node.bases)
        } - names
        if not more:
            return names
        names |= more


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _forwarded(node: ast.AST) -> bool:
    """`exc.code` or a parameter named `code`: another error's code, passed on."""
    return (isinstance(node, ast.Attribute) and node.attr == "code") or (
        isinstance(node, ast.Name) and node.id == "code"
    )


def raised_codes() -> tuple[dict[str, list[str]], list[str], list[tuple[str, str, str]]]:
    """(code -> where, unreadable error calls, (class, code, where) for each error class call)."""
    trees = parsed()
    classes = error_classes(trees)
    callables = classes | {"error_response"}
    found: dict[str, list[str]] = {}
    unreadable: list[str] = []
    calls: list[tuple[str, str, str]] = []

    def add(code: str, where: str) -> None:
        found.setdefault(code, []).append(where)

    for path, tree in trees:
        rel = path.relative_to(ROOT)
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if cls.name not in classes:
                continue
            for node in ast.walk(cls):  # super().__init__("not_found", ...)
                if (
                    isinstance(node, ast.Call)
                    and _name(node.func) == "__init__"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    add(node.args[0].value, f"{rel}:{node.lineno}")
                    calls.append((cls.name, node.args[0].value, f"{rel}:{node.lineno}"))
        for node in ast.walk(tree):
            where = f"{rel}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Assign):  # hint.code = "x", or a, hint.code = ..., "x"
                for target in node.targets:
                    pairs = (
                        zip(target.elts, node.value.elts, strict=False)
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                        else [(target, node.value)]
                    )
                    for name, value in pairs:
                        if (
                            isinstance(name, ast.Attribute)
                            and name.attr == "code"
                            and isinstance(value, ast.Constant)
                            and isinstance(value.value, str)
                        ):
                            add(value.value, where)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "code"
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, str)
                    ):
                        add(value.value, where)
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if (
                    keyword.arg == "code"
                    and isinstance(keyword.value, ast.Constant)
                    and isinstance(keyword.value.value, str)
                ):
                    add(keyword.value.value, where)
            if _name(node.func) not in callables:
                continue
            first = node.args[0] if node.args else None
            if first is None:
                first = next((k.value for k in node.keywords if k.arg == "code"), None)
            if first is None:
                continue  # NotFound(): its code is in its __init__, collected above
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                add(first.value, where)
                calls.append((_name(node.func), first.value, where))
            elif not _forwarded(first):
                unreadable.append(f"{where}: {ast.unparse(node)[:120]}")
    return found, unreadable, calls


def handler_codes() -> set[str]:
    from euchre_service import gunicorn_errors
    from games.http import api_support

    # The handler's table, its fallback for a DRF exception it has no code for, gunicorn's.
    return set(api_support._CODES.values()) | {"error"} | set(gunicorn_errors.CODES.values())


@pytest.fixture(scope="module")
def scan():
    return raised_codes()


def test_every_error_call_has_a_code_the_scan_can_read(scan):
    _found, unreadable, _calls = scan
    assert not unreadable, "error calls whose code is not a literal:\n" + "\n".join(unreadable)


def test_every_code_the_code_base_can_answer_with_is_in_the_catalogue(scan):
    found, _unreadable, _calls = scan
    codes = (set(found) | handler_codes()) - ENGINE_INTERNAL
    missing = {code: found.get(code, ["the exception handler"]) for code in codes - set(CATALOGUE)}
    assert not missing, (
        "codes missing from games/http/error_codes.py CATALOGUE (add a line each, then "
        f"`python -m games.http.error_codes > docs/errors.md`): {missing}"
    )
    # The scan does find them: a sample from each source of codes.
    assert {"stale_sequence", "must_follow_suit", "payload_too_large", "not_found"} <= codes
    assert {"malformed_json", "throttled", "stream_needs_asgi", "uri_too_long"} <= codes
    assert {"hint_failed", "hint_timed_out", "hint_service_unavailable"} <= codes


def test_the_engine_internal_codes_are_the_engines_and_unreachable_from_a_request(scan):
    found, _unreadable, _calls = scan
    for code in ENGINE_INTERNAL:
        assert code in found, f"{code} is no longer raised: drop it from ENGINE_INTERNAL"
        assert all(where.startswith("games/engine/") for where in found[code]), found[code]
        assert code not in CATALOGUE


def test_an_error_class_answers_with_a_status_its_codes_are_catalogued_with(scan):
    """BadInput("x") answers 400, so "x" must be catalogued with 400 (and so on)."""
    from games.play import errors

    importlib.import_module("games.http.streams")  # defines Unauthenticated
    importlib.import_module("games.http.apis")

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    status_of = {cls.__name__: cls.status for cls in subclasses(errors.ServiceError)}
    _found, _unreadable, calls = scan
    wrong = [
        f"{where}: {cls}({code!r}) answers {status_of[cls]}, catalogued {CATALOGUE[code].statuses}"
        for cls, code, where in calls
        if cls in status_of and code in CATALOGUE and status_of[cls] not in CATALOGUE[code].statuses
    ]
    assert not wrong, "\n".join(wrong)


def engine_codes() -> list[str]:
    found, _unreadable, _calls = raised_codes()
    in_engine = {c for c, at in found.items() if any(w.startswith("games/engine/") for w in at)}
    return sorted(in_engine - ENGINE_INTERNAL)


@pytest.mark.parametrize("code", engine_codes())
def test_a_rules_code_is_answered_with_its_catalogued_status(code):
    from games.play.errors import from_rule_error

    assert from_rule_error(RuleError(code, "Because.")).status == CATALOGUE[code].statuses[0]


def test_codes_are_snake_case_with_statuses_and_a_sentence():
    for code, entry in CATALOGUE.items():
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", code), code
        # 4xx/5xx for an error body; a code reported in a 2xx body (a failed hint) is 2xx.
        assert entry.statuses and all(200 <= s <= 599 for s in entry.statuses), code
        assert entry.meaning[:1].isupper() and entry.meaning.endswith("."), (code, entry)


def test_docs_errors_md_is_generated_from_the_catalogue():
    page = (ROOT / "docs" / "errors.md").read_text()
    assert page == error_codes.render_markdown(), (
        "docs/errors.md differs from games/http/error_codes.py: run "
        "`python -m games.http.error_codes > docs/errors.md`"
    )
    for code in CATALOGUE:
        assert f"| `{code}` |" in page


def test_every_code_the_engine_raises_has_a_kind_and_the_table_has_no_other(scan):
    found, _unreadable, _calls = scan
    raised = {c for c, at in found.items() if any(w.startswith("games/engine/") for w in at)}
    assert raised - set(KINDS) == set(), "add each to games/engine/errors.py KINDS"
    assert set(KINDS) - raised == set(), "no longer raised: drop from KINDS"


def test_each_kind_of_rules_error_has_its_own_status():
    from games.play.errors import ERROR_OF_KIND

    assert {kind: ERROR_OF_KIND[kind].status for kind in RuleKind} == {
        RuleKind.MALFORMED: 400,
        RuleKind.OUT_OF_TURN: 409,
        RuleKind.ILLEGAL: 422,
    }


def test_a_rules_code_nobody_gave_a_kind_is_never_answered_with_a_guessed_status():
    """Before, a code missing from the hand-kept lists became a 422 unnoticed."""
    from games.play.errors import from_rule_error

    with pytest.raises(KeyError):
        from_rule_error(RuleError("a_code_nobody_listed", "Because."))


def test_a_seat_that_is_not_a_seat_is_malformed_input_400_not_an_illegal_move():
    from games.play.errors import from_rule_error

    assert RuleError("invalid_seat", "A seat is a number from 0 to 3.").kind == RuleKind.MALFORMED
    assert from_rule_error(RuleError("invalid_seat", "Because.")).status == 400
