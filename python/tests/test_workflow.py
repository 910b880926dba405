"""The experiment workflow: results store, --grid, --resume after SIGKILL, the Dask executor
(a real LocalCluster over TCP), executor faults and the Python API."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import lnsim
from lnsim import store
from conftest import dragonfly_toml, lnsim_cmd
from lnsim._sweep import HOST_FIELDS

#: A small cycle-level scenario: an h=2 Dragonfly (72 nodes), a few thousand cycles per point.
SMALL_DRAGONFLY = dragonfly_toml(500, 1500, head='[scenario]\nname = "wf"\n', sim="seed = 3\n")

#: 12 points: 6 loads x 2 routings (4 of them from the scenario, the routings from --grid).
LOADS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
GRID = ["--grid", "routing.algorithm=min,ugal"]


def scenario(tmp: Path, table: str = f'"traffic.load" = {LOADS}\n', text: str = SMALL_DRAGONFLY) -> Path:
    path = tmp / "wf.toml"
    path.write_text(text + "\n[sweep]\n" + table, encoding="utf-8")
    return path


def simulated_fields(df: pd.DataFrame) -> pd.DataFrame:
    """sweep.csv without the host-dependent columns."""
    return df.drop(columns=[c for c in HOST_FIELDS if c in df.columns]).reset_index(drop=True)


def run_files(sweep_dir: Path) -> dict:
    """Every file of every run folder (summary.json without host fields), keyed by path."""
    out = {}
    for p in sorted((sweep_dir / "points").rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(sweep_dir).as_posix()
        if p.name == "summary.json":
            s = json.loads(p.read_text())
            out[rel] = _strip_host(s)
        elif p.suffix != ".png":
            out[rel] = p.read_bytes()
    return out


def _strip_host(d):
    if isinstance(d, dict):
        return {k: _strip_host(v) for k, v in d.items() if k not in HOST_FIELDS}
    return d


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory):
    """The 12-point sweep on the local pool (2 processes), as the reference."""
    tmp = tmp_path_factory.mktemp("local")
    scen = scenario(tmp)
    out = tmp / "sweep"
    proc = lnsim_cmd("sweep", scen, *GRID, "--out", out, "--jobs", "2", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    return scen, out


# ---------------------------------------------------------------------------------------------
# results store


def test_store_has_one_record_per_point(local_sweep):
    scen, out = local_sweep
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 12 and (df["status"] == "ok").all()
    assert list(df.columns[:6]) == ["traffic.load", "routing.algorithm", "point", "status", "error", "seed"]
    runs = lnsim.read_store(out)
    assert list(runs.columns) == store.RUN_COLUMNS
    assert len(runs) == 12 and runs["run_key"].is_unique
    assert set(runs["point"]) == set(df["point"])
    assert (runs["status"] == "ok").all() and (runs["version"] == lnsim.__version__).all()
    assert (runs["scenario_hash"].str.len() == 64).all()
    for _, r in runs.iterrows():
        tables = json.loads(r["tables"])
        assert "summary.json" in tables
        for t in tables:
            assert (out / r["dir"] / t).is_file(), (r["dir"], t)
        summary = json.loads(r["summary"])
        assert summary["accepted_load"] == json.loads((out / r["dir"] / "summary.json").read_text())["accepted_load"]
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["keys"] == ["traffic.load", "routing.algorithm"]
    assert meta["grid"] == {"routing.algorithm": ["min", "ugal"]}
    assert meta["simulated"] == 12 and meta["reused"] == 0 and meta["store"] == "store.sqlite"
    assert not (out / ".staging").exists() or not any((out / ".staging").iterdir())
    # queryable with plain SQL
    db = sqlite3.connect(out / "store.sqlite")
    n = db.execute("SELECT COUNT(*) FROM runs WHERE json_extract(summary, '$.accepted_load') > 0").fetchone()[0]
    db.close()
    assert n == 12


def test_resume_of_a_complete_sweep_simulates_nothing(local_sweep, tmp_path):
    scen, out = local_sweep
    before = pd.read_csv(out / "sweep.csv")
    proc = lnsim_cmd("sweep", scen, *GRID, "--out", out, "--jobs", "2", "--no-plot", "--resume")
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["simulated"] == 0 and meta["reused"] == 12
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv"), before)


def test_resume_reruns_only_changed_points(tmp_path):
    """Editing the scenario changes every run's key; a --grid value added runs only the new points."""
    scen = scenario(tmp_path, '"traffic.load" = [0.05, 0.1]\n')
    out = tmp_path / "s"
    assert lnsim_cmd("sweep", scen, "--out", out, "--jobs", "1", "--no-plot").returncode == 0
    proc = lnsim_cmd("sweep", scen, "--grid", "traffic.load=0.05,0.1,0.15", "--out", out, "--jobs", "1", "--no-plot",
                     "--resume")
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "sweep.json").read_text())
    assert (meta["simulated"], meta["reused"]) == (1, 2)
    assert "resuming: 2 points already in the store, 1 to run" in proc.stderr
    # without --resume a sweep starts afresh
    proc = lnsim_cmd("sweep", scen, "--out", out, "--jobs", "1", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert "discarding 3 runs recorded in" in proc.stderr and "(no --resume)" in proc.stderr
    meta = json.loads((out / "sweep.json").read_text())
    assert (meta["simulated"], meta["reused"]) == (2, 0)
    assert len(lnsim.read_store(out)) == 2
    assert not (out / "points" / "traffic.load=0.15").exists()


def _records(db_path: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


#: Longer points for the kill test (about 0.3-0.5 s each), so the kill lands mid-sweep.
SLOW = ["--set", "sim.measure_cycles=200000"]


def test_sigkill_halfway_then_resume_runs_every_point_exactly_once(tmp_path):
    scen = scenario(tmp_path)
    ref = tmp_path / "ref"
    proc = lnsim_cmd("sweep", scen, *GRID, *SLOW, "--out", ref, "--jobs", "2", "--no-plot")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "lnsim", "sweep", str(scen), *GRID, *SLOW, "--out", str(out), "--jobs", "2",
           "--no-plot"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if _records(out / "store.sqlite") >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, f"the sweep ended before it could be killed: {proc.stderr.read().decode()}"
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker processes, mid-run
    proc.wait(timeout=30)
    proc.stderr.close()
    kept = _records(out / "store.sqlite")
    assert 2 <= kept < 12, kept
    assert not (out / "sweep.csv").exists()  # no table that looks complete
    # every recorded run names a complete folder
    for _, r in lnsim.read_store(out).iterrows():
        for t in json.loads(r["tables"]):
            assert (out / r["dir"] / t).is_file()

    resumed = lnsim_cmd("sweep", scen, *GRID, *SLOW, "--out", out, "--jobs", "2", "--no-plot", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["reused"] == kept and meta["simulated"] == 12 - kept
    runs = lnsim.read_store(out)
    assert len(runs) == 12 and runs["run_key"].is_unique and runs["point"].is_unique
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 12 and df["point"].is_unique and (df["status"] == "ok").all()
    assert not (out / ".staging").exists() or not any((out / ".staging").iterdir())
    # the same results as the uninterrupted sweep
    pd.testing.assert_frame_equal(simulated_fields(df), simulated_fields(pd.read_csv(ref / "sweep.csv")))
    assert run_files(out) == run_files(ref)


# ---------------------------------------------------------------------------------------------
# Dask


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is installed by `make install`")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, protocol="tcp://", host="127.0.0.1",
        dashboard_address=":0",
    )
    try:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        yield cluster
    finally:
        cluster.close()


def test_dask_cluster_matches_local_point_for_point(local_sweep, dask_cluster, tmp_path):
    scen, ref = local_sweep
    out = tmp_path / "dask"
    proc = lnsim_cmd("sweep", scen, *GRID, "--out", out, "--dask", dask_cluster.scheduler_address, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 12 and (df["status"] == "ok").all()
    pd.testing.assert_frame_equal(simulated_fields(df), simulated_fields(pd.read_csv(ref / "sweep.csv")))
    assert run_files(out) == run_files(ref)
    runs = lnsim.read_store(out)
    workers = set(runs["worker"])
    assert all(w.startswith("tcp://127.0.0.1:") for w in workers), workers
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["executor"] == f"dask {dask_cluster.scheduler_address}"
    assert "12 points to run on dask" in proc.stderr and "[12/12]" in proc.stderr


def test_dask_address_from_the_environment(dask_cluster, tmp_path):
    scen = scenario(tmp_path, '"traffic.load" = [0.05, 0.1]\n')
    env = dict(os.environ, LNSIM_DASK_ADDRESS=dask_cluster.scheduler_address)
    proc = lnsim_cmd("sweep", scen, "--out", tmp_path / "o", "--no-plot", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["executor"].startswith("dask tcp://")


def test_dask_failed_point_does_not_stop_the_others(tmp_path, monkeypatch):
    """A point that fails on a Dask worker is recorded as failed; the other points complete."""
    distributed = pytest.importorskip("distributed")
    real_run = lnsim.run

    def flaky_run(scenario, overrides=None, **kw):
        if "traffic.load=0.1" in overrides:
            raise lnsim.SimulationError("boom: injected failure")
        return real_run(scenario, overrides=overrides, **kw)

    monkeypatch.setattr(lnsim._run, "run", flaky_run)
    scen = scenario(tmp_path, '"traffic.load" = [0.05, 0.1, 0.15]\n')
    # threads in this process, so the injected failure reaches the workers
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as c:
        with distributed.Client(c) as client:
            with pytest.warns(RuntimeWarning, match="1 of 3 sweep points failed"):
                df = lnsim.sweep(scen, out=tmp_path / "o", dask=client)
    assert list(df["status"]) == ["ok", "failed", "ok"]
    assert df["error"].iloc[1] == "boom: injected failure"
    runs = lnsim.read_store(tmp_path / "o").set_index("point")
    assert runs.loc["traffic.load=0.1", "status"] == "failed"
    assert runs.loc["traffic.load=0.1", "error"] == "boom: injected failure"
    assert not (tmp_path / "o" / "points" / "traffic.load=0.1").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_is_a_clear_error_within_seconds(tmp_path):
    scen = scenario(tmp_path, '"traffic.load" = [0.05, 0.1]\n')
    addr = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    proc = lnsim_cmd("sweep", scen, "--out", tmp_path / "o", "--dask", addr)
    took = time.monotonic() - t0
    assert proc.returncode == 2, proc.stderr
    assert f"cannot reach the Dask scheduler at {addr}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert took < 30, took  # generous for a loaded CI machine; the connection is refused at once
    assert not (tmp_path / "o").exists()  # nothing was started
    proc = lnsim_cmd("sweep", scen, "--out", tmp_path / "o", "--dask", "nonsense")
    assert proc.returncode == 2 and "--dask nonsense" in proc.stderr


# ---------------------------------------------------------------------------------------------
# --grid and bad input


def test_grid_without_a_sweep_table_and_bad_grids(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text(SMALL_DRAGONFLY, encoding="utf-8")
    pts = lnsim.sweep_points(plain, grid=["traffic.load=0.1,0.2", 'routing.algorithm="min",vlb'])
    assert [p["point"] for p in pts] == [
        "traffic.load=0.1__routing.algorithm=min",
        "traffic.load=0.1__routing.algorithm=vlb",
        "traffic.load=0.2__routing.algorithm=min",
        "traffic.load=0.2__routing.algorithm=vlb",
    ]
    # a --grid key the [sweep] table also has replaces its list; others are a product
    scen = scenario(tmp_path, '"traffic.load" = [0.1, 0.2, 0.3]\n')
    pts = lnsim.sweep_points(scen, grid={"traffic.load": [0.5], "sim.seed": [1, 2]})
    assert [p["values"] for p in pts] == [{"traffic.load": 0.5, "sim.seed": 1}, {"traffic.load": 0.5, "sim.seed": 2}]
    # values with commas inside quotes or brackets stay whole
    pts = lnsim.sweep_points(plain, grid=['scenario.name="a,b",c'])
    assert [p["values"]["scenario.name"] for p in pts] == ["a,b", "c"]
    for bad, msg in [
        (["traffic.load"], "expected KEY=V1,V2"),
        (["traffic.load=0.1,0.1"], "listed twice"),
        (["=1,2"], "is not a key path"),
        (["traffic.load=0.1,"], "non-empty list"),
    ]:
        with pytest.raises(lnsim.ScenarioError, match=msg):
            lnsim.sweep_points(plain, grid=bad)


def test_a_key_swept_twice_is_refused(tmp_path):
    # quoted and dotted spellings of one key path (the second list used to replace the first)
    for table in ('"traffic.load" = [0.1]\ntraffic.load = [0.2, 0.3]\n',
                  '"traffic.load" = [0.1]\n[sweep.traffic]\nload = [0.2]\n'):
        scen = scenario(tmp_path, table)
        with pytest.raises(lnsim.ScenarioError, match=r"key `sweep.\"traffic.load\"`: swept twice"):
            lnsim.sweep_points(scen)
    proc = lnsim_cmd("sweep", scen, "--out", tmp_path / "o")
    assert proc.returncode == 2 and "swept twice" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_unknown_grid_key_fails_before_running(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text(SMALL_DRAGONFLY, encoding="utf-8")
    proc = lnsim_cmd("sweep", plain, "--grid", "traffic.lod=0.1,0.2", "--out", tmp_path / "o")
    assert proc.returncode == 2
    assert "traffic.lod" in proc.stderr
    assert not (tmp_path / "o").exists()
    proc = lnsim_cmd("sweep", plain, "--out", tmp_path / "o")
    assert proc.returncode == 2 and "no [sweep] table" in proc.stderr and "--grid" in proc.stderr


# ---------------------------------------------------------------------------------------------
# Python API


def test_python_api_scenario_sweep_and_readers(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text(SMALL_DRAGONFLY, encoding="utf-8")
    s = lnsim.load_scenario(plain).set({"sim.measure_cycles": 800}, traffic__pattern="uniform")
    assert s.overrides == ["sim.measure_cycles=800", "traffic.pattern=uniform"]
    one = s.set({"traffic.load": 0.2}).run(out=tmp_path / "one")
    assert one.is_cycle and one.summary["offered_load"] == pytest.approx(0.2)
    df = s.sweep(grid={"traffic.load": [0.1, 0.2], "routing.algorithm": ["min", "vlb"]}, seeds=2, out=tmp_path / "sw",
                 jobs=2)
    assert list(df.columns[:6]) == ["traffic.load", "routing.algorithm", *lnsim.SWEEP_COLUMNS]
    assert df.attrs["keys"] == ["traffic.load", "routing.algorithm"]
    assert len(df) == 8 and list(df["seed"]) == [3, 4] * 4
    for col in ("accepted_load", "latency_cycles.mean", "nonminimal_fraction", "fairness.jain_routers"):
        assert col in df.columns, col
    back = lnsim.read_sweep(tmp_path / "sw")
    pd.testing.assert_frame_equal(back, pd.read_csv(tmp_path / "sw" / "sweep.csv"))
    assert back.attrs["keys"] == ["traffic.load", "routing.algorithm"]
    r = lnsim.load_point(tmp_path / "sw", df["point"].iloc[0], seed=4)
    assert r.summary["seed"] == 4 and r.routers is not None
    # the same point through run() gives the same figures as through the sweep
    again = s.set({"traffic.load": 0.1, "routing.algorithm": "min"}).run(seed=4, out=tmp_path / "again")
    assert again.summary["accepted_load"] == df["accepted_load"].iloc[1]
    with pytest.raises(lnsim.ScenarioError, match="no such scenario file"):
        lnsim.load_scenario(tmp_path / "missing.toml")


def test_plot_functions_draw_into_a_given_axes(local_sweep):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lnsim import plot

    _, out = local_sweep
    fig, (a, b, c) = plt.subplots(1, 3)
    assert plot.plot_load_latency(out, ax=a) is a
    assert plot.plot_load_throughput(out, ax=b) is b
    r = lnsim.load_point(out, lnsim.read_sweep(out)["point"].iloc[0])
    assert plot.plot_router_load(r, ax=c) is c
    assert len(a.lines) >= 2 and len(b.lines) >= 2 and len(c.patches) > 0
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# examples/


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_load_sweep_api_example_runs(tmp_path):
    out = tmp_path / "ex"
    proc = subprocess.run(
        [sys.executable, EXAMPLES / "load_sweep_api.py", "--quick", "--out", out],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "32 runs in the store, 32 ok" in proc.stdout
    assert (out / "example.png").stat().st_size > 10_000


def test_dask_jobqueue_example_is_valid_python():
    import py_compile

    py_compile.compile(str(EXAMPLES / "dask_jobqueue_cluster.py"), doraise=True)
    proc = subprocess.run([sys.executable, EXAMPLES / "dask_jobqueue_cluster.py", "--help"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 0 and "--system" in proc.stdout and "--resume" in proc.stdout
