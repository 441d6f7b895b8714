"""``python -m tapisvert`` is the ``tapisvert`` command.

The command line is imported under the guard: a worker process the server spawns imports
this module again (as ``__mp_main__``) and needs none of it.
"""

if __name__ == "__main__":
    from tapisvert.cli.entry import main

    main()
