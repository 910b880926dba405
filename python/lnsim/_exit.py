"""Exit statuses of the ``lnsim`` command and how an exception becomes one.

0 success, 2 bad input (:data:`EXIT_INPUT`: the message names the key or path; nothing is
written), 1 simulation or unexpected error, 3 the run deadlocked (its results folder is
written), 130 interrupted. :func:`report_error` prints the message of an exception and returns
its status; the command (:mod:`lnsim.cli`), ``lnsim report`` (:mod:`lnsim.report`), ``lnsim
bench`` (:mod:`lnsim.bench`) and a benchmark case's process (:mod:`lnsim._bench_case`) share it.
"""

from __future__ import annotations

import os
import sys

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
