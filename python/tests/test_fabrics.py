"""Real InfiniBand fabrics (docs/fabrics.md): `lnsim export` of lnsim's own fabrics, read back by
`topology.kind = "ibnetdiscover"` and `routing.algorithm = "lft_dump"`, gives the same fabric and
the same results; the shipped files under scenarios/fabrics/ are what export writes today; bad
files exit 2 naming file and line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FABRICS = REPO / "scenarios" / "fabrics"

#: (shipped file stem, the built scenario it was exported from, its overrides, the scenario that
#: reads it back, overrides that keep a run short)
SHIPPED = [
    ("gran_testbed", REPO / "scenarios/ibcc/gran_s2.toml", FABRICS / "gran_s2.toml",
     ["sim.end_time=2.2s", "sim.warmup=2s", "sim.interval=50ms"]),
    ("torus_3x3x3", FABRICS / "torus_3x3x3_built.toml", FABRICS / "torus_3x3x3.toml",
     ["sim.end_time=200us", "sim.warmup=50us", "sim.interval=50us"]),
    ("fat_tree_648", REPO / "scenarios/bench/fat_tree_648.toml", FABRICS / "fat_tree_648.toml",
     ["sim.end_time=30us", "sim.warmup=10us", "sim.interval=10us"]),
]


def lnsim(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lnsim", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)


def export(scenario: Path, out: Path, *sets: str) -> tuple:
    args = ["export", scenario, "--out", out]
    for s in sets:
        args += ["--set", s]
    proc = lnsim(*args)
    assert proc.returncode == 0, proc.stderr
    paths = [Path(p) for p in proc.stdout.split()]
    assert [p.suffix for p in paths] == [".ibnetdiscover", ".lfts"], proc.stdout
    return tuple(p.read_text() for p in paths)


def body(text: str) -> str:
    """An ibnetdiscover file without its header comment (which names the scenario)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("# Topology file:"))


@pytest.mark.parametrize("stem,built,imported,short", SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_fabric_is_what_export_writes_and_reads_back_alike(stem, built, imported, short, tmp_path):
    topo, lfts = export(built, tmp_path / "a", f"scenario.name={stem}")
    # the shipped files are today's export of the built scenario
    assert topo == (FABRICS / f"{stem}.ibnetdiscover").read_text()
    assert lfts == (FABRICS / f"{stem}.lfts").read_text()
    # import(export(x)) is x: exporting the imported fabric writes the same nodes (in the same
    # order), names, GUIDs, IB ports, links, width x speed tokens, LIDs and routes
    topo2, lfts2 = export(imported, tmp_path / "b", f"scenario.name={stem}")
    assert topo2 == topo and lfts2 == lfts
    # and a run of the imported scenario gives the results of the built one (same seed)
    outs = []
    for scenario, name in ((built, "built"), (imported, "imported")):
        args = ["run", scenario, "--out", tmp_path / name, "--no-plot", "--no-progress"]
        for s in short:
            args += ["--set", s]
        proc = lnsim(*args)
        assert proc.returncode == 0, proc.stderr
        outs.append(tmp_path / name)
    tables = sorted(p.name for p in outs[0].glob("*.csv"))
    assert tables == sorted(p.name for p in outs[1].glob("*.csv")) and "nodes.csv" in tables
    for t in tables:
        assert (outs[0] / t).read_bytes() == (outs[1] / t).read_bytes(), t
    volatile = {"scenario", "wall_time_s", "peak_rss_bytes"}
    a, b = (json.loads((o / "summary.json").read_text()) for o in outs)
    assert {k: v for k, v in a.items() if k not in volatile} == {k: v for k, v in b.items() if k not in volatile}
    assert a["conservation"]["delivered_packets"] > 0


def test_validate_reports_the_imported_fat_tree():
    proc = lnsim("validate", FABRICS / "fat_tree_648.toml")
    assert proc.returncode == 0, proc.stderr
    assert "topology: ibnetdiscover, 54 switches, 648 HCAs, 1296 links" in proc.stdout, proc.stdout
    assert "routing: lft_dump" in proc.stdout
    assert "deadlock check: channel-dependency graph acyclic" in proc.stdout


SCENARIO = """[scenario]
name = "bad_fabric"
[sim]
model = "credit"
end_time = "10us"
[topology]
kind = "ibnetdiscover"
file = "t.ibnetdiscover"
[routing]
algorithm = "lft_dump"
file = "t.lfts"
[[traffic.flows]]
src = "H1"
dst = "H4"
injection = "flood"
"""


def _bad_case(tmp_path: Path, topo: str, lfts: str) -> Path:
    (tmp_path / "t.ibnetdiscover").write_text(topo)
    (tmp_path / "t.lfts").write_text(lfts)
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO)
    return f


def test_bad_files_exit_2_naming_file_and_line(tmp_path):
    topo = (FABRICS / "gran_testbed.ibnetdiscover").read_text()
    lfts = (FABRICS / "gran_testbed.lfts").read_text()
    good = _bad_case(tmp_path, topo, lfts)
    assert lnsim("validate", good).returncode == 0
    lines = topo.splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("[2]")) + 1
    lines[n - 1] = lines[n - 1].replace("4xDDR", "4xQQR")
    s = _bad_case(tmp_path, "\n".join(lines) + "\n", lfts)
    for cmd in ("validate", "run"):
        proc = lnsim(cmd, s, *(["--out", tmp_path / "out"] if cmd == "run" else []))
        assert proc.returncode == 2, proc.stderr
        assert f"t.ibnetdiscover:{n}: unknown link width/speed `4xQQR`" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    # a forwarding entry to a port that does not exist
    lines = lfts.splitlines()
    m = next(i for i, line in enumerate(lines) if line.startswith("0x0003 ")) + 1
    lines[m - 1] = "0x0003 099" + lines[m - 1][len("0x0003 001"):]
    s = _bad_case(tmp_path, topo, "\n".join(lines) + "\n")
    proc = lnsim("validate", s)
    assert proc.returncode == 2, proc.stderr
    assert f"t.lfts:{m}: switch \"S1\" (GUID 0x6c6e730000000100) forwards LID 3 to port 99" in proc.stderr, proc.stderr


def test_export_never_overwrites_a_file_lnsim_did_not_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "gran_s2.lfts").write_text("mine")
    proc = lnsim("export", REPO / "scenarios/ibcc/gran_s2.toml", "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert (out / "gran_s2.lfts").read_text() == "mine"
    # a cycle-level scenario has no forwarding tables to export
    proc = lnsim("export", REPO / "scenarios/dragonfly/h4_un.toml", "--out", tmp_path / "x")
    assert proc.returncode == 2 and "credit-level" in proc.stderr, proc.stderr


def run_lmc(scenario: Path, out: Path, *sets: str) -> dict:
    """Runs a shipped fabric with `--set` overrides `sets` (a DLID per message is the tests'
    common setting), asserts it succeeded and conserved packets, and returns its summary."""
    args = ["run", scenario, "--out", out, "--no-plot", "--no-progress"]
    for kv in (*sets, 'routing.lmc_path="message"'):
        args += ["--set", kv]
    proc = lnsim(*args)
    assert proc.returncode == 0, proc.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["conservation"]["ok"] is True and s["conservation"]["delivered_packets"] > 0
    return s


def test_lmc_2_with_a_dlid_per_message_runs_the_fat_tree_and_conserves_packets(tmp_path):
    """OpenSM minhop with LMC 2 on the imported 648-HCA fat tree, every message to the next LID
    of its destination: every route the traffic can use is checked, and the run conserves packets
    and counts four routes per pair."""
    s = run_lmc(FABRICS / "fat_tree_648_opensm.toml", tmp_path / "r", "routing.lmc=2",
                "sim.end_time=20us", "sim.warmup=10us", "sim.interval=10us")
    assert s["route_balance"]["switch_links"]["mean"] == 4 * 630


def test_dfsssp_with_lmc_1_layers_every_lid_and_runs_a_dlid_per_message(tmp_path):
    """OpenSM dfsssp with LMC 1 on the 3x3x3 torus, every message to the next LID of its
    destination: each destination LID is routed and layered on its own (pairs counted per source
    LID and destination LID, as OpenSM does), each packet travels on its DLID's SL, the
    deadlock check passes and the run conserves packets."""
    s = run_lmc(FABRICS / "torus_3x3x3_built.toml", tmp_path / "r", 'routing.algorithm="opensm"',
                'routing.engine="dfsssp"', "switch.vls=8", "routing.lmc=1",
                "sim.end_time=60us", "sim.warmup=20us", "sim.interval=20us")
    layers = s["routing"]["layers"]
    assert sum(layers) == 27 * 26 * 2 * 2 and len(layers) >= 2, layers
    assert s["route_balance"]["switch_links"]["mean"] == 2 * 9
    # with too few VLs for the LMC's layers: refused naming switch.vls and the layers needed
    proc = lnsim("validate", FABRICS / "torus_3x3x3_built.toml", "--set", 'routing.algorithm="opensm"',
                 "--set", 'routing.engine="dfsssp"', "--set", "switch.vls=2", "--set", "routing.lmc=1")
    assert proc.returncode == 2, proc.stderr
    assert "switch.vls" in proc.stderr and "needs 3 VLs" in proc.stderr, proc.stderr


@pytest.mark.parametrize("sets,words", [
    (['routing.engine="ftree"', "routing.lmc=1"], ["routing.lmc", 'routing.engine = "ftree"']),
    (['routing.lmc_path="sometimes"'], ["routing.lmc_path", "base", "source", "message"]),
])
def test_lmc_refusals_name_the_keys(sets, words):
    args = ["validate", FABRICS / "fat_tree_648_opensm.toml"]
    for s in sets:
        args += ["--set", s]
    proc = lnsim(*args)
    assert proc.returncode == 2, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def test_an_lmc_fabric_reads_back_alike(tmp_path):
    """import(export(x)) is x with LMC 1: OpenSM updn on the 3x3x3 torus, two LIDs per HCA, the
    sources spreading their messages over both: the exported files read back give the same files
    again and a run with byte-identical results."""
    routing = ['routing.algorithm="opensm"', 'routing.engine="updn"', 'routing.roots=["SW111"]',
               "routing.lmc=1", "scenario.name=torus_lmc"]
    topo, lfts = export(FABRICS / "torus_3x3x3_built.toml", tmp_path / "a", *routing)
    assert " lmc 1 " in topo
    files = [tmp_path / "a" / "torus_lmc.ibnetdiscover", tmp_path / "a" / "torus_lmc.lfts"]
    imported = [f"topology.file=\"{files[0]}\"", f"routing.file=\"{files[1]}\"", "scenario.name=torus_lmc"]
    topo2, lfts2 = export(FABRICS / "torus_3x3x3.toml", tmp_path / "b", *imported)
    assert body(topo2) == body(topo) and lfts2 == lfts
    short = ["sim.end_time=100us", "sim.warmup=20us", "sim.interval=20us", 'routing.lmc_path="message"']
    outs = []
    for scenario, sets, name in ((FABRICS / "torus_3x3x3_built.toml", routing, "built"),
                                 (FABRICS / "torus_3x3x3.toml", imported, "imported")):
        args = ["run", scenario, "--out", tmp_path / name, "--no-plot", "--no-progress"]
        for s in [*sets, *short]:
            args += ["--set", s]
        proc = lnsim(*args)
        assert proc.returncode == 0, proc.stderr
        outs.append(tmp_path / name)
    for t in sorted(p.name for p in outs[0].glob("*.csv")):
        assert (outs[0] / t).read_bytes() == (outs[1] / t).read_bytes(), t
    a, b = (json.loads((o / "summary.json").read_text()) for o in outs)
    assert a["conservation"]["delivered_packets"] > 0
    assert a["route_balance"] == b["route_balance"] and a["throughput"] == b["throughput"]
