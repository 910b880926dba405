"""Figures of one run of the credit-level model over time (nodes.csv, buffers.csv; the data in
seconds, the time axis labelled in s, ms or µs by the run's length):
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


#: At most this many buffers (:func:`plot_buffers`) and flows (CCTI per flow) are drawn; the
#: busiest are kept.
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


def _active(table: pd.DataFrame) -> List[str]:
    """Columns with any traffic, in their order."""
    totals = table.sum(axis=0)
    return [c for c in table.columns if totals[c] > 0]


def _busiest(table: pd.DataFrame, limit: int) -> Tuple[List[str], int]:
    """Columns with any traffic, the ``limit`` busiest of them (kept in their original order),
    and how many had traffic."""
    totals = table.sum(axis=0)
    active = _active(table)
    if len(active) <= limit:
        return active, len(active)
    keep = set(totals[active].sort_values(ascending=False, kind="stable").index[:limit])
    return [c for c in active if c in keep], len(active)


def _time_span(summary: dict, x) -> float:
    """The time a run's figures cover, in seconds: its simulated time, else the data's extent."""
    end = summary.get("sim_time_s")
    if end is not None and float(end) > 0:
        return float(end)
    x = np.asarray(x, dtype=float)
    return float(x.max() - min(x.min(), 0.0)) if len(x) else 0.0


def _time_unit_axis(ax, span_s: float, label: bool = True) -> Tuple[str, float]:
    """Labels the x axis of ``ax`` (data in seconds) in the unit chosen from ``span_s``
    (:func:`lnsim._format.time_unit`: s, ms, µs): ``time (µs)`` and tick labels in that unit.
    Returns ``(symbol, seconds per unit)``."""
    from matplotlib.ticker import FuncFormatter

    from .._format import time_unit

    symbol, per = time_unit(span_s)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v / per:.6g}"))
    if label:
        ax.set_xlabel(f"time ({symbol})")
    return symbol, per


def _warmup_label(warmup_s: float, unit: Tuple[str, float]) -> str:
    """The legend entry of the warm-up line: ``end of warm-up (450 ms)``."""
    return f"end of warm-up ({float(warmup_s) / unit[1]:.6g} {unit[0]})"


def _finish_time_axis(ax, x, summary: dict, label: bool = True) -> None:
    """Time axis of an interval plot (x in seconds): x limits of the data, the unit of the label
    and ticks chosen from the run's span (:func:`_time_unit_axis`), grid, and the dotted line
    at the end of the warm-up, labelled for the legend."""
    if len(x):
        ax.set_xlim(float(np.min(x)), float(np.max(x)))
    unit = _time_unit_axis(ax, _time_span(summary, x), label=label)
    ax.grid(True, alpha=0.3)
    warmup = summary.get("warmup_s")
    if warmup:
        ax.axvline(float(warmup), color="0.4", lw=1.0, ls=":", label=_warmup_label(warmup, unit), gid="warmup")


#: With more nodes with traffic than this (senders and receivers together), :func:`plot_bandwidth`
#: draws only the notable ones on lines of their own (:func:`notable_nodes`) and the rest of each
#: kind as its median with the min–max band; nodes.csv keeps every node.
MAX_NODE_LINES = 10
#: A node is notable when its mean rate after the warm-up is at least this many times the median
#: of its kind (a hot spot, a sender above the rest) or at most the median divided by it (a
#: starved or held-back node).
NOTABLE_RATIO = 1.5
#: At most this many notable senders, and as many receivers, get a line of their own.
MAX_NOTABLE = 4


def notable_nodes(table: pd.DataFrame, warmup_s=None, limit: int = MAX_NOTABLE) -> List[str]:
    """The notable nodes of one kind (``table``: the senders' or the receivers' bandwidth of
    :func:`node_bandwidth`): among the nodes with traffic, those whose mean rate after
    ``warmup_s`` (over the whole run when no interval starts after it) is at least
    :data:`NOTABLE_RATIO` times the median of those means, or at most the median divided by it;
    the ``limit`` farthest from the median (by ratio), in the table's order."""
    active = _active(table)
    if not active:
        return []
    after = table.loc[table.index >= float(warmup_s), active] if warmup_s else table[active]
    means = (after if len(after) else table[active]).mean(axis=0)
    median = float(means.median())
    tiny = 1e-12 * max(float(means.max()), 1e-300)
    ratio = np.log((means + tiny) / (median + tiny))
    out = ratio[(ratio >= np.log(NOTABLE_RATIO)) | (ratio <= -np.log(NOTABLE_RATIO))]
    keep = set(out.abs().sort_values(ascending=False, kind="stable").index[:limit])
    return [c for c in active if c in keep]


def _bandwidth_layout(tx: pd.DataFrame, rx: pd.DataFrame, warmup_s) -> dict:
    """Which nodes :func:`plot_bandwidth` draws on lines of their own and which in the band:
    ``{"tx": (own, rest), "rx": (own, rest)}``. Up to :data:`MAX_NODE_LINES` nodes with traffic
    all get a line; beyond, a kind with more than :data:`MAX_NOTABLE` nodes keeps its notable
    ones (:func:`notable_nodes`) and bands the rest."""
    active = {"tx": _active(tx), "rx": _active(rx)}
    banded = len(active["tx"]) + len(active["rx"]) > MAX_NODE_LINES
    out = {}
    for kind, table in (("tx", tx), ("rx", rx)):
        nodes = active[kind]
        if not banded or len(nodes) <= MAX_NOTABLE:
            out[kind] = (nodes, [])
        else:
            own = notable_nodes(table, warmup_s)
            out[kind] = (own, [c for c in nodes if c not in own])
    return out


def _own_colors(n: int, banded: bool) -> list:
    """Colours of the nodes drawn on their own: tab10 (tab20 beyond ten); with bands, tab10
    without the grey and brown of the bands."""
    if not banded:
        return _line_colors(n)
    cmap = plt.get_cmap("tab10")
    free = [cmap(i) for i in range(10) if i not in (5, 7)]
    return [free[i % len(free)] for i in range(max(n, 1))]


#: Colour of the senders' band and median (grey) and of the receivers' (brown).
_BAND_COLORS = {"tx": "C7", "rx": "C5"}


def sender_colors(r: ResultLike) -> dict:
    """The colour of each sender drawn on a line of its own in :func:`plot_bandwidth` (node name
    -> colour), so that other figures of the run can use the same."""
    r = _result(r)
    tx, rx = node_bandwidth(r)
    layout = _bandwidth_layout(tx, rx, r.summary.get("warmup_s"))
    senders, receivers = layout["tx"][0], layout["rx"][0]
    banded = bool(layout["tx"][1] or layout["rx"][1])
    return dict(zip(senders, _own_colors(len(senders) + len(receivers), banded)))


def _draw_band(ax, x, table: pd.DataFrame, nodes: List[str], kind: str, shown: int) -> tuple:
    """The median over ``nodes`` per interval (a line) and their min–max (a band), in the colour
    of ``kind``; returns the legend handle (line and band) and its label, which says how many
    nodes the band covers."""
    values = table[nodes].to_numpy(dtype=float)
    color = _BAND_COLORS[kind]
    # the senders' band filled, the receivers' hatched: where the two overlap both stay readable
    style = dict(color=color, alpha=0.2, linewidth=0) if kind == "tx" else \
        dict(facecolor="none", edgecolor=color, alpha=0.45, hatch="////", linewidth=0)
    band = ax.fill_between(x, values.min(axis=1), values.max(axis=1), gid=f"band:{kind}", **style)
    line, = ax.plot(x, np.median(values, axis=1), color=color, lw=2.0, ls="-" if kind == "tx" else "--",
                    gid=f"median:{kind}")
    who = "senders" if kind == "tx" else "receivers"
    if len(nodes) == 1:
        who = who[:-1]
    label = f"median of the {'other ' if shown else ''}{len(nodes)} {who} {kind} (band: min–max)"
    line.set_label(label)
    return (line, band), label


def plot_bandwidth(result_or_dir: ResultLike, ax=None, unit: str = "MBps"):
    """Bandwidth of each node over time, as in the figures of the InfiniBand CC studies.

    Senders solid (tx, left y axis), receivers dashed (rx, right y axis, the same scale); x is
    the start of each interval (in seconds, labelled in s, ms or µs by the run's length), y in
    ``unit`` (MBps = 1e6 bytes/s). Up to :data:`MAX_NODE_LINES` nodes with traffic each get a
    line, with its own marker shape, the markers of different lines staggered along the time
    axis, so that lines at the same rate (drawn on top of each other) all stay visible; the
    legend says so. With more, only the notable nodes of each kind get a line
    (:func:`notable_nodes`: mean rate after the warm-up at least :data:`NOTABLE_RATIO` times the
    median of its kind or at most the median divided by it, at most :data:`MAX_NOTABLE` per kind,
    e.g. the hot spots), and the rest of each kind is drawn as its median per interval with the
    min–max band, the legend saying how many nodes it covers (every node's data stays in
    nodes.csv). The end of the warm-up is a dotted line named in the legend. Returns the left
    Axes; the right one is ``ax.right_ax``.
    """
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    tx, rx = node_bandwidth(r, unit)
    layout = _bandwidth_layout(tx, rx, r.summary.get("warmup_s"))
    (senders, tx_rest), (receivers, rx_rest) = layout["tx"], layout["rx"]
    banded = bool(tx_rest or rx_rest)
    label = _UNIT_LABEL.get(unit, unit)

    ax2 = ax.twinx()
    ax.right_ax = ax2
    n_lines = len(senders) + len(receivers)
    colors = _own_colors(n_lines, banded)
    x_tx = tx.index.to_numpy(dtype=float)
    x_rx = rx.index.to_numpy(dtype=float)
    handles, labels = [], []
    if tx_rest:
        h, t = _draw_band(ax, x_tx, tx, tx_rest, "tx", len(senders))
        handles.append(h)
        labels.append(t)
    for i, node in enumerate(senders):
        y = tx[node].to_numpy()
        line, = ax.plot(x_tx, y, color=colors[i], lw=1.4, label=f"{node} tx", **_marker_style(i, n_lines, y))
        handles.append(line)
        labels.append(line.get_label())
    if rx_rest:
        h, t = _draw_band(ax2, x_rx, rx, rx_rest, "rx", len(receivers))
        handles.append(h)
        labels.append(t)
    for j, node in enumerate(receivers):
        k = len(senders) + j
        y = rx[node].to_numpy()
        line, = ax2.plot(x_rx, y, color=colors[k], lw=1.6, ls="--", label=f"{node} rx", markerfacecolor="white",
                         **_marker_style(k, n_lines, y))
        handles.append(line)
        labels.append(line.get_label())

    ax.set_ylabel(f"sender bandwidth ({label}, solid)")
    ax2.set_ylabel(f"receiver bandwidth ({label}, dashed)")
    # one scale on both axes (same unit: a sender and a receiver at the same rate meet), with
    # headroom above the highest line or band: flat lines (a link at full rate) would sit on the frame
    drawn = ((tx, senders + tx_rest), (rx, receivers + rx_rest))
    peaks = [float(t[cols].to_numpy().max()) for t, cols in drawn if cols]
    peak = max(peaks, default=0.0)
    top = peak * 1.06 if peak > 0 else 1.0
    for a in (ax, ax2):
        a.set_ylim(0, top)
    _finish_time_axis(ax, x_tx, r.summary)
    warm = [line for line in ax.get_lines() if line.get_gid() == "warmup"]
    handles += warm
    labels += [line.get_label() for line in warm]

    title = _run_title(r, "bandwidth per node")
    if banded:
        n_tx, n_rx = len(senders) + len(tx_rest), len(receivers) + len(rx_rest)
        title += f" ({n_tx} senders, {n_rx} receivers: the notable ones, the others as median and min–max band)"
    ax.set_title(title, fontsize=10)

    if handles:
        how = "tx solid, rx dashed; each line has its own marker, staggered, so lines at equal rates stay visible"
        if banded:
            how += (f"\nnotable: mean after warm-up ≥ {NOTABLE_RATIO:g}× or ≤ 1/{NOTABLE_RATIO:g} of the median "
                    f"of its kind (at most {MAX_NOTABLE} per kind)")
        ax.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.14),
            ncol=min(4 if banded else 6, len(handles)),
            fontsize=8,
            frameon=False,
            title=how,
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
    if rx.empty:
        _no_data(ax, "traffic")
    else:
        x = rx.index.to_numpy(dtype=float)
        ax.plot(tx.index.to_numpy(dtype=float), tx.sum(axis=1).to_numpy(), color="0.6", lw=1.0, label="sent (tx)")
        ax.plot(x, rx.sum(axis=1).to_numpy(), color="C0", lw=1.8, label="received (rx)")
        _finish_time_axis(ax, x, r.summary)
        ax.legend(loc="lower right", fontsize=8)
    after = (r.summary.get("throughput") or {}).get("rx_gbps_after_warmup")
    title = _run_title(r, "network throughput")
    if after is not None:
        title += f" ({float(after):.2f} Gbit/s received after warm-up)"
    ax.set_title(title, fontsize=10)
    if rx.empty:
        _time_unit_axis(ax, _time_span(r.summary, []))
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
    ax.set_ylabel("mean occupancy (credits)")
    ax.set_ylim(bottom=0)
    _finish_time_axis(ax, x, r.summary)
    _series_title_legend(ax, r, "switch input buffer occupancy", shown, n_active, "fullest of {n} occupied buffers",
                         "buffer occupied", legend_y=-0.14)
    return ax
