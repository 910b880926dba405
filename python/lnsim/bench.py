"""``lnsim bench``: simulator speed and memory on a fixed set of cases.

Each case runs in a fresh subprocess (``python -m lnsim._bench_case``) so that its peak memory
(``summary["peak_rss_bytes"]``, measured by the core from VmHWM) is its own. The table printed
per case: simulated seconds, wall seconds, simulated seconds per wall second, credit-hops per
second (``flit_hops / wall_time_s``), packet-hops per second, events per second, peak memory
and, for a case with a wall-time target on one core (``bmin1024_ddbbm``, the HoL study's
1,024-node DDBBM-17Q case: 10 s), ``ok`` or ``SLOW``; everything is also written to
``results/bench/bench.json`` (``--out DIR``: a bench folder, checked before any case runs and
updated in place: :func:`prepare_bench_folder`). Speed claims come from here, never from timed
tests.

Each case also runs with congestion control on (``<case>_cc``, ``--set cc.enabled=true``), and a
last line per pair gives the wall times of both runs (the same simulated time) and what CC costs:
``CC on costs +X % wall time (+Y % per event ...)`` (the target is at most +30 %). A ``--quick``
run is too short for that (set-up dominates): its line gives the two wall times only.

Cases of the cycle-level router model (``model="cycle"``: ``mesh_8x8``, ``dragonfly_h6``,
``dragonfly_h6_ugal``, ``dragonfly_h6_lian``, ``dragonfly_h6_acor`` — the same point routed by
UGAL, LIAN and ACOR-Switch —, ``ethernet_h6_ugal`` and ``dragonfly_h6_qcn_switch`` — the lossless
Ethernet point of Table 4-3 routed by UGAL and by QCN-Switch —, ``mesh_64x64_setup``) get a table of their own: simulated cycles (warm-up + measured), wall
seconds of the run, wall seconds of the set-up before it (the summary's ``setup_time_s``:
building the network, the channel-dependency check, the route table), cycles per wall second,
flit-hops per second (the summary's ``phit_hops_per_s``: a phit is the flit of these models),
events per second, peak memory and the case's targets (one core: run wall time, or set-up time
for ``mesh_64x64_setup``), with ``ok`` or ``SLOW`` (a missed target is reported, not an
error). ``--quick`` shortens credit-level cases with
``--set sim.end_time=... --set sim.warmup=...`` and cycle-level ones with
``--set sim.warmup_cycles=... --set sim.measure_cycles=...``; targets are not judged then.
A case timed against another (``relative_to``: LIAN and ACOR against UGAL) gets a last line
with the two runs' wall times and CPU times and their ratios against its target (``max_ratio``:
at most 1.5×). The target is judged on the CPU-time ratio when both runs report it: each run is
one thread, so its CPU time is its time on one core, while its wall time also counts the time
it waited for a core shared with other work (the wall-time ratio of two runs made minutes
apart on a busy machine moves by tens of per cent).

Cases of one memory series (``series``: ``voq_net_bmin64``, ``voq_net_bmin512`` and
``voq_net_bmin1024``, VOQnet on the HoL study's three BMINs for 0.1 ms; issue 17) get a last line
with each one's peak memory and its growth from the smaller network
(:func:`format_memory_series`).

To add a case, append a :class:`BenchCase` to :data:`CASES`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ._core import version
from ._exit import InputError
from ._outdir import write_own_file

#: ``BenchCase.model`` of the two simulation models.
MODEL_CREDIT = "credit"
MODEL_CYCLE = "cycle"


@dataclass(frozen=True)
class BenchCase:
    """One benchmark case: a scenario (relative to the scenarios/ folder) plus overrides."""

    name: str
    scenario: str
    overrides: Tuple[str, ...] = ()
    #: ``sim.end_time`` used with ``--quick``.
    quick_end_time: str = "0.001s"
    #: ``sim.warmup`` used with ``--quick`` (the core requires warm-up < end time).
    quick_warmup: str = "0s"
    description: str = ""
    #: For a CC-on variant: the name of the same case with CC off; ``lnsim bench`` then prints
    #: what turning CC on costs in wall time (``CC on costs +X % wall time on <baseline>``).
    baseline: str = ""
    #: Which simulation model the scenario runs on (:data:`MODEL_CREDIT` or :data:`MODEL_CYCLE`).
    model: str = MODEL_CREDIT
    #: Cycle-level model: ``sim.warmup_cycles`` and ``sim.measure_cycles`` used with ``--quick``.
    quick_warmup_cycles: int = 1000
    quick_measure_cycles: int = 4000
    #: Wall-time target in seconds on one core, printed next to the result (``None``: none).
    target_wall_s: Optional[float] = None
    #: Cycle-level model: set-up time target in seconds on one core (``None``: none).
    target_setup_s: Optional[float] = None
    #: A routing's cost: the case it is timed against (same point, another routing) and the
    #: largest wall-time ratio allowed (issue 19: LIAN and ACOR ≤ 1.5 × UGAL on the h = 6 point).
    relative_to: str = ""
    max_ratio: Optional[float] = None
    #: A memory series (issue 17: VOQnet's memory growth with N): cases of one series differ
    #: in the network's end nodes (``nodes``) only; ``lnsim bench`` prints a last line with
    #: each one's peak memory and how it grows from one size to the next.
    series: str = ""
    nodes: int = 0


#: The fixed cases, in the order they run. Adding one is one line.
CASES: List[BenchCase] = [
    BenchCase(
        "c4",
        "ibcc/zeru_c4.toml",
        ("sim.end_time=0.1s",),
        quick_end_time="0.01s",
        quick_warmup="5ms",
        description="InfiniBand CC study, case C4, 0.1 s simulated",
    ),
    BenchCase(
        "c4_cc",
        "ibcc/zeru_c4.toml",
        ("sim.end_time=0.1s", "cc.enabled=true"),
        quick_end_time="0.01s",
        quick_warmup="5ms",
        description="c4 with congestion control on",
        baseline="c4",
    ),
    BenchCase(
        "fat_tree_648",
        "bench/fat_tree_648.toml",
        (),
        quick_end_time="0.001s",
        quick_warmup="0.5ms",
        description="648-node fat tree",
    ),
    BenchCase(
        "fat_tree_648_cc",
        "bench/fat_tree_648.toml",
        ("cc.enabled=true",),
        quick_end_time="0.001s",
        quick_warmup="0.5ms",
        description="fat_tree_648 with congestion control on",
        baseline="fat_tree_648",
    ),
    BenchCase(
        "bmin1024_ddbbm",
        "hol/bmin1024_7b.toml",
        ('switch.queue_mapping="ddbbm"', "switch.dbbm_queues=16", 'switch.buffer_sharing="static"', "sim.end_time=1ms"),
        quick_end_time="20us",
        quick_warmup="10us",
        description="HoL study #7B (1,024-node BMIN, 4-ary 5-tree), DDBBM-17Q with static buffers, 1 ms simulated",
        target_wall_s=10.0,
    ),
    # VOQnet's memory with N (issue 17): the HoL study's three BMINs with a queue per
    # destination at every switch input (spec B.2; mode A, spec B.5), 0.1 ms each
    *[
        BenchCase(
            f"voq_net_bmin{n}",
            f"hol/{scen}.toml",
            ('switch.queue_mapping="voq_net"', "switch.dbbm_queues=0", 'switch.buffer_sharing="static"',
             "sim.end_time=0.1ms", "sim.warmup=50us"),
            quick_end_time="10us",
            quick_warmup="5us",
            description=f"VOQnet on the {n}-node BMIN of the HoL study (a queue per destination), 0.1 ms simulated",
            series="voq_net",
            nodes=n,
        )
        for n, scen in ((64, "bmin64_3b"), (512, "bmin512_6b"), (1024, "bmin1024_7b"))
    ],
    BenchCase(
        "torus8x8_drb",
        "drb/torus8x8_shuffle.toml",
        ('traffic.generators[0].rate="800Mbps"', 'cc.mechanism="drb"'),
        quick_end_time="2ms",
        quick_warmup="1ms",
        description="DRB on the 8x8 torus (drb spec A.8), perfect shuffle at 800 bits/us per node, 55 ms simulated",
    ),
    BenchCase(
        "mesh_8x8",
        "bench/mesh_8x8.toml",
        (),
        description="8x8 mesh, DOR, 4 VCs of 8 flits, 4-flit packets, uniform 0.3, 100,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=1000,
        quick_measure_cycles=4000,
        target_wall_s=0.5,
    ),
    BenchCase(
        "dragonfly_h6",
        "bench/dragonfly_h6.toml",
        (),
        description="default Dragonfly (h=6), uniform 0.4, 60,000 + 60,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=1000,
        quick_measure_cycles=2000,
        target_wall_s=60.0,
    ),
    BenchCase(
        "dragonfly_h6_ugal",
        "bench/dragonfly_h6.toml",
        ('routing.algorithm="ugal"',),
        description="dragonfly_h6 routed by UGAL (the reference of the routings' cost), 60,000 + 60,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=1000,
        quick_measure_cycles=2000,
    ),
    BenchCase(
        "dragonfly_h6_lian",
        "bench/dragonfly_h6.toml",
        ('routing.algorithm="lian"',),
        description="dragonfly_h6 routed by LIAN (Dragonfly spec §3.10), 60,000 + 60,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=1000,
        quick_measure_cycles=2000,
        relative_to="dragonfly_h6_ugal",
        max_ratio=1.5,
    ),
    BenchCase(
        "dragonfly_h6_acor",
        "bench/dragonfly_h6.toml",
        ('routing.algorithm="acor"',),
        description="dragonfly_h6 routed by ACOR-Switch 3L (Dragonfly spec §3.7), 60,000 + 60,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=1000,
        quick_measure_cycles=2000,
        relative_to="dragonfly_h6_ugal",
        max_ratio=1.5,
    ),
    BenchCase(
        "ethernet_h6_ugal",
        "bench/ethernet_h6.toml",
        (),
        description="lossless Ethernet Dragonfly (h=6, Table 4-3), ADV+1 0.3, UGAL (the reference), 200,000 + 200,000 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=2000,
        quick_measure_cycles=4000,
    ),
    BenchCase(
        "dragonfly_h6_qcn_switch",
        "bench/ethernet_h6.toml",
        ('routing.algorithm="qcn_switch"', 'router.flow_control="pfc"'),
        description="ethernet_h6_ugal routed by QCN-Switch with its QCN congestion points and notifications (Dragonfly spec §3.12), over 802.1Qbb PFC",
        model=MODEL_CYCLE,
        quick_warmup_cycles=2000,
        quick_measure_cycles=4000,
        relative_to="ethernet_h6_ugal",
        max_ratio=1.5,
    ),
    BenchCase(
        "mesh_64x64_setup",
        "bench/mesh_8x8.toml",
        ("topology.dims=[64, 64]", "sim.measure_cycles=500"),
        description="set-up of a 64x64 mesh (4,096 routers: DOR table, channel-dependency check), then 500 cycles",
        model=MODEL_CYCLE,
        quick_warmup_cycles=0,
        quick_measure_cycles=200,
        target_setup_s=5.0,
    ),
]


def default_scenarios_dir() -> Path:
    """The repository's scenarios/ folder (the package is installed editable from python/)."""
    return Path(__file__).resolve().parents[2] / "scenarios"


def _case_by_name(names: Sequence[str]) -> List[BenchCase]:
    if not names:
        return list(CASES)
    known = {c.name: c for c in CASES}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"--case {', '.join(unknown)}: unknown bench case; known: {', '.join(known)}")
    return [known[n] for n in names]


def case_overrides(case: BenchCase, quick: bool = False) -> List[str]:
    """The ``--set`` overrides of a case; with ``quick`` its length overrides replaced by the
    short ones (end time and warm-up, or warm-up and measured cycles)."""
    overrides = list(case.overrides)
    if not quick:
        return overrides
    if case.model == MODEL_CYCLE:
        short = [f"sim.warmup_cycles={case.quick_warmup_cycles}", f"sim.measure_cycles={case.quick_measure_cycles}"]
    else:
        short = [f"sim.end_time={case.quick_end_time}", f"sim.warmup={case.quick_warmup}"]
    replaced = tuple(o.split("=", 1)[0] + "=" for o in short)
    return [o for o in overrides if not o.startswith(replaced)] + short


def run_case(case: BenchCase, scenarios: Path, out_root: Path, quick: bool = False) -> dict:
    """Runs one case in a fresh process and returns its bench record."""
    overrides = case_overrides(case, quick)
    path = scenarios / case.scenario
    out_dir = out_root / case.name
    cmd = [sys.executable, "-m", "lnsim._bench_case", str(path), "--out", str(out_dir)]
    for o in overrides:
        cmd += ["--set", o]
    record = {"case": case.name, "scenario": str(path), "overrides": overrides, "out_dir": str(out_dir)}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    record["process_wall_s"] = time.perf_counter() - t0
    if proc.returncode == 130:
        raise KeyboardInterrupt
    if proc.returncode != 0:
        msg = proc.stderr.strip().splitlines()
        record.update(status="error", exit_status=proc.returncode, error=msg[-1] if msg else f"exit status {proc.returncode}")
        return record
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    s = res["summary"]
    record.update(status="ok", out_dir=res["out_dir"], cpu_time_s=res.get("cpu_s"))
    if s.get("model") == MODEL_CYCLE:
        record.update(cycle_record(s, case.target_wall_s, quick, case.target_setup_s))
    else:
        record.update(ib_record(s, case.target_wall_s, quick))
    return record


def _per_s(count, wall: float) -> Optional[float]:
    """``count`` per wall second (``None`` without a count or a wall time)."""
    return float(count) / wall if count is not None and wall > 0 else None


def _mib(summary: dict) -> Optional[float]:
    v = summary.get("peak_rss_bytes")
    return float(v) / 2**20 if v is not None else None


def ib_record(s: dict, target_wall_s: Optional[float] = None, quick: bool = False) -> dict:
    """The bench figures of a credit-level run from its summary.json, and
    whether its wall time met ``target_wall_s`` (``None`` with ``quick`` or without a target)."""
    sim = float(s.get("sim_time_s") or 0.0)
    wall = float(s.get("wall_time_s") or 0.0)
    met = wall < target_wall_s if target_wall_s is not None and not quick else None
    return dict(
        model=MODEL_CREDIT,
        sim_time_s=sim,
        wall_time_s=wall,
        sim_s_per_wall_s=sim / wall if wall > 0 else None,
        credit_hops_per_s=_per_s(s.get("flit_hops"), wall),
        packet_hops_per_s=_per_s(s.get("packet_hops"), wall),
        events_per_s=_per_s(s.get("events"), wall),
        events=s.get("events"),
        flit_hops=s.get("flit_hops"),
        packet_hops=s.get("packet_hops"),
        peak_rss_mib=_mib(s),
        target_wall_s=target_wall_s,
        within_target=met,
        version=s.get("version"),
    )


def cycle_record(
    s: dict, target_wall_s: Optional[float] = None, quick: bool = False, target_setup_s: Optional[float] = None
) -> dict:
    """The bench figures of a cycle-level run from its summary.json: simulated cycles (warm-up
    + measured), wall time, set-up time (``setup_time_s``; ``None`` from an older core),
    cycles and flit-hops (``phit_hops_per_s``, or ``phit_hops`` over the wall time) per
    second, events per second, peak memory, and whether the wall time met ``target_wall_s``
    and the set-up time ``target_setup_s`` (``None`` with ``quick`` or without a target; the
    set-up target is judged with ``quick`` too, the set-up being the same)."""
    wall = float(s.get("wall_time_s") or 0.0)
    setup = _num_or_none(s.get("setup_time_s"))
    cycles = int(s.get("warmup_cycles") or 0) + int(s.get("measured_cycles") or 0)
    hops_rate = s.get("phit_hops_per_s")
    hops_rate = float(hops_rate) if hops_rate is not None else _per_s(s.get("phit_hops"), wall)
    verdicts = []
    if target_wall_s is not None and not quick:
        verdicts.append(wall < target_wall_s)
    if target_setup_s is not None and setup is not None:
        verdicts.append(setup < target_setup_s)
    met = all(verdicts) if verdicts else None
    return dict(
        model=MODEL_CYCLE,
        cycles=cycles,
        wall_time_s=wall,
        setup_time_s=setup,
        cycles_per_s=_per_s(cycles, wall),
        flit_hops_per_s=hops_rate,
        events_per_s=_per_s(s.get("events"), wall),
        events=s.get("events"),
        phit_hops=s.get("phit_hops"),
        peak_rss_mib=_mib(s),
        target_wall_s=target_wall_s,
        target_setup_s=target_setup_s,
        within_target=met,
        version=s.get("version"),
    )


def _num_or_none(v) -> Optional[float]:
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def _cell(v, spec: str) -> str:
    """``v`` formatted with ``spec``; ``n/a`` (padded to the spec's width) when missing."""
    if v is None:
        width = re.match(r"\d*", spec).group()
        return "n/a".rjust(int(width or 0))
    return format(v, spec)


HEADER = (
    f"{'case':<16} {'sim s':>9} {'wall s':>9} {'sim s/wall s':>13} {'credit-hops/s':>14} {'packet-hops/s':>14}"
    f" {'events/s':>12} {'peak MiB':>9}  target (1 core)"
)
#: Header of the cycle-level cases' table.
CYCLE_HEADER = (
    f"{'case':<16} {'cycles':>11} {'wall s':>9} {'set-up s':>9} {'cycles/wall s':>13} {'flit-hops/s':>14}"
    f" {'events/s':>12} {'peak MiB':>9}  target (1 core)"
)


def header(model: str) -> str:
    """The table header of a model's cases."""
    return CYCLE_HEADER if model == MODEL_CYCLE else HEADER


def _target(r: dict) -> str:
    t, ts = r.get("target_wall_s"), r.get("target_setup_s")
    if t is None and ts is None:
        return ""
    verdict = {True: "ok", False: "SLOW", None: "(not judged)"}[r.get("within_target")]
    what = [f"< {t:g} s"] if t is not None else []
    if ts is not None:
        what.append(f"set-up < {ts:g} s")
    return f"{', '.join(what)} {verdict}"


def format_row(r: dict) -> str:
    """One line of the bench table (an error line when the case failed)."""
    if r.get("status") != "ok":
        return f"{r['case']:<16} error (exit {r.get('exit_status')}): {r.get('error')}"
    if r.get("model") == MODEL_CYCLE:
        return format_cycle_row(r)
    line = (
        f"{r['case']:<16} {_cell(r['sim_time_s'], '9.4g')} {_cell(r['wall_time_s'], '9.3f')}"
        f" {_cell(r['sim_s_per_wall_s'], '13.4g')} {_cell(r['credit_hops_per_s'], '14.4g')}"
        f" {_cell(r.get('packet_hops_per_s'), '14.4g')}"
        f" {_cell(r['events_per_s'], '12.4g')} {_cell(r['peak_rss_mib'], '9.1f')}"
    )
    target = _target(r)
    return f"{line}  {target}" if target else line


def format_cycle_row(r: dict) -> str:
    """One line of the cycle-level cases' table (:data:`CYCLE_HEADER`)."""
    line = (
        f"{r['case']:<16} {_cell(r.get('cycles'), '11,d')} {_cell(r.get('wall_time_s'), '9.3f')}"
        f" {_cell(r.get('setup_time_s'), '9.3f')} {_cell(r.get('cycles_per_s'), '13.4g')} {_cell(r.get('flit_hops_per_s'), '14.4g')}"
        f" {_cell(r.get('events_per_s'), '12.4g')} {_cell(r.get('peak_rss_mib'), '9.1f')}"
    )
    target = _target(r)
    return f"{line}  {target}" if target else line


#: The target of CC's cost per event: ns per event with CC on at most this much above CC off.
CC_PER_EVENT_TARGET_PCT = 30.0


def _ratio(a, b) -> Optional[float]:
    return float(a) / float(b) if a is not None and b else None


def _with_reference(records: Sequence[dict], reference: str):
    """Yields ``(record, case, reference record)`` for every ok record whose case names another
    case (its ``reference`` attribute: ``baseline`` or ``relative_to``) run ok with it."""
    by_name = {r["case"]: r for r in records}
    cases = {c.name: c for c in CASES}
    for r in records:
        case = cases.get(r["case"])
        name = getattr(case, reference) if case is not None else ""
        ref = by_name.get(name) if name else None
        if ref is None or r.get("status") != "ok" or ref.get("status") != "ok":
            continue
        yield r, case, ref


def cc_costs(records: Sequence[dict], quick: bool = False) -> List[dict]:
    """For each CC-on case run together with its CC-off baseline (both ok): ``{"case",
    "baseline", "sim_time_s", "wall_time_s", "baseline_wall_time_s", "events",
    "baseline_events", "ns_per_event", "baseline_ns_per_event", "events_per_packet_hop",
    "baseline_events_per_packet_hop", "cost_pct", "cost_per_event_pct", "per_event_ok",
    "quick"}``. ``cost_pct`` is the extra wall time of CC on in percent of the baseline's (both
    simulate the same time: CC also changes how much the network carries); ``cost_per_event_pct``
    the extra wall time per event, which is what CC's hooks cost and is judged against
    :data:`CC_PER_EVENT_TARGET_PCT` (``per_event_ok``); events per packet-hop (data and CNPs, one
    per link crossed) say whether CC adds events beyond its extra packets. With ``quick`` the
    percentages and the verdict are ``None``: such short runs measure set-up, not what CC costs."""
    out = []
    for r, _, base in _with_reference(records, "baseline"):
        on, off = r.get("wall_time_s"), base.get("wall_time_s")
        if not on or not off:
            continue
        ev_on, ev_off = r.get("events"), base.get("events")
        ns_on, ns_off = _ratio(on * 1e9, ev_on), _ratio(off * 1e9, ev_off)
        per_event = None
        if ns_on and ns_off and not quick:
            per_event = (ns_on / ns_off - 1.0) * 100.0
        out.append(
            {
                "case": r["case"],
                "baseline": base["case"],
                "sim_time_s": r.get("sim_time_s"),
                "wall_time_s": on,
                "baseline_wall_time_s": off,
                "events": ev_on,
                "baseline_events": ev_off,
                "ns_per_event": ns_on,
                "baseline_ns_per_event": ns_off,
                "events_per_packet_hop": _ratio(ev_on, r.get("packet_hops")),
                "baseline_events_per_packet_hop": _ratio(ev_off, base.get("packet_hops")),
                "cost_pct": None if quick else (on / off - 1.0) * 100.0,
                "cost_per_event_pct": per_event,
                "per_event_ok": None if per_event is None else per_event <= CC_PER_EVENT_TARGET_PCT,
                "quick": quick,
            }
        )
    return out


def format_cost(c: dict) -> str:
    """The line saying what turning CC on cost: the wall times of the two runs (same simulated
    time), events per packet-hop and ns per event with CC off and on, and, on a full run, the
    extra wall time, the extra time per event and its verdict against the target."""
    sim = c.get("sim_time_s")
    what = f"{c['case']} vs {c['baseline']} (CC on vs off, {sim:g} s simulated each)" if sim else \
        f"{c['case']} vs {c['baseline']} (CC on vs off)"
    walls = f"wall time {c['wall_time_s']:.3f} s vs {c['baseline_wall_time_s']:.3f} s"
    per = []
    if c.get("events_per_packet_hop") and c.get("baseline_events_per_packet_hop"):
        per.append(
            f"events per packet-hop {c['events_per_packet_hop']:.2f} vs {c['baseline_events_per_packet_hop']:.2f}"
        )
    if c.get("ns_per_event") and c.get("baseline_ns_per_event"):
        per.append(f"ns per event {c['ns_per_event']:.1f} vs {c['baseline_ns_per_event']:.1f}")
    walls = "; ".join([walls] + per)
    if c.get("quick") or c.get("cost_pct") is None:
        return f"{what}: {walls}; --quick runs are too short to tell what CC costs (set-up dominates)"
    line = f"{what}: {walls}; CC on costs {c['cost_pct']:+.1f} % wall time (it changes the traffic and adds CNPs)"
    if c.get("cost_per_event_pct") is not None:
        verdict = "ok" if c.get("per_event_ok") else "OVER"
        line += (
            f" and {c['cost_per_event_pct']:+.1f} % per event"
            f" (target ≤ +{CC_PER_EVENT_TARGET_PCT:g} %: {verdict})"
        )
    return line


def routing_costs(records: Sequence[dict], quick: bool = False) -> List[dict]:
    """For each case with a ``relative_to`` run together with it (both ok): ``{"case",
    "relative_to", "wall_time_s", "relative_wall_time_s", "ratio", "cpu_time_s",
    "relative_cpu_time_s", "cpu_ratio", "max_ratio", "ok", "quick"}``, ``ratio`` and
    ``cpu_ratio`` being the case's wall time and CPU time over the reference's on the same point
    (``cpu_ratio`` ``None`` when a run has no CPU time); ``ok``: the CPU-time ratio (the wall-time
    one without it) within ``max_ratio``; ``None`` with ``quick``, whose runs measure set-up."""
    out = []
    for r, case, ref in _with_reference(records, "relative_to"):
        ratio = _ratio(r.get("wall_time_s"), ref.get("wall_time_s"))
        if ratio is None:
            continue
        cpu_ratio = _ratio(r.get("cpu_time_s"), ref.get("cpu_time_s"))
        judged = cpu_ratio if cpu_ratio is not None else ratio
        out.append({
            "case": r["case"], "relative_to": ref["case"], "wall_time_s": r["wall_time_s"],
            "relative_wall_time_s": ref["wall_time_s"], "ratio": ratio,
            "cpu_time_s": r.get("cpu_time_s"), "relative_cpu_time_s": ref.get("cpu_time_s"), "cpu_ratio": cpu_ratio,
            "max_ratio": case.max_ratio,
            "ok": None if quick or case.max_ratio is None else judged <= case.max_ratio, "quick": quick,
        })
    return out


def format_routing_cost(c: dict) -> str:
    """The line saying what a routing costs against its reference on the same point."""
    line = (f"{c['case']} vs {c['relative_to']}: wall time {c['wall_time_s']:.2f} s vs "
            f"{c['relative_wall_time_s']:.2f} s, {c['ratio']:.2f}×")
    if c.get("cpu_ratio") is not None:
        line += (f"; CPU time {c['cpu_time_s']:.2f} s vs {c['relative_cpu_time_s']:.2f} s, "
                 f"{c['cpu_ratio']:.2f}×")
    if c.get("quick") or c.get("ok") is None:
        return line + "; --quick runs are too short to tell what the routing costs"
    judged = "CPU time" if c.get("cpu_ratio") is not None else "wall time"
    return line + f" (target ≤ {c['max_ratio']:g}× in {judged}: {'ok' if c['ok'] else 'OVER'})"


def memory_series(records: Sequence[dict]) -> List[dict]:
    """For each memory series with at least two ok cases: ``{"series", "points"}``, the points
    ``{"case", "nodes", "peak_rss_mib", "growth", "nodes_growth"}`` in order of end nodes,
    ``growth`` being the peak memory over the previous point's and ``nodes_growth`` the same
    for the end nodes (``None`` at the first point or without a peak)."""
    cases = {c.name: c for c in CASES}
    groups: dict = {}
    for r in records:
        case = cases.get(r["case"])
        if case is None or not case.series or r.get("status") != "ok":
            continue
        groups.setdefault(case.series, []).append((case.nodes, r["case"], r.get("peak_rss_mib")))
    out = []
    for name, pts in groups.items():
        if len(pts) < 2:
            continue
        pts.sort()
        points = []
        for i, (nodes, case, mib) in enumerate(pts):
            prev = pts[i - 1] if i else None
            points.append({
                "case": case, "nodes": nodes, "peak_rss_mib": mib,
                "growth": _ratio(mib, prev[2]) if prev else None,
                "nodes_growth": _ratio(nodes, prev[0]) if prev else None,
            })
        out.append({"series": name, "points": points})
    return out


def format_memory_series(m: dict) -> str:
    """The line of a memory series: each size's peak memory and its growth from the last."""
    parts = []
    for p in m["points"]:
        cell = f"{p['nodes']:,} nodes {_cell(p['peak_rss_mib'], '.1f')} MiB"
        if p.get("growth") is not None:
            cell += f" ({p['growth']:.1f}× for {p['nodes_growth']:g}× the nodes)"
        parts.append(cell)
    return f"{m['series']} memory with the network's size (peak of each run): " + ", ".join(parts)


#: The file of a bench folder that records a bench (the rest are the cases' results folders).
BENCH_JSON = "bench.json"


def prepare_bench_folder(out_root: Path, cases: Sequence[BenchCase]) -> Path:
    """Checks, before any case runs, that the bench may write into ``out_root``: absent, empty
    or a bench folder lnsim wrote (:data:`lnsim._outdir.KIND_BENCH`); ``bench.json`` absent or
    its own; the results folder of every case one a run may replace
    (:func:`lnsim._outdir.check_replaceable`). Then creates and marks the folder when it is new
    and records the cases' folders in its marker. Raises :class:`lnsim.OutputError` (exit status
    2). The folder is updated in place: whatever else it holds is left alone."""
    from ._outdir import KIND_BENCH, check_folder, check_own_file, check_replaceable, prepare_folder, record_files

    _, exists = check_folder(out_root, "bench folder", kinds=[KIND_BENCH])
    if exists:
        check_own_file(out_root / BENCH_JSON, "bench file")
        for case in cases:
            check_replaceable(out_root / case.name, f"results folder of bench case {case.name}")
    prepare_folder(out_root, KIND_BENCH, "bench folder", kinds=[KIND_BENCH])
    record_files(out_root, [c.name for c in cases])
    return out_root


def main(cases: Sequence[str] = (), quick: bool = False, scenarios=None, out=None) -> int:
    """Runs the selected cases (all by default); returns the exit status (1 if any failed)."""
    lnsim_version = version()
    selected = _case_by_name(cases)
    scen_dir = Path(scenarios) if scenarios else default_scenarios_dir()
    if not scen_dir.is_dir():
        raise InputError(f"{scen_dir}: scenarios folder not found (use --scenarios DIR)")
    out_root = prepare_bench_folder(Path(out) if out else Path("results") / "bench", selected)

    print(f"lnsim {lnsim_version} bench{' (quick)' if quick else ''}: {len(selected)} case(s), scenarios in {scen_dir}")
    records = []
    model = None
    for case in selected:
        if case.model != model:  # a table per model
            if model is not None:
                print()
            print(header(case.model), flush=True)
            model = case.model
        rec = run_case(case, scen_dir, out_root, quick=quick)
        records.append(rec)
        print(format_row(rec), flush=True)
    costs = cc_costs(records, quick=quick)
    for c in costs:
        print(format_cost(c))
    rcosts = routing_costs(records, quick=quick)
    for c in rcosts:
        print(format_routing_cost(c))
    series = memory_series(records)
    for m in series:
        print(format_memory_series(m))

    report = {
        "version": lnsim_version,
        "quick": quick,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cases": records,
        "cc_costs": costs,
        "routing_costs": rcosts,
        "memory_series": series,
    }
    path = write_own_file(out_root / BENCH_JSON, json.dumps(report, indent=2) + "\n", "bench file")
    print(f"written {path}")
    return 0 if all(r.get("status") == "ok" for r in records) else 1
