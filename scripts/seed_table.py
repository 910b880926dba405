#!/usr/bin/env python3
"""Summarises `lnsim sweep --seeds N` folders as one Markdown table: a row per point (the swept
keys, the columns of sweep.csv before `point`), and per chosen summary field the mean over the
seeds with the seed spread (± half the range between the lowest and the highest seed), or, for
true/false fields, how many seeds say true.

    python scripts/seed_table.py results/i19_rvlb results/i19_recompute \\
        --field accepted_load --field latency_cycles.mean --field saturated

Used for the tables of docs/scenarios.md ("The thesis's own routings").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd


def _cell(values: pd.Series) -> str:
    if values.dtype == bool or set(values.astype(str)) <= {"True", "False"}:
        return f"{(values.astype(str) == 'True').sum()}/{len(values)}"
    v = values.astype(float)
    spread = (v.max() - v.min()) / 2
    digits = 4 if v.abs().max() < 10 else 1
    return f"{v.mean():.{digits}f} ± {spread:.{digits}f}"


def table(sweeps, fields) -> str:
    lines = []
    for d in sweeps:
        df = pd.read_csv(Path(d) / "sweep.csv")
        df = df[df["status"] == "ok"]
        keys = list(df.columns[: list(df.columns).index("point")])
        head = ["sweep", *keys, *fields, "seeds"]
        lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for values, g in df.groupby(keys, sort=False):
            values = values if isinstance(values, tuple) else (values,)
            cells = [Path(d).name, *map(str, values), *(_cell(g[f]) for f in fields), str(len(g))]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines).lstrip("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", help="sweep folders (lnsim sweep --out)")
    ap.add_argument("--field", action="append", required=True, help="a summary field of sweep.csv (repeatable)")
    a = ap.parse_args()
    print(table(a.sweeps, a.field))


if __name__ == "__main__":
    main()
