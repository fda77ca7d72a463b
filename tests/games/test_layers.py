"""games/ is parts on floors: each part imports only itself and the parts below it, and no
module imports itself back through others (docs/architecture.md, "Where things live").

Read from the code's own import statements (ast: every `import` and `from ... import`,
in functions too), nothing is imported or run.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"

# Bottom up. The Django app's own entry points (admin, tasks, apps, the management
# commands) sit on top; migrations import nothing of games and are left out.
FLOORS = ["engine", "models", "log", "live", "play", "people", "http", "app"]
TOP_LEVEL = {"__init__.py": "app", "admin.py": "app", "apps.py": "app", "tasks.py": "app"}
TOP_LEVEL["models.py"] = "models"
FOLDERS = {"engine", "log", "live", "play", "people", "http", "management"}


def part_of_file(path: Path) -> str:
    parts = path.relative_to(GAMES).parts
    if len(parts) == 1:
        return TOP_LEVEL[parts[0]]
    return "app" if parts[0] == "management" else parts[0]


def part_of_module(dotted: str) -> str | None:
    """The part a module of games belongs to (None: not games)."""
    names = dotted.split(".")
    if names[0] != "games" or len(names) == 1:
        return None
    first = names[1]
    if first in FOLDERS:
        return "app" if first == "management" else first
    return TOP_LEVEL[first + ".py"]


def module_name(path: Path) -> str:
    names = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(names[:-1] if names[-1] == "__init__" else names)


def imported(path: Path, module_level_only: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of every module of games that the file imports."""
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package, module_level_only)


def imports_in(code: str, package: str, module_level_only: bool = False) -> list[tuple[int, str]]:
    tree = ast.parse(code)
    nodes = tree.body if module_level_only else ast.walk(tree)
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            found.append((node.lineno, source))
            # `from games import engine`, `from games.log import events`: modules too
            found += [(node.lineno, f"{source}.{a.name}") for a in node.names]
    return [(line, name) for line, name in found if _is_module_of_games(name)]


def _is_module_of_games(dotted: str) -> bool:
    names = dotted.split(".")
    if names[0] != "games" or len(names) == 1:
        return False
    path = GAMES.joinpath(*names[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources() -> list[Path]:
    return [
        p for p in sorted(GAMES.rglob("*.py")) if "migrations" not in p.relative_to(GAMES).parts
    ]


def test_every_module_is_on_a_floor():
    strays = []
    for path in sources():
        parts = path.relative_to(GAMES).parts
        if (len(parts) == 1 and parts[0] not in TOP_LEVEL) or (
            len(parts) > 1 and parts[0] not in FOLDERS
        ):
            strays.append(str(path.relative_to(ROOT)))
    assert not strays, f"modules on no part (add them to a part's folder): {strays}"


def test_each_part_imports_only_itself_and_the_parts_below_it():
    climbing = []
    for path in sources():
        floor = FLOORS.index(part_of_file(path))
        for line, name in imported(path):
            target = part_of_module(name)
            if FLOORS.index(target) > floor:
                where = f"{path.relative_to(ROOT)}:{line}"
                climbing.append(f"{where} ({part_of_file(path)}) imports {name} ({target})")
    assert not climbing, "imports that climb to a higher part:\n" + "\n".join(climbing)


def test_no_module_imports_itself_back_through_others():
    """Module-level imports only: an import inside a function runs later, once every
    module is loaded (apps.ready importing games.tasks, say)."""
    graph = {module_name(p): {n for _, n in imported(p, module_level_only=True)} for p in sources()}
    graph = {m: {n for n in targets if n in graph and n != m} for m, targets in graph.items()}
    # a package's __init__ is imported with any of its modules: not an arrow back
    graph = {m: {n for n in targets if not m.startswith(n + ".")} for m, targets in graph.items()}
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> None:
        if module in path:
            circle = path[path.index(module) :] + [module]
            raise AssertionError("an import circle: " + " -> ".join(circle))
        if module in done:
            return
        path.append(module)
        for target in sorted(graph[module]):
            visit(target)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_the_reader_of_imports_sees_every_kind_of_import():
    """The test's own reader: an import climbing from the log, in each spelling, is found."""
    spelled = {
        "from games.http import apis": "games.http.apis",
        "from games.http.apis import MatchList": "games.http.apis",
        "import games.play.services": "games.play.services",
        "from games import tasks": "games.tasks",
        "from ..play import selectors": "games.play.selectors",
    }
    for statement, module in spelled.items():
        code = f"import json\n\n\ndef probe():\n    {statement}\n"
        assert module in {n for _, n in imports_in(code, "games.log")}, statement
        assert FLOORS.index(part_of_module(module)) > FLOORS.index("log")
