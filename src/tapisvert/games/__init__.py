"""One package per game, each of the same shape and holding everything of its game: cards,
rules, notation, sampler, heuristic bot, encoding, terminal view (``view``), board for the
browser (``web/``), texts (``texts/``) and rules for players; each declares itself through the
``tapisvert.games`` entry point (see ``tapisvert.core.registry`` and ``docs/design.md``)."""
