"""Load sweeps of the cycle-level model (a swept ``traffic.load``, sweep.csv with
``offered_load``): latency and accepted load against the offered load, one line per combination
of the other swept keys, mean over seeds with the min–max spread shaded and each seed's value
marked; a point saturated in some seeds only is treated alike in every figure
(:func:`plot_load_latency`, :func:`plot_load_throughput`, written by
:func:`plot_load_sweep_results` as ``load_latency.png`` and ``throughput.png``).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ._metric_sweep import _METRIC_LABEL, _metric_values, _saturated, _saturation_note, _sweep_frame
from ._style import MARKERS, _figures_dir, _in_order, _label, _new_ax, _no_data, _save_figure


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


def _line_labels(df: pd.DataFrame, others: Sequence[str]) -> List[str]:
    """Label of each row's line: the values of the other swept keys joined by `` / ``; with no
    other key, the routing of the summary (or the metric's line has no label)."""
    if others:
        return [" / ".join(_label(v) for v in t) for t in zip(*(df[k] for k in others))]
    if "routing" in df.columns and df["routing"].notna().any():
        return [str(df["routing"].dropna().iloc[0])] * len(df)
    return [""] * len(df)


def load_runs(df_or_dir, metric: str) -> pd.DataFrame:
    """Every successful run of a load sweep for one metric: one row per run with the columns
    ``line`` (values of the swept keys other than the load, joined by `` / ``), ``load``, ``y``
    (the metric), ``seed`` (when sweep.csv has one) and ``saturated`` (the run's flag), in
    sweep order; failed runs and runs without a value are left out. Raises ``ValueError`` when
    the sweep is not a load sweep or ``metric`` is not a column."""
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
            "seed": df["seed"] if "seed" in df.columns else np.nan,
            "saturated": _saturated(df),
        }
    )
    t.attrs["order"] = _in_order(t["line"])
    return t.dropna(subset=["y", "load"])


def load_curves(df_or_dir, metric: str, drop_saturated: bool = False) -> pd.DataFrame:
    """The curves of a load sweep for one metric: one row per line and load with the columns
    ``line`` (values of the swept keys other than the load, joined by `` / ``), ``load``,
    ``mean``, ``min``, ``max`` (over the seeds of that point), ``runs`` (how many successful
    runs are in it) and ``saturated`` (how many of them are ``saturated``). Lines are in sweep
    order, loads increasing. Failed runs are left out (:func:`load_runs`); with
    ``drop_saturated`` so is every load point of a line where every seed is ``saturated`` (its
    latency has no steady state) — a point saturated in some seeds only stays, its mean over
    all its seeds, in every figure alike. Raises ``ValueError`` when the sweep is not a load
    sweep or ``metric`` is not a column."""
    t = load_runs(df_or_dir, metric)
    order = t.attrs["order"]
    g = t.groupby(["line", "load"], sort=False)
    out = g["y"].agg(["mean", "min", "max", "count"]).rename(columns={"count": "runs"})
    out["saturated"] = g["saturated"].sum().astype(int)
    out = out.reset_index()
    if drop_saturated:
        out = out[out["saturated"] < out["runs"]]
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


def _draw_seeds(ax, runs: pd.DataFrame, curves: pd.DataFrame, order: List[str]) -> None:
    """Each seed's own value at the points of ``curves`` that have several runs: a small dot in
    its line's colour, a small cross for a seed that saturated (Line2D gid ``seeds:<line>``), so
    that two seeds show even where the min–max band is too thin to see; one legend entry says
    what the marks are."""
    several = curves[curves["runs"] > 1][["line", "load"]]
    if several.empty:
        return
    shown = runs.merge(several, on=["line", "load"])
    for name in _in_order(shown["line"]):
        color = f"C{order.index(name) % 10}" if name in order else "0.3"
        r = shown[shown["line"] == name]
        # white-filled: visible on the line's own (filled) marker of the mean
        for sat, style in ((False, dict(marker="o", color=color, mfc="white")), (True, dict(marker="x", color="0.1"))):
            part = r[r["saturated"] == sat]
            if len(part):
                ax.plot(part["load"].to_numpy(dtype=float), part["y"].to_numpy(dtype=float), ls="none", ms=3.5,
                        mew=1.0, zorder=3, gid=f"seeds:{name}", **style)
    what = "each seed (×: one that saturated)" if shown["saturated"].any() else "each seed"
    ax.plot([], [], ls="none", marker="o", ms=3.5, mfc="white", mec="0.3", mew=1.0, label=what)


def _mark_partly_saturated(ax, curves: pd.DataFrame) -> None:
    """A ring around every point saturated in some of its seeds only, one legend entry per
    ``k of n seeds saturated`` (Line2D gid ``partly-saturated:k/n``)."""
    part = curves[(curves["saturated"] > 0) & (curves["saturated"] < curves["runs"])]
    for (k, n), g in part.groupby(["saturated", "runs"], sort=True):
        ax.plot(g["load"].to_numpy(dtype=float), g["mean"].to_numpy(dtype=float), ls="none", marker="o", ms=12,
                mfc="none", mec="black", mew=1.2, zorder=4, gid=f"partly-saturated:{int(k)}/{int(n)}",
                label=_saturation_note(int(k), int(n)))


def _mark_saturated(ax, curves: pd.DataFrame) -> None:
    """A cross on every point saturated in every one of its seeds (gid ``saturated:every-seed``)."""
    sat = curves[(curves["saturated"] > 0) & (curves["saturated"] == curves["runs"])]
    if len(sat):
        n = int(sat["runs"].max())
        ax.plot(sat["load"].to_numpy(dtype=float), sat["mean"].to_numpy(dtype=float), ls="none", marker="x", ms=8,
                mew=1.5, color="black", label=_saturation_note(n, n), zorder=4, gid="saturated:every-seed")


def _draw_bounds(ax, bounds: Optional[dict], vertical: bool) -> None:
    """Reference lines at the analytical bounds ``{label: value}``: horizontal (a bound on the
    accepted load) or vertical (the same bound as an offered load)."""
    styles = ["--", "-.", ":", (0, (5, 1, 1, 1))]
    for i, (label, value) in enumerate((bounds or {}).items()):
        kw = dict(color="0.3", lw=1.0, ls=styles[i % len(styles)], label=f"{label} = {float(value):.4g}")
        (ax.axvline if vertical else ax.axhline)(float(value), **kw)


def plot_load_sweep(df_or_dir, metric: str, ax=None, drop_saturated: bool = False, bounds: Optional[dict] = None,
                    bounds_vertical: bool = False, diagonal: bool = False, mark_saturated: bool = False):
    """``metric`` of a load sweep against the offered load (:func:`load_curves`): one line per
    combination of the other swept keys (e.g. per ``routing.algorithm``, each with the same
    colour in every figure of the sweep), the mean over seeds with the min–max spread shaded
    and, where a point has several seeds, each seed's value as a small dot (a cross for a seed
    that saturated). A point saturated in some seeds only is drawn, ringed, with a legend entry
    ``k of n seeds saturated``, in every figure alike; with ``drop_saturated`` the points
    saturated in every seed are left out and the legend says how many per line (a line whose
    points all saturated keeps a legend entry saying so); ``mark_saturated`` crosses them
    instead. ``bounds`` (``{label: value}``) drawn as reference lines (vertical with
    ``bounds_vertical``), ``diagonal`` adds y = x. Returns the Axes."""
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
    _draw_seeds(ax, load_runs(df, metric), curves, order)
    _mark_partly_saturated(ax, curves)
    if mark_saturated:
        _mark_saturated(ax, curves)
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
    other swept keys, mean over seeds with the min–max spread shaded and each seed's value
    marked. Load points where every seed is ``saturated`` are left out (the title says how
    many); a point saturated in some seeds only is drawn and ringed, as in
    :func:`plot_load_throughput` (the legend says ``k of n seeds saturated``). ``bounds``
    (``{label: load}``, e.g. ``{"MIN bound 1/(ap)": 0.0139}``) are drawn as vertical lines, the
    loads where the latency is expected to diverge. Returns the Axes."""
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
    other swept keys, mean over seeds with the min–max spread shaded and each seed's value
    marked; points saturated in every seed included and marked with a cross, a point saturated
    in some seeds only ringed as in :func:`plot_load_latency` (``k of n seeds saturated``); the
    diagonal accepted = offered dotted and ``bounds`` (``{label: load}``) as horizontal lines.
    Returns the Axes."""
    df, _ = _sweep_frame(df_or_dir)
    ax = plot_load_sweep(df, ACCEPTED_METRIC, ax=ax, bounds=bounds, diagonal=True, mark_saturated=True)
    ax.set_title(_sweep_title(df, "throughput vs offered load"), fontsize=10)
    return ax


def plot_load_sweep_results(sweep_dir, out_dir=None, bounds: Optional[dict] = None) -> List[Path]:
    """Writes ``load_latency.png`` (:func:`plot_load_latency`) and ``throughput.png``
    (:func:`plot_load_throughput`) of a load sweep into the sweep folder (or ``out_dir``);
    returns their paths."""
    from .._sweep import load_sweep

    df = load_sweep(sweep_dir)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fn in ((LOAD_LATENCY_PNG, plot_load_latency), (THROUGHPUT_PNG, plot_load_throughput)):
        fig, ax = plt.subplots(figsize=(7.5, 5))
        written.append(_save_figure(fig, target / name, lambda: fn(df, ax=ax, bounds=bounds)))
    return written
