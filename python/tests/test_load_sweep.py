"""Load sweeps of the cycle-level model: seeds per point, load/latency and throughput plots,
single-run cycle-level figures and the cycle-level bench rows.

Most tests use synthetic data: a fake ``lnsim.run`` (in-process sweeps, ``jobs=1``) writing a
cycle-level summary.json, or results folders written here with the documented columns. The
end-to-end test at the bottom runs the real core and is skipped while the compiled core does
not support cycle-level scenarios yet.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lnsim
from lnsim._outdir import write_marker
from conftest import SHORT, ZERU_A, dragonfly_toml, lnsim_cmd

#: A tiny cycle-level scenario (what the end-to-end test runs; the fake runs only read it).
TINY_DRAGONFLY = dragonfly_toml()

LOADS = [0.1, 0.2, 0.3]
ROUTINGS = ["min", "vlb"]
#: Saturation load of each routing in the fake model (vlb saturates at 0.3, min never here).
CAPACITY = {"min": 0.35, "vlb": 0.25}


def scenario_with_sweep(tmp: Path, table: str, seed_line: str = "seed = 7\n", name: str = "df.toml") -> Path:
    """TINY_DRAGONFLY with ``seed_line`` in [sim] and a [sweep] table appended."""
    text = TINY_DRAGONFLY.replace("[sim]\n", "[sim]\n" + seed_line, 1) + "\n[sweep]\n" + table
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


LOAD_TABLE = f'"traffic.load" = {LOADS}\n"routing.algorithm" = ["min", "vlb"]\n'


def _value(overrides, key, default):
    for o in overrides:
        k, _, v = o.partition("=")
        if k.strip() == key:
            return json.loads(v) if v.startswith('"') else float(v)
    return default


def fake_cycle_summary(load: float, routing: str, seed: int) -> dict:
    """A plausible cycle-level summary.json: accepted load follows the offered load up to the
    routing's capacity, latency grows towards it, a run past it is saturated."""
    cap = CAPACITY[routing]
    saturated = load >= cap
    noise = 1.0 + 0.01 * (seed % 5)
    accepted = min(load, cap) * (0.98 if saturated else 1.0)
    latency = (200.0 / max(1.0 - load / cap, 0.05)) * noise
    return {
        "scenario": "df",
        "model": "cycle",
        "version": "0.1.0",
        "seed": seed,
        "wall_time_s": 0.01,
        "peak_rss_bytes": 10 * 2**20,
        "topology": "dragonfly p=2 a=4 h=2 palmtree",
        "routing": routing,
        "vlb_policy": None if routing == "min" else "lgl",
        "pattern": "uniform",
        "offered_load": load,
        "accepted_load": accepted,
        "injected_load": accepted,
        "latency_cycles": {"mean": latency, "p50": latency * 0.9, "p99": latency * 3, "max": latency * 5},
        "network_latency_cycles": {"mean": latency * 0.8, "p50": latency * 0.7, "p99": latency * 2},
        "nonminimal_fraction": 0.0 if routing == "min" else 1.0,
        "avg_hops": 2.5,
        "saturated": saturated,
        "stopped_early": saturated,
        "warmup_cycles": 200,
        "measured_cycles": 500,
        "fairness": {"jain_routers": 0.99, "min_router_load": accepted * 0.9, "max_router_load": accepted * 1.1},
        "packets": {"generated": 1000, "injected": 990, "delivered": 980, "in_network": 10},
        "phit_hops": 123456,
        "phit_hops_per_s": 1.2e7,
        "events": 5000,
    }


@pytest.fixture
def fake_core(monkeypatch):
    """Replaces ``run`` / ``validate`` of :mod:`lnsim._run` (what the sweep and its executors
    call) with a fake cycle-level model (in-process sweeps only, ``jobs=1``). Returns the list
    of calls ``(overrides, seed, out)``."""
    calls = []

    def run(scenario, overrides=None, seed=None, out=None, progress=False, max_memory=None):
        overrides = list(overrides or [])
        used = 7 if seed is None else seed  # the scenarios of these tests have sim.seed = 7
        s = fake_cycle_summary(_value(overrides, "traffic.load", 0.1), _value(overrides, "routing.algorithm", "min"), used)
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(s))
        write_marker(out, "results", complete=True)  # as the core marks its results folders
        calls.append((overrides, seed, out))
        return lnsim.RunResult(out, s)

    monkeypatch.setattr(lnsim._run, "run", run)
    monkeypatch.setattr(lnsim._run, "validate", lambda scenario, overrides=None, max_memory=None: "ok\n")
    return calls


def load_sweep_dir(tmp: Path, seeds: int = 3) -> Path:
    """A fake load sweep (3 loads x 2 routings x ``seeds`` seeds) written by the real sweep code."""
    scen = scenario_with_sweep(tmp, LOAD_TABLE)
    out = tmp / "sweep"
    lnsim.sweep(scen, out=out, jobs=1, seeds=seeds)
    return out


# ---------------------------------------------------------------------------------------------
# seeds per point


def test_seeds_give_one_row_per_point_and_seed(tmp_path, fake_core):
    scen = scenario_with_sweep(tmp_path, LOAD_TABLE)
    out = tmp_path / "out"
    df = lnsim.sweep(scen, out=out, jobs=1, seeds=3)
    keys = ["traffic.load", "routing.algorithm"]
    assert list(df.columns[:6]) == [*keys, "point", "status", "error", "seed"]
    assert len(df) == 6 * 3 and (df["status"] == "ok").all()
    # rows by point, then seed; seeds = the scenario's sim.seed (7) + 0, 1, 2
    assert list(df["seed"]) == [7, 8, 9] * 6
    assert list(df["point"]) == [p for p in df["point"].drop_duplicates() for _ in range(3)]
    assert sorted(c[1] for c in fake_core) == sorted([7, 8, 9] * 6)  # the seed given to each run
    pts = lnsim.sweep_points(scen)
    for p in pts:
        for s in (7, 8, 9):
            assert (out / p["dir"] / f"seed-{s}" / "summary.json").is_file()
        assert not (out / p["dir"] / "summary.json").exists()
    # cycle-level fields are flattened with dots, the load figures first
    for col in ("offered_load", "accepted_load", "latency_cycles.mean", "fairness.jain_routers", "packets.delivered"):
        assert col in df.columns, col
    fields = list(df.columns[6:])
    assert fields.index("offered_load") < fields.index("scenario")
    assert pd.read_csv(out / "sweep.csv")["seed"].tolist() == [7, 8, 9] * 6
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["seeds"] == 3 and meta["base_seed"] == 7 and meta["runs"] == 18 and meta["failed"] == 0
    first = meta["points"][0]
    assert first["dir"] == pts[0]["dir"] and first["status"] == "ok"
    assert [r["seed"] for r in first["runs"]] == [7, 8, 9]
    assert first["runs"][1]["dir"] == f"{pts[0]['dir']}/seed-8"


def test_seed_option_is_the_base_seed(tmp_path, fake_core):
    scen = scenario_with_sweep(tmp_path, '"traffic.load" = [0.1]\n')
    df = lnsim.sweep(scen, out=tmp_path / "out", jobs=1, seeds=2, seed=100)
    assert list(df["seed"]) == [100, 101]
    assert (tmp_path / "out" / "points" / "traffic.load=0.1" / "seed-101").is_dir()
    # a `--set sim.seed=...` override is the base too
    df = lnsim.sweep(scen, overrides=["sim.seed=40"], out=tmp_path / "o2", jobs=1, seeds=2)
    assert list(df["seed"]) == [40, 41]
    # no sim.seed anywhere: the core's default, 1
    scen = scenario_with_sweep(tmp_path, '"traffic.load" = [0.1]\n', seed_line="", name="noseed.toml")
    df = lnsim.sweep(scen, out=tmp_path / "o3", jobs=1, seeds=2)
    assert list(df["seed"]) == [1, 2]


def test_one_seed_keeps_the_layout(tmp_path, fake_core):
    scen = scenario_with_sweep(tmp_path, LOAD_TABLE)
    out = tmp_path / "out"
    df = lnsim.sweep(scen, out=out, jobs=1)
    assert len(df) == 6 and list(df["seed"]) == [7] * 6
    assert all(c[1] is None for c in fake_core)  # the scenario's own seed, as before
    for p in lnsim.sweep_points(scen):
        assert (out / p["dir"] / "summary.json").is_file()
    assert json.loads((out / "sweep.json").read_text())["seeds"] == 1


def test_rerun_with_other_seed_count_clears_old_runs(tmp_path, fake_core):
    scen = scenario_with_sweep(tmp_path, '"traffic.load" = [0.1, 0.2]\n')
    out = tmp_path / "out"
    lnsim.sweep(scen, out=out, jobs=1, seeds=2)
    lnsim.sweep(scen, out=out, jobs=1)
    assert not list((out / "points").glob("*/seed-*"))
    lnsim.sweep(scen, out=out, jobs=1, seeds=2)
    assert not list((out / "points").glob("*/summary.json"))
    assert len(list((out / "points").glob("*/seed-*/summary.json"))) == 4


def test_bad_seeds_requests(tmp_path, fake_core):
    scen = scenario_with_sweep(tmp_path, '"traffic.load" = [0.1]\n')
    with pytest.raises(lnsim.ScenarioError, match="--seeds 0"):
        lnsim.sweep(scen, out=tmp_path / "o", jobs=1, seeds=0)
    swept_seed = scenario_with_sweep(tmp_path, '"sim.seed" = [1, 2]\n', name="ss.toml")
    with pytest.raises(lnsim.ScenarioError, match="sim.seed"):
        lnsim.sweep(swept_seed, out=tmp_path / "o", jobs=1, seeds=2)
    assert not fake_core  # nothing ran


def test_failed_seed_is_its_own_row(tmp_path, fake_core, monkeypatch):
    ok_run = lnsim._run.run  # the fake of `fake_core`

    def flaky(scenario, overrides=None, seed=None, out=None, progress=False, max_memory=None):
        if seed == 8:
            raise lnsim.SimulationError("boom")
        return ok_run(scenario, overrides=overrides, seed=seed, out=out)

    monkeypatch.setattr(lnsim._run, "run", flaky)
    scen = scenario_with_sweep(tmp_path, '"traffic.load" = [0.1, 0.2]\n')
    with pytest.warns(RuntimeWarning, match="2 of 4 sweep runs failed"):
        df = lnsim.sweep(scen, out=tmp_path / "out", jobs=1, seeds=2)
    assert list(df["status"]) == ["ok", "failed", "ok", "failed"]
    assert list(df["seed"]) == [7, 8, 7, 8]  # a failed run still says which seed it was
    meta = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert [p["status"] for p in meta["points"]] == ["failed", "failed"]


def test_cli_seeds_on_the_credit_level_model(tmp_path):
    """`lnsim sweep --seeds 2 --jobs 2` with the real core (credit-level model, zeru_a)."""
    scen = tmp_path / "sw.toml"
    scen.write_text(ZERU_A.read_text(encoding="utf-8") + '\n[sweep]\n"hca.max_tx_rate" = ["4Gbps", "8Gbps"]\n')
    out = tmp_path / "out"
    proc = lnsim_cmd("sweep", scen, *SHORT, "--out", out, "--jobs", "2", "--seeds", "2", "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    df = pd.read_csv(out / "sweep.csv")
    assert list(df["seed"]) == [5, 6, 5, 6]
    assert (df["status"] == "ok").all()
    for pid in ("hca.max_tx_rate=4Gbps", "hca.max_tx_rate=8Gbps"):
        for s in (5, 6):
            assert (out / "points" / pid / f"seed-{s}" / "summary.json").is_file()
    assert "4 runs (2 points x 2 seeds), 4 ok, 0 failed" in proc.stdout
    assert proc.stderr.count("ok (") == 4  # one progress line per run
    assert (out / "sweep.png").is_file()  # not a load sweep: the usual figure


def test_sweep_help_mentions_seeds():
    proc = lnsim_cmd("sweep", "--help")
    assert proc.returncode == 0 and "--seeds" in proc.stdout


# ---------------------------------------------------------------------------------------------
# load sweep figures


def _curve_lines(ax):
    """The data lines of a load plot (mean curves), by label."""
    return {l.get_gid()[len("curve:"):]: l for l in ax.lines if (l.get_gid() or "").startswith("curve:")}


def test_load_sweep_detection(tmp_path, fake_core):
    from lnsim.plot import is_load_sweep, load_key

    out = load_sweep_dir(tmp_path)
    df = lnsim._sweep.load_sweep(out)
    assert load_key(df, df.attrs["keys"]) == "traffic.load" and is_load_sweep(out)
    # a sweep without offered_load (the credit-level model) is not one
    assert load_key(df.drop(columns=["offered_load"]), df.attrs["keys"]) is None
    # a load key named otherwise is found by matching offered_load
    renamed = df.rename(columns={"traffic.load": "traffic.rate"})
    assert load_key(renamed, ["traffic.rate", "routing.algorithm"]) == "traffic.rate"


def test_load_curves_mean_and_spread(tmp_path, fake_core):
    from lnsim.plot import load_curves

    out = load_sweep_dir(tmp_path)
    c = load_curves(out, "latency_cycles.mean")
    assert list(c["line"].drop_duplicates()) == ROUTINGS
    assert list(c[c["line"] == "min"]["load"]) == LOADS and (c["runs"] == 3).all()
    row = c[(c["line"] == "min") & (c["load"] == 0.1)].iloc[0]
    lat = [fake_cycle_summary(0.1, "min", s)["latency_cycles"]["mean"] for s in (7, 8, 9)]
    assert row["mean"] == pytest.approx(np.mean(lat))
    assert (row["min"], row["max"]) == (pytest.approx(min(lat)), pytest.approx(max(lat)))
    dropped = load_curves(out, "latency_cycles.mean", drop_saturated=True)
    assert list(dropped[dropped["line"] == "vlb"]["load"]) == [0.1, 0.2]  # vlb saturates at 0.3


def test_plot_load_sweep_writes_both_figures(tmp_path, fake_core):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_load_latency, plot_load_throughput, plot_sweep_folder

    out = load_sweep_dir(tmp_path)
    paths = plot_sweep_folder(out)
    assert [p.name for p in paths] == ["load_latency.png", "throughput.png"]
    for p in paths:
        assert p.is_file() and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000
    assert not (out / "sweep.png").exists()

    fig, (a, b) = plt.subplots(1, 2)
    try:
        bounds = {"MIN bound 1/(ap)": 0.0139, "VLB bound": 0.25}
        assert plot_load_latency(out, ax=a, bounds=bounds) is a
        lines = _curve_lines(a)
        assert set(lines) == set(ROUTINGS)  # one line per routing
        assert list(lines["min"].get_xdata()) == LOADS
        assert list(lines["vlb"].get_xdata()) == [0.1, 0.2]  # the saturated point is left out
        assert "1 saturated point left out" in a.get_title()
        assert len(a.collections) == 2  # min–max spread over the 3 seeds, per line
        assert a.get_xlabel().startswith("offered load") and "latency" in a.get_ylabel()
        labels = [l.get_label() for l in a.lines]
        assert "MIN bound 1/(ap) = 0.0139" in labels and "VLB bound = 0.25" in labels

        assert plot_load_throughput(out, ax=b, bounds=bounds) is b
        lines = _curve_lines(b)
        assert set(lines) == set(ROUTINGS)
        assert list(lines["vlb"].get_xdata()) == LOADS  # saturated points stay on the throughput curve
        sat = lines["vlb"].get_ydata()[-1]
        assert sat == pytest.approx(np.mean([fake_cycle_summary(0.3, "vlb", s)["accepted_load"] for s in (7, 8, 9)]))
        cross = next(l for l in b.lines if l.get_label() == "saturated (every seed)")  # all 3 seeds saturated
        assert list(cross.get_xdata()) == [0.3] and cross.get_ydata()[0] == pytest.approx(sat)
        diag = next(l for l in b.lines if l.get_label() == "accepted = offered")
        assert list(diag.get_xdata()) == list(diag.get_ydata())
        bound = next(l for l in b.lines if l.get_label().startswith("MIN bound"))
        assert list(bound.get_ydata()) == [0.0139, 0.0139]  # horizontal
        assert b.get_legend().get_title().get_text() == "routing.algorithm"
    finally:
        plt.close(fig)


def test_load_sweep_with_one_seed_and_one_key(tmp_path, fake_core):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_load_latency

    scen = scenario_with_sweep(tmp_path, f'"traffic.load" = {LOADS}\n')
    out = tmp_path / "sweep"
    lnsim.sweep(scen, out=out, jobs=1)
    fig, ax = plt.subplots()
    try:
        plot_load_latency(out, ax=ax)
        assert list(_curve_lines(ax)) == ["min"]  # labelled with the summary's routing
        assert not ax.collections  # one seed: no spread
    finally:
        plt.close(fig)


def test_cli_plot_load_sweep(tmp_path, fake_core):
    out = load_sweep_dir(tmp_path, seeds=2)
    target = tmp_path / "png"
    proc = lnsim_cmd("plot", out, "--out", target, "--bound", "MIN 1/(ap)=0.0139")
    assert proc.returncode == 0, proc.stderr
    assert (target / "load_latency.png").is_file() and (target / "throughput.png").is_file()
    proc = lnsim_cmd("plot", out, "--out", target, "--metric", "nonminimal_fraction")
    assert proc.returncode == 0, proc.stderr
    assert (target / "sweep.png").is_file()
    proc = lnsim_cmd("plot", out, "--bound", "nonsense")
    assert proc.returncode == 2 and "--bound nonsense" in proc.stderr
    # a label given twice: one would silently replace the other
    proc = lnsim_cmd("plot", out, "--out", target, "--bound", "MIN=0.1", "--bound", "MIN=0.2")
    assert proc.returncode == 2 and "--bound MIN=0.2: the label `MIN` is given twice" in proc.stderr


def test_non_load_cycle_sweep_keeps_sweep_png(tmp_path, fake_core):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_sweep, plot_sweep_folder

    scen = scenario_with_sweep(tmp_path, '"routing.algorithm" = ["min", "vlb"]\n"routing.vlb_policy" = ["lgl", "-g-"]\n')
    out = tmp_path / "sweep"
    lnsim.sweep(scen, out=out, jobs=1, seeds=2)
    assert [p.name for p in plot_sweep_folder(out)] == ["sweep.png"]
    fig, ax = plt.subplots()
    try:
        plot_sweep(out, ax=ax)  # heatmap of accepted_load, the cycle-level default metric
        assert ax.get_ylabel() == "routing.algorithm" and ax.get_xlabel() == "routing.vlb_policy"
        assert len(ax.texts) == 4
    finally:
        plt.close(fig)


def test_format_sweep_with_seeds(tmp_path, fake_core):
    from lnsim.cli import format_sweep

    out = load_sweep_dir(tmp_path, seeds=2)
    df = pd.read_csv(out / "sweep.csv")
    text = format_sweep(df, out, 0)
    header = text.splitlines()[0].split()
    assert header[:3] == ["traffic.load", "routing.algorithm", "seed"]
    assert "accepted" in header and "saturated" in header
    assert "12 runs (6 points x 2 seeds), 12 ok, 0 failed" in text


# ---------------------------------------------------------------------------------------------
# one cycle-level run


def write_fake_cycle_results(d: Path, change_cycle=1500, groups=3, routers_per_group=4) -> Path:
    """A cycle-level results folder with the documented files and columns."""
    d.mkdir(parents=True, exist_ok=True)
    s = fake_cycle_summary(0.2, "vlb", 3)
    s.update(warmup_cycles=1000, measured_cycles=2000, change_cycle=change_cycle)
    (d / "summary.json").write_text(json.dumps(s))
    rows = ["router,group,injected_load,accepted_load"]
    for r in range(groups * routers_per_group):
        rows.append(f"{r},{r // routers_per_group},0.2,{0.15 + 0.01 * (r % 5):.3f}")
    (d / "routers.csv").write_text("\n".join(rows) + "\n")
    rows = ["start_cycle,end_cycle,generated,delivered,accepted_load,latency_mean,nonminimal_fraction"]
    for b in range(30):
        lat = "" if b == 0 else f"{300 + (200 if b * 100 >= change_cycle else 0) + b:.1f}"
        rows.append(f"{b * 100},{(b + 1) * 100},400,{0 if b == 0 else 390},0.195,{lat},{0.1 if b < 15 else 0.6}")
    (d / "bins.csv").write_text("\n".join(rows) + "\n")
    rows = ["lo_cycles,hi_cycles,count"] + [f"{lo},{lo + 50},{max(1, 100 - abs(lo - 400) // 5)}" for lo in range(100, 1500, 50)]
    (d / "latency_hist.csv").write_text("\n".join(rows) + "\n")
    return d


def test_run_result_of_a_cycle_folder(tmp_path, fake_results):
    r = lnsim.load_results(write_fake_cycle_results(tmp_path / "cyc"))
    assert r.model == "cycle" and r.is_cycle
    assert list(r.routers.columns) == ["router", "group", "injected_load", "accepted_load"]
    assert list(r.bins.columns[:2]) == ["start_cycle", "end_cycle"] and len(r.bins) == 30
    assert list(r.latency.columns) == ["lo_cycles", "hi_cycles", "count"]
    ib = lnsim.load_results(fake_results)
    assert ib.model == "credit" and not ib.is_cycle
    assert ib.routers is None and ib.bins is None


def test_plot_cycle_run(tmp_path):
    import matplotlib.pyplot as plt

    from lnsim.plot import latency_log_bins, plot_results, plot_router_load, plot_timeline

    d = write_fake_cycle_results(tmp_path / "cyc")
    paths = plot_results(d)
    assert sorted(p.name for p in paths) == ["latency_hist.png", "routers.png", "timeline.png"]
    for p in paths:
        assert p.is_file() and p.stat().st_size > 10_000
    assert not (d / "bandwidth.png").exists()  # no InfiniBand figures

    fig = plt.figure()
    try:
        axes = plot_timeline(d, fig=fig)
        assert len(axes) == 3 and axes[-1].get_xlabel() == "time (cycles)"
        for ax in axes:  # the transient change, at its cycle, on every panel
            change = [l for l in ax.lines if l.get_label().startswith("transient change")]
            assert len(change) == 1 and list(change[0].get_xdata()) == [1500, 1500]
            warm = [l for l in ax.lines if l.get_label() == "end of warm-up (cycle 1000)"]
            assert list(warm[0].get_xdata()) == [1000, 1000]
        step = axes[1].lines[0]
        assert step.get_xdata()[0] == 0 and step.get_xdata()[-1] == 3000
        assert np.isnan(step.get_ydata()[0])  # a bin without deliveries is a gap
    finally:
        plt.close(fig)

    fig, ax = plt.subplots()
    try:
        plot_router_load(d, ax=ax)
        assert len(ax.patches) == 12  # one bar per router
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2"]  # one tick per group
        assert "Jain" in ax.get_title()
    finally:
        plt.close(fig)
    edges, counts = latency_log_bins(lnsim.load_results(d).latency)
    assert counts.sum() == lnsim.load_results(d).latency["count"].sum()


def test_cli_plot_cycle_run(tmp_path):
    d = write_fake_cycle_results(tmp_path / "cyc")
    proc = lnsim_cmd("plot", d, "--out", tmp_path / "png")
    assert proc.returncode == 0, proc.stderr
    assert {Path(line).name for line in proc.stdout.split()} == {"timeline.png", "routers.png", "latency_hist.png"}


def test_format_cycle_summary(tmp_path):
    from lnsim.cli import format_summary

    s = fake_cycle_summary(0.3, "vlb", 4)
    text = format_summary(s, tmp_path)
    assert "cycle-level model" in text and "dragonfly p=2" in text and "routing vlb (lgl)" in text
    assert "200 warm-up + 500 measured cycles" in text
    assert "12.00 Mflit-hops/s" in text
    assert "offered 0.3000" in text and "SATURATED" in text
    assert "Jain (routers) 0.9900" in text
    assert "credit-hops" not in text and "Gbit/s" not in text


# ---------------------------------------------------------------------------------------------
# bench


def test_bench_cycle_cases():
    from lnsim import bench

    cases = {c.name: c for c in bench.CASES}
    mesh, df = cases["mesh_8x8"], cases["dragonfly_h6"]
    assert (mesh.scenario, mesh.model, mesh.target_wall_s) == ("bench/mesh_8x8.toml", "cycle", 0.5)
    assert (df.scenario, df.model, df.target_wall_s) == ("bench/dragonfly_h6.toml", "cycle", 60.0)
    assert bench.case_overrides(mesh) == []
    quick = bench.case_overrides(mesh, quick=True)
    assert quick == [f"sim.warmup_cycles={mesh.quick_warmup_cycles}", f"sim.measure_cycles={mesh.quick_measure_cycles}"]
    assert not [o for o in quick if o.startswith("sim.end_time")]
    assert bench.case_overrides(cases["c4"], quick=True)[-2:] == ["sim.end_time=0.01s", "sim.warmup=5ms"]


def test_bench_cycle_row_format():
    from lnsim import bench

    s = fake_cycle_summary(0.4, "min", 1)
    s.update(warmup_cycles=60000, measured_cycles=60000, wall_time_s=40.0, events=8_000_000, phit_hops_per_s=2.5e7)
    rec = {"case": "dragonfly_h6", "status": "ok", **bench.cycle_record(s, 60.0)}
    assert rec["cycles"] == 120000 and rec["cycles_per_s"] == 3000.0 and rec["within_target"] is True
    assert rec["flit_hops_per_s"] == 2.5e7 and rec["events_per_s"] == 2e5 and rec["peak_rss_mib"] == 10.0
    row = bench.format_row(rec)
    assert row.split() == ["dragonfly_h6", "120,000", "40.000", "n/a", "3000", "2.5e+07", "2e+05", "10.0", "<", "60", "s", "ok"]
    # the set-up time of the summary and its target (judged with --quick too: the set-up is the same)
    setup = bench.cycle_record(dict(s, setup_time_s=1.25), None, quick=True, target_setup_s=5.0)
    assert setup["setup_time_s"] == 1.25 and setup["within_target"] is True
    row = bench.format_row({"case": "mesh_64x64_setup", "status": "ok", **setup})
    assert row.split()[3] == "1.250" and row.endswith("set-up < 5 s ok")
    slow = bench.cycle_record(dict(s, setup_time_s=7.0), None, target_setup_s=5.0)
    assert slow["within_target"] is False
    slow = bench.format_row({"case": "mesh_8x8", "status": "ok", **bench.cycle_record(dict(s, wall_time_s=0.9), 0.5)})
    assert slow.endswith("< 0.5 s SLOW")
    quick = bench.format_row({"case": "mesh_8x8", "status": "ok", **bench.cycle_record(s, 0.5, quick=True)})
    assert quick.endswith("(not judged)")
    # no phit_hops_per_s in the summary: phit_hops over the wall time
    s.pop("phit_hops_per_s")
    assert bench.cycle_record(s)["flit_hops_per_s"] == pytest.approx(123456 / 40.0)
    assert "flit-hops/s" in bench.header("cycle") and "credit-hops/s" in bench.header("credit")
    assert "credit-hops/s" not in bench.CYCLE_HEADER


# ---------------------------------------------------------------------------------------------
# end to end (real core)


def test_end_to_end_load_sweep(tmp_path):
    scen = scenario_with_sweep(
        tmp_path, '"traffic.load" = [0.05, 0.1]\n"routing.algorithm" = ["min", "vlb"]\n', seed_line=""
    )
    out = tmp_path / "sweep"
    proc = lnsim_cmd("sweep", scen, "--out", out, "--seeds", "2", "--jobs", "4")
    assert proc.returncode == 0, proc.stderr
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 8 and (df["status"] == "ok").all()
    assert list(df["seed"]) == [1, 2] * 4
    assert (df["model"] == "cycle").all() and df["accepted_load"].notna().all()
    assert (out / "load_latency.png").is_file() and (out / "throughput.png").is_file()
    run = out / lnsim.sweep_points(scen)[0]["dir"] / "seed-2"
    r = lnsim.load_results(run)
    assert r.is_cycle and r.summary["seed"] == 2
    proc = lnsim_cmd("plot", run, "--out", tmp_path / "png")
    assert proc.returncode == 0, proc.stderr
