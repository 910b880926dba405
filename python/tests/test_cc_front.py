"""The front end with congestion control on: results loaders, the bandwidth + CCTI figure, the
run summary and the CC-on bench cases."""

from __future__ import annotations

import json
import struct

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import lnsim  # noqa: E402
from lnsim import bench, plot  # noqa: E402
from lnsim.cli import format_summary  # noqa: E402
from conftest import lnsim_cmd, write_fake_ccti, write_fake_results  # noqa: E402


def png_size(path):
    """(width, height) of a PNG file, from its IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


# ---------------------------------------------------------------------------------------------
# a real CC-on run


def test_cc_run_outputs(zeru_a_cc_run):
    out, _ = zeru_a_cc_run
    r = lnsim.load_results(out)
    assert list(r.ccti.columns) == lnsim.CCTI_COLUMNS
    assert list(r.cc_ports.columns) == lnsim.CC_PORTS_COLUMNS
    assert not r.cc_ports.empty
    cc = r.summary["cc"]
    assert cc["enabled"] is True
    assert {"fecn_marks", "cnps_sent", "cnps_received", "max_ccti", "throttled_s"} <= set(cc)
    assert all("throttled_s" in f for f in r.summary["flows"])
    assert "throttled_s" in r.flows.columns
    for v in r.summary["nodes"].values():
        assert "cnps_sent" in v and "cnps_received" in v
    # the CCTI table of the figure: every interval of the run, 0 where no flow is listed
    table = plot.flow_ccti(r)
    assert len(table.index) == r.nodes["t_start_s"].nunique()
    assert (table.to_numpy() >= 0).all()


def test_cc_off_run_has_no_cc_tables(zeru_a_run):
    out, proc = zeru_a_run
    r = lnsim.load_results(out)
    assert r.ccti is None and r.cc_ports is None
    assert r.summary["cc"] == {"enabled": False}
    assert "congestion ctl" not in proc.stdout and "CNPs" not in proc.stdout
    with pytest.raises(FileNotFoundError):
        plot.flow_ccti(r)


def test_cc_run_writes_two_panel_bandwidth(zeru_a_cc_run, tmp_path):
    out, _ = zeru_a_cc_run
    # `lnsim run` wrote the figures; the two-panel one is taller than the single panel
    assert (out / "ccti.csv").exists()
    w, h = png_size(out / "bandwidth.png")
    assert h > 0.7 * w
    # the same through `lnsim plot DIR --out`
    proc = lnsim_cmd("plot", out, "--out", tmp_path / "figs")
    assert proc.returncode == 0, proc.stderr
    assert png_size(tmp_path / "figs" / "bandwidth.png")[1] > 0.7 * png_size(tmp_path / "figs" / "bandwidth.png")[0]

    fig = plt.figure(figsize=(11, 9))
    top, bottom = plot.plot_bandwidth_ccti(out, fig=fig)
    panels = [a for a in fig.axes if a is not top.right_ax]  # the right axis is a twin of the top
    assert panels == [top, bottom]
    assert top.get_shared_x_axes().joined(top, bottom)
    assert "bandwidth" in top.get_title() and "CCTI" in bottom.get_title()
    assert bottom.get_xlabel() == "time (ms)" and top.get_xlabel() == ""  # a 0.05-s run: in ms
    plt.close(fig)


def test_without_ccti_bandwidth_stays_single_panel(fake_results):
    (path,) = [p for p in plot.plot_results(fake_results) if p.name == "bandwidth.png"]
    w, h = png_size(path)
    assert h < 0.7 * w


# ---------------------------------------------------------------------------------------------
# plot_ccti on a fake folder


def _parking_lot_ccti(d):
    starts = np.round(np.arange(0.0, 0.7 - 1e-12, 0.005), 9)
    flows = {
        ("H211", "H221"): lambda t: 0 if t < 0.1 else 128,
        ("H112", "H221"): lambda t: 0 if t < 0.1 else (60 if t < 0.2 else 128),
        ("H121", "H221"): lambda t: 0 if t < 0.2 or 0.3 <= t < 0.35 else 100,  # absent 0.3-0.35 s
    }
    return write_fake_ccti(d, flows, starts), starts


def test_plot_ccti_fake_folder(fake_results):
    d, starts = _parking_lot_ccti(fake_results)
    r = lnsim.load_results(d)
    table = plot.flow_ccti(r)
    assert list(table.columns) == ["H211→H221", "H112→H221", "H121→H221"]
    assert len(table) == len(starts)
    assert table.loc[0.0].tolist() == [0, 0, 0]  # absent = at the minimum
    assert table.loc[0.3, "H121→H221"] == 0 and table.loc[0.25, "H121→H221"] == 100

    fig, ax = plt.subplots()
    assert plot.plot_ccti(d, ax=ax) is ax
    lines = {l.get_label(): l for l in ax.get_lines() if not l.get_label().startswith("_") and l.get_gid() != "warmup"}
    assert set(lines) == {"H211→H221", "H112→H221", "H121→H221"}
    assert len(lines["H121→H221"].get_xdata()) == len(starts)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(table.columns) + ["end of warm-up (450 ms)"]
    assert ax.get_ylim()[0] == 0 and ax.get_ylim()[1] >= 128
    assert "CCTI" in ax.get_ylabel()
    plt.close(fig)

    # composes with the bandwidth panel; plot_results writes the two-panel figure
    paths = plot.plot_results(d)
    w, h = png_size(paths[0])
    assert paths[0].name == "bandwidth.png" and h > 0.7 * w


def test_plot_ccti_keeps_12_highest_and_sl_level(tmp_path):
    senders = tuple(f"H{i:03d}" for i in range(20))
    d = write_fake_results(tmp_path / "many", senders=senders, receivers=("R1",))
    starts = np.round(np.arange(0.0, 0.7 - 1e-12, 0.005), 9)
    write_fake_ccti(d, {(s, "R1"): (lambda t, k=k: 5 * k if t > 0.1 else 0) for k, s in enumerate(senders)},
                    starts, level="sl")
    fig, ax = plt.subplots()
    plot.plot_ccti(d, ax=ax)
    labels = [l.get_label() for l in ax.get_lines() if not l.get_label().startswith("_") and l.get_gid() != "warmup"]
    assert len(labels) == 12
    assert "H019→*" in labels and "H000→*" not in labels  # H000 never throttled, H019 the most
    assert "12 highest mean of 19 throttled flows" in ax.get_title()
    plt.close(fig)


def test_plot_ccti_nobody_throttled(fake_results):
    (fake_results / "ccti.csv").write_text("t_start_s,src,dst,vl,ccti_end,ccti_max\n")
    fig, ax = plt.subplots()
    plot.plot_ccti(fake_results, ax=ax)
    assert not [l for l in ax.get_lines() if not l.get_label().startswith("_") and l.get_gid() != "warmup"]
    assert any("no flow throttled" in t.get_text() for t in ax.texts)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# run summary


def test_run_summary_prints_cc_line(zeru_a_cc_run):
    out, proc = zeru_a_cc_run
    s = json.loads((out / "summary.json").read_text())
    cc = s["cc"]
    line = [l for l in proc.stdout.splitlines() if l.startswith("congestion ctl")]
    assert line == [
        f"congestion ctl  FECN marks {cc['fecn_marks']}, CNPs sent {cc['cnps_sent']} / received"
        f" {cc['cnps_received']}, max CCTI {cc['max_ccti']}, throttled {cc['throttled_s']:.4g} s"
    ]
    header = [l for l in proc.stdout.splitlines() if l.strip().startswith("node")]
    assert header and "CNPs sent" in header[0] and "CNPs rcvd" in header[0]


def test_format_summary_cc(fake_results):
    s = json.loads((fake_results / "summary.json").read_text())
    assert "congestion ctl" not in format_summary(s, fake_results)
    s["cc"] = {"enabled": True, "fecn_marks": 128525, "cnps_sent": 128524, "cnps_received": 128500,
               "max_ccti": 128, "throttled_s": 0.770973}
    for name, v in s["nodes"].items():
        v.update(cnps_sent=0, cnps_received=0)
    s["nodes"]["H221"].update(cnps_sent=128524, tx_gbps_after_warmup=0.0, rx_gbps_after_warmup=4.0, link_gbps=8.0)
    text = format_summary(s, fake_results)
    assert ("congestion ctl  FECN marks 128525, CNPs sent 128524 / received 128500, max CCTI 128,"
            " throttled 0.771 s") in text
    (row,) = [l for l in text.splitlines() if l.strip().startswith("H221")]
    # link, tx and its share, rx and its share (after warm-up), CNPs sent and received (whole run)
    assert row.split() == ["H221", "8", "0.000", "0.0", "4.000", "50.0", "128,524", "0"]
    s["cc"] = {"enabled": False}
    assert "congestion ctl" not in format_summary(s, fake_results) and "CNPs" not in format_summary(s, fake_results)


# ---------------------------------------------------------------------------------------------
# bench


def test_cc_costs():
    recs = [
        {"case": "c4", "status": "ok", "wall_time_s": 1.0, "sim_time_s": 0.1, "events": 1000, "packet_hops": 250},
        {"case": "c4_cc", "status": "ok", "wall_time_s": 1.5, "sim_time_s": 0.1, "events": 1250, "packet_hops": 300},
        {"case": "fat_tree_648_cc", "status": "ok", "wall_time_s": 3.0},  # baseline not run
    ]
    (c,) = bench.cc_costs(recs)
    assert c["baseline"] == "c4" and c["cost_pct"] == pytest.approx(50.0)
    # 1.2 ms per 1,000 events against 1 ms: +20 % per event, within the +30 % target
    assert c["cost_per_event_pct"] == pytest.approx(20.0) and c["per_event_ok"] is True
    assert c["ns_per_event"] == pytest.approx(1.2e6) and c["baseline_ns_per_event"] == pytest.approx(1e6)
    assert c["events_per_packet_hop"] == pytest.approx(1250 / 300)
    assert bench.format_cost(c) == (
        "c4_cc vs c4 (CC on vs off, 0.1 s simulated each): wall time 1.500 s vs 1.000 s; "
        "events per packet-hop 4.17 vs 4.00; ns per event 1200000.0 vs 1000000.0; CC on costs +50.0 % "
        "wall time (it changes the traffic and adds CNPs) and +20.0 % per event (target ≤ +30 %: ok)")
    recs[1]["wall_time_s"] = 1.75  # +40 % per event
    (c,) = bench.cc_costs(recs)
    assert c["per_event_ok"] is False and bench.format_cost(c).endswith("(target ≤ +30 %: OVER)")
    recs[1]["wall_time_s"] = 1.25
    # a quick run measures set-up: no percentage, no sign
    (q,) = bench.cc_costs(recs, quick=True)
    assert q["cost_pct"] is None and q["cost_per_event_pct"] is None and q["per_event_ok"] is None
    text = bench.format_cost(q)
    assert "%" not in text and "+" not in text and "-1" not in text and "wall time 1.250 s vs 1.000 s" in text
    assert "too short" in text
    recs[1]["status"] = "error"
    assert bench.cc_costs(recs) == []


def test_bench_quick_lists_four_cases(tmp_path):
    proc = lnsim_cmd("bench", "--quick", "--out", tmp_path / "bench", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    rows = [l.split()[0] for l in lines[2:6]]
    assert rows == ["c4", "c4_cc", "fat_tree_648", "fat_tree_648_cc"]  # CC on next to CC off
    costs = [l for l in lines if " vs " in l and "CC on vs off" in l]
    assert [c.split()[:3] for c in costs] == [["c4_cc", "vs", "c4"], ["fat_tree_648_cc", "vs", "fat_tree_648"]]
    for c in costs:  # a quick run says what it measured, without a meaningless percentage
        assert "wall time" in c and "too short" in c and "%" not in c
    report = json.loads((tmp_path / "bench" / "bench.json").read_text())
    recs = {r["case"]: r for r in report["cases"]}
    assert "cc.enabled=true" in recs["c4_cc"]["overrides"] and "sim.end_time=0.01s" in recs["c4_cc"]["overrides"]
    assert "cc.enabled=true" in recs["fat_tree_648_cc"]["overrides"]
    assert "sim.end_time=0.001s" in recs["fat_tree_648_cc"]["overrides"]
    assert [c["case"] for c in report["cc_costs"]] == ["c4_cc", "fat_tree_648_cc"]
