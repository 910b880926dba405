#!/usr/bin/env python3
"""Who VOQsw and DBBM-4Q victimise on the 64-node BMIN (#2B, #3B) under each routing of the
perfect-shuffle BMIN (docs/scenarios.md, "Routings of the 64-node BMIN"): reads the runs that
``scripts/hol_repro.py --parts thr`` left in ``BASE/READING/runs`` and prints, per reading,
case and scheme, the mean reception of the non-hot destinations (mean over the seeds found),
the victims (below 90 % of the expected 0.429, spec B.7) and how much of the spread between
destinations the groups explain (eta squared): leaves of 4 consecutive nodes (VOQsw's
"plateaus", spec B.6), residue classes mod 4 (DBBM-4Q's classes), subtrees of 16.

    python3 scripts/hol_victims.py BASE READING [READING ...]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

EXPECTED = 0.429  # spec B.6: expected reception per non-hot destination in #2B/#3B


def eta2(v: dict[int, float], key) -> float:
    """Share of the variance of ``v`` between the groups ``key`` makes."""
    m = statistics.fmean(v.values())
    total = sum((x - m) ** 2 for x in v.values())
    groups: dict[int, list[float]] = {}
    for d, x in v.items():
        groups.setdefault(key(d), []).append(x)
    between = sum(len(g) * (statistics.fmean(g) - m) ** 2 for g in groups.values())
    return between / total if total else 0.0


def reception(runs: Path, case: str, scheme: str) -> dict[int, float]:
    """Mean reception per non-hot destination index over the seeds found."""
    rx: dict[int, list[float]] = {}
    for folder in sorted(runs.glob(f"bmin64_{case}__{scheme}__s*")):
        s = json.loads((folder / "summary.json").read_text())
        hot = set(s["fairness"].get("hot_destinations", []))
        for i, (name, node) in enumerate(s["nodes"].items()):
            if name not in hot:
                rx.setdefault(i, []).append(node["rx_fraction"])
    return {d: statistics.fmean(x) for d, x in rx.items()}


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base = Path(sys.argv[1])
    print("| reading | case | scheme | mean rx | min rx | victims | η² leaves | η² mod 4 | η² subtrees |")
    print("|---|---|---|---|---|---|---|---|---|")
    for reading in sys.argv[2:]:
        for case in ("2b", "3b"):
            for scheme in ("VOQsw", "DBBM-4Q"):
                v = reception(base / reading / "runs", case, scheme)
                if not v:
                    continue
                victims = sum(1 for x in v.values() if x < 0.9 * EXPECTED)
                print(f"| {reading} | #{case.upper()} | {scheme} | {statistics.fmean(v.values()):.3f} | "
                      f"{min(v.values()):.3f} | {victims} of {len(v)} | {eta2(v, lambda d: d // 4):.2f} | "
                      f"{eta2(v, lambda d: d % 4):.2f} | {eta2(v, lambda d: d // 16):.2f} |")


if __name__ == "__main__":
    main()
