"""docs/operations/security.md's threat model names the test that shows each defence: every
test it names exists, so the table cannot point at a test that was renamed or removed."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"`([^`]+)`")


def threat_model_rows() -> list[str]:
    text = (ROOT / "docs" / "operations" / "security.md").read_text()
    section = text.split("## Threat model", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def named_tests(cell: str, current: str | None) -> list[tuple[str, str | None]]:
    """(file under tests/, test name or None) for each reference in a cell; `::name`
    alone continues the file named before it (`current`, in an earlier row)."""
    found = []
    for token in TOKEN.findall(cell):
        path, _, name = token.partition("::")
        if path.endswith(".py"):
            current = path
        elif path:
            continue  # a setting or a file that is not a test
        found.append((current, name or None))
    return found


def functions_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_every_test_the_threat_model_names_exists():
    rows = threat_model_rows()
    assert len(rows) > 10, "the threat model table is missing"
    checked, current = 0, None
    for row in rows[1:]:  # the first row is the header
        shown_by = row.rstrip(" |").rsplit(" | ", 1)[1]
        references = named_tests(shown_by, current)
        assert references, f"a row names no test: {row[:80]}"
        for file, name in references:
            assert file is not None, f"`::{name}` follows no file"
            current = file
            path = ROOT / "tests" / file
            assert path.is_file(), f"{file} (named in the threat model) does not exist"
            if name is not None:
                assert name in functions_in(path), f"{file}::{name} does not exist"
            checked += 1
    assert checked > 20
