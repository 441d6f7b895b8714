"""One package per game, each of the same shape: cards, rules, notation, sampler, heuristic
bot, rules for players; each declares itself through the ``tapisvert.games`` entry point
(see ``tapisvert.core.registry``)."""
