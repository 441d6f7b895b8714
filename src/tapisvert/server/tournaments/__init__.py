"""Tournaments: players registered for a game are seated at tables of several, round after
round, and ranked by the places they take (``standings``); who sits with whom each round is
the format's (``formats``)."""
