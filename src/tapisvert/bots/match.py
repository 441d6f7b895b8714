"""Play whole games between bots, reproducibly from one seed."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tapisvert.bots.base import Bot
from tapisvert.core.game import CHANCE, Game, State


def seat_rng(game_seed: int, seat: int) -> random.Random:
    """The generator of one seat's bot in one game: independent of every other seat's."""
    return random.Random(f"{game_seed}:{seat}")


def game_seeds(seed: int, games: int) -> list[int]:
    """One seed per game, drawn from the run's seed."""
    master = random.Random(seed)
    return [master.getrandbits(63) for _ in range(games)]


def play_match(game: Game[Any], bots: Sequence[Bot], seed: int) -> State:
    """A finished game: chance from ``seed``, each bot deciding from its own observation."""
    state: State = game.new_initial_state(seed)
    rngs = [seat_rng(seed, seat) for seat in range(game.players)]
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.resolve_chance()
            continue
        action = bots[player].choose(state.observation(player), state.legal_actions(), rngs[player])
        state.apply_action(action)
    return state
