"""The packet latency histogram of one run, of either model (latency_hist.csv in ns, or in
cycles for the cycle-level model): :func:`latency_log_bins` and :func:`plot_latency_histogram`
(``latency_hist.png``).
"""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pandas as pd

from .._format import format_ns
from ._style import ResultLike, _new_ax, _no_data, _result, _run_title


#: Display bins per decade of the latency histogram.
LATENCY_BINS_PER_DECADE = 20


#: Bucket bound columns of latency_hist.csv: credit-level model (ns), cycle-level model (cycles).
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
    ax.set_title(_run_title(r, "packet latency"), fontsize=10)
    ax.set_xlabel("latency (cycles)" if cycles else "latency (ns)")
    ax.set_ylabel(f"packets (per 1/{LATENCY_BINS_PER_DECADE} decade)")
    ax.grid(True, alpha=0.3, which="major")
    ax.grid(True, alpha=0.12, which="minor", axis="x")
    return ax


def _fmt_cycles(c: float) -> str:
    return f"{c:.4g} cycles"
