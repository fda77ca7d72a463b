"""The seams between games and bots (issue 10, item 1): games never imports bots; it asks
for the computer players' and hints' work by task name through one module (games.play.later);
no import hides inside a function to dodge a cycle; games owns the list of levels."""

import ast
import json
import time
from pathlib import Path

import pytest
import redis
from celery import current_app, shared_task

from bots.players import DEFAULT_LEVEL, PLAYERS
from games.log import levels
from games.play import later
from tests.bots.worker_support import use_broker

ROOT = Path(__file__).resolve().parents[2]

# Function- (or class-) level imports in games/ and bots/, each with why it is not at the
# top of its module. None is needed today: add one here only with a reason that is not a
# cycle (an import cycle is a seam in the wrong place).
JUSTIFIED_INNER_IMPORTS: dict[tuple[str, str], str] = {
    ("games/apps.py", "from games import tasks"): "Django's place to register an app's "
    "Celery tasks: they import models, which exist only once the apps are ready",
    ("bots/apps.py", "from bots import tasks"): "the same, for the bots' tasks",
}


def modules(folder: str) -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text(), str(path)))
        for path in sorted((ROOT / folder).rglob("*.py"))
    ]


def imported_modules(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    if (  # importlib.import_module("bots...") / __import__("bots...")
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", ""))
        in ("import_module", "__import__")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def test_games_imports_nothing_from_bots():
    found = [
        f"{path}:{node.lineno}: {name}"
        for path, tree in modules("games")
        for node in ast.walk(tree)
        for name in imported_modules(node)
        if name == "bots" or name.startswith("bots.")
    ]
    assert found == [], "games must not import bots (ask for its work by task name):\n" + "\n".join(
        found
    )


def test_no_import_hides_inside_a_function_in_games_or_bots():
    inner = {}
    for folder in ("games", "bots"):
        for path, tree in modules(folder):
            for scope in ast.walk(tree):
                if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                for node in ast.walk(scope):
                    if isinstance(node, ast.Import | ast.ImportFrom):
                        inner[(path, ast.unparse(node))] = f"{path}:{node.lineno} in {scope.name}"
    unjustified = sorted(
        where for key, where in inner.items() if key not in JUSTIFIED_INNER_IMPORTS
    )
    assert unjustified == [], "imports inside a function or class:\n" + "\n".join(unjustified)
    stale = set(JUSTIFIED_INNER_IMPORTS) - set(inner)
    assert not stale, f"no longer there, drop them from JUSTIFIED_INNER_IMPORTS: {stale}"


def registered_tasks() -> dict:
    current_app.loader.import_default_modules()  # what a worker does when it starts
    return current_app.tasks


def test_every_task_games_asks_for_by_name_is_registered_with_the_worker():
    tasks = registered_tasks()
    assert set(later.TASK_NAMES) <= set(tasks)
    assert later.SWEEP_WAITING_MATCHES in {
        entry["task"] for entry in current_app.conf.beat_schedule.values()
    }
    # The game's own tasks are games': a worker runs them without the bots' code.
    assert tasks[later.TIME_OUT_TURN].__module__ == "games.tasks"
    assert tasks[later.SWEEP_WAITING_MATCHES].__module__ == "games.tasks"


# Every task name a worker answers to, and the module whose code runs it. The names are a
# contract with what is queued already (a timer's countdown, beat's schedule, a review on
# its queue): a release that renames or drops one strands those messages.
DEPLOYED_TASKS = {
    "games.tasks.archive_events": "games.tasks",
    "games.tasks.compact_log": "games.tasks",
    "games.tasks.prune": "games.tasks",
    "games.tasks.start_quickplay": "games.tasks",
    "games.tasks.sweep_waiting_matches": "games.tasks",
    "games.tasks.time_out_turn": "games.tasks",
    "bots.tasks.compute_hint": "bots.tasks",
    "bots.tasks.play_computer_turn": "bots.tasks",
    "bots.tasks.review_match": "bots.tasks",
    # moved to games.tasks, kept under their former names (below)
    "bots.tasks.sweep_waiting_matches": "games.tasks",
    "bots.tasks.time_out_turn": "games.tasks",
}


def test_the_workers_task_names_are_the_deployed_ones():
    tasks = registered_tasks()
    ours = {n: t for n, t in tasks.items() if not n.startswith(("celery.", "tests."))}
    assert sorted(ours) == sorted(DEPLOYED_TASKS)
    assert {n: t.run.__module__ for n, t in ours.items()} == DEPLOYED_TASKS


def test_a_task_queued_under_its_name_before_the_move_still_runs():
    """A timer queued (with its countdown) or a sweep sent by beat under the bots.tasks
    names, before the release that moved them, is run by the games.tasks code."""
    tasks = registered_tasks()
    for former, now in [
        ("bots.tasks.time_out_turn", later.TIME_OUT_TURN),
        ("bots.tasks.sweep_waiting_matches", later.SWEEP_WAITING_MATCHES),
    ]:
        assert tasks[former].__wrapped__ is tasks[now].__wrapped__  # the same function
        for option in ("acks_late", "reject_on_worker_lost", "autoretry_for", "max_retries"):
            assert getattr(tasks[former], option, None) == getattr(tasks[now], option, None)


def test_the_bots_play_exactly_the_levels_games_offers():
    assert tuple(PLAYERS) == levels.LEVELS
    assert DEFAULT_LEVEL == levels.DEFAULT_LEVEL in levels.LEVELS


# ---------------------------------------------------------------- in-process mode

RUNS: list[str] = []


@shared_task(name="tests.games.test_seams.step")
def step(name: str, then: list[str]) -> None:
    """Records that it started, asks for the next steps, records that it ended."""
    RUNS.append(f"start {name}")
    for following in then:
        later.run_soon("tests.games.test_seams.step", following, [])
    RUNS.append(f"end {name}")


@pytest.fixture
def in_process(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    RUNS.clear()
    yield RUNS
    RUNS.clear()


def test_in_process_a_task_asked_for_by_a_task_runs_after_it_not_inside_it(in_process):
    """As a computer turn's commit asks for the next turn: a loop, not a recursion."""
    assert later.run_soon("tests.games.test_seams.step", "first", ["second", "third"])
    assert in_process == [
        "start first", "end first", "start second", "end second", "start third", "end third"
    ]  # fmt: skip


@shared_task(name="tests.games.test_seams.boom")
def boom() -> None:
    RUNS.append("boom")
    later.run_soon("tests.games.test_seams.step", "after", [])
    raise RuntimeError("a bug in a task")


def test_in_process_a_failing_task_is_logged_and_the_next_still_runs(in_process, caplog):
    assert later.run_soon("tests.games.test_seams.boom")  # what asked for it goes on
    assert in_process == ["boom", "start after", "end after"]
    assert any("failed" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)


def test_in_process_a_deadline_runs_in_a_timer_thread_after_its_seconds(in_process, settings):
    settings.TURN_TIMER_THREADS = True
    asked = time.monotonic()
    assert later.run_after("tests.games.test_seams.step", "timer", [], seconds=0.3)
    assert in_process == []  # not yet: a deadline never comes early
    while len(in_process) < 2 and time.monotonic() < asked + 60:
        time.sleep(0.02)
    assert in_process == ["start timer", "end timer"]
    assert time.monotonic() - asked >= 0.3


def test_with_the_broker_down_asking_for_a_task_answers_false_at_once(settings):
    previous = current_app.conf.broker_url
    eager = current_app.conf.task_always_eager
    use_broker("redis://127.0.0.1:1/0")  # nothing listens on port 1
    try:
        started = time.monotonic()
        assert later.run_soon(later.PLAY_COMPUTER_TURN, "m", 1) is False
        assert later.run_after(later.TIME_OUT_TURN, "m", seconds=5) is False
        # Each publish waits out the broker's connection timeout (2 s, a wait that a busy
        # machine does not lengthen) once, never retried (kombu's retries would add
        # seconds a try); the 10 s beyond are for a busy machine, not a figure.
        assert time.monotonic() - started < 2 * settings.CELERY_BROKER_CONNECTION_TIMEOUT + 10
    finally:
        use_broker(previous)
        current_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = eager


def test_a_review_goes_to_the_review_queue_and_a_computer_turn_to_the_default_one(settings):
    """Reviews never wait in, or hold, the queue the computer turns are served from."""
    previous = current_app.conf.broker_url
    eager = current_app.conf.task_always_eager
    broker = settings.CELERY_BROKER_URL
    use_broker(broker)
    client = redis.Redis.from_url(broker)
    default, review = current_app.conf.task_default_queue, settings.CELERY_REVIEW_QUEUE
    assert default != review
    client.delete(default, review)
    try:
        assert later.run_in_background(later.REVIEW_MATCH, "m")
        assert later.run_soon(later.PLAY_COMPUTER_TURN, "m", 1)
        assert client.llen(review) == 1 and client.llen(default) == 1
        sent = json.loads(client.lindex(review, 0))
        assert sent["headers"]["task"] == later.REVIEW_MATCH
        assert json.loads(client.lindex(default, 0))["headers"]["task"] == later.PLAY_COMPUTER_TURN
    finally:
        client.delete(default, review)
        use_broker(previous)
        current_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER = eager
