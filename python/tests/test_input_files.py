"""Files a run reads as input (the scenario, the files it names) must be regular files of at most
``MAX_INPUT_BYTES``: a FIFO is refused at once instead of blocking the command (which then could
not be interrupted), a device such as ``/dev/zero`` instead of being read until memory runs out,
a larger file instead of being read whole. Each is exit status 2 with a message naming the file."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

import lnsim
from conftest import lnsim_cmd

# Named pipes (FIFOs) exist on POSIX systems only; elsewhere (Windows) there is no FIFO to offer
# as an input file, so these tests cannot run there.
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")

#: Seconds a refusal may take (a FIFO that is opened for reading blocks until this runs out).
PROMPT = 60

TINY = """[sim]
model = "credit"
end_time = "1ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 1
"""


def _small_memory() -> None:
    # reading /dev/zero without a bound fails here quickly instead of filling the machine
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def refused(*args, cwd, needle: str) -> None:
    proc = lnsim_cmd(*args, cwd=cwd, timeout=PROMPT, preexec_fn=_small_memory)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("lnsim: error: ") and "Traceback" not in proc.stderr, proc.stderr
    assert needle in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_fifo_as_the_scenario_is_refused_at_once(tmp_path, command):
    os.mkfifo(tmp_path / "s.toml")
    extra = ["--out", tmp_path / "out"] if command != "validate" else []
    refused(command, "s.toml", *extra, cwd=tmp_path,
            needle="s.toml: scenario file is a FIFO (named pipe), not a regular file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["validate", "sweep"])
def test_a_device_as_the_scenario_is_refused(tmp_path, command):
    refused(command, "/dev/zero", cwd=tmp_path,
            needle="/dev/zero: scenario file is a character device, not a regular file")


def test_a_folder_and_a_file_over_the_size_limit_are_refused(tmp_path):
    refused("validate", tmp_path, cwd=tmp_path, needle="scenario file is a folder, not a regular file")
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: nothing is written
        f.truncate(lnsim._run.MAX_INPUT_BYTES + 1)
    refused("validate", big, cwd=tmp_path, needle="big.toml: scenario file is larger than 16 MiB")
    # at the limit it is read (and is then a TOML problem, not a size one)
    with open(big, "r+b") as f:
        f.truncate(lnsim._run.MAX_INPUT_BYTES)
    proc = lnsim_cmd("validate", big, cwd=tmp_path, timeout=PROMPT)
    assert proc.returncode == 2 and "larger than" not in proc.stderr, proc.stderr


def test_a_fifo_named_by_the_scenario_is_refused(tmp_path):
    os.mkfifo(tmp_path / "net.topo")
    (tmp_path / "s.toml").write_text(TINY.replace('kind = "mesh"\ndims = [1, 2]\nhcas_per_switch = 1',
                                                  'kind = "file"\nfile = "net.topo"'))
    refused("validate", "s.toml", cwd=tmp_path,
            needle="topology.file: `net.topo` is a FIFO (named pipe)")
    (tmp_path / "t.toml").write_text(TINY + '[routing]\nalgorithm = "lft_file"\nfile = "/dev/zero"\n')
    refused("validate", "t.toml", cwd=tmp_path, needle="routing.file: `/dev/zero` is a character device")


#: The Python API on a FIFO and a device, in a process of its own (a call that blocked would
#: block the test run).
API_CALLS = r"""
import os, sys
import lnsim

os.mkfifo("s.toml")
for call in (lambda: lnsim.load_scenario("s.toml"), lambda: lnsim.sweep_points("s.toml"),
             lambda: lnsim.validate("s.toml"), lambda: lnsim.estimate_memory("/dev/zero"),
             lambda: lnsim.run("/dev/zero", out="out")):
    try:
        call()
    except lnsim.ScenarioError as e:
        assert "not a regular file" in str(e), e
    else:
        sys.exit("no error")
print("refused")
"""


def test_the_python_api_refuses_them_too(tmp_path):
    proc = subprocess.run([sys.executable, "-c", API_CALLS], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=PROMPT, preexec_fn=_small_memory)
    assert proc.returncode == 0 and proc.stdout == "refused\n", (proc.returncode, proc.stderr)
    assert not (tmp_path / "out").exists()
