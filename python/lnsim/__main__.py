"""``python -m lnsim`` — the same as the ``lnsim`` command."""

import sys

from ._exit import interruptible  # a small module (os, sys): loads before a Ctrl-C can matter


def _command() -> int:
    from .cli import main

    return main()


if __name__ == "__main__":  # not when a worker process re-imports the main module
    # an interrupt while the command's modules load ends it like one during the command
    sys.exit(interruptible(_command))
