"""What a seat may know of a position: each game's observation subclasses :class:`Observation`.

Apart from the game contract so that compiling the contract (``scripts/compile``) leaves
the dataclasses, which games subclass and build field by field, as plain Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self


@dataclass(frozen=True)
class Observation:
    """What one seat may know. Each game subclasses it; ``seat`` is ``None`` for a spectator."""

    seat: int | None
    histories: ClassVar[frozenset[str]] = frozenset()
    """Fields that only grow, items added at their end, until they start again (the tricks
    of a round, the rounds of a game): a client that has one is sent only the new items."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (cards as notation strings; tuples serialise as arrays).

        Games may share the parts that do not change (a finished round) between the
        dictionaries they return: read them, do not modify them.
        """
        return dict(self.__dict__)

    def contracts(self) -> list[tuple[int, int]] | None:
        """Per seat, (contracts made, contracts) in the rounds finished so far, for a game
        where players bid the tricks they will take (what the arena reports); ``None`` for
        a game without such bids."""
        return None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The observation whose :meth:`to_dict` is ``data``: what a server sends as a seat's
        view (a frame's ``view``, its later frames' changes merged in), read back from JSON
        (arrays for tuples), so that a bot can decide from it as from ``state.observation``.

        Raises ``tapisvert.core.wire.DataError`` (a ``ValueError``) saying what does not fit.
        """
        from tapisvert.core.wire import DataError, observation_of_class

        if cls is Observation:
            raise TypeError(
                "Observation.from_dict reads a game's observation: call it on the game's own "
                "class, game.observation_class.from_dict(view), or "
                "tapisvert.core.wire.observation_class(name).from_dict(view)"
            )
        try:
            fields = cls.fields_from_dict(data)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            reason = f"missing {error}" if isinstance(error, KeyError) else str(error)
            raise DataError(f"not the dict form of a {cls.__name__}: {reason}") from None
        return observation_of_class(cls, fields)

    @classmethod
    def fields_from_dict(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """The fields that ``data`` (a :meth:`to_dict`) holds, as the observation holds them:
        a game whose ``to_dict`` writes cards in notation reads them back here."""
        return dict(data)

    @classmethod
    def assemble(cls, fields: Mapping[str, Any]) -> Self:
        """The observation holding ``fields`` (every field, once), built without ``__init__``.

        For a game that builds observations from a mapping it shares between seats: a
        server builds one per seat after every move, and a frozen dataclass's ``__init__``,
        setting each field through ``object.__setattr__``, costs more than the rest.
        """
        observation = object.__new__(cls)
        observation.__dict__.update(fields)
        return observation
