"""The engine's `__all__` is the API its callers use: bots/ and games/ (outside the
engine) import only names it exports, and only from the package (issue 10, item 7).

An AST scan of every module: `from games.engine import X` (X in __all__), no import of
an engine module (`games.engine.cards`, `from games.engine import actions`), and for
`from games import engine as E` every `E.X` an exported name. Relative imports are
resolved first, so `from .engine.cards import BIT` in games/ counts too.
"""

import ast
import pathlib

import games.engine

ENGINE_DIR = pathlib.Path(games.engine.__file__).parent
REPO = ENGINE_DIR.parent.parent
ENGINE = "games.engine"
EXPORTED = frozenset(games.engine.__all__)


def caller_modules() -> list[pathlib.Path]:
    paths = [*sorted((REPO / "bots").rglob("*.py")), *sorted((REPO / "games").rglob("*.py"))]
    return [p for p in paths if ENGINE_DIR not in p.parents]


def absolute(path: pathlib.Path, node: ast.ImportFrom, root: pathlib.Path) -> str:
    """The module an ImportFrom names, relative imports resolved against `path`'s package
    (the folder it is in, for a module and for an __init__.py alike)."""
    if not node.level:
        return node.module or ""
    package = path.relative_to(root).parts[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def engine_uses(path: pathlib.Path, root: pathlib.Path = REPO) -> list[tuple[int, str, str]]:
    """(line, what, the engine name used) for every use of the engine in one module;
    `what` is "import" or "attribute"; a name that is an engine module is reported as such."""
    tree = ast.parse(path.read_text(), filename=str(path))
    uses: list[tuple[int, str, str]] = []
    aliases: set[str] = set()  # local names bound to the engine package
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = absolute(path, node, root)
            if module == ENGINE:
                uses += [(node.lineno, "import", alias.name) for alias in node.names]
            elif module.startswith(ENGINE + "."):
                uses.append((node.lineno, "import", module))
            elif module == "games":
                for alias in node.names:
                    if alias.name == "engine":
                        aliases.add(alias.asname or "engine")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == ENGINE and alias.asname:
                    aliases.add(alias.asname)
                elif alias.name.startswith(ENGINE + ".") or alias.name == ENGINE:
                    uses.append((node.lineno, "import", alias.name))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            uses.append((node.lineno, "attribute", node.attr))
    return uses


def test_every_name_in_the_engines_all_exists_once():
    assert len(games.engine.__all__) == len(EXPORTED)
    assert [name for name in games.engine.__all__ if not hasattr(games.engine, name)] == []


def test_bots_and_games_use_only_the_names_the_engine_exports():
    wrong = []
    seen = 0
    for path in caller_modules():
        for line, what, name in engine_uses(path):
            seen += 1
            if name not in EXPORTED:
                wrong.append(f"{path.relative_to(REPO)}:{line}: {what} {name}")
    assert wrong == []
    assert seen > 50  # the scan found the engine's callers (it is not looking at nothing)


def test_the_scan_catches_each_way_round_the_api(tmp_path):
    """The scan itself: every way of reaching past __all__ is reported."""
    package = tmp_path / "games" / "sub"
    package.mkdir(parents=True)
    module = package / "m.py"
    module.write_text(
        "from games.engine import MatchState, actions\n"
        "from games.engine.cards import BIT\n"
        "import games.engine.state\n"
        "from ..engine.deal import hands_from_deck\n"
        "from .. import engine as E2\n"
        "from games import engine as E\n"
        "E.player_view\n"
        "E.SUITS\n"
        "E2.CARD_TEXT\n"
    )
    found = [(what, name) for _line, what, name in engine_uses(module, tmp_path)]
    assert sorted(n for w, n in found if n not in EXPORTED) == sorted(
        [
            "CARD_TEXT",
            "SUITS",
            "actions",
            "games.engine.cards",
            "games.engine.deal",
            "games.engine.state",
        ]
    )
    assert ("import", "MatchState") in found and ("attribute", "player_view") in found
