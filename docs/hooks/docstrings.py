"""Docstrings name objects in Sphinx's roles (``:class:`Game```); the site shows the name alone.

mkdocstrings renders the docstrings as Markdown, where such a role would come out as its
prefix before the code (``:class:Game``); the prefix says nothing a reader needs.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|exc|data|obj|const):(?=<code>)")


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The API reference's pages without the roles' prefixes."""
    if not page.file.src_uri.startswith("reference/"):
        return html
    return ROLE.sub("", html)
