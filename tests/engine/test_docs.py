"""docs/rules.md stays true: its example runs, and its tables match the engine."""

import contextlib
import io
import pathlib
import re

import pytest

from games import engine as E
from games.engine.options import LONE_LEAD_CHOICES

DOC = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()


def test_the_example_that_plays_one_hand_runs_as_written():
    example = DOC.split("### Example: one hand from a given deal", 1)[1]
    code = re.search(r"```python\n(.*?)```", example, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/rules.md", "exec"), {})
    assert out.getvalue() == "made\n"


@pytest.mark.parametrize("name, default", list(E.Options().to_dict().items()))
def test_every_option_is_documented_with_its_default(name, default):
    options_section = DOC.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in options_section.splitlines() if line.startswith(f"| `{name}` |"))
    text = f"`{str(default).lower()}`" if isinstance(default, bool) else f"`{default!r}`"
    assert text.replace("'", '"') in row.split("|")[2]


def test_every_lone_lead_choice_is_documented():
    for choice in LONE_LEAD_CHOICES:
        assert f"| `{choice}`" in DOC


def test_every_action_type_is_documented_with_its_json_form():
    for kind in E.ACTION_TYPES:
        assert f'{{"type": "{kind}"' in DOC


def test_every_public_name_of_the_engine_is_documented():
    missing = [name for name in E.__all__ if f"`{name}" not in DOC and name not in DOC]
    assert missing == []


ERROR_CODES = [
    "not_your_turn",
    "wrong_phase",
    "card_not_in_hand",
    "must_follow_suit",
    "cannot_name_turned_down_suit",
    "dealer_must_call",
    "going_alone_disabled",
    "sitting_out",
    "invalid_seat",
    "invalid_action",
    "invalid_card",
    "invalid_suit",
    "invalid_deck",
    "invalid_option",
    "invalid_seed",
    "invalid_state",
    "illegal_action",
    "farm_under_way",
    "not_a_farmers_card",
]


RULES_MODULES = ("actions", "cards", "deal", "errors", "options", "state", "views")


def test_every_error_code_raised_by_the_rules_is_documented():
    engine_dir = pathlib.Path(E.__file__).parent
    source = "".join((engine_dir / f"{name}.py").read_text() for name in RULES_MODULES)
    raised = set(re.findall(r'RuleError\(\s*"([a-z_]+)"', source))
    assert raised == set(ERROR_CODES)
    for code in ERROR_CODES:
        assert f"| `{code}`" in DOC
