"""An interrupt (Ctrl-C's SIGINT, or SIGTERM) ends the ``lnsim`` command with exit status 130
and one line on stderr wherever it lands: while an error is being reported, or while the
command's modules load — never with a Python traceback."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

#: Runs the command in a process whose error reporting is interrupted by a real signal, sent by
#: the process to itself (delivered before the next Python instruction: deterministic).
INTERRUPTED_REPORT = r"""
import os, signal, sys, time
import lnsim.cli as cli

def report(e):
    os.kill(os.getpid(), signal.{sig})
    time.sleep(30)  # not reached: the handler raises first
    return 2

cli.report_error = report
sys.exit(cli.main(["validate", "no-such-scenario.toml"]))
"""

#: Starts ``python -m lnsim`` with the import of ``lnsim.cli`` interrupted.
INTERRUPTED_IMPORT = r"""
import runpy, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "lnsim.cli":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["lnsim", "--version"]
runpy.run_module("lnsim", run_name="__main__", alter_sys=True)
"""


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupt_while_an_error_is_reported_gives_one_line(tmp_path, sig):
    proc = _python(INTERRUPTED_REPORT.replace("{sig}", sig), tmp_path)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "lnsim: interrupted\n", proc.stderr


def test_an_interrupt_while_the_command_loads_gives_one_line(tmp_path):
    proc = _python(INTERRUPTED_IMPORT, tmp_path)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "lnsim: interrupted\n", proc.stderr


def test_interrupted_returns_the_status_even_when_stderr_is_gone(monkeypatch):
    from lnsim import _exit

    class Gone:
        def write(self, text):
            raise BrokenPipeError

        def flush(self):
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stderr", Gone())
    assert _exit.interruptible(lambda: (_ for _ in ()).throw(KeyboardInterrupt())) == _exit.EXIT_INTERRUPTED
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # left as it was
