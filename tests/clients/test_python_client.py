"""Proof by a generated client (issue 11): openapi-python-client makes a Python client from
the schema, and python_play.py plays a whole match against a live server through it alone,
type-checked against it first (mypy --strict --disallow-any-expr: typed models only)."""

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.models import Match, MatchStatus
from tests.clients.support import CLIENTS, run, schema_file
from tests.games.server_support import ApiServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

GENERATOR = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))


@pytest.fixture
def server():
    api = ApiServer(COMPUTER_MOVE_DELAY="0").start()
    yield api
    api.stop()


def without_not_modified(schema: Path) -> Path:
    """The schema without its 304 answers. openapi-python-client types an answer with no
    body as `Any` (parser/responses.py empty_response), which would put Any into every
    conditional GET's result; this script never sends If-None-Match, so it never gets a 304.
    (The TypeScript client is generated from the whole schema.)"""
    import yaml

    document = yaml.safe_load(schema.read_text())
    for operations in document["paths"].values():
        for operation in operations.values():
            operation["responses"].pop("304", None)
    schema.write_text(yaml.safe_dump(document, sort_keys=False))
    return schema


def generate(schema: Path, directory: Path) -> Path:
    """The client package `euchre_client`, generated into `directory` (never committed)."""
    assert GENERATOR, "openapi-python-client is missing: pip install -e '.[test]'"
    schema = without_not_modified(schema)
    config = directory / "generator.yaml"
    # (no post hooks: the generator would run ruff over the generated code, which no one reads)
    config.write_text("package_name_override: euchre_client\npost_hooks: []\n")
    out = directory / "euchre_client"
    said = run([GENERATOR, "generate", "--path", str(schema), "--config", str(config),
                "--meta", "none", "--output-path", str(out)], directory, timeout=120)  # fmt: skip
    # A warning means a part of the schema the generator could not make a model of (an
    # operation or a response left out of the client).
    assert "warning" not in (said.stdout + said.stderr).lower(), said.stderr
    assert (out / "api" / "matches" / "matches_actions_create.py").exists()
    return directory


SCRIPT = CLIENTS / "python_play.py"
# What the script may import: the generated client, and the standard library's plumbing
# (httpx only for its Timeout, which the generated Client takes). No request code of its own.
ALLOWED_IMPORTS = {"euchre_client", "httpx", "json", "sys", "time", "uuid", "typing"}


def test_the_play_script_uses_the_generated_models_only(tmp_path):
    """Every expression of python_play.py is typed by the generated package: no Any (no
    free-form object, no dict read), no error, under mypy --strict --disallow-any-expr."""
    package_dir = generate(schema_file(tmp_path), tmp_path)
    tree = ast.parse(SCRIPT.read_text())
    imported = {
        (n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
        for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }  # fmt: skip
    assert imported <= ALLOWED_IMPORTS, imported - ALLOWED_IMPORTS
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--disallow-any-expr",
         "--follow-imports=silent", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"),
         str(SCRIPT)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "MYPYPATH": str(package_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_generated_python_client_plays_a_whole_match(server, tmp_path):
    package_dir = generate(schema_file(tmp_path), tmp_path)
    output = run(
        [sys.executable, str(SCRIPT), server.url], tmp_path, timeout=300,
        **{**os.environ, "PYTHONPATH": str(package_dir)},
    )  # fmt: skip
    result = json.loads(output.stdout.strip().splitlines()[-1])
    match = Match.objects.get(pk=result["match"])
    assert match.status == MatchStatus.FINISHED
    assert [match.score_ns, match.score_we] == result["scores"]
    assert match.winner_team == result["winner_team"]
    assert result["actions"] > 0 and result["hands"] == match.hands_played
