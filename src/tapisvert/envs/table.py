"""What both environments share: a game in progress seen through its encoding."""

from __future__ import annotations

from io import StringIO
from typing import Any

from rich.console import Console

from tapisvert.core.extras import needs
from tapisvert.core.game import Action, Game, Seat, State
from tapisvert.core.registry import load_game, terminal_view
from tapisvert.encoding import Encoding, encoding_for

with needs("research", "tapisvert.envs"):
    import numpy
    from gymnasium import spaces


class Table:
    """One game from reset to end: the state, its encoding, and the rewards to pay."""

    def __init__(
        self,
        name: str,
        players: int | None,
        options: dict[str, object],
        encoding: Encoding | None = None,
    ) -> None:
        """A table of game ``name``, or of ``encoding``'s game where it is given (tables
        sharing one encoding, and the objects it keeps, beside a vector environment's)."""
        self.game: Game[Any] = (
            load_game(name, players, **options) if encoding is None else encoding.game
        )
        self.encoding: Encoding = encoding_for(self.game) if encoding is None else encoding
        self.state: State = self.game.new_initial_state(0)
        self._paid = [0.0] * self.game.players

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
        Console(file=out, width=100, color_system=None).print(
            terminal_view(self.game.name).render(self.state.observation(None), "en")
        )
        return out.getvalue()
