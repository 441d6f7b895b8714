"""The browser libraries shipped in the package are exactly the npm registry's, at the versions
that src/tapisvert/web/package.json names: nothing hand-edited, nothing fetched at run time."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "src" / "tapisvert" / "web"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is needed to fetch the packages")
def test_vendored_libraries_are_the_registry_packages() -> None:
    checked = subprocess.run(
        [str(ROOT / "scripts" / "vendor-web"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "vendor/ matches package.json" in checked.stdout


def test_the_page_loads_the_vendored_libraries_only() -> None:
    page = (WEB / "index.html").read_text()
    assert re.findall(r'"(?:preact|preact/hooks|htm)": "(/vendor/[a-z]+\.js)"', page) == [
        "/vendor/preact.js",
        "/vendor/hooks.js",
        "/vendor/htm.js",
    ]
    remote = re.compile(r"""(?:from|import\(|fetch\(|src=)\s*["'`]https?://""")
    for script in [*WEB.rglob("*.js"), WEB / "index.html"]:
        assert not remote.search(script.read_text()), f"{script.name} loads from elsewhere"
