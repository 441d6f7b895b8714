"""A built-in game is one folder, ``src/tapisvert/games/<name>/``, and its entry point in
``pyproject.toml``: everything of the game is in its package, and no code outside it names
the game, so that a new game is added without touching the platform.

Code is what runs or is looked up: Python outside docstrings and comments, the scripts,
stylesheets and browser modules outside comments, the catalogues' keys. Prose (a docstring's
example, a tagline) may name any game.
"""

from __future__ import annotations

import ast
import glob
import re
import tomllib
from collections.abc import Iterator
from importlib import import_module
from importlib.resources import files
from pathlib import Path

import pytest

from tapisvert.core.registry import GamePlugin, plugins
from tapisvert.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tapisvert"
GAMES = ROOT / "src" / "tapisvert" / "games"
SCANNED = ("src", "scripts", "benchmarks")
BUILT_IN = sorted(
    name
    for name, plugin in plugins().items()
    if plugin.game.__module__.startswith("tapisvert.games.")
)

EXAMPLES = {
    "benchmarks/engine_speed.py": {"wizard"},  # Wizard's engine against OpenSpiel's clone
    "benchmarks/bot_strength.py": {"wizard"},  # the search against OpenSpiel's, on Wizard
    "benchmarks/engine_profile.py": {"wizard"},  # the work of the two above, to profile
    "benchmarks/interface_games.py": {"wizard"},  # shorter games than the default
    "benchmarks/review_calibration.py": {"wizard"},  # the game calibrated by default
    "benchmarks/abuse.py": {"luz", "wizard"},  # the tables the scenarios play
    "benchmarks/export_cost.py": {"wizard"},  # the games it exports
    "benchmarks/days_memory.py": {"wizard"},  # the tables over days it stores
    "benchmarks/server_load.py": {"wizard"},  # the reference of the games' capacities
    "scripts/play": {"wizard"},  # the game it starts by default
    "scripts/test": {"abluxxen", "fzzzt", "luz", "wizard"},  # the games' own test files
}
"""Code that picks a game as its example or its subject: a new game changes nothing there."""


def test_every_folder_of_games_is_a_game_with_its_entry_point() -> None:
    folders = {path.name for path in GAMES.iterdir() if (path / "__init__.py").exists()}
    assert folders and folders == set(BUILT_IN)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"]["tapisvert.games"]
    assert declared == {name: f"tapisvert.games.{name}:PLUGIN" for name in BUILT_IN}


def places(plugin: GamePlugin) -> list[str]:
    """Every import name the plugin declares."""
    declared = [plugin.terminal_view, plugin.web_board, plugin.rules, *plugin.compiled]
    declared += [plugin.game.__module__, plugin.game.sampler, plugin.heuristic_bot.__module__]
    search = plugin.search
    helpers = (search.candidates, search.value, search.shortlist, search.rollout_policy)
    declared += [helper.__module__ for helper in helpers if helper is not None]
    declared += [place for place in (plugin.texts, plugin.encoding) if place is not None]
    return [place.partition(":")[0] for place in declared]


@pytest.mark.parametrize("name", BUILT_IN)
def test_everything_a_game_declares_is_in_its_own_package(name: str) -> None:
    plugin = plugins()[name]
    own = f"tapisvert.games.{name}"
    for place in places(plugin):
        assert place == own or place.startswith(f"{own}."), place
    view = import_module(plugin.terminal_view)
    assert callable(view.render) and callable(view.news)
    board = files(plugin.web_board)
    assert "export default" in board.joinpath(f"{name}.js").read_text("utf-8")
    assert board.joinpath(f"{name}.css").is_file()
    assert plugin.texts is not None
    keys = {}
    for language in LANGUAGES:
        assert files(plugin.rules).joinpath(f"rules.{language}.md").is_file()
        texts = [e for e in files(plugin.texts).iterdir() if e.name.endswith(f".{language}.toml")]
        keys[language] = {key for text in texts for key in flat_keys(text.read_text("utf-8"))}
    assert keys["en"] == keys["fr"]
    assert {key.split(".")[0] for key in keys["en"]} == {name, "cli"}  # the game's own keys
    assert {key.split(".")[1] for key in keys["en"] if key.startswith("cli.")} == {name}
    for module in plugin.compiled:
        import_module(module)


def flat_keys(text: str) -> Iterator[str]:
    def walk(prefix: str, table: dict[str, object]) -> Iterator[str]:
        for key, value in table.items():
            name = f"{prefix}{key}"
            if isinstance(value, dict):
                yield name
                yield from walk(f"{name}.", value)
            else:
                yield name

    return walk("", tomllib.loads(text))


def test_every_file_of_a_game_is_shipped() -> None:
    """The package data of ``pyproject.toml`` takes every file of every game's folder that is
    not Python, so that an installed wheel holds the boards, texts and rules too."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["tapisvert"]
    shipped = {path for pattern in patterns for path in glob.glob(pattern, root_dir=PACKAGE)}
    for name in BUILT_IN:
        for path in (GAMES / name).rglob("*"):
            if path.is_file() and path.suffix not in {".py", ".pyc"}:
                assert str(path.relative_to(PACKAGE)) in shipped, path


def code_of(path: Path, text: str) -> Iterator[str]:
    """The parts of a file that are code (see the module's docstring)."""
    if path.suffix == ".py":
        tree = ast.parse(text)
        docstrings = {  # a module's, a class's, a function's, an attribute's
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) not in docstrings:
                    yield node.value
            elif isinstance(node, ast.Name):
                yield node.id
            elif isinstance(node, ast.Attribute):
                yield node.attr
            elif isinstance(node, ast.alias):
                yield node.name
            elif isinstance(node, ast.ImportFrom):
                yield node.module or ""
    elif path.suffix == ".toml":
        yield from flat_keys(text)
    elif path.suffix in {".js", ".css", ".html"}:
        yield re.sub(r"/\*.*?\*/|(?<![:\w])//[^\n]*|<!--.*?-->", "", text, flags=re.DOTALL)
    elif path.suffix != ".md":
        yield re.sub(r"(?m)(^|\s)#.*$", "", text)


def named_games(path: Path) -> set[str]:
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        return set()
    found = set()
    for part in code_of(path, text):
        for name in BUILT_IN:
            if re.search(rf"(?<![a-z0-9]){name}(?![a-z0-9])", part, re.IGNORECASE):
                found.add(name)
    return found


def test_no_code_outside_a_games_folder_names_it() -> None:
    named = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            relative = path.relative_to(ROOT)
            skipped = {"__pycache__", "vendor"} & set(relative.parts)
            if not path.is_file() or skipped or relative.parts[1].endswith(".egg-info"):
                continue
            games = relative.parts[:3] == ("src", "tapisvert", "games")
            found = named_games(path) - ({relative.parts[3]} if games else set())
            if found:
                named[str(relative)] = found
    assert named == EXAMPLES


def test_the_scan_finds_a_name_in_code_and_not_in_prose(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text('"""Luz and Wizard, in prose."""\n# wizard in a comment\nGAME = "luz"\n')
    assert named_games(script) == {"luz"}
    board = tmp_path / "board.css"
    board.write_text("/* Wizard */ .tone-wizard { color: red; }\n")
    assert named_games(board) == {"wizard"}
    texts = tmp_path / "texts.en.toml"
    texts.write_text('[cli.fzzzt]\ntitle = "Abluxxen"\n')
    assert named_games(texts) == {"fzzzt"}


def test_the_environments_do_not_lean_on_the_command_line() -> None:
    """The research interfaces reach a game's view through the registry, not the terminal UI."""
    for path in (PACKAGE / "envs").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("tapisvert.cli"), path
            elif isinstance(node, ast.Import):
                assert not any(alias.name.startswith("tapisvert.cli") for alias in node.names)
