"""games/log/events.py is the one definition of the event vocabulary."""

import ast
import dataclasses
import inspect
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from django.utils import timezone

from games import engine as E
from games.engine import outcomes
from games.http import feed
from games.http.error_codes import CATALOGUE
from games.log import events
from games.log.deal_view import seat_cards
from games.log.events import EVENT_TYPES, REGISTRY
from games.models import Event

ROOT = Path(__file__).resolve().parents[3]
DECK = [E.card_str(c) for c in E.seeded_deck(7)]


# ---------------------------------------------------------------- every type is defined


def test_every_event_type_of_the_log_has_a_definition_a_redaction_rule_and_a_place_in_the_docs():
    # The log's vocabulary as the replay reads it: each group the Replayer handles.
    replayed = {
        events.MATCH_CREATED,
        events.MATCH_ABANDONED,
        events.HAND_DEALT,
        *events.NO_ENGINE_EFFECT,
        *events.OUTCOME_EVENT_TYPES,
        *events.ACTION_EVENT_TYPES.values(),
    }
    derived = {v for k, v in vars(outcomes).items() if k.isupper()}
    assert derived == set(events.OUTCOME_EVENT_TYPES)
    assert replayed == set(EVENT_TYPES) == set(REGISTRY)
    assert len(EVENT_TYPES) == 18  # seat_vacated (quick play), farm_exchange (farmers_hand)

    doc = (ROOT / "docs" / "architecture.md").read_text()
    start, end = "<!-- events.describe() -->\n", "\n<!-- /events.describe() -->"
    generated = doc[doc.index(start) + len(start) : doc.index(end)]
    assert generated == events.describe(), "regenerate docs/architecture.md's event list"
    for name, definition in REGISTRY.items():
        assert definition.name == name
        assert get_type_hints(definition.payload) == events.payload_fields(name)
        assert callable(definition.redact)
        assert definition.doc
        assert f"    {name} " in events.__doc__, name
        assert f"`{name}`" in doc, name


def test_every_payload_field_has_a_machine_readable_type():
    plain = (int, str, bool, list, dict, type(None))
    for name in EVENT_TYPES:
        for field, hint in events.payload_fields(name).items():
            origin = get_origin(hint)
            parts = get_args(hint) if origin is not None else (hint,)
            for part in parts:
                ok = part is Any or part in plain or get_origin(part) in plain
                ok = ok or (isinstance(part, type) and issubclass(part, dict))  # a TypedDict
                assert ok, f"{name}.{field}: {hint}"


# ---------------------------------------------------------------- constructors and rules


def sample(hint: Any, field: str) -> Any:
    if field == "deck":
        return list(DECK)
    if field in ("dealer", "seat"):
        return 2
    if field == "upcard":
        return DECK[20]
    if get_origin(hint) is list:
        return [1, 2]
    return {int: 1, str: "x", bool: True}.get(hint, {})


def sample_payload(name: str) -> dict[str, Any]:
    return {f: sample(h, f) for f, h in events.payload_fields(name).items()}


def test_each_constructor_builds_the_payload_its_record_names():
    built = {}
    for name in EVENT_TYPES:
        make = getattr(events, name, None)
        if make is None:
            continue  # bid, discard, card_played: events.action; the outcomes: events.outcomes
        hints = get_type_hints(make)
        kwargs = {p: sample(hints[p], p) for p in inspect.signature(make).parameters}
        built[name] = make(**kwargs)
    built[events.DISCARD] = events.action(1, E.discard(E.parse_card("9C")))
    built[events.BID] = events.action(1, E.PASS)
    built[events.CARD_PLAYED] = events.action(1, E.play(E.parse_card("AS")))
    built[events.FARM] = events.action(1, E.farm(E.parse_card("9C")))
    for outcome in events.outcomes(engine_outcomes()):  # what the rules derive, as logged
        built.setdefault(outcome.type, outcome)
    assert set(built) == set(EVENT_TYPES)
    for name, event in built.items():
        assert event.type == name
        # every required field, and no field the record does not name (hand_thrown_in's
        # reason, seat and cards are there only for a called redeal)
        required = REGISTRY[name].payload.__required_keys__
        assert required <= set(event.payload or {}) <= set(events.payload_fields(name)), name


def engine_outcomes() -> list[dict[str, Any]]:
    """Every outcome of whole matches played by the engine."""
    found = []
    for seed in range(3):
        options = E.Options(target_score=3, stick_the_dealer=False)
        state = E.MatchState(options, first_dealer=seed)
        deals = 0
        while state.phase != E.FINISHED:
            state.deal(E.seeded_deck(seed * 100 + deals))
            deals += 1
            while state.turn is not None:
                actions = state.legal_actions()
                # everyone passes in the first hand (thrown in), then varied choices
                choice = actions[0] if deals == 1 else actions[(deals + len(found)) % len(actions)]
                found.extend(state.apply_action(state.turn, choice))
    return found


class Logged:
    def __init__(self, type_: str, seat: int | None, payload: dict[str, Any]) -> None:
        self.type, self.seat, self.payload = type_, seat, payload


@pytest.mark.parametrize("name", EVENT_TYPES)
def test_each_types_redaction_rule_before_and_after_the_match_is_finished(name):
    payload = sample_payload(name)
    event = Logged(name, 2, payload)
    for seat in (None, 0, 1, 2, 3):
        assert events.redact(event, seat, finished=True) == payload
        seen = events.redact(event, seat, finished=False)
        shape = REGISTRY[name].seen or REGISTRY[name].payload
        assert set(seen) <= set(get_type_hints(shape)), (name, seat)
        if name == events.HAND_DEALT:
            # (the sample is a deal whose dealer, seat 2, names a joker upcard's suit)
            assert "deck" not in seen and "salt" not in seen
            if seat == 2:  # the dealer's cards come with the naming
                assert seen["cards"] == [] and seen["cards_hidden"] is True
            else:
                assert seen.get("cards") == (None if seat is None else seat_cards(DECK, 2, seat))
        elif name == events.BID and seat != 2:  # a naming's cards: the dealer's alone
            assert seen == {k: v for k, v in payload.items() if k != "cards"}
        elif name == events.DISCARD and seat != 2:
            assert seen == {"action": {"type": "discard"}}
        elif name == events.FARM and seat != 2:  # a farmer's card: face down to the others
            assert seen == {"action": {"type": "farm"}}
        else:
            assert seen == payload


@pytest.mark.parametrize("name", feed.FEED_EVENT_TYPES)
def test_the_feed_shows_each_event_as_events_redact_shows_it_to_the_seat(name, monkeypatch):
    """The feed has no redaction of its own: were a type it carries to hide a field from
    the seat, its feed items would hide it too (one redaction path, events.redact)."""

    def hide_the_seat(payload, _event_seat, _seat):
        return {k: v for k, v in payload.items() if k != "seat"}

    monkeypatch.setitem(REGISTRY, name, dataclasses.replace(REGISTRY[name], redact=hide_the_seat))
    payload = {**sample_payload(name), "seat": 1}
    event = Event(
        match_id=uuid.uuid4(), seq=3, type=name, seat=1, payload=payload, created_at=timezone.now()
    )
    assert "seat" not in feed.event_item(event, 0)


def test_a_type_with_no_definition_shows_nothing_until_the_match_is_finished():
    secret = Logged("hand_peeked", None, {"deck": DECK})
    assert events.redact(secret, 0, finished=False) == {}
    assert events.redact(secret, None, finished=False) == {}
    assert events.redact(secret, None, finished=True) == {"deck": DECK}


def test_the_vocabulary_needs_no_django():
    """bots/simulation.py and the engine's side of it import games.log.events without Django."""
    code = (
        "import sys, games.log.events; assert not any(m.startswith('django') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# ---------------------------------------------------------------- no bare event-type strings

# The definitions: games/log/events.py, and the engine's names of the events it derives (the
# engine imports nothing outside itself; games/log/events.py takes those names from it).
DEFINITIONS = {"games/log/events.py", "games/engine/outcomes.py"}
EVENT_VARIABLES = {"event", "e", "ev", "row", "dealt", "type_"}


def shared_words() -> set[str]:
    """Event type names that are also words of another vocabulary: an engine action
    type or phase, or an API error code."""
    phases = {E.BID1, E.BID2, E.DEAL, E.DEFEND, E.DISCARD, E.FINISHED, E.PLAY}
    return set(EVENT_TYPES) & (set(E.ACTION_TYPES) | phases | set(CATALOGUE))


def event_type_positions(tree: ast.AST) -> set[int]:
    """ids of the string constants that stand where an event type is meant: the type
    of a NewEvent or of a query (type=, type__in=), a comparison with an event's type
    (event.type, e.type, type_, ...), a key of a type-keyed table."""

    def is_event_type(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute) and node.attr == "type":
            return isinstance(node.value, ast.Name) and node.value.id in EVENT_VARIABLES
        return isinstance(node, ast.Name) and node.id in EVENT_VARIABLES

    def constants(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return list(node.elts)
        return [node]

    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name == "NewEvent" and node.args:
                found.add(id(node.args[0]))
            for keyword in node.keywords:
                if keyword.arg in ("type", "type__in"):
                    found.update(id(c) for c in constants(keyword.value))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_event_type(side) for side in sides):
                for side in sides:
                    found.update(id(c) for c in constants(side))
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if isinstance(k, ast.Constant)]
            typed = sum(k.value in EVENT_TYPES for k in keys)
            if typed >= 2 and 2 * typed > len(node.keys):  # a table keyed by event type
                found.update(id(k) for k in keys)
    return found


def bare_event_types(source: str) -> list[tuple[int, str]]:
    """(line, name) of each string constant spelling an event type: anywhere for a name
    that is only an event type, in an event-type position for a shared word, and as an
    SQL literal ('hand_dealt') inside a query's text."""
    tree = ast.parse(source)
    positions = event_type_positions(tree)
    shared = shared_words()
    found = {
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in EVENT_TYPES
        and (node.value not in shared or id(node) in positions)
    }
    found |= {
        (node.lineno, name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for name in EVENT_TYPES
        if f"'{name}'" in node.value
    }
    return sorted(found)


def test_the_scan_catches_event_types_and_lets_other_vocabularies_be():
    assert shared_words() == {"discard", "seat_taken", "match_finished", "match_started"}
    caught = """
x = "hand_dealt"
if event.type == "discard": pass
if e.type in ("bid", "discard"): pass
NewEvent("match_finished", None, {})
Event.objects.filter(type="seat_taken")
HANDLERS = {"discard": f, "bid": g}
stack.query("SELECT count(*) FROM games_event WHERE type = 'match_started'")
"""
    assert bare_event_types(caught) == [
        (2, "hand_dealt"),
        (3, "discard"),
        (4, "bid"),
        (4, "discard"),
        (5, "match_finished"),
        (6, "seat_taken"),
        (7, "bid"),
        (7, "discard"),
        (8, "match_started"),
    ]
    other = """
if action["type"] == "discard": pass
if seen.phase == "discard": pass
raise Conflict("match_finished", "The match is over.")
CODES = {"seat_taken": 1, "match_finished": 2, "too_many": 3, "stale": 4, "gone": 5}
"""
    assert bare_event_types(other) == []


# Every module of the project but the tests (which spell the vocabulary on purpose): the
# service, the computer players, the settings and the benchmarks (which read the log too).
SCANNED = ("games", "bots", "euchre_service", "benchmarks")


def test_no_module_spells_an_event_type_as_a_bare_string():
    offenders = []
    for path in sorted(p for folder in SCANNED for p in ROOT.glob(f"{folder}/**/*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in DEFINITIONS:
            continue
        for line, name in bare_event_types(path.read_text()):
            offenders.append(f"{relative}:{line}: {name!r}")
    assert offenders == [], "use the constants of games/log/events.py:\n" + "\n".join(offenders)
