"""Optional extras: a feature whose packages are missing says which extra installs them.

The research interfaces import their packages inside :func:`needs`, so that a missing one
ends in one line naming the extra (``pip install 'tapisvert[research]'``) rather than in an
import traceback::

    with needs("research", "tapisvert.envs.pettingzoo"):
        from pettingzoo import AECEnv
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.util import find_spec
from typing import Final

from tapisvert.core.errors import TapisvertError

OPENSPIEL_MODULES: Final = ("numpy", "librt", "pyspiel")
"""What the OpenSpiel adapter (``tapisvert.envs.openspiel``) imports, with the tensors it
observes through: all of it is in the openspiel extra."""


class MissingExtraError(TapisvertError, ImportError):
    """A feature used without the optional packages it needs; the message names the extra."""


def missing(*modules: str) -> list[str]:
    """Those of ``modules`` (top-level import names) that are not installed."""
    return [module for module in modules if find_spec(module) is None]


@contextmanager
def needs(extra: str, feature: str, *modules: str) -> Iterator[None]:
    """Turn the ``ModuleNotFoundError`` of an import in the block into a
    :class:`MissingExtraError` saying that ``feature`` needs the ``extra``.

    ``modules``, checked before the block runs, are the modules the feature needs through
    other imports too (``tapisvert.encoding``'s): the error then names every one missing
    at once, rather than one per attempt.
    """
    absent = missing(*modules)
    if absent:
        raise _missing_extra(extra, feature, absent)
    try:
        yield
    except ModuleNotFoundError as error:
        raise _missing_extra(extra, feature, [str(error.name)]) from None


def _missing_extra(extra: str, feature: str, modules: Sequence[str]) -> MissingExtraError:
    """The error saying that ``feature`` needs ``modules``, which ``extra`` installs."""
    key = "error.missing_extra" if len(modules) == 1 else "error.missing_extras"
    return MissingExtraError(key, feature=feature, module=", ".join(modules), extra=extra)
