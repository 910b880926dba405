"""One benchmark case in a fresh process (used by ``lnsim bench``).

    python -m lnsim._bench_case SCENARIO.toml [--set key.path=value]... [--out DIR]

Runs the scenario without progress bar or figures and prints, as the last line of stdout, the
JSON object ``{"out_dir": ..., "summary": ..., "cpu_s": ...}``, ``cpu_s`` being the CPU time
(user + system) the process spent in the run, set-up included: unlike the wall time, it does
not count the time the run waited for a core shared with other work. Running each case in its
own process makes ``summary["peak_rss_bytes"]`` (the process's VmHWM) the peak memory of that
case alone; this module therefore imports nothing heavy (no pandas, no matplotlib).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the case; returns the exit status (an interrupt anywhere: 130, one line)."""
    from ._exit import interruptible  # small module: nothing heavy

    return interruptible(lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    p = argparse.ArgumentParser(prog="python -m lnsim._bench_case")
    p.add_argument("scenario")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    from ._exit import report_error  # small module: nothing heavy

    try:
        from ._core import run

        before = resource.getrusage(resource.RUSAGE_SELF)
        res = run(args.scenario, args.overrides, None, args.out, False)
        after = resource.getrusage(resource.RUSAGE_SELF)
        res["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    except Exception as e:  # noqa: BLE001
        return report_error(e)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
