"""Observations and actions as JSON data, and back: what a decision sent to another process is
made of, so that nothing in it is ever unpickled.

A game's observation is a frozen dataclass of typed fields (numbers, strings, ``None``, tuples
and named tuples of them). Pydantic dumps it by those types into lists, dictionaries and
scalars, and validates such data back into an observation of the same class, equal to the
first, each field checked strictly against its type as JSON reads (an array for a tuple, but
never ``"3"`` or ``3.0`` for ``3``): data that does not fit raises :class:`DataError`, and
none of it is run as code. Which class a game's observations are is its
``Game.observation_class``, found by the game's name through the registry (an unknown name
raises ``OptionError``), so that this module names no game.

Actions are integers and travel as themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, cast

import orjson
from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from tapisvert.core.game import Action, Observation
from tapisvert.core.registry import game_class


class DataError(ValueError):
    """Data that is not what it should be; the message says what does not fit."""


def summary(error: ValidationError, most: int = 5) -> str:
    """What a validation found, on one line: the first ``most`` places and what is wrong
    at each (never the data itself, which may be large)."""
    found = error.errors(include_url=False, include_input=False)
    said = []
    for problem in found[:most]:
        where = ".".join(map(str, problem["loc"]))
        said.append(f"{where}: {problem['msg']}" if where else problem["msg"])
    if len(found) > most:
        said.append(f"and {len(found) - most} more")
    return "; ".join(said)


_ADAPTERS: dict[type[Observation], TypeAdapter[Observation]] = {}


def _observations(cls: type[Observation]) -> TypeAdapter[Observation]:
    """The adapter of one observation class, built once (it takes milliseconds)."""
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


_ACTIONS: TypeAdapter[list[Action]] = TypeAdapter(list[Action])
Seen = TypeVar("Seen", bound=Observation)


def observation_class(game: str) -> type[Observation]:
    """The class of the observations of the game called ``game``."""
    return game_class(game).observation_class


def observation_to_data(game: str, observation: Observation) -> Any:
    """``observation``, one of the game ``game``'s, as JSON-ready data (lists, dictionaries,
    strings, numbers, ``None``); raises ``TypeError`` for any other kind of observation."""
    cls = observation_class(game)
    if type(observation) is not cls:
        raise TypeError(
            f"the observations of {game} are {cls.__name__}, not {type(observation).__name__}"
        )
    try:
        return _observations(cls).dump_python(observation, mode="json", warnings="error")
    except PydanticSerializationError as error:  # a field holds what its type does not say
        raise TypeError(f"a {cls.__name__} that its field types do not describe: {error}") from None


def observation_from_data(game: str, data: object) -> Observation:
    """The observation of the game ``game`` that ``data`` (from ``observation_to_data``, or
    JSON read back) holds; raises :class:`DataError` when the data is not one."""
    return observation_of_class(observation_class(game), data)


def observation_of_class(cls: type[Seen], data: object) -> Seen:
    """The observation of class ``cls`` that ``data`` holds, each field checked strictly
    against its type; raises :class:`DataError` when the data is not one."""
    try:  # as JSON, where strict mode takes an array for a tuple (writing it takes microseconds)
        return cast(Seen, _observations(cls).validate_json(orjson.dumps(data), strict=True))
    except orjson.JSONEncodeError as error:
        raise DataError(f"not a {cls.__name__}: {error}") from None
    except ValidationError as error:
        raise DataError(f"not a {cls.__name__}: {summary(error)}") from None


def actions_to_data(actions: Sequence[Action]) -> list[int]:
    """Actions as JSON-ready data: a list of integers."""
    data: list[int] = _ACTIONS.dump_python(list(actions), mode="json", warnings="error")
    return data


def actions_from_data(data: object) -> list[Action]:
    """The actions that ``data`` lists; raises :class:`DataError` unless it is a list of
    integers (``True`` or ``1.0`` is not an action)."""
    try:
        return _ACTIONS.validate_python(data, strict=True)
    except ValidationError as error:
        raise DataError(f"not a list of actions: {summary(error)}") from None
