"""Reinforcement-learning environments over the games (the ``research`` extra).

``tapisvert.envs.pettingzoo.env(name, players, **options)`` is a PettingZoo AEC
environment where every seat is an agent; ``tapisvert.envs.gymnasium.SingleSeatEnv`` a
Gymnasium environment for one seat, the others played by tapisvert bots;
``tapisvert.envs.vector.TablesVectorEnv`` many tables in one Gymnasium vector environment,
every seat the learner. All observe through the game's tensor encoding
(``tapisvert.encoding``) and pay rewards the same way: when a scoring segment (a round, a
deal) or the game ends, each seat receives the change of its score since the last payment,
so that a game's rewards add up to its final scores.
"""
