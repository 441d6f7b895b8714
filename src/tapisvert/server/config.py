"""One configuration for ``tapisvert serve`` (and ``tapisvert bot-worker``): each setting
from a command-line flag, an environment variable ``TAPISVERT_<NAME>``, a TOML file or its
default, in that order of precedence; pydantic-settings reads and merges them.

A setting the file names that does not exist, or a variable ``TAPISVERT_…`` that is no
setting, is refused rather than ignored: a misspelt name would otherwise leave its default
in force unseen. The variables read elsewhere (``OTHER_VARIABLES``) and those of the test
suite (``TAPISVERT_TEST_…``) are let through.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from tapisvert.server.auth import MIN_PASSWORD_MEMORY
from tapisvert.server.logs import LogFormat, LogLevel
from tapisvert.server.settings import Settings

ENV_PREFIX = "TAPISVERT_"
OTHER_VARIABLES = frozenset({"LANG", "SEARCH_SCALE", "SQLITE_SYNC", "BUS_PREFIX", "ENGINE"})
"""``TAPISVERT_…`` variables that are no setting of these commands, read where they are
used: the language of the texts, the bots' search budgets, how SQLite syncs its file, the
prefix of the bus's keys (which the relays and bot workers read too), and the engine asked
for (``TAPISVERT_ENGINE=pure``: see ``tapisvert.compiled``)."""
TEST_PREFIX = "TEST_"
"""Variables of the test suite (``TAPISVERT_TEST_POSTGRES``…), which no command reads."""
MIN_SECRET_KEY = 32
HIDDEN = "********"


def _key_length(key: str) -> str:
    if len(key) < MIN_SECRET_KEY:
        raise ValueError(f"a signing key has at least {MIN_SECRET_KEY} characters")
    return key


class NodeConfig(BaseSettings):
    """Every setting of ``tapisvert serve``; the defaults of a node's behaviour are those of
    ``Settings``."""

    # an empty variable is no setting, as before (``TAPISVERT_SECRET_KEY=`` in a unit file)
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="forbid", frozen=True
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The flags (given as arguments), the environment, then the file of the
        class's ``toml_file`` (see ``load_config``)."""
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    database_url: str = ""
    """Empty: ``storage.default_database_url()``."""
    bus: str = ""
    relays: int = Field(0, ge=0)
    socket_port: int | None = Field(None, ge=0, le=65535)
    api_docs: bool = False
    bot_delay: float = Field(Settings.bot_delay, ge=0)
    absence_grace: float = Field(Settings.absence_grace, ge=0)
    rate: float = Field(Settings.rate, gt=0)
    unread_limit: int = Field(Settings.unread_limit, ge=1)
    abandoned_after: float = Field(Settings.abandoned_after, ge=0)
    asleep_after: float = Field(Settings.asleep_after, ge=0)
    bot_workers: int | None = Field(Settings.bot_workers, ge=0)
    leaderboard_min_games: int = Field(Settings.leaderboard_min_games, ge=0)
    bots_per_owner: int = Field(Settings.bots_per_owner, ge=0)
    bot_tables_per_owner: int = Field(Settings.bot_tables_per_owner, ge=0)
    tournaments_by_moderators: bool = Settings.tournaments_by_moderators
    lease_seconds: float = Field(Settings.lease_seconds, ge=0.5)
    drain_seconds: float = Field(Settings.drain_seconds, ge=1.0)
    password_memory: int = Field(Settings.password_memory, ge=MIN_PASSWORD_MEMORY)
    metrics_port: int | None = Field(None, ge=1, le=65535)
    """Where the node serves its metrics (see ``metrics``); ``None``: it keeps none."""
    metrics_host: str = "127.0.0.1"
    secret_key: SecretStr | None = None
    """The key that signs session tokens; with neither it nor ``secret_key_file``, the
    server makes one and keeps it in its database."""
    secret_key_file: Path | None = None
    log_format: LogFormat = "text"
    log_level: LogLevel = "warning"

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, key: SecretStr | None) -> SecretStr | None:
        if key is not None:
            _key_length(key.get_secret_value())
        return key

    @field_validator("secret_key_file")
    @classmethod
    def _readable_key(cls, path: Path | None) -> Path | None:
        if path is not None:
            _key_length(_read_key(path))
        return path

    def signing_key(self) -> str | None:
        """The key given, or read from its file; ``None`` when neither is set."""
        if self.secret_key is not None:
            return self.secret_key.get_secret_value()
        return None if self.secret_key_file is None else _read_key(self.secret_key_file)

    def node_settings(self) -> Settings:
        """How the node behaves, as the server takes it: the settings of ``Settings``
        given here (the others at their defaults), and the key read."""
        given = {
            field.name: getattr(self, field.name)
            for field in fields(Settings)
            if field.name in NodeConfig.model_fields and field.name != "secret_key"
        }
        return Settings(**given, secret_key=self.signing_key())

    def shown(self, name: str) -> Any:
        """A setting's value as it may be shown: the key hidden, and the passwords in URLs."""
        value = getattr(self, name)
        if isinstance(value, SecretStr):
            return HIDDEN
        if name in ("database_url", "bus"):
            return masked_url(value)
        return value


def _read_key(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None


def masked_url(url: str) -> str:
    """``url`` with the password of its user hidden (a database's or Redis's URL)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:{HIDDEN}@{host}"))


Origin = Literal["flag", "environment", "file", "default"]


@dataclass(frozen=True)
class Loaded:
    """The settings in force, and where each came from (``origins``; the others are
    defaults)."""

    config: NodeConfig
    origins: dict[str, Origin]

    def origin(self, name: str) -> Origin:
        return self.origins.get(name, "default")


class UnknownVariable(ValueError):
    """A ``TAPISVERT_…`` variable that is no setting."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class WrongSetting(ValueError):
    """A setting with a value it cannot take (``reason``, pydantic's words), or one that
    does not exist (``unknown``), and where it came from."""

    def __init__(self, name: str, origin: Origin, reason: str, unknown: bool) -> None:
        super().__init__(f"{name}: {reason}")
        self.name, self.origin, self.reason, self.unknown = name, origin, reason, unknown


def load_config(flags: dict[str, Any], path: Path | None) -> Loaded:
    """The settings from ``flags`` (those given on the command line), the environment and
    the TOML file at ``path``. Raises ``WrongSetting``, ``UnknownVariable``, ``OSError`` for
    a file that cannot be read and ``tomllib.TOMLDecodeError`` for one that is no TOML."""
    unknown_variable(os.environ)
    if path is not None and not path.is_file():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    origins: dict[str, Origin] = dict.fromkeys(flags, "flag")
    for name in EnvSettingsSource(NodeConfig)():
        origins.setdefault(name, "environment")
    if path is not None:
        for name in TomlConfigSettingsSource(NodeConfig, toml_file=path)():
            origins.setdefault(name, "file")

    class FromFile(NodeConfig):
        # pydantic-settings reads the file its model's configuration names
        model_config = SettingsConfigDict(toml_file=path)

    try:
        config: NodeConfig = FromFile(**flags)
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        name = ".".join(str(part) for part in problem["loc"])
        unknown = problem["type"] == "extra_forbidden"
        raise WrongSetting(name, origins.get(name, "default"), problem["msg"], unknown) from None
    return Loaded(config, origins)


def unknown_variable(environ: Mapping[str, str]) -> None:
    """Refuse a ``TAPISVERT_…`` variable that is no setting (see the module's text)."""
    for variable in sorted(environ):
        name = variable[len(ENV_PREFIX) :]
        if (
            variable.startswith(ENV_PREFIX)
            and name.lower() not in NodeConfig.model_fields
            and name not in OTHER_VARIABLES
            and not name.startswith(TEST_PREFIX)
        ):
            raise UnknownVariable(variable)
