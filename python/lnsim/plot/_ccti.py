"""Congestion-control figures of one run of the credit-level model (ccti.csv): the CCTI of each
flow over time (:func:`plot_ccti`, :func:`flow_ccti`), under the bandwidth on one time axis
(:func:`plot_bandwidth_ccti`, ``bandwidth.png`` with CC on), and one panel per throttled flow
(:func:`plot_ccti_flows`, ``ccti.png``).
"""

from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .._results import RunResult
from ._infiniband import (
    MAX_LINES,
    _finish_time_axis,
    _series_title_legend,
    _time_span,
    _time_unit_axis,
    _warmup_label,
    plot_bandwidth,
    sender_colors,
)
from ._style import ResultLike, _marker_style, _new_ax, _no_data, _result, _run_title


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

    ax.set_ylabel("CCTI (end of interval)")
    ax.set_ylim(bottom=0, top=max(float(table[shown].to_numpy().max()) * 1.05, 1.0) if shown else 1.0)
    _finish_time_axis(ax, x, r.summary)

    _series_title_legend(ax, r, "CCTI per flow", shown, len(active), "highest mean of {n} throttled flows",
                         "flow throttled (every CCTI at the minimum, 0)", legend_y=-0.2)
    return ax


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
    unit = _time_unit_axis(axes[-1], _time_span(r.summary, xs))
    for ax in axes[:-1]:
        _time_unit_axis(ax, _time_span(r.summary, xs), label=False)
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
            ax.axvline(float(warm), color="0.4", lw=0.9, ls=":", label=_warmup_label(warm, unit))
    if len(xs):
        axes[-1].set_xlim(float(xs[0]), float(xs[-1]))
    axes[-1].set_ylim(0, max(top * 1.25, 1.0))
    what = "CCTI per source HCA and SL" if per_sl else "CCTI per flow"
    title = _run_title(r, f"{what} (0 = not throttled)")
    if len(active) > len(shown):
        title += f", the {len(shown)} highest of {len(active)} throttled"
    axes[0].set_title(title, fontsize=10)
    if shown:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles = [Patch(color="0.4", alpha=0.25, linewidth=0, label="highest CCTI within the interval"),
                   Line2D([], [], color="0.2", lw=1.3, label="CCTI at the end of the interval")]
        if warm:
            handles.append(Line2D([], [], color="0.4", lw=0.9, ls=":", label=_warmup_label(warm, unit)))
        axes[-1].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.45 if len(shown) > 1 else -0.3),
                        ncol=3, fontsize=8, frameon=False)
    else:
        _no_data(axes[0], "flow throttled (every CCTI stayed at the minimum, 0)")
        if len(xs):
            _finish_time_axis(axes[0], xs, r.summary)
    return tuple(axes)
