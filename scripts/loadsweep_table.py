#!/usr/bin/env python3
"""Summarises cycle-level load sweeps (folders written by `lnsim sweep`) as the Markdown
tables of docs/scenarios.md: per curve (every combination of the swept keys other than the
load), the zero-load latency, the saturation point, the peak accepted load and the accepted
load at the highest offered load, next to an analytical bound when one is given.

    python scripts/loadsweep_table.py results/dragonfly_h4_adv1-sweep --bound min=0.03125 ...

Definitions (spec §5): the saturation point Θ is the highest offered load whose point is not
marked saturated and accepts at least 98 % of what it offers (accepted = offered up to the
Bernoulli noise); the zero-load latency is the mean latency at the lowest load. With several
seeds the figures are means over seeds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def curves(df: pd.DataFrame, load_key: str = "traffic.load"):
    """Yields (label, frame sorted by load) per combination of the non-load swept keys."""
    keys = [c for c in df.columns if "." in c and c in df.attrs.get("swept", [])]
    keys = [k for k in keys if k != load_key]
    if not keys:
        yield "", df.sort_values(load_key)
        return
    for values, g in df.groupby(keys, sort=False):
        values = values if isinstance(values, tuple) else (values,)
        yield ", ".join(str(v) for v in values), g.sort_values(load_key)


def summarise(sweep_dir: Path, bounds: dict) -> str:
    sweep_dir = Path(sweep_dir)
    df = pd.read_csv(sweep_dir / "sweep.csv")
    df = df[df["status"] == "ok"]
    swept = [c for c in df.columns if c.startswith(("routing.", "traffic.", "router.", "topology."))]
    # columns that vary are the swept keys
    df.attrs["swept"] = [c for c in swept if df[c].nunique() > 1]
    num = ["offered_load", "accepted_load", "latency_cycles.mean", "nonminimal_fraction"]
    # the load identifies a point even when a sweep runs a single load
    group_cols = df.attrs["swept"] + [c for c in ("traffic.load",) if c in df.columns and c not in df.attrs["swept"]]
    mean = df.groupby(group_cols, sort=False)[num].mean().reset_index()
    sat = df.groupby(group_cols, sort=False)["saturated"].any().reset_index()
    mean = mean.merge(sat, on=group_cols)
    mean.attrs["swept"] = group_cols
    rows = ["| curve | zero-load latency (cycles) | Θ (highest load with accepted = offered) | "
            "peak accepted | accepted at max offered | bound |",
            "|---|---|---|---|---|---|"]
    for label, g in curves(mean):
        ok = g[(~g["saturated"]) & (g["accepted_load"] >= 0.98 * g["offered_load"])]
        theta = ok["offered_load"].max() if len(ok) else float("nan")
        zero = g.iloc[0]["latency_cycles.mean"]
        bound = bounds.get(label.split(",")[0].strip(), bounds.get(label, ""))
        rows.append(
            f"| {label or 'all'} | {zero:.0f} | {theta:.3g} | {g['accepted_load'].max():.4f} | "
            f"{g.iloc[-1]['accepted_load']:.4f} | {bound} |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", type=Path)
    ap.add_argument("--bound", action="append", default=[], metavar="CURVE=VALUE",
                    help="analytical bound shown for a curve (first swept value), repeatable")
    a = ap.parse_args()
    bounds = dict(b.split("=", 1) for b in a.bound)
    for d in a.sweeps:
        print(f"#### {d.name}\n")
        print(summarise(d, bounds))
        print()


if __name__ == "__main__":
    main()
