"""The `lnsim` command: exit statuses, messages, results folder."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from conftest import ZERU_A, lnsim_cmd, short

NODES_HEADER = "t_start_s,node,tx_bytes,rx_bytes"
LATENCY_HEADER = "lower_ns,upper_ns,count"
BUFFERS_HEADER = "t_start_s,switch,port,vl,mean_credits,max_credits"
FLOWS_REQUIRED = {"src", "dst", "tx_bytes", "rx_bytes"}  # more columns may follow


def test_module_help():
    proc = lnsim_cmd("--help")
    assert proc.returncode == 0, proc.stderr
    for sub in ("run", "validate", "plot", "bench"):
        assert sub in proc.stdout


@pytest.mark.parametrize("sub", ["run", "validate", "plot", "bench"])
def test_subcommand_help(sub):
    proc = lnsim_cmd(sub, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: lnsim " + sub in proc.stdout


def test_version():
    import lnsim

    proc = lnsim_cmd("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"lnsim {lnsim.__version__}"


def test_no_command_is_usage_error():
    proc = lnsim_cmd()
    assert proc.returncode == 2
    assert "usage:" in proc.stderr


def test_validate_good_scenario():
    proc = lnsim_cmd("validate", ZERU_A)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip(), "validate printed no report"
    assert proc.stderr == ""


@pytest.mark.parametrize("sub", ["run", "validate"])
@pytest.mark.parametrize(
    "override, names",
    [
        ("switch.bogus=1", ["switch", "bogus"]),
        ("sim.end_time=3parsecs", ["sim.end_time", "parsecs"]),
    ],
)
def test_bad_input_exits_2_naming_the_key(tmp_path, sub, override, names):
    out = tmp_path / "x"
    extra = ["--out", out] if sub == "run" else []
    proc = lnsim_cmd(sub, ZERU_A, "--set", override, *extra)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("lnsim: error: "), proc.stderr
    for name in names:
        assert name in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists(), "a results folder was created for bad input"


def test_missing_scenario_file_exits_2(tmp_path):
    out = tmp_path / "x"
    proc = lnsim_cmd("run", tmp_path / "nope.toml", "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert "nope.toml" in proc.stderr
    assert not out.exists()


def test_malformed_override_exits_2(tmp_path):
    proc = lnsim_cmd("validate", ZERU_A, "--set", "sim.end_time")
    assert proc.returncode == 2
    assert "sim.end_time" in proc.stderr


def test_plot_not_a_results_folder_exits_2(tmp_path):
    proc = lnsim_cmd("plot", tmp_path)
    assert proc.returncode == 2
    assert "summary.json" in proc.stderr


def test_unknown_bench_case_exits_2():
    proc = lnsim_cmd("bench", "--case", "no_such_case")
    assert proc.returncode == 2
    assert "no_such_case" in proc.stderr and "c4" in proc.stderr


def test_run_writes_results_folder(zeru_a_run):
    out, proc = zeru_a_run
    summary = json.loads((out / "summary.json").read_text())
    for key in (
        "scenario", "seed", "version", "sim_time_s", "wall_time_s", "events", "flit_hops",
        "peak_rss_bytes", "interval_s", "warmup_s", "throughput", "nodes", "flows",
        "latency_ns", "fairness",
    ):
        assert key in summary, key
    assert summary["scenario"] == "zeru_a"
    assert summary["sim_time_s"] == pytest.approx(0.02)
    for key in ("total_rx_gbps", "total_tx_gbps", "rx_gbps_after_warmup", "tx_gbps_after_warmup"):
        assert key in summary["throughput"], key
    for key in ("mean", "p50", "p99", "max"):
        assert key in summary["latency_ns"], key
    assert "jain" in summary["fairness"]
    assert (out / "nodes.csv").read_text().splitlines()[0] == NODES_HEADER
    flows_header = (out / "flows.csv").read_text().splitlines()[0].split(",")
    assert flows_header[:2] == ["src", "dst"] and FLOWS_REQUIRED <= set(flows_header), flows_header
    assert (out / "latency_hist.csv").read_text().splitlines()[0] == LATENCY_HEADER
    # zeru_a sets stats.buffer_occupancy = true
    assert (out / "buffers.csv").read_text().splitlines()[0] == BUFFERS_HEADER


def test_run_prints_human_summary(zeru_a_run):
    out, proc = zeru_a_run
    text = proc.stdout
    for word in ("zeru_a", "simulated", "wall", "events", "credit-hops/s", "Gbit/s", "latency", "Jain", str(out)):
        assert word in text, (word, text)
    # H112 floods from 0 s: it must appear in the per-node table
    assert "H112" in text
    assert "\r" not in proc.stderr, "progress bar drawn although stderr is not a terminal"


def test_run_plots_by_default(tmp_path):
    out = tmp_path / "x"
    proc = lnsim_cmd("run", ZERU_A, *short("0.01s", "0.005s"), "--out", out)
    assert proc.returncode == 0, proc.stderr
    for name in ("bandwidth.png", "throughput.png", "latency_hist.png"):
        assert (out / name).stat().st_size > 1000, name


def test_plot_writes_pngs(zeru_a_run, tmp_path):
    out, _ = zeru_a_run
    proc = lnsim_cmd("plot", out, "--out", tmp_path / "figs")
    assert proc.returncode == 0, proc.stderr
    for name in ("bandwidth.png", "throughput.png", "latency_hist.png"):
        p = tmp_path / "figs" / name
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert str(p) in proc.stdout


def test_plot_fake_folder_in_place(fake_results):
    proc = lnsim_cmd("plot", fake_results)
    assert proc.returncode == 0, proc.stderr
    for name in ("bandwidth.png", "throughput.png", "latency_hist.png"):
        assert (fake_results / name).stat().st_size > 1000


def test_seed_is_recorded(tmp_path):
    out = tmp_path / "x"
    proc = lnsim_cmd("run", ZERU_A, *short("0.005s", "0.002s"), "--seed", "99", "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "summary.json").read_text())["seed"] == 99


def test_ctrl_c_exits_130_with_partial_results(tmp_path):
    out = tmp_path / "x"
    p = subprocess.Popen(
        [sys.executable, "-m", "lnsim", "run", str(ZERU_A), "--set", "sim.end_time=100s", "--out", str(out), "--no-plot"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal: a suite started in the background by a shell without job
        # control inherits SIGINT ignored, and a program started so rightly keeps ignoring it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(3.0)  # well past start-up: the core is running
        assert p.poll() is None, p.communicate()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 130, (p.returncode, err)
    assert "interrupted" in err
    # what was simulated is written, marked incomplete (test_output_safety.py)
    assert json.loads((out / "summary.json").read_text())["complete"] is False
