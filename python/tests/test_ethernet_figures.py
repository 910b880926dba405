"""scripts/ethernet_figures.py, the campaign of the thesis's Ch. 4 figures on lossless Ethernet
(spec §9.2 Fig 4-14 ... 4-26, §6.2 E8-E18). Its catalogue is complete and consistent (every Ch. 4
figure, every series and panel defined, a parameter at Table 4-3's value is the final
configuration's own sweep, the parameter sweeps' loads a subset of the full ones), the CNM-rate
grid is research note T4's, the Fig 4-26 sizes reuse the main sweeps where they hold the points,
and the readers of a run (response times, the port whose probability is drawn) read what the
simulator writes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "ethernet_figures.py"


def _module():
    spec = importlib.util.spec_from_file_location("ethernet_figures", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ethernet_figures"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_catalogue_covers_chapter_4_and_is_consistent(tmp_path):
    ef = _module()
    want = {"4-14", "4-15", "4-16", "4-17", "4-18", "4-19", "4-20", "4-21", "4-22", "4-23", "4-24", "4-25", "4-26"}
    assert set(ef.FIG) == want and sorted(ef.RUN_ORDER) == sorted(want)
    for f in ef.FIGURES:
        assert f.kind in ef.PLOTS, f.fig
        assert all(s in ef.SERIES for s in f.series), f.fig
        assert all(p in ef.PANELS for p in f.panels), f.fig
        assert all(c in ef.TRANSIENTS for c in f.transients), f.fig
    # the series differ in what they set (no two names for one configuration)
    configs = [tuple(sorted(kv.items())) for _, kv in ef.SERIES.values()]
    assert len(configs) == len(set(configs))
    # every parameter sweep holds the final configuration once, as "qcn" (Table 4-3's values)
    for fig in ("4-20", "4-22", "4-24", "4-25"):
        assert ef.FIG[fig].series.count("qcn") == 1, fig
    assert ef.param_series("lf", (1, 64)) == "qcn" and ef.param_series("th2", 30) == "qcn"
    assert ef.param_series("pi", 1.0) == "qcn" and ef.cnm_series(100, 30) == "qcn"
    assert ef.SERIES[ef.param_series("lf", (1, 85))][1]["routing.qcn_switch.lf"] == repr(1 / 85)
    # the parameter sweeps' loads lie on the full grid; the fairness load is on it
    for p in ef.PANELS:
        assert set(ef.SWEEP_LOADS[p]) <= set(ef.LOADS[p])
    assert ef.BAR_LOAD in ef.LOADS[ef.BAR_PANEL]
    # one folder per (panel, series): PB under UN is the same sweep in Figs 4-14, 4-15 and 4-17
    w = ef.WINDOWS
    folders = {f.fig: {j.folder for j in ef.figure_jobs(f, tmp_path, 6, w, 1)} for f in ef.FIGURES}
    pb_un = tmp_path / "h6-w500000-100000" / "un" / "pb"
    assert all(pb_un in folders[k] for k in ("4-14", "4-15", "4-17"))


def test_cnm_rate_grid_is_the_research_notes():
    """E14: 0.1 % to 3.2 % CNMs per forwarded packet, CPC 100 → 25, %CNMs 10 → 80 (research T4)."""
    ef = _module()
    rates = [ef.nominal_cnm_rate(c, p) for c, p in ef.CNM_GRID]
    assert rates == pytest.approx([0.1, 0.3, 0.8, 1.6, 3.2])
    assert rates == sorted(rates)
    for (c, p), s in zip(ef.CNM_GRID, ef.FIG["4-20"].series):
        kv = ef.SERIES[s][1]
        assert s == "qcn" or (kv["qcn.cpc_packets"], kv["qcn.cnm_percent"]) == (str(c), str(p))


def test_size_figure_reuses_the_main_sweeps_where_they_hold_its_points(tmp_path):
    ef = _module()
    w = ef.WINDOWS
    jobs = {(j.folder.parts[-3:]) for j in ef.figure_jobs(ef.FIG["4-26"], tmp_path, 6, w, 1)}
    h6 = "h6-w500000-100000"
    assert (h6, "un", "qcn") in jobs and (h6, "adv1", "min") in jobs  # the load figures' sweeps
    assert ("sizes", "un", "vlb_-gl") in jobs  # VLB -gl is in no load figure: its own two points
    h8 = [j for j in ef.figure_jobs(ef.FIG["4-26"], tmp_path, 6, w, 1) if "h8-" in str(j.folder)]
    assert len(h8) == 6 and all("sizes" in j.folder.parts for j in h8)
    assert all("topology.p=8" in j.args for j in h8)
    un = [j for j in h8 if j.folder.parts[-2] == "un"][0]
    assert "traffic.load=0.65,1.0" in un.args


def test_response_times_and_probability_port_readers():
    ef = _module()
    summary = {"transient_response": {"change_cycle": 2400000, "latency_cycles": 130000, "latency_us": 130.0,
                                      "nonminimal_cycles": None, "nonminimal_us": None}}
    assert ef.response_times(summary) == {"latency_us": 130.0, "nonminimal_us": None}
    assert ef.response_times({}) == {"latency_us": None, "nonminimal_us": None}
    # the port drawn is the one whose probability was cut most often, not the one changed most
    probs = pd.DataFrame({
        "cycle": [1, 2, 3, 4, 5, 6, 7, 8],
        "router": [0, 0, 3, 3, 3, 0, 0, 0],
        "port": [7, 7, 2, 2, 2, 7, 7, 7],
        "probability": [50, 51, 40, 20, 10, 52, 53, 54],
        "cause": ["notification", "packet_counter", "notification", "notification", "local", "notification",
                  "packet_counter", "packet_counter"],
    })
    assert ef.busiest_port(probs) == (3, 2)
    assert ef.busiest_port(probs[probs.router == 0]) == (0, 7)
