"""Exit statuses of the ``lnsim`` command and how an exception becomes one.

0 success, 2 bad input (:data:`EXIT_INPUT`: the message names the key or path; nothing is
written), 1 simulation or unexpected error, 3 the run deadlocked (its results folder is
written), 130 interrupted. :func:`report_error` prints the message of an exception and returns
its status; the command (:mod:`lnsim.cli`), ``lnsim report`` (:mod:`lnsim.report`), ``lnsim
bench`` (:mod:`lnsim.bench`) and a benchmark case's process (:mod:`lnsim._bench_case`) share it.
:func:`interruptible` runs a command's body so that an interrupt (Ctrl-C, or SIGTERM turned
into ``KeyboardInterrupt``) landing anywhere in it, error reporting included, ends it with
:data:`EXIT_INTERRUPTED` and one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
from typing import Callable

#: The line an interrupted command prints on stderr.
INTERRUPTED_LINE = "lnsim: interrupted"

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INPUT = 2
EXIT_DEADLOCK = 3
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """Bad command-line input found by the front end itself (exit status 2)."""


def report_error(e: BaseException) -> int:
    """Prints ``lnsim: error: ...`` for ``e`` on stderr and returns the exit status: bad input
    (a scenario, an output path, a results file, the Dask scheduler, the results store, the
    command line) is :data:`EXIT_INPUT`, a simulation error or anything unexpected
    :data:`EXIT_ERROR` (with the traceback when ``LNSIM_TRACEBACK`` is set)."""
    from ._core import ScenarioError, SimulationError
    from ._read import ResultsError
    from .executors import ExecutorError
    from .store import StoreError

    if isinstance(e, (ScenarioError, InputError, ExecutorError, StoreError, ResultsError)):
        print(f"lnsim: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    if isinstance(e, SimulationError):
        print(f"lnsim: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    if os.environ.get("LNSIM_TRACEBACK"):
        import traceback

        traceback.print_exception(type(e), e, e.__traceback__)
    print(f"lnsim: error: {type(e).__name__}: {e}", file=sys.stderr)
    return EXIT_ERROR


def interrupted() -> int:
    """Prints :data:`INTERRUPTED_LINE` on stderr and returns :data:`EXIT_INTERRUPTED`; a second
    interrupt, or a stderr that is gone, while it prints is ignored."""
    try:
        print(INTERRUPTED_LINE, file=sys.stderr, flush=True)
    except (KeyboardInterrupt, Exception):  # noqa: BLE001 - nothing more can be said
        pass
    return EXIT_INTERRUPTED


def interruptible(body: Callable[[], int]) -> int:
    """``body()``'s exit status; a ``KeyboardInterrupt`` raised anywhere in it (also while it
    reports an error, or in its ``finally`` clauses) gives :func:`interrupted` instead, and one
    that lands while that is being handled gives :data:`EXIT_INTERRUPTED` too."""
    try:
        try:
            return body()
        except KeyboardInterrupt:
            return interrupted()
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
