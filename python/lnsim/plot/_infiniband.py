"""Figures of one run of the InfiniBand model over time in seconds (nodes.csv, buffers.csv):
bandwidth per node (:func:`plot_bandwidth`, ``bandwidth.png``), network throughput
(:func:`plot_throughput`, ``throughput.png``) and the occupancy of the switch input buffers
(:func:`plot_buffers`), with the tables they draw (:func:`node_bandwidth`,
:func:`buffer_occupancy`).
"""

from __future__ import annotations

from typing import List, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .._results import RunResult
from ._style import ResultLike, _line_colors, _marker_style, _new_ax, _no_data, _result, _run_title


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


def _finish_time_axis(ax, x, summary: dict) -> None:
    """Time axis of an interval plot: x limits of the data, grid, dotted warm-up marker."""
    if len(x):
        ax.set_xlim(float(x.min()), float(x.max()))
    ax.grid(True, alpha=0.3)
    warmup = summary.get("warmup_s")
    if warmup:
        ax.axvline(float(warmup), color="0.5", lw=0.8, ls=":")


def sender_colors(r: ResultLike) -> dict:
    """The colour of each sender's line in :func:`plot_bandwidth` (node name -> colour), so that
    other figures of the run can use the same."""
    tx, rx = node_bandwidth(_result(r))
    senders, _ = _busiest(tx, MAX_LINES)
    receivers, _ = _busiest(rx, MAX_LINES)
    return dict(zip(senders, _line_colors(len(senders) + len(receivers))))


def plot_bandwidth(result_or_dir: ResultLike, ax=None, unit: str = "MBps"):
    """Bandwidth of each node over time, as in the figures of the InfiniBand CC studies.

    One solid line per sending node (tx, left y axis) and one dashed line per receiving node
    (rx, right y axis, the same scale); x is the start of each interval in seconds, y in
    ``unit`` (MBps = 1e6 bytes/s). Each line has its own marker shape, the markers of different
    lines staggered along the time axis, so that lines at the same rate (drawn on top of each
    other) all stay visible; the legend says so. With more than :data:`MAX_LINES` senders (or
    receivers) only the busiest are drawn, and the title says so. Returns the left Axes; the
    right one is ``ax.right_ax``.
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
    colors = _line_colors(n_lines)
    x_tx = tx.index.to_numpy(dtype=float)
    for i, node in enumerate(senders):
        y = tx[node].to_numpy()
        ax.plot(x_tx, y, color=colors[i], lw=1.4, label=f"{node} tx", **_marker_style(i, n_lines, y))
    x_rx = rx.index.to_numpy(dtype=float)
    for j, node in enumerate(receivers):
        k = len(senders) + j
        y = rx[node].to_numpy()
        ax2.plot(x_rx, y, color=colors[k], lw=1.6, ls="--", label=f"{node} rx", markerfacecolor="white",
                 **_marker_style(k, n_lines, y))

    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"sender bandwidth ({label}, solid)")
    ax2.set_ylabel(f"receiver bandwidth ({label}, dashed)")
    # one scale on both axes (same unit: a sender and a receiver at the same rate meet), with
    # headroom above the highest line: flat lines (a link at full rate) would sit on the frame
    peaks = ([float(tx[senders].to_numpy().max())] if senders else []) + \
        ([float(rx[receivers].to_numpy().max())] if receivers else [])
    peak = max(peaks, default=0.0)
    top = peak * 1.06 if peak > 0 else 1.0
    for a in (ax, ax2):
        a.set_ylim(0, top)
    _finish_time_axis(ax, x_tx, r.summary)

    title = _run_title(r, "bandwidth per node")
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
            title="tx solid, rx dashed; each line has its own marker, staggered, so lines at equal rates stay visible",
            title_fontsize=8,
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
    title = _run_title(r, "network throughput")
    if after is not None:
        title += f" ({float(after):.2f} Gbit/s received after warm-up)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Gbit/s)")
    peak = float(max(tx.sum(axis=1).max(), rx.sum(axis=1).max())) if not rx.empty else 0.0
    ax.set_ylim(0, peak * 1.08 if peak > 0 else None)  # headroom: a flat line at the peak is not on the frame
    ax.grid(True, alpha=0.3)
    return ax


def _series_title_legend(ax, r: RunResult, what: str, shown: list, n_total: int, subset: str, nothing: str,
                         legend_y: float) -> None:
    """Title (naming the subset drawn when not every series is), legend below the axes, or a
    "no data" note when nothing is drawn."""
    title = _run_title(r, what)
    if n_total > len(shown):
        title += f" ({len(shown)} {subset.format(n=n_total)})"
    ax.set_title(title, fontsize=10)
    if shown:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, legend_y), ncol=min(6, len(shown)), fontsize=8,
                  frameon=False)
    else:
        _no_data(ax, nothing)


def buffer_occupancy(r: ResultLike, column: str = "mean_credits") -> pd.DataFrame:
    """Occupancy of every switch input buffer over time from buffers.csv: a DataFrame indexed
    by interval start (seconds), one column per buffer named ``switch:port`` (``switch:port
    vlN`` when the run has several VLs), values from ``column`` (``mean_credits``, the
    time-averaged occupancy in credits, or ``max_credits``, the peak). Raises
    ``FileNotFoundError`` when the run did not record buffer occupancy
    (``stats.buffer_occupancy = false``)."""
    r = _result(r)
    b = r.buffers
    if b is None:
        raise FileNotFoundError(f"{r.out_dir / 'buffers.csv'}: missing (stats.buffer_occupancy was off)")
    if column not in b.columns:
        raise ValueError(f"buffers.csv has no column {column!r}; columns: {', '.join(b.columns)}")
    if b.empty:
        return pd.DataFrame(index=pd.Index([], name="t_start_s", dtype=float), dtype=float)
    several_vls = b["vl"].nunique() > 1 if "vl" in b.columns else False
    labels = [
        f"{sw}:{port} vl{vl}" if several_vls else f"{sw}:{port}"
        for sw, port, vl in zip(b["switch"].astype(str), b["port"], b["vl"] if "vl" in b.columns else [0] * len(b))
    ]
    b = b.assign(buffer=labels)
    order = list(dict.fromkeys(labels))
    table = b.pivot_table(index="t_start_s", columns="buffer", values=column, aggfunc="max", sort=True)
    return table.reindex(columns=order).fillna(0.0)


def plot_buffers(result_or_dir: ResultLike, ax=None, limit: int = MAX_LINES):
    """Occupancy of the switch input buffers over time (buffers.csv, ``stats.buffer_occupancy``):
    one line per buffer (``switch:port``) of its time-averaged occupancy in credits per
    interval; only the ``limit`` buffers with the highest mean occupancy are drawn, and the
    title says so. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    table = buffer_occupancy(r)
    shown, n_active = _busiest(table, limit)
    cmap = plt.get_cmap("tab20" if len(shown) > 10 else "tab10")
    x = table.index.to_numpy(dtype=float)
    for i, name in enumerate(shown):
        ax.plot(x, table[name].to_numpy(), color=cmap(i % cmap.N), lw=1.4, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("mean occupancy (credits)")
    ax.set_ylim(bottom=0)
    _finish_time_axis(ax, x, r.summary)
    _series_title_legend(ax, r, "switch input buffer occupancy", shown, n_active, "fullest of {n} occupied buffers",
                         "buffer occupied", legend_y=-0.14)
    return ax
