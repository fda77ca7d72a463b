"""The schema as the linters read it (issue 33): Redocly's `recommended` rules and
Spectral's `spectral:oas` ruleset find no error and no warning in the schema the code
serves, nor in the committed openapi.yaml. Both are npm packages pinned in
tests/clients/ts/package-lock.json (bin/clients-up installs them)."""

import json
import os
from pathlib import Path

import pytest

from tests.bots.worker_support import ROOT
from tests.clients.support import CLIENTS, run, schema_file

BIN = CLIENTS / "ts" / "node_modules" / ".bin"
# No telemetry, no update check: CI reaches the package registry only.
QUIET = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "CI": "true"}


def linter(name: str) -> str:
    path = BIN / name
    assert path.exists(), f"{path} is missing: run bin/clients-up"
    return str(path)


def redocly(schema: Path, directory: Path) -> list[str]:
    """Each problem Redocly's recommended rules find, as `severity rule: message (where)`."""
    done = run(
        [linter("redocly"), "lint", "--extends", "recommended", "--format", "json",
         "--max-problems", "1000", str(schema)],
        directory, timeout=300, check=False, **{**os.environ, **QUIET},
    )  # fmt: skip
    problems = json.loads(done.stdout)["problems"]
    return [
        f"{p['severity']} {p['ruleId']}: {p['message']} ({p['location'][0]['pointer']})"
        for p in problems
    ]


SEVERITIES = {0: "error", 1: "warning", 2: "info", 3: "hint"}


def spectral(schema: Path, directory: Path) -> list[str]:
    """Each problem Spectral's oas ruleset finds (infos and hints included)."""
    ruleset = directory / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    output = directory / "spectral.json"
    done = run(
        [linter("spectral"), "lint", "--ruleset", str(ruleset), "--format", "json",
         "--output", str(output), "--fail-severity", "hint", str(schema)],
        directory, timeout=300, check=False, **{**os.environ, **QUIET},
    )  # fmt: skip
    assert output.exists(), done.stdout + done.stderr  # (it ran)
    problems = json.loads(output.read_text())
    return [
        f"{SEVERITIES[p['severity']]} {p['code']}: {p['message']} ({'.'.join(map(str, p['path']))})"
        for p in problems
    ]


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    return schema_file(tmp_path_factory.mktemp("served"))


@pytest.mark.parametrize("lint", [redocly, spectral])
@pytest.mark.parametrize("which", ["served", "committed"])
def test_the_linters_find_nothing_in_the_schema(lint, which, served, tmp_path):
    schema = served if which == "served" else ROOT / "openapi.yaml"
    assert lint(schema, tmp_path) == []


def test_the_linters_find_what_they_look_for(tmp_path):
    """They are as good as their rules: the schema as it was (a 3.0 `nullable` beside an
    allOf, a $ref with a sibling, no servers, an undefined tag) gets errors and warnings."""
    schema = tmp_path / "old.json"
    schema.write_text(json.dumps({
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1", "description": "d"},
        "paths": {"/a": {"get": {
            "operationId": "a", "summary": "a", "description": "a", "tags": ["a"],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/A"}}}}},
        }}},
        "components": {"schemas": {
            "B": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "A": {"type": "object", "properties": {
                "b": {"allOf": [{"$ref": "#/components/schemas/B"}], "nullable": True},
                "c": {"$ref": "#/components/schemas/B", "description": "a sibling"},
            }},
        }},
    }))  # fmt: skip
    found = " ".join(redocly(schema, tmp_path))
    assert "error struct" in found or "nullable-type-sibling" in found, found
    assert "no-empty-servers" in found, found
    found = " ".join(spectral(schema, tmp_path))
    assert "error no-$ref-siblings" in found and "warning operation-tag-defined" in found, found
