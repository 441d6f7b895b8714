"""Play whole games between bots, reproducibly from one seed."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from tapisvert.bots.base import Bot
from tapisvert.core.game import CHANCE, Game, Seat, State

StepHook = Callable[[State, Seat, float], None]
"""Called after every step with the state, who acted (``CHANCE`` too) and their thinking time."""


def seat_rng(game_seed: int, key: int) -> random.Random:
    """The generator of one bot in one game: independent of every other bot's."""
    return random.Random(f"{game_seed}:{key}")


def game_seeds(seed: int, games: int) -> list[int]:
    """One seed per game, drawn from the run's seed."""
    master = random.Random(seed)
    return [master.getrandbits(63) for _ in range(games)]


def play_match(
    game: Game[Any],
    bots: Sequence[Bot],
    seed: int,
    rng_keys: Sequence[int] | None = None,
    on_step: StepHook | None = None,
) -> State:
    """A finished game: chance from ``seed``, each bot deciding from its own observation.

    ``rng_keys`` names each seat's bot generator (the seat by default), so that a bot keeps
    its generator when the line-up rotates.
    """
    state: State = game.new_initial_state(seed)
    keys = list(range(game.players)) if rng_keys is None else list(rng_keys)
    rngs = [seat_rng(seed, key) for key in keys]
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.resolve_chance()
            if on_step:
                on_step(state, CHANCE, 0.0)
            continue
        started = time.perf_counter()
        action = bots[player].choose(state.observation(player), state.legal_actions(), rngs[player])
        thinking = time.perf_counter() - started
        state.apply_action(action)
        if on_step:
            on_step(state, player, thinking)
    return state
