"""Proof by a generated client (issue 11): openapi-typescript makes TypeScript types from
the schema, tsc --strict checks tests/clients/ts/play.ts against them, and node runs it:
a whole match against a live server through openapi-fetch. The npm packages are pinned
in tests/clients/ts/package-lock.json and installed by bin/clients-up (run by bin/test)."""

import json
import re
import shutil

import pytest

from games.models import Match, MatchStatus
from tests.clients.support import CLIENTS, run, schema_file
from tests.games.server_support import ApiServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TS = CLIENTS / "ts"
BIN = TS / "node_modules" / ".bin"
NODE = shutil.which("node")


def untyped_reads(source: str) -> dict[str, list[str]]:
    """The script's lines that read the schema untyped or dodge the types (`any`, a cast,
    a string-keyed index), by the top-level function they are in ("" outside any)."""
    found: dict[str, list[str]] = {}
    function = ""
    for line in source.splitlines():
        if started := re.match(r"(?:export )?(?:async )?function (\w+)", line):
            function = started.group(1)
        elif line.startswith("}"):
            function = ""
        code = line.split("//")[0]
        if code.lstrip().startswith(("*", "/*", "type ", "import ")):
            continue
        if re.search(r"\bany\b|\bas (?!const\b)\w|\[\s*\"", code):
            found.setdefault(function, []).append(line.strip())
    return found


def test_the_play_script_reads_the_generated_types_only():
    """No `any`, no cast, no string-keyed read in play.ts: tsc --strict checks every
    other expression against the generated types."""
    reads = untyped_reads((TS / "play.ts").read_text())
    assert not reads, f"untyped reads in play.ts: {reads}"


@pytest.fixture
def server():
    api = ApiServer(COMPUTER_MOVE_DELAY="0").start()
    yield api
    api.stop()


def test_a_typescript_client_from_the_schema_plays_a_whole_match(server, tmp_path):
    assert NODE, "node is missing (bin/clients-up installs it)"
    assert (BIN / "tsc").exists(), "tests/clients/ts/node_modules is missing: run bin/clients-up"
    # The script, its strict tsconfig and package.json (an ES module), and the pinned
    # packages, in a directory of this test's own, with the types generated into it.
    for name in ("play.ts", "tsconfig.json", "package.json"):
        shutil.copy(TS / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(TS / "node_modules", target_is_directory=True)
    schema = schema_file(tmp_path)
    run([str(BIN / "openapi-typescript"), str(schema), "--default-non-nullable", "false",
         "-o", str(tmp_path / "schema.d.ts")], tmp_path, timeout=120)  # fmt: skip
    assert json.loads((tmp_path / "tsconfig.json").read_text())["compilerOptions"]["strict"]
    run([str(BIN / "tsc"), "-p", str(tmp_path)], tmp_path, timeout=180)
    output = run([NODE, str(tmp_path / "out" / "play.js"), server.url], tmp_path, timeout=300)
    result = json.loads(output.stdout.strip().splitlines()[-1])
    match = Match.objects.get(pk=result["match"])
    assert match.status == MatchStatus.FINISHED
    assert [match.score_ns, match.score_we] == result["scores"]
    assert match.winner_team == result["winner_team"]
    assert result["actions"] > 0 and result["hands"] == match.hands_played
