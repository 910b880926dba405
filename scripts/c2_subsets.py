#!/usr/bin/env python3
"""Zeru C2's sending half (issue 16 item 4): C2 lets "50 % of the nodes" send uniform random
traffic without saying which half (spec §5.6, §10.14). The scenario takes every other HCA in LID
order of the 44 without a static role. This script runs C2 with CC off and on for that choice
and for 20 random halves (22 of the 44, drawn with Python's `random.Random(k)`, k = 1…20), every
other input unchanged (seed 12), and prints the totals as Markdown.

    python3 scripts/c2_subsets.py [--out results/c2_subsets] [--choices 20] [--jobs 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import lnsim

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "scenarios" / "ibcc" / "zeru_c2.toml"
PUBLISHED = {False: 13.0, True: 18.0}  # [Z] Z-Tab 4.2, GB/s (docs/scenarios.md)


def others() -> list[str]:
    """The 44 HCAs without a static flow, in LID order (the generator's `sources = "others"`)."""
    t = tomllib.loads(SCENARIO.read_text())
    static = {f["src"] for f in t["traffic"].get("flows", [])}
    names = [f"H{r}{c}{k}" for r in range(1, 6) for c in range(1, 6) for k in (1, 2)]
    return [n for n in names if n not in static]


def run(job: tuple[str, list[str], bool, Path]) -> tuple[str, bool, float]:
    label, overrides, cc, out = job
    o = list(overrides) + [f"cc.enabled={'true' if cc else 'false'}"]
    r = lnsim.run(SCENARIO, overrides=o, out=out / f"{label}_{'on' if cc else 'off'}")
    return label, cc, r.summary["throughput"]["total_rx_gbytes_per_s"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/c2_subsets", type=Path)
    ap.add_argument("--choices", default=20, type=int)
    ap.add_argument("--jobs", default=2, type=int)
    a = ap.parse_args()
    pool = others()
    jobs = []
    for cc in (False, True):
        jobs.append(("every_other", [], cc, a.out))
        for k in range(1, a.choices + 1):
            half = sorted(random.Random(k).sample(pool, len(pool) // 2), key=pool.index)
            over = ["traffic.generators[0].sources=[" + ", ".join(f'"{n}"' for n in half) + "]",
                    "traffic.generators[0].source_fraction=1.0"]
            jobs.append((f"random_{k}", over, cc, a.out))
    with ProcessPoolExecutor(a.jobs) as ex:
        res = {(label, cc): v for label, cc, v in ex.map(run, jobs)}
    print("| sending half | CC off (GB/s) | CC on (GB/s) | CC gain |")
    print("|---|---|---|---|")
    for cc_label in ["every_other"] + [f"random_{k}" for k in range(1, a.choices + 1)]:
        off, on = res[(cc_label, False)], res[(cc_label, True)]
        print(f"| {cc_label} | {off:.2f} | {on:.2f} | {100 * (on / off - 1):+.1f} % |")
    for cc in (False, True):
        v = [res[(f"random_{k}", cc)] for k in range(1, a.choices + 1)]
        print(f"\n{'CC on' if cc else 'CC off'}: {a.choices} random halves: mean {statistics.mean(v):.2f} GB/s, "
              f"standard deviation {statistics.stdev(v):.2f}, range {min(v):.2f}–{max(v):.2f}; every other HCA "
              f"{res[('every_other', cc)]:.2f}; published {PUBLISHED[cc]:g}")
    gains = [res[(f"random_{k}", True)] / res[(f"random_{k}", False)] - 1 for k in range(1, a.choices + 1)]
    print(f"\nCC gain over the random halves: mean {100 * statistics.mean(gains):+.1f} %, "
          f"range {100 * min(gains):+.1f} … {100 * max(gains):+.1f} % (published +38.5 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
