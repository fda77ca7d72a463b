"""The actions operation's words in the contract (openapi.yaml) name every type of its
Action union, as the engine has them (issue 35: the description listed 6 of the 9)."""

import re
from pathlib import Path

import yaml

from games import engine as E

ROOT = Path(__file__).resolve().parents[3]


def test_the_actions_description_names_every_action_type_of_the_union():
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C one when built: 14k lines
    schema = yaml.load((ROOT / "openapi.yaml").read_text(), Loader=loader)  # noqa: S506
    operation = schema["paths"]["/api/v1/matches/{match_id}/actions"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    union = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    types = set(union["discriminator"]["mapping"])
    assert types == set(E.ACTION_TYPES)
    named = set(re.findall(r"`(\w+)`", operation["description"]))
    assert types <= named, f"not named: {sorted(types - named)}"
