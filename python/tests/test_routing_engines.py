"""OpenSM's routing engines (``routing.algorithm = "opensm"``) in whole runs: two engines compared
on one small fabric by the routes-per-link report every credit-level run writes
(``summary.json`` ``route_balance``, ``routes.csv``, the ``routes/link`` line of ``lnsim run``),
the same results for the same seed, and bad engine settings refused with exit status 2."""

from __future__ import annotations

import csv
import json

from conftest import lnsim_cmd

#: A 2-ary 3-tree (4 leaves with 2 HCAs each, 4 middle and 4 top switches), uniform traffic.
FAT_TREE = """\
[sim]
model = "credit"
end_time = "20us"
warmup = "5us"
interval = "5us"
seed = 3
[topology]
kind = "fat_tree"
down = [2, 2, 2]
up = [1, 2, 2]
[links.host]
speed = "QDR"
[links.fabric]
speed = "QDR"
[[traffic.generators]]
sources = "all"
destinations = "all"
pattern = "uniform"
injection = "flood"
destination_per = "message"
[routing]
algorithm = "opensm"
"""


def _run(tmp_path, name: str, extra: str = "", *args):
    scen = tmp_path / f"{name}.toml"
    scen.write_text(FAT_TREE + extra)
    out = tmp_path / f"out-{name}"
    r = lnsim_cmd("run", scen, "--no-plot", "--out", out, *args)
    return r, out


def test_two_engines_compared_by_routes_per_link_on_one_fat_tree(tmp_path):
    report = {}
    for engine in ("minhop", "ftree"):
        r, out = _run(tmp_path, engine, f'engine = "{engine}"\n')
        assert r.returncode == 0, r.stderr
        summary = json.loads((out / "summary.json").read_text())
        bal = summary["route_balance"]
        assert bal["pairs_routed"] == 8 * 7 and bal["pairs_unrouted"] == 0
        rows = list(csv.DictReader((out / "routes.csv").open()))
        isl = [int(row["routes"]) for row in rows if row["switch_link"] == "true"]
        assert len(isl) == bal["switch_links"]["links"] == 32
        assert max(isl) == bal["switch_links"]["max"] and min(isl) == bal["switch_links"]["min"]
        assert summary["throughput"]["rx_gbps_after_warmup"] > 0
        line = next(x for x in r.stdout.splitlines() if x.startswith("routes/link"))
        assert f"switch links max {bal['switch_links']['max']}," in line
        report[engine] = bal["switch_links"]
        v = lnsim_cmd("validate", tmp_path / f"{engine}.toml")
        assert f"routing: opensm (engine {engine})" in v.stdout, v.stdout
        assert f"switch links max {bal['switch_links']['max']} mean" in v.stdout, v.stdout
    # ftree: 6 routes on every leaf link, 4 on every link above the pods (mean 5); minhop
    # balances each switch's own ports only and loads some links more
    assert (report["ftree"]["max"], report["ftree"]["min"], report["ftree"]["mean"]) == (6, 4, 5.0)
    assert report["minhop"]["max"] > report["ftree"]["max"]


def test_an_engine_gives_the_same_results_for_the_same_seed(tmp_path):
    outs = []
    for k in range(2):
        r, out = _run(tmp_path, f"updn{k}", 'engine = "updn"\n')
        assert r.returncode == 0, r.stderr
        outs.append(out)
    for f in ("routes.csv", "flows.csv", "nodes.csv"):
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f
    a, b = (json.loads((o / "summary.json").read_text()) for o in outs)
    assert a["route_balance"] == b["route_balance"] and a["throughput"] == b["throughput"]


def test_bad_engine_settings_exit_2_naming_the_key(tmp_path):
    for name, extra, key in (("lmc", 'engine = "ftree"\nlmc = 1\n', "routing.lmc"),
                             ("engine", 'engine = "lash"\n', "routing.engine"),
                             ("roots", 'engine = "updn"\nroots = ["H1"]\n', "routing.roots[0]")):
        r, _ = _run(tmp_path, name, extra)
        assert r.returncode == 2, (name, r.stderr)
        assert key in r.stderr and "Traceback" not in r.stderr, r.stderr
    # ftree on a mesh is not a fat tree
    scen = tmp_path / "mesh.toml"
    scen.write_text('[sim]\nmodel = "credit"\nend_time = "10us"\n[topology]\nkind = "mesh"\ndims = [2, 2]\n'
                    'hcas_per_switch = 1\n[routing]\nalgorithm = "opensm"\nengine = "ftree"\n')
    r = lnsim_cmd("validate", scen)
    assert r.returncode == 2 and "routing.engine" in r.stderr and "ftree" in r.stderr, r.stderr


def test_dfsssp_reports_its_vl_layers_in_the_summary_the_run_and_validate(tmp_path):
    # a 3-D torus needs a second layer; the fat tree's summaries have no `routing` entry
    scen = tmp_path / "torus.toml"
    scen.write_text('[sim]\nmodel = "credit"\nend_time = "10us"\nwarmup = "2us"\ninterval = "2us"\n'
                    '[topology]\nkind = "torus"\ndims = [3, 3, 3]\nhcas_per_switch = 1\n[switch]\nvls = 4\n'
                    '[routing]\nalgorithm = "opensm"\nengine = "dfsssp"\n'
                    '[[traffic.generators]]\nsources = "all"\ndestinations = "all"\npattern = "uniform"\n'
                    'injection = "poisson"\nload = 0.3\n')
    out = tmp_path / "out-torus"
    r = lnsim_cmd("run", scen, "--no-plot", "--out", out)
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    layers = summary["routing"]["layers"]
    assert len(layers) >= 2 and sum(layers) == 27 * 26, layers
    line = next(x for x in r.stdout.splitlines() if x.startswith("VL layers"))
    assert f"VL layers       {len(layers)} " in line and ", ".join(map(str, layers)) in line, line
    v = lnsim_cmd("validate", scen)
    assert f"VL layers: {len(layers)} " in v.stdout, v.stdout
    # too few VLs: exit 2 naming switch.vls
    r = lnsim_cmd("validate", scen, "--set", "switch.vls=1")
    assert r.returncode == 2 and "switch.vls" in r.stderr and "needs" in r.stderr, r.stderr
    r, out = _run(tmp_path, "minhop-plain", 'engine = "minhop"\n')
    assert r.returncode == 0 and "routing" not in json.loads((out / "summary.json").read_text())
    assert not any(x.startswith("VL layers") for x in r.stdout.splitlines())
