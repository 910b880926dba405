#!/usr/bin/env python3
"""The readings the DRB paper's text allows (drb-and-ddbbm spec A.6, A.8; docs/scenarios.md,
"DRB against InfiniBand throttling"), each measured for DRB and IBA_CC on the same seeds.

    python3 scripts/drb_readings.py [--out results/drb_readings] [--parts gain,hotspot]
                                    [--seeds 3] [--jobs 1] [--quick]

Parts: ``gain`` — the torus gain (R-A5) under each reading of the model: the CCM timer
(``cc.ccm_timer_mode``), the monitor's scope and buffers (``cc.mark_scope``,
``switch.buffer_credits``, ``switch.output_buffer_credits``, ``cc.mark_buffer``), the message
size (``traffic.message_bytes``) and the injection process (``injection``), at offered loads
600 … 1,200 bits/µs per node, with the saturation point by the 0.98 rule; runs of 25 ms
(5 ms warm-up, 20 ms measured: shorter than drb_repro.py's 55 ms, so the default reading is in
the same table). ``hotspot`` — the hot spot (R-A8, R-A9) in three placements
(``torus8x8_hotspot{,_chain,_area}.toml``) at 290, 415 and 600 Mb/s per hot source, each
measured on the wire and as routed demand (``stats.link_measure``), with the peak over one
500 µs interval and over sliding means of 2 and 5 ms during the hot phase. Every run is one
``lnsim run`` with ``--set`` overrides and a seed; a run whose ``summary.json`` exists is not
run again. ``--quick`` shortens every run (2 ms; the hot spot 8 ms, hot at 3–6 ms), one seed,
two loads, one hot rate (for the test suite). Prints the Markdown tables; writes
``OUT/readings.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import lnsim
from drb_repro import agg

REPO = Path(__file__).resolve().parents[1]
DRB = REPO / "scenarios" / "drb"

MECHS = {"DRB": ['cc.mechanism="drb"'], "IBA_CC": ['cc.mechanism="ib_s1"'],
         "no CC": ["cc.enabled=false"]}
PKT = 32  # credits of a 2 KB packet

#: the torus gain's readings: label → overrides (the first is the default model)
GAIN_READINGS = {
    "default (global timer, VL monitor on 8-packet input buffers, 8-packet output buffers, "
    "4 KB Poisson)": [],
    "T6 timer per connection, phased": ['cc.ccm_timer_mode="per_flow_phase"'],
    "T6 timer per connection, restarted by each notification":
        ['cc.ccm_timer_mode="per_flow_restart"'],
    "T4 threshold over the port (all VLs)": ['cc.mark_scope="port"'],
    **{f"T4 input {i} packets, output {o}, {m} monitor":
       [f"switch.buffer_credits={i * PKT}", f"switch.output_buffer_credits={o * PKT}"]
       + (['cc.mark_buffer="output"'] if m == "output" else [])
       for i in (2, 4, 8) for o, m in ((0, "input"), (2, "input"), (2, "output"))},
    **{f"T2 messages of {k} KB": [f'traffic.message_bytes="{k * 1024}B"'] for k in (2, 16, 64)},
    **{f"T3 {inj} injection": [f'traffic.generators[0].injection="{inj}"']
       for inj in ("bernoulli", "periodic")},
}
GAIN_LOADS = [600, 700, 800, 900, 1000, 1100, 1200]
QUICK_GAIN_LOADS = [700, 1200]
SHOWN_LOADS = [700, 800, 1000, 1200]

#: hot-spot placements: label → (scenario, hot generators, the links measured)
INTO_SW51 = None  # the summary's hotspot.links: the five links into SW51
CHAIN = [("SW11", "SW21"), ("SW21", "SW31"), ("SW31", "SW41"), ("SW41", "SW51"),
         ("SW51", "SW61")]
PLACEMENTS = {
    "column (4 sources → H511)": ("torus8x8_hotspot", 1, INTO_SW51),
    "chain (5 links down column 1, 8 pairs)": ("torus8x8_hotspot_chain", 4, CHAIN),
    "area (4 pairs across SW41 → SW51)": ("torus8x8_hotspot_area", 4, INTO_SW51),
}
HOT_RATES = [290, 415, 600]
MEASURES = ["wire", "routed"]
WINDOWS_MS = [2, 5]


def run_one(job: tuple) -> dict:
    part, reading, mech, x, seed, out, quick = job
    if part == "gain":
        scen, ov = "torus8x8_shuffle", list(GAIN_READINGS[reading])
        ov.append(f'traffic.generators[0].rate="{x}Mbps"')
        ov += (['sim.end_time="2ms"', 'sim.warmup="1ms"'] if quick
               else ['sim.end_time="25ms"', 'sim.warmup="5ms"'])
        key = list(GAIN_READINGS).index(reading)
    else:
        placement, measure = reading
        scen, hot_gens, _ = PLACEMENTS[placement]
        ov = [f'traffic.generators[{g}].rate="{x}Mbps"' for g in range(1, hot_gens + 1)]
        ov += [f'stats.link_measure="{measure}"', 'stats.hotspot_window="5ms"']
        if quick:
            ov += ['sim.end_time="8ms"', 'sim.warmup="1ms"', 'stats.hotspot_from="3ms"']
            ov += [f'traffic.generators[{g}].{k}="{v}"' for g in range(1, hot_gens + 1)
                   for k, v in (("start", "3ms"), ("stop", "6ms"))]
        key = f"{list(PLACEMENTS).index(placement)}{measure}"
    ov = list(MECHS[mech]) + ov
    tag = f"{part}{key}__{mech.replace(' ', '')}__{x}__s{seed}" + ("__quick" if quick else "")
    folder = Path(out) / "runs" / tag
    if not (folder / "summary.json").exists():
        lnsim.run(DRB / f"{scen}.toml", ov, seed=seed, out=folder)
    s = json.loads((folder / "summary.json").read_text())
    t = s["throughput"]
    row = {"part": part, "reading": reading if part == "gain" else " | ".join(reading),
           "mechanism": mech, "x": x, "seed": seed, "folder": str(folder),
           "offered": t.get("offered_bits_per_us_per_node"),
           "accepted": t.get("accepted_bits_per_us_per_node"),
           "notifications": (s.get("drb") or s.get("throttle") or {}).get("notifications")}
    if part == "hotspot":
        row.update(hot_peaks(folder, s, PLACEMENTS[reading[0]][2], quick))
    return row


def hot_peaks(folder: Path, s: dict, links, quick: bool) -> dict:
    """During the hot phase (20–40 ms; 3–6 ms with --quick), over the measured links (the
    summary's hotspot.links, or `links`): the highest 500 µs interval, the highest sliding mean
    of 2 and 5 ms, and the busiest link's mean (Mb/s), from links.csv."""
    start, stop = (0.003, 0.006) if quick else (0.020, 0.040)
    if links is None:
        links = [(x["from"], x["to"]) for x in s["hotspot"]["links"]]
    series: dict = {k: [] for k in links}
    with open(folder / "links.csv") as f:
        for r in csv.DictReader(f):
            k = (r["from"], r["to"])
            if k in series and start - 1e-12 <= float(r["t_start_s"]) < stop - 1e-12:
                series[k].append(float(r["mbps"]))
    step = 0.0005
    out = {"peak_0.5ms": max(max(v) for v in series.values()),
           "busiest_mean": max(sum(v) / len(v) for v in series.values())}
    for w in WINDOWS_MS:
        n = round(w / 1000 / step)
        means = [sum(v[i:i + n]) / n for v in series.values() for i in range(len(v) - n + 1)]
        out[f"peak_{w}ms"] = max(means) if means else None
    return out


def jobs_for(parts, seeds, quick, out):
    n = 1 if quick else seeds
    jobs = []
    if "gain" in parts:
        for reading in GAIN_READINGS:
            for mech in ("DRB", "IBA_CC"):
                for load in (QUICK_GAIN_LOADS if quick else GAIN_LOADS):
                    for s in range(1, n + 1):
                        jobs.append(("gain", reading, mech, load, s, out, quick))
    if "hotspot" in parts:
        for placement in PLACEMENTS:
            for rate in ([415] if quick else HOT_RATES):
                for measure in MEASURES:
                    for mech in MECHS:
                        for s in range(1, n + 1):
                            jobs.append(("hotspot", (placement, measure), mech, rate, s, out,
                                         quick))
    return jobs


def saturation(rows) -> str:
    """The offered load where accepted falls below 0.98 × offered (mean over seeds, linear
    between the swept loads), as text."""
    pts = []
    for load in sorted({r["x"] for r in rows}):
        at = [r for r in rows if r["x"] == load]
        a, _ = agg(at, "accepted")
        o, _ = agg(at, "offered")
        pts.append((load, a / o))
    if pts[0][1] < 0.98:
        return f"< {pts[0][0]}"
    for (l1, r1), (l2, r2) in zip(pts, pts[1:]):
        if r2 < 0.98:
            return f"{l1 + (r1 - 0.98) / (r1 - r2) * (l2 - l1):.0f}"
    return f"> {pts[-1][0]}"


def gain(d, i) -> str:
    return f"{100 * (d / i - 1):+.0f} %" if d is not None and i else "–"


def table_gain(res, loads):
    rows = [r for r in res if r["part"] == "gain"]
    if not rows:
        return
    shown = [x for x in SHOWN_LOADS if x in loads]
    print("\n#### The torus gain per reading: accepted bits/µs per node, DRB / IBA_CC (gain), "
          "mean over seeds; saturation = offered load where accepted < 0.98 × offered\n")
    print("| reading | " + " | ".join(f"at {x}" for x in shown) + " | saturation DRB / IBA_CC "
          "(gain) | notifications at 1,200 DRB / IBA_CC |")
    print("|---|" + "---|" * (len(shown) + 2))
    for reading in GAIN_READINGS:
        at = [r for r in rows if r["reading"] == reading]
        if not at:
            continue
        cells = []
        for x in shown:
            d, _ = agg([r for r in at if r["mechanism"] == "DRB" and r["x"] == x], "accepted")
            i, _ = agg([r for r in at if r["mechanism"] == "IBA_CC" and r["x"] == x], "accepted")
            cells.append(f"{d:.0f} / {i:.0f} ({gain(d, i)})")
        sd = saturation([r for r in at if r["mechanism"] == "DRB"])
        si = saturation([r for r in at if r["mechanism"] == "IBA_CC"])
        g = gain(float(sd), float(si)) if sd[0].isdigit() and si[0].isdigit() else "–"
        top = max(loads)
        nd, _ = agg([r for r in at if r["mechanism"] == "DRB" and r["x"] == top], "notifications")
        ni, _ = agg([r for r in at if r["mechanism"] == "IBA_CC" and r["x"] == top],
                    "notifications")
        print(f"| {reading} | " + " | ".join(cells) + f" | {sd} / {si} ({g}) | "
              f"{nd or 0:,.0f} / {ni or 0:,.0f} |")


def table_hotspot(res):
    rows = [r for r in res if r["part"] == "hotspot"]
    if not rows:
        return
    keys = ["peak_0.5ms"] + [f"peak_{w}ms" for w in WINDOWS_MS] + ["busiest_mean"]
    names = {"peak_0.5ms": "peak 0.5 ms", "peak_2ms": "peak of 2 ms means",
             "peak_5ms": "peak of 5 ms means", "busiest_mean": "busiest link's mean"}
    for measure in MEASURES:
        print(f"\n#### Hot spot, {measure} measure: Mb/s on the measured links during the hot "
              "phase, DRB / IBA_CC / no CC (DRB against IBA_CC), mean over seeds\n")
        print("| placement | rate per hot source | " + " | ".join(names[k] for k in keys) + " |")
        print("|---|---|" + "---|" * len(keys))
        for placement in PLACEMENTS:
            for rate in sorted({r["x"] for r in rows}):
                at = [r for r in rows if r["reading"] == f"{placement} | {measure}"
                      and r["x"] == rate]
                if not at:
                    continue
                cells = []
                for k in keys:
                    v = {m: agg([r for r in at if r["mechanism"] == m], k)[0] for m in MECHS}
                    if v["DRB"] is None:
                        cells.append("–")
                        continue
                    cells.append(" / ".join(f"{v[m]:,.0f}" for m in MECHS)
                                 + f" ({gain(v['DRB'], v['IBA_CC'])})")
                print(f"| {placement} | {rate} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "results" / "drb_readings"))
    ap.add_argument("--parts", default="gain,hotspot")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    parts = set(a.parts.split(","))
    unknown = parts - {"gain", "hotspot"}
    if unknown:
        ap.error(f"--parts: unknown {', '.join(sorted(unknown))}; allowed: gain, hotspot")
    jobs = jobs_for(parts, a.seeds, a.quick, a.out)
    if a.jobs > 1:
        with ProcessPoolExecutor(max_workers=a.jobs) as ex:
            res = list(ex.map(run_one, jobs))
    else:
        res = [run_one(j) for j in jobs]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    fields = sorted({k for r in res for k in r}, key=lambda k: list(res[0]).index(k)
                    if k in res[0] else len(res[0]))
    with open(out / "readings.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(res)
    table_gain(res, QUICK_GAIN_LOADS if a.quick else GAIN_LOADS)
    table_hotspot(res)
    print(f"\n{len(res)} runs; {out / 'readings.csv'}")


if __name__ == "__main__":
    main()
