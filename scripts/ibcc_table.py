#!/usr/bin/env python3
"""Runs every scenario of scenarios/ibcc/ (congestion control off) and prints the
published-versus-measured tables of docs/scenarios.md as Markdown.

    python scripts/ibcc_table.py [--out results/ibcc] [--cc] > /tmp/tables.md

With ``--cc`` every scenario runs with congestion control on (``cc.enabled=true``: Z-Tab 3.6's
parameters, the default table, and the Gran scenarios' own ``[cc]`` profile).

Published figures are those of the spec (ib-congestion-control.md §7, §14): shares are
steady-state percentages of the sender's link capacity in the last phase of each experiment;
measured shares are the after-warm-up rates of summary.json divided by the same capacity.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import lnsim

REPO = Path(__file__).resolve().parents[1]
SDR = 8.0  # Gbit/s of data on a 4x SDR link

# (scenario, rows of (label, node, direction, published %, capacity))
SHARES = {
    "zeru_a": [("H112", "tx", 25), ("H211", "tx", 50), ("H121", "tx", 25), ("H111 (victim)", "tx", 25),
               ("H221 (hot spot)", "rx", 100), ("H121", "rx", 25)],
    "zeru_b1": [("H111", "tx", 16.7), ("H151", "tx", 16.7), ("H511", "tx", 16.7), ("H541", "tx", 16.7),
                ("H551", "tx", 33.3), ("H431 (not a victim)", "tx", 100), ("H552 (hot spot)", "rx", 100),
                ("H542", "rx", 100)],
    "zeru_b2": [("H111", "tx", 16.7), ("H151", "tx", 16.7), ("H511", "tx", 16.7), ("H541", "tx", 16.7),
                ("H551", "tx", 33.3), ("H512 (victim, like H511)", "tx", 16.7), ("H552 (hot spot)", "rx", 100),
                ("H542", "rx", 16.7)],
}
AGGREGATE = {"zeru_c1": 20.0, "zeru_c2": 13.0, "zeru_c3": 13.0, "zeru_c4": 15.9}
GRAN_S1 = [("F1 H1→H4 (victim)", "H1", 1 / 6), ("F2 H2→H5", "H2", 1 / 6), ("F3 H3→H5", "H3", 1 / 6),
           ("F4 H6→H5", "H6", 1 / 3), ("F5 H7→H5", "H7", 1 / 3)]


CC = "CC off"


def run(name: str, out: Path, overrides: list[str]) -> dict:
    r = lnsim.run(REPO / "scenarios" / "ibcc" / f"{name}.toml", overrides, out=out / name)
    return r.summary


def node(s: dict, n: str, d: str) -> float:
    return s["nodes"].get(n, {}).get(f"{d}_gbps_after_warmup", 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="results/ibcc", type=Path)
    ap.add_argument("--cc", action="store_true", help="run with congestion control on")
    a = ap.parse_args()
    global CC
    CC = "CC on" if a.cc else "CC off"
    ov = ["cc.enabled=true"] if a.cc else []
    names = list(SHARES) + list(AGGREGATE) + ["gran_s1", "gran_s2"]
    with ProcessPoolExecutor() as ex:
        res = dict(zip(names, ex.map(run, names, [a.out] * len(names), [ov] * len(names))))

    for name, rows in SHARES.items():
        s = res[name]
        print(f"\n#### {name} ({CC}), after {s['warmup_s']} s\n")
        print("| node | published % | measured % | measured MB/s |")
        print("|---|---|---|---|")
        for label, d, pub in rows:
            n = label.split()[0]
            g = node(s, n, d)
            print(f"| {label} {d} | {pub} | {g / SDR * 100:.1f} | {g * 1000 / 8:.1f} |")

    print(f"\n#### C1–C4 aggregate throughput ({CC}), whole 0.1-s run\n")
    print("| scenario | published ([Z] 'Gbps') | measured GB/s | measured Gbit/s | gap |")
    print("|---|---|---|---|---|")
    for name, pub in AGGREGATE.items():
        t = res[name]["throughput"]
        gb = t["total_rx_gbytes_per_s"]
        print(f"| {name} | {pub} | {gb:.2f} | {t['total_rx_gbps']:.1f} | {(gb - pub) / pub * 100:+.1f} % |")

    s = res["gran_s1"]
    c = node(s, "H5", "rx")
    print(f"\n#### gran_s1 ({CC}), after {s['warmup_s']} s; C = H5's sink = {c:.3f} Gbit/s\n")
    print("| flow | published share of C | measured Gbit/s | measured share |")
    print("|---|---|---|---|")
    for label, n, share in GRAN_S1:
        g = node(s, n, "tx")
        print(f"| {label} | {share:.3f} (C/{round(1 / share)}) | {g:.3f} | {g / c:.3f} |")
    print(f"\nJain over F2–F5: {s['fairness']['jain']}")
    # every phase of spec §7.1's table: mean rate over the second half of each 1-s phase
    nodes = lnsim.load_results(a.out / "gran_s1").nodes
    published = [["R", "–", "–", "–", "–"], ["R", "≈C", "–", "–", "–"], ["≈C/2", "C/2", "C/2", "–", "–"],
                 ["≈C/4", "C/4", "C/4", "C/2", "–"], ["≈C/6", "C/6", "C/6", "C/3", "C/3"]]
    interval = s["interval_s"]
    print("\nPer phase (published from spec §7.1 [D]; measured Gbit/s over the second half of each phase):\n")
    print("| active | F1 | F2 | F3 | F4 | F5 |")
    print("|---|---|---|---|---|---|")
    for k in range(5):
        lo, hi = k + 0.5, k + 1.0
        win = nodes[(nodes.t_start_s >= lo - 1e-9) & (nodes.t_start_s < hi - 1e-9)]
        cells = []
        for j, (_, n, _) in enumerate(GRAN_S1):
            g = win[win.node == n].tx_bytes.sum() * 8 / (hi - lo) / 1e9
            cells.append(f"{published[k][j]} / {g:.2f}" if published[k][j] != "–" else "–")
        print(f"| F1–F{k + 1} | " + " | ".join(cells) + " |")
    del interval

    s = res["gran_s2"]
    print(f"\n#### gran_s2 ({CC}), after {s['warmup_s']} s\n")
    print("| flow | published Gbit/s (HW and sim) | measured Gbit/s | measured share of total |")
    print("|---|---|---|---|")
    tot = sum(node(s, n, "tx") for n in ("H1", "H2", "H3"))
    for i, n in enumerate(("H1", "H2", "H3")):
        g = node(s, n, "tx")
        print(f"| F{i + 1} {n} | 11.4 | {g:.3f} | {g / tot:.3f} |")


if __name__ == "__main__":
    main()
