"""One seat of a game as a Gymnasium environment; tapisvert bots play the other seats.

The learner observes ``{"observation": tensor, "action_mask": int8 mask}`` and acts with a
compact action index (see ``tapisvert.encoding``). Its reward after a step is what its seat
was paid meanwhile (see ``tapisvert.envs``), during its move and the bots' moves up to its
next decision. An index of the action space that the mask does not allow ends the episode
with ``illegal_reward`` (-1 unless given) and ``info["illegal_action"]``; an index outside
the space raises ``ValueError``.

>>> from tapisvert.envs.gymnasium import SingleSeatEnv
>>> seat = SingleSeatEnv("luz", players=4, opponents="easy")
>>> observation, info = seat.reset(seed=3)
>>> observation["observation"].shape == seat.observation_space["observation"].shape
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, SupportsFloat

from tapisvert.bots import make_bot
from tapisvert.core.extras import needs
from tapisvert.core.game import Seat
from tapisvert.envs.table import Table

with needs("research", "tapisvert.envs.gymnasium"):
    import gymnasium
    import numpy


class SingleSeatEnv(gymnasium.Env[dict[str, Any], numpy.int64]):
    """Seat ``seat`` of game ``name``; ``opponents`` names a bot level, or one per other seat."""

    def __init__(
        self,
        name: str,
        players: int | None = None,
        seat: Seat = 0,
        opponents: str | Sequence[str] = "easy",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"the render modes are None and 'ansi', not {render_mode!r}")
        self.metadata = {"render_modes": ["ansi"], "render_fps": 1}
        self.render_mode = render_mode
        self.table = Table.of(name, players, options)
        game = self.table.game
        if not 0 <= seat < game.players:
            raise ValueError(f"{game.name} with {game.players} players has no seat {seat}")
        others = [other for other in range(game.players) if other != seat]
        levels = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
        if len(levels) != len(others):
            raise ValueError(f"{len(others)} opponents to name, got {len(levels)}")
        self.seat = seat
        self.bots = {
            other: make_bot(level, game) for other, level in zip(others, levels, strict=True)
        }
        self.illegal_reward = illegal_reward
        self.observation_space = self.table.observation_space()
        self.action_space = self.table.action_space()
        self._rng = random.Random()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        deal = int(self.np_random.integers(2**31))
        self.table.reset(deal)
        self._rng = random.Random(deal)
        self._bots_play()
        return self.table.observe(self.seat), {}

    def step(
        self, action: int | numpy.int64
    ) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        index = int(action)
        count = self.table.encoding.action_count
        if not 0 <= index < count:
            raise ValueError(
                f"{index} is outside the action space {self.action_space}: "
                f"an index from 0 to {count - 1}"
            )
        chosen = self.table.action(index)
        if chosen is None:
            observation = self.table.observe(self.seat)
            return observation, self.illegal_reward, True, False, {"illegal_action": True}
        reward = self.table.play(chosen)[self.seat] + self._bots_play()
        terminated = self.table.state.is_terminal()
        return self.table.observe(self.seat), reward, terminated, False, {}

    def _bots_play(self) -> float:
        """The other seats' moves up to the learner's turn or the end; what it was paid."""
        state = self.table.state
        paid = 0.0
        while not state.is_terminal() and state.current_player() != self.seat:
            player = state.current_player()
            legal = state.legal_actions()
            chosen = self.bots[player].choose(state.observation(player), legal, self._rng)
            paid += self.table.play(chosen)[self.seat]
        return paid

    def render(self) -> str | None:
        return self.table.text() if self.render_mode == "ansi" else None
