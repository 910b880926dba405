#!/usr/bin/env python3
"""Intermediate-local counters against offered load, in the style of the thesis's Fig 6-8
(Dragonfly spec §6.4 L6, L7): from a cycle-level sweep folder run with
`stats.group_counters = true`, the measurement window's IL_{-k} averaged over the routers
(`summary.json` `group_counters.il_mean[k-1]`) of every point, one curve per routing, VLB
policy and pattern (and k); a saturated point (`saturated`) is drawn hollow, and the table
printed on stdout gives, per curve, the IL at the last point below saturation and at the
first point past it.

Values are packets per window of `routing.lian.window_cycles` (200) cycles summed over a
router's injection ports: the thesis's "phits/interval" (spec §3.10.1 units note).

    PYTHONPATH=$PWD/python python3 -m lnsim sweep scenarios/dragonfly/h4_thesis_routings.toml \\
        --out results/il_h4 --set stats.group_counters=true --set traffic.pattern='"adv"' \\
        --grid routing.vlb_policy=-g-,-gl --grid traffic.load=0.1,0.2,0.3,0.4,0.5,0.6
    python3 scripts/il_trace.py results/il_h4 --k 1 --out il_h4.png

Several seeds per point (`--seeds N`) are averaged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd


def points(folder: Path) -> pd.DataFrame:
    """One row per run of the sweep: its curve's label, offered load, saturation and IL_{-k}
    (columns `il_m1` …), from sweep.csv and each point's summary.json."""
    sweep = pd.read_csv(folder / "sweep.csv")
    rows = []
    for _, r in sweep.iterrows():
        if "status" in sweep and r["status"] != "ok":
            continue
        # the run's folder: points/<point>/, or points/<point>/seed-<seed>/ with --seeds N > 1
        base = folder / "points" / str(r["point"])
        found = [d / "summary.json" for d in (base / f"seed-{r['seed']}", base) if (d / "summary.json").exists()]
        if not found:
            continue
        summary = found[0]
        s = json.loads(summary.read_text())
        g = s.get("group_counters")
        if g is None:
            raise SystemExit(f"{summary}: no group_counters (run the sweep with --set stats.group_counters=true)")
        policy = s.get("vlb_policy")
        label = " ".join(x for x in (s["routing"], policy, s["pattern"]) if x)
        row = {
            "curve": label,
            "offered_load": s["offered_load"],
            "accepted_load": s["accepted_load"],
            "saturated": bool(s["saturated"]),
        }
        for k, v in enumerate(g["il_mean"], 1):
            row[f"il_m{k}"] = v
        rows.append(row)
    if not rows:
        raise SystemExit(f"{folder}: no finished point with a summary.json")
    df = pd.DataFrame(rows)
    # seeds of one point: their mean (saturated if any seed is)
    agg = {c: "mean" for c in df.columns if c.startswith("il_m") or c == "accepted_load"}
    agg["saturated"] = "max"
    return df.groupby(["curve", "offered_load"], as_index=False).agg(agg).sort_values(["curve", "offered_load"])


def table(df: pd.DataFrame, ks) -> str:
    """Markdown: per curve and k, IL_{-k} at the last point below saturation and the first past
    it (with their loads)."""
    out = ["| curve | k | last load below saturation | IL there | first saturated load | IL there |",
           "|---|---|---|---|---|---|"]
    for curve, c in df.groupby("curve"):
        below, past = c[~c.saturated], c[c.saturated]
        for k in ks:
            col = f"il_m{k}"
            b = below.iloc[-1] if len(below) else None
            p = past.iloc[0] if len(past) else None
            cell = lambda x: ("—", "—") if x is None else (f"{x.offered_load:g}", f"{x[col]:.2f}")
            out.append(f"| {curve} | {k} | {' | '.join(cell(b))} | {' | '.join(cell(p))} |")
    return "\n".join(out)


def plot(df: pd.DataFrame, ks, out: Path, ref) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = ["-", "--", ":", "-."]
    for i, (curve, c) in enumerate(df.groupby("curve")):
        colour = f"C{i % 10}"
        for j, k in enumerate(ks):
            col = f"il_m{k}"
            label = curve if len(ks) == 1 else f"{curve} IL−{k}"
            ax.plot(c.offered_load, c[col], styles[j % len(styles)], color=colour, label=label)
            ok, sat = c[~c.saturated], c[c.saturated]
            ax.plot(ok.offered_load, ok[col], "o", color=colour, ms=4)
            ax.plot(sat.offered_load, sat[col], "o", mfc="none", color=colour, ms=5)
    if ref is not None:
        ax.axhline(ref, color="grey", lw=0.8, ls="--", label=f"thesis at saturation (≈{ref:g})")
    which = ", ".join(f"IL−{k}" for k in ks)
    ax.set_xlabel("offered load (phits/node/cycle)")
    ax.set_ylabel(f"{which} (packets / window, router mean)")
    ax.set_title("Intermediate-local counters (Fig 6-8 style; hollow: saturated)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="sweep folder (sweep.csv, points/…/summary.json)")
    ap.add_argument("--k", default="1", help="which IL_{-k}, comma-separated (default 1)")
    ap.add_argument("--out", type=Path, help="write the figure to this PNG")
    ap.add_argument("--ref", type=float, default=None, help="draw a reference level, e.g. 17 (the thesis's IL at saturation)")
    a = ap.parse_args()
    ks = [int(x) for x in a.k.split(",")]
    df = points(a.folder)
    h = sum(1 for c in df.columns if c.startswith("il_m"))
    if any(not 1 <= k <= h for k in ks):
        raise SystemExit(f"--k: the network has IL_-1 … IL_-{h}")
    print(table(df, ks))
    if a.out:
        plot(df, ks, a.out, a.ref)
        print(f"figure: {a.out}")


if __name__ == "__main__":
    main()
