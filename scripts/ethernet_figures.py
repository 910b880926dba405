#!/usr/bin/env python3
"""The Ch. 4 figures of the Dragonfly thesis on lossless Ethernet (spec §9.2: Fig 4-14 ... 4-26,
§6.2 E8-E18: MAR-bP and QCN-Switch), as resumable `lnsim sweep` runs of
`scenarios/ethernet/ethernet_figures.toml` (Table 4-3) and the figures drawn from them.

    python3 scripts/ethernet_figures.py list
    python3 scripts/ethernet_figures.py run --fig 4-14 --out results/ethernet --jobs 1
    python3 scripts/ethernet_figures.py plot --fig 4-14 --out results/ethernet --img docs/img/ethernet
    python3 scripts/ethernet_figures.py table --out results/ethernet

The machinery is scripts/thesis_figures.py's (imported): a figure is a set of series (a routing
with its options) on panels (UN, ADV+1) at the panel's loads, one `lnsim sweep --resume` folder
per (panel, series) under `OUT/h<h>-w<warm-up>-<measure>/`, shared by every figure that draws it;
or one run per series through a traffic change (transients, `OUT/.../transient/<case>/<series>`);
or, for Fig 4-26, a few points per network size. Series that vary one QCN-Switch parameter
(Figs 4-20 ... 4-25) run at fewer loads (`SWEEP_LOADS`, a subset of `LOADS`, so the default
configuration's curve comes from the full sweep). Times are cycles (1 cycle = 1 ns with Table
4-3's 40 Gb/s and 5-B phits), drawn in µs; loads phits/node/cycle. Parameters are Table 4-3's
(the scenario's defaults); nothing is tuned per figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import thesis_figures as tf  # noqa: E402  (the campaign machinery: jobs, folders, sweeps)

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "ethernet" / "ethernet_figures.toml"
WINDOWS = (500_000, 100_000)  # 500 µs warm-up + 100 µs measured (docs/scenarios.md: the flatness check)
_s = tf._s

# ---------------------------------------------------------------------------------------------
# Series (values in TOML syntax, as `lnsim --set` takes them). Ch. 4's VLB and PB are the plain
# ones (RVLB, the intra-group restriction, is Ch. 5's), so the references set vlb_restricted = false.

_PLAIN = dict(routing__vlb_restricted="false")
SERIES: Dict[str, Tuple[str, Dict[str, str]]] = {
    "min": ("MIN", _s(routing__algorithm='"min"')),
    "vlb_-g-": ("VLB -g-", _s(routing__algorithm='"vlb"', routing__vlb_policy='"-g-"', **_PLAIN)),
    "vlb_-gl": ("VLB -gl", _s(routing__algorithm='"vlb"', routing__vlb_policy='"-gl"', **_PLAIN)),
    "vlb_lgl": ("VLB lgl", _s(routing__algorithm='"vlb"', routing__vlb_policy='"lgl"', **_PLAIN)),
    "pb": ("PB", _s(routing__algorithm='"pb"', **_PLAIN)),
    "mar_bp": ("MAR-bP", _s(routing__algorithm='"mar_bp"')),
    # QCN-Switch, final configuration (output sampling + feedback comparison): the defaults
    "qcn": ("QCN-Switch", _s(routing__algorithm='"qcn_switch"')),
    "qcn_out_base": ("QCN-Switch output, base", _s(routing__algorithm='"qcn_switch"',
                                                   routing__qcn_switch__feedback_comparison="false")),
}
for _fc in (False, True):
    for _sp in (False, True):
        _name = "qcn_in" + ("_sp" if _sp else "") + ("_fc" if _fc else "") + ("" if _fc or _sp else "_base")
        _label = "QCN-Switch input, " + (" + ".join([x for x, on in (("SP", _sp), ("FC", _fc)) if on]) or "base")
        SERIES[_name] = (_label, _s(routing__algorithm='"qcn_switch"', qcn__sampling='"input"',
                                    routing__qcn_switch__feedback_comparison=str(_fc).lower(),
                                    routing__qcn_switch__source_processing=str(_sp).lower()))

#: Table 4-3's values of the swept parameters (a series at the default is "qcn" itself)
DEFAULTS = {"cpc": 100, "cnm_percent": 30, "lf": 1 / 64, "pi": 1.0, "th1": 0, "th2": 30}
CNM_GRID = [(100, 10), (100, 30), (50, 40), (25, 40), (25, 80)]  # (CPC, %CNMs): 0.1 ... 3.2 % (research T4)
LF_VALUES = [(1, 256), (1, 128), (1, 85), (1, 64)]  # 1/85, not the thesis's "1/65" (spec §6.2 [AMB, E15])
PI_VALUES = [0.1, 0.5, 1.0, 2.0, 5.0]
TH2_VALUES = [0, 10, 20, 30, 40, 50]
TH1_VALUES = [10]  # Th1 = 0 is the default


def cnm_series(cpc: int, percent: int) -> str:
    """The series name of a CNM-rate point (CPC packets, %CNMs); the default point is "qcn"."""
    if (cpc, percent) == (DEFAULTS["cpc"], DEFAULTS["cnm_percent"]):
        return "qcn"
    name = f"qcn_cpc{cpc}_{percent}"
    SERIES.setdefault(name, (f"CPC {cpc}, {percent} % CNMs ({nominal_cnm_rate(cpc, percent):.1f} %)",
                             _s(routing__algorithm='"qcn_switch"', qcn__cpc_packets=str(cpc),
                                qcn__cnm_percent=str(percent))))
    return name


def nominal_cnm_rate(cpc: int, percent: float) -> float:
    """CNMs per 100 forwarded packets if every sample finds congestion: %CNMs / CPC (E14's
    0.1 % ... 3.2 %)."""
    return percent / cpc


def param_series(key: str, value) -> str:
    """The series name of QCN-Switch with one routing.qcn_switch `key` at `value` (lf as a
    (num, den) pair); the default value is "qcn"."""
    if key == "lf":
        num, den = value
        if abs(num / den - DEFAULTS["lf"]) < 1e-12:
            return "qcn"
        name, label, toml = f"qcn_lf_{num}_{den}", f"L_f = {num}/{den}", repr(num / den)
    else:
        if value == DEFAULTS[key]:
            return "qcn"
        label = {"pi": f"PI = {value} %", "th1": f"Th1 = {value}", "th2": f"Th2 = {value}"}[key]
        name, toml = f"qcn_{key}_{value}", str(value)
    SERIES.setdefault(name, (label, _s(routing__algorithm='"qcn_switch"', **{f"routing__qcn_switch__{key}": toml})))
    return name


CNM = [cnm_series(c, p) for c, p in CNM_GRID]
LF = [param_series("lf", v) for v in LF_VALUES]
PI = [param_series("pi", v) for v in PI_VALUES]
TH = [param_series("th2", v) for v in TH2_VALUES] + [param_series("th1", v) for v in TH1_VALUES]

# ---------------------------------------------------------------------------------------------
# Panels and loads

PANELS = ["un", "adv1"]
LOADS = {"un": [0.2, 0.5, 0.65, 0.85, 1.0], "adv1": [0.1, 0.25, 0.35, 0.4, 0.5, 1.0]}
#: the parameter sweeps' loads (CPU budget): UN at high load and past saturation, ADV+1 at a
#: medium load and past saturation, where the thesis's statements E14-E17 lie
SWEEP_LOADS = {"un": [0.85, 1.0], "adv1": [0.4, 1.0]}
#: series run at every load of LOADS (the others are parameter variants, at SWEEP_LOADS)
FULL = {"min", "vlb_-g-", "vlb_-gl", "vlb_lgl", "pb", "mar_bp", "qcn", "qcn_out_base", "qcn_in_base", "qcn_in_fc",
        "qcn_in_sp", "qcn_in_sp_fc"}
BAR_PANEL, BAR_LOAD = "adv1", 0.4  # the fairness bars of Fig 4-16 and 4-18


def loads_of(panel: str, series: str) -> List[float]:
    return LOADS[panel] if series in FULL else SWEEP_LOADS[panel]


# Transients (spec §4.3, research T1): at 0.4, 2.4 ms with the first pattern, 2 ms after, 10-µs bins
TRANSIENTS = {
    "un_adv1": ("UN → ADV+1 at 0.4", ("uniform", None), ("adv", 1)),
    "adv1_un": ("ADV+1 → UN at 0.4", ("adv", 1), ("uniform", None)),
}
TRANSIENT_LOAD = 0.4
TRANSIENT_WINDOWS = (2_400_000, 2_000_000)
TRANSIENT_BIN = 10_000

# Fig 4-26 (E18): per size, UN latency at 0.65, ADV+1 latency at 0.35, throughput at offered 1.0
SIZES = [4, 6, 8]
SIZE_POINTS = {"un": [0.65, 1.0], "adv1": [0.35, 1.0]}


@dataclass
class Figure(tf.Figure):
    """One figure of spec §9.2 (Ch. 4): kinds load, bars (per-router load of group 0 under
    ADV+1 at 0.4), transient (with the minimal probability of one port when ``probability``),
    sizes (Fig 4-26)."""

    probability: bool = False


QCN_IN = ["qcn_in_base", "qcn_in_fc", "qcn_in_sp", "qcn_in_sp_fc"]
FIGURES: List[Figure] = [
    Figure("4-14", "MAR-bP against MIN, VLB -g- and PB", "load", ["min", "vlb_-g-", "pb", "mar_bp"], PANELS,
           claim="E8"),
    Figure("4-15", "QCN-Switch with input sampling: base, +FC, +SP, +SP+FC", "load",
           ["min", "vlb_lgl", "pb", *QCN_IN], PANELS, claim="E10, E11"),
    Figure("4-16", "Input sampling, ADV+1 at 0.4: load delivered per node, per router of group 0", "bars", QCN_IN,
           [BAR_PANEL], claim="E11"),
    Figure("4-17", "QCN-Switch with output sampling: base and +FC (the final configuration)", "load",
           ["min", "vlb_lgl", "pb", "qcn_out_base", "qcn"], PANELS, claim="E12"),
    Figure("4-18", "Output sampling, ADV+1 at 0.4: load delivered per node, per router of group 0", "bars",
           ["qcn_out_base", "qcn"], [BAR_PANEL], claim="E12"),
    Figure("4-19", "UN ↔ ADV+1 at 0.4: PB and QCN-Switch", "transient", ["pb", "qcn"],
           transients=["un_adv1", "adv1_un"], claim="E13"),
    Figure("4-20", "QCN-Switch: the CNM rate (CPC, %CNMs)", "load", CNM, PANELS, claim="E14"),
    Figure("4-21", "QCN-Switch, UN → ADV+1 at 0.4: the CNM rate", "transient", CNM, transients=["un_adv1"],
           claim="E14", probability=True),
    Figure("4-22", "QCN-Switch: the reduction limiting factor L_f", "load", LF, PANELS, claim="E15"),
    Figure("4-23", "QCN-Switch, UN → ADV+1 at 0.4: L_f", "transient", LF, transients=["un_adv1"], claim="E15",
           probability=True),
    Figure("4-24", "QCN-Switch: the probability increase PI", "load", PI, PANELS, claim="E16"),
    Figure("4-25", "QCN-Switch: the feedback-comparison thresholds Th2 (and Th1)", "load", TH, PANELS, claim="E17"),
    Figure("4-26", "Network sizes h = 4, 6, 8: MIN, VLB -gl, QCN-Switch", "sizes", ["min", "vlb_-gl", "qcn"],
           hs=SIZES, claim="E18"),
]
FIG = {f.fig: f for f in FIGURES}
#: the order `run` takes the figures in (a campaign cut short has the main comparisons first)
RUN_ORDER = ["4-14", "4-17", "4-18", "4-19", "4-15", "4-16", "4-26", "4-20", "4-22", "4-24", "4-25", "4-21", "4-23"]

# ---------------------------------------------------------------------------------------------
# Jobs (thesis_figures.Job folders)


def load_job(base: Path, h: int, windows, panel: str, series: str, seeds: int, loads=None, sub: str = "") -> tf.Job:
    _, pkv = tf.panels(h)[panel]
    args = tf._base_sets(h, windows) + tf._sets(pkv) + tf._sets(SERIES[series][1])
    args += tf._grid("traffic.load", loads or loads_of(panel, series))
    folder = base / sub / panel / series if sub else base / panel / series
    return tf.Job(folder, args, seeds)


def transient_job(base: Path, h: int, case: str, series: str) -> tf.Job:
    _, before, after = TRANSIENTS[case]
    args = tf._base_sets(h, TRANSIENT_WINDOWS) + tf._sets(SERIES[series][1])
    args += ["--set", 'traffic.pattern="transient"', "--set", f"traffic.transient.at_cycle={TRANSIENT_WINDOWS[0]}",
             "--set", f"stats.bin_cycles={TRANSIENT_BIN}",
             "--set", f"sim.saturation_queue_packets={tf.TRANSIENT_QUEUE_PACKETS}"]
    for phase, (pattern, shift) in (("before", before), ("after", after)):
        args += ["--set", f'traffic.transient.{phase}.pattern="{pattern}"']
        if shift is not None:
            args += ["--set", f"traffic.transient.{phase}.shift={shift}"]
    return tf.Job(base / "transient" / case / series, args + tf._grid("traffic.load", [TRANSIENT_LOAD]), 1)


def figure_jobs(f: Figure, out: Path, h: int, windows, seeds: int) -> List[tf.Job]:
    base = tf.root(out, h, windows)
    if f.kind == "load":
        return [load_job(base, h, windows, p, s, seeds) for p in f.panels for s in f.series]
    if f.kind == "bars":
        return [load_job(base, h, windows, BAR_PANEL, s, seeds) for s in f.series]
    if f.kind == "transient":
        return [transient_job(tf.root(out, h, TRANSIENT_WINDOWS), h, c, s) for c in f.transients for s in f.series]
    if f.kind == "sizes":
        return [size_job(out, h, hh, windows, p, s, seeds) for hh in f.hs for s in f.series for p in SIZE_POINTS]
    raise ValueError(f.kind)


def size_job(out: Path, h: int, hh: int, windows, panel: str, series: str, seeds: int) -> tf.Job:
    """A Fig 4-26 sweep: the load figures' own sweep on the main size `h` when it holds the
    points (MIN and QCN-Switch), else a `sizes/` folder with just SIZE_POINTS."""
    base = tf.root(out, hh, windows)
    drawn = {s for f in FIGURES if f.kind == "load" for s in f.series}
    if hh == h and series in drawn and set(SIZE_POINTS[panel]) <= set(loads_of(panel, series)):
        return load_job(base, hh, windows, panel, series, seeds)
    return load_job(base, hh, windows, panel, series, seeds, SIZE_POINTS[panel], sub="sizes")


# ---------------------------------------------------------------------------------------------
# Reading results


def response_times(summary: dict) -> Dict[str, Optional[float]]:
    """The response of a transient run in µs from its summary.json: latency_us and
    nonminimal_us (None: still outside its band at the end, or not a transient run)."""
    r = summary.get("transient_response") or {}
    return {"latency_us": r.get("latency_us"), "nonminimal_us": r.get("nonminimal_us")}


def busiest_port(probs) -> Tuple[int, int]:
    """The (router, port) of group 0 whose minimal probability was cut most often in a
    qcn_probabilities.csv table (a cut: a change to below the port's previous value, 100 before
    its first change; ties: the lowest router, then port): the port drawn in Figs 4-21 and 4-23."""
    t = probs.sort_values("cycle", kind="stable")
    prev = t.groupby(["router", "port"])["probability"].shift(1).fillna(100.0)
    cuts = t[t["probability"] < prev]
    n = (cuts if not cuts.empty else t).groupby(["router", "port"]).size().reset_index(name="n")
    n = n.sort_values(["n", "router", "port"], ascending=[False, True, True], kind="stable")
    return int(n.iloc[0]["router"]), int(n.iloc[0]["port"])


def _summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def _cnm_rate(run: Path) -> Optional[float]:
    """QCN notifications per packet hop of a run (summary.json qcn), or None without QCN."""
    try:
        return (_summary(run).get("qcn") or {}).get("notifications_per_packet_hop")
    except (OSError, ValueError):
        return None


def _rows(folder: Path, load: float):
    df = tf._frame(folder)
    return None if df is None else df[(df["traffic.load"] - load).abs() < 1e-9]


# ---------------------------------------------------------------------------------------------
# Plotting


def _save(fig, img: Path, f: Figure) -> Path:
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _title(f: Figure, h: int, windows, seeds: int, missing: List[str]) -> str:
    t = (f"Fig {f.fig} ({f.claim}): {f.title}\nTable 4-3, h = {h}, {windows[0] / 1000:g} µs warm-up + "
         f"{windows[1] / 1000:g} µs measured, {seeds} seed(s)")
    if missing:
        t += f"; not run: {', '.join(missing[:4])}{' …' if len(missing) > 4 else ''}"
    return t


def plot_load(f: Figure, out: Path, h: int, windows, seeds: int, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    from lnsim.plot import MARKERS, load_curves

    base = tf.root(out, h, windows)
    fig, axes = plt.subplots(2, len(f.panels), figsize=(max(8.0, 4.6 * len(f.panels)), 7.5), squeeze=False)
    missing = []
    for c, p in enumerate(f.panels):
        for i, s in enumerate(f.series):
            folder = load_job(base, h, windows, p, s, seeds).folder
            df = tf._frame(folder)
            if df is None or df.empty:
                missing.append(f"{p}/{s}")
                continue
            style = dict(marker=MARKERS[i % len(MARKERS)], ms=5, lw=1.4, color=f"C{i % 10}", label=SERIES[s][0])
            lat = load_curves(folder, "latency_cycles.mean", drop_saturated=True)
            acc = load_curves(folder, "accepted_load")
            axes[0][c].plot(lat["load"], lat["mean"] / 1000.0, **style)
            axes[1][c].plot(acc["load"], acc["mean"], **style)
        axes[0][c].set_title(f"{tf.panels(h)[p][0]}, h = {h}")
        axes[0][c].set_ylabel("latency (µs), saturated points left out")
        axes[1][c].set_ylabel("accepted load (phits/node/cycle)")
        axes[1][c].set_xlabel("offered load (phits/node/cycle)")
        if p == "adv1":
            axes[1][c].axhline(1 / 72, color="0.6", lw=0.8, ls=":", label="MIN limit 1/72")
            axes[1][c].axhline(0.5, color="0.3", lw=0.8, ls=":", label="non-minimal limit 0.5")
        for r in range(2):
            axes[r][c].grid(alpha=0.3)
    handles, labels = axes[1][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)) or 1, fontsize=8)
    fig.suptitle(_title(f, h, windows, seeds, missing), fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 0.93))
    return [_save(fig, img, f)]


def plot_bars(f: Figure, out: Path, h: int, windows, seeds: int, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    import numpy as np

    base = tf.root(out, h, windows)
    a = 2 * h
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * a), 4.5))
    width = 0.8 / len(f.series)
    missing = []
    for i, s in enumerate(f.series):
        runs = tf._point_runs(load_job(base, h, windows, BAR_PANEL, s, seeds).folder, BAR_LOAD)
        if not runs:
            missing.append(s)
            continue
        v = np.mean([tf.router_loads(r)[:a] for r in runs], axis=0)
        ax.bar(np.arange(a) + (i - (len(f.series) - 1) / 2) * width, v, width, label=SERIES[s][0], color=f"C{i % 10}")
    ax.set_xticks(range(a))
    ax.set_xticklabels([f"R{r}" for r in range(a)])
    ax.set_xlabel(f"router of group 0 (R{a - 1} = R_OUT, whose global link leads to group 1)")
    ax.set_ylabel("load delivered per node (phits/node/cycle)")
    ax.axhline(BAR_LOAD, color="0.3", lw=1, ls="--", label="offered")
    ax.set_ylim(0, BAR_LOAD * 1.45)
    ax.legend(fontsize=8, ncol=3, loc="upper center")
    ax.set_title(_title(f, h, windows, seeds, missing) + f"; ADV+1 at {BAR_LOAD}", fontsize=9)
    fig.tight_layout()
    return [_save(fig, img, f)]


def plot_transient(f: Figure, out: Path, h: int, windows, seeds: int, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    import pandas as pd

    base = tf.root(out, h, TRANSIENT_WINDOWS)
    at = TRANSIENT_WINDOWS[0]
    rows = 2 + f.probability
    fig, axes = plt.subplots(rows, len(f.transients), figsize=(max(7.0, 6.5 * len(f.transients)), 2.9 * rows),
                             squeeze=False)
    missing = []
    for c, case in enumerate(f.transients):
        port = None
        for i, s in enumerate(f.series):
            run = tf.transient_run(transient_job(base, h, case, s).folder)
            if run is None:
                missing.append(f"{case}/{s}")
                continue
            b = pd.read_csv(run / "bins.csv")
            t = ((b.start_cycle + b.end_cycle) / 2 - at) / 1000.0
            keep = t > -_pre()
            rt = response_times(_summary(run))
            lab = f"{SERIES[s][0]} (t_r {_us(rt['latency_us'])} / {_us(rt['nonminimal_us'])})"
            style = dict(color=f"C{i % 10}", lw=1.2, label=lab)
            axes[0][c].plot(t[keep], b.latency_mean[keep] / 1000.0, **style)
            axes[1][c].plot(t[keep], b.nonminimal_fraction[keep], **style)
            pp = run / "qcn_probabilities.csv"
            if f.probability and pp.is_file():
                probs = pd.read_csv(pp)
                if not probs.empty:
                    if port is None:  # the port chosen in the first series' run, drawn for all
                        after = probs[probs.cycle >= at]
                        port = busiest_port(after if not after.empty else probs)
                    one = probs[(probs.router == port[0]) & (probs.port == port[1])]
                    axes[2][c].step((one.cycle - at) / 1000.0, one.probability, where="post", lw=0.9,
                                    color=style["color"])
        axes[0][c].set_title(TRANSIENTS[case][0])
        axes[0][c].set_ylabel("latency (µs, by delivery)")
        axes[1][c].set_ylabel("misrouted share")
        if f.probability:
            axes[2][c].set_ylabel("minimal probability (%)" + (f"\nrouter {port[0]}, port {port[1]}" if port else ""))
            axes[2][c].set_xlim(-_pre(), TRANSIENT_WINDOWS[1] / 1000.0)
        axes[-1][c].set_xlabel(f"µs after the change ({TRANSIENT_BIN / 1000:g}-µs bins)")
        for r in range(rows):
            axes[r][c].axvline(0, color="0.5", lw=0.8)
            axes[r][c].grid(alpha=0.3)
        axes[0][c].legend(fontsize=7, title="response time latency / misrouted (µs)", title_fontsize=7)
    fig.suptitle(_title(f, h, TRANSIENT_WINDOWS, 1, missing), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return [_save(fig, img, f)]


def _pre() -> float:
    """How much of the first pattern a transient figure shows (µs): 200, or the whole warm-up."""
    return min(200.0, TRANSIENT_WINDOWS[0] / 1000.0)


def _us(v) -> str:
    return "—" if v is None else f"{v:.0f}"


def plot_sizes(f: Figure, out: Path, h: int, windows, seeds: int, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    import numpy as np

    what = [("un", 0.65, "latency_cycles.mean", "UN latency at 0.65 (µs)"),
            ("adv1", 0.35, "latency_cycles.mean", "ADV+1 latency at 0.35 (µs)"),
            ("un", 1.0, "accepted_load", "UN throughput at offered 1.0"),
            ("adv1", 1.0, "accepted_load", "ADV+1 throughput at offered 1.0")]
    fig, axes = plt.subplots(1, 4, figsize=(15, 4.2))
    width = 0.8 / len(f.series)
    missing = []
    for k, (p, load, col, label) in enumerate(what):
        for i, s in enumerate(f.series):
            vals = []
            for hh in f.hs:
                rows = _rows(size_job(out, h, hh, windows, p, s, seeds).folder, load)
                if rows is None or rows.empty:
                    vals.append(np.nan)
                    missing.append(f"h{hh}/{p}/{s}")
                    continue
                v = rows[col].astype(float).mean()
                vals.append(v / 1000.0 if col.startswith("latency") else v)
            axes[k].bar(np.arange(len(f.hs)) + (i - (len(f.series) - 1) / 2) * width, vals, width, color=f"C{i}",
                        label=SERIES[s][0])
        axes[k].set_xticks(range(len(f.hs)))
        axes[k].set_xticklabels([f"h = {hh}\n({(2 * hh * hh + 1) * 2 * hh * hh:,} nodes)" for hh in f.hs], fontsize=8)
        axes[k].set_title(label, fontsize=9)
        axes[k].grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=8)
    fig.suptitle(_title(f, h, windows, seeds, sorted(set(missing))).replace(f"h = {h}, ", ""), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return [_save(fig, img, f)]


PLOTS = {"load": plot_load, "bars": plot_bars, "transient": plot_transient, "sizes": plot_sizes}


# ---------------------------------------------------------------------------------------------
# The measured values (docs/scenarios.md's tables)


def values_table(out: Path, h: int, windows, seeds: int, figs: Sequence[Figure]) -> str:
    """Markdown lines of the measured values of `figs`: per load figure, latency (µs) and
    accepted load at each point; per transient, the response times and the CNM rate; per
    bars figure, group 0's lowest and highest router and R_OUT; per size, the Fig 4-26 values."""
    import numpy as np

    out_lines = []
    base = tf.root(out, h, windows)
    for f in figs:
        out_lines.append(f"\nFig {f.fig} ({f.claim}) {f.title}")
        if f.kind == "load":
            for p in f.panels:
                out_lines.append(f"  {tf.panels(h)[p][0]}: load -> latency µs (accepted; * saturated)")
                for s in f.series:
                    df = tf._frame(load_job(base, h, windows, p, s, seeds).folder)
                    if df is None or df.empty:
                        out_lines.append(f"    {SERIES[s][0]:32} not run")
                        continue
                    cells = []
                    for load, g in df.groupby("traffic.load"):
                        sat = g["saturated"].astype(str).str.lower().isin(["true", "1", "1.0"]).any()
                        cells.append(f"{load:g}: {g['latency_cycles.mean'].mean() / 1000:.2f} "
                                     f"({g['accepted_load'].mean():.3f}{'*' if sat else ''})")
                    rates = [_cnm_rate(r) for load in sorted(set(df["traffic.load"]))
                             for r in tf._point_runs(load_job(base, h, windows, p, s, seeds).folder, load)]
                    rates = [r for r in rates if r is not None]
                    extra = f"  CNMs per packet hop {min(rates) * 100:.2f}-{max(rates) * 100:.2f} %" if rates else ""
                    out_lines.append(f"    {SERIES[s][0]:32} " + "; ".join(cells) + extra)
        elif f.kind == "bars":
            for s in f.series:
                runs = tf._point_runs(load_job(base, h, windows, BAR_PANEL, s, seeds).folder, BAR_LOAD)
                if not runs:
                    out_lines.append(f"    {SERIES[s][0]:32} not run")
                    continue
                v = np.mean([tf.router_loads(r)[:2 * h] for r in runs], axis=0)
                out_lines.append(f"    {SERIES[s][0]:32} min {v.min():.3f} (R{int(v.argmin())}) max {v.max():.3f} "
                                 f"R_OUT {v[-1]:.3f}")
        elif f.kind == "transient":
            tb = tf.root(out, h, TRANSIENT_WINDOWS)
            for c in f.transients:
                for s in f.series:
                    run = tf.transient_run(transient_job(tb, h, c, s).folder)
                    if run is None:
                        out_lines.append(f"    {c} {SERIES[s][0]:32} not run")
                        continue
                    sm = _summary(run)
                    rt = response_times(sm)
                    q = sm.get("qcn") or {}
                    qs = sm.get("qcn_switch") or {}
                    out_lines.append(f"    {c} {SERIES[s][0]:32} t_r latency {_us(rt['latency_us'])} µs, misrouted "
                                     f"{_us(rt['nonminimal_us'])} µs; over the window after the change: latency {sm['latency_cycles']['mean'] / 1000:.2f} µs, "
                                     f"misrouted {sm.get('nonminimal_fraction', float('nan')):.3f}; CNMs/packet hop "
                                     f"{(q.get('notifications_per_packet_hop') or 0) * 100:.2f} %; probability updates "
                                     f"{qs.get('notifications_applied', '—')}")
        elif f.kind == "sizes":
            for hh in f.hs:
                for s in f.series:
                    cells = []
                    for p, pts in SIZE_POINTS.items():
                        rows = tf._frame(size_job(out, h, hh, windows, p, s, seeds).folder)
                        for load in pts:
                            r = None if rows is None else rows[(rows["traffic.load"] - load).abs() < 1e-9]
                            if r is None or r.empty:
                                cells.append(f"{p} {load:g}: not run")
                            else:
                                cells.append(f"{p} {load:g}: {r['latency_cycles.mean'].mean() / 1000:.2f} µs "
                                             f"({r['accepted_load'].mean():.3f})")
                    out_lines.append(f"    h={hh} {SERIES[s][0]:12} " + "; ".join(cells))
    return "\n".join(out_lines)


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    global TRANSIENT_WINDOWS, TRANSIENT_BIN
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["list", "run", "plot", "table"])
    ap.add_argument("--fig", action="append", default=[], help="figure number, e.g. 4-14 (repeatable; default all)")
    ap.add_argument("--out", type=Path, default=Path("results/ethernet"), help="campaign folder (default %(default)s)")
    ap.add_argument("--img", type=Path, default=None, help="plot: where to write the PNGs (default OUT/img)")
    ap.add_argument("--h", type=int, default=6, help="Dragonfly h = p (default 6, Table 4-3's network)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds per point (default %(default)s)")
    ap.add_argument("--windows", default=",".join(map(str, WINDOWS)), help="warm-up,measure cycles (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once (default %(default)s)")
    ap.add_argument("--loads", default=None, help="comma-separated loads replacing every panel's (a smaller grid)")
    ap.add_argument("--transient-windows", default=None,
                    help="before,after[,bin] cycles of the transients (default %s,%s,%s)"
                         % (*TRANSIENT_WINDOWS, TRANSIENT_BIN))
    ap.add_argument("--dry-run", action="store_true", help="run: print the commands only")
    a = ap.parse_args(argv)
    try:
        windows = tuple(int(x) for x in a.windows.split(","))
        assert len(windows) == 2 and min(windows) > 0
    except (ValueError, AssertionError):
        ap.error(f"--windows: {a.windows!r} is not two positive cycle counts, e.g. 500000,100000")
    if a.transient_windows:
        try:
            tw = [int(x) for x in a.transient_windows.split(",")]
            assert len(tw) in (2, 3) and min(tw) > 0
        except (ValueError, AssertionError):
            ap.error(f"--transient-windows: {a.transient_windows!r} is not 2 or 3 positive cycle counts")
        TRANSIENT_WINDOWS, TRANSIENT_BIN = (tw[0], tw[1]), (tw[2] if len(tw) == 3 else TRANSIENT_BIN)
    if a.loads:
        loads = [float(x) for x in a.loads.split(",")]
        for table in (LOADS, SWEEP_LOADS):
            for p in table:
                table[p] = loads
    unknown = [f for f in a.fig if f not in FIG]
    if unknown:
        ap.error(f"--fig: unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIG)}")
    figs = [FIG[f] for f in a.fig] if a.fig else FIGURES
    if a.action == "list":
        for f in FIGURES:
            js = figure_jobs(f, a.out, a.h, windows, a.seeds)
            print(f"Fig {f.fig:5} {f.kind:9} {tf._done(js):3}/{len(js):3} sweeps  {f.title} [{f.claim}]")
        return 0
    if a.action == "run":
        seen, failed = set(), 0
        for f in sorted(figs, key=lambda f: RUN_ORDER.index(f.fig)):
            for j in figure_jobs(f, a.out, a.h, windows, a.seeds):
                if j.folder in seen:
                    continue
                seen.add(j.folder)
                failed += tf.run_job(j, a.jobs, a.dry_run, SCENARIO) != 0
        print(f"ethernet_figures: {len(seen)} sweeps, {failed} failed")
        return 1 if failed else 0
    if a.action == "table":
        print(values_table(a.out, a.h, windows, a.seeds, figs))
        return 0
    img = a.img or a.out / "img"
    img.mkdir(parents=True, exist_ok=True)
    for f in figs:
        for p in PLOTS[f.kind](f, a.out, a.h, windows, a.seeds, img):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
