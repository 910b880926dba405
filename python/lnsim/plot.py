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
into a results folder (what ``lnsim plot DIR`` does); with congestion control on (the folder has
``ccti.csv``) ``bandwidth.png`` has a second panel below, :func:`plot_ccti`, on the same time
axis, and ``ccti.png`` (:func:`plot_ccti_flows`) gives each throttled flow's CCTI a panel of its
own. The figures of an incomplete run (the partial results of an interrupted run) carry a
red title saying so (:func:`incomplete_note`). Figures go into the results folder itself, or
into ``out_dir``, which must be absent, empty or a folder lnsim wrote (a new one is marked as a
figures folder). :func:`plot_sweep` draws one metric of a
sweep (``sweep.csv`` of ``lnsim sweep``) against the swept keys; :func:`plot_sweep_results`
writes it as ``sweep.png`` (what ``lnsim plot SWEEP_DIR`` does).

The cycle-level router model (``summary["model"] == "cycle"``) has its own figures: for one run,
:func:`plot_timeline` (accepted load, latency and non-minimal fraction over time in cycles, from
bins.csv, with the transient change marked) and :func:`plot_router_load` (accepted load per
router, routers.csv), written by :func:`plot_cycle_results` (what :func:`plot_results` does for
such a folder); for a load sweep (a swept ``traffic.load``), :func:`plot_load_latency` and
:func:`plot_load_throughput` (one line per combination of the other swept keys, mean over seeds
with the min–max spread shaded, optional analytical bounds), written by
:func:`plot_load_sweep_results` as ``load_latency.png`` and ``throughput.png``.
:func:`plot_sweep_folder` picks the right figures for any sweep folder.

:func:`plot_buffers` draws the occupancy of the switch input buffers over time (buffers.csv, the
fullest ones; :func:`buffer_occupancy` gives the table); ``lnsim report`` (:mod:`lnsim.report`)
puts it with the other figures into one HTML page.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

import matplotlib

if os.environ.get("MPLBACKEND") is None:  # headless by default; respect an explicit choice
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ._format import format_ns  # noqa: E402
from ._results import RunResult, load_results  # noqa: E402

__all__ = [
    "ACCEPTED_METRIC",
    "BINS_PANELS",
    "DEFAULT_SWEEP_METRIC",
    "LATENCY_BINS_PER_DECADE",
    "LATENCY_METRIC",
    "MAX_LINES",
    "UNITS",
    "buffer_occupancy",
    "flow_ccti",
    "incomplete_note",
    "is_load_sweep",
    "latency_log_bins",
    "load_curves",
    "load_key",
    "node_bandwidth",
    "plot_bandwidth",
    "plot_bandwidth_ccti",
    "plot_bins",
    "plot_buffers",
    "plot_ccti",
    "plot_ccti_flows",
    "plot_cycle_results",
    "plot_latency_histogram",
    "plot_latency_over_time",
    "plot_load_latency",
    "plot_load_sweep",
    "plot_load_sweep_results",
    "plot_load_throughput",
    "plot_nonminimal_over_time",
    "plot_results",
    "plot_router_load",
    "plot_sweep",
    "plot_sweep_folder",
    "plot_sweep_results",
    "plot_throughput",
    "plot_timeline",
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


def _save_figure(fig, path: Path, draw, note: Optional[str] = None) -> Path:
    """Calls ``draw()``, lays ``fig`` out and writes it to ``path`` (110 dpi); the figure is
    closed even when drawing fails. ``note`` (e.g. :func:`incomplete_note`) is written in red
    above the figure. Returns ``path``."""
    try:
        draw()
        if note:
            fig.suptitle(note, color="red", fontsize=10, fontweight="bold")
        fig.tight_layout()
        fig.savefig(path, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path


def _result(r: ResultLike) -> RunResult:
    return r if isinstance(r, RunResult) else load_results(r)


def incomplete_note(summary: dict) -> Optional[str]:
    """The red title line of the figures of an incomplete run (``summary["complete"]`` false:
    partial results of an interrupted run), else ``None``."""
    if summary.get("complete") is not False:
        return None
    why = summary.get("stop_reason") or "stopped early"
    if "simulated_cycles" in summary:
        done = f"{summary.get('simulated_cycles')} of {summary.get('planned_cycles')} cycles simulated"
    else:
        done = f"{summary.get('sim_time_s', 0):.6g} s of {summary.get('planned_sim_time_s', float('nan')):.6g} s simulated"
    return f"INCOMPLETE RUN ({why}): {done} — partial results"


def _figures_dir(out_dir, source) -> Path:
    """Where figures go: ``source`` itself (the results or sweep folder) when ``out_dir`` is
    ``None`` or that same folder, else ``out_dir``, which must be absent, empty or a folder
    lnsim wrote (it is created and marked as a figures folder; see :mod:`lnsim._outdir`)."""
    from ._outdir import KIND_FIGURES, prepare_folder

    if out_dir is None:
        return Path(source)
    return prepare_folder(out_dir, KIND_FIGURES, "figures folder", allow=[source])


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



def _finish_time_axis(ax, x, summary: dict) -> None:
    """Time axis of an interval plot: x limits of the data, grid, dotted warm-up marker."""
    if len(x):
        ax.set_xlim(float(x.min()), float(x.max()))
    ax.grid(True, alpha=0.3)
    warmup = summary.get("warmup_s")
    if warmup:
        ax.axvline(float(warmup), color="0.5", lw=0.8, ls=":")


#: Marker shapes of the series of a line plot, in drawing order (see :func:`_marker_style`).
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "p", "h", "*")
#: About this many markers per series.
MARKS_PER_SERIES = 10


def _marker_style(i: int, n_series: int, y) -> dict:
    """Line2D keywords giving series ``i`` of ``n_series`` (values ``y``) its own marker shape,
    placed every ``stride`` points from an offset of its own (where the value is not 0): where
    lines coincide (equal rates, drawn on top of each other) the markers of every series still
    show, side by side."""
    y = np.asarray(y, dtype=float)
    stride = max(len(y) // MARKS_PER_SERIES, n_series, 1)
    offset = (i * stride) // max(n_series, 1)
    marks = [k for k in range(offset, len(y), stride) if np.isfinite(y[k]) and y[k] != 0]
    return dict(marker=MARKERS[i % len(MARKERS)], ms=5, markevery=marks, markeredgewidth=0.8)


def _line_colors(n: int) -> list:
    """Colours of ``n`` lines (tab10, tab20 beyond ten)."""
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    return [cmap(i % cmap.N) for i in range(max(n, 1))]


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
    title = f"{r.summary.get('scenario', r.out_dir.name)}: network throughput"
    if after is not None:
        title += f" ({float(after):.2f} Gbit/s received after warm-up)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Gbit/s)")
    peak = float(max(tx.sum(axis=1).max(), rx.sum(axis=1).max())) if not rx.empty else 0.0
    ax.set_ylim(0, peak * 1.08 if peak > 0 else None)  # headroom: a flat line at the peak is not on the frame
    ax.grid(True, alpha=0.3)
    return ax


#: Display bins per decade of the latency histogram.
LATENCY_BINS_PER_DECADE = 20


#: Bucket bound columns of latency_hist.csv: InfiniBand model (ns), cycle-level model (cycles).
_HIST_COLUMNS = (("lower_ns", "upper_ns"), ("lo_cycles", "hi_cycles"))


def _hist_columns(h: pd.DataFrame) -> Tuple[str, str]:
    for lo, hi in _HIST_COLUMNS:
        if lo in h.columns and hi in h.columns:
            return lo, hi
    raise ValueError(f"latency histogram: expected columns lower_ns, upper_ns or lo_cycles, hi_cycles; got {list(h.columns)}")


def latency_log_bins(h: pd.DataFrame, per_decade: int = LATENCY_BINS_PER_DECADE) -> Tuple[np.ndarray, np.ndarray]:
    """Re-bins a latency histogram (``lower_ns, upper_ns, count``, or ``lo_cycles, hi_cycles,
    count`` for the cycle-level model; buckets of any widths) into bins of equal width on a log
    axis; each bucket's count goes to the bin of its geometric middle. Returns ``(edges,
    counts)``, edges in the histogram's unit; empty arrays when there are no packets."""
    lo_col, hi_col = _hist_columns(h)
    h = h[h["count"] > 0]
    if h.empty:
        return np.array([]), np.array([])
    lower = h[lo_col].to_numpy(dtype=float)
    upper = h[hi_col].to_numpy(dtype=float)
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
    shows, and the mean, p50, p99 and max of summary.json marked (a mark equal to an earlier
    one says so in the legend). The time axis leaves a margin beyond the data and the marks, so
    that no line sits on the frame. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    edges, counts = latency_log_bins(r.latency)
    cycles = _hist_columns(r.latency)[0] == "lo_cycles"
    fmt = _fmt_cycles if cycles else (lambda ns: format_ns(ns, ".3g"))
    if len(counts) == 0:
        _no_data(ax, "packets received")
    else:
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="C0", edgecolor="C0", alpha=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.7, top=max(counts.max() * 2.0, 2.0))
        lat = r.summary.get("latency_cycles" if cycles else "latency_ns") or {}
        marks = {k: float(lat[k]) for k in ("mean", "p50", "p99", "max") if lat.get(k) is not None and float(lat[k]) > 0}
        # a margin of a few bins beyond the data and the marks: no line sits on the frame
        pad = 10 ** (3.0 / LATENCY_BINS_PER_DECADE)
        ax.set_xlim(min([edges[0], *marks.values()]) / pad, max([edges[-1], *marks.values()]) * pad)
        styles = {"mean": ("C3", "--"), "p50": ("C2", "--"), "p99": ("C1", "-."), "max": ("0.3", ":")}
        for key, v in marks.items():
            color, ls = styles[key]
            same = [k for k in marks if k != key and marks[k] == v and list(marks).index(k) < list(marks).index(key)]
            label = f"{key} {fmt(v)}" + (f" (= {', '.join(same)})" if same else "")
            ax.axvline(v, color=color, lw=1.3 if not same else 2.2, ls=ls, label=label, zorder=3 if same else 2.5)
        if marks:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # off the bars
    ax.set_title(f"{r.summary.get('scenario', r.out_dir.name)}: packet latency", fontsize=10)
    ax.set_xlabel("latency (cycles)" if cycles else "latency (ns)")
    ax.set_ylabel(f"packets (per 1/{LATENCY_BINS_PER_DECADE} decade)")
    ax.grid(True, alpha=0.3, which="major")
    ax.grid(True, alpha=0.12, which="minor", axis="x")
    return ax


def _fmt_cycles(c: float) -> str:
    return f"{c:.4g} cycles"


def plot_results(result_or_dir: ResultLike, out_dir=None) -> List[Path]:
    """Writes ``bandwidth.png``, ``throughput.png`` and ``latency_hist.png`` into the results
    folder (or ``out_dir``) and returns their paths. With congestion control on (ccti.csv in the
    folder) ``bandwidth.png`` is :func:`plot_bandwidth_ccti` (bandwidth above, CCTI per flow
    below) and ``ccti.png`` (:func:`plot_ccti_flows`: the CCTI of each flow in a panel of its
    own) is written too. A cycle-level folder gets :func:`plot_cycle_results`'s figures
    instead."""
    r = _result(result_or_dir)
    if r.is_cycle:
        return plot_cycle_results(r, out_dir=out_dir)
    r.nodes, r.latency, r.ccti  # noqa: B018 - read and checked (ResultsError) before anything is written
    target = _figures_dir(out_dir, r.out_dir)
    target.mkdir(parents=True, exist_ok=True)
    note = incomplete_note(r.summary)
    written: List[Path] = []
    with_cc = r.ccti is not None
    for name, fn, size in (
        ("bandwidth.png", plot_bandwidth, (11, 9) if with_cc else (11, 6)),
        ("throughput.png", plot_throughput, (10, 4.5)),
        ("latency_hist.png", plot_latency_histogram, (8, 4.5)),
    ):
        if fn is plot_bandwidth and with_cc:
            fig = plt.figure(figsize=size)
        else:
            fig, ax = plt.subplots(figsize=size)
        if fn is plot_bandwidth and with_cc:
            written.append(_save_figure(fig, target / name, lambda: plot_bandwidth_ccti(r, fig=fig), note))
        else:
            written.append(_save_figure(fig, target / name, lambda: fn(r, ax=ax), note))
    if with_cc:
        n_panels = min(max(len(flow_ccti(r, "ccti_max").columns), 1), MAX_CCTI_PANELS)
        fig = plt.figure(figsize=(10, 1.5 * n_panels + 1.4))
        written.append(_save_figure(fig, target / "ccti.png", lambda: plot_ccti_flows(r, fig=fig), note))
    return written



# ---------------------------------------------------------------------------------------------
# congestion control


def _interval_starts(r: RunResult) -> np.ndarray:
    """Start of every statistics interval of the run (from nodes.csv and ccti.csv)."""
    parts = []
    if (r.out_dir / "nodes.csv").exists():
        parts.append(r.nodes["t_start_s"].to_numpy(dtype=float))
    if r.ccti is not None:
        parts.append(r.ccti["t_start_s"].to_numpy(dtype=float))
    return np.unique(np.concatenate(parts)) if parts else np.array([], dtype=float)


def flow_ccti(r: ResultLike, column: str = "ccti_end") -> pd.DataFrame:
    """CCTI of each flow at the end of every interval (``column="ccti_max"``: the highest CCTI
    within each interval), from ccti.csv: a DataFrame indexed by
    interval start (seconds, every interval of the run), one column per flow named ``src→dst``
    (``src→dst vlN`` when a pair has flows on several VLs; ``dst`` is ``*`` with
    ``cc.level = "sl"``), 0 where the flow is absent (its CCTI was at the minimum). Columns are
    in order of first appearance. Raises ``FileNotFoundError`` when the folder has no ccti.csv
    (congestion control off)."""
    r = _result(r)
    df = r.ccti
    if df is None:
        raise FileNotFoundError(f"{r.out_dir / 'ccti.csv'}: missing (congestion control was off)")
    index = pd.Index(_interval_starts(r), name="t_start_s")
    if df.empty:
        return pd.DataFrame(index=index, dtype=float)
    df = df.assign(src=df["src"].astype(str), dst=df["dst"].astype(str))
    vls_per_pair = df.groupby(["src", "dst"])["vl"].nunique()
    multi = set(vls_per_pair[vls_per_pair > 1].index)
    labels = [
        f"{s}→{d} vl{v}" if (s, d) in multi else f"{s}→{d}"
        for s, d, v in zip(df["src"], df["dst"], df["vl"])
    ]
    df = df.assign(flow=labels)
    order = list(dict.fromkeys(labels))
    table = df.pivot_table(index="t_start_s", columns="flow", values=column, aggfunc="max", sort=True)
    return table.reindex(index=index, columns=order).fillna(0.0)


def plot_ccti(result_or_dir: ResultLike, ax=None, colors: Optional[dict] = None, markers: Optional[dict] = None):
    """CCTI of each flow over time (ccti.csv; congestion control on): one line per flow of its
    CCTI at the end of each interval (x: interval start, as in :func:`plot_bandwidth`), 0 where
    the flow is absent. At most :data:`MAX_LINES` flows are drawn, those with the highest mean
    CCTI, and the title says so; the legend names them ``src→dst``. ``colors`` (source node ->
    colour) gives each flow its sender's colour when every drawn flow has its own sender (as
    :func:`plot_results` does to match the bandwidth panel). Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax)
    table = flow_ccti(r)
    means = table.mean(axis=0) if not table.empty else pd.Series(dtype=float)
    active = [c for c in table.columns if means[c] > 0]
    shown = active
    if len(active) > MAX_LINES:
        keep = set(means[active].sort_values(ascending=False, kind="stable").index[:MAX_LINES])
        shown = [c for c in active if c in keep]

    srcs = [c.split("→", 1)[0] for c in shown]
    use_src_colors = bool(colors) and len(set(srcs)) == len(srcs) and all(s in colors for s in srcs)
    cmap = plt.get_cmap("tab20" if len(shown) > 10 else "tab10")
    x = table.index.to_numpy(dtype=float)
    for i, flow in enumerate(shown):
        color = colors[srcs[i]] if use_src_colors else cmap(i % cmap.N)
        y = table[flow].to_numpy()
        style = _marker_style(i, len(shown), y)
        if use_src_colors and markers and srcs[i] in markers:
            style["marker"] = markers[srcs[i]]  # the sender's marker in the bandwidth panel
        ax.plot(x, y, color=color, lw=1.4, label=flow, **style)

    ax.set_xlabel("time (s)")
    ax.set_ylabel("CCTI (end of interval)")
    ax.set_ylim(bottom=0, top=max(float(table[shown].to_numpy().max()) * 1.05, 1.0) if shown else 1.0)
    _finish_time_axis(ax, x, r.summary)

    _series_title_legend(ax, r, "CCTI per flow", shown, len(active), "highest mean of {n} throttled flows",
                         "flow throttled (every CCTI at the minimum, 0)", legend_y=-0.2)
    return ax


def _series_title_legend(ax, r: RunResult, what: str, shown: list, n_total: int, subset: str, nothing: str,
                         legend_y: float) -> None:
    """Title (naming the subset drawn when not every series is), legend below the axes, or a
    "no data" note when nothing is drawn."""
    title = f"{r.summary.get('scenario', r.out_dir.name)}: {what}"
    if n_total > len(shown):
        title += f" ({len(shown)} {subset.format(n=n_total)})"
    ax.set_title(title, fontsize=10)
    if shown:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, legend_y), ncol=min(6, len(shown)), fontsize=8,
                  frameon=False)
    else:
        _no_data(ax, nothing)


def plot_bandwidth_ccti(result_or_dir: ResultLike, fig=None, unit: str = "MBps"):
    """Bandwidth per node (:func:`plot_bandwidth`, top) and CCTI per flow (:func:`plot_ccti`,
    bottom) on one shared time axis, as in the figures of the InfiniBand CC studies; each flow's
    CCTI line has its sender's colour when each drawn flow has its own sender. Returns the two
    Axes ``(top, bottom)``."""
    r = _result(result_or_dir)
    if fig is None:
        fig = plt.figure(figsize=(11, 9))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    plot_bandwidth(r, ax=top, unit=unit)
    top.set_xlabel("")
    top.tick_params(labelbottom=True)  # the legend sits below the top panel: keep its time ticks
    tx_lines = [line for line in top.get_lines() if line.get_label().endswith(" tx")]
    colors = {line.get_label()[: -len(" tx")]: line.get_color() for line in tx_lines}
    markers = {line.get_label()[: -len(" tx")]: line.get_marker() for line in tx_lines}
    plot_ccti(r, ax=bottom, colors=colors, markers=markers)
    return top, bottom


#: At most this many flows get a panel of their own in :func:`plot_ccti_flows`.
MAX_CCTI_PANELS = 8


def plot_ccti_flows(result_or_dir: ResultLike, fig=None, limit: int = MAX_CCTI_PANELS):
    """CCTI over time, one panel per throttled flow (per source HCA and VL with
    ``cc.level = "sl"``), on shared time and CCTI axes (ccti.csv; congestion control on): the
    CCTI at the end of each interval (a step line) and, shaded, up to the highest CCTI within
    the interval; 0 = not throttled. Each flow has its sender's colour of :func:`plot_bandwidth`
    when every drawn flow has its own sender. The flows with the highest mean CCTI are drawn (at most
    ``limit``, the title says so), in their order of first throttling; each panel names its
    flow with its mean CCTI after the warm-up and its maximum. This is ``ccti.png`` of
    :func:`plot_results`. Returns the Axes, top to bottom."""
    r = _result(result_or_dir)
    end = flow_ccti(r, "ccti_end")
    high = flow_ccti(r, "ccti_max")
    means = end.mean(axis=0) if not end.empty else pd.Series(dtype=float)
    active = [c for c in end.columns if high[c].max() > 0]
    shown = active
    if len(active) > limit:
        keep = set(means[active].sort_values(ascending=False, kind="stable").index[:limit])
        shown = [c for c in active if c in keep]
    if fig is None:
        fig = plt.figure(figsize=(10, 1.5 * max(len(shown), 1) + 1.4))
    axes = np.atleast_1d(fig.subplots(max(len(shown), 1), 1, sharex=True, sharey=True))
    x = end.index.to_numpy(dtype=float)
    interval = float(r.summary.get("interval_s") or (np.min(np.diff(x)) if len(x) > 1 else 1.0))
    xs = np.append(x, x[-1] + interval) if len(x) else x
    top = float(high[shown].to_numpy().max()) if shown else 1.0
    warm = r.summary.get("warmup_s")
    per_sl = r.ccti is not None and not r.ccti.empty and (r.ccti["dst"].astype(str) == "*").all()
    srcs = [c.split("→", 1)[0] for c in shown]
    by_src = sender_colors(r) if (r.out_dir / "nodes.csv").is_file() else {}
    same = len(set(srcs)) == len(srcs) and all(src in by_src for src in srcs)  # the bandwidth figure's colours
    for i, (ax, flow) in enumerate(zip(axes, shown)):
        color = by_src[srcs[i]] if same else f"C{i % 10}"
        e, h = end[flow].to_numpy(dtype=float), high[flow].to_numpy(dtype=float)
        ax.fill_between(xs, np.append(e, e[-1]), np.append(h, h[-1]), step="post", color=color, alpha=0.2,
                        linewidth=0, label="highest CCTI within the interval")
        ax.step(xs, np.append(e, e[-1]), where="post", color=color, lw=1.3, label="CCTI at the end of the interval")
        after = e[x >= float(warm)] if warm is not None else e
        mean = float(np.mean(after)) if len(after) else float("nan")
        name = flow.replace("→*", "") + (" (all its flows on this SL)" if per_sl else "")
        ax.text(0.005, 0.93, f"{name}: mean {mean:.1f} after warm-up, max {int(h.max())}", transform=ax.transAxes,
                ha="left", va="top", fontsize=8.5, bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1.5))
        ax.set_ylabel("CCTI", fontsize=8)
        ax.grid(True, alpha=0.3)
        if warm:
            ax.axvline(float(warm), color="0.4", lw=0.9, ls=":", label="end of warm-up")
    if len(xs):
        axes[-1].set_xlim(float(xs[0]), float(xs[-1]))
    axes[-1].set_ylim(0, max(top * 1.25, 1.0))
    axes[-1].set_xlabel("time (s)")
    what = "CCTI per source HCA and SL" if per_sl else "CCTI per flow"
    title = f"{r.summary.get('scenario', r.out_dir.name)}: {what} (0 = not throttled)"
    if len(active) > len(shown):
        title += f", the {len(shown)} highest of {len(active)} throttled"
    axes[0].set_title(title, fontsize=10)
    if shown:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles = [Patch(color="0.4", alpha=0.25, linewidth=0, label="highest CCTI within the interval"),
                   Line2D([], [], color="0.2", lw=1.3, label="CCTI at the end of the interval")]
        if warm:
            handles.append(Line2D([], [], color="0.4", lw=0.9, ls=":", label="end of warm-up"))
        axes[-1].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.45 if len(shown) > 1 else -0.3),
                        ncol=3, fontsize=8, frameon=False)
    else:
        _no_data(axes[0], "flow throttled (every CCTI stayed at the minimum, 0)")
        if len(xs):
            _finish_time_axis(axes[0], xs, r.summary)
    return tuple(axes)


# ---------------------------------------------------------------------------------------------
# sweeps

#: Metric drawn by :func:`plot_sweep` unless told otherwise (a column of sweep.csv).
DEFAULT_SWEEP_METRIC = "throughput.total_rx_gbytes_per_s"

#: Axis labels of well-known sweep.csv columns.
_METRIC_LABEL = {
    "throughput.total_rx_gbytes_per_s": "total received (GB/s)",
    "throughput.total_tx_gbytes_per_s": "total sent (GB/s)",
    "throughput.total_rx_gbps": "total received (Gbit/s)",
    "throughput.total_tx_gbps": "total sent (Gbit/s)",
    "throughput.rx_gbytes_per_s_after_warmup": "received after warm-up (GB/s)",
    "throughput.tx_gbytes_per_s_after_warmup": "sent after warm-up (GB/s)",
    "throughput.rx_gbps_after_warmup": "received after warm-up (Gbit/s)",
    "throughput.tx_gbps_after_warmup": "sent after warm-up (Gbit/s)",
    "latency_ns.mean": "mean packet latency (ns)",
    "latency_ns.p99": "p99 packet latency (ns)",
    "fairness.jain": "Jain fairness index",
    "cc.max_ccti": "highest CCTI reached",
    "offered_load": "offered load (phits/node/cycle)",
    "accepted_load": "accepted load (phits/node/cycle)",
    "injected_load": "injected load (phits/node/cycle)",
    "latency_cycles.mean": "mean packet latency (cycles)",
    "latency_cycles.p50": "median packet latency (cycles)",
    "latency_cycles.p99": "p99 packet latency (cycles)",
    "network_latency_cycles.mean": "mean network latency (cycles)",
    "nonminimal_fraction": "non-minimal fraction",
    "avg_hops": "mean hops",
    "fairness.jain_routers": "Jain fairness index (routers)",
}

#: Metric of a sweep of the cycle-level model when none is given (no IB throughput column).
CYCLE_SWEEP_METRIC = "accepted_load"


def default_sweep_metric(df: pd.DataFrame) -> str:
    """The metric drawn when none is given: :data:`DEFAULT_SWEEP_METRIC` (InfiniBand model), or
    ``accepted_load`` for a sweep of the cycle-level model."""
    if DEFAULT_SWEEP_METRIC not in df.columns and CYCLE_SWEEP_METRIC in df.columns:
        return CYCLE_SWEEP_METRIC
    return DEFAULT_SWEEP_METRIC


def _sweep_frame(df_or_dir) -> Tuple[pd.DataFrame, List[str]]:
    from ._sweep import load_sweep, sweep_keys

    if isinstance(df_or_dir, pd.DataFrame):
        return df_or_dir, sweep_keys(df_or_dir)
    df = load_sweep(df_or_dir)
    return df, list(df.attrs["keys"])


def _in_order(values) -> list:
    """Distinct values in order of first appearance (= sweep order: rows are in run order)."""
    return list(dict.fromkeys(values))


def _label(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v)) if abs(v) < 1e15 else f"{v:g}"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def _metric_values(df: pd.DataFrame, metric: str) -> pd.Series:
    """``metric`` of every successful row as numbers (NaN for failed rows); a value of a
    successful row that is not a number raises :class:`lnsim.ResultsError` naming sweep.csv,
    the line and the column."""
    from ._read import sweep_numbers

    if metric not in df.columns:
        numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
        raise ValueError(f"metric {metric!r} is not a column of sweep.csv; numeric columns: {', '.join(numeric)}")
    return sweep_numbers(df, metric)


def heatmap_cell_format(values) -> str:
    """The format of the numbers written in heatmap cells: whole numbers without decimals when
    every value is whole (a CCTI of 128 is "128", not "128.00"), else two decimals."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return ".0f" if v.size and np.all(v == np.round(v)) else ".2f"


def plot_sweep(df_or_dir, metric: Optional[str] = None, ax=None):
    """One metric of a sweep against the swept keys (``sweep.csv`` of ``lnsim sweep``, given as
    a DataFrame from :func:`lnsim.sweep` or a sweep folder).

    One swept key: a line of ``metric`` against the key's values (a numeric axis when the values
    are increasing, roughly evenly spaced numbers, else one evenly spaced tick per value in sweep
    order). Two or more keys:
    a heatmap with one row per value of the first key, one column per value (or combination of
    values) of the others, in sweep order, each cell annotated with the value (to 2 decimals, or
    none when every value is a whole number: :func:`heatmap_cell_format`) and a colour bar; failed points are blank. Several runs of a point (seeds) are averaged.
    ``metric`` defaults to :func:`default_sweep_metric`. Returns the Axes.
    """
    df, keys = _sweep_frame(df_or_dir)
    metric = metric or default_sweep_metric(df)
    if not keys:
        raise ValueError("the sweep table has no swept-key columns (before `point`)")
    ax = _new_ax(ax, figsize=(7, 4.5) if len(keys) == 1 else (8, 5.5))
    y = _metric_values(df, metric)
    label = _METRIC_LABEL.get(metric, metric)
    scen = None
    if "scenario" in df.columns and df["scenario"].notna().any():
        scen = str(df["scenario"].dropna().iloc[0])
    what = f"{label} ({metric})" if label != metric else metric  # the unit is in the label
    title = f"{scen}: {what}" if scen else what

    if len(keys) == 1:
        key = keys[0]
        xs = _in_order(df[key])
        means = [float(y[df[key] == v].mean()) for v in xs]
        numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                      for v in xs)
        gaps = np.diff(np.asarray(xs, dtype=float)) if numeric and len(xs) > 1 else np.array([])
        if gaps.size and np.all(gaps > 0) and gaps.max() <= 4 * gaps.min():
            pos = [float(v) for v in xs]  # increasing, roughly even: a true numeric axis
        else:
            pos = list(range(len(xs)))
        ax.plot(pos, means, marker="o", color="C0", lw=1.6)
        ax.set_xticks(pos)
        ax.set_xticklabels([_label(v) for v in xs], rotation=30 if len(xs) > 8 else 0)
        for px, m in zip(pos, means):
            if np.isnan(m):
                ax.annotate("failed", (px, 0), color="C3", fontsize=8, ha="center", xycoords=("data", "axes fraction"),
                            xytext=(0, 4), textcoords="offset points")
        ax.set_xlabel(key)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        if np.all(np.isnan(means)):
            _no_data(ax, "successful point")
        elif np.nanmin(means) >= 0:
            ax.set_ylim(bottom=0, top=np.nanmax(means) * 1.08 if np.nanmax(means) > 0 else 1.0)
        ax.set_title(title, fontsize=10)
        return ax

    row_key, col_keys = keys[0], keys[1:]
    rows = _in_order(df[row_key])
    col_tuples = list(dict.fromkeys(zip(*(df[k] for k in col_keys))))
    grid = np.full((len(rows), len(col_tuples)), np.nan)
    failed = np.zeros(grid.shape, dtype=bool)
    r_index = {v: i for i, v in enumerate(rows)}
    c_index = {v: j for j, v in enumerate(col_tuples)}
    sums = np.zeros(grid.shape)
    counts = np.zeros(grid.shape)
    for (i_row, row), val in zip(df.iterrows(), y):
        i = r_index[row[row_key]]
        j = c_index[tuple(row[k] for k in col_keys)]
        if np.isnan(val):
            failed[i, j] = True
        else:
            sums[i, j] += val
            counts[i, j] += 1
    with np.errstate(invalid="ignore"):
        grid = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    cmap = plt.get_cmap("viridis")
    cmap = cmap.with_extremes(bad="0.85") if hasattr(cmap, "with_extremes") else cmap  # failed: grey
    finite = grid[np.isfinite(grid)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if vmin == vmax:
        vmin, vmax = vmin - 0.5 * (abs(vmin) or 1.0), vmax + 0.5 * (abs(vmax) or 1.0)
    im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", origin="upper")
    cbar = ax.figure.colorbar(im, ax=ax)
    cbar.set_label(label)
    fontsize = 9 if grid.size <= 64 else (7 if grid.size <= 200 else 5)
    cell_format = heatmap_cell_format(finite)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            v = grid[i, j]
            if np.isfinite(v):
                r, g, b, _ = cmap((v - vmin) / (vmax - vmin))
                color = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
                ax.text(j, i, format(v, cell_format), ha="center", va="center", fontsize=fontsize, color=color)
            elif failed[i, j]:
                ax.text(j, i, "failed", ha="center", va="center", fontsize=fontsize, color="C3")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_label(v) for v in rows])
    ax.set_xticks(range(len(col_tuples)))
    ax.set_xticklabels([" / ".join(_label(v) for v in t) for t in col_tuples],
                       rotation=30 if len(col_tuples) > 6 or len(col_keys) > 1 else 0,
                       ha="right" if len(col_tuples) > 6 or len(col_keys) > 1 else "center")
    ax.set_ylabel(row_key)
    ax.set_xlabel(" / ".join(col_keys))
    ax.set_title(title, fontsize=10)
    return ax


def plot_sweep_results(sweep_dir, out_dir=None, metric: Optional[str] = None) -> Path:
    """Writes ``sweep.png`` (:func:`plot_sweep` of ``metric``) into the sweep folder (or
    ``out_dir``) and returns its path."""
    from ._sweep import SWEEP_PNG, load_sweep

    df = load_sweep(sweep_dir)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    keys = df.attrs["keys"]
    fig, ax = plt.subplots(figsize=(7, 4.5) if len(keys) == 1 else (8, 5.5))
    return _save_figure(fig, target / SWEEP_PNG, lambda: plot_sweep(df, metric=metric, ax=ax))


# ---------------------------------------------------------------------------------------------
# one run of the cycle-level model (bins.csv, routers.csv)

#: bins.csv columns drawn over time by :func:`plot_timeline`: column -> y-axis label.
BINS_PANELS = {
    "accepted_load": "accepted load\n(phits/node/cycle)",
    "latency_mean": "mean latency\n(cycles)",
    "nonminimal_fraction": "non-minimal\nfraction",
}


def _bins(r: RunResult) -> pd.DataFrame:
    b = r.bins
    if b is None:
        raise FileNotFoundError(f"{r.out_dir / 'bins.csv'}: missing (not a cycle-level results folder)")
    return b


def _finish_cycle_axis(ax, x: np.ndarray, summary: dict) -> None:
    """Time axis in cycles: x limits of the data, grid, a dashed red line at the transient change
    (``summary["change_cycle"]``) and a dotted line at the end of the warm-up, drawn on top; when
    both are at the same cycle, one dashed line labelled with both."""
    if len(x):
        ax.set_xlim(float(np.min(x)), float(np.max(x)))
    ax.grid(True, alpha=0.3)
    warmup = summary.get("warmup_cycles")
    change = summary.get("change_cycle")
    shown = warmup and len(x) and float(np.min(x)) < float(warmup) < float(np.max(x))
    if change is not None and shown and float(change) == float(warmup):  # one line, both names
        ax.axvline(float(change), color="C3", lw=1.2, ls="--",
                   label=f"end of warm-up = transient change (cycle {int(change)})")
        return
    if change is not None:
        ax.axvline(float(change), color="C3", lw=1.2, ls="--", label=f"transient change (cycle {int(change)})")
    if shown:  # drawn last, on top: never hidden under the change line
        ax.axvline(float(warmup), color="0.25", lw=1.2, ls=":", label=f"end of warm-up (cycle {int(warmup)})",
                   zorder=3)


def plot_bins(result_or_dir: ResultLike, column: str, ax=None, ylabel: Optional[str] = None):
    """One column of bins.csv (cycle-level model) over time: a step line, each bin drawn over
    ``[start_cycle, end_cycle)``; bins without a value (no packet delivered) are gaps. Marks
    the end of the warm-up (dotted) and the transient change (``change_cycle`` of summary.json,
    dashed red). Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax, figsize=(10, 3.5))
    b = _bins(r)
    if column not in b.columns:
        raise ValueError(f"bins.csv has no column {column!r}; columns: {', '.join(b.columns)}")
    if b.empty:
        _no_data(ax, "time bins")
        x = np.array([], dtype=float)
    else:
        x = np.append(b["start_cycle"].to_numpy(dtype=float), float(b["end_cycle"].iloc[-1]))
        y = pd.to_numeric(b[column], errors="coerce").to_numpy(dtype=float)
        ax.step(x, np.append(y, y[-1]), where="post", color="C0", lw=1.4)
    ax.set_xlabel("time (cycles)")
    ax.set_ylabel(ylabel or BINS_PANELS.get(column, column))
    ax.set_ylim(bottom=0)
    _finish_cycle_axis(ax, x, r.summary)
    return ax


def plot_latency_over_time(result_or_dir: ResultLike, ax=None):
    """Mean packet latency per time bin (bins.csv ``latency_mean``), in cycles."""
    return plot_bins(result_or_dir, "latency_mean", ax=ax, ylabel="mean latency (cycles)")


def plot_nonminimal_over_time(result_or_dir: ResultLike, ax=None):
    """Fraction of packets routed non-minimally per time bin (bins.csv)."""
    ax = plot_bins(result_or_dir, "nonminimal_fraction", ax=ax, ylabel="non-minimal fraction")
    ax.set_ylim(0, 1.02)
    return ax


def plot_timeline(result_or_dir: ResultLike, fig=None, columns=tuple(BINS_PANELS)):
    """Panels of bins.csv over time sharing one time axis in cycles (by default accepted load,
    mean latency and non-minimal fraction; see :data:`BINS_PANELS`), with the end of the warm-up
    and the transient change marked; the legend sits below the time axis, off the data.
    Returns the Axes, top to bottom."""
    r = _result(result_or_dir)
    b = _bins(r)
    shown = [c for c in columns if c in b.columns]
    if fig is None:
        fig = plt.figure(figsize=(10, 2.6 * max(len(shown), 1) + 0.6))
    axes = np.atleast_1d(fig.subplots(max(len(shown), 1), 1, sharex=True))
    for ax, column in zip(axes, shown):
        plot_bins(r, column, ax=ax)
        ax.set_xlabel("")
        if column == "nonminimal_fraction":
            ax.set_ylim(0, 1.02)
    axes[-1].set_xlabel("time (cycles)")
    title = f"{r.summary.get('scenario', r.out_dir.name)}: over time"
    detail = ", ".join(str(r.summary[k]) for k in ("routing", "pattern") if r.summary.get(k))
    axes[0].set_title(f"{title} ({detail})" if detail else title, fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:  # below the time axis: it never covers the data (e.g. after the change)
        axes[-1].legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=len(handles),
                        fontsize=8, frameon=False)
    return tuple(axes)


def plot_router_load(result_or_dir: ResultLike, ax=None):
    """Accepted load of each router (routers.csv, cycle-level model) as bars in router order,
    groups in alternating shades; injected load as dots and the offered load (summary.json)
    as a dashed line. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax, figsize=(11, 4.5))
    t = r.routers
    if t is None:
        raise FileNotFoundError(f"{r.out_dir / 'routers.csv'}: missing (not a cycle-level results folder)")
    if t.empty:
        _no_data(ax, "routers")
    else:
        x = np.arange(len(t))
        groups = t["group"].to_numpy() if "group" in t.columns else np.zeros(len(t), dtype=int)
        parity = pd.factorize(groups)[0] % 2
        colors = np.where(parity == 0, "C0", "#8fbbd9")
        ax.bar(x, t["accepted_load"].to_numpy(dtype=float), width=1.0, color=colors, linewidth=0, label="accepted")
        if "injected_load" in t.columns:
            ax.plot(x, t["injected_load"].to_numpy(dtype=float), ls="none", marker=".", ms=3, color="0.2",
                    label="injected")
        offered = r.summary.get("offered_load")
        if offered is not None:
            ax.axhline(float(offered), color="C3", lw=1.0, ls="--", label=f"offered {float(offered):.4g}")
        _group_ticks(ax, groups)
        ax.set_xlim(-0.5, len(t) - 0.5)
        ax.legend(loc="lower right", fontsize=8)
    ax.set_ylabel("load (phits/node/cycle)")
    ax.set_ylim(bottom=0)
    ax.set_axisbelow(True)
    ax.grid(True, axis="y", alpha=0.3)
    fair = r.summary.get("fairness") or {}
    title = f"{r.summary.get('scenario', r.out_dir.name)}: accepted load per router"
    if fair.get("jain_routers") is not None:
        title += f" (Jain {float(fair['jain_routers']):.4f})"
    ax.set_title(title, fontsize=10)
    return ax


#: At most this many groups get a tick label of their own in :func:`plot_router_load`.
MAX_GROUP_TICKS = 24


def _group_ticks(ax, groups: np.ndarray) -> None:
    """x ticks of the router bar chart: one per group at its middle (few groups), else router
    numbers."""
    codes, names = pd.factorize(groups)
    if len(names) <= 1 or len(names) > MAX_GROUP_TICKS:
        ax.set_xlabel("router")
        return
    middles = [float(np.mean(np.flatnonzero(codes == i))) for i in range(len(names))]
    ax.set_xticks(middles)
    ax.set_xticklabels([_label(g) for g in names], fontsize=8)
    ax.set_xlabel("group (routers in order)")


def plot_cycle_results(result_or_dir: ResultLike, out_dir=None) -> List[Path]:
    """Figures of a cycle-level results folder, written into it (or ``out_dir``):
    ``timeline.png`` (:func:`plot_timeline`, from bins.csv), ``routers.png``
    (:func:`plot_router_load`, from routers.csv) and ``latency_hist.png``
    (:func:`plot_latency_histogram`, in cycles), each when its table is there. Returns the
    paths written."""
    r = _result(result_or_dir)
    has_latency = (r.out_dir / "latency_hist.csv").is_file()
    # every table is read (and checked: ResultsError) before any figure is written
    r.bins, r.routers, has_latency and r.latency  # noqa: B018
    target = _figures_dir(out_dir, r.out_dir)
    target.mkdir(parents=True, exist_ok=True)
    note = incomplete_note(r.summary)
    written: List[Path] = []
    jobs = []
    if r.bins is not None:
        jobs.append(("timeline.png", (10, 8.4), lambda fig: plot_timeline(r, fig=fig)))
    if r.routers is not None:
        jobs.append(("routers.png", (11, 4.5), lambda fig: plot_router_load(r, ax=fig.subplots())))
    if has_latency:
        jobs.append(("latency_hist.png", (8, 4.5), lambda fig: plot_latency_histogram(r, ax=fig.subplots())))
    for name, size, draw in jobs:
        fig = plt.figure(figsize=size)
        written.append(_save_figure(fig, target / name, lambda: draw(fig), note))
    return written


# ---------------------------------------------------------------------------------------------
# load sweeps of the cycle-level model

#: sweep.csv column of the offered load (summary.json ``offered_load``, phits/node/cycle).
LOAD_COLUMN = "offered_load"
#: The usual swept key of a load sweep.
LOAD_KEY = "traffic.load"
#: Metrics of :func:`plot_load_latency` and :func:`plot_load_throughput`.
LATENCY_METRIC = "latency_cycles.mean"
ACCEPTED_METRIC = "accepted_load"
#: File names written by :func:`plot_load_sweep_results`.
LOAD_LATENCY_PNG = "load_latency.png"
THROUGHPUT_PNG = "throughput.png"

_LOAD_LABEL = "offered load (phits/node/cycle)"


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
               for v in values)


def load_key(df: pd.DataFrame, keys: Sequence[str]) -> Optional[str]:
    """The swept key that is the offered load of a cycle-level sweep, or ``None`` (not a load
    sweep): the table must have an ``offered_load`` column; the key is ``traffic.load`` if
    swept, else another numeric key named ``....load``, else a numeric key equal to
    ``offered_load`` in every successful row."""
    if LOAD_COLUMN not in df.columns:
        return None
    named = [k for k in keys if k == LOAD_KEY] + [k for k in keys if k != LOAD_KEY and k.rsplit(".", 1)[-1] == "load"]
    for k in named:
        if _numeric(df[k].dropna()):
            return k
    ok = df["status"] == "ok" if "status" in df.columns else pd.Series(True, index=df.index)
    offered = _metric_values(df, LOAD_COLUMN)[ok]
    for k in keys:
        vals = df.loc[ok, k]
        if len(vals) and _numeric(vals) and offered.notna().all() and np.allclose(vals.to_numpy(dtype=float), offered):
            return k
    return None


def is_load_sweep(df_or_dir) -> bool:
    """True when a sweep (DataFrame or folder) is a load sweep of the cycle-level model
    (:func:`load_key`)."""
    df, keys = _sweep_frame(df_or_dir)
    return load_key(df, keys) is not None


def _true(series: pd.Series, path=None) -> pd.Series:
    """``saturated`` as booleans, whether read from CSV as bools, strings or numbers (blank:
    false). Any other value raises :class:`lnsim.ResultsError` naming ``path`` (the sweep.csv
    it was read from), the line and the column; without ``path`` it counts as false."""
    from ._read import ResultsError

    def flag(v) -> bool:
        text = str(v).strip().lower()
        if text in ("true", "1", "1.0"):
            return True
        if text in ("false", "0", "0.0", "nan", "none", ""):
            return False
        raise ValueError(text)

    out = []
    for i, v in enumerate(series):
        try:
            out.append(flag(v))
        except ValueError:
            if path is None:
                out.append(False)
                continue
            raise ResultsError(path, f"column `{series.name}`: {v!r} is not true or false", column=str(series.name),
                               line=i + 2) from None
    return pd.Series(out, index=series.index, dtype=bool)


def _line_labels(df: pd.DataFrame, others: Sequence[str]) -> List[str]:
    """Label of each row's line: the values of the other swept keys joined by `` / ``; with no
    other key, the routing of the summary (or the metric's line has no label)."""
    if others:
        return [" / ".join(_label(v) for v in t) for t in zip(*(df[k] for k in others))]
    if "routing" in df.columns and df["routing"].notna().any():
        return [str(df["routing"].dropna().iloc[0])] * len(df)
    return [""] * len(df)


def load_curves(df_or_dir, metric: str, drop_saturated: bool = False) -> pd.DataFrame:
    """The curves of a load sweep for one metric: one row per line and load with the columns
    ``line`` (values of the swept keys other than the load, joined by `` / ``), ``load``,
    ``mean``, ``min``, ``max`` (over the seeds of that point) and ``runs`` (how many
    successful runs are in it). Lines are in sweep order, loads increasing. Failed runs are
    left out; with ``drop_saturated`` so is every load point of a line where any seed is
    ``saturated`` (its latency has no steady state). Raises ``ValueError`` when the sweep is
    not a load sweep or ``metric`` is not a column."""
    df, keys = _sweep_frame(df_or_dir)
    key = load_key(df, keys)
    if key is None:
        raise ValueError("not a load sweep: sweep.csv needs an offered_load column and a swept load key (traffic.load)")
    others = [k for k in keys if k != key]
    t = pd.DataFrame(
        {
            "line": _line_labels(df, others),
            "load": pd.to_numeric(df[key], errors="coerce"),
            "y": _metric_values(df, metric),
            "saturated": _true(df["saturated"], df.attrs.get("path")) if "saturated" in df.columns else False,
        }
    )
    order = _in_order(t["line"])
    if drop_saturated:
        sat = t.groupby(["line", "load"])["saturated"].transform("any")
        t = t[~sat]
    t = t.dropna(subset=["y", "load"])
    g = t.groupby(["line", "load"], sort=False)["y"]
    out = g.agg(["mean", "min", "max", "count"]).reset_index().rename(columns={"count": "runs"})
    out["line"] = pd.Categorical(out["line"], categories=order, ordered=True)
    out = out.sort_values(["line", "load"], kind="stable").reset_index(drop=True)
    out["line"] = out["line"].astype(str)
    return out


def _sweep_title(df: pd.DataFrame, what: str) -> str:
    parts = []
    for col in ("scenario", "topology"):
        if col in df.columns and df[col].notna().any():
            parts.append(str(df[col].dropna().iloc[0]))
    return f"{', '.join(parts)}: {what}" if parts else what


def _draw_curves(ax, curves: pd.DataFrame, order: Optional[List[str]] = None,
                 left_out: Optional[dict] = None) -> List[str]:
    """One line per curve (mean, marked) with the min–max spread over seeds shaded. ``order``
    (every line of the sweep, in sweep order) fixes each line's colour, so that a line keeps its
    colour from figure to figure; ``left_out`` (line -> number of saturated load points left
    out) is said in the legend, and a line of ``order`` with no point left to draw gets a legend
    entry of its own saying that all its points saturated. Each curve's Line2D has the gid
    ``curve:<line>`` (``all-saturated:<line>`` for such an entry)."""
    lines = _in_order(curves["line"])
    order = list(order) if order is not None else lines
    left_out = left_out or {}
    for name in order:
        i = order.index(name)
        color = f"C{i % 10}"
        k = left_out.get(name, 0)
        if name not in lines:
            if k:  # every point saturated: nothing to draw, but the line is not forgotten
                ax.plot([], [], marker=MARKERS[i % len(MARKERS)], mfc="none", ms=6, ls=":", lw=1.2, color=color,
                        gid=f"all-saturated:{name}",
                        label=f"{name or 'all runs'}: all {k} point{'s' if k > 1 else ''} saturated (left out)")
            continue
        c = curves[curves["line"] == name]
        x = c["load"].to_numpy(dtype=float)
        label = name or None
        if k:
            label = f"{name or 'all runs'} ({k} saturated point{'s' if k > 1 else ''} left out)"
        # a marker shape per line, earlier lines' markers larger: where lines coincide (equal
        # values at the same loads) the markers of the line underneath still show
        ax.plot(x, c["mean"].to_numpy(dtype=float), marker=MARKERS[i % len(MARKERS)], ms=max(7.0 - 1.0 * i, 3.5),
                lw=1.6, color=color, label=label, gid=f"curve:{name}")
        if (c["runs"] > 1).any():
            ax.fill_between(x, c["min"].to_numpy(dtype=float), c["max"].to_numpy(dtype=float), color=color,
                            alpha=0.2, linewidth=0)
    return lines


def _draw_bounds(ax, bounds: Optional[dict], vertical: bool) -> None:
    """Reference lines at the analytical bounds ``{label: value}``: horizontal (a bound on the
    accepted load) or vertical (the same bound as an offered load)."""
    styles = ["--", "-.", ":", (0, (5, 1, 1, 1))]
    for i, (label, value) in enumerate((bounds or {}).items()):
        kw = dict(color="0.3", lw=1.0, ls=styles[i % len(styles)], label=f"{label} = {float(value):.4g}")
        (ax.axvline if vertical else ax.axhline)(float(value), **kw)


def plot_load_sweep(df_or_dir, metric: str, ax=None, drop_saturated: bool = False, bounds: Optional[dict] = None,
                    bounds_vertical: bool = False, diagonal: bool = False):
    """``metric`` of a load sweep against the offered load (:func:`load_curves`): one line per
    combination of the other swept keys (e.g. per ``routing.algorithm``, each with the same
    colour in every figure of the sweep), the mean over seeds with the min–max spread shaded;
    with ``drop_saturated`` the saturated load points are left out and the legend says how many
    per line (a line whose points all saturated keeps a legend entry saying so); ``bounds``
    (``{label: value}``) drawn as reference lines (vertical with ``bounds_vertical``),
    ``diagonal`` adds y = x. Returns the Axes."""
    df, keys = _sweep_frame(df_or_dir)
    ax = _new_ax(ax, figsize=(7.5, 5))
    every = load_curves(df, metric)
    curves = load_curves(df, metric, drop_saturated=drop_saturated) if drop_saturated else every
    order = _in_order(every["line"])
    left_out = {}
    if drop_saturated:
        kept = set(zip(curves["line"], curves["load"]))
        for name, load in zip(every["line"], every["load"]):
            if (name, load) not in kept:
                left_out[name] = left_out.get(name, 0) + 1
    if curves.empty and not left_out:
        _no_data(ax, "successful run")
    _draw_curves(ax, curves, order=order, left_out=left_out)
    if diagonal:
        loads = pd.to_numeric(df[load_key(df, keys)], errors="coerce").dropna()
        top = float(loads.max()) if len(loads) else 1.0
        ax.plot([0.0, top], [0.0, top], color="0.6", lw=1.0, ls=":", label="accepted = offered", zorder=1)
    _draw_bounds(ax, bounds, bounds_vertical)
    ax.set_xlabel(_LOAD_LABEL)
    ax.set_ylabel(_METRIC_LABEL.get(metric, metric))
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    others = [k for k in keys if k != load_key(df, keys)]
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=8, title=" / ".join(others) or None, title_fontsize=8, loc="best")
    ax.set_title(_sweep_title(df, f"{metric} vs offered load"), fontsize=10)
    return ax


def plot_load_latency(df_or_dir, ax=None, metric: str = LATENCY_METRIC, bounds: Optional[dict] = None):
    """Mean packet latency (cycles) against the offered load, one line per combination of the
    other swept keys, mean over seeds with the min–max spread shaded. Load points where a seed
    is ``saturated`` are left out (the title says how many). ``bounds`` (``{label: load}``,
    e.g. ``{"MIN bound 1/(ap)": 0.0139}``) are drawn as vertical lines, the loads where the
    latency is expected to diverge. Returns the Axes."""
    df, _ = _sweep_frame(df_or_dir)
    ax = plot_load_sweep(df, metric, ax=ax, drop_saturated=True, bounds=bounds, bounds_vertical=True)
    kept = len(load_curves(df, metric, drop_saturated=True))
    total = len(load_curves(df, metric))
    what = "latency vs offered load"
    if total > kept:
        what += f" ({total - kept} saturated point{'s' if total - kept > 1 else ''} left out)"
    ax.set_title(_sweep_title(df, what), fontsize=10)
    return ax


def plot_load_throughput(df_or_dir, ax=None, bounds: Optional[dict] = None):
    """Accepted load against offered load (phits/node/cycle), one line per combination of the
    other swept keys, mean over seeds with the min–max spread shaded, saturated points
    included and marked with a cross; the diagonal accepted = offered dotted and ``bounds``
    (``{label: load}``) as horizontal lines. Returns the Axes."""
    df, _ = _sweep_frame(df_or_dir)
    ax = plot_load_sweep(df, ACCEPTED_METRIC, ax=ax, bounds=bounds, diagonal=True)
    _mark_saturated(ax, df)
    ax.set_title(_sweep_title(df, "throughput vs offered load"), fontsize=10)
    return ax


def _mark_saturated(ax, df: pd.DataFrame) -> None:
    """Crosses on the accepted-load curves at the load points where a seed saturated."""
    every = load_curves(df, ACCEPTED_METRIC)
    kept = load_curves(df, ACCEPTED_METRIC, drop_saturated=True)
    merged = every.merge(kept[["line", "load"]], on=["line", "load"], how="left", indicator=True)
    sat = merged[merged["_merge"] == "left_only"]
    if sat.empty:
        return
    ax.plot(sat["load"].to_numpy(dtype=float), sat["mean"].to_numpy(dtype=float), ls="none", marker="x", ms=8,
            mew=1.5, color="black", label="saturated", zorder=3)
    handles, labels = ax.get_legend_handles_labels()
    legend = ax.get_legend()
    ax.legend(handles, labels, fontsize=8, title=legend.get_title().get_text() if legend else None, title_fontsize=8)


def plot_load_sweep_results(sweep_dir, out_dir=None, bounds: Optional[dict] = None) -> List[Path]:
    """Writes ``load_latency.png`` (:func:`plot_load_latency`) and ``throughput.png``
    (:func:`plot_load_throughput`) of a load sweep into the sweep folder (or ``out_dir``);
    returns their paths."""
    from ._sweep import load_sweep

    df = load_sweep(sweep_dir)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fn in ((LOAD_LATENCY_PNG, plot_load_latency), (THROUGHPUT_PNG, plot_load_throughput)):
        fig, ax = plt.subplots(figsize=(7.5, 5))
        written.append(_save_figure(fig, target / name, lambda: fn(df, ax=ax, bounds=bounds)))
    return written


def plot_sweep_folder(sweep_dir, out_dir=None, metric: Optional[str] = None,
                      bounds: Optional[dict] = None) -> List[Path]:
    """The figures of a sweep folder (what ``lnsim plot SWEEP_DIR`` and ``lnsim sweep`` write):
    a load sweep of the cycle-level model gets :func:`plot_load_sweep_results`
    (``load_latency.png``, ``throughput.png``; with ``metric``, ``sweep.png`` of that metric
    against the offered load instead), any other sweep ``sweep.png`` (:func:`plot_sweep`).
    Returns the paths written."""
    from ._sweep import SWEEP_PNG, load_sweep

    df = load_sweep(sweep_dir)
    # the columns the figures need are checked (ResultsError) before anything is written
    if load_key(df, df.attrs["keys"]) is None:
        if bounds:
            raise ValueError("bounds apply to a load sweep (offered_load column and a swept traffic.load)")
        _metric_values(df, metric or default_sweep_metric(df))
        return [plot_sweep_results(sweep_dir, out_dir=out_dir, metric=metric)]
    for column in ([metric] if metric else [LATENCY_METRIC, ACCEPTED_METRIC]):
        if column in df.columns or column == metric:
            _metric_values(df, column)
    if "saturated" in df.columns:
        _true(df["saturated"], df.attrs.get("path"))
    if metric is None:
        return plot_load_sweep_results(sweep_dir, out_dir=out_dir, bounds=bounds)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    return [_save_figure(fig, target / SWEEP_PNG, lambda: plot_load_sweep(df, metric, ax=ax, bounds=bounds))]


# ---------------------------------------------------------------------------------------------
# buffer occupancy (InfiniBand model, buffers.csv)


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
