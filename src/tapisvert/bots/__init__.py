"""Bots: they see an observation, the legal actions and an rng — never the state."""

from tapisvert.bots.base import Bot, bot_names, make_bot, register_bot
from tapisvert.bots.random_bot import RandomBot

__all__ = ["Bot", "RandomBot", "bot_names", "make_bot", "register_bot"]
