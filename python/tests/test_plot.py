"""Figures from a fake results folder with the documented columns."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import lnsim  # noqa: E402
from lnsim import plot  # noqa: E402


def test_plot_results_writes_pngs(fake_results):
    paths = plot.plot_results(fake_results)
    assert [p.name for p in paths] == ["bandwidth.png", "throughput.png", "latency_hist.png"]
    for p in paths:
        assert p.parent == fake_results
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_node_bandwidth_units(fake_results):
    r = lnsim.load_results(fake_results)
    tx_mb, rx_mb = plot.node_bandwidth(r, "MBps")
    tx_gb, _ = plot.node_bandwidth(r, "Gbps")
    # first interval: H112 alone at ~1000 MB/s (bytes / 5 ms / 1e6)
    first = r.nodes[(r.nodes.t_start_s == 0) & (r.nodes.node == "H112")].tx_bytes.iloc[0]
    assert tx_mb.loc[0.0, "H112"] == pytest.approx(first / 0.005 / 1e6)
    assert tx_gb.loc[0.0, "H112"] == pytest.approx(tx_mb.loc[0.0, "H112"] * 8 / 1000)
    assert set(rx_mb.columns) >= {"H221", "H121"}
    with pytest.raises(ValueError):
        plot.node_bandwidth(r, "furlongs")


def test_bandwidth_axes_and_legend(fake_results):
    fig, ax = plt.subplots()
    out = plot.plot_bandwidth(fake_results, ax=ax)
    assert out is ax
    assert len(ax.get_lines()) >= 4  # one per sender (+ warm-up marker)
    assert all(l.get_linestyle() == "--" for l in ax.right_ax.get_lines())
    assert len(ax.right_ax.get_lines()) == 2
    assert "MB/s" in ax.get_ylabel()
    assert ax.get_legend() is not None
    plt.close(fig)


def test_composable_axes(fake_results):
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(15, 4))
    r = lnsim.load_results(fake_results)
    assert plot.plot_bandwidth(r, ax=a) is a
    assert plot.plot_throughput(r, ax=b) is b
    assert plot.plot_latency_histogram(r, ax=c) is c
    assert c.get_xscale() == "log"
    assert "Gbit/s" in b.get_ylabel()
    plt.close(fig)


def test_empty_results_still_plot(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    (d / "nodes.csv").write_text("t_start_s,node,tx_bytes,rx_bytes\n")
    (d / "flows.csv").write_text("src,dst,tx_bytes,rx_bytes\n")
    (d / "latency_hist.csv").write_text("lower_ns,upper_ns,count\n")
    (d / "summary.json").write_text('{"scenario": "empty", "interval_s": 0.001, "sim_time_s": 0.0}')
    paths = plot.plot_results(d)
    assert len(paths) == 3 and all(p.exists() for p in paths)


def test_latency_log_bins_keep_every_packet():
    import pandas as pd

    h = pd.DataFrame(
        {
            "lower_ns": [0, 2324, 2580, 4500, 250000, 640000],
            "upper_ns": [2323, 2579, 4499, 6675, 252000, 642000],
            "count": [1, 1, 45955, 0, 1000, 7],
        }
    )
    edges, counts = plot.latency_log_bins(h)
    assert counts.sum() == 1 + 1 + 45955 + 1000 + 7
    assert np.allclose(np.diff(np.log10(edges)), 1 / plot.LATENCY_BINS_PER_DECADE)
    assert edges[0] <= 2323 / 2 and edges[-1] >= 642000
    # the big bucket lands in the bin holding its geometric middle
    k = np.searchsorted(edges, np.sqrt(2580 * 4499), side="right") - 1
    assert counts[k] >= 45955
    e, c = plot.latency_log_bins(h.assign(count=0))
    assert len(e) == 0 and len(c) == 0
