"""Optional extras: a feature whose packages are missing says which extra installs them.

The research interfaces import their packages inside :func:`needs`, so that a missing one
ends in one line naming the extra (``pip install 'tapisvert[research]'``) rather than in an
import traceback::

    with needs("research", "tapisvert.envs.pettingzoo"):
        from pettingzoo import AECEnv
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tapisvert.core.errors import TapisvertError


class MissingExtraError(TapisvertError, ImportError):
    """A feature used without the optional packages it needs; the message names the extra."""


@contextmanager
def needs(extra: str, feature: str) -> Iterator[None]:
    """Turn the ``ModuleNotFoundError`` of an import in the block into a
    :class:`MissingExtraError` saying that ``feature`` needs the ``extra``."""
    try:
        yield
    except ModuleNotFoundError as error:
        raise MissingExtraError(
            "error.missing_extra", feature=feature, module=error.name, extra=extra
        ) from None
