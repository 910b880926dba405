"""What the figures say and show: the congestion management of the run in every title (from the
run's results, never from the scenario's description), time axes in a unit chosen from the span,
the bandwidth of many nodes as the notable ones plus a median and min–max band, the warm-up line
in the legend, and the seeds of a sweep point drawn, with a point saturated in some seeds only
treated alike in the load–latency and throughput figures. Tests read the matplotlib artists
(titles, labels, legend texts, lines, bands), not pixels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import html  # noqa: E402
import re  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import lnsim  # noqa: E402
from lnsim import plot  # noqa: E402
from lnsim.report import report_html  # noqa: E402
from conftest import CC_SHORT, SCENARIOS, ZERU_A, lnsim_cmd  # noqa: E402


@pytest.fixture
def figure():
    """A new matplotlib figure, closed after the test."""
    fig = plt.figure()
    yield fig
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# congestion control in titles and headings, from the run


def test_cc_on_run_of_a_description_saying_cc_off_is_titled_cc_on(tmp_path, figure):
    text = ZERU_A.read_text(encoding="utf-8").replace('name = "zeru_a"', 'name = "says_off"')
    text = text.replace('description = """\n', 'description = """\nCC off. ', 1)
    scen = tmp_path / "says_off.toml"
    scen.write_text(text, encoding="utf-8")
    out = tmp_path / "run"
    proc = lnsim_cmd("run", scen, *CC_SHORT, "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    r = lnsim.load_results(out)
    assert "CC off. " in (out / "scenario.toml").read_text(encoding="utf-8")  # the description, as run

    top, bottom = plot.plot_bandwidth_ccti(r, fig=figure)
    fig2, (a, b) = plt.subplots(1, 2)
    titles = [top.get_title(), bottom.get_title(), plot.plot_throughput(r, ax=a).get_title(),
              plot.plot_latency_histogram(r, ax=b).get_title()]
    plt.close(fig2)
    for title in titles:
        assert title.startswith("says_off, CC on (InfiniBand CC): "), title
        assert "CC off" not in title
    page = html.unescape(report_html(out))
    assert "<h1>lnsim report: says_off, CC on (InfiniBand CC)</h1>" in page
    assert re.search(r"<th[^>]*>congestion control</th>\s*<td[^>]*>CC on \(InfiniBand CC\)</td>", page)


def test_drb_run_report_says_cc_on_drb(tmp_path):
    """DRB runs with `cc.enabled` false in summary.json (its `cc` table is InfiniBand CC's): the
    page still says what ran, once, from the run's `drb` results."""
    out = tmp_path / "drb"
    proc = lnsim_cmd("run", SCENARIOS / "drb" / "mesh4x8_shuffle.toml", "--set", 'sim.end_time="2ms"',
                     "--set", 'sim.warmup="1ms"', "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert lnsim.load_results(out).summary["cc"] == {"enabled": False}
    page = html.unescape(report_html(out))
    assert "<h1>lnsim report: mesh4x8_shuffle, CC on (DRB)</h1>" in page
    assert re.findall(r"<th[^>]*>congestion control</th>\s*<td[^>]*>([^<]*)</td>", page) == ["CC on (DRB)"]


def test_cc_label_names_each_mechanism_from_the_results():
    base = {"scenario": "s", "cc": {"enabled": False}}
    assert plot.cc_label(base) == "CC off"
    assert plot.cc_label({**base, "cc": {"enabled": True, "fecn_marks": 3}}) == "CC on (InfiniBand CC)"
    assert plot.cc_label({**base, "drb": {"notifications": 4}, "monitor": {"fecn_marks": 4}}) == "CC on (DRB)"
    assert plot.cc_label({**base, "throttle": {"max_ird_us": 1.0}}) == "CC on (IBA_CC-S1)"
    assert plot.cc_label({**base, "ddbbm": {"frames": 10}}) == "CC off, DDBBM"
    assert plot.cc_label({"model": "cycle", "accepted_load": 0.1}) is None
    # a sweep.csv row: the same fields flattened, absent ones blank (NaN)
    assert plot.cc_label({"cc.enabled": "True", "drb.notifications": float("nan")}) == "CC on (InfiniBand CC)"
    assert plot.cc_label({"cc.enabled": False, "drb.notifications": float("nan")}) == "CC off"
    assert plot.cc_label({"cc.enabled": False, "drb.notifications": 12.0}) == "CC on (DRB)"


def test_sweep_figure_title_says_the_cc_of_its_runs(figure):
    import pandas as pd

    rows = [{"cc.marking_rate": m, "point": f"cc.marking_rate={m}", "status": "ok", "scenario": "zeru_c4",
             "model": "infiniband", "cc.enabled": True, "throughput.total_rx_gbytes_per_s": 19.0 + m / 10}
            for m in (1, 10)]
    df = pd.DataFrame(rows)
    ax = plot.plot_sweep(df, ax=figure.subplots())
    assert ax.get_title().startswith("zeru_c4, CC on (InfiniBand CC): ")
    both = pd.DataFrame([{**rows[0], "cc.enabled": False}, rows[1]])
    assert plot.sweep_cc_label(both) is None  # runs of both kinds: the title names no one state
    assert plot.plot_sweep(both, ax=figure.add_subplot(2, 1, 2)).get_title().startswith("zeru_c4: ")


# ---------------------------------------------------------------------------------------------
# bandwidth of many nodes, time axes, the warm-up line


def write_nodes(d, rates: dict, end: float, interval: float, warmup: float):
    """A results folder whose nodes.csv has each node at a constant rate: ``rates`` maps a node to
    ``(tx MB/s, rx MB/s)``; summary.json with the run's length and warm-up."""
    import json

    d.mkdir(parents=True, exist_ok=True)
    rows = ["t_start_s,node,tx_bytes,rx_bytes"]
    k = 0
    while k * interval < end - 1e-15:
        for node, (tx, rx) in rates.items():
            rows.append(f"{k * interval:.9f},{node},{int(tx * 1e6 * interval)},{int(rx * 1e6 * interval)}")
        k += 1
    (d / "nodes.csv").write_text("\n".join(rows) + "\n")
    (d / "summary.json").write_text(json.dumps({"scenario": "many", "model": "infiniband", "sim_time_s": end,
                                                "interval_s": interval, "warmup_s": warmup,
                                                "cc": {"enabled": False}}))
    return d


#: 12 senders at 500 MB/s but a starved one (S03), 12 receivers at 400 MB/s but a hot spot (R05).
MANY = {**{f"S{i:02d}": (50.0 if i == 3 else 500.0 + i, 0.0) for i in range(12)},
        **{f"R{i:02d}": (0.0, 1000.0 if i == 5 else 400.0 + i) for i in range(12)}}


def _data_lines(ax):
    return [l for l in ax.get_lines() if l.get_label().endswith((" tx", " rx"))]


def test_bandwidth_of_many_nodes_draws_the_notable_ones_and_a_band(tmp_path, figure):
    d = write_nodes(tmp_path / "many", MANY, end=0.02, interval=0.001, warmup=0.01)
    ax = plot.plot_bandwidth(d, ax=figure.subplots())
    assert [l.get_label() for l in _data_lines(ax)] == ["S03 tx"]
    assert [l.get_label() for l in _data_lines(ax.right_ax)] == ["R05 rx"]
    assert plot.notable_nodes(plot.node_bandwidth(d)[1], 0.01) == ["R05"]
    # the rest of each kind: one median line and one min–max band, the legend says how many
    tx, rx = plot.node_bandwidth(d)
    for a, kind, table, rest in ((ax, "tx", tx, [f"S{i:02d}" for i in range(12) if i != 3]),
                                 (ax.right_ax, "rx", rx, [f"R{i:02d}" for i in range(12) if i != 5])):
        (median,) = [l for l in a.get_lines() if l.get_gid() == f"median:{kind}"]
        assert list(median.get_ydata()) == pytest.approx(list(table[rest].median(axis=1)))
        (band,) = [c for c in a.collections if c.get_gid() == f"band:{kind}"]
        ys = band.get_paths()[0].vertices[:, 1]
        values = table[rest].to_numpy()
        assert (min(ys), max(ys)) == (pytest.approx(values.min()), pytest.approx(values.max()))
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "median of the other 11 senders tx (band: min–max)" in texts
    assert "median of the other 11 receivers rx (band: min–max)" in texts
    assert len(ax.get_lines()) + len(ax.right_ax.get_lines()) <= plot.MAX_NODE_LINES
    assert "12 senders, 12 receivers" in ax.get_title()


def test_bandwidth_of_few_nodes_draws_every_node(fake_results, figure):
    ax = plot.plot_bandwidth(fake_results, ax=figure.subplots())
    assert len(_data_lines(ax)) == 4 and len(_data_lines(ax.right_ax)) == 2
    assert not ax.collections and not ax.right_ax.collections


@pytest.mark.parametrize("end,interval,unit,tick", [(0.0002, 0.00002, "µs", 50e-6), (0.7, 0.005, "ms", 0.3),
                                                     (6.0, 0.05, "s", 4.0)])
def test_time_axes_are_in_a_unit_chosen_from_the_span(tmp_path, end, interval, unit, tick):
    from conftest import write_fake_ccti

    d = write_nodes(tmp_path / "r", {"S1": (500.0, 0.0), "R1": (0.0, 500.0)}, end=end, interval=interval,
                    warmup=end / 2)
    starts = [k * interval for k in range(round(end / interval))]
    write_fake_ccti(d, {("S1", "R1"): lambda t: 7}, starts)
    r = lnsim.load_results(d)
    fig, axes = plt.subplots(2, 2)
    try:
        drawn = [plot.plot_bandwidth(r, ax=axes[0][0]), plot.plot_throughput(r, ax=axes[0][1]),
                 plot.plot_ccti(r, ax=axes[1][0])]
        drawn.append(plot.plot_ccti_flows(r, fig=plt.figure())[-1])
        scaled = {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
        for ax in drawn:
            assert ax.get_xlabel() == f"time ({unit})"
            assert ax.xaxis.get_major_formatter()(tick, 0) == f"{tick / scaled:.6g}"
    finally:
        plt.close("all")


def test_warmup_line_is_named_in_the_legend(fake_results, figure):
    ax = plot.plot_bandwidth(fake_results, ax=figure.subplots())
    (line,) = [l for l in ax.get_lines() if l.get_gid() == "warmup"]
    assert list(line.get_xdata()) == [0.45, 0.45]
    assert "end of warm-up (450 ms)" in [t.get_text() for t in ax.get_legend().get_texts()]


# ---------------------------------------------------------------------------------------------
# sweeps: each seed drawn; a point saturated in some seeds only, alike in both figures


def two_seed_load_sweep():
    """A load sweep table of two seeds per point (as sweep.csv): at 0.1 no seed saturates, at
    0.2 seed 1 only, at 0.3 both."""
    import pandas as pd

    rows = []
    for load, lat, acc, sat in ((0.1, (100.0, 110.0), (0.1, 0.1), (False, False)),
                                (0.2, (400.0, 300.0), (0.19, 0.2), (True, False)),
                                (0.3, (900.0, 950.0), (0.21, 0.22), (True, True))):
        for seed in (1, 2):
            rows.append({"traffic.load": load, "point": f"traffic.load={load}", "status": "ok", "error": "",
                         "seed": seed, "scenario": "df", "model": "cycle", "routing": "min", "offered_load": load,
                         "accepted_load": acc[seed - 1], "latency_cycles.mean": lat[seed - 1],
                         "saturated": sat[seed - 1]})
    return pd.DataFrame(rows)


def _gid_lines(ax, gid):
    return [l for l in ax.get_lines() if (l.get_gid() or "") == gid]


def test_partly_saturated_point_is_drawn_alike_in_latency_and_throughput(figure):
    df = two_seed_load_sweep()
    lat, thr = figure.subplots(1, 2)
    plot.plot_load_latency(df, ax=lat)
    plot.plot_load_throughput(df, ax=thr)
    (lat_curve,) = _gid_lines(lat, "curve:min")
    (thr_curve,) = _gid_lines(thr, "curve:min")
    assert list(lat_curve.get_xdata()) == [0.1, 0.2]  # only the point saturated in every seed is left out
    assert list(thr_curve.get_xdata()) == [0.1, 0.2, 0.3]
    for ax, curve in ((lat, lat_curve), (thr, thr_curve)):
        (ring,) = _gid_lines(ax, "partly-saturated:1/2")
        assert ring.get_label() == "1 of 2 seeds saturated" and list(ring.get_xdata()) == [0.2]
        assert ring.get_ydata()[0] == pytest.approx(curve.get_ydata()[1])  # on the mean of both seeds
        assert "1 of 2 seeds saturated" in [t.get_text() for t in ax.get_legend().get_texts()]
    (cross,) = _gid_lines(thr, "saturated:every-seed")
    assert list(cross.get_xdata()) == [0.3] and cross.get_label() == "saturated (every seed)"
    assert not _gid_lines(lat, "saturated:every-seed")
    assert "1 saturated point left out" in lat.get_title()


def test_each_seed_of_a_load_sweep_point_is_drawn(figure):
    df = two_seed_load_sweep()
    ax = plot.plot_load_throughput(df, ax=figure.subplots())
    seeds = _gid_lines(ax, "seeds:min")
    points = sorted((x, y) for l in seeds for x, y in zip(l.get_xdata(), l.get_ydata()))
    assert points == sorted(zip(df["traffic.load"], df["accepted_load"]))  # every run, 2 per point
    (crosses,) = [l for l in seeds if l.get_marker() == "x"]
    assert sorted(crosses.get_xdata()) == [0.2, 0.3, 0.3]  # the seeds that saturated
    assert "each seed (×: one that saturated)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_one_key_sweep_line_draws_each_seed_and_its_saturation(figure):
    df = two_seed_load_sweep().drop(columns=["offered_load"])  # not a load sweep: plot_sweep's line
    ax = plot.plot_sweep(df, metric="accepted_load", ax=figure.subplots())
    (seeds,) = _gid_lines(ax, "seeds")
    assert sorted(zip(seeds.get_xdata(), seeds.get_ydata())) == sorted(zip(df["traffic.load"], df["accepted_load"]))
    labels = {l.get_label(): list(l.get_xdata()) for l in _gid_lines(ax, "saturation")}
    assert labels == {"1 of 2 seeds saturated": [0.2], "saturated (every seed)": [0.3]}


def test_heatmap_cell_says_how_many_seeds_saturated(figure):
    df = two_seed_load_sweep().drop(columns=["offered_load"])
    df.insert(1, "routing.algorithm", "min")
    ax = plot.plot_sweep(df, metric="accepted_load", ax=figure.subplots())
    texts = [t.get_text() for t in ax.texts]
    assert "0.10" in texts and "0.20\n1/2 sat." in texts and "0.21\n2/2 sat." in texts
    assert "k of the cell's n seeds saturated" in ax.get_title()
