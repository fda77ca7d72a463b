"""What client generators need of the committed schema beyond what the contract tests ask."""

from typing import Any

import yaml

from tests.bots.worker_support import ROOT


def nullable_enums_without_null(node: Any, path: str = "") -> list[str]:
    found = []
    if isinstance(node, dict):
        if "enum" in node and node.get("nullable") and None not in node["enum"]:
            found.append(path)
        for key, value in node.items():
            found += nullable_enums_without_null(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += nullable_enums_without_null(value, f"{path}[{i}]")
    return found


def test_every_nullable_enum_lists_null():
    """OpenAPI 3.0.3: `nullable` does not widen an `enum`; a null value must be one of the
    enum's values. openapi-python-client follows it: without it, the generated client failed
    to parse a person's seat_taken event (level null) in a replay."""
    schema = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert nullable_enums_without_null(schema) == []
