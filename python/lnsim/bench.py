"""``lnsim bench``: simulator speed and memory on a fixed set of cases.

Each case runs in a fresh subprocess (``python -m lnsim._bench_case``) so that its peak memory
(``summary["peak_rss_bytes"]``, measured by the core from VmHWM) is its own. The table printed
per case: simulated seconds, wall seconds, simulated seconds per wall second, credit-hops per
second (``flit_hops / wall_time_s``), events per second and peak memory; everything is also
written to ``results/bench/bench.json``. Speed claims come from here, never from timed tests.

Each case also runs with congestion control on (``<case>_cc``, ``--set cc.enabled=true``), and a
last line per pair gives what CC costs: ``CC on costs +X % wall time on c4`` (the target is at
most +30 %).

To add a case, append a :class:`BenchCase` to :data:`CASES`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple


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
        from .cli import InputError

        raise InputError(f"--case {', '.join(unknown)}: unknown bench case; known: {', '.join(known)}")
    return [known[n] for n in names]


def run_case(case: BenchCase, scenarios: Path, out_root: Path, quick: bool = False) -> dict:
    """Runs one case in a fresh process and returns its bench record."""
    overrides = list(case.overrides)
    if quick:
        overrides = [o for o in overrides if not o.startswith(("sim.end_time=", "sim.warmup="))]
        overrides += [f"sim.end_time={case.quick_end_time}", f"sim.warmup={case.quick_warmup}"]
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
    sim = float(s.get("sim_time_s") or 0.0)
    wall = float(s.get("wall_time_s") or 0.0)
    record.update(
        status="ok",
        out_dir=res["out_dir"],
        sim_time_s=sim,
        wall_time_s=wall,
        sim_s_per_wall_s=sim / wall if wall > 0 else None,
        credit_hops_per_s=float(s.get("flit_hops") or 0) / wall if wall > 0 else None,
        events_per_s=float(s.get("events") or 0) / wall if wall > 0 else None,
        events=s.get("events"),
        flit_hops=s.get("flit_hops"),
        peak_rss_mib=float(s["peak_rss_bytes"]) / 2**20 if s.get("peak_rss_bytes") is not None else None,
        version=s.get("version"),
    )
    return record


def _cell(v, spec: str) -> str:
    return "n/a" if v is None else format(v, spec)


HEADER = f"{'case':<16} {'sim s':>9} {'wall s':>9} {'sim s/wall s':>13} {'credit-hops/s':>14} {'events/s':>12} {'peak MiB':>9}"


def format_row(r: dict) -> str:
    if r.get("status") != "ok":
        return f"{r['case']:<16} error (exit {r.get('exit_status')}): {r.get('error')}"
    return (
        f"{r['case']:<16} {_cell(r['sim_time_s'], '9.4g')} {_cell(r['wall_time_s'], '9.3f')}"
        f" {_cell(r['sim_s_per_wall_s'], '13.4g')} {_cell(r['credit_hops_per_s'], '14.4g')}"
        f" {_cell(r['events_per_s'], '12.4g')} {_cell(r['peak_rss_mib'], '9.1f')}"
    )


def cc_costs(records: Sequence[dict]) -> List[dict]:
    """For each CC-on case run together with its CC-off baseline (both ok): ``{"case",
    "baseline", "wall_time_s", "baseline_wall_time_s", "cost_pct"}``, ``cost_pct`` being the
    extra wall time of CC on in percent of the baseline's."""
    by_name = {r["case"]: r for r in records}
    cases = {c.name: c for c in CASES}
    out = []
    for r in records:
        case = cases.get(r["case"])
        base = by_name.get(case.baseline) if case is not None and case.baseline else None
        if base is None or r.get("status") != "ok" or base.get("status") != "ok":
            continue
        on, off = r.get("wall_time_s"), base.get("wall_time_s")
        if not on or not off:
            continue
        out.append(
            {
                "case": r["case"],
                "baseline": base["case"],
                "wall_time_s": on,
                "baseline_wall_time_s": off,
                "cost_pct": (on / off - 1.0) * 100.0,
            }
        )
    return out


def format_cost(c: dict) -> str:
    return f"CC on costs {c['cost_pct']:+.1f} % wall time on {c['baseline']}"


def main(cases: Sequence[str] = (), quick: bool = False, scenarios=None, out=None) -> int:
    """Runs the selected cases (all by default); returns the exit status (1 if any failed)."""
    from . import __version__

    selected = _case_by_name(cases)
    scen_dir = Path(scenarios) if scenarios else default_scenarios_dir()
    if not scen_dir.is_dir():
        from .cli import InputError

        raise InputError(f"{scen_dir}: scenarios folder not found (use --scenarios DIR)")
    out_root = Path(out) if out else Path("results") / "bench"
    out_root.mkdir(parents=True, exist_ok=True)

    print(f"lnsim {__version__} bench{' (quick)' if quick else ''}: {len(selected)} case(s), scenarios in {scen_dir}")
    print(HEADER, flush=True)
    records = []
    for case in selected:
        rec = run_case(case, scen_dir, out_root, quick=quick)
        records.append(rec)
        print(format_row(rec), flush=True)
    costs = cc_costs(records)
    for c in costs:
        print(format_cost(c))

    report = {
        "version": __version__,
        "quick": quick,
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cases": records,
        "cc_costs": costs,
    }
    path = out_root / "bench.json"
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written {path}")
    return 0 if all(r.get("status") == "ok" for r in records) else 1
