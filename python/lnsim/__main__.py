"""``python -m lnsim`` — the same as the ``lnsim`` command."""

import sys

from .cli import main

sys.exit(main())
