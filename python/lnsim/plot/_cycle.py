"""Figures of one run of the cycle-level router model: the time bins over cycles
(:func:`plot_timeline`, ``timeline.png``, from bins.csv, with the warm-up and the transient
change marked) and the accepted load per router (:func:`plot_router_load`, ``routers.png``, from
routers.csv); :func:`plot_cycle_results` writes them with the latency histogram.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .._results import RunResult
from ._latency import plot_latency_histogram
from ._style import (
    ResultLike,
    _figures_dir,
    _label,
    _new_ax,
    _no_data,
    _result,
    _run_title,
    _save_figure,
    incomplete_note,
)


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
    title = _run_title(r, "over time")
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
    title = _run_title(r, "accepted load per router")
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


#: Most ports :func:`plot_min_probabilities` draws (those whose probability changed most).
MAX_PROBABILITY_PORTS = 8


def plot_min_probabilities(result_or_dir: ResultLike, ax=None, ports: int = MAX_PROBABILITY_PORTS):
    """QCN-Switch's minimal probabilities of group 0's transit ports over time in µs, from
    qcn_probabilities.csv (Dragonfly spec §3.12, the sawtooth of the thesis's Fig 4-21): a step
    line per port for the ``ports`` ports whose probability changed most, from 100 % at the
    start to the end of the run; the transient change (dashed red) marked. Returns the Axes."""
    r = _result(result_or_dir)
    ax = _new_ax(ax, figsize=(10, 4))
    t = r.qcn_probabilities
    end_us = float(r.summary.get("simulated_cycles") or (r.summary.get("warmup_cycles") or 0)
                   + (r.summary.get("measured_cycles") or 0)) / 1000.0
    if t is None or t.empty:
        _no_data(ax, "probability changes")
    else:
        counts = t.groupby(["name", "port"]).size().sort_values(ascending=False)
        for (name, port), _ in counts.head(ports).items():
            d = t[(t["name"] == name) & (t["port"] == port)]
            x = np.concatenate([[0.0], d["time_us"].to_numpy(dtype=float), [max(end_us, float(d["time_us"].max()))]])
            y = np.concatenate([[100.0], d["probability"].to_numpy(dtype=float), [float(d["probability"].iloc[-1])]])
            ax.step(x, y, where="post", lw=1.0, label=f"{name} port {int(port)}")
        ax.legend(fontsize=7, ncol=2, loc="upper right")
    change = r.summary.get("change_cycle")
    if change is not None:
        ax.axvline(float(change) / 1000.0, color="C3", lw=1.2, ls="--", label="transient change")
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("minimal probability (%)")
    ax.set_ylim(0, 102)
    ax.grid(True, alpha=0.3)
    ax.set_title(_run_title(r, "QCN-Switch minimal probabilities, group 0"), fontsize=10)
    return ax


def plot_cycle_results(result_or_dir: ResultLike, out_dir=None) -> List[Path]:
    """Figures of a cycle-level results folder, written into it (or ``out_dir``):
    ``timeline.png`` (:func:`plot_timeline`, from bins.csv), ``routers.png``
    (:func:`plot_router_load`, from routers.csv) and ``latency_hist.png``
    (:func:`plot_latency_histogram`, in cycles), each when its table is there. Returns the
    paths written."""
    r = _result(result_or_dir)
    has_latency = (r.out_dir / "latency_hist.csv").is_file()
    # every table is read (and checked: ResultsError) before any figure is written
    r.bins, r.routers, has_latency and r.latency, r.qcn_probabilities  # noqa: B018
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
    if r.qcn_probabilities is not None:
        jobs.append(("qcn_probabilities.png", (10, 4),
                     lambda fig: plot_min_probabilities(r, ax=fig.subplots())))
    for name, size, draw in jobs:
        fig = plt.figure(figsize=size)
        written.append(_save_figure(fig, target / name, lambda: draw(fig), note))
    return written
