"""The rules of each game for players, as HTML for the web app.

Each game holds its rules as Markdown, one file per language (``rules.<language>.md``, in
the package its plugin names), so that the rules are reviewed beside the code
they describe and ship with the package. They are rendered with raw HTML disabled: any
``<tag>`` in a file comes out as text, so a document can never inject markup into the page.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from markdown_it import MarkdownIt

from tapisvert.core.registry import game_names, plugin
from tapisvert.i18n import LANGUAGES

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def rules_markdown(game: str, language: str) -> str:
    """The Markdown text of ``game``'s rules in ``language``.

    Raises :class:`LookupError` for a game or a language that has no rules.
    """
    if game not in game_names():
        raise LookupError(f"no game called {game!r}")
    if language not in LANGUAGES:
        raise LookupError(f"no rules in the language {language!r}")
    return files(plugin(game).rules).joinpath(f"rules.{language}.md").read_text("utf-8")


def render_markdown(text: str) -> str:
    """Markdown to HTML, raw HTML escaped rather than passed through."""
    return str(_MARKDOWN.render(text))


@cache
def rules_html(game: str, language: str) -> str:
    """``game``'s rules in ``language`` as an HTML fragment (raises :class:`LookupError`)."""
    return render_markdown(rules_markdown(game, language))
