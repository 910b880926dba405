"""The lossless Ethernet outputs of a cycle-level run (Dragonfly spec §3.12): QCN's summary
fields, QCN-Switch's probability trace and its figure, the run summary's lines, and a corrupt
trace named by the reader."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import lnsim
from lnsim import plot
from lnsim._read import ResultsError

#: A reduced Table 4-3 Dragonfly (h = p = 2, 72 nodes) routed by QCN-Switch under ADV+1.
SCENARIO = """
[sim]
model = "cycle"
seed = 3
warmup_cycles = 10000
measure_cycles = 10000
[topology]
kind = "dragonfly"
p = 2
[router]
latency = 20
local_latency = 4
global_latency = 40
injection_queue_phits = 4000
local_buffer_phits = 2000
global_buffer_phits = 2000
output_buffer_phits = 2000
[routing]
algorithm = "qcn_switch"
[traffic]
pattern = "adv"
shift = 1
load = 0.3
packet_phits = 20
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("eth")
    scen = d / "qcn.toml"
    scen.write_text(SCENARIO)
    out = d / "out"
    r = subprocess.run([sys.executable, "-m", "lnsim", "run", str(scen), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def test_qcn_fields_and_summary_lines(run_dir):
    out, stdout = run_dir
    s = json.loads((out / "summary.json").read_text())
    q, qs = s["qcn"], s["qcn_switch"]
    assert q["sampling"] == "output" and q["samples"] > 0 and q["cnms_created"] > 0
    assert q["cnms_created"] >= q["cnms_delivered"] > 0
    assert sum(q["fb_histogram"]) == q["congested_samples"]
    assert 0 < q["notifications_per_packet_hop"] < 0.1
    assert qs["notifications_applied"] == q["cnms_at_destination_router"]
    assert "qcn             output sampling: notifications" in stdout
    assert "qcn-switch      mean minimal probability at the end" in stdout


def test_probability_trace_and_its_figure(run_dir, tmp_path):
    out, _ = run_dir
    r = lnsim.load_results(out)
    t = r.qcn_probabilities
    assert t is not None and len(t) > 0
    assert set(t["cause"]) <= {"notification", "packet_counter", "local"}
    assert t["probability"].between(0, 100).all()
    assert (t["router"] < 4).all(), "group 0 only (a = 4)"
    written = plot.plot_cycle_results(out, out_dir=tmp_path / "figs")
    assert "qcn_probabilities.png" in {p.name for p in written}
    # a corrupt trace is named by the reader, with its line
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in ("summary.json", "bins.csv", "routers.csv", "latency_hist.csv"):
        (bad / f).write_bytes((out / f).read_bytes())
    (bad / "qcn_probabilities.csv").write_text(
        "cycle,time_us,router,name,port,probability,cause,fb\n10,0.01,0,G0R0,2,x,local,3\n")
    with pytest.raises(ResultsError, match=r"qcn_probabilities.csv:2"):
        lnsim.load_results(bad).qcn_probabilities
