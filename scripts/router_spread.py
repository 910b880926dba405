#!/usr/bin/env python3
"""Per-router injected load of one Dragonfly group, from `lnsim sweep --seeds N` folders of the
cycle-level model (each run's `routers.csv`): a row per point with the lowest and the highest
`injected_load` among the group's routers other than its last one, and that of the last router
(R_OUT = R_{a-1} under ADVC, the router whose global links lead to the destination groups, spec
§4.2), each the mean over the seeds ± half the range between the lowest and the highest seed.

    python scripts/router_spread.py results/i19_ch6_advc --group 0

Used for the fairness table of docs/scenarios.md ("The thesis's Ch. 6 routings").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def _cell(v: pd.Series) -> str:
    return f"{v.mean():.4f} ± {(v.max() - v.min()) / 2:.4f}"


def table(sweeps, group: int) -> str:
    lines = ["| sweep | point | others: lowest | others: highest | R_OUT | seeds |", "|---|---|---|---|---|---|"]
    for d in sweeps:
        df = pd.read_csv(Path(d) / "sweep.csv")
        df = df[df["status"] == "ok"]
        for point, g in df.groupby("point", sort=False):
            lo, hi, out = [], [], []
            for seed in g["seed"]:
                run = Path(d) / "points" / str(point)
                run = run / f"seed-{seed}" if (run / f"seed-{seed}").is_dir() else run  # --seeds 1: no seed folders
                r = pd.read_csv(run / "routers.csv")
                r = r[r["name"].str.match(rf"G{group}R\d+$")]
                last = r["name"].str.slice(len(f"G{group}R")).astype(int).idxmax()
                others = r.drop(index=last)["injected_load"]
                lo.append(others.min())
                hi.append(others.max())
                out.append(r.loc[last, "injected_load"])
            cells = [Path(d).name, str(point), *map(_cell, map(pd.Series, (lo, hi, out))), str(len(g))]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", help="sweep folders (lnsim sweep --out)")
    ap.add_argument("--group", type=int, default=0, help="the group whose routers are listed (default 0)")
    a = ap.parse_args()
    print(table(a.sweeps, a.group))


if __name__ == "__main__":
    main()
