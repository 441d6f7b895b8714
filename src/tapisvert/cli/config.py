"""The settings of ``tapisvert serve`` and ``tapisvert bot-worker`` from their flags, the
environment and ``--config`` (see ``tapisvert.server.config``): refused with the name of
what is wrong, or printed by ``--print-config`` as TOML, secrets hidden, each line saying
where its value came from.

The server's modules (pydantic-settings among them) are imported only when a command
needs them: every other command of ``tapisvert`` starts without them.
"""

from __future__ import annotations

import json
import logging.config
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tapisvert.cli.options import help_text
from tapisvert.core.errors import OptionError
from tapisvert.i18n import default_language, translate

if TYPE_CHECKING:
    from tapisvert.server.config import Loaded, NodeConfig, Origin
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", metavar="PATH", help=help_text("config")),
]


def configuration(context: typer.Context, path: Path | None) -> Loaded:
    """The settings in force: the flags given on the command line (not those left at
    their defaults) over the environment, over the file at ``path``; an ``OptionError``
    names what is wrong."""
    from tapisvert.server.config import NodeConfig, UnknownVariable, WrongSetting, load_config

    flags = {
        name: value
        for name, value in context.params.items()
        if name in NodeConfig.model_fields and _given(context, name)
    }
    settings = ", ".join(NodeConfig.model_fields)
    try:
        return load_config(flags, path)
    except UnknownVariable as error:
        raise OptionError(
            "cli.config.unknown_variable", name=error.name, settings=settings
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise OptionError("cli.config.unreadable", path=path, reason=error) from None
    except WrongSetting as error:
        if error.unknown:
            raise OptionError(
                "cli.config.unknown_setting", name=error.name, path=path, settings=settings
            ) from None
        where = origin_words(error.origin, error.name, path, default_language())
        raise OptionError(
            "cli.config.wrong_setting", name=error.name, origin=where, reason=error.reason
        ) from None


def _given(context: typer.Context, name: str) -> bool:
    """Whether the flag of ``name`` is on the command line (its source is named: typer
    keeps click's enumeration of sources to itself)."""
    source = context.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def origin_words(origin: Origin, name: str, path: Path | None, language: str) -> str:
    """Where a setting's value came from, in words: its flag, its variable, the file."""
    from tapisvert.server.config import ENV_PREFIX

    arguments = {
        "flag": "--" + name.replace("_", "-"),
        "variable": ENV_PREFIX + name.upper(),
        "path": path,
    }
    return translate(f"cli.config.from_{origin}", language, **arguments)


def print_config(loaded: Loaded, path: Path | None, language: str) -> None:
    """The settings in force as TOML (one that is not set, commented out), each with where
    its value came from; the signing key and the URLs' passwords hidden."""
    from tapisvert.server.config import NodeConfig

    for name in NodeConfig.model_fields:
        value = loaded.config.shown(name)
        where = origin_words(loaded.origin(name), name, path, language)
        if value is None:
            typer.echo(f"# {name} = ({translate('cli.config.not_set', language)})  # {where}")
        else:
            shown = json.dumps(str(value) if isinstance(value, Path) else value)
            typer.echo(f"{name} = {shown}  # {where}")


def start_logging(config: NodeConfig) -> dict[str, Any]:
    """Configure this process's logs as the settings say; the same configuration is for
    uvicorn, which would otherwise put its own."""
    from tapisvert.server.logs import logging_config

    settings = logging_config(config.log_format, config.log_level)
    logging.config.dictConfig(settings)
    return settings
