"""What both environments share: a game in progress seen through its encoding."""

from __future__ import annotations

from io import StringIO
from typing import Any

from rich.console import Console

from tapisvert.core.display import render_state
from tapisvert.core.extras import needs
from tapisvert.core.game import Action, Game, Seat, State
from tapisvert.core.registry import load_game
from tapisvert.encoding import Encoding, encoding_for

with needs("research", "tapisvert.envs"):
    import numpy
    from gymnasium import spaces


class Table:
    """One game from reset to end: the state, its encoding, and the rewards to pay."""

    def __init__(self, game: Game[Any], encoding: Encoding) -> None:
        """A table of ``game`` written through ``encoding`` (which tables may share, with
        what it keeps, as a vector environment's do)."""
        self.game = game
        self.encoding = encoding
        self.state: State = game.new_initial_state(0)
        self._paid = [0.0] * game.players

    @classmethod
    def of(cls, name: str, players: int | None, options: dict[str, object]) -> Table:
        """A table of game ``name`` with ``players`` seats and these options, and its own
        encoding."""
        game: Game[Any] = load_game(name, players, **options)
        return cls(game, encoding_for(game))

    def observation_space(self) -> spaces.Dict:
        encoding = self.encoding
        return spaces.Dict(
            {
                "observation": spaces.Box(encoding.low, 1.0, encoding.shape, numpy.float32),
                "action_mask": spaces.Box(0, 1, (encoding.action_count,), numpy.int8),
            }
        )

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.encoding.action_count)

    def reset(self, seed: int | None) -> None:
        """A new game; the same ``seed`` deals the same cards and draws the same chances."""
        self.state = self.game.new_initial_state(seed)
        self.state.resolve_chance()
        self._paid = [0.0] * self.game.players

    def observe(self, seat: Seat) -> dict[str, Any]:
        """The seat's tensor, and its legal actions if it is to act."""
        encoding = self.encoding
        mask = numpy.zeros(encoding.action_count, dtype=numpy.int8)
        if self.state.current_player() == seat:
            encoding.write_legal(mask, self.state)
        return {"observation": encoding.encode_state(self.state, seat), "action_mask": mask}

    def action(self, index: int) -> Action | None:
        """The legal action of the seat to act at compact ``index``, or ``None``."""
        return self.encoding.action_of(self.state, index)

    def play(self, action: Action) -> list[float]:
        """Apply ``action``, then chance up to the next decision; what each seat is paid."""
        segment = self.state.segment()
        self.state.apply_action(action)
        self.state.resolve_chance()
        if not self.state.is_terminal() and self.state.segment() == segment:
            return [0.0] * self.game.players
        scores = self.state.returns()
        rewards = [score - paid for score, paid in zip(scores, self._paid, strict=True)]
        self._paid = scores
        return rewards

    def text(self) -> str:
        """The table as a spectator sees it, in plain text."""
        out = StringIO()
        Console(file=out, width=100, color_system=None).print(render_state(self.state, None, "en"))
        return out.getvalue()
