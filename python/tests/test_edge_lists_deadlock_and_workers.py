"""Bad edge-list topologies, deadlock-prone routings (refused, or run with
``sim.allow_deadlock`` and reported as a failure), and sweep workers that die with their
parent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import psutil
import pytest

import lnsim
from lnsim import executors

from conftest import SCENARIOS, lnsim_cmd

# A 4x4 torus with dimension-order routing and one VL: each wrap-around ring is a credit loop.
TORUS = """\
[sim]
end_time = "3ms"
interval = "0.5ms"
[topology]
kind = "torus"
dims = [4, 4]
hcas_per_switch = 2
[[traffic.generators]]
sources = "all"
"""


def write(path, text: str):
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- edge-list files -------------------------------------------------------------------------


def test_edge_list_self_loop_and_radix_are_refused_naming_file_and_line(tmp_path):
    write(tmp_path / "net.topo", "switch S1\nswitch S2\nhca H1\nhca H2\nlink H1 S1\nlink H2 S2\nlink S1 S2\nlink S1 S1\n")
    scen = write(
        tmp_path / "s.toml",
        """\
        [sim]
        end_time = "1ms"
        [topology]
        kind = "file"
        file = "net.topo"
        [[traffic.flows]]
        src = "H1"
        dst = "H2"
        """,
    )
    for cmd in ("validate", "run"):
        proc = lnsim_cmd(cmd, scen, "--out", tmp_path / "out") if cmd == "run" else lnsim_cmd(cmd, scen)
        assert proc.returncode == 2, proc.stderr
        assert "net.topo:8: `link S1 S1` links `S1` to itself" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()
    # S1 declares 2 ports: H1 and one link to S2 fill them, a third link is refused
    write(tmp_path / "net.topo", "switch S1 ports=2\nswitch S2\nhca H1\nhca H2\nlink H1 S1\nlink H2 S2\nlink S1 S2\nlink S2 S1\n")
    proc = lnsim_cmd("validate", scen)
    assert proc.returncode == 2
    assert "net.topo:8: switch `S1` already has 2 links, all the ports it declares (`ports=2`, line 1)" in proc.stderr
    write(tmp_path / "net.topo", "switch S1 ports=3\nswitch S2\nhca H1\nhca H2\nlink H1 S1\nlink H2 S2\nlink S1 S2\nlink S2 S1\n")
    proc = lnsim_cmd("validate", scen)
    assert proc.returncode == 0, proc.stderr


# --- deadlock ----------------------------------------------------------------------------------


def test_validate_refuses_a_routing_that_can_deadlock(tmp_path):
    scen = write(tmp_path / "torus.toml", TORUS)
    proc = lnsim_cmd("validate", scen)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr
    assert "routing.algorithm: these forwarding tables can deadlock the traffic" in err, err
    assert "cycle of 4 channels" in err and "(to SW" in err and "VL 0 →" in err, err
    assert "sim.allow_deadlock = true" in err
    # run refuses it the same way, before simulating, and writes nothing
    proc = lnsim_cmd("run", scen, "--out", tmp_path / "out", "--no-plot")
    assert proc.returncode == 2 and "can deadlock" in proc.stderr
    assert not (tmp_path / "out").exists()
    with pytest.raises(lnsim.ScenarioError, match="can deadlock"):
        lnsim.validate(scen)
    # the same traffic on a mesh is deadlock-free
    mesh = write(tmp_path / "mesh.toml", TORUS.replace('"torus"', '"mesh"'))
    proc = lnsim_cmd("validate", mesh)
    assert proc.returncode == 0 and "channel-dependency graph acyclic" in proc.stdout, proc.stderr


@pytest.mark.parametrize("scenario", sorted(SCENARIOS.rglob("*.toml")), ids=lambda p: p.relative_to(SCENARIOS).as_posix())
def test_shipped_scenarios_pass_the_deadlock_check(scenario):
    # both models: the routes of every shipped scenario are deadlock-free
    assert "channel-dependency graph acyclic" in lnsim.validate(scenario)


def test_allowed_deadlock_run_writes_results_and_exits_3(tmp_path):
    scen = write(tmp_path / "torus.toml", TORUS)
    proc = lnsim_cmd("validate", scen, "--set", "sim.allow_deadlock=true")
    assert proc.returncode == 0 and "deadlock check: CYCLIC, 4 channels" in proc.stdout, proc.stderr
    out = tmp_path / "out"
    proc = lnsim_cmd("run", scen, "--set", "sim.allow_deadlock=true", "--out", out, "--no-plot")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "DEADLOCK" in proc.stdout and "the run deadlocked" in proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["deadlock"]["blocked_packets"] > 0 and len(summary["deadlock"]["cycle"]) == 4
    # the Python API returns the result, with the deadlock as an attribute
    r = lnsim.run(scen, overrides={"sim.allow_deadlock": True}, out=tmp_path / "api")
    assert r.deadlock == json.loads((tmp_path / "api" / "summary.json").read_text())["deadlock"]
    assert r.deadlock["cycle"] == summary["deadlock"]["cycle"]
    assert lnsim.load_results(tmp_path / "api").deadlock is not None
    ok = lnsim.run(write(tmp_path / "mesh.toml", TORUS.replace('"torus"', '"mesh"')), out=tmp_path / "m")
    assert ok.deadlock is None


def test_sweep_marks_a_deadlocked_point_failed_with_the_cycle(tmp_path):
    # one point deadlocks (torus), the other does not (mesh)
    scen = write(
        tmp_path / "sweep.toml",
        TORUS.replace("[sim]\n", "[sim]\nallow_deadlock = true\n") + '[sweep]\n"topology.kind" = ["torus", "mesh"]\n',
    )
    out = tmp_path / "sw"
    proc = lnsim_cmd("sweep", scen, "--out", out, "--jobs", "2", "--no-plot", "--no-progress")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    df = pd.read_csv(out / "sweep.csv")
    rows = df.set_index("topology.kind")
    assert rows.loc["mesh", "status"] == "ok"
    assert rows.loc["torus", "status"] == "failed"
    err = rows.loc["torus", "error"]
    assert err.startswith("deadlock at ") and "credit loop of 4 buffers" in err and " VL 0 -> SW" in err, err
    # the deadlocked run's folder is kept, with its summary
    point = rows.loc["torus", "point"]
    assert json.loads((out / "points" / point / "summary.json").read_text())["deadlock"] is not None
    assert "1 failed" in proc.stdout


# --- workers die with their parent ----------------------------------------------------------

LONG = """\
[sim]
end_time = "60s"
interval = "100ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 1
[[traffic.flows]]
src = "H111"
dst = "H121"
[sweep]
"sim.seed" = [1, 2]
"""


def _gone(procs, timeout: float) -> list:
    """The processes of ``procs`` still alive (zombies count as gone) after up to ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for p in procs:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def test_sigkill_of_a_sweep_takes_its_pool_workers_with_it(tmp_path):
    scen = write(tmp_path / "long.toml", LONG)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    sweep = subprocess.Popen(
        [sys.executable, "-m", "lnsim", "sweep", str(scen), "--jobs", "2", "--out", str(tmp_path / "sw"), "--no-progress"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    parent = psutil.Process(sweep.pid)
    workers = []
    try:
        # both workers have started a run (each made its temporary run folder)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            workers = parent.children(recursive=True)
            if len(workers) >= 2 and len(list(tmp.glob("lnsim-run-*"))) >= 2:
                break
            time.sleep(0.1)
        assert len(workers) >= 2, "the sweep did not start its pool"
        time.sleep(1.0)  # the compiled core is simulating now
        os.kill(sweep.pid, signal.SIGKILL)
        sweep.wait(timeout=10)
        alive = _gone(workers, timeout=5.0)
        assert not alive, f"workers outlived the killed sweep: {alive}"
        # and each deleted its temporary run folder on the way out
        assert list(tmp.glob("lnsim-run-*")) == []
    finally:
        for p in [*workers, parent]:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass


def test_watchdog_ends_a_worker_without_the_kernel_signal(tmp_path):
    """The portable fallback alone (no prctl): a worker whose parent is SIGKILLed exits."""
    script = textwrap.dedent(
        """\
        import os, sys, time
        from lnsim import executors
        pid = os.fork()
        if pid == 0:
            executors.USE_PDEATHSIG = False
            executors._worker_init(os.getppid())
            print(os.getpid(), flush=True)
            time.sleep(60)
            os._exit(0)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        child = psutil.Process(int(parent.stdout.readline()))
        assert child.is_running()
        parent.kill()
        parent.wait(timeout=10)
        assert not _gone([child], timeout=5.0)
    finally:
        for p in (child, parent):
            try:
                if p is not None:
                    p.kill()
            except (psutil.NoSuchProcess, ProcessLookupError):
                pass


def test_a_cancelled_dask_task_stops_its_run(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is installed by `make install`")
    scen = write(tmp_path / "long.toml", LONG.split("[sweep]")[0])
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as client:
        worker = next(iter(cluster.workers.values()))
        fut = client.submit(executors.run_task, str(scen), [], None, pure=False)
        deadline = time.monotonic() + 60
        while worker.state.executing_count == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.state.executing_count == 1
        time.sleep(1.0)
        t0 = time.monotonic()
        client.cancel([fut])
        while worker.state.executing_count and time.monotonic() - t0 < 30:
            time.sleep(0.05)
        assert worker.state.executing_count == 0
        assert time.monotonic() - t0 < 5, "the cancelled run went on"
