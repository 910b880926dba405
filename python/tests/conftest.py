"""Shared fixtures of the lnsim Python tests.

Tests that need a real run use ``scenarios/ibcc/zeru_a.toml`` shortened with
``--set sim.end_time=0.02s --set sim.warmup=0.01s`` (the core requires warm-up < end time);
the others use a fake results folder written here with the documented columns (see
``lnsim.__doc__``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
ZERU_A = SCENARIOS / "ibcc" / "zeru_a.toml"
SHORT = ["--set", "sim.end_time=0.02s", "--set", "sim.warmup=0.01s"]


def dragonfly_toml(warmup: int = 200, measure: int = 500, head: str = "", sim: str = "") -> str:
    """A tiny cycle-level scenario: an h = 2 Dragonfly (72 nodes), MIN routing, uniform traffic
    at 0.1, ``warmup`` + ``measure`` cycles; ``head`` goes first (e.g. a ``[scenario]`` table),
    ``sim`` into ``[sim]`` (e.g. ``"seed = 7\n"``)."""
    return (
        f"{head}[sim]\n{sim}warmup_cycles = {warmup}\nmeasure_cycles = {measure}\n"
        '[topology]\nkind = "dragonfly"\np = 2\n[routing]\nalgorithm = "min"\n'
        '[traffic]\npattern = "uniform"\nload = 0.1\n'
    )


def short(end: str, warmup: str) -> list:
    """``--set`` arguments shortening a run to ``end`` with warm-up ``warmup``."""
    return ["--set", f"sim.end_time={end}", "--set", f"sim.warmup={warmup}"]


def lnsim_cmd(*args, cwd=None, timeout=600, **kw) -> subprocess.CompletedProcess:
    """Runs ``python -m lnsim ARGS`` and returns the completed process (text output)."""
    return subprocess.run(
        [sys.executable, "-m", "lnsim", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
        **kw,
    )


@pytest.fixture(scope="session")
def zeru_a_run(tmp_path_factory):
    """One short real run of zeru_a through the command line, shared by the tests."""
    out = tmp_path_factory.mktemp("zeru_a") / "x"
    proc = lnsim_cmd("run", ZERU_A, *SHORT, "--out", out, "--no-plot")
    assert proc.returncode == 0, f"lnsim run failed ({proc.returncode}):\n{proc.stderr}"
    return out, proc


#: A short CC-on run of zeru_a (congestion starts only at 0.1 s, so no flow is throttled yet).
CC_SHORT = ["--set", "cc.enabled=true", *short("0.05s", "0.04s")]


@pytest.fixture(scope="session")
def zeru_a_cc_run(tmp_path_factory):
    """One short real run of zeru_a with congestion control on, figures included."""
    out = tmp_path_factory.mktemp("zeru_a_cc") / "x"
    proc = lnsim_cmd("run", ZERU_A, *CC_SHORT, "--out", out)
    assert proc.returncode == 0, f"lnsim run failed ({proc.returncode}):\n{proc.stderr}"
    return out, proc


def write_fake_ccti(d: Path, flows, intervals, level: str = "qp") -> Path:
    """Writes ccti.csv and cc_ports.csv into the fake results folder ``d``. ``flows`` maps
    ``(src, dst)`` to a function of the interval start giving its CCTI at the interval's end
    (0 = at the minimum, then the row is left out as the core does)."""
    rows = ["t_start_s,src,dst,vl,ccti_end,ccti_max"]
    for t in intervals:
        for (src, dst), f in flows.items():
            c = int(f(t))
            if c > 0:
                rows.append(f"{t:.6f},{src},{'*' if level == 'sl' else dst},0,{c},{c + 3}")
    (d / "ccti.csv").write_text("\n".join(rows) + "\n")
    (d / "cc_ports.csv").write_text("switch,port,vl,fecn_marks,congested_s\nSW11,2,0,1234,0.25\n")
    return d


def write_fake_results(
    d: Path,
    senders=("H112", "H211", "H121", "H111"),
    receivers=("H221", "H121"),
    end=0.7,
    interval=0.005,
    buffers=True,
) -> Path:
    """A results folder with the documented files and columns, plausible numbers (a parking-lot
    pattern like zeru_a: senders start one after another and share ~1000 MB/s)."""
    d.mkdir(parents=True, exist_ok=True)
    starts = np.round(np.arange(0.0, end - 1e-12, interval), 9)
    nodes = sorted(set(senders) | set(receivers) | {"H999"})  # H999 is idle
    link = 1e9 * interval  # bytes per interval at 1000 MB/s
    rows = ["t_start_s,node,tx_bytes,rx_bytes"]
    n = len(senders)
    for t in starts:
        active = [s for k, s in enumerate(senders) if t >= k * end / (n + 1)]
        for node in nodes:
            tx = 0
            if node in active:
                tx = int(link / len(active) * (1.0 + 0.05 * np.sin(40 * t + len(node))))
            rx = 0
            if node in receivers:
                share = receivers.index(node) + 1
                rx = int(link * len(active) / (n * share))
            rows.append(f"{t:.6f},{node},{tx},{rx}")
    (d / "nodes.csv").write_text("\n".join(rows) + "\n")
    flows = ["src,dst,tx_bytes,rx_bytes,rx_gbps"]
    for s in senders:
        flows.append(f"{s},{receivers[0]},1000000,990000,2.0")
    (d / "flows.csv").write_text("\n".join(flows) + "\n")
    hist = ["lower_ns,upper_ns,count"]
    lo = 64.0
    for k in range(40):
        hi = lo * 1.25
        c = int(1000 * np.exp(-((k - 18) ** 2) / 30.0))
        hist.append(f"{lo:.0f},{hi:.0f},{c}")
        lo = hi
    (d / "latency_hist.csv").write_text("\n".join(hist) + "\n")
    if buffers:
        b = ["t_start_s,switch,port,vl,mean_credits,max_credits"]
        for t in starts[:10]:
            b.append(f"{t:.6f},SW11,2,0,12.5,34")
        (d / "buffers.csv").write_text("\n".join(b) + "\n")
    summary = {
        "scenario": "fake",
        "seed": 12,
        "version": "0.1.0",
        "sim_time_s": end,
        "wall_time_s": 2.0,
        "events": 123456789,
        "flit_hops": 987654321,
        "peak_rss_bytes": 50 * 2**20,
        "interval_s": interval,
        "warmup_s": 0.45,
        "throughput": {
            "total_rx_gbps": 8.0,
            "total_tx_gbps": 8.1,
            "rx_gbps_after_warmup": 7.9,
            "tx_gbps_after_warmup": 8.0,
        },
        "nodes": {
            **{s: {"tx_gbps": 2.0, "rx_gbps": 0.0} for s in senders},
            **{r: {"tx_gbps": 0.0, "rx_gbps": 4.0} for r in receivers},
            "H999": {"tx_gbps": 0.0, "rx_gbps": 0.0},
        },
        "flows": [
            {"src": s, "dst": receivers[0], "tx_bytes": 1000000, "rx_bytes": 990000, "rx_gbps": 2.0}
            for s in senders
        ],
        "latency_ns": {"mean": 3100.0, "p50": 2500.0, "p99": 21000.0, "max": 64000.0},
        "fairness": {"jain": 0.87},
    }
    (d / "summary.json").write_text(json.dumps(summary, indent=2))
    return d


@pytest.fixture
def fake_results(tmp_path) -> Path:
    return write_fake_results(tmp_path / "fake")
