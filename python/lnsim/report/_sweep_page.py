"""The page of a sweep folder: the sweep table and its failed points, and the figures — for a
load sweep of the cycle-level model the load–latency, throughput, Jain-index and non-minimal
curves and the load per router at the highest load of each line; a heatmap or a line per main
metric for any other sweep.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

from .._results import load_results
from ._cells import _esc, _fmt_s, _is_missing, _is_number, fmt_number
from ._folder import SCENARIO_COPY, SUMMARY_FILE, SWEEP_JSON
from ._page import _kv_table, _Page, _table
from ._scenario import _find_file, _scenario_section

#: Longest sweep table: rows beyond this are left out (the note says where the rest is).
MAX_SWEEP_ROWS = 500
#: At most this many lines get their own per-router panel in a load sweep.
MAX_ROUTER_PANELS = 8


SWEEP_COLUMNS = [
    ("throughput.total_rx_gbytes_per_s", "rx GB/s"),
    ("throughput.rx_gbytes_per_s_after_warmup", "rx after warm-up GB/s"),
    ("latency_ns.mean", "mean latency ns"),
    ("latency_ns.p99", "p99 latency ns"),
    ("fairness.jain", "Jain"),
    ("cc.max_ccti", "max CCTI"),
    ("offered_load", "offered"),
    ("accepted_load", "accepted"),
    ("latency_cycles.mean", "mean latency cycles"),
    ("latency_cycles.p99", "p99 latency cycles"),
    ("nonminimal_fraction", "non-minimal"),
    ("avg_hops", "hops"),
    ("fairness.jain_routers", "Jain (routers)"),
    ("saturated", "saturated"),
]

#: Metrics drawn against the swept keys of a sweep that is not a load sweep (those with data).
SWEEP_METRICS = [
    ("throughput.total_rx_gbytes_per_s", "Total bytes received per second"),
    ("throughput.rx_gbytes_per_s_after_warmup", "Throughput received after the warm-up"),
    ("latency_ns.mean", "Mean packet latency"),
    ("fairness.jain", "Jain fairness index of the flows"),
    ("cc.max_ccti", "Highest CCTI reached"),
    ("accepted_load", "Accepted load"),
    ("latency_cycles.mean", "Mean packet latency"),
    ("nonminimal_fraction", "Fraction of packets routed non-minimally"),
    ("fairness.jain_routers", "Jain fairness index of the accepted load per router"),
]


def _read_json(path: Path) -> dict:
    """sweep.json checked (:func:`lnsim._read.read_sweep_meta`), ``{}`` when absent; a corrupt
    one raises :class:`lnsim.ResultsError` naming it."""
    from .._read import read_sweep_meta

    return read_sweep_meta(path) if path.is_file() else {}


def _ok_mask(df):
    import pandas as pd

    return df["status"] == "ok" if "status" in df.columns else pd.Series(True, index=df.index)


def _has_data(df, col: str, nonzero: bool = False) -> bool:
    from .._read import sweep_numbers

    if col not in df.columns:
        return False
    v = sweep_numbers(df, col).dropna()  # text in a successful row: ResultsError
    return len(v) > 0 and (not nonzero or bool((v != 0).any()))


def _run_dir(d: Path, meta: dict, row) -> Optional[Path]:
    """The folder of one row of sweep.csv (``points/<id>/`` or ``points/<id>/seed-<s>/``)."""
    point = str(row.get("point", ""))
    seed = row.get("seed")
    for p in meta.get("points") or []:
        if p.get("point") == point:
            for run in p.get("runs") or []:
                if str(run.get("seed")) == str(seed) and run.get("dir"):
                    q = d / run["dir"]
                    if (q / SUMMARY_FILE).is_file():
                        return q
            if p.get("dir") and (d / p["dir"] / SUMMARY_FILE).is_file():
                return d / p["dir"]
    base = d / "points" / point
    if seed is not None and not _is_missing(seed):
        s = str(int(seed)) if _is_number(seed) else str(seed)
        if (base / f"seed-{s}" / SUMMARY_FILE).is_file():
            return base / f"seed-{s}"
    return base if (base / SUMMARY_FILE).is_file() else None


def _sweep_report(page: _Page, d: Path) -> None:
    from .. import plot
    from .._sweep import load_sweep, with_gbytes
    from ..plot._style import _label

    df = with_gbytes(load_sweep(d))  # throughput in GB/s in the table and the figures
    keys = list(df.attrs["keys"])
    meta = _read_json(d / SWEEP_JSON)
    ok = _ok_mask(df)
    n_points = df["point"].nunique() if "point" in df.columns else len(df)
    seeded = "seed" in df.columns and n_points < len(df)
    cycle = "model" in df.columns and (df.loc[ok, "model"] == "cycle").any()
    scen_path = meta.get("scenario")
    name = None
    if "scenario" in df.columns and df.loc[ok, "scenario"].notna().any():
        name = str(df.loc[ok, "scenario"].dropna().iloc[0])
    name = name or (Path(str(scen_path)).stem if scen_path else d.name)
    cc = plot.sweep_cc_label(df) if not cycle else None  # from the runs' results, not the description
    page.title = f"lnsim sweep report: {name}, {cc}" if cc else f"lnsim sweep report: {name}"
    lkey = plot.load_key(df, keys) if ok.any() else None
    what = "load sweep" if lkey else "sweep"
    model = "cycle-level router model" if cycle else "credit-level model"
    page.subtitle = (f"A {_esc(what)} of the {_esc(model)} over {_esc(', '.join(keys) or '–')} — "
                     f"sweep folder <code>{_esc(d)}</code>")

    # scenario
    found = _find_file(scen_path, d) if scen_path else None
    rows: List[Tuple[str, str]] = [("scenario file", str(scen_path) if scen_path else "not recorded (no sweep.json)")]
    if found is not None and str(found) != str(scen_path):
        rows.append(("found at", str(found)))
    overrides = meta.get("overrides") or []
    rows.append(("overrides (--set)", ", ".join(str(o) for o in overrides) if overrides else "none"))
    if cc:
        rows.append(("congestion control", f"{cc} (every run)"))
    values = meta.get("values") or {}
    for k in keys:
        vals = values.get(k)
        if vals is None:
            vals = list(dict.fromkeys(df[k].tolist()))
        rows.append((f"swept: {k}", ", ".join(_label(v) for v in vals)))
    if seeded or meta.get("seeds", 1) not in (None, 1):
        seeds = sorted(set(df["seed"].dropna().tolist())) if "seed" in df.columns else []
        rows.append(("seeds per point", f"{meta.get('seeds') or len(seeds)} ({', '.join(fmt_number(s) for s in seeds)})"))
    rows.append(("sweep folder", str(d)))
    toml_path, label = found, f"{found} (the scenario file)"
    missing = f"The scenario file {scen_path} was not found." if scen_path else "sweep.json names no scenario file."
    if found is None:  # the first point's copy, as run, with that point's overrides
        first = _run_dir(d, meta, df.iloc[0]) if len(df) else None
        if first is not None and (first / SCENARIO_COPY).is_file():
            toml_path = first / SCENARIO_COPY
            label = f"{toml_path} (the scenario as run by the first point, its overrides applied)"
    _scenario_section(page, name, rows, toml_path, label, missing)

    # summary and table
    parts = page.section("Summary")
    failed = int((~ok).sum())
    runs = f"{len(df)} runs ({n_points} points × {len(df) // max(n_points, 1)} seeds)" if seeded else f"{len(df)} points"
    items = [("runs", f"{runs}: {len(df) - failed} ok, {failed} failed")]
    if meta.get("executor"):
        items.append(("executor", str(meta["executor"])))
    if meta.get("jobs"):
        items.append(("parallel jobs", fmt_number(meta["jobs"])))
    if meta.get("simulated") is not None:
        items.append(("simulated / from the store", f"{meta['simulated']} / {meta.get('reused', 0)} runs"))
    if meta.get("wall_time_s") is not None:
        items.append(("wall time", _fmt_s(meta["wall_time_s"])))
    if meta.get("version"):
        items.append(("lnsim version", str(meta["version"])))
    for col, label_, swept in (("topology", "topology", "topology."), ("pattern", "traffic pattern", "traffic.pattern"),
                               ("routing", "routing", "routing.")):
        if any(k.startswith(swept) for k in keys):
            continue  # the swept key says it
        if col in df.columns and col not in keys and df.loc[ok, col].notna().any():
            vals = list(dict.fromkeys(str(v) for v in df.loc[ok, col].dropna()))
            items.append((label_, ", ".join(vals)))
    parts.append(_kv_table(items))
    if failed:
        parts.append(f'<p class="warn">{failed} {"runs" if seeded else "points"} failed: see '
                     '<a href="#failed-points">Failed points</a>; they are blank in the figures.</p>')

    if failed:
        parts = page.section("Failed points")
        fr = df[~ok]
        parts.append(f"<p>{failed} of {len(df)} {'runs' if seeded else 'points'} failed:</p>")
        body = []
        for _, row in fr.iterrows():
            seed = f" (seed {fmt_number(row['seed'])})" if seeded else ""
            err = row.get("error")
            err = "no message" if _is_missing(err) else str(err)
            body.append(f"<tr><td>{_esc(row.get('point', ''))}{_esc(seed)}</td>"
                        f'<td><pre class="error">{_esc(err)}</pre></td></tr>')
        parts.append('<div class="scroll"><table class="failed"><thead><tr><th>point</th><th>error</th></tr></thead>'
                     f"<tbody>{''.join(body)}</tbody></table></div>")

    parts = page.section("Figures")
    if not ok.any():
        parts.append('<p class="note">No figure: no run of the sweep succeeded.</p>')
    elif lkey is not None:
        _load_sweep_figures(page, parts, d, df, meta, keys, lkey)
    else:
        _sweep_figures(page, parts, df, keys)
    if not parts:
        parts.append('<p class="note">No figure fits this sweep.</p>')

    parts = page.section("Sweep table")
    left = [*keys, "seed"] if seeded else list(keys)
    shown = [(c, h) for c, h in SWEEP_COLUMNS if c in df.columns and c not in left and df[c].notna().any()
             and not (c == "offered_load" and lkey is not None)]  # the load key is the offered load
    header = [*left, "status", *(h for _, h in shown)]
    rows_ = []
    for _, row in df.head(MAX_SWEEP_ROWS).iterrows():
        good = row.get("status", "ok") == "ok"
        rows_.append([*(row[k] for k in left), row.get("status", "ok"),
                      *((row[c] if good else None) for c, _ in shown)])
    numeric = [_is_number(df[k].dropna().iloc[0]) if df[k].notna().any() else False for k in left] + \
              [False] + [c != "saturated" for c, _ in shown]
    parts.append(_table(header, rows_, numeric=numeric, cls="sweep"))
    if len(df) > MAX_SWEEP_ROWS:
        parts.append(f'<p class="note">{len(df) - MAX_SWEEP_ROWS} more rows in sweep.csv.</p>')
    parts.append('<p class="note">Every column of every run is in sweep.csv; each run\'s own files are in '
                 "points/&lt;point&gt;/" + ("seed-&lt;seed&gt;/" if seeded else "") + ".</p>")


def _sweep_figures(page: _Page, parts: List[str], df, keys: List[str]) -> None:
    two = len(keys) >= 2
    shape = (f"heatmap: one row per {keys[0]}, one column per {' / '.join(keys[1:])}, each cell the value "
             "(mean over seeds); grey cells failed") if two else f"against {keys[0]} (mean over seeds)"
    size = (8, 5.5) if two else (7, 4.5)
    for metric, what in SWEEP_METRICS:
        nonzero = metric in ("cc.max_ccti", "nonminimal_fraction")
        if not _has_data(df, metric, nonzero=nonzero):
            continue
        unit = " in µs" if metric.startswith("latency_ns.") else ""
        page.figure(parts, f"{what} ({metric}{unit}) of every point, {shape}.",
                    lambda fig, m=metric: _sweep_metric(df, m, fig), figsize=size, title=what)


def _sweep_metric(df, metric: str, fig):
    """:func:`lnsim.plot.plot_sweep` of one metric; latencies in ns are drawn in µs (readable
    heatmap cells)."""
    from .. import plot
    from ..plot._metric_sweep import _METRIC_LABEL

    if not metric.startswith("latency_ns."):
        return plot.plot_sweep(df, metric=metric, ax=fig.subplots())
    us = metric.replace("latency_ns.", "latency_us.", 1)
    scaled = df.copy()
    scaled.attrs = dict(df.attrs)
    scaled[us] = _numeric_col(df, metric) / 1e3
    ax = plot.plot_sweep(scaled, metric=us, ax=fig.subplots())
    label = _METRIC_LABEL.get(metric, metric).replace("(ns)", "(µs)")
    if len(fig.axes) > 1:  # the heatmap's colour bar
        fig.axes[-1].set_ylabel(label)
    else:
        ax.set_ylabel(label)
    ax.set_title(ax.get_title().replace(us, label), fontsize=10)
    return ax


def _numeric_col(df, col: str):
    from .._read import sweep_numbers

    return sweep_numbers(df, col)


def _load_sweep_figures(page: _Page, parts: List[str], d: Path, df, meta: dict, keys: List[str], lkey: str) -> None:
    from .. import plot
    from ..plot._load_sweep import _line_labels
    from ..plot._style import _label

    others = [k for k in keys if k != lkey]
    per = f"one line per {' / '.join(others)}" if others else "one line"
    spread = ", mean over seeds with the min–max spread shaded" if "seed" in df.columns and \
        df["point"].nunique() < len(df) else ""
    seeds = " Small white-filled dots: each seed's value (× a seed that saturated)." if spread else ""
    partly = (" A point saturated in some seeds only is drawn in both figures (the mean of all its seeds), ringed, "
              "the legend saying k of n seeds saturated.") if spread else ""
    page.figure(parts, f"Mean packet latency against the offered load, {per}{spread}; load points where every run "
                f"saturated are left out (no steady state).{partly}{seeds}",
                lambda fig: plot.plot_load_latency(df, ax=fig.subplots()), figsize=(8, 5.2), title="load–latency")
    page.figure(parts, f"Accepted against offered load (throughput), {per}{spread}; crosses mark saturated points, "
                f"the dotted diagonal is accepted = offered.{partly}{seeds}",
                lambda fig: plot.plot_load_throughput(df, ax=fig.subplots()), figsize=(8, 5.2),
                title="accepted vs offered load")
    if _has_data(df, "fairness.jain_routers"):
        page.figure(parts, f"Fairness: Jain index of the routers' injected loads (fairness.jain_routers) against "
                    f"the offered load, {per} (1 = every router injects the same load).",
                    lambda fig: _jain_vs_load(df, fig), figsize=(8, 5.2), title="Jain index vs load")
    if _has_data(df, "nonminimal_fraction", nonzero=True):
        page.figure(parts, f"Fraction of packets routed non-minimally against the offered load, {per}.",
                    lambda fig: plot.plot_load_sweep(df, "nonminimal_fraction", ax=fig.subplots()), figsize=(8, 5.2),
                    title="non-minimal fraction vs load")

    # accepted load per router at the highest load of each line (first successful seed)
    ok = _ok_mask(df)
    labels = _line_labels(df, others)
    loads = df[lkey]
    picks: List[Tuple[str, Path]] = []
    for line in dict.fromkeys(labels):
        mask = ok & (_series(labels, df.index) == line)
        if not mask.any():
            continue
        top = loads[mask].max()
        for idx in df.index[mask & (loads == top)]:
            run = _run_dir(d, meta, df.loc[idx])
            if run is not None and (run / "routers.csv").is_file():
                picks.append((f"{line} at load {_label(top)}" if line else f"load {_label(top)}", run))
                break
    if not picks:
        return
    shown = picks[:MAX_ROUTER_PANELS]
    more = f" (first {len(shown)} of {len(picks)} lines)" if len(picks) > len(shown) else ""

    def draw(fig):
        axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
        for ax, (label, run) in zip(axes, shown):
            plot.plot_router_load(load_results(run), ax=ax)
            ax.set_title(f"{label}: {ax.get_title()}", fontsize=9)

    page.figure(parts, f"Accepted load per router at the highest offered load of each line{more}: bars per router "
                "(groups in alternating shades), injected load as dots, offered load dashed; from the point's "
                "own routers.csv.", draw, figsize=(11, 3.4 * len(shown) + 0.4), title="per-router load at the highest load")


def _series(values, index):
    """``values`` as a pandas Series on ``index`` (helper of the sweep figures)."""
    import pandas as pd

    return pd.Series(list(values), index=index)


def _jain_vs_load(df, fig):
    from .. import plot
    from ..plot._load_sweep import _sweep_title

    ax = plot.plot_load_sweep(df, "fairness.jain_routers", ax=fig.subplots())
    ax.set_ylim(0, 1.02)
    ax.set_title(_sweep_title(df, "Jain index of the routers' injected loads vs offered load"), fontsize=10)
    return ax
