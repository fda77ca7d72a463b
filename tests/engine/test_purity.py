"""The engine is pure Python: no Django, DRF, Celery, database or Redis anywhere in it."""

import ast
import json
import pathlib
import subprocess
import sys

import games.engine

FORBIDDEN = ("django", "rest_framework", "celery", "kombu", "psycopg", "psycopg2", "redis")
ENGINE_DIR = pathlib.Path(games.engine.__file__).parent
REPO = ENGINE_DIR.parent.parent


def test_a_fresh_interpreter_imports_the_engine_without_django_or_any_service_package():
    script = (
        "import json, sys\n"
        "from games import engine as E\n"
        "state = E.MatchState(E.Options(), 3)\n"
        "state.deal(E.seeded_deck(1))\n"
        "E.player_view(state, 0)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}  # no DJANGO_SETTINGS_MODULE
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_no_module_of_the_engine_imports_a_service_package():
    modules = sorted(ENGINE_DIR.glob("*.py"))
    assert len(modules) >= 8
    for path in modules:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: inside the engine
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in FORBIDDEN, f"{path.name} imports {name}"
                assert top != "games", f"{path.name} imports {name}: use relative imports"
