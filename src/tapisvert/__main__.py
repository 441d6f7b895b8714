"""``python -m tapisvert`` is the ``tapisvert`` command."""

from tapisvert.cli.main import main

main()
