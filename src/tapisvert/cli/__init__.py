"""The ``tapisvert`` command: play, simulate and replay in the terminal."""
