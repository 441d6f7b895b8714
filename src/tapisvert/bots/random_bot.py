"""A bot that picks uniformly among the legal actions: the floor every other bot must beat."""

from __future__ import annotations

import random
from collections.abc import Sequence

from tapisvert.bots.base import register_bot
from tapisvert.core.game import Action, Observation


class RandomBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        return legal_actions[rng.randrange(len(legal_actions))]


register_bot("random", lambda game: RandomBot())
