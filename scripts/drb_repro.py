#!/usr/bin/env python3
"""The DRB study (drb-and-ddbbm spec PART A, A.8) reproduced on scenarios/drb/: DRB against the
paper's IBA_CC baseline (IBA_CC-S1) and no congestion management, with the tables and figures of
docs/scenarios.md ("DRB against InfiniBand throttling").

    python3 scripts/drb_repro.py [--out results/drb] [--parts sweep,hotspot] [--seeds 5]
                                 [--jobs 2] [--quick] [--img docs/img]

Parts: ``sweep`` — the perfect shuffle on the 8×8 torus and the 8×4 and 4×8 meshes at offered
loads 100 … 1,200 bits/µs per node under ``drb``, ``ib_s1`` and no CC (R-A2 … R-A7);
``hotspot`` — the hot spot on the torus under the three (R-A8, R-A9). Every run is one
``lnsim run`` of a scenario file with ``--set`` overrides and a seed; a run whose
``summary.json`` exists is not run again (the study resumes). ``--quick`` shortens every run
(2 ms, warm-up 1 ms; the hot spot 8 ms with the hot phase at 3–6 ms), one seed, three loads
(for the test suite). Prints the Markdown tables; writes ``OUT/drb.csv`` (one row per run) and
the figures.
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
DRB = REPO / "scenarios" / "drb"

#: mechanism label → overrides
MECHANISMS = {
    "DRB": ['cc.mechanism="drb"'],
    "IBA_CC": ['cc.mechanism="ib_s1"'],
    "no CC": ["cc.enabled=false"],
}
#: topology label → (scenario file, sending nodes)
TOPOLOGIES = {
    "torus 8×8": ("torus8x8_shuffle", 62),
    "mesh 8×4": ("mesh8x4_shuffle", 30),
    "mesh 4×8": ("mesh4x8_shuffle", 30),
}
LOADS = list(range(100, 1300, 100))
QUICK_LOADS = [300, 700, 1100]


def run_one(job: tuple) -> dict:
    part, topo, mech, load, seed, out, quick = job
    scen = TOPOLOGIES[topo][0] if part == "sweep" else "torus8x8_hotspot"
    tag = f"{scen}__{mech.replace(' ', '')}__{load}__s{seed}" + ("__quick" if quick else "")
    folder = Path(out) / "runs" / tag
    summary = folder / "summary.json"
    if not summary.exists():
        ov = list(MECHANISMS[mech])
        if part == "sweep":
            ov.append(f'traffic.generators[0].rate="{load}Mbps"')
            if quick:
                ov += ['sim.end_time="2ms"', 'sim.warmup="1ms"']
        elif quick:
            ov += ['sim.end_time="8ms"', 'sim.warmup="1ms"', 'traffic.generators[1].start="3ms"',
                   'traffic.generators[1].stop="6ms"', 'stats.hotspot_from="3ms"']
        lnsim.run(DRB / f"{scen}.toml", ov, seed=seed, out=folder)
    s = json.loads(summary.read_text())
    t = s["throughput"]
    drb = s.get("drb") or {}
    thr = s.get("throttle") or {}
    ml = s.get("message_latency_ns") or {}
    return {
        "part": part, "topology": topo, "mechanism": mech, "load": load, "seed": seed,
        "folder": str(folder),
        "offered": t.get("offered_bits_per_us_per_node"),
        "accepted": t.get("accepted_bits_per_us_per_node"),
        "msg_latency_us": ml["mean"] / 1000 if ml.get("mean") is not None else None,
        "msg_latency_p99_us": ml["p99"] / 1000 if ml.get("p99") is not None else None,
        # share of the window's messages delivered by the end (latency counts only those)
        "delivered_pct": 100 * ml["count"] / ml["generated"] if ml.get("generated") else None,
        "pkt_latency_us": s["latency_ns"]["mean"] / 1000 if s["latency_ns"].get("mean") else None,
        "open_paths": drb.get("mean_open_paths_after_warmup"),
        "notifications": drb.get("notifications", thr.get("notifications")),
        "max_ird_us": thr.get("max_ird_us"),
        "out_of_order": s["delivery"]["out_of_order_packets"],
        "peak_link_mbps": (s.get("hotspot") or {}).get("peak_link_mbps"),
        "hot_link_mean_mbps": hot_means(folder, s, quick).get("max"),
        "hot_links": hot_means(folder, s, quick).get("all"),
        "wall_s": s["wall_time_s"],
    }


def hot_means(folder: Path, s: dict, quick: bool) -> dict:
    """Mean throughput of each of the five links into the hot destination while the hot spot
    lasts (20–40 ms; 3–6 ms with --quick), from links.csv: the highest and all five."""
    hs = s.get("hotspot")
    if not hs or not (folder / "links.csv").exists():
        return {}
    start, stop = (0.003, 0.006) if quick else (0.020, 0.040)
    keys = {(l["from"], str(l["port"]), l["to"]) for l in hs["links"]}
    sums: dict = {}
    with open(folder / "links.csv") as f:
        for row in csv.DictReader(f):
            k = (row["from"], row["port"], row["to"])
            t = float(row["t_start_s"])
            if k in keys and start <= t < stop:
                sums.setdefault(k, []).append(float(row["mbps"]))
    means = {f"{k[0]}->{k[2]}": sum(v) / len(v) for k, v in sums.items() if v}
    if not means:
        return {}
    return {"max": max(means.values()),
            "all": "; ".join(f"{k} {v:.0f}" for k, v in sorted(means.items()))}


def jobs_for(parts, seeds, quick, out):
    jobs = []
    n = 1 if quick else seeds
    loads = QUICK_LOADS if quick else LOADS
    if "sweep" in parts:
        for topo in TOPOLOGIES:
            for mech in MECHANISMS:
                for load in loads:
                    for s in range(1, n + 1):
                        jobs.append(("sweep", topo, mech, load, s, out, quick))
    if "hotspot" in parts:
        for mech in MECHANISMS:
            for s in range(1, n + 1):
                jobs.append(("hotspot", "torus 8×8", mech, 0, s, out, quick))
    return jobs


def agg(rows, key):
    v = [r[key] for r in rows if r[key] is not None]
    if not v:
        return None, None
    return statistics.fmean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


def cell(rows, key, fmt="{:.0f}"):
    m, sd = agg(rows, key)
    if m is None:
        return "–"
    return fmt.format(m) + (f" ± {fmt.format(sd)}" if len(rows) > 1 else "")


def table_sweep(res, loads):
    for topo in TOPOLOGIES:
        rows = [r for r in res if r["part"] == "sweep" and r["topology"] == topo]
        if not rows:
            continue
        print(f"\n#### {topo}: accepted load and message latency per offered load "
              "(bits/µs per node; latency in µs over the messages generated after warm-up and "
              "delivered by the end, the share delivered beside it; mean ± sd over seeds)\n")
        print("| offered | " + " | ".join(f"accepted {m}" for m in MECHANISMS) + " | "
              + " | ".join(f"latency {m}" for m in MECHANISMS) + " | "
              + " | ".join(f"delivered % {m}" for m in MECHANISMS) + " | DRB open paths |")
        print("|---|" + "---|" * (3 * len(MECHANISMS) + 1))
        for load in loads:
            at = {m: [r for r in rows if r["load"] == load and r["mechanism"] == m] for m in MECHANISMS}
            print(f"| {load} | " + " | ".join(cell(at[m], "accepted") for m in MECHANISMS) + " | "
                  + " | ".join(cell(at[m], "msg_latency_us", "{:.1f}") for m in MECHANISMS) + " | "
                  + " | ".join(cell(at[m], "delivered_pct") for m in MECHANISMS) + " | "
                  + cell(at["DRB"], "open_paths", "{:.2f}") + " |")


def table_hotspot(res):
    rows = [r for r in res if r["part"] == "hotspot"]
    if not rows:
        return
    print("\n#### Hot spot on the torus: highest interval throughput on the five links into H511 "
          "after it starts (Mb/s), message latency (µs), mean ± sd over seeds\n")
    print("| mechanism | peak link Mb/s | busiest link's mean during the hot spot, Mb/s | "
          "message latency µs | p99 µs | notifications | the five links' means (seed 1) |")
    print("|---|---|---|---|---|---|---|")
    for m in MECHANISMS:
        at = [r for r in rows if r["mechanism"] == m]
        first = next((r["hot_links"] for r in at if r["seed"] == 1), "")
        print(f"| {m} | {cell(at, 'peak_link_mbps')} | {cell(at, 'hot_link_mean_mbps')} | "
              f"{cell(at, 'msg_latency_us', '{:.1f}')} | {cell(at, 'msg_latency_p99_us', '{:.0f}')} | "
              f"{cell(at, 'notifications')} | {first} |")


def figures(res, img: Path, loads):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img.mkdir(parents=True, exist_ok=True)
    colours = {"DRB": "tab:green", "IBA_CC": "tab:red", "no CC": "tab:gray"}
    sweep = [r for r in res if r["part"] == "sweep"]
    if sweep:
        fig, axes = plt.subplots(2, len(TOPOLOGIES), figsize=(4.2 * len(TOPOLOGIES), 7.5))
        for j, topo in enumerate(TOPOLOGIES):
            for m in MECHANISMS:
                xs, acc, lat = [], [], []
                for load in loads:
                    at = [r for r in sweep if r["topology"] == topo and r["mechanism"] == m
                          and r["load"] == load]
                    a, _ = agg(at, "accepted")
                    lt, _ = agg(at, "msg_latency_us")
                    if a is None:
                        continue
                    xs.append(load)
                    acc.append(a)
                    lat.append(lt)
                axes[0][j].plot(xs, acc, "o-", color=colours[m], label=m)
                axes[1][j].plot(xs, lat, "o-", color=colours[m], label=m)
            axes[0][j].plot(loads, loads, ":", color="black", lw=0.8)
            axes[0][j].set_title(f"{topo}, perfect shuffle")
            axes[0][j].set_xlabel("offered load (bits/µs per node)")
            axes[0][j].set_ylabel("accepted load (bits/µs per node)")
            axes[1][j].set_xlabel("offered load (bits/µs per node)")
            axes[1][j].set_ylabel("message latency (µs)")
            axes[1][j].set_yscale("log")
            axes[0][j].legend()
        fig.tight_layout()
        fig.savefig(img / "drb_sweep.png", dpi=110)
        plt.close(fig)
    hot = [r for r in res if r["part"] == "hotspot" and r["seed"] == 1]
    if hot:
        fig, axes = plt.subplots(1, len(hot), figsize=(5 * len(hot), 3.8), sharey=True)
        for ax, r in zip(axes, sorted(hot, key=lambda r: list(MECHANISMS).index(r["mechanism"]))):
            s = json.loads((Path(r["folder"]) / "summary.json").read_text())
            links = {(x["from"], str(x["port"]), x["to"])
                     for x in (s.get("hotspot") or {}).get("links", [])}
            series = {}
            with open(Path(r["folder"]) / "links.csv") as f:
                for row in csv.DictReader(f):
                    if (row["from"], row["port"], row["to"]) in links:
                        key = (row["from"], row["to"])
                        series.setdefault(key, []).append((float(row["t_start_s"]) * 1e3,
                                                           float(row["mbps"])))
            for k, pts in sorted(series.items()):
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=f"{k[0]}→{k[1]}", lw=1)
            ax.set_title(f"{r['mechanism']}: links into H511")
            ax.set_xlabel("time (ms)")
            ax.set_ylabel("link throughput (Mb/s = bits/µs)")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(img / "drb_hotspot.png", dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "results" / "drb"))
    ap.add_argument("--parts", default="sweep,hotspot")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--img", default=None, help="write the figures here (default OUT)")
    a = ap.parse_args()
    parts = set(a.parts.split(","))
    unknown = parts - {"sweep", "hotspot"}
    if unknown:
        ap.error(f"--parts: unknown {', '.join(sorted(unknown))}; allowed: sweep, hotspot")
    jobs = jobs_for(parts, a.seeds, a.quick, a.out)
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        res = list(ex.map(run_one, jobs))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "drb.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(res[0].keys()))
        w.writeheader()
        w.writerows(res)
    loads = QUICK_LOADS if a.quick else LOADS
    table_sweep(res, loads)
    table_hotspot(res)
    figures(res, Path(a.img) if a.img else out, loads)
    print(f"\n{len(res)} runs; {out / 'drb.csv'}")


if __name__ == "__main__":
    main()
