"""Saturation in the cycle-level model: the set-up time in the summary and its bench case;
saturation decided in short runs (queue growth, accepted against generated), a warning when the
measured window cannot decide, and quick load sweeps that leave saturated points out of the
latency figure.

The networks are h = 2 Dragonflies (72 nodes): MIN under ADV+1 saturates at 1/(a·p) = 0.125.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from conftest import dragonfly_toml, lnsim_cmd


def adv1(tmp: Path, load: float, warmup: int = 2000, measure: int = 2000, sweep: str = "") -> Path:
    """MIN under ADV+1 at ``load`` on h = 2 (bound 0.125), ``warmup`` + ``measure`` cycles."""
    text = dragonfly_toml(warmup, measure).replace('pattern = "uniform"', 'pattern = "adv"\nshift = 1')
    text = text.replace("load = 0.1", f"load = {load}") + sweep
    path = tmp / f"adv1_{load}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run(tmp: Path, scenario: Path, name: str) -> tuple:
    out = tmp / name
    p = lnsim_cmd("run", scenario, "--out", out, "--no-plot")
    assert p.returncode == 0, p.stderr
    return p, json.loads((out / "summary.json").read_text())


def test_short_saturated_run_is_flagged(tmp_path):
    """The issue's case on the smallest network: MIN, ADV+1, offered 0.5, 2,000 measured cycles
    (the injection queues absorb what the network does not accept)."""
    p, s = run(tmp_path, adv1(tmp_path, 0.5), "sat")
    assert s["accepted_load"] < 0.14
    assert s["saturated"] is True and s["stopped_early"] is False
    assert s["saturation_undecided"] is False and s["warnings"] == []
    assert "SATURATED" in p.stdout and "warning" not in p.stderr


def test_unsaturated_run_is_not_flagged(tmp_path):
    """UN at 0.1 with a window long enough to decide: neither saturated nor undecided."""
    path = tmp_path / "un.toml"
    path.write_text(dragonfly_toml(2000, 4000), encoding="utf-8")
    p, s = run(tmp_path, path, "un")
    assert s["saturated"] is False and s["saturation_undecided"] is False and s["warnings"] == []
    assert "SATURATED" not in p.stdout and "undecided" not in p.stdout + p.stderr
    assert s["setup_time_s"] >= 0.0


def test_too_short_window_warns(tmp_path):
    """UN at 0.1 over 500 cycles: 5 packets per node cannot show a 10 % deficit; the summary
    says so, `lnsim run` prints it on stderr, and a sweep counts such points."""
    path = tmp_path / "short.toml"
    path.write_text(dragonfly_toml(2000, 500), encoding="utf-8")
    p, s = run(tmp_path, path, "short")
    assert s["saturated"] is False and s["saturation_undecided"] is True
    assert any("sim.measure_cycles" in w for w in s["warnings"]), s["warnings"]
    assert "lnsim: warning: saturation undecided" in p.stderr
    assert "saturation undecided" in p.stdout


def test_quick_sweep_leaves_saturated_points_out_of_the_latency_figure(tmp_path):
    """A quick load sweep (2,000 + 2,000 cycles): the points past the bound are saturated, so
    the load-latency figure leaves them out instead of drawing a finite latency."""
    from lnsim.plot import ACCEPTED_METRIC, LATENCY_METRIC, load_curves

    scen = adv1(tmp_path, 0.1, sweep='\n[sweep]\n"traffic.load" = [0.05, 0.1, 0.3, 0.5]\n')
    out = tmp_path / "sweep"
    p = lnsim_cmd("sweep", scen, "--out", out, "--jobs", "1", "--no-progress")
    assert p.returncode == 0, p.stderr
    df = pd.read_csv(out / "sweep.csv")
    sat = dict(zip(df["traffic.load"], df["saturated"].astype(str).str.lower() == "true"))
    assert sat == {0.05: False, 0.1: False, 0.3: True, 0.5: True}, df[["traffic.load", "accepted_load", "saturated"]]
    assert "saturation_undecided" in df.columns
    kept = load_curves(out, LATENCY_METRIC, drop_saturated=True)
    assert sorted(kept["load"]) == [0.05, 0.1]
    assert len(load_curves(out, ACCEPTED_METRIC)) == 4
    assert (out / "load_latency.png").is_file()
