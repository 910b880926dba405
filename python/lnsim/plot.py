"""Figures of a results folder (matplotlib, Agg backend).

Every ``plot_*`` function takes a :class:`lnsim.RunResult` or a results folder path and an
optional matplotlib ``ax`` so figures can be composed::

    import matplotlib.pyplot as plt
    from lnsim import load_results
    from lnsim.plot import plot_bandwidth, plot_latency_histogram

    r = load_results("results/zeru_a")
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4))
    plot_bandwidth(r, ax=a)
    plot_latency_histogram(r, ax=b)
    fig.savefig("both.png")

:func:`plot_results` writes ``bandwidth.png``, ``throughput.png`` and ``latency_hist.png``
into a results folder (what ``lnsim plot DIR`` does).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Tuple, Union

import matplotlib

if os.environ.get("MPLBACKEND") is None:  # headless by default; respect an explicit choice
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import RunResult, load_results  # noqa: E402

__all__ = [
    "LATENCY_BINS_PER_DECADE",
    "MAX_LINES",
    "UNITS",
    "latency_log_bins",
    "node_bandwidth",
    "plot_bandwidth",
    "plot_latency_histogram",
    "plot_results",
    "plot_throughput",
]

#: Bandwidth units: name -> bytes per second of one unit. MBps = 1e6 bytes/s, as in the
#: InfiniBand congestion-control studies whose figures these reproduce.
UNITS = {
    "Bps": 1.0,
    "kBps": 1e3,
    "MBps": 1e6,
    "GBps": 1e9,
    "Mbps": 1e6 / 8,
    "Gbps": 1e9 / 8,
}
_UNIT_LABEL = {"Bps": "B/s", "kBps": "kB/s", "MBps": "MB/s", "GBps": "GB/s", "Mbps": "Mbit/s", "Gbps": "Gbit/s"}

#: At most this many senders (and receivers) are drawn; the busiest are kept.
MAX_LINES = 12

ResultLike = Union[RunResult, str, "os.PathLike[str]"]


def _result(r: ResultLike) -> RunResult:
    return r if isinstance(r, RunResult) else load_results(r)


def _new_ax(ax, figsize=(10, 5)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _interval_lengths(r: RunResult, t_start: np.ndarray) -> np.ndarray:
    """Length of each interval starting at ``t_start``; the last one may be cut by the end of
    the simulation."""
    interval = float(r.summary.get("interval_s") or 0.0)
    if interval <= 0.0:
        starts = np.unique(t_start)
        interval = float(np.min(np.diff(starts))) if len(starts) > 1 else 1.0
    lengths = np.full(len(t_start), interval, dtype=float)
    end = r.summary.get("sim_time_s")
    if end is not None:
        lengths = np.minimum(lengths, np.maximum(float(end) - t_start, 0.0))
        lengths[lengths <= 0.0] = interval
    return lengths


def node_bandwidth(r: ResultLike, unit: str = "MBps") -> Tuple[pd.DataFrame, pd.DataFrame]:
    """Per-node bandwidth over time from nodes.csv, in ``unit`` (see :data:`UNITS`).

    Returns ``(tx, rx)``: DataFrames indexed by interval start (seconds), one column per node.
    """
    r = _result(r)
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r}: expected one of {', '.join(UNITS)}")
    df = r.nodes
    if df.empty:
        empty = pd.DataFrame(index=pd.Index([], name="t_start_s", dtype=float))
        return empty, empty.copy()
    t = df["t_start_s"].to_numpy(dtype=float)
    scale = _interval_lengths(r, t) * UNITS[unit]
    df = df.assign(tx=df["tx_bytes"].to_numpy(dtype=float) / scale, rx=df["rx_bytes"].to_numpy(dtype=float) / scale)
    order = list(dict.fromkeys(df["node"]))  # keep the core's node order
    tx = df.pivot_table(index="t_start_s", columns="node", values="tx", aggfunc="sum", sort=True)
    rx = df.pivot_table(index="t_start_s", columns="node", values="rx", aggfunc="sum", sort=True)
    return tx.reindex(columns=order).fillna(0.0), rx.reindex(columns=order).fillna(0.0)


def _busiest(table: pd.DataFrame, limit: int) -> Tuple[List[str], int]:
    """Columns with any traffic, the ``limit`` busiest of them (kept in their original order),
    and how many had traffic."""
    totals = table.sum(axis=0)
    active = [c for c in table.columns if totals[c] > 0]
    if len(active) <= limit:
        return active, len(active)
    keep = set(totals[active].sort_values(ascending=False, kind="stable").index[:limit])
    return [c for c in active if c in keep], len(active)


def _no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes, color="0.4")


def plot_bandwidth(result_or_dir: ResultLike, ax=None, unit: str = "MBps"):
    """Bandwidth of each node over time, as in the figures of the InfiniBand CC studies.

    One solid line per sending node (tx, left y axis) and one dashed line per receiving node
    (rx, right y axis); x is the start of each interval in seconds, y in ``unit``
    (MBps = 1e6 bytes/s). With more than
    :data:`MAX_LINES` senders (or receivers) only the busiest are drawn, and the title says so.
    Returns the left Axes; the right one is ``ax.right_ax``.
    """
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    tx, rx = node_bandwidth(r, unit)
    senders, n_senders = _busiest(tx, MAX_LINES)
    receivers, n_receivers = _busiest(rx, MAX_LINES)
    label = _UNIT_LABEL.get(unit, unit)

    ax2 = ax.twinx()
    ax.right_ax = ax2
    n_lines = len(senders) + len(receivers)
    cmap = plt.get_cmap("tab20" if n_lines > 10 else "tab10")
    colors = [cmap(i % cmap.N) for i in range(max(n_lines, 1))]
    x_tx = tx.index.to_numpy(dtype=float)
    for i, node in enumerate(senders):
        ax.plot(x_tx, tx[node].to_numpy(), color=colors[i], lw=1.4, label=f"{node} tx")
    x_rx = rx.index.to_numpy(dtype=float)
    for j, node in enumerate(receivers):
        ax2.plot(x_rx, rx[node].to_numpy(), color=colors[len(senders) + j], lw=1.6, ls="--", label=f"{node} rx")

    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"sender bandwidth ({label})")
    ax2.set_ylabel(f"receiver bandwidth ({label}, dashed)")
    ax.set_ylim(bottom=0)
    ax2.set_ylim(bottom=0)
    if len(x_tx):
        ax.set_xlim(float(x_tx.min()), float(x_tx.max()))
    ax.grid(True, alpha=0.3)
    warmup = r.summary.get("warmup_s")
    if warmup:
        ax.axvline(float(warmup), color="0.5", lw=0.8, ls=":")

    title = f"{r.summary.get('scenario', r.out_dir.name)}: bandwidth per node"
    notes = []
    if n_senders > len(senders):
        notes.append(f"{len(senders)} busiest of {n_senders} senders")
    if n_receivers > len(receivers):
        notes.append(f"{len(receivers)} busiest of {n_receivers} receivers")
    if notes:
        title += " (" + ", ".join(notes) + ")"
    ax.set_title(title, fontsize=10)

    handles = ax.get_legend_handles_labels()
    handles2 = ax2.get_legend_handles_labels()
    lines, labels = handles[0] + handles2[0], handles[1] + handles2[1]
    if lines:
        ax.legend(
            lines,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.14),
            ncol=min(6, len(lines)),
            fontsize=8,
            frameon=False,
        )
    else:
        _no_data(ax, "traffic")
    return ax


def plot_throughput(result_or_dir: ResultLike, ax=None):
    """Aggregate network throughput per interval: the sum of all nodes' received bytes
    (solid) and sent bytes (thin, light) in Gbit/s. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    tx, rx = node_bandwidth(r, "Gbps")
    warmup = r.summary.get("warmup_s")
    if rx.empty:
        _no_data(ax, "traffic")
    else:
        x = rx.index.to_numpy(dtype=float)
        ax.plot(tx.index.to_numpy(dtype=float), tx.sum(axis=1).to_numpy(), color="0.6", lw=1.0, label="sent (tx)")
        ax.plot(x, rx.sum(axis=1).to_numpy(), color="C0", lw=1.8, label="received (rx)")
        ax.set_xlim(float(x.min()), float(x.max()))
        if warmup:
            ax.axvline(float(warmup), color="0.5", lw=0.8, ls=":", label="end of warm-up")
        ax.legend(loc="lower right", fontsize=8)
    after = (r.summary.get("throughput") or {}).get("rx_gbps_after_warmup")
    title = f"{r.summary.get('scenario', r.out_dir.name)}: network throughput"
    if after is not None:
        title += f" ({float(after):.2f} Gbit/s received after warm-up)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Gbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    return ax


#: Display bins per decade of the latency histogram.
LATENCY_BINS_PER_DECADE = 20


def latency_log_bins(h: pd.DataFrame, per_decade: int = LATENCY_BINS_PER_DECADE) -> Tuple[np.ndarray, np.ndarray]:
    """Re-bins a latency histogram (``lower_ns, upper_ns, count``, buckets of any widths) into
    bins of equal width on a log axis; each bucket's count goes to the bin of its geometric
    middle. Returns ``(edges_ns, counts)``; empty arrays when there are no packets."""
    h = h[h["count"] > 0]
    if h.empty:
        return np.array([]), np.array([])
    lower = h["lower_ns"].to_numpy(dtype=float)
    upper = h["upper_ns"].to_numpy(dtype=float)
    upper = np.where(upper > lower, upper, lower + 1.0)
    lower = np.where(lower > 0, lower, upper / 2.0)  # a log axis cannot start at 0
    mid = np.sqrt(lower * upper)
    lo = np.floor(np.log10(lower.min()) * per_decade) / per_decade
    hi = np.ceil(np.log10(upper.max()) * per_decade) / per_decade
    n = max(int(round((hi - lo) * per_decade)), 1)
    edges = np.logspace(lo, hi, n + 1)
    idx = np.clip(np.searchsorted(edges, mid, side="right") - 1, 0, n - 1)
    counts = np.bincount(idx, weights=h["count"].to_numpy(dtype=float), minlength=n)
    return edges, counts


def plot_latency_histogram(result_or_dir: ResultLike, ax=None):
    """Packet latency histogram from latency_hist.csv: bins of equal width on a logarithmic
    time axis (:func:`latency_log_bins`), packet counts on a logarithmic axis so that the tail
    shows, and the mean, p50 and p99 of summary.json marked. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    edges, counts = latency_log_bins(r.latency)
    if len(counts) == 0:
        _no_data(ax, "packets received")
    else:
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="C0", edgecolor="C0", alpha=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.7, top=max(counts.max() * 2.0, 2.0))
        ax.set_xlim(edges[0], edges[-1])
        lat = r.summary.get("latency_ns") or {}
        for key, color in (("mean", "C3"), ("p50", "C2"), ("p99", "C1")):
            v = lat.get(key)
            if v is not None and float(v) > 0:
                ax.axvline(float(v), color=color, lw=1.2, ls="--", label=f"{key} {_fmt_ns(float(v))}")
        if lat:
            ax.legend(fontsize=8)
    ax.set_title(f"{r.summary.get('scenario', r.out_dir.name)}: packet latency", fontsize=10)
    ax.set_xlabel("latency (ns)")
    ax.set_ylabel(f"packets (per 1/{LATENCY_BINS_PER_DECADE} decade)")
    ax.grid(True, alpha=0.3, which="major")
    ax.grid(True, alpha=0.12, which="minor", axis="x")
    return ax


def _fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"


def plot_results(result_or_dir: ResultLike, out_dir=None) -> List[Path]:
    """Writes ``bandwidth.png``, ``throughput.png`` and ``latency_hist.png`` into the results
    folder (or ``out_dir``) and returns their paths."""
    r = _result(result_or_dir)
    target = Path(out_dir) if out_dir is not None else r.out_dir
    target.mkdir(parents=True, exist_ok=True)
    written: List[Path] = []
    for name, fn, size in (
        ("bandwidth.png", plot_bandwidth, (11, 6)),
        ("throughput.png", plot_throughput, (10, 4.5)),
        ("latency_hist.png", plot_latency_histogram, (8, 4.5)),
    ):
        fig, ax = plt.subplots(figsize=size)
        try:
            fn(r, ax=ax)
            fig.tight_layout()
            path = target / name
            fig.savefig(path, dpi=110, bbox_inches="tight")
            written.append(path)
        finally:
            plt.close(fig)
    return written

