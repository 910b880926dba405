#!/usr/bin/env python3
"""The response of ACOR-Switch to a traffic change, from a cycle-level results folder with
`acor_levels.csv` and `bins.csv` (a transient run): per time bin around the change, the mean
ACOR level over the routers (each router's level at the start of the bin), the mean latency and
accepted load of the packets delivered in the bin, and their path breakdown (-g-, -gl, lgl);
without `acor_levels.csv` (a routing other than ACOR-Switch) the level is left out.
Times are in µs after the change (1 cycle = 1 ns, Table 3-1).

    python scripts/level_trace.py results/i19_acor_up --at 60000 --bins=-1,0,1,2,3,4,6,10,20,59

Used for the transient table of docs/scenarios.md ("The thesis's own routings").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd


def rows(folder: Path, at: int, which) -> list:
    bins = pd.read_csv(folder / "bins.csv")
    trace = folder / "acor_levels.csv"  # absent for a routing without ACOR-Switch levels
    lv = pd.read_csv(trace) if trace.exists() else None
    width = int(bins.end_cycle[0] - bins.start_cycle[0])
    out = []
    for k in which:
        i = at // width + k
        if not 0 <= i < len(bins):
            continue
        b = bins.iloc[i]
        start = int(b.start_cycle)
        # each router's last change at or before the bin's start
        level = float("nan")
        if lv is not None:
            last = lv[lv.cycle <= start].sort_values("cycle", kind="stable").groupby("router")["level"].last()
            level = last.mean()
        out.append((
            (start - at) / 1000, level, b.latency_mean, b.accepted_load,
            b["paths_-g-"], b["paths_-gl"], b["paths_lgl"],
        ))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="results folder of a transient ACOR-Switch run")
    ap.add_argument("--at", type=int, required=True, help="cycle of the traffic change")
    ap.add_argument("--bins", default="-1,0,1,2,3,4,6,10,20", help="bins after the change to show")
    a = ap.parse_args()
    print("| µs after the change | mean level | latency (cycles) | accepted | -g- | -gl | lgl |")
    print("|---|---|---|---|---|---|---|")
    for t, lvl, lat, acc, g, gl, lgl in rows(a.folder, a.at, [int(x) for x in a.bins.split(",")]):
        shown = "—" if lvl != lvl else f"{lvl:.2f}"
        print(f"| {t:g} | {shown} | {lat:.0f} | {acc:.3f} | {g:.2f} | {gl:.2f} | {lgl:.2f} |")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
