"""One metric of any sweep against its swept keys (sweep.csv): a line for one key, a heatmap for
two or more (:func:`plot_sweep`); :func:`plot_sweep_results` writes it as ``sweep.png``. Also
the axis labels of well-known sweep.csv columns, the checked reading of a metric column and of
the ``saturated`` flags, and the congestion management of a sweep's runs
(:func:`sweep_cc_label`), which the load-sweep figures and the report share.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ._style import _figures_dir, _in_order, _label, _new_ax, _no_data, _save_figure, cc_label


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
    """The metric drawn when none is given: :data:`DEFAULT_SWEEP_METRIC` (credit-level model), or
    ``accepted_load`` for a sweep of the cycle-level model."""
    if DEFAULT_SWEEP_METRIC not in df.columns and CYCLE_SWEEP_METRIC in df.columns:
        return CYCLE_SWEEP_METRIC
    return DEFAULT_SWEEP_METRIC


def _sweep_frame(df_or_dir) -> Tuple[pd.DataFrame, List[str]]:
    from .._sweep import load_sweep, sweep_keys

    if isinstance(df_or_dir, pd.DataFrame):
        return df_or_dir, sweep_keys(df_or_dir)
    df = load_sweep(df_or_dir)
    return df, list(df.attrs["keys"])


def _metric_values(df: pd.DataFrame, metric: str) -> pd.Series:
    """``metric`` of every successful row as numbers (NaN for failed rows); a value of a
    successful row that is not a number raises :class:`lnsim.ResultsError` naming sweep.csv,
    the line and the column."""
    from .._read import sweep_numbers

    if metric not in df.columns:
        numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
        raise ValueError(f"metric {metric!r} is not a column of sweep.csv; numeric columns: {', '.join(numeric)}")
    return sweep_numbers(df, metric)


def _true(series: pd.Series, path=None) -> pd.Series:
    """``saturated`` as booleans, whether read from CSV as bools, strings or numbers (blank:
    false). Any other value raises :class:`lnsim.ResultsError` naming ``path`` (the sweep.csv
    it was read from), the line and the column; without ``path`` it counts as false."""
    from .._read import ResultsError

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


def _saturated(df: pd.DataFrame) -> pd.Series:
    """Each row's ``saturated`` flag (:func:`_true`; false for every row without the column)."""
    if "saturated" not in df.columns:
        return pd.Series(False, index=df.index)
    return _true(df["saturated"], df.attrs.get("path"))


def _saturation_note(k: int, n: int) -> str:
    """How many of a point's ``n`` runs (seeds) saturated, as every sweep figure says it:
    ``saturated`` (its one run), ``saturated (every seed)`` or ``k of n seeds saturated``."""
    if k == n:
        return "saturated" if n == 1 else "saturated (every seed)"
    return f"{k} of {n} seeds saturated"


def sweep_cc_label(df: pd.DataFrame) -> Optional[str]:
    """The congestion management of a sweep's runs (:func:`cc_label` of each successful row of
    sweep.csv) when they all had the same, else ``None`` (a swept ``cc.*`` key says it, or the
    sweep is of the cycle-level model)."""
    ok = df["status"] == "ok" if "status" in df.columns else pd.Series(True, index=df.index)
    labels = {cc_label(row.to_dict()) for _, row in df[ok].iterrows()}
    return labels.pop() if len(labels) == 1 else None


def _sweep_name(df: pd.DataFrame) -> Optional[str]:
    """The scenario of a sweep and, when every run had the same, its congestion management
    (``"zeru_c4, CC on (InfiniBand CC)"``), for figure titles; ``None`` without a scenario
    column."""
    if "scenario" not in df.columns or not df["scenario"].notna().any():
        return None
    cc = sweep_cc_label(df)
    name = str(df["scenario"].dropna().iloc[0])
    return f"{name}, {cc}" if cc else name


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
    none when every value is a whole number: :func:`heatmap_cell_format`) and a colour bar;
    failed points are blank. Several runs of a point (seeds) are averaged: the line marks each
    seed's value too (small white-filled dots), and a point where seeds saturated (sweep.csv's
    ``saturated``, cycle-level model) is ringed with ``k of n seeds saturated`` in the legend
    (crossed when all saturated), as in the load-sweep figures; a heatmap cell writes ``k/n
    sat.`` under its value. ``metric`` defaults to :func:`default_sweep_metric`. Returns the
    Axes.
    """
    df, keys = _sweep_frame(df_or_dir)
    metric = metric or default_sweep_metric(df)
    if not keys:
        raise ValueError("the sweep table has no swept-key columns (before `point`)")
    ax = _new_ax(ax, figsize=(7, 4.5) if len(keys) == 1 else (8, 5.5))
    y = _metric_values(df, metric)
    label = _METRIC_LABEL.get(metric, metric)
    scen = _sweep_name(df)
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
        sat = _saturated(df)
        runs = [(y[(df[key] == v) & y.notna()], sat[(df[key] == v) & y.notna()]) for v in xs]
        if any(len(vals) > 1 for vals, _ in runs):  # each seed's value, visible on the mean's marker
            px = [p for p, (vals, _) in zip(pos, runs) for _ in vals]
            ys = [float(v) for vals, _ in runs for v in vals]
            ax.plot(px, ys, ls="none", marker="o", ms=3.5, color="C0", mfc="white", mew=1.0, zorder=3, gid="seeds",
                    label="each seed")
        marks: dict = {}  # label -> points (a cross when every seed saturated, else a ring)
        for p, m, (_, f) in zip(pos, means, runs):
            if f.any():
                marks.setdefault(_saturation_note(int(f.sum()), len(f)), []).append((p, m))
        for note, at in sorted(marks.items()):
            style = dict(marker="x", ms=8, mew=1.5, color="black") if note.startswith("saturated") else \
                dict(marker="o", ms=12, mfc="none", mec="black", mew=1.2)
            ax.plot([p for p, _ in at], [m for _, m in at], ls="none", zorder=4, gid="saturation", label=note,
                    **style)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="best")
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
    saturated = np.zeros(grid.shape, dtype=int)
    for (i_row, row), val, sat in zip(df.iterrows(), y, _saturated(df)):
        i = r_index[row[row_key]]
        j = c_index[tuple(row[k] for k in col_keys)]
        if np.isnan(val):
            failed[i, j] = True
        else:
            sums[i, j] += val
            counts[i, j] += 1
            saturated[i, j] += int(sat)
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
                text = format(v, cell_format)
                if saturated[i, j]:  # a cell of saturated runs says how many of its seeds
                    text += f"\n{saturated[i, j]}/{int(counts[i, j])} sat."
                ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color=color)
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
    if saturated.any():
        title += "\n(k/n sat.: k of the cell's n seeds saturated)"
    ax.set_title(title, fontsize=10)
    return ax


def plot_sweep_results(sweep_dir, out_dir=None, metric: Optional[str] = None) -> Path:
    """Writes ``sweep.png`` (:func:`plot_sweep` of ``metric``) into the sweep folder (or
    ``out_dir``) and returns its path."""
    from .._sweep import SWEEP_PNG, load_sweep

    df = load_sweep(sweep_dir)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    keys = df.attrs["keys"]
    fig, ax = plt.subplots(figsize=(7, 4.5) if len(keys) == 1 else (8, 5.5))
    return _save_figure(fig, target / SWEEP_PNG, lambda: plot_sweep(df, metric=metric, ax=ax))
