"""The ``actae`` command line (console script ``actae = actae.cli.main:main``).

``actae.cli.base`` holds what commands share; each other module adds one group of commands
(``COMMANDS``) and ``actae.cli.main`` collects them. Only ``main`` imports the command
modules, and command modules import only ``base``, so there is no import cycle.
"""

from actae.cli.base import CommandError, Subparsers, dsn_from

__all__ = ["CommandError", "Subparsers", "dsn_from"]
