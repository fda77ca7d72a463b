"""The committed OpenAPI document (openapi.yaml) is the contract (issue 11, the schema).

- the served schema is the committed one: a contract change is a reviewed diff;
- every response object, to the leaves, declares its properties (no free-form `object`);
- every error code the code base can answer with is listed by some operation, and every
  operation lists its codes with a status of theirs;
- the typed parts agree with what the service answers: every event type, every phase of
  the view, the action request's examples, validated against the schema.
"""

from pathlib import Path

import jsonschema
import pytest
import yaml

from games import engine as E
from games.http.error_codes import CATALOGUE
from games.log import events as V

ROOT = Path(__file__).resolve().parents[3]
REGENERATE = (
    "python manage.py spectacular --file openapi.yaml  "
    "(then review and commit the diff: it is the API's contract, docs/api-versioning.md)"
)


@pytest.fixture(scope="module")
def served():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_served_schema_is_the_committed_openapi_yaml(served):
    committed = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    # yaml round trip, as `manage.py spectacular` writes it
    from drf_spectacular.renderers import OpenApiYamlRenderer

    rendered = yaml.safe_load(OpenApiYamlRenderer().render(served, renderer_context={}))
    assert rendered == committed, f"openapi.yaml differs from the served schema: run {REGENERATE}"


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def free_form_objects(schema: dict) -> list[str]:
    """Every place in a response where an object does not say what it holds."""
    found: list[str] = []
    seen: set[int] = set()

    def walk(node, where: str) -> None:
        if isinstance(node, dict) and "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name in seen_names:
                return
            seen_names.add(name)
            walk(_resolve(schema, node), f"{where} -> {name}")
            return
        if not isinstance(node, dict) or id(node) in seen:
            return
        seen.add(id(node))
        is_object = node.get("type") == "object" or "properties" in node
        closed = node.get("additionalProperties") is False  # declared: no properties
        if (
            is_object
            and not node.get("properties")
            and not closed
            and not isinstance(node.get("additionalProperties"), dict)
        ):
            found.append(where)
        if node.get("type") == "object" and node.get("additionalProperties") is True:
            found.append(where + " (additionalProperties: true)")
        if "type" not in node and not any(k in node for k in ("oneOf", "allOf", "anyOf", "enum")):
            found.append(where + " (no type)")
        for key in ("oneOf", "allOf", "anyOf"):
            for i, sub in enumerate(node.get(key, [])):
                walk(sub, f"{where}.{key}[{i}]")
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, f"{where}.{name}")
        if "items" in node:
            walk(node["items"], f"{where}[]")
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{where}{{}}")

    seen_names: set[str] = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                for media, content in (response.get("content") or {}).items():
                    if media == "application/json" and "schema" in content:
                        seen_names.clear()
                        seen.clear()
                        walk(content["schema"], f"{method.upper()} {path} {status}")
    return found


def test_no_response_object_is_free_form(served):
    found = free_form_objects(served)
    assert not found, "response objects without declared properties:\n" + "\n".join(found)


def test_the_walk_finds_a_free_form_object():
    """The walk is as good as its eye: a DictField, as the view was before, is caught."""
    schema = {
        "paths": {"/x": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/X"}}}}}}}},
        "components": {"schemas": {"X": {"type": "object", "properties": {
            "view": {"type": "object", "additionalProperties": {}},
            "seats": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        }}}},
    }  # fmt: skip
    found = free_form_objects(schema)
    assert any(".view" in f for f in found) and any(".seats[]" in f for f in found), found


def test_every_error_code_the_code_can_answer_with_is_in_the_schema(served):
    from tests.games.http.test_error_codes import handler_codes, raised_codes

    found, _unreadable, _calls = raised_codes()
    answered = (set(found) | handler_codes()) & set(CATALOGUE)
    listed: set[str] = set()
    for operations in served["paths"].values():
        for operation in operations.values():
            for status, response in operation["responses"].items():
                for code in response.get("x-error-codes", []):
                    assert int(status) in CATALOGUE[code].statuses, (status, code)
                    listed.add(code)
    listed |= set(served["components"]["schemas"]["HintFailure"]["enum"])  # a failed hint's
    listed |= set(served["components"]["schemas"]["ReviewCodeEnum"]["enum"])  # a review's
    # A 500 is no answer the contract makes (a bug, logged): not listed on any operation.
    bugs = {c for c, entry in CATALOGUE.items() if entry.statuses == (500,)}
    # Every view under /api/ is CSRF-exempt (tokens, not cookies): no operation answers it.
    unreachable = {"csrf_failed"}
    missing = answered - listed - bugs - unreachable
    assert not missing, f"codes the service answers with that no operation lists: {missing}"


def test_an_errors_code_is_the_catalogues_enum(served):
    """A generated client gets a type of the codes to switch on (it was a plain string)."""
    schemas = served["components"]["schemas"]
    code = _resolve(served, schemas["Error"]["properties"]["code"])
    assert code["type"] == "string" and code["enum"] == sorted(CATALOGUE)
    check = validator(served, "Error")
    check.validate({"code": "stale_sequence", "detail": "The match has moved on.", "seq": 4})
    assert not check.is_valid({"code": "no_such_code", "detail": "d"})


def test_each_operation_lists_its_own_codes(served):
    """A sample of what the narrowed lists must keep."""
    ops = {o["operationId"]: o for ops in served["paths"].values() for o in ops.values()}

    def codes(op: str, status: int) -> set[str]:
        return set(ops[op]["responses"].get(str(status), {}).get("x-error-codes", []))

    assert {"stale_sequence", "not_your_turn", "match_not_started"} <= codes(
        "matches_actions_create", 409
    )
    assert {"must_follow_suit", "idempotency_key_mismatch"} <= codes("matches_actions_create", 422)
    assert codes("auth_register_create", 409) == {"username_taken"}
    assert "401" not in ops["auth_register_create"]["responses"]
    assert "422" not in ops["matches_retrieve"]["responses"]
    assert codes("matches_replay_retrieve", 409) == {"match_not_finished"}
    assert codes("matches_return_create", 409) >= {"not_away"}
    assert "429" not in ops["matches_retrieve"]["responses"]


# ---------------------------------------------------------------- the typed parts, checked


def validator(schema: dict, name: str):
    """The component `name` as a JSON Schema validator: OpenAPI 3.1's schemas are JSON
    Schema 2020-12 (null is in a type list or a union, no `nullable`)."""
    document = {"components": schema["components"], "$ref": f"#/components/schemas/{name}"}
    return jsonschema.Draft202012Validator(_closed(document))


def _closed(node):
    """For these checks only, every object closed, so that a field the service answers and
    the schema omits is caught."""
    if isinstance(node, list):
        return [_closed(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: _closed(v) for k, v in node.items() if k not in ("discriminator",)}
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    return node


def test_the_request_examples_are_valid_actions(served):
    operation = served["paths"]["/api/v1/matches/{match_id}/actions"]["post"]
    content = operation["requestBody"]["content"]["application/json"]
    check = validator(served, "ActionRequest")
    assert len(content["examples"]) >= len(E.ACTION_TYPES)
    for example in content["examples"].values():
        check.validate(example["value"])
        body = {k: v for k, v in example["value"].items() if k != "expected_seq"}
        E.action_from_dict(body)  # the engine takes it too
    bad = {"type": "pass", "card": "str", "suit": "s", "alone": True}  # Swagger's old example
    assert not check.is_valid(bad)


def test_every_event_type_has_its_schema_in_the_union(served):
    union = served["components"]["schemas"]["MatchEvent"]
    assert set(union["discriminator"]["mapping"]) == set(V.EVENT_TYPES)
    logged = served["components"]["schemas"]["LoggedEvent"]
    assert set(logged["discriminator"]["mapping"]) == set(V.EVENT_TYPES)


@pytest.mark.django_db(transaction=True)  # computer turns are asked for on commit
@pytest.mark.parametrize(
    "options",
    [
        {"target_score": 3},
        {"target_score": 3, "stick_the_dealer": False, "defending_alone": True},
    ],
    ids=["default rules", "no stick, defending alone"],
)
def test_what_the_service_answers_is_what_the_schema_says(served, player, options):
    """A whole match against computer players, its last action alone (so every phase and
    both alone options come up): every view, the events as the seat sees them before the
    end (a deal without deck or salt but with the seat's cards, others' discards without
    the card), as logged once it is over, and the replay, each validated against
    the committed schema."""
    from tests.games.helpers import OPEN, act, create_match, view

    _user, client = player
    match_id = create_match(client, options=options)["id"]
    check_view = validator(served, "MatchView")
    check_event = validator(served, "MatchEvent")
    phases, types_seen = set(), set()
    body = view(client, match_id)
    for _ in range(3000):
        check_view.validate(body)
        phases.add(body["view"]["phase"])
        if body["status"] == "finished":
            break
        legal = body["view"]["legal_actions"]
        assert legal, (body["status"], body["view"]["phase"], body["view"]["turn"], body["seats"])
        response = act(
            client,
            match_id,
            legal[-1],
        )  # alone where it may
        assert response.status_code == 200, response.content
        check_view.validate(response.json())
        events = client.get(f"/api/v1/matches/{match_id}/events").json()
        validator(served, "Events").validate(events)
        for event in events["events"]:
            check_event.validate(event)
            types_seen.add(event["type"])
        body = view(client, match_id)
    assert body["status"] == "finished"
    waiting = view(client, create_match(client, OPEN)["id"])  # no hand dealt yet
    check_view.validate(waiting)
    phases.add(waiting["view"]["phase"])
    assert {"deal", "bid1", "play", "finished"} <= phases, phases
    wrong = {**body, "view": {**body["view"], "phase": "bid1"}}  # bid1 with no legal pass
    wrong["view"]["legal_actions"] = [{"type": "play", "card": "JH"}]
    assert not check_view.is_valid(wrong)
    for event in client.get(f"/api/v1/matches/{match_id}/events").json()["events"]:
        check_event.validate(event)
    replay = client.get(f"/api/v1/matches/{match_id}/replay").json()
    validator(served, "Replay").validate(replay)
    assert {"match_created", "hand_dealt", "bid", "card_played", "hand_scored"} <= types_seen


def test_a_deal_before_the_end_must_not_carry_the_deck(served):
    """The schema of a deal seen mid-match is the `seen` record: a payload with the deck
    is not one (it would be a leak), and one with the seat's cards is."""
    check = validator(served, "HandDealtSeenPayload")
    seen = {"hand": 1, "dealer": 3, "upcard": "JH", "commitment": "a" * 64, "cards": ["9C"] * 5}
    check.validate(seen)
    assert not check.is_valid({**seen, "deck": ["9C"] * 24, "salt": "x"})


def test_a_legal_action_is_the_body_that_takes_it(served):
    """Each kind of action as the view lists it has every field its request takes, and
    requires what the request requires (a discard's and a farmer's card too: they were
    optional), so that a generated client posts it as it is."""
    schemas = served["components"]["schemas"]
    for kind in E.ACTION_TYPES:
        name = "".join(part.capitalize() for part in kind.split("_")) + "Action"
        legal, request = schemas[name], schemas[name + "Request"]
        assert set(request["required"]) <= set(legal["required"]), kind
        assert set(legal["properties"]) == set(request["properties"]) - {"expected_seq"}, kind
        example = {"type": kind, "card": "9C", "suit": "H", "alone": False}
        example = {k: v for k, v in example.items() if k in legal["properties"]}
        validator(served, name).validate(example)
        validator(served, "ActionRequest").validate({**example, "expected_seq": 3})


def test_a_hidden_card_is_a_shape_of_its_own_in_the_events(served):
    """The others see a discard, or a farmer's card put out, with no card before the match
    is over: that is a MatchEvent, never a logged one (a replay has every card)."""
    for kind, event in (("discard", "discard"), ("farm", "farm_exchange")):
        hidden = {"seq": 9, "type": event, "seat": 1, "payload": {"action": {"type": kind}},
                  "created_at": "2026-01-01T00:00:00Z"}  # fmt: skip
        shown = {**hidden, "payload": {"action": {"type": kind, "card": "9C"}}}
        assert validator(served, "MatchEvent").is_valid(hidden), kind
        assert validator(served, "MatchEvent").is_valid(shown), kind
        assert not validator(served, "LoggedEvent").is_valid(hidden), kind
        assert validator(served, "LoggedEvent").is_valid(shown), kind
        assert not validator(served, f"{kind.capitalize()}Action").is_valid({"type": kind})


@pytest.mark.django_db(transaction=True)  # the hint is worked out on commit
def test_a_hint_is_what_the_schema_says(served, player):
    from tests.games.helpers import create_match

    _user, client = player
    match_id = create_match(client)["id"]
    asked = client.post(f"/api/v1/matches/{match_id}/hints")
    assert asked.status_code == 202, asked.content
    validator(served, "Hint").validate(asked.json())
    hint = client.get(f"/api/v1/hints/{asked.json()['id']}").json()
    validator(served, "Hint").validate(hint)
    assert hint["status"] == "done" and hint["action"]["type"] in E.ACTION_TYPES
