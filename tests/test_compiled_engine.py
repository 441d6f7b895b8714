"""The engine runs compiled exactly where the compiled build is on the path.

``scripts/test`` runs the engine's tests twice: on the pure-Python sources, then with
``build/compiled`` (``scripts/compile``, mypyc) first on the path. This test, in both runs, makes
sure each run exercised the engine it meant to.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from tapisvert.core.registry import plugins

COMPILED_BUILD = Path(__file__).resolve().parent.parent / "build" / "compiled"
ENGINE_MODULES = (
    "tapisvert.core.game",
    "tapisvert.bots.search",
    *(module for plugin in plugins().values() for module in plugin.compiled),
    # scripts/compile adds the tensor encodings where numpy is installed, as it is for the tests
    "tapisvert.encoding",
    *(
        plugin.encoding.partition(":")[0]
        for plugin in plugins().values()
        if plugin.encoding is not None
    ),
)


def test_the_engine_is_compiled_where_the_build_is_on_the_path() -> None:
    build_on_path = any(Path(entry).resolve() == COMPILED_BUILD for entry in sys.path if entry)
    for name in ENGINE_MODULES:
        source = importlib.import_module(name).__file__
        assert source is not None
        assert source.endswith(".py") is not build_on_path, source
