#!/usr/bin/env python3
"""The DDBBM study (drb-and-ddbbm spec PART B, B.8) reproduced on scenarios/hol/: every case of
Table 1 under the queue schemes of spec B.2, over several seeds, with the tables and figures of
docs/scenarios.md ("HoL-blocking elimination").

    python3 scripts/hol_repro.py [--out results/hol] [--parts thr,fair,sens,rb1]
                                 [--seeds 5] [--big-seeds 2] [--jobs 2] [--quick]
                                 [--img docs/img] [--cases '#1B,#3B'] [--extra KEY=VALUE ...]

Parts (spec C.2; ``modeb`` is spec B.5's buffer sensitivity): ``thr`` — throughput of #1B–#5B, #1M–#4M, #6M under 1Q, VOQsw, VOQnet,
DBBM-4Q, DDBBM-5Q (R-B9 … R-B15); ``fair`` — per-destination reception of #3B (the four schemes
of Fig. 5), #6B (DBBM-8Q / DDBBM-9Q), #7B (DBBM-16Q / DDBBM-17Q), #5M, #7M, #8M, #9M (DBBM-4Q /
DDBBM-5Q, VOQsw, VOQnet where memory allows) (R-B6 … R-B8); ``sens`` — DDBBM-5Q on #1B, #3B,
#2M, #5M over DT ∈ {0.8, 0.95} × LT ∈ {0.2, 0.4} × SIT ∈ {0, 6}, NS = 1 (R-B3 … R-B5); ``rb1`` —
#3B under DBBM-8Q (R-B1); ``modeb`` — #1B–#5B, #6B and #7B with 1 KB per queue (spec B.5 mode B)
instead of the port's 1 KB divided among its queues (mode A, the files' default). Every run is one ``lnsim run`` of a scenario file with ``--set``
overrides and a seed; a run whose ``summary.json`` exists is not run again (the study resumes).
``--quick`` shortens every run to 150 µs, one seed, 64-node cases only (for the test suite).
``--cases`` keeps only the cases listed; ``--extra`` adds a ``--set`` override to every run (e.g.
``--extra 'hca.injection_queues="scheme"'``, spec B.5's end-node adapter): give such a study an
``--out`` of its own, since finished runs are not run again.
Prints the Markdown tables; writes ``OUT/hol.csv`` (one row per run) and the figures.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import lnsim

REPO = Path(__file__).resolve().parents[1]
HOL = REPO / "scenarios" / "hol"

#: scheme label → overrides of the scenario files' DDBBM-(Q+1) default
SCHEMES = {
    "1Q": ['switch.queue_mapping="one_queue"'],
    "VOQsw": ['switch.queue_mapping="voq_sw"'],
    "VOQnet": ['switch.queue_mapping="voq_net"'],
}
for q in (4, 8, 16):
    SCHEMES[f"DBBM-{q}Q"] = ['switch.queue_mapping="dbbm"', f"switch.dbbm_queues={q}"]
    SCHEMES[f"DDBBM-{q + 1}Q"] = ['switch.queue_mapping="ddbbm"', f"switch.dbbm_queues={q}"]
for label in ("1Q", "VOQsw", "VOQnet"):
    SCHEMES[label].append("switch.dbbm_queues=0")  # the files' Q: none for these schemes

#: case → scenario file
CASES = {
    "#1B": "bmin64_1b", "#2B": "bmin64_2b", "#3B": "bmin64_3b", "#4B": "bmin64_4b",
    "#5B": "bmin64_5b", "#6B": "bmin512_6b", "#7B": "bmin1024_7b",
    "#1M": "mesh8x8_1m", "#2M": "mesh4x4n4_2m", "#3M": "mesh8x8_3m", "#4M": "mesh8x8x4_4m",
    "#5M": "mesh4x4n4_5m", "#6M": "mesh16x16_6m", "#7M": "mesh8x8n4_7m", "#8M": "mesh4x4n16_8m",
    "#9M": "mesh4x4x4n4_9m",
}
BIG = {"#6B", "#7B"}

#: spec B.6 derived table: ideal HoL-free accepted traffic per node (normalised to link BW)
IDEAL = {"#2B": 0.431, "#3B": 0.431, "#4B": 0.638, "#5B": 0.467, "#6B": 0.421, "#7B": 0.421,
         "#3M": 0.154, "#5M": 0.154, "#4M": 0.143, "#6M": 0.143, "#7M": 0.143, "#9M": 0.143,
         "#8M": 0.039}

BASE5 = ["1Q", "VOQsw", "VOQnet", "DBBM-4Q", "DDBBM-5Q"]
THR = [(c, BASE5) for c in ("#1B", "#2B", "#3B", "#4B", "#5B", "#1M", "#2M", "#3M", "#4M", "#6M")]
FAIR = [("#3B", ["VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q"]),
        ("#6B", ["VOQsw", "DBBM-8Q", "DDBBM-9Q"]),
        ("#7B", ["VOQsw", "DBBM-16Q", "DDBBM-17Q"]),
        ("#5M", ["VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q"]),
        ("#7M", ["VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q"]),
        ("#8M", ["VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q"]),
        ("#9M", ["VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q"])]
SENS_CASES = ("#1B", "#3B", "#2M", "#5M")
SENS = [(dt, lt, sit) for dt in (0.8, 0.95) for lt in (0.2, 0.4) for sit in (0, 6)]


def overrides(scheme: str) -> list[str]:
    """The ``--set`` overrides of a scheme."""
    return list(SCHEMES[scheme])


def run_one(job: tuple) -> dict:
    case, scheme, seed, extra, tag, out, quick = job
    folder = Path(out) / "runs" / f"{CASES[case]}__{tag}__s{seed}"
    summary = folder / "summary.json"
    if not summary.exists():
        ov = overrides(scheme) + list(extra)
        if quick:
            ov += ['sim.end_time="150us"', 'sim.warmup="50us"']
        lnsim.run(HOL / f"{CASES[case]}.toml", ov, seed=seed, out=folder)
    s = json.loads(summary.read_text())
    f = s["fairness"]
    d = s.get("ddbbm") or {}
    return {
        "case": case, "scheme": scheme, "tag": tag, "seed": seed, "folder": str(folder),
        "accepted_per_node": s["throughput"]["accepted_per_node"],
        "rx_jain_non_hot": f.get("rx_jain_non_hot"),
        "victims": f.get("victims"), "non_hot": f.get("non_hot_destinations"),
        "min_over_expected": f.get("min_over_expected"),
        "hot_rx": max((s["nodes"][h]["rx_fraction"] for h in f.get("hot_destinations", [])),
                      default=None),
        "out_of_order": s["delivery"]["out_of_order_packets"],
        "congested_nodes": d.get("congested_nodes"), "false_positives": d.get("false_positives"),
        "wall_s": s["wall_time_s"], "peak_rss_mib": s["peak_rss_bytes"] / 2**20,
    }


def jobs_for(parts, seeds, big_seeds, quick, out, cases=None, every=()):
    """The runs of ``parts``; ``cases`` (None: all) keeps only those cases, ``every`` is added
    to the overrides of every run."""
    jobs = []

    def add(case, scheme, extra=(), tag=None):
        if quick and case in BIG | {"#4M", "#6M", "#7M", "#8M", "#9M"}:
            return
        if cases is not None and case not in cases:
            return
        n = 1 if quick else (big_seeds if case in BIG else seeds)
        for s in range(1, n + 1):
            jobs.append((case, scheme, s, tuple(extra) + tuple(every), tag or scheme, out, quick))

    if "thr" in parts:
        for case, schemes in THR:
            for sc in schemes:
                add(case, sc)
    if "fair" in parts:
        for case, schemes in FAIR:
            for sc in schemes:
                add(case, sc)
    if "rb1" in parts:
        add("#3B", "DBBM-8Q")
    if "modeb" in parts:
        # spec B.5 mode B (sensitivity): 1 KB per queue instead of the port's 1 KB divided
        mode_b = ['switch.static_mode="per_queue"', 'switch.queue_bytes="1KiB"']
        for case, schemes in THR[:5]:
            for sc in schemes:
                if sc != "1Q":
                    add(case, sc, mode_b, f"{sc}@B")
        for case, schemes in FAIR[1:3]:
            for sc in schemes:
                add(case, sc, mode_b, f"{sc}@B")
    if "sens" in parts:
        for case in SENS_CASES:
            for dt, lt, sit in SENS:
                add(case, "DDBBM-5Q", [f"ddbbm.dt={dt}", f"ddbbm.lt={lt}", f"ddbbm.sit={sit}"],
                    f"DDBBM-5Q_dt{dt}_lt{lt}_sit{sit}")
    seen, unique = set(), []
    for j in jobs:
        key = (j[0], j[4], j[2])
        if key not in seen:
            seen.add(key)
            unique.append(j)
    return unique


def agg(rows, key):
    v = [r[key] for r in rows if r[key] is not None]
    if not v:
        return None, None
    return statistics.fmean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


def cell(rows, key, fmt="{:.3f}"):
    m, sd = agg(rows, key)
    if m is None:
        return "–"
    return fmt.format(m) + (f" ± {fmt.format(sd)}" if len(rows) > 1 else "")


def table_thr(res):
    print("\n#### Accepted traffic per end node (fraction of link), mean ± sd over seeds\n")
    print("| case | ideal (spec B.6) | " + " | ".join(BASE5) + " |")
    print("|---|---|" + "---|" * len(BASE5))
    for case, schemes in THR:
        cells = []
        for sc in schemes:
            rows = [r for r in res if r["case"] == case and r["tag"] == sc]
            cells.append(cell(rows, "accepted_per_node") if rows else "–")
        if any(c != "–" for c in cells):
            print(f"| {case} | {IDEAL.get(case, '–')} | " + " | ".join(cells) + " |")


def table_fair(res):
    print("\n#### Fairness over the non-hot destinations (mean over seeds)\n")
    print("| case | scheme | accepted/node | Jain non-hot | victims (< 90 % of offer) | min/expected | hotspot rx | out of order | DDBBM congested nodes (false positives) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case, schemes in FAIR + [("#3B", ["DBBM-8Q"])]:
        for sc in schemes:
            rows = [r for r in res if r["case"] == case and r["tag"] == sc]
            if not rows:
                continue
            fp = "–"
            if rows[0]["congested_nodes"] is not None:
                fp = f"{statistics.fmean(r['congested_nodes'] for r in rows):.1f} ({statistics.fmean(r['false_positives'] for r in rows):.1f})"
            print(f"| {case} | {sc} | {cell(rows, 'accepted_per_node')} | {cell(rows, 'rx_jain_non_hot')} | "
                  f"{cell(rows, 'victims', '{:.1f}')} of {rows[0]['non_hot']} | {cell(rows, 'min_over_expected', '{:.2f}')} | "
                  f"{cell(rows, 'hot_rx')} | {cell(rows, 'out_of_order', '{:.0f}')} | {fp} |")


def table_modeb(res):
    print("\n#### Spec B.5 mode B (1 KB per queue): accepted per node / victims (mean over seeds)\n")
    labels = ["VOQsw", "VOQnet", "DBBM-4Q", "DDBBM-5Q", "DBBM-8Q", "DDBBM-9Q", "DBBM-16Q", "DDBBM-17Q"]
    print("| case | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for case in ("#1B", "#2B", "#3B", "#4B", "#5B", "#6B", "#7B"):
        cells = []
        for sc in labels:
            rows = [r for r in res if r["case"] == case and r["tag"] == f"{sc}@B"]
            if not rows:
                cells.append("–")
                continue
            m, _ = agg(rows, "accepted_per_node")
            v, _ = agg(rows, "victims")
            cells.append(f"{m:.3f} / {v:.0f}")
        if any(c != "–" for c in cells):
            print(f"| {case} | " + " | ".join(cells) + " |")


def table_sens(res):
    print("\n#### DDBBM-5Q sensitivity (NS = 1): accepted per node / congested nodes (false positives)\n")
    print("| DT | LT | SIT | " + " | ".join(SENS_CASES) + " |")
    print("|---|---|---|" + "---|" * len(SENS_CASES))
    for dt, lt, sit in SENS:
        tag = f"DDBBM-5Q_dt{dt}_lt{lt}_sit{sit}"
        cells = []
        for case in SENS_CASES:
            rows = [r for r in res if r["case"] == case and r["tag"] == tag]
            if not rows:
                cells.append("–")
                continue
            m, _ = agg(rows, "accepted_per_node")
            cn = statistics.fmean(r["congested_nodes"] for r in rows)
            fp = statistics.fmean(r["false_positives"] for r in rows)
            cells.append(f"{m:.3f} / {cn:.1f} ({fp:.1f})")
        if any(c != "–" for c in cells):
            print(f"| {dt} | {lt} | {sit} | " + " | ".join(cells) + " |")


def lid_order(folder: Path, s: dict) -> list[str]:
    """End-node names in LID order (the order of ``nodes.csv``), those in the summary."""
    seen: dict[str, None] = {}
    with open(folder / "nodes.csv") as f:
        for row in csv.DictReader(f):
            seen.setdefault(row["node"], None)
    return [n for n in seen if n in s["nodes"]]


def figures(res, img: Path, quick: bool):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img.mkdir(parents=True, exist_ok=True)
    # per-destination reception (the paper's Figs. 5-6), seed 1
    for case, schemes in FAIR + [("#3B", ["DBBM-8Q"])]:
        runs = [r for r in res if r["case"] == case and r["tag"] in schemes and r["seed"] == 1]
        if not runs:
            continue
        if case == "#3B" and schemes == ["DBBM-8Q"]:
            name = "hol_rb1_3b_dbbm8"
        else:
            name = f"hol_fair_{case[1:].lower()}"
        runs.sort(key=lambda r: schemes.index(r["tag"]))
        fig, axes = plt.subplots(len(runs), 1, figsize=(10, 2.0 * len(runs) + 0.6), squeeze=False)
        for ax, r in zip(axes[:, 0], runs):
            s = json.loads((Path(r["folder"]) / "summary.json").read_text())
            names = lid_order(Path(r["folder"]), s)
            hot = set(s["fairness"].get("hot_destinations", []))
            rx = [s["nodes"][n]["rx_fraction"] for n in names]
            colors = ["tab:red" if n in hot else "tab:blue" for n in names]
            ax.bar(range(len(names)), [100 * x for x in rx], color=colors, width=0.9)
            exp = IDEAL.get(case)
            if exp:
                ax.axhline(100 * exp, color="k", lw=0.8, ls="--")
            cold = [x for n, x in zip(names, rx) if n not in hot] or [0.0]
            top = max(1.25 * max(cold), 2.0 * (exp or 0.0), 0.02)
            ax.set_ylim(0, 100 * min(top, 0.5))  # the paper truncates at 50 %
            ax.set_ylabel("% of link")
            ax.set_title(f"{case} {r['tag']}: accepted {s['throughput']['accepted_per_node']:.3f}/node, "
                         f"Jain non-hot {s['fairness']['rx_jain_non_hot']:.3f}, victims {s['fairness']['victims']}",
                         fontsize=9)
        axes[-1, 0].set_xlabel("destination end node (0-based; hotspot red, off the scale; at most 50 % shown, "
                               "as in the paper; dashed: ideal HoL-free share, spec B.6)")
        fig.tight_layout()
        fig.savefig(img / f"{name}.png", dpi=80)
        plt.close(fig)
    # accepted traffic vs time, #3B, seed 1 (nodes.csv: bytes per node and statistics interval)
    runs = [r for r in res if r["case"] == "#3B" and r["seed"] == 1
            and r["tag"] in ("VOQnet", "VOQsw", "DBBM-4Q", "DDBBM-5Q")]
    if runs:
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for r in sorted(runs, key=lambda r: r["tag"]):
            s = json.loads((Path(r["folder"]) / "summary.json").read_text())
            per_t: dict[float, int] = {}
            with open(Path(r["folder"]) / "nodes.csv") as f:
                for row in csv.DictReader(f):
                    t = float(row["t_start_s"])
                    per_t[t] = per_t.get(t, 0) + int(row["rx_bytes"])
            iv = s["interval_s"]
            link = 1e9  # bytes/s of a 1 GB/s link (spec B.5)
            n = len(s["nodes"])
            ts = sorted(per_t)
            ax.plot([1e6 * (t + iv) for t in ts], [per_t[t] / (n * link * iv) for t in ts],
                    label=r["tag"], drawstyle="steps-pre")
        ax.axhline(IDEAL["#3B"], color="k", lw=0.8, ls="--")
        ax.set_xlabel("time (µs; warm-up 100 µs)")
        ax.set_ylabel("accepted / node")
        ax.set_ylim(0, 0.6)
        ax.legend(fontsize=8, ncol=4)
        ax.set_title("#3B: accepted traffic per end node vs time (dashed: ideal 0.431)", fontsize=9)
        fig.tight_layout()
        fig.savefig(img / "hol_time_3b.png", dpi=80)
        plt.close(fig)
    # throughput bars (the paper's Figs. 7-8)
    cases = [c for c, _ in THR if any(r["case"] == c and r["tag"] in BASE5 for r in res)]
    if cases:
        fig, ax = plt.subplots(figsize=(11, 3.6))
        w = 0.16
        for i, sc in enumerate(BASE5):
            ys, es = [], []
            for c in cases:
                m, sd = agg([r for r in res if r["case"] == c and r["tag"] == sc], "accepted_per_node")
                ys.append(m or 0)
                es.append(sd or 0)
            ax.bar([k + (i - 2) * w for k in range(len(cases))], ys, w, yerr=es, label=sc)
        for k, c in enumerate(cases):
            if c in IDEAL:
                ax.plot([k - 2.5 * w, k + 2.5 * w], [IDEAL[c]] * 2, "k--", lw=0.8)
        ax.set_xticks(range(len(cases)), cases)
        ax.set_ylabel("accepted / node (fraction of link)")
        ax.legend(ncol=5, fontsize=8)
        ax.set_title("Throughput per case and scheme (dashed: ideal HoL-free, spec B.6)", fontsize=9)
        fig.tight_layout()
        fig.savefig(img / "hol_throughput.png", dpi=80)
        plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/hol", type=Path)
    ap.add_argument("--parts", default="thr,fair,sens,rb1,modeb")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--big-seeds", type=int, default=2, help="seeds of the 512- and 1,024-node cases")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--img", type=Path, default=None, help="folder of the figures (default OUT)")
    ap.add_argument("--cases", default=None, help="comma-separated cases to keep, e.g. '#1B,#3B'")
    ap.add_argument("--extra", action="append", default=[], metavar="KEY=VALUE",
                    help="a --set override added to every run (repeatable)")
    a = ap.parse_args()
    parts = set(a.parts.split(","))
    cases = None
    if a.cases:
        cases = {c.strip() for c in a.cases.split(",")}
        unknown = sorted(cases - set(CASES))
        if unknown:
            ap.error(f"--cases: unknown {', '.join(unknown)}; allowed: {', '.join(CASES)}")
    jobs = jobs_for(parts, a.seeds, a.big_seeds, a.quick, str(a.out), cases, tuple(a.extra))
    # the big cases first, so that they do not finish last alone
    jobs.sort(key=lambda j: (j[0] not in BIG, j[0]))
    with ProcessPoolExecutor(a.jobs) as ex:
        res = list(ex.map(run_one, jobs))
    a.out.mkdir(parents=True, exist_ok=True)
    with open(a.out / "hol.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(res[0]))
        w.writeheader()
        w.writerows(res)
    if "thr" in parts:
        table_thr(res)
    if "fair" in parts or "rb1" in parts:
        table_fair(res)
    if "modeb" in parts:
        table_modeb(res)
    if "sens" in parts:
        table_sens(res)
    figures(res, a.img or a.out, a.quick)
    print(f"\n{len(res)} runs; {a.out / 'hol.csv'}")


if __name__ == "__main__":
    main()
