"""The rules pages of the site, made at build time from the installed games' plugins.

Each game's rules for players live beside its engine (``rules.<language>.md``, which the web
app serves too); the site shows those very files, so there is one text to keep, never a copy.
The navigation's ``Rules`` entry becomes a page per installed game and language.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from tapisvert.core.registry import game_names
from tapisvert.i18n import LANGUAGES
from tapisvert.rules_pages import rules_markdown

INDEX = "rules/index.md"
LANGUAGE_NAMES = {"en": "English", "fr": "français"}


def language_name(language: str) -> str:
    """A language as its speakers write it."""
    return LANGUAGE_NAMES.get(language, language)


def rules_page(game: str, language: str) -> str:
    """Where the site puts ``game``'s rules in ``language``."""
    return f"rules/{game}.{language}.md"


def title(game: str) -> str:
    """A game's name as its rules write it: their first heading."""
    first_line = rules_markdown(game, "en").splitlines()[0]
    return first_line.removeprefix("# ").strip() or game


def index_page() -> str:
    """The rules' first page: every installed game's rules, in each language."""
    lines = [
        "# Rules",
        "",
        "The rules of each game, written for players. They live beside each game's engine",
        "(`rules.en.md` and `rules.fr.md` in the package its plugin names) and the web app shows",
        'them from its top bar ("Rules"); `GET /api/rules/{game}?language=en|fr` serves them as',
        "HTML. How the engines write each game's moves and options is under",
        "[The games](../library/games.md).",
        "",
        "| game | " + " | ".join(language_name(language) for language in LANGUAGES) + " |",
        "|---|" + "---|" * len(LANGUAGES),
    ]
    for game in game_names():
        links = [f"[{language_name(language)}]({game}.{language}.md)" for language in LANGUAGES]
        lines.append(f"| {title(game)} | " + " | ".join(links) + " |")
    return "\n".join(lines) + "\n"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Make the navigation's ``Rules: rules/index.md`` a section of every rules page."""
    section: list[object] = [{"Rules": INDEX}]
    for game in game_names():
        section += [
            {f"{title(game)} ({language_name(language)})": rules_page(game, language)}
            for language in LANGUAGES
        ]
    config.nav = [
        {"Rules": section} if entry == {"Rules": INDEX} else entry for entry in config.nav or []
    ]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the rules pages, read from the installed games' packages."""
    files.append(File.generated(config, INDEX, content=index_page()))
    for game in game_names():
        for language in LANGUAGES:
            page = rules_page(game, language)
            files.append(File.generated(config, page, content=rules_markdown(game, language)))
    return files
