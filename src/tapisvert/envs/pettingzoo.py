"""The games as PettingZoo AEC environments: every seat is an agent (``player_0``…).

An agent observes ``{"observation": tensor, "action_mask": int8 mask}`` (the mask is all
zeros for an agent not to act) and acts with a compact action index (see
``tapisvert.encoding``); chance steps happen inside the environment, drawn from the seed
of ``reset``. Rewards are paid when a scoring segment or the game ends (see
``tapisvert.envs``). An index the mask does not allow raises ``ValueError``.

Where its state is: ``table.table`` (a :class:`tapisvert.envs.table.Table`) holds the game
(``game``), its ``encoding`` and the engine's position (``state``, replaced by each
``reset``): a referee's view of every hand, for analysis, never for an agent, which sees
``state.observation(seat)`` alone. The AEC bookkeeping (``agents``, ``rewards``,
``terminations``…) is in the usual attributes.

>>> from tapisvert.envs.pettingzoo import env
>>> table = env("wizard", players=4, rounds="first5")
>>> table.reset(seed=1)
>>> table.agent_selection in table.agents
True
"""

from __future__ import annotations

from typing import Any

from tapisvert.core.extras import needs
from tapisvert.core.game import Action
from tapisvert.envs.table import Table

with needs("research", "tapisvert.envs.pettingzoo"):
    from gymnasium import spaces
    from pettingzoo import AECEnv


class TapisvertEnv(AECEnv):  # type: ignore[misc]
    """A tapisvert game as an AEC environment."""

    def __init__(
        self, name: str, players: int | None = None, render_mode: str | None = None, **options: Any
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"the render modes are None and 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.table = Table.of(name, players, options)
        self.metadata = {
            "render_modes": ["ansi"],
            "name": f"tapisvert_{self.table.game.name}",
            "is_parallelizable": False,
        }
        self.possible_agents = [f"player_{seat}" for seat in range(self.table.game.players)]
        self._observation_space = self.table.observation_space()
        self._action_space = self.table.action_space()
        self.reset()

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.table.state.current_player()]

    def observe(self, agent: str) -> dict[str, Any]:
        return self.table.observe(self.possible_agents.index(agent))

    def step(self, action: Action | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        chosen = None if action is None else self.table.action(int(action))
        if chosen is None:
            raise ValueError(f"{action} is not a legal action index for {agent}")
        self._cumulative_rewards[agent] = 0.0
        paid = self.table.play(chosen)
        self.rewards = dict(zip(self.possible_agents, paid, strict=True))
        state = self.table.state
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        return self.table.text() if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release: the environment holds no outside resource."""


def env(
    name: str, players: int | None = None, render_mode: str | None = None, **options: Any
) -> TapisvertEnv:
    """The AEC environment of game ``name`` with ``players`` seats and the game's options."""
    return TapisvertEnv(name, players, render_mode, **options)
