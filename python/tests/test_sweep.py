"""`lnsim sweep`: points of the [sweep] table, sweep.csv / sweep.json, errors, sweep.png."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import SHORT, ZERU_A, lnsim_cmd

KEYS = ["hca.max_tx_rate", "sim.seed"]
POINT_IDS = [
    "hca.max_tx_rate=4Gbps__sim.seed=1",
    "hca.max_tx_rate=4Gbps__sim.seed=2",
    "hca.max_tx_rate=8Gbps__sim.seed=1",
    "hca.max_tx_rate=8Gbps__sim.seed=2",
]
#: Columns the documentation promises (besides the swept keys).
DOCUMENTED = [
    "point",
    "status",
    "error",
    "throughput.total_rx_gbps",
    "throughput.total_tx_gbps",
    "throughput.total_rx_gbytes_per_s",
    "throughput.rx_gbps_after_warmup",
    "latency_ns.mean",
    "latency_ns.p99",
    "fairness.jain",
    "events",
    "wall_time_s",
    "seed",
]
MACHINE_DEPENDENT = ["wall_time_s", "peak_rss_bytes"]


def with_sweep(tmp: Path, table: str, name: str = "sw.toml") -> Path:
    """A copy of zeru_a with a [sweep] table appended."""
    path = tmp / name
    path.write_text(ZERU_A.read_text(encoding="utf-8") + "\n[sweep]\n" + table, encoding="utf-8")
    return path


SWEEP_2X2 = '"hca.max_tx_rate" = ["4Gbps", "8Gbps"]\n"sim.seed" = [1, 2]\n'


@pytest.fixture(scope="session")
def sweep_run(tmp_path_factory):
    """One real 4-point sweep through the command line, shared by the tests."""
    tmp = tmp_path_factory.mktemp("sweep")
    scen = with_sweep(tmp, SWEEP_2X2)
    out = tmp / "out"
    proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out, "--jobs", "2")
    assert proc.returncode == 0, f"lnsim sweep failed ({proc.returncode}):\n{proc.stderr}"
    return scen, out, proc


def test_sweep_points_order_and_overrides(tmp_path):
    import lnsim

    scen = with_sweep(tmp_path, SWEEP_2X2)
    pts = lnsim.sweep_points(scen)
    assert [p["point"] for p in pts] == POINT_IDS  # Cartesian product, last key fastest
    assert pts[1]["values"] == {"hca.max_tx_rate": "4Gbps", "sim.seed": 2}
    assert pts[1]["overrides"] == ['hca.max_tx_rate="4Gbps"', "sim.seed=2"]
    assert pts[1]["dir"] == "points/" + POINT_IDS[1]


def test_point_ids_and_literals():
    from lnsim._sweep import point_id, toml_literal

    assert toml_literal("250us") == '"250us"'
    assert toml_literal(10) == "10"
    assert toml_literal(True) == "true"
    assert toml_literal(0.5) == "0.5"
    assert toml_literal(["H1", "H2"]) == '["H1", "H2"]'
    assert point_id({"cc.ccti_timer": "250us", "cc.marking_rate": 10}) == "cc.ccti_timer=250us__cc.marking_rate=10"
    # array entries and unsafe characters give a name usable in a shell
    pid = point_id({"traffic.generators[0].sources": ["H1", "H 2/x"]})
    assert pid == "traffic.generators.0.sources=H1,H_2_x"
    assert len(point_id({"k": "x" * 500})) <= 160


def test_sweep_csv_rows_and_columns(sweep_run):
    _, out, proc = sweep_run
    df = pd.read_csv(out / "sweep.csv")
    assert list(df.columns[:5]) == [*KEYS, "point", "status", "error"]
    for col in DOCUMENTED:
        assert col in df.columns, col
    # lists and per-node / per-flow objects are left out
    assert not [c for c in df.columns if c.startswith(("nodes", "flows.", "fairness.per_destination"))]
    assert "flows" not in df.columns and "fairness.flows" not in df.columns
    assert list(df["point"]) == POINT_IDS
    assert list(df["hca.max_tx_rate"]) == ["4Gbps", "4Gbps", "8Gbps", "8Gbps"]  # raw values
    assert list(df["sim.seed"]) == [1, 2, 1, 2]
    assert list(df["seed"]) == [1, 2, 1, 2]  # each point ran with its own seed
    assert (df["status"] == "ok").all() and df["error"].isna().all()

    tx = df.set_index("point")["throughput.total_tx_gbps"]
    assert tx[POINT_IDS[0]] == pytest.approx(4.0, rel=0.02)
    assert tx[POINT_IDS[2]] == pytest.approx(8.0, rel=0.02)
    assert tx[POINT_IDS[0]] == tx[POINT_IDS[1]]  # the seed does not change this deterministic flow

    for pid in POINT_IDS:
        assert (out / "points" / pid / "summary.json").is_file()
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["keys"] == KEYS
    assert meta["values"] == {"hca.max_tx_rate": ["4Gbps", "8Gbps"], "sim.seed": [1, 2]}
    assert meta["scenario"].endswith("sw.toml")
    assert [p["dir"] for p in meta["points"]] == [f"points/{p}" for p in POINT_IDS]
    assert (out / "sweep.png").is_file()  # drawn at the end of the sweep
    assert "4 points, 4 ok, 0 failed" in proc.stdout
    assert proc.stderr.count("ok (") == 4  # one line per point when stderr is not a terminal


def test_sweep_is_deterministic(sweep_run, tmp_path):
    import lnsim

    scen, out, _ = sweep_run
    df = lnsim.sweep(scen, overrides=SHORT[1::2], out=tmp_path / "again", jobs=1)  # in-process path
    first = pd.read_csv(out / "sweep.csv").drop(columns=MACHINE_DEPENDENT)
    again = pd.read_csv(tmp_path / "again" / "sweep.csv").drop(columns=MACHINE_DEPENDENT)
    pd.testing.assert_frame_equal(first, again)
    assert list(df.columns) == list(pd.read_csv(out / "sweep.csv").columns)
    assert df.attrs["out_dir"] == str(tmp_path / "again")


def test_api_columns(sweep_run, tmp_path):
    import lnsim

    scen, _, _ = sweep_run
    df = lnsim.sweep(scen, overrides=["sim.end_time=0.02s", "sim.warmup=0.01s"], out=tmp_path / "api", jobs=2)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns[:5]) == [*KEYS, "point", "status", "error"]
    for col in DOCUMENTED:
        assert col in df.columns, col
    assert len(df) == 4 and (df["status"] == "ok").all()
    assert df["throughput.total_rx_gbytes_per_s"].iloc[2] > df["throughput.total_rx_gbytes_per_s"].iloc[0]


def test_unknown_swept_key_fails_before_running(tmp_path):
    scen = with_sweep(tmp_path, '"switch.buffer_credits" = [100, 1000]\n"cc.bogus_key" = [1, 2]\n')
    out = tmp_path / "out"
    proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert "cc.bogus_key" in proc.stderr
    assert not out.exists()  # nothing ran, no point folders


def test_bad_swept_value_fails_before_running(tmp_path):
    scen = with_sweep(tmp_path, '"switch.buffer_credits" = [100, -5]\n')
    out = tmp_path / "out"
    proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out)
    assert proc.returncode == 2
    assert "switch.buffer_credits" in proc.stderr and "-5" in proc.stderr
    assert not out.exists()


def test_scenario_without_sweep_table(tmp_path):
    proc = lnsim_cmd("sweep", ZERU_A, *SHORT, "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert "no [sweep] table" in proc.stderr
    assert not (tmp_path / "out").exists()
    import lnsim

    with pytest.raises(lnsim.ScenarioError, match=r"no \[sweep\] table"):
        lnsim.sweep_points(ZERU_A)


def test_set_of_a_swept_key_is_an_error(tmp_path):
    scen = with_sweep(tmp_path, SWEEP_2X2)
    proc = lnsim_cmd("sweep", scen, *SHORT, "--set", "sim.seed=3", "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert "sim.seed" in proc.stderr


def test_failed_point_is_reported(tmp_path, monkeypatch, capsys):
    """A point that fails at run time: its row says so, the others are written, exit 1."""
    import lnsim
    from lnsim import cli

    real_run = lnsim.run

    def flaky_run(scenario, overrides=None, **kw):
        if 'hca.max_tx_rate="8Gbps"' in overrides and "sim.seed=2" in overrides:
            raise lnsim.SimulationError("boom: injected failure")
        return real_run(scenario, overrides=overrides, **kw)

    monkeypatch.setattr(lnsim._run, "run", flaky_run)
    scen = with_sweep(tmp_path, SWEEP_2X2)
    out = tmp_path / "out"
    status = cli.main(["sweep", str(scen), *SHORT, "--out", str(out), "--jobs", "1", "--no-plot"])
    err = capsys.readouterr().err
    assert status == 1
    assert "boom: injected failure" in err and POINT_IDS[3] in err
    df = pd.read_csv(out / "sweep.csv")
    assert list(df["status"]) == ["ok", "ok", "ok", "failed"]
    assert df["error"].iloc[3] == "boom: injected failure"
    assert df["throughput.total_rx_gbps"].iloc[:3].notna().all() and pd.isna(df["throughput.total_rx_gbps"].iloc[3])
    assert not (out / "points" / POINT_IDS[3]).exists()


def test_plot_sweep_folder(sweep_run, tmp_path):
    _, out, _ = sweep_run
    target = tmp_path / "png"
    proc = lnsim_cmd("plot", out, "--out", target)
    assert proc.returncode == 0, proc.stderr
    png = target / "sweep.png"
    assert png.is_file() and png.stat().st_size > 10_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    proc = lnsim_cmd("plot", out, "--out", target, "--metric", "latency_ns.mean")
    assert proc.returncode == 0, proc.stderr
    proc = lnsim_cmd("plot", out, "--out", target, "--metric", "no.such.field")
    assert proc.returncode == 2
    assert "no.such.field" in proc.stderr


def test_plot_sweep_heatmap_axes(sweep_run):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_sweep

    _, out, _ = sweep_run
    fig, ax = plt.subplots()
    try:
        assert plot_sweep(out, ax=ax) is ax
        assert ax.get_ylabel() == "hca.max_tx_rate" and ax.get_xlabel() == "sim.seed"
        assert [t.get_text() for t in ax.get_yticklabels()] == ["4Gbps", "8Gbps"]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
        cells = sorted(t.get_text() for t in ax.texts)
        assert cells == ["0.50", "0.50", "1.00", "1.00"]  # GB/s, 2 decimals
    finally:
        plt.close(fig)


def test_plot_sweep_one_key_line():
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_sweep

    df = pd.DataFrame(
        {
            "cc.ccti_timer": ["20us", "250us", "500us"],
            "point": ["a", "b", "c"],
            "status": ["ok", "ok", "failed"],
            "error": [None, None, "x"],
            "throughput.total_rx_gbytes_per_s": [0.5, 0.8, None],
        }
    )
    fig, ax = plt.subplots()
    try:
        plot_sweep(df, ax=ax)
        assert ax.get_xlabel() == "cc.ccti_timer"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["20us", "250us", "500us"]  # sweep order
        assert len(ax.lines) == 1
        with pytest.raises(ValueError, match="not a column"):
            plot_sweep(df, metric="nope", ax=ax)
    finally:
        plt.close(fig)


def test_sweep_help():
    proc = lnsim_cmd("sweep", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: lnsim sweep" in proc.stdout
    for opt in ("--set", "--out", "--jobs", "--seed"):
        assert opt in proc.stdout


def test_a_second_sweep_on_a_folder_in_use_is_refused(sweep_run, tmp_path):
    """Two sweeps writing one folder would discard or rewrite each other's runs: while one holds
    the folder (its lock), another `lnsim sweep` there exits 2 naming the folder and the holder,
    and changes nothing; once the lock is released the same command resumes."""
    import shutil
    import subprocess
    import sys

    from lnsim._outdir import LOCK_FILE, FolderLock

    scen, done, _ = sweep_run
    out = tmp_path / "out"
    shutil.copytree(done, out)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and p.name != LOCK_FILE}
    with FolderLock(out):
        proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out, "--resume", "--jobs", "1")
        assert proc.returncode == 2, proc.stderr
        assert "in use by another lnsim sweep" in proc.stderr and f"pid {__import__('os').getpid()}" in proc.stderr
        assert str(out) in proc.stderr
        after = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and p.name != LOCK_FILE}
        assert after == before  # nothing rewritten, nothing removed
    proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out, "--resume", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    # a holder that dies without releasing (killed, crashed) leaves the folder free: the
    # operating system drops its lock with the process
    code = f"from lnsim._outdir import FolderLock; FolderLock({str(out)!r}); import os; os._exit(0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    with FolderLock(out):
        pass
