"""Forwarding rules and power of Ethernet fabrics (`lnsim rules`, lnsim.analysis): hand-counted
small networks, the power study's network sizes, Eq. 4-1, the compaction bounds, the power
arithmetic of one switch, and the command."""

from __future__ import annotations

import csv
import math

import pytest

from conftest import lnsim_cmd
from lnsim.analysis import (
    Dragonfly,
    FlattenedButterfly,
    FoldedClos,
    PowerModel,
    access_rules,
    clos_for_radix,
    compaction,
    dragonfly_for_radix,
    eq_4_1,
    fb_for_radix,
    marbp_extra_rules,
    network_power,
    power_study_networks,
    prefix_rules,
)
from lnsim.analysis.rules import dragonfly_remote_rules

SMALL = ["--radix", "8,16", "--dragonfly", "2,4,2,9", "--fb", "4x4:4", "--clos", "4,3,4", "--switch-ports", "10"]


def test_dragonfly_p2_a4_h2_by_hand():
    """Dragonfly p = h = 2, a = 4, 9 groups (72 hosts, 36 routers, 7 ports a router).

    Flat: 72 rules. Per-switch: 35 other routers + 2 hosts = 37. Per-group (Eq. 4-1): 8 + 3 + 2 = 13.

    Compaction, group field of 4 bits (values 9-15 unused, the own group taken by the switch-field
    rules: all don't-cares). Palmtree: router 3 owns offsets 1, 2, router 2 offsets 3, 4, router 1
    5, 6, router 0 7, 8. Router 3 of group 0 sends 1 -> global port, 2 -> another global port,
    3, 4 -> R2, 5, 6 -> R1, 7, 8 -> R0. Fewest prefixes: 000* (g1), 0010 (g2), 0011 (R2),
    01** (R1), 0100 (R2), 0111 (R0), 1*** (R0) = 7, since {3, 4} = {0011, 0100} straddle a
    prefix boundary; + 2 host rules + 3 switch rules = 12. Router 0 of group 0: 1, 2 -> R3,
    3, 4 -> R2, 5, 6 -> R1, 7, 8 -> its global ports: 00** (R3), 0011 (R2), 01** (R1), 0100 (R2),
    0111 (g7), 1*** (g8) = 6 -> 11. In group 1 every block is aligned (2, 3 = 001*; 4, 5 = 010*;
    6, 7 = 011*; 8 = 1***, 0 = 000*): 5 remote rules, the bound p + 2(a - 1) + h = 10 = ports + S - 1.
    MAR-bP: one alternative rule per injection port, 2."""
    df = Dragonfly(p=2, a=4, h=2, groups=9)
    assert (df.hosts, df.switches, df.ports_used) == (72, 36, 7)
    assert [access_rules(df, m) for m in ("flat", "per_switch", "per_group")] == [72, 37, 13]
    assert dragonfly_remote_rules(df, 0, 3) == 7
    assert dragonfly_remote_rules(df, 0, 0) == 6
    assert [dragonfly_remote_rules(df, 1, r) for r in range(4)] == [5, 5, 5, 5]
    comp = compaction(df)
    assert comp.bound == 10 == df.ports_used + df.a - 1
    assert comp.max == 12 and comp.switches == 36
    assert marbp_extra_rules(df) == 2


def test_flattened_butterfly_4x4_by_hand():
    """FB 4×4, 4 hosts per switch: 16 switches, 64 hosts, 4 + 3 + 3 = 10 ports. A group is a row
    (G = S = 4): per-group 3 + 3 + 4 = 10, per-switch 15 + 4 = 19, flat 64. Compacted: 3 rules on
    X, 3 on Y, 4 hosts = 10 = ports. MAR-bP: one rule per non-minimal remote group, 3 (4 hosts,
    3 remote groups: one host has none)."""
    fb = FlattenedButterfly(dims=(4, 4), hosts_per_switch=4)
    assert (fb.switches, fb.hosts, fb.ports_used, fb.hierarchy()) == (16, 64, 10, (4, 4, 4))
    assert [access_rules(fb, m) for m in ("flat", "per_switch", "per_group")] == [64, 19, 10]
    assert compaction(fb).max == 10
    assert marbp_extra_rules(fb) == 3


def test_folded_clos_k4_three_levels_by_hand():
    """3-level folded-Clos of 4-port switches: 4 pods of 2 access + 2 pod switches, 4 hosts each
    (16 = k³/4 hosts), 4 top switches: 20 switches = 5k²/4. Access switch: G = 4 pods, S = 2,
    I = 2: per-group 3 + 1 + 2 = 6, per-switch 7 + 2 = 9, flat 16, compacted 2 host rules + 2
    uplink hash rules = 4 = k. MAR-bP: 2 uplink rules, each with 1 alternative: 2."""
    clos = FoldedClos(k=4, levels=3, pods=4)
    assert clos == clos_for_radix(4)
    assert (clos.hosts, clos.switches, [c.count for c in clos.switch_classes()]) == (16, 20, [8, 8, 4])
    assert [access_rules(clos, m) for m in ("flat", "per_switch", "per_group")] == [16, 9, 6]
    assert compaction(clos).max == 4
    assert marbp_extra_rules(clos) == 2


def test_power_study_network_sizes():
    """Spec §1.4: 4-stage folded-Clos 29,484 switches / 303,264 hosts (6.5 stage-3 groups of 36
    pods, 4,212 top switches); 4-D FB 15×15×15×6 20,250 / 303,750 (62 ports used); Dragonfly
    463 × 36 routers, p = 18: 16,668 / 300,024, 515 per-group rules (462 + 35 + 18)."""
    clos, fb, df = power_study_networks()
    assert (clos.switches, clos.hosts) == (29484, 303264)
    assert clos.pods / (clos.k // 2) == 6.5 and clos.switch_classes()[-1].count == 4212
    assert (fb.switches, fb.hosts, fb.ports_used) == (20250, 303750, 62)
    assert (df.switches, df.hosts, df.ports_used) == (16668, 300024, 71)
    assert access_rules(df, "per_group") == 515


NETS = [dragonfly_for_radix(k) for k in (8, 16, 24)] + [fb_for_radix(k, d) for k in (8, 16, 24) for d in (2, 3, 4)] + [
    clos_for_radix(k) for k in (8, 16, 24)] + [FoldedClos(12, 4, 20), FlattenedButterfly((5, 3, 7), 2),
                                               Dragonfly(3, 5, 2, 7)]


@pytest.mark.parametrize("net", NETS, ids=lambda n: n.label)
def test_eq_4_1_identities(net):
    """H = G·S·I (Eq. 4-2); flat = H; per-group = Eq. 4-1; per-switch is Eq. 4-1 with one group
    of G·S switches; per-group ≤ per-switch ≤ flat."""
    g, s, i = net.hierarchy()
    assert g * s * i == net.hosts
    assert access_rules(net, "flat") == net.hosts
    assert access_rules(net, "per_group") == eq_4_1(g, s, i)
    assert access_rules(net, "per_switch") == eq_4_1(1, g * s, i)
    assert access_rules(net, "per_group") <= access_rules(net, "per_switch") <= access_rules(net, "flat")


@pytest.mark.parametrize("net", NETS, ids=lambda n: n.label)
def test_compaction_bounds(net):
    """FB and folded-Clos reach #rules = #ports; a full-size Dragonfly needs at least
    ports + S − 1, and the evaluated switches never go below the bound."""
    comp = compaction(net)
    if isinstance(net, Dragonfly):
        if net.groups == net.a * net.h + 1:
            assert comp.bound == net.ports_used + net.a - 1
        assert comp.bound <= comp.mean <= comp.max
    else:
        assert comp.max == comp.bound == net.ports_used


def test_prefix_rules_small_fields():
    """Hand cases: two aligned halves (2 rules), alternating ports (a default and two overrides: 3),
    don't-cares absorbed (2), all don't-care (0), one port everywhere (1)."""
    assert prefix_rules([0, 0, 1, 1]) == 2
    assert prefix_rules([0, 1, 0, 1]) == 3
    assert prefix_rules([0, None, None, 1]) == 2
    assert prefix_rules([None] * 8) == 0
    assert prefix_rules([5] * 8) == 1


def test_power_of_a_hand_worked_switch():
    """10 ports (4 to hosts), 100 rules, 1 fJ/bit, 1,000-bit keys, 40 Gbps, 64-B packets:
    78,125,000 packets/s per port, 781,250,000 lookups/s. TCAM 100 × 1000 × 1e-15 × 7.8125e8 =
    0.078125 W; buffers (4.5048 + 4.4993) nJ × 7.8125e8 = 7.034453125 W; ports 6 × 0.6 + 4 × 0.48 =
    5.52 W; logic 30 W; total 42.632578125 W."""
    w = PowerModel().switch(ports=10, host_ports=4, entries=100)
    assert w["tcam"] == pytest.approx(0.078125, rel=1e-12)
    assert w["buffers"] == pytest.approx(7.034453125, rel=1e-12)
    assert w["ports"] == pytest.approx(5.52, rel=1e-12)
    assert w["fixed"] == 30.0
    assert w["total"] == pytest.approx(42.632578125, rel=1e-12)


def test_network_power_sums_every_switch_class():
    """Clos k = 4, per-group: 8 access switches (6 rules, 2 host ports), 8 pod switches
    ((G − 1) + S = 5 rules), 4 top switches (G = 4 rules); every switch 4 active ports."""
    pm = PowerModel()
    clos = FoldedClos(k=4, levels=3, pods=4)
    p = network_power(clos, "per_group", 4, pm)
    expect = 8 * pm.switch(4, 2, 6)["total"] + 8 * pm.switch(4, 0, 5)["total"] + 4 * pm.switch(4, 0, 4)["total"]
    assert math.isclose(p.watts["total"], expect, rel_tol=1e-12)
    assert p.access_rules == 6


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_rules_command_writes_its_folder(tmp_path):
    out = tmp_path / "rules"
    proc = lnsim_cmd("rules", *SMALL, "--out", out)
    assert proc.returncode == 0, proc.stderr
    names = {"rules_by_radix.csv", "networks.csv", "power.csv", "rules_vs_hosts.png", "compacted_rules.png", "power.png"}
    assert names <= {p.name for p in out.iterdir()}
    study = _rows(out / "networks.csv")
    assert [(r["topology"], r["per_group"]) for r in study] == [("clos", "6"), ("fb", "10"), ("dragonfly", "13")]
    assert len(_rows(out / "rules_by_radix.csv")) == 2 * 4
    assert len(_rows(out / "power.csv")) == 3 * 4
    assert "Power (MW" in proc.stdout and "DF p=2 a=4 h=2 G=9" in proc.stdout
    first = {n: (out / n).read_bytes() for n in ("rules_by_radix.csv", "networks.csv", "power.csv")}
    again = lnsim_cmd("rules", *SMALL, "--out", out, "--no-plot")  # same folder again, same bytes
    assert again.returncode == 0, again.stderr
    assert first == {n: (out / n).read_bytes() for n in first}


@pytest.mark.parametrize("args, names", [
    (["--fb", "4x4"], "--fb 4x4: expected D1xD2x...:C"),
    (["--dragonfly", "2,4,2,99"], "--dragonfly 2,4,2,99: dragonfly groups = 99: at most a·h + 1 = 9"),
    (["--clos", "5,3,1"], "--clos 5,3,1: folded-Clos k = 5"),
    (["--radix", "8,x"], "--radix 8,x: expected whole numbers"),
    (["--radix", "2"], "--radix 2: every radix must be 4 or more"),
    (["--switch-ports", "8"], "--switch-ports 8: FB 4x4:4"),
    (["--tcam-fj-per-bit", "-1"], "--tcam-fj-per-bit -1.0"),
])
def test_rules_bad_option_exits_2_naming_it(tmp_path, args, names):
    argv = list(SMALL)
    i = argv.index(args[0]) if args[0] in argv else None
    if i is not None:
        del argv[i:i + 2]
    proc = lnsim_cmd("rules", *argv, *args, "--out", tmp_path / "o")
    assert proc.returncode == 2, proc.stderr
    assert names.replace("FB 4x4:4", "FB 4x4 c=4") in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


def test_rules_keeps_a_folder_it_did_not_write(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    proc = lnsim_cmd("rules", *SMALL, "--out", out)
    assert proc.returncode == 2
    assert str(out) in proc.stderr and "Traceback" not in proc.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
