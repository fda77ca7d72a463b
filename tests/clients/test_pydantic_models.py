"""Proof by another generator (issue 33): datamodel-code-generator makes pydantic v2 models
from the schema with its default options, and what the real service answers validates
against them: a finished match's view and events, a spectator's, and a view mid-match.

A model is stricter than the contract tests' JSON Schema check in one way that matters to
a client: a field the schema lists as required must be sent, and one that is not nullable
must not be null. So the schema must say what the service sends."""

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import ValidationError

from tests.clients.support import run, schema_file
from tests.conftest import make_player
from tests.games.helpers import act, create_match, view

# (computer turns run on commit)
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

GENERATOR = shutil.which("datamodel-codegen", path=str(Path(sys.executable).parent))

# Every variant at once, and both alone options: the most shapes of view and event.
OPTIONS = {
    "target_score": 3,
    "joker": True,
    "farmers_hand": True,
    "no_ace_no_face_no_trump": True,
    "defending_alone": True,
}


def generated_models(schema: Path, directory: Path) -> ModuleType:
    """The pydantic v2 models of the schema's components (default options otherwise)."""
    assert GENERATOR, "datamodel-code-generator is missing: pip install -e '.[test]'"
    out = directory / "euchre_models.py"
    run([GENERATOR, "--input", str(schema), "--input-file-type", "openapi",
         "--output-model-type", "pydantic_v2.BaseModel", "--output", str(out)],
        directory, timeout=300)  # fmt: skip
    spec = importlib.util.spec_from_file_location("euchre_models", out)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["euchre_models"] = module  # (pydantic resolves forward references by module)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["euchre_models"]
    return module


def problems(model: Any, body: Any) -> list[str]:
    """What the model refuses in the body, one line each."""
    try:
        model.model_validate(body)
    except ValidationError as error:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]
    return []


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> ModuleType:
    directory = tmp_path_factory.mktemp("pydantic")
    return generated_models(schema_file(directory), directory)


def test_what_the_service_sends_validates_against_the_generated_models(models):
    """A whole match with every variant, its person playing its last legal action (alone
    where it may): the views (every tenth action, each action's answer, and once
    finished), the events as the seat sees them and as a spectator does, mid-match and
    once finished, and the replay, each validated by the generated models."""
    _alice, client = make_player("alice")
    _bob, spectator = make_player("bob")
    match_id = create_match(client, options=OPTIONS, visibility="public")["id"]
    events = f"/api/v1/matches/{match_id}/events"
    answers: list[tuple[str, Any, Any]] = []

    def keep_all(when: str) -> None:
        answers.append((f"view {when}", models.MatchView, view(client, match_id)))
        answers.append((f"events {when}", models.Events, client.get(events).json()))
        answers.append((f"spectator's view {when}", models.MatchView, view(spectator, match_id)))
        answers.append((f"spectator's events {when}", models.Events, spectator.get(events).json()))

    body = view(client, match_id)
    for step in range(3000):
        if body["status"] == "finished":
            break
        if step % 10 == 0:
            keep_all(f"at action {step}")
        response = act(client, match_id, body["view"]["legal_actions"][-1])
        assert response.status_code == 200, response.content
        answers.append((f"action {step}", models.MatchView, response.json()))
        body = view(client, match_id)
    assert body["status"] == "finished"
    keep_all("once finished")
    replay = client.get(f"/api/v1/matches/{match_id}/replay").json()
    answers.append(("replay", models.Replay, replay))
    refused = {name: found for name, model, body in answers if (found := problems(model, body))}
    assert not refused, "\n".join(
        f"{name}: {len(found)} errors: {found[:5]}" for name, found in refused.items()
    )
