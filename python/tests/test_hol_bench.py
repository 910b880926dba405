"""Issue 17, "Tests and speed": the 1,024-node BMIN DDBBM bench case and its wall-time target,
and scripts/hol_cost.py (queue cost of the HoL schemes) against the simulator's queue counts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import lnsim
from lnsim import bench

ROOT = Path(__file__).resolve().parents[2]


def _cost():
    spec = importlib.util.spec_from_file_location("hol_cost", ROOT / "scripts" / "hol_cost.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# bench case


def test_bmin1024_case_is_ddbbm_17q_static_for_1ms():
    case = {c.name: c for c in bench.CASES}["bmin1024_ddbbm"]
    assert case.scenario == "hol/bmin1024_7b.toml" and case.model == bench.MODEL_IB
    assert case.target_wall_s == 10.0
    full = bench.case_overrides(case)
    assert {'switch.queue_mapping="ddbbm"', "switch.dbbm_queues=16", 'switch.buffer_sharing="static"'} <= set(full)
    assert "sim.end_time=1ms" in full and not [o for o in full if o.startswith("sim.warmup")]
    quick = bench.case_overrides(case, quick=True)
    assert [o for o in quick if o.startswith("sim.")] == ["sim.end_time=20us", "sim.warmup=10us"]
    # both the full and the quick case are valid scenarios (DDBBM-17Q: 17 queues per VL)
    for ov in (full, quick):
        assert "OK" in lnsim.validate(bench.default_scenarios_dir() / case.scenario, ov)


def test_ib_record_judges_the_wall_time_target():
    s = {"sim_time_s": 0.001, "wall_time_s": 8.0, "flit_hops": 4_000_000, "packet_hops": 2_000_000,
         "events": 16_000_000, "peak_rss_bytes": 300 * 2**20}
    r = {"case": "bmin1024_ddbbm", "status": "ok", **bench.ib_record(s, 10.0)}
    assert r["within_target"] is True and r["packet_hops_per_s"] == 250_000.0 and r["credit_hops_per_s"] == 500_000.0
    row = bench.format_row(r)
    assert row.split()[:8] == ["bmin1024_ddbbm", "0.001", "8.000", "0.000125", "5e+05", "2.5e+05", "2e+06", "300.0"]
    assert row.endswith("< 10 s ok")
    slow = bench.format_row({"case": "x", "status": "ok", **bench.ib_record(dict(s, wall_time_s=12.5), 10.0)})
    assert slow.endswith("< 10 s SLOW")
    quick = bench.ib_record(s, 10.0, quick=True)
    assert quick["within_target"] is None
    assert bench.format_row({"case": "x", "status": "ok", **quick}).endswith("(not judged)")
    # a case without a target prints no verdict
    plain = bench.format_row({"case": "c4", "status": "ok", **bench.ib_record(s)})
    assert plain.rstrip().endswith("300.0") and "target" not in plain
    assert "packet-hops/s" in bench.header(bench.MODEL_IB)


# ---------------------------------------------------------------------------------------------
# queue cost


@pytest.mark.parametrize(
    "scheme, network",
    [("DDBBM-5Q", "bmin64"), ("VOQsw", "bmin64"), ("VOQnet", "bmin64"), ("DBBM-16Q", "mesh8x8"), ("1Q", "mesh4x4n4")],
)
def test_cost_queue_counts_are_the_schemes(scheme, network):
    cost = _cost()
    label, file, n, ports = cost.NETWORKS[network]
    ov = dict(cost.SCHEMES)[scheme]
    q = cost.queues_per_port(cost.HOL / file, ov)
    # spec B.2: 1, P, N, Q, Q + 1 (a BMIN switch has 8 ports)
    assert q == {"DDBBM-5Q": 5, "VOQsw": 8, "VOQnet": n, "DBBM-16Q": 16, "1Q": 1}[scheme]
    assert q == cost.spec_queues(scheme, n, ports)


def test_cost_bytes_follow_spec_b5():
    cost = _cost()
    # mode A: 1 KB divided in whole 64-B packets, at least one (two for VOQnet)
    assert cost.port_bytes("DBBM-4Q", 4, "A") == 1024
    assert cost.port_bytes("DDBBM-5Q", 5, "A") == 5 * 3 * 64
    assert cost.port_bytes("DDBBM-17Q", 17, "A") == 17 * 64
    assert cost.port_bytes("VOQnet", 1024, "A") == 1024 * 2 * 64
    # mode B: 1 KB per queue
    assert cost.port_bytes("VOQnet", 512, "B") == 512 * 1024
    (row,) = [r for r in cost.rows(["bmin64"], ["A"]) if r["scheme"] == "VOQnet"]
    assert row["queues"] == 64 and row["memory_A"].endswith("iB")
