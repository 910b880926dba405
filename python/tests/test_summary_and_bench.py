"""The human summary printed after a run, and the bench harness (without running cases)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

import lnsim
from conftest import SCENARIOS, ZERU_A, dragonfly_toml, lnsim_cmd
from lnsim import bench
from lnsim._format import natural_key
from lnsim.cli import format_summary
from lnsim.plot import incomplete_note
from lnsim.report import report_html

#: A short run of a case of the HoL-blocking study: 64 end nodes H1 … H64 (a fat tree names its
#: HCAs H<LID>), 19 hot sources into the hotspot H31, the others uniform; warm-up 100 us.
HOL_3B = SCENARIOS / "hol" / "bmin64_3b.toml"
HOL_SHORT = ["--set", 'sim.end_time="150us"']


@pytest.fixture(scope="module")
def hol_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("hol") / "r"
    proc = lnsim_cmd("run", HOL_3B, *HOL_SHORT, "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def lid(name: str) -> int:
    """The number of a fat tree's HCA name (``H31`` -> 31)."""
    assert re.fullmatch(r"H\d+", name), name
    return int(name[1:])


def node_rows(text: str) -> list:
    """The node names of the per-node table of a printed summary, in order."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("per node")) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("  ") or line.lstrip().startswith("..."):
            break
        rows.append(line.split()[0])
    return rows


def test_format_summary(fake_results):
    s = json.loads((fake_results / "summary.json").read_text())
    text = format_summary(s, fake_results)
    assert "fake" in text and "seed 12" in text
    assert "0.35 sim s per wall s" in text  # 0.7 s simulated in 2 s
    assert "493.83 Mcredit-hops/s" in text  # 987654321 / 2 s
    assert "rx 8.000 / tx 8.100 Gbit/s" in text
    assert "rx 7.900 / tx 8.000" in text
    assert "H112" in text and "H221" in text
    assert "H999" not in text  # idle nodes are left out of the table
    assert "mean 3.100 us" in text and "p99 21.000 us" in text and "max 64.000 us" in text
    assert "Jain 0.8700" in text
    assert str(fake_results) in text


def test_format_summary_tolerates_missing_fields(tmp_path):
    text = format_summary({"scenario": "x"}, tmp_path)
    assert "n/a" in text and "x" in text


def test_natural_order_counts_the_digits_in_names():
    names = ["H10", "H2", "H1", "H1_10", "H1_2", "G3R10", "G3R9", "G10R1", "SW12", "SW9", "N100", "N20"]
    assert sorted(names, key=natural_key) == [
        "G3R9", "G3R10", "G10R1", "H1", "H1_2", "H1_10", "H2", "H10", "N20", "N100", "SW9", "SW12"]


def test_nodes_are_listed_in_natural_order(hol_run, tmp_path):
    out, stdout = hol_run
    # the printed per-node table (H1, H2, …, H9, H10, … as the nodes are numbered, not H1, H10, H11)
    rows = node_rows(stdout)
    assert len(rows) > 10 and rows == sorted(rows, key=lid), rows
    # summary.json's per-node object as the core writes it
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["nodes"]) == sorted(summary["nodes"], key=lid)
    assert list(summary["fairness"]["per_destination"]) == sorted(summary["fairness"]["per_destination"], key=lid)
    # the printout and the report of a summary.json whose objects come in text order (as older
    # versions wrote them)
    as_text = json.loads(json.dumps(summary, sort_keys=True))
    assert list(as_text["nodes"])[:3] == ["H1", "H10", "H11"]
    assert node_rows(format_summary(as_text, out)) == rows
    old = tmp_path / "old"  # the tables only (no nodes.csv: no figures to draw)
    old.mkdir()
    for name in (".lnsim", "flows.csv"):
        shutil.copy(out / name, old / name)
    (old / "summary.json").write_text(json.dumps(as_text, sort_keys=True))
    html = report_html(old)
    for heading in ("<h3>Nodes</h3>", "Fairness per destination</h3>"):
        table = html[html.index(heading):]
        names = re.findall(r"<tr><td>(H\d+)</td>", table[:table.index("</table>")])
        assert len(names) > 10 and names == sorted(names, key=lid), (heading, names)


def summary_line(text: str, label: str) -> str:
    """The line of a printed summary that starts with ``label``."""
    found = [line for line in text.splitlines() if line.startswith(label)]
    assert len(found) == 1, (label, text)
    return found[0]


def pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def test_hol_run_summary_shows_accepted_load_victims_and_non_hot_jain(hol_run):
    out, stdout = hol_run
    s = json.loads((out / "summary.json").read_text())
    f, nodes = s["fairness"], s["nodes"]
    hot = f["hot_destinations"]
    assert hot == ["H31"] and f["victims"] > 0  # this seed's short run has victims to name
    # what the core reports over the non-hot destinations (every HCA offered some traffic, not a
    # hot spot: here every one of the 64 but H31) agrees with the per-node figures: their
    # reception's range and mean, and the victims, below 90 % of what is offered to them
    members = {n: v for n, v in nodes.items() if n not in hot and v["offered_fraction"] > 0}
    assert f["non_hot_destinations"] == len(members) == 63
    rx = [v["rx_fraction"] for v in members.values()]
    spread = f["non_hot_rx_fraction"]
    assert (spread["min"], spread["max"]) == (min(rx), max(rx))
    assert spread["mean"] == pytest.approx(sum(rx) / len(rx), abs=2e-6)
    victims = [n for n, v in members.items()
               if 0 < v["offered_fraction"] < 1 and v["rx_fraction"] < f["victim_share"] * v["offered_fraction"]]
    assert sorted(f["victim_destinations"], key=natural_key) == sorted(victims, key=natural_key)
    assert f["victims"] == len(victims)
    # the printout: accepted load per node (all nodes, the hot spot, the others' mean and range)
    acc = summary_line(stdout, "accepted load")
    assert f"mean {pct(s['throughput']['accepted_per_node'])} over all nodes" in acc, acc
    assert f"hot spot H31 {pct(nodes['H31']['rx_fraction'])}" in acc, acc
    assert f"the other 63 destinations mean {pct(spread['mean'])}, {pct(min(rx))} .. {pct(max(rx))}" in acc, acc
    # the victims, each named
    vic = summary_line(stdout, "victims")
    assert vic.split()[1] == str(len(victims)) and all(v in vic for v in victims), vic
    # Jain over the non-hot destinations, and the flows' Jain saying what it is over
    fair = summary_line(stdout, "fairness")
    assert f"Jain {f['rx_jain_non_hot']:.4f} over the reception of the 63 non-hot destinations" in fair, fair
    assert f"Jain {f['jain']:.4f} over the {len(f['flows'])} flows into H31" in fair, fair


def test_static_flow_run_summary_says_what_jain_is_over(zeru_a_run):
    out, proc = zeru_a_run
    f = json.loads((out / "summary.json").read_text())["fairness"]
    dst = {flow.split("->")[1] for flow in f["flows"]}
    assert len(dst) == 1
    fair = summary_line(proc.stdout, "fairness")
    assert fair.split() == ["fairness", "Jain", f"{f['jain']:.4f}", "over", "the", str(len(f["flows"])), "flows",
                            "into", dst.pop()], fair
    # static flows only: no reception figures of generated traffic
    assert "accepted load" not in proc.stdout and "victims" not in proc.stdout


def _stop_now():
    # what Ctrl-C raises: the core stops at its first check (0.1 s of wall time in) and writes
    # what it simulated, marked incomplete
    raise KeyboardInterrupt


def interrupted(scenario, out, overrides) -> dict:
    """The summary of a run of ``scenario`` interrupted at its first check for a signal."""
    with pytest.raises(KeyboardInterrupt) as e:
        lnsim.run(scenario, overrides=overrides, out=out, _stop=_stop_now)
    assert e.value.result is not None and e.value.result.summary["complete"] is False
    return e.value.result.summary


def test_a_run_stopped_before_its_warm_up_ends_says_it_measured_nothing(tmp_path):
    # a 99-s warm-up: zeru_a simulates about 2 s per second, so the stop comes long before it ends
    s = interrupted(ZERU_A, tmp_path / "ib", ["sim.end_time=100s", "sim.warmup=99s"])
    stop, warm = s["sim_time_s"], s["warmup_s"]
    assert 0 < stop < warm == 99
    # no figure of a window the run never reached (no rate over a negative window)
    thr = s["throughput"]
    for k in ("rx_gbps_after_warmup", "tx_gbps_after_warmup", "accepted_per_node",
              "offered_bits_per_us_per_node", "accepted_bits_per_us_per_node"):
        assert thr[k] is None, k
    assert thr["total_rx_gbps"] > 0  # the whole run's rates are there
    for name, v in s["nodes"].items():
        for k in ("tx_gbps_after_warmup", "rx_gbps_after_warmup", "rx_fraction", "offered_fraction"):
            assert v[k] is None, (name, k)
    assert all(flow["rx_gbps_window"] is None for flow in s["flows"])
    f = s["fairness"]
    assert f["jain"] is None and f["rx_jain_non_hot"] is None and f["victims"] is None
    note = f"no measurement window reached (stopped at {stop:.6g} s, before the warm-up's end at {warm:.6g} s)"
    text = format_summary(s, tmp_path / "ib")
    assert summary_line(text, "throughput").startswith(f"throughput      {note}; whole run: rx "), text
    assert "after warm-up (" not in text, text
    assert note in incomplete_note(s)  # the figures' titles and the report's banner
    # the after-warm-up means of DRB and of its throttling baseline too
    drb = SCENARIOS / "drb" / "torus8x8_shuffle.toml"
    for mechanism, field in (("drb", ("drb", "mean_open_paths_after_warmup")),
                             ("ib_s1", ("throttle", "mean_ird_us_after_warmup"))):
        s = interrupted(drb, tmp_path / mechanism, ["sim.end_time=1s", "sim.warmup=0.9s", "sim.interval=10ms",
                                                      f'cc.mechanism="{mechanism}"'])
        assert s["sim_time_s"] < s["warmup_s"] and s[field[0]][field[1]] is None, s[field[0]]

    # the cycle-level model: a warm-up of 10^9 cycles
    scen = tmp_path / "df.toml"
    scen.write_text(dragonfly_toml(warmup=10**9, measure=1000) + "[stats]\nbin_cycles = 1000000\n")
    s = interrupted(scen, tmp_path / "cycle", [])
    stop, warm = s["simulated_cycles"], s["warmup_cycles"]
    assert 0 < stop < warm == 10**9
    assert s["measured_cycles"] == 0
    for k in ("generated_load", "injected_load", "accepted_load", "nonminimal_fraction", "avg_hops"):
        assert s[k] is None, k
    assert all(v is None for v in s["latency_cycles"].values())
    assert all(v is None for v in s["fairness"].values())
    assert all(v is None for v in s["paths"].values())
    note = f"no measurement window reached (stopped at cycle {stop:,}, before the warm-up's end at cycle {warm:,})"
    assert s["saturation_undecided"] is True and any("no measurement window" in w for w in s["warnings"])
    text = format_summary(s, tmp_path / "cycle")
    assert summary_line(text, "simulated").startswith(f"simulated       {stop:,} cycles: {note}"), text
    assert "warm-up +" not in text, text
    assert note in incomplete_note(s)


def test_bench_cases_exist():
    names = [c.name for c in bench.CASES]
    assert names == ["c4", "c4_cc", "fat_tree_648", "fat_tree_648_cc", "bmin1024_ddbbm", "voq_net_bmin64",
                     "voq_net_bmin512", "voq_net_bmin1024", "torus8x8_drb",
                     "mesh_8x8", "dragonfly_h6", "dragonfly_h6_ugal", "dragonfly_h6_lian", "dragonfly_h6_acor",
                     "ethernet_h6_ugal", "dragonfly_h6_qcn_switch", "mesh_64x64_setup"]
    for c in bench.CASES:
        if c.relative_to:  # a routing timed against another on the same point, listed before it
            ref = next(b for b in bench.CASES if b.name == c.relative_to)
            assert c.scenario == ref.scenario and bench.CASES.index(ref) < bench.CASES.index(c)
            assert c.max_ratio == 1.5
    for c in bench.CASES:
        if c.baseline:  # a CC-on variant: its baseline's scenario with cc.enabled=true
            base = next(b for b in bench.CASES if b.name == c.baseline)
            assert c.scenario == base.scenario and "cc.enabled=true" in c.overrides
            assert (c.quick_end_time, c.quick_warmup) == (base.quick_end_time, base.quick_warmup)
    for c in bench.CASES:
        assert (bench.default_scenarios_dir() / c.scenario).is_file(), c.scenario


def test_routing_costs():
    recs = [{"case": "dragonfly_h6_ugal", "status": "ok", "wall_time_s": 40.0},
            {"case": "dragonfly_h6_lian", "status": "ok", "wall_time_s": 50.0},
            {"case": "dragonfly_h6_acor", "status": "ok", "wall_time_s": 64.0}]
    lian, acor = bench.routing_costs(recs)
    assert (lian["case"], lian["relative_to"], lian["ratio"], lian["ok"]) == ("dragonfly_h6_lian",
                                                                              "dragonfly_h6_ugal", 1.25, True)
    assert acor["ratio"] == 1.6 and acor["ok"] is False
    assert bench.format_routing_cost(lian) == ("dragonfly_h6_lian vs dragonfly_h6_ugal: wall time 50.00 s vs "
                                               "40.00 s, 1.25× (target ≤ 1.5× in wall time: ok)")
    assert bench.format_routing_cost(acor).endswith("1.60× (target ≤ 1.5× in wall time: OVER)")
    # with CPU times, the target is judged on them: a run that waited for the core is not slower
    cpu = [{**recs[0], "cpu_time_s": 39.0}, {**recs[2], "wall_time_s": 70.0, "cpu_time_s": 50.7}]
    (a,) = bench.routing_costs(cpu)
    assert a["ratio"] == 1.75 and a["cpu_ratio"] == pytest.approx(1.3) and a["ok"] is True
    assert bench.format_routing_cost(a) == ("dragonfly_h6_acor vs dragonfly_h6_ugal: wall time 70.00 s vs 40.00 s, "
                                            "1.75×; CPU time 50.70 s vs 39.00 s, 1.30× (target ≤ 1.5× in CPU time: ok)")
    (b,) = bench.routing_costs([cpu[0], {**cpu[1], "cpu_time_s": 62.4}])
    assert b["cpu_ratio"] == pytest.approx(1.6) and b["ok"] is False
    (q, _) = bench.routing_costs(recs, quick=True)
    assert q["ok"] is None and "too short" in bench.format_routing_cost(q)
    assert bench.routing_costs(recs[1:]) == []  # no reference run: no line
    assert bench.routing_costs([recs[0], {**recs[1], "status": "error"}]) == []


def test_bench_row_format():
    row = bench.format_row(
        {
            "case": "c4",
            "status": "ok",
            "sim_time_s": 0.1,
            "wall_time_s": 5.0,
            "sim_s_per_wall_s": 0.02,
            "credit_hops_per_s": 1e8,
            "packet_hops_per_s": 3e6,
            "events_per_s": 2e7,
            "peak_rss_mib": 42.0,
        }
    )
    assert row.split() == ["c4", "0.1", "5.000", "0.02", "1e+08", "3e+06", "2e+07", "42.0"]
    assert "error" in bench.format_row({"case": "c4", "status": "error", "exit_status": 1, "error": "boom"})


def test_bench_quick_case(tmp_path, monkeypatch):
    """`lnsim bench --quick --case c4`: one case in a subprocess, bench.json written."""
    monkeypatch.chdir(tmp_path)
    status = bench.main(cases=["c4"], quick=True)
    report = json.loads((tmp_path / "results" / "bench" / "bench.json").read_text())
    assert report["quick"] is True and report["version"] == lnsim.__version__
    (rec,) = report["cases"]
    assert rec["case"] == "c4" and "sim.end_time=0.01s" in rec["overrides"] and "sim.warmup=5ms" in rec["overrides"]
    assert status == 0, rec
    assert rec["sim_time_s"] > 0 and rec["peak_rss_mib"] > 0 and rec["credit_hops_per_s"] > 0
