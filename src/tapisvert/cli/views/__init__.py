"""Terminal views: each game renders one seat's observation, and nothing else.

A game's view is the module its plugin names (``GamePlugin.terminal_view``), with two
functions of the shape of :class:`tapisvert.core.registry.TerminalView`; ``common`` holds
what the games' views share. :func:`render_state` draws the table from a state, and adds a
finished game's end, which every game shows alike: it comes from the state, not from the
view, for a game's winners may depend on its tie-breaks, on cards no seat's observation shows.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tapisvert.core.game import Observation, Seat, State
from tapisvert.core.records import actor_label
from tapisvert.core.registry import terminal_view
from tapisvert.i18n import translate


def render_state(state: State, seat: Seat | None, language: str) -> RenderableType:
    """The table as ``seat`` (``None``: a spectator) sees it; a finished game's end first."""
    view = terminal_view(state.game.name).render(state.observation(seat), language)
    return Group(game_over(state, language), view) if state.is_terminal() else view


def game_over(state: State, language: str) -> RenderableType:
    """That a finished game is over, its final scores and its winners."""
    scores = "  ".join(
        f"{actor_label(seat)} {score:g}" for seat, score in enumerate(state.returns())
    )
    winners = ", ".join(actor_label(seat) for seat in state.winners())
    return Group(
        Text(translate("cli.game_over", language), style="bold"),
        Text(f"{translate('cli.scores', language)}: {scores}"),
        Text(translate("cli.winners", language, names=winners), style="bold"),
    )


def news(
    game: str, before: Observation | None, after: Observation, language: str
) -> list[RenderableType]:
    """What that seat learnt between two observations (tricks taken, rounds scored)."""
    return terminal_view(game).news(before, after, language)
