#!/usr/bin/env python3
"""The Ch. 5-6 figures of the Dragonfly thesis (spec §9.2: Fig 5-2 ... 5-14, 6-3 ... 6-15) and
the §9.3 checks, as resumable `lnsim sweep` runs of `scenarios/dragonfly/thesis_figures.toml`
and the figures drawn from them.

    python3 scripts/thesis_figures.py list
    python3 scripts/thesis_figures.py run --fig 5-5 --out results/thesis [--h 6] [--seeds 1]
    python3 scripts/thesis_figures.py plot --fig 5-5 --out results/thesis --img docs/img/thesis
    python3 scripts/thesis_figures.py run --checks --out results/thesis
    python3 scripts/thesis_figures.py checks --out results/thesis

A figure is a set of *series* (a routing with its options, e.g. ACOR-Switch 3L) run on *panels*
(a traffic pattern, e.g. ADV+h) at the panel's loads; or, for the transients, one run per series
through a traffic change; or, for Fig 6-3, a sweep of the ADV+i shift at load 0.5. Every
(panel, series) pair is one `lnsim sweep --resume` folder under
`OUT/h<h>-w<warm-up>-<measure>/`, shared by every figure that draws it (MIN under UN is run
once for all of them), so an interrupted campaign continues where it stopped, in this session
or a later one. A folder's grid is fixed by its panel (the loads below) and `--seeds`; running a
folder again with other seeds replaces the runs of the seeds no longer asked for (the results
store keeps only the runs of the sweep it is given).

Times are cycles (1 cycle = 1 ns with Table 3-1's parameters), loads phits/node/cycle.
Parameters are the thesis's tables (the scenario's defaults); nothing is tuned per figure.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "dragonfly" / "thesis_figures.toml"

# ---------------------------------------------------------------------------------------------
# Series: a routing and its options (values in TOML syntax, as `lnsim --set` takes them)


def _s(**kv) -> Dict[str, str]:
    return {k.replace("__", "."): v for k, v in kv.items()}


SERIES: Dict[str, Tuple[str, Dict[str, str]]] = {
    "min": ("MIN", _s(routing__algorithm='"min"')),
    "vlb_-g-": ("VLB -g-", _s(routing__algorithm='"vlb"', routing__vlb_policy='"-g-"')),
    "vlb_-gl": ("VLB -gl", _s(routing__algorithm='"vlb"', routing__vlb_policy='"-gl"')),
    "vlb_lg-": ("VLB lg-", _s(routing__algorithm='"vlb"', routing__vlb_policy='"lg-"')),
    "vlb_lgl": ("RVLB lgl", _s(routing__algorithm='"vlb"', routing__vlb_policy='"lgl"')),
    "vlb_unrestricted": ("VLB lgl (unrestricted)", _s(routing__algorithm='"vlb"', routing__vlb_restricted="false")),
    "vlb_recomp": ("RVLB-Recomp", _s(routing__algorithm='"vlb"', routing__recompute="true")),
    "pb": ("RPB", _s(routing__algorithm='"pb"')),
    "pb_unrestricted": ("PB (unrestricted)", _s(routing__algorithm='"pb"', routing__vlb_restricted="false")),
    "pb_recomp": ("RPB-Recomp", _s(routing__algorithm='"pb"', routing__recompute="true")),
    "tpr": ("TPR", _s(routing__algorithm='"tpr"')),
    "lian": ("LIAN", _s(routing__algorithm='"lian"')),
}
for _seq in ("3L", "2L-A", "2L-B"):
    SERIES[f"acor_switch_{_seq}"] = (f"ACOR-Switch {_seq}", _s(routing__algorithm='"acor"',
                                                              routing__acor__sequence=f'"{_seq}"'))
    SERIES[f"acor_packet_{_seq}"] = (f"ACOR-Packet {_seq}", _s(routing__algorithm='"acor"',
                                                              routing__acor__variant='"packet"',
                                                              routing__acor__sequence=f'"{_seq}"'))
    SERIES[f"pb_acor_{_seq}"] = (f"PB-ACOR {_seq}", _s(routing__algorithm='"pb_acor"',
                                                      routing__acor__sequence=f'"{_seq}"'))
for _pol in ("-g-", "-gl", "lg-", "lgl"):
    SERIES[f"tpr_{_pol}"] = (f"TPR {_pol}", _s(routing__algorithm='"tpr"', routing__vlb_policy=f'"{_pol}"'))
# VLB with the group-counter observer on (Fig 6-8: IL_{-k} against load, stats.group_counters)
for _pol in ("-g-", "-gl"):
    SERIES[f"vlb_{_pol}_il"] = (f"VLB {_pol}", _s(routing__algorithm='"vlb"', routing__vlb_policy=f'"{_pol}"',
                                                  stats__group_counters="true"))
# LIAN's counter models (Fig 6-7, spec §3.10.1): extended w = 0.1 is the default ("lian")
SERIES["lian_injected"] = ("LIAN, injected only", _s(routing__algorithm='"lian"', routing__lian__counters='"injected"'))
SERIES["lian_stored"] = ("LIAN, stored only", _s(routing__algorithm='"lian"', routing__lian__counters='"stored"'))
SERIES["lian_w1"] = ("LIAN, extended w = 1", _s(routing__algorithm='"lian"', routing__lian__w="1"))
# the IT/DT and HI sweeps of ACOR-Switch 3L (Fig 5-9 ... 5-11; Table 5-3: HI 500, IT1 15, IT2 500,
# DT1 5, DT2 15)
for _v in (5, 10, 20, 25):
    SERIES[f"acor_it1_{_v}"] = (f"IT1 = {_v}", _s(routing__algorithm='"acor"', routing__acor__it1=str(_v)))
for _v in (100, 1000):
    SERIES[f"acor_it2_{_v}"] = (f"IT2 = {_v}", _s(routing__algorithm='"acor"', routing__acor__it2=str(_v)))
for _v in (1, 3, 8):
    SERIES[f"acor_dt1_{_v}"] = (f"DT1 = {_v}", _s(routing__algorithm='"acor"', routing__acor__dt1=str(_v)))
for _v in (8, 30):
    SERIES[f"acor_dt2_{_v}"] = (f"DT2 = {_v}", _s(routing__algorithm='"acor"', routing__acor__dt2=str(_v)))
for _v in (100, 250, 1000, 2000):
    SERIES[f"acor_hi_{_v}"] = (f"HI = {_v}", _s(routing__algorithm='"acor"', routing__acor__hysteresis_cycles=str(_v)))
# Fig 5-12: ACOR-Switch 3L with the thesis's retuned thresholds (spec §6.3 C9)
SERIES["acor_h4_tuned"] = ("ACOR-Switch 3L, IT1 20, DT1 8", _s(routing__algorithm='"acor"', routing__acor__it1="20",
                                                                 routing__acor__dt1="8"))
SERIES["acor_h8_tuned"] = ("ACOR-Switch 3L, IT1 10, DT1 3", _s(routing__algorithm='"acor"', routing__acor__it1="10",
                                                                 routing__acor__dt1="3"))


# ---------------------------------------------------------------------------------------------
# Panels: a steady traffic pattern and its loads (spec §4.2)


MIXES = {"mix_2_4": (2, 4), "mix_3_9": (3, 9), "mix_9_11": (9, 11)}  # Fig 6-8b/c: half and half


def panels(h: int) -> Dict[str, Tuple[str, Dict[str, str]]]:
    out = {
        "un": ("UN", _s(traffic__pattern='"uniform"')),
        "adv1": ("ADV+1", _s(traffic__pattern='"adv"', traffic__shift="1")),
        "advh": (f"ADV+{h} (ADV+h)", _s(traffic__pattern='"adv"', traffic__shift=str(h))),
        "advc": ("ADVC", _s(traffic__pattern='"advc"')),
        "advl": ("ADVL", _s(traffic__pattern='"advl"')),
        # past saturation (Fig 6-7's claims about throughput after saturation): the same traffic,
        # its own loads and folders (the adv1/advc sweeps are shared with other figures' grids)
        "adv1_sat": ("ADV+1 past saturation", _s(traffic__pattern='"adv"', traffic__shift="1")),
        "advc_sat": ("ADVC past saturation", _s(traffic__pattern='"advc"')),
    }
    for i in range(2, max(h, 6)):  # Fig 6-8's ADV+2 … ADV+5 (any shift is valid modulo the groups)
        out[f"adv{i}"] = (f"ADV+{i}", _s(traffic__pattern='"adv"', traffic__shift=str(i)))
    for name, (i, j) in MIXES.items():
        mix = f'[{{pattern="adv",shift={i},fraction=0.5}},{{pattern="adv",shift={j},fraction=0.5}}]'
        out[name] = (f"MIX +{i}/+{j}", _s(traffic__pattern='"mix"', traffic__mix=mix))
    return out


ADV_LOADS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5]
IL_LOADS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]  # Fig 6-8: the patterns saturate from 1/6 to 0.5
LOADS = {
    "un": [0.1, 0.3, 0.5, 0.7, 0.9],
    "adv1": ADV_LOADS,
    "advh": ADV_LOADS,
    "advc": ADV_LOADS,
    "advl": [0.1, 0.3, 0.5, 0.7, 0.9],
    "adv1_sat": [0.6, 0.8, 1.0],
    "advc_sat": [0.6, 0.8, 1.0],
}


def loads_of(panel: str) -> List[float]:
    return LOADS.get(panel, IL_LOADS)
BAR_LOAD = 0.5  # the fairness bars and path breakdowns under ADVC (Fig 5-6, 6-10, 6-12, 6-13)

# Transients (spec §4.3): (label, before, after), the change at the end of the warm-up
TRANSIENTS = {
    "advh_up": ("ADV+h 0.05 → 0.25", ("adv", "h", 0.05), ("adv", "h", 0.25)),
    "advh_down": ("ADV+h 0.25 → 0.05", ("adv", "h", 0.25), ("adv", "h", 0.05)),
    "un_advh": ("UN → ADV+h at 0.25", ("uniform", None, 0.25), ("adv", "h", 0.25)),
    "advh_un": ("ADV+h → UN at 0.25", ("adv", "h", 0.25), ("uniform", None, 0.25)),
}
TRANSIENT_MEASURE = 30_000  # cycles after the change
TRANSIENT_BIN = 500  # cycles per bins.csv bin
# A transient runs its whole window even when a series saturates (MIN and VLB -g- under ADV+h):
# the recovery times the thesis states (C11: > 8 µs, > 20 µs) are read after the change. The
# early stop of a saturated point waits for this many packets per node at the sources, more
# than a 0.25 load generates in 100,000 cycles (2,500), so it bounds memory and never fires.
TRANSIENT_QUEUE_PACKETS = 5_000


@dataclass
class Figure:
    """One figure of spec §9.2: ``kind`` load (series x panels vs load), bars (per-router injected
    load of group 0 under ADVC at 0.5), paths (path breakdown under ADVC at 0.5), transient
    (series through the ``transients``), shift (ADV+i at 0.5 vs i)."""

    fig: str
    title: str
    kind: str
    series: List[str]
    panels: List[str] = field(default_factory=list)
    transients: List[str] = field(default_factory=list)
    hs: Optional[List[int]] = None  # other network sizes (Fig 5-12); default: --h
    claim: str = ""


VLB3 = ["vlb_-g-", "vlb_-gl", "vlb_lgl"]
VLB4 = ["vlb_-g-", "vlb_-gl", "vlb_lg-", "vlb_lgl"]
ADV4 = ["un", "adv1", "advc", "advh"]
FIGURES: List[Figure] = [
    Figure("5-2", "RVLB and RPB against VLB and PB under ADVL", "load",
           ["min", "vlb_unrestricted", "vlb_lgl", "pb_unrestricted", "pb"], ["advl"], claim="C1"),
    Figure("5-3", "Recomputation of the intermediate", "load",
           ["min", "vlb_lgl", "vlb_recomp", "pb", "pb_recomp"], ["un", "adv1"], claim="C2"),
    Figure("5-4", "ACOR-Packet's sequences against MIN and the VLB policies", "load",
           ["min", *VLB3, "acor_packet_3L", "acor_packet_2L-A", "acor_packet_2L-B"], ADV4, claim="C3"),
    Figure("5-5", "ACOR-Switch's sequences against MIN and the VLB policies", "load",
           ["min", *VLB3, "acor_switch_3L", "acor_switch_2L-A", "acor_switch_2L-B"], ADV4, claim="C4"),
    Figure("5-6", "ADVC at 0.5: load sent per node, per router of group 0", "bars",
           ["vlb_-g-", "vlb_lgl", "acor_switch_3L", "acor_switch_2L-A", "acor_switch_2L-B"], ["advc"], claim="C5"),
    Figure("5-7", "ACOR-Switch 3L through ADV+h 0.05 ↔ 0.25 (latency, accepted load, ACOR level)", "transient",
           ["acor_switch_3L", "vlb_-g-", "vlb_-gl"], transients=["advh_up", "advh_down"], claim="C6"),
    Figure("5-9", "The hysteresis interval HI through ADV+h 0.05 ↔ 0.25", "transient",
           ["acor_hi_100", "acor_hi_250", "acor_switch_3L", "acor_hi_1000", "acor_hi_2000"],
           transients=["advh_up", "advh_down"], claim="C7"),
    Figure("5-10", "ACOR-Switch 3L: the increase thresholds IT1/IT2", "load",
           ["acor_it1_5", "acor_it1_10", "acor_switch_3L", "acor_it1_20", "acor_it1_25", "acor_it2_100",
            "acor_it2_1000"], ["adv1", "advh"], claim="C8"),
    Figure("5-11", "ACOR-Switch 3L: the decrease thresholds DT1/DT2", "load",
           ["acor_dt1_1", "acor_dt1_3", "acor_switch_3L", "acor_dt1_8", "acor_dt2_8", "acor_dt2_30"],
           ["adv1", "advh"], claim="C8"),
    Figure("5-12", "ACOR-Switch 3L on h = 4 and h = 8 with retuned IT1/DT1", "load",
           ["min", *VLB3, "acor_switch_3L", "acor_h4_tuned", "acor_h8_tuned"], ["un", "advh"], hs=[4, 8], claim="C9"),
    Figure("5-13", "PB-ACOR's sequences against PB, MIN and VLB", "load",
           ["min", "vlb_lgl", "pb", "pb_acor_3L", "pb_acor_2L-A", "pb_acor_2L-B"], ADV4, claim="C10"),
    Figure("5-14", "UN ↔ ADV+h at 0.25: VLB, ACOR, PB, PB-ACOR, MIN", "transient",
           ["min", *VLB3, "acor_switch_3L", "pb", "pb_acor_3L"], transients=["un_advh", "advh_un"], claim="C11"),
    Figure("6-3", "ADV+i at 0.5 for every shift i: VLB and TPR with the four policies", "shift",
           [*VLB4, "tpr_-g-", "tpr_-gl", "tpr_lg-", "tpr_lgl"], claim="L3, L4"),
    Figure("6-7", "LIAN's counter models", "load",
           ["lian_injected", "lian_stored", "lian_w1", "lian"], ["un", "adv1", "advc", "adv1_sat", "advc_sat"],
           claim="L5"),
    Figure("6-8", "Intermediate-local counter IL−1 (IL−2 for MIX +9/+11) against load, VLB -g- and -gl", "il",
           ["vlb_-g-_il", "vlb_-gl_il"], ["adv1", "adv2", "adv3", "adv4", "adv5", "advh", "mix_2_4", "mix_3_9",
                                          "mix_9_11"], claim="L6, L7"),
    Figure("6-9", "LIAN against MIN and the four VLB policies", "load", ["min", *VLB4, "lian"], ADV4, claim="L8"),
    Figure("6-10", "ADVC at 0.5: load sent per node, per router of group 0, VLB and LIAN", "bars", [*VLB4, "lian"],
           ["advc"], claim="L9"),
    Figure("6-11", "LIAN against PB, TPR and PB-ACOR", "load", ["pb", "tpr", "pb_acor_3L", "lian"], ADV4,
           claim="L10"),
    Figure("6-12", "ADVC at 0.5: load sent per node, per router of group 0, adaptive routings", "bars",
           ["pb", "tpr", "pb_acor_3L", "acor_switch_3L", "lian"], ["advc"], claim="L11"),
    Figure("6-13", "ADVC at 0.5: path breakdown", "paths", ["pb", "tpr", "pb_acor_3L", "lian"], ["advc"],
           claim="L12"),
    Figure("6-14", "ADV+h 0.05 ↔ 0.25: VLB -g-, ACOR, PB-ACOR, LIAN", "transient",
           ["vlb_-g-", "acor_switch_3L", "pb_acor_3L", "lian"], transients=["advh_up", "advh_down"], claim="L13"),
    Figure("6-15", "UN ↔ ADV+h at 0.25: PB, TPR, ACOR, PB-ACOR, LIAN", "transient",
           ["pb", "tpr", "acor_switch_3L", "pb_acor_3L", "lian"], transients=["un_advh", "advh_un"], claim="L14"),
]
FIG = {f.fig: f for f in FIGURES}


@dataclass
class Check:
    """One §9.3 check: series on a panel at fixed loads with its own number of seeds (ten where
    the compared values are within a few per cent of each other, fewer where they are far
    apart)."""

    name: str
    what: str
    panel: str
    series: List[str]
    loads: List[float]
    seeds: int
    #: extra ``key=value`` overrides of every run of the check
    sets: Tuple[str, ...] = ()


CHECKS: List[Check] = [  # cheapest first: a campaign cut short has the low-load checks
    Check("acor_un", "ACOR-Switch 3L base latency ≈ VLB -g- (below VLB lgl)", "un",
          ["vlb_-g-", "vlb_lgl", "acor_switch_3L"], [0.1], 10),
    Check("adv1_low", "ADV+1 at 0.1: PB-ACOR below PB; LIAN below PB and TPR", "adv1",
          ["pb", "pb_acor_3L", "tpr", "lian"], [0.1], 5),
    Check("lian_pb_acor", "ADV+1 at 0.3: LIAN below PB-ACOR", "adv1", ["pb_acor_3L", "lian"], [0.3], 10),
    Check("recompute_adv1", "Recomputation: lower latency at 0.4 ADV", "adv1",
          ["vlb_lgl", "vlb_recomp", "pb", "pb_recomp"], [0.4], 10),
    Check("rvlb_advl", "RVLB vs VLB under ADVL: ≈ 1.0 vs < 0.5 saturation, much lower latency at 0.3", "advl",
          ["vlb_unrestricted", "vlb_lgl", "pb_unrestricted", "pb"], [0.3, 0.9], 3),
    Check("acor_advc", "ACOR-Switch 3L fair under ADVC 0.5 (VLB -g- for contrast); LIAN fair under ADVC", "advc",
          ["vlb_-g-", "acor_switch_3L", "lian"], [0.5], 3),
    Check("acor_advh", "ACOR-Switch 3L ADV+h throughput ≈ 0.5", "advh", ["acor_switch_3L"], [0.5], 3),
    Check("pb_acor_un", "PB-ACOR UN latency ≈ MIN up to high load", "un", ["min", "pb", "pb_acor_3L"], [0.5, 0.7], 5),
    Check("lian_sat", "LIAN stable ≈ 0.5 after saturation (ADV+1)", "adv1", ["lian"], [0.7, 1.0], 3),
    Check("recompute_sat", "Recomputation: higher post-saturation throughput", "adv1",
          ["vlb_lgl", "vlb_recomp", "pb", "pb_recomp"], [0.7], 5),
    # L11 names ADVC at 0.5, where the thesis's PB is saturated; on this model PB, TPR and LIAN
    # still accept 0.5 there (they saturate just above it), so their fairness is also read past
    # saturation (a load added here, not the thesis's), over the whole measured window: the early
    # stop of a saturated point would leave 5,000 cycles, too short for a router's share to settle
    Check("advc_fairness_sat", "ADVC past saturation (0.6): PB and TPR unfair, PB-ACOR too; ACOR-Switch and LIAN fair",
          "advc", ["pb", "tpr", "pb_acor_3L", "acor_switch_3L", "lian"], [0.6], 3,
          (f"sim.saturation_queue_packets={TRANSIENT_QUEUE_PACKETS}",)),
]

# ---------------------------------------------------------------------------------------------
# Running


def root(out: Path, h: int, windows: Tuple[int, int]) -> Path:
    return out / f"h{h}-w{windows[0]}-{windows[1]}"


def _base_sets(h: int, windows: Tuple[int, int]) -> List[str]:
    return ["--set", f"topology.p={h}", "--set", f"sim.warmup_cycles={windows[0]}",
            "--set", f"sim.measure_cycles={windows[1]}"]


def _sets(kv: Dict[str, str]) -> List[str]:
    out = []
    for k, v in kv.items():
        out += ["--set", f"{k}={v}"]
    return out


@dataclass
class Job:
    """One `lnsim sweep` folder: its path and the arguments after the scenario."""

    folder: Path
    args: List[str]
    seeds: int


def _grid(key: str, values: Sequence) -> List[str]:
    return ["--grid", f"{key}=" + ",".join(str(v) for v in values)]


def load_job(base: Path, h: int, windows, panel: str, series: str, loads, seeds: int, sub: str = "",
             extra: Sequence[str] = ()) -> Job:
    _, pkv = panels(h)[panel]
    args = _base_sets(h, windows) + _sets(pkv) + _sets(SERIES[series][1]) + _grid("traffic.load", loads)
    for kv in extra:
        args += ["--set", kv]
    return Job(base / sub / panel / series if sub else base / panel / series, args, seeds)


def transient_job(base: Path, h: int, windows, case: str, series: str) -> Job:
    _, before, after = TRANSIENTS[case]
    args = _base_sets(h, (windows[0], min(TRANSIENT_MEASURE, windows[1]))) + _sets(SERIES[series][1])
    args += ["--set", 'traffic.pattern="transient"', "--set", f"traffic.transient.at_cycle={windows[0]}",
             "--set", f"stats.bin_cycles={TRANSIENT_BIN}",
             "--set", f"sim.saturation_queue_packets={TRANSIENT_QUEUE_PACKETS}"]
    for phase, (pattern, shift, load) in (("before", before), ("after", after)):
        args += ["--set", f'traffic.transient.{phase}.pattern="{pattern}"']
        if shift is not None:
            args += ["--set", f"traffic.transient.{phase}.shift={h if shift == 'h' else shift}"]
        if phase == "before":  # the after phase's load is traffic.load, the sweep's one point
            args += ["--set", f"traffic.transient.before.load={load}"]
    return Job(base / "transient" / case / series, args + _grid("traffic.load", [after[2]]), 1)


def shifts(h: int) -> List[int]:
    """ADV+i for i = ±1 … ±(g-1)/2 (g = a·h + 1 groups; ±36 for h = 6, spec §6.4 L3)."""
    half = (2 * h * h + 1 - 1) // 2
    return [i for k in range(1, half + 1) for i in (k, -k)]


def _palmtree_owner(h: int, offset: int) -> int:
    """The router of a group that owns the global link to the group at `offset` (1 … a·h) from it,
    palmtree arrangement (spec §1.1.2's normative formula): A = a − 1 − ⌊(offset − 1)/h⌋."""
    a = 2 * h
    return a - 1 - (offset - 1) // h


def vlb_g_bound(h: int, shift: int) -> float:
    """The throughput limit of VLB -g- under ADV+`shift` on the balanced palmtree Dragonfly
    (p = h, a = 2h), as spec §6.4 L4's worked example counts it: every global link carries its
    phase-A and its phase-B traffic (a node's load each, p = h), and in an intermediate group the
    h flows arriving on a router's global links leave, for a shift |i| = k·h + m (0 ≤ m < h),
    h − m through the router k places on (no local hop when k = 0) and m through the next one
    (spec §1.1.2's rule), so the busiest local link carries max(h − m, m) flows (m when k = 0).
    Source- and destination-group local hops are not counted. Returns the offered load per node
    at which the busiest link is full."""
    k, m = divmod(abs(shift), h)
    flows = m if k == 0 else max(h - m, m)
    return min(0.5, 1.0 / flows) if flows else 0.5


def vlb_g_wrap_bound(h: int, shift: int) -> float:
    """The same limit counted flow by flow with spec §1.1.2's palmtree formula over every source
    group (intermediate group 0), which includes the ±1 wrap effect of the odd group count
    (2h² + 1): for some shifts one local link per group carries one flow more than the rule
    says. Only that link is then the first to fill (the other flows of its sources go on), so
    past saturation the mean accepted load may lie between this and `vlb_g_bound`."""
    groups = 2 * h * h + 1
    local: Dict[Tuple[int, int], int] = {}
    for g in range(1, groups):  # source group g (its offset from the intermediate group 0)
        dest = (g + shift) % groups
        if dest == 0:
            continue  # the intermediate group is the destination: no phase B there
        arrive = _palmtree_owner(h, g)  # group 0's link to group g is owned by the owner of offset g
        leave = _palmtree_owner(h, dest)
        if arrive != leave:
            local[(arrive, leave)] = local.get((arrive, leave), 0) + 1
    return 1.0 / max([2] + list(local.values()))


def shift_job(base: Path, h: int, windows, series: str, seeds: int) -> Job:
    args = _base_sets(h, windows) + _sets(SERIES[series][1]) + ["--set", 'traffic.pattern="adv"',
                                                                 "--set", f"traffic.load={BAR_LOAD}"]
    args += _grid("traffic.shift", shifts(h))
    return Job(base / "shift" / series, args, seeds)


def figure_jobs(f: Figure, out: Path, h: int, windows, seeds: int, loads: Optional[List[float]]) -> List[Job]:
    jobs = []
    for hh in f.hs or [h]:
        base = root(out, hh, windows)
        if f.kind in ("load", "il"):
            for p in f.panels:
                for s in f.series:
                    if (s == "acor_h4_tuned" and hh != 4) or (s == "acor_h8_tuned" and hh != 8):
                        continue
                    jobs.append(load_job(base, hh, windows, p, s, loads or loads_of(p), seeds))
        elif f.kind in ("bars", "paths"):
            for s in f.series:  # the ADVC load sweeps of the load figures, whose loads include 0.5
                jobs.append(load_job(base, hh, windows, "advc", s, loads or LOADS["advc"], seeds))
        elif f.kind == "transient":
            for c in f.transients:
                for s in f.series:
                    jobs.append(transient_job(base, hh, windows, c, s))
        elif f.kind == "shift":
            for s in f.series:
                jobs.append(shift_job(base, hh, windows, s, seeds))
    return jobs


def check_jobs(out: Path, h: int, windows, seeds: Optional[int], only: Sequence[str] = ()) -> List[Job]:
    base = root(out, h, windows) / "checks"
    return [load_job(base, h, windows, c.panel, s, c.loads, seeds or c.seeds, sub=c.name, extra=c.sets)
            for c in CHECKS if not only or c.name in only for s in c.series]


def _done(jobs: List[Job]) -> int:
    """How many of these sweeps have a sweep.csv whose every run succeeded."""
    n = 0
    for j in jobs:
        p = j.folder / "sweep.csv"
        if p.is_file():
            with open(p) as fh:
                rows = list(csv.DictReader(fh))
            n += bool(rows) and all(r["status"] == "ok" for r in rows)
    return n


def run_job(j: Job, jobs: int, dry: bool, scenario: Path = SCENARIO) -> int:
    """Runs (or resumes) one sweep folder of `scenario` (default this campaign's)."""
    cmd = ["lnsim", "sweep", str(scenario), "--out", str(j.folder), "--resume", "--no-plot", "--no-progress",
           "--jobs", str(jobs), "--seeds", str(j.seeds), *j.args]
    print("$", " ".join(_quote(c) for c in cmd), flush=True)
    if dry:
        return 0
    j.folder.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.call(cmd)


def _quote(s: str) -> str:
    return f"'{s}'" if any(c in s for c in ' "<>|&;()') else s


# ---------------------------------------------------------------------------------------------
# Plotting


def _frame(folder: Path):
    import pandas as pd

    p = folder / "sweep.csv"
    if not p.is_file():
        return None
    df = pd.read_csv(p)
    return df[df["status"] == "ok"]


def _label(series: str) -> str:
    return SERIES[series][0]


def plot_load(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    from lnsim.plot import MARKERS, load_curves

    written = []
    for hh in f.hs or [h]:
        base = root(out, hh, windows)
        series = [s for s in f.series if not ((s == "acor_h4_tuned" and hh != 4) or (s == "acor_h8_tuned" and hh != 8))]
        fig, axes = plt.subplots(2, len(f.panels), figsize=(max(8.0, 4.2 * len(f.panels)), 7.5), squeeze=False)
        missing = []
        for c, p in enumerate(f.panels):
            name = panels(hh)[p][0]
            for i, s in enumerate(series):
                folder = load_job(base, hh, windows, p, s, loads or loads_of(p), seeds).folder
                if _frame(folder) is None or _frame(folder).empty:
                    missing.append(f"{p}/{s}")
                    continue
                style = dict(marker=MARKERS[i % len(MARKERS)], ms=5, lw=1.4, color=f"C{i % 10}", label=_label(s))
                # a past-saturation panel has only saturated points: draw their latency (a
                # window's mean, growing with the backlog) rather than nothing
                lat = load_curves(folder, "latency_cycles.mean", drop_saturated=not p.endswith("_sat"))
                acc = load_curves(folder, "accepted_load")
                axes[0][c].plot(lat["load"], lat["mean"], **style)
                axes[1][c].plot(acc["load"], acc["mean"], **style)
                if (acc["runs"] > 1).any():
                    axes[1][c].fill_between(acc["load"], acc["min"], acc["max"], color=style["color"], alpha=0.2, lw=0)
                    axes[0][c].fill_between(lat["load"], lat["min"], lat["max"], color=style["color"], alpha=0.2,
                                            lw=0)
            axes[0][c].set_title(f"{name}, h = {hh}")
            axes[0][c].set_ylabel("latency (cycles)" + ("" if p.endswith("_sat") else ", saturated points left out"))
            if p.endswith("_sat"):  # the whole scale: a flat throughput must look flat
                axes[1][c].set_ylim(0, 1.05 * max(loads_of(p)))
            axes[1][c].set_ylabel("accepted load (phits/node/cycle)")
            axes[1][c].set_xlabel("offered load (phits/node/cycle)")
            axes[0][c].grid(alpha=0.3)
            axes[1][c].grid(alpha=0.3)
        handles, labels = axes[1][0].get_legend_handles_labels()
        for ax in axes.flat:
            for hd, lb in zip(*ax.get_legend_handles_labels()):
                if lb not in labels:
                    handles.append(hd)
                    labels.append(lb)
        if labels:
            fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 2 + len(f.panels)), fontsize=8)
        fig.suptitle(_title(f, hh, windows, seeds, missing))
        fig.tight_layout(rect=(0, 0.07, 1, 0.95))
        path = img / f"fig{f.fig}{'_h' + str(hh) if f.hs else ''}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def _title(f: Figure, h: int, windows, seeds: int, missing: List[str]) -> str:
    t = f"Fig {f.fig} ({f.claim}): {f.title}\nh = {h}, {windows[0]:,} + {windows[1]:,} cycles, {seeds} seed(s)"
    if missing:
        t += f"; not run: {', '.join(missing[:4])}{' …' if len(missing) > 4 else ''}"
    return t


def _point_runs(folder: Path, load: float):
    """The run folders (one per seed) of a load sweep's point at ``load``."""
    df = _frame(folder)
    if df is None:
        return []
    key = "traffic.load"
    rows = df[(df[key] - load).abs() < 1e-9]
    return [folder / "points" / str(pt) / (f"seed-{sd}" if (folder / "points" / str(pt) / f"seed-{sd}").is_dir()
                                           else "") for pt, sd in zip(rows["point"], rows["seed"])]


def router_loads(run: Path):
    """Each router's throughput as a source in a run (phits/node/cycle, router order):
    routers.csv's ``delivered_load`` (the packets of the router's terminals delivered in the
    window), or its ``injected_load`` in a run made before that column existed. The delivered
    load is the fairness measure: the injected one also counts packets that only entered an
    injection queue (5,040 phits per node here), which a router past saturation keeps filling
    long after the warm-up."""
    import pandas as pd

    t = pd.read_csv(run / "routers.csv").set_index("router")
    return t["delivered_load" if "delivered_load" in t.columns else "injected_load"].to_numpy()


def plot_bars(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    base = root(out, h, windows)
    a = 2 * h
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * a), 4.5))
    width = 0.8 / len(f.series)
    missing = []
    for i, s in enumerate(f.series):
        runs = _point_runs(load_job(base, h, windows, "advc", s, loads or LOADS["advc"], seeds).folder, BAR_LOAD)
        if not runs:
            missing.append(s)
            continue
        per = [router_loads(r)[:a] for r in runs]
        v = np.mean(per, axis=0)
        ax.bar(np.arange(a) + (i - (len(f.series) - 1) / 2) * width, v, width, label=_label(s), color=f"C{i % 10}")
    ax.set_xticks(range(a))
    ax.set_xticklabels([f"R{r}" for r in range(a)])
    ax.set_xlabel(f"router of group 0 (R{a - 1} = R_OUT, its global links lead to the destination groups)")
    ax.set_ylabel("load sent per node (phits/node/cycle)")
    ax.axhline(BAR_LOAD, color="0.3", lw=1, ls="--", label="offered")
    # head room above the offered load for the legend, which would hide bars there
    ax.set_ylim(0, BAR_LOAD * 1.45)
    ax.legend(fontsize=8, ncol=6, loc="upper center")
    ax.set_title(_title(f, h, windows, seeds, missing) + f"; ADVC at {BAR_LOAD}", fontsize=9)
    fig.tight_layout()
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


PATHS = ["min", "-g-", "-gl", "lg-", "lgl", "local"]


def plot_paths(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    """Fig 6-13: the path breakdown under ADVC at 0.5, per routing (left) and, for the last
    series (LIAN), per router of group 0 from routers.csv's `paths_*` (right; spec §6.4 L12:
    R_OUT takes l1 paths, the others MIN or l1-less ones)."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    base = root(out, h, windows)
    a = 2 * h
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [len(f.series), a]})
    missing = []
    shares = {p: np.zeros(len(f.series)) for p in PATHS}
    for i, s in enumerate(f.series):
        df = _frame(load_job(base, h, windows, "advc", s, loads or loads_of("advc"), seeds).folder)
        rows = None if df is None else df[(df["traffic.load"] - BAR_LOAD).abs() < 1e-9]
        if rows is None or rows.empty:
            missing.append(s)
            continue
        for p in PATHS:
            col = f"paths.{p}"
            shares[p][i] = rows[col].mean() if col in rows else 0.0
    per_router = {p: np.zeros(a) for p in PATHS}
    last = f.series[-1]
    runs = _point_runs(load_job(base, h, windows, "advc", last, loads or loads_of("advc"), seeds).folder, BAR_LOAD)
    tables = [pd.read_csv(r / "routers.csv").iloc[:a] for r in runs]
    tables = [t for t in tables if "paths_min" in t.columns]  # runs written before the columns existed
    for p in PATHS:
        if tables:
            per_router[p] = np.mean([t[f"paths_{p}"].to_numpy() for t in tables], axis=0)
    bottoms, bottoms2 = np.zeros(len(f.series)), np.zeros(a)
    for k, p in enumerate(PATHS):
        ax.bar(range(len(f.series)), shares[p], bottom=bottoms, label=p, color=f"C{k}")
        bottoms += shares[p]
        ax2.bar(range(a), per_router[p], bottom=bottoms2, label=p, color=f"C{k}")
        bottoms2 += per_router[p]
    ax.set_xticks(range(len(f.series)))
    ax.set_xticklabels([_label(s) for s in f.series], fontsize=8)
    ax.set_ylabel("share of delivered packets")
    ax.legend(fontsize=8, ncol=3)
    ax2.set_xticks(range(a))
    ax2.set_xticklabels([f"R{r}" for r in range(a)], fontsize=8)
    ax2.set_xlabel(f"{_label(last)}: source router of group 0 (R{a - 1} = R_OUT)"
                   + ("" if tables else " — no per-router breakdown in these runs"))
    fig.suptitle(_title(f, h, windows, seeds, missing) + f"; ADVC at {BAR_LOAD}", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


def transient_run(folder: Path) -> Optional[Path]:
    df = _frame(folder)
    if df is None or df.empty:
        return None
    pt = folder / "points" / str(df["point"].iloc[0])
    return pt if (pt / "bins.csv").is_file() else None


def plot_transient(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt
    import pandas as pd

    base = root(out, h, windows)
    at = windows[0]
    rows = 3 + any(SERIES[s][1].get("routing.algorithm") in ('"acor"', '"pb_acor"') for s in f.series)
    fig, axes = plt.subplots(rows, len(f.transients), figsize=(5.5 * len(f.transients), 2.6 * rows), squeeze=False)
    missing = []
    for c, case in enumerate(f.transients):
        for i, s in enumerate(f.series):
            run = transient_run(transient_job(base, h, windows, case, s).folder)
            if run is None:
                missing.append(f"{case}/{s}")
                continue
            b = pd.read_csv(run / "bins.csv")
            t = ((b.start_cycle + b.end_cycle) / 2 - at) / 1000.0
            keep = (t > -5) & (t < TRANSIENT_MEASURE / 1000.0)
            style = dict(color=f"C{i % 10}", lw=1.3, label=_label(s))
            axes[0][c].plot(t[keep], b.latency_mean[keep], **style)
            axes[1][c].plot(t[keep], b.accepted_load[keep], **style)
            axes[2][c].plot(t[keep], b.nonminimal_fraction[keep], **style)
            lv = run / "acor_levels.csv"
            if rows > 3 and lv.is_file():
                levels = pd.read_csv(lv)
                starts = b.start_cycle[keep]
                mean = [levels[levels.cycle <= s0].sort_values("cycle", kind="stable").groupby("router")["level"].last()
                        .mean() for s0 in starts]
                axes[3][c].step((starts - at) / 1000.0, mean, where="post", **style)
        axes[0][c].set_title(TRANSIENTS[case][0].replace("h", str(h)) if "ADV+h" in TRANSIENTS[case][0]
                             else TRANSIENTS[case][0])
        axes[0][c].set_ylabel("latency (cycles)")
        axes[1][c].set_ylabel("accepted load")
        axes[2][c].set_ylabel("misrouted share")
        if rows > 3:
            axes[3][c].set_ylabel("mean ACOR level")
        axes[-1][c].set_xlabel(f"µs after the change ({TRANSIENT_BIN}-cycle bins)")
        for r in range(rows):
            axes[r][c].axvline(0, color="0.5", lw=0.8)
            axes[r][c].grid(alpha=0.3)
    if axes[0][0].get_legend_handles_labels()[1]:
        axes[0][0].legend(fontsize=7)
    fig.suptitle(_title(f, h, (windows[0], min(TRANSIENT_MEASURE, windows[1])), 1, missing), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


def plot_shift(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    import matplotlib.pyplot as plt

    base = root(out, h, windows)
    fig, ax = plt.subplots(figsize=(10, 5.4))
    missing = []
    for i, s in enumerate(f.series):
        df = _frame(shift_job(base, h, windows, s, seeds).folder)
        if df is None or df.empty:
            missing.append(s)
            continue
        g = df.groupby("traffic.shift")["accepted_load"].mean().sort_index()
        ax.plot(g.index, g.values, marker=".", lw=1.2, ls="-" if s.startswith("vlb") else "--", color=f"C{i % 4}",
                label=_label(s))
    xs = sorted(shifts(h))
    ax.plot(xs, [vlb_g_bound(h, i) for i in xs], color="0.3", lw=0.9, ls=":", drawstyle="steps-mid",
            label="-g- limit, L4's counting (spec §1.1.2 rule)")
    ax.plot(xs, [vlb_g_wrap_bound(h, i) for i in xs], color="0.6", lw=0.7, ls="--", drawstyle="steps-mid",
            label="-g- busiest link with the ±1 wrap")
    ax.set_xlabel("i of ADV+i")
    ax.set_ylabel(f"accepted load at offered {BAR_LOAD}")
    for k in range(-h, h + 1):
        ax.axvline(k * h, color="0.85", lw=0.6)
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    ax.set_title(_title(f, h, windows, seeds, missing), fontsize=9)
    fig.tight_layout()
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


def plot_il(f: Figure, out: Path, h: int, windows, seeds: int, loads, img: Path) -> List[Path]:
    """Fig 6-8: IL_{-1} (and IL_{-2} under MIX +9/+11) per pattern against offered load, from
    scripts/il_trace.py's reading of each sweep (hollow: saturated)."""
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import il_trace

    base = root(out, h, windows)
    groups = [[p for p in f.panels if not p.startswith("mix")], [p for p in f.panels if p.startswith("mix")]]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    missing = []
    for ax, group in zip(axes, groups):
        for i, p in enumerate(group):
            for j, s in enumerate(f.series):
                folder = load_job(base, h, windows, p, s, loads or loads_of(p), seeds).folder
                try:
                    df = il_trace.points(folder)
                except (SystemExit, FileNotFoundError):
                    missing.append(f"{p}/{s}")
                    continue
                ks = [1, 2] if p == "mix_9_11" else [1]
                for k in ks:
                    col = f"il_m{k}"
                    style = dict(color=f"C{i % 10}", ls=["-", "--"][j % 2] if k == 1 else ":")
                    ax.plot(df.offered_load, df[col], label=f"{panels(h)[p][0]} {_label(s)}"
                            + (f" IL−{k}" if len(ks) > 1 else ""), **style)
                    sat = df[df.saturated.astype(bool)]
                    ok = df[~df.saturated.astype(bool)]
                    ax.plot(ok.offered_load, ok[col], "o", ms=3.5, color=style["color"])
                    ax.plot(sat.offered_load, sat[col], "o", ms=4.5, mfc="none", color=style["color"])
        ax.axhline(17, color="0.4", lw=0.8, ls="--", label="thesis: ≈ 17 at saturation")
        ax.set_xlabel("offered load (phits/node/cycle)")
        ax.set_ylabel("IL (packets per 200-cycle window, router mean)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(_title(f, h, windows, seeds, missing), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    path = img / f"fig{f.fig}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return [path]


PLOTS = {"il": plot_il, "load": plot_load, "bars": plot_bars, "paths": plot_paths, "transient": plot_transient, "shift": plot_shift}


def checks_table(out: Path, h: int, windows, seeds: Optional[int]) -> str:
    import pandas as pd

    lines = ["| check | panel | series | load | accepted | latency (cycles) | saturated | group 0's routers "
             "(ADVC: lowest – highest load sent per node) | seeds |",
             "|---|---|---|---|---|---|---|---|---|"]
    base = root(out, h, windows) / "checks"
    for c in CHECKS:
        for s in c.series:
            df = _frame(load_job(base, h, windows, c.panel, s, c.loads, seeds or c.seeds, sub=c.name).folder)
            for load in c.loads:
                rows = None if df is None else df[(df["traffic.load"] - load).abs() < 1e-9]
                if rows is None or rows.empty:
                    lines.append(f"| {c.name} | {panels(h)[c.panel][0]} | {_label(s)} | {load} | not run | | | | 0 |")
                    continue
                sat = rows["saturated"].astype(str).str.lower().isin(["true", "1", "1.0"])
                spread = ""
                if c.panel == "advc":  # the fairness of C5, L9, L11: group 0's routers (R_OUT last)
                    runs = _point_runs(load_job(base, h, windows, c.panel, s, c.loads, seeds or c.seeds,
                                                sub=c.name).folder, load)
                    inj = [pd.Series(router_loads(r)[:2 * h]) for r in runs]
                    spread = (f"{sum(v.min() for v in inj) / len(inj):.3f} – {sum(v.max() for v in inj) / len(inj):.3f}"
                              if inj else "")
                lines.append(f"| {c.name} | {panels(h)[c.panel][0]} | {_label(s)} | {load} | "
                             f"{_cell(rows['accepted_load'], 4)} | {_cell(rows['latency_cycles.mean'], 1)} | "
                             f"{int(sat.sum())}/{len(rows)} | {spread} | {len(rows)} |")
    return "\n".join(lines)


def _cell(v, digits: int) -> str:
    v = v.astype(float)
    return f"{v.mean():.{digits}f} ± {(v.max() - v.min()) / 2:.{digits}f}"


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["list", "run", "plot", "checks"])
    ap.add_argument("--fig", action="append", default=[], help="figure number, e.g. 5-5 (repeatable; default all)")
    ap.add_argument("--checks", action="store_true", help="run: the §9.3 check points (with their own seeds)")
    ap.add_argument("--check", action="append", default=[],
                    help="run: only this §9.3 check, e.g. acor_un (repeatable; implies --checks)")
    ap.add_argument("--out", type=Path, default=Path("results/thesis"), help="campaign folder (default %(default)s)")
    ap.add_argument("--img", type=Path, default=None, help="plot: where to write the PNGs (default OUT/img)")
    ap.add_argument("--h", type=int, default=6, help="Dragonfly h = p (default 6, the Table 3-1 network)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="seeds per point (figures: default 1; checks: default each check's own)")
    ap.add_argument("--windows", default="60000,60000", help="warm-up,measure cycles (default %(default)s)")
    ap.add_argument("--loads", default=None, help="comma-separated loads replacing every panel's (a smaller grid)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (default %(default)s)")
    ap.add_argument("--dry-run", action="store_true", help="run: print the commands only")
    a = ap.parse_args(argv)
    try:
        windows = tuple(int(x) for x in a.windows.split(","))
        assert len(windows) == 2 and min(windows) > 0
    except (ValueError, AssertionError):
        ap.error(f"--windows: {a.windows!r} is not two positive cycle counts, e.g. 60000,60000")
    loads = [float(x) for x in a.loads.split(",")] if a.loads else None
    names = [c.name for c in CHECKS]
    if any(c not in names for c in a.check):
        ap.error(f"--check: unknown check(s) {', '.join(c for c in a.check if c not in names)}; known: {', '.join(names)}")
    unknown = [f for f in a.fig if f not in FIG]
    if unknown:
        ap.error(f"--fig: unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIG)}")
    figs = [FIG[f] for f in a.fig] if a.fig else FIGURES
    seeds = a.seeds or 1
    if a.action == "list":  # with what OUT already holds: sweeps complete / in the figure
        for f in FIGURES:
            js = figure_jobs(f, a.out, a.h, windows, seeds, loads)
            print(f"Fig {f.fig:5} {f.kind:9} {_done(js):3}/{len(js):3} sweeps  {f.title} [{f.claim}]")
        js = check_jobs(a.out, a.h, windows, a.seeds)
        print(f"checks          {_done(js):3}/{len(js):3} sweeps  spec §9.3")
        return 0
    if a.action == "run":
        checks = a.checks or bool(a.check)
        jobs = check_jobs(a.out, a.h, windows, a.seeds, a.check) if checks else []
        if a.fig or not checks:
            jobs += [j for f in figs for j in figure_jobs(f, a.out, a.h, windows, seeds, loads)]
        seen, failed = set(), 0
        for j in jobs:
            if j.folder in seen:
                continue
            seen.add(j.folder)
            failed += run_job(j, a.jobs, a.dry_run) != 0
        print(f"thesis_figures: {len(seen)} sweeps, {failed} failed")
        return 1 if failed else 0
    if a.action == "checks":
        print(checks_table(a.out, a.h, windows, a.seeds))
        return 0
    img = a.img or a.out / "img"
    img.mkdir(parents=True, exist_ok=True)
    for f in figs:
        for p in PLOTS[f.kind](f, a.out, a.h, windows, seeds, loads, img):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
