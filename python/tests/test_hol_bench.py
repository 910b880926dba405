"""The 1,024-node BMIN DDBBM bench case and its wall-time target, and scripts/hol_cost.py (queue
cost of the HoL schemes) against the simulator's queue counts."""

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
    assert case.scenario == "hol/bmin1024_7b.toml" and case.model == bench.MODEL_CREDIT
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
    assert "packet-hops/s" in bench.header(bench.MODEL_CREDIT)


def test_voq_net_memory_series_cases_differ_only_in_the_network():
    series = [c for c in bench.CASES if c.series == "voq_net"]
    assert [(c.name, c.nodes) for c in series] == [
        ("voq_net_bmin64", 64), ("voq_net_bmin512", 512), ("voq_net_bmin1024", 1024)]
    assert len({c.overrides for c in series}) == 1
    assert {'switch.queue_mapping="voq_net"', 'switch.buffer_sharing="static"', "sim.end_time=0.1ms"} <= set(
        series[0].overrides)
    # the scenario of each is the HoL study's BMIN of that size
    for c in series:
        text = (bench.default_scenarios_dir() / c.scenario).read_text()
        assert f"{c.nodes}-node BMIN" in text, c.scenario


def test_memory_series_line_gives_each_size_and_its_growth():
    def rec(case, mib, status="ok"):
        return {"case": case, "status": status, "peak_rss_mib": mib}

    # out of order, with a case of no series: sorted by end nodes, ratios to the previous size
    (m,) = bench.memory_series([rec("voq_net_bmin1024", 1500.0), rec("c4", 19.0), rec("voq_net_bmin64", 25.0),
                                rec("voq_net_bmin512", 300.0)])
    assert m["series"] == "voq_net"
    assert [(p["nodes"], p["peak_rss_mib"]) for p in m["points"]] == [(64, 25.0), (512, 300.0), (1024, 1500.0)]
    assert [p["growth"] for p in m["points"]] == [None, 12.0, 5.0]
    assert [p["nodes_growth"] for p in m["points"]] == [None, 8.0, 2.0]
    line = bench.format_memory_series(m)
    assert line == ("voq_net memory with the network's size (peak of each run): 64 nodes 25.0 MiB, "
                    "512 nodes 300.0 MiB (12.0× for 8× the nodes), 1,024 nodes 1500.0 MiB (5.0× for 2× the nodes)")
    # a failed case drops out; one size alone is no series
    (m,) = bench.memory_series([rec("voq_net_bmin64", 25.0), rec("voq_net_bmin512", None, "error"),
                                rec("voq_net_bmin1024", 1500.0)])
    assert [p["nodes"] for p in m["points"]] == [64, 1024] and m["points"][1]["nodes_growth"] == 16.0
    assert bench.memory_series([rec("voq_net_bmin64", 25.0)]) == []


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
