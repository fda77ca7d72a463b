"""What client generators need of the committed schema beyond what the contract tests ask."""

from typing import Any

import yaml

from games.http.api_schema import or_null
from tests.bots.worker_support import ROOT


def committed() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "openapi.yaml").read_text())


def nodes(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every object of the document with where it is."""
    found = []
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            found += nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += nodes(value, f"{path}[{i}]")
    return found


def admits_null(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type", [])
    return "null" in kinds if isinstance(kinds, list) else kinds == "null"


def test_every_enum_that_admits_null_lists_it():
    """An `enum` is checked besides the `type`: a null the type admits must be one of the
    enum's values too (openapi-python-client follows it: without it, the generated client
    failed to parse a person's seat_taken event, level null, in a replay)."""
    found = [
        path
        for path, node in nodes(committed())
        if "enum" in node and admits_null(node) and None not in node["enum"]
    ]
    assert found == []


def test_null_is_said_in_openapi_31s_words_only():
    """No 3.0 `nullable` is left (3.1 ignores it: the field would read as never null), and
    no component that is null alone (a generated client would get a type named NullEnum
    where it should get None)."""
    document = committed()
    assert document["openapi"].startswith("3.1")
    assert [path for path, node in nodes(document) if "nullable" in node] == []
    schemas = document["components"]["schemas"]
    assert [name for name, schema in schemas.items() if schema.get("type") == "null"] == []


def test_or_null_adds_null_to_each_kind_of_schema():
    null = {"type": "null"}
    ref = {"$ref": "#/components/schemas/Rating"}
    assert or_null({"type": "integer"}) == {"type": ["integer", "null"]}
    assert or_null({"type": "string", "enum": ["a"]}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    assert or_null({**ref, "description": "d"}) == {"oneOf": [ref, null], "description": "d"}
    assert or_null({"allOf": [ref], "nullable": True}) == {"oneOf": [ref, null]}
    assert or_null({"oneOf": [ref]}) == {"oneOf": [ref, null]}
    assert or_null(or_null({"type": "integer"})) == {"type": ["integer", "null"]}
