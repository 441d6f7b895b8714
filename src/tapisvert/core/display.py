"""The table drawn as text from a state: the game's terminal view of one seat's observation,
and, once the game is over, its end, which every game shows alike.

The end comes from the state, not from the view: a game's winners may depend on its
tie-breaks, on cards that no seat's observation shows.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tapisvert.core.game import Seat, State
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
