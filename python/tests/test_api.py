"""The Python API: lnsim.run / validate / load_results and the RunResult tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lnsim
from conftest import ZERU_A, write_fake_results

NODES = ["t_start_s", "node", "tx_bytes", "rx_bytes"]
FLOWS = ["src", "dst", "tx_bytes", "rx_bytes"]
LATENCY = ["lower_ns", "upper_ns", "count"]
BUFFERS = ["t_start_s", "switch", "port", "vl", "mean_credits", "max_credits"]


def test_exports():
    for name in ("run", "validate", "load_results", "RunResult", "ScenarioError", "SimulationError", "__version__"):
        assert hasattr(lnsim, name), name
    assert issubclass(lnsim.ScenarioError, ValueError)
    assert issubclass(lnsim.SimulationError, RuntimeError)
    assert lnsim.ScenarioError is lnsim._core.ScenarioError
    assert lnsim.__version__ == lnsim._core.version()


def test_load_results_fake(fake_results):
    r = lnsim.load_results(fake_results)
    assert r.out_dir == Path(fake_results)
    assert r.summary["scenario"] == "fake"
    assert isinstance(r.nodes, pd.DataFrame) and list(r.nodes.columns) == NODES
    assert list(r.flows.columns)[:4] == FLOWS
    assert list(r.latency.columns) == LATENCY
    assert list(r.buffers.columns) == BUFFERS
    assert r.nodes is r.nodes  # read once, cached


def test_buffers_absent_is_none(tmp_path):
    r = lnsim.load_results(write_fake_results(tmp_path / "f", buffers=False))
    assert r.buffers is None


def test_load_results_not_a_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        lnsim.load_results(tmp_path)


def test_validate_good():
    report = lnsim.validate(ZERU_A)
    assert isinstance(report, str) and report.strip()


def test_validate_unknown_key_raises_scenario_error():
    with pytest.raises(lnsim.ScenarioError, match="bogus"):
        lnsim.validate(ZERU_A, ["switch.bogus=1"])


def test_validate_bad_unit_is_a_value_error():
    with pytest.raises(ValueError, match="sim.end_time"):
        lnsim.validate(ZERU_A, {"sim.end_time": "3parsecs"})


def test_run_bad_input_writes_nothing(tmp_path):
    with pytest.raises(lnsim.ScenarioError):
        lnsim.run(ZERU_A, overrides=["switch.bogus=1"], out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_run_returns_dataframes(tmp_path):
    r = lnsim.run(ZERU_A, overrides={"sim.end_time": "0.02s", "sim.warmup": "0.01s"}, seed=5, out=tmp_path / "x")
    assert isinstance(r, lnsim.RunResult)
    assert r.out_dir == tmp_path / "x"
    assert r.summary["seed"] == 5
    assert r.summary["sim_time_s"] == pytest.approx(0.02)
    assert list(r.nodes.columns) == NODES
    assert list(r.flows.columns)[:2] == FLOWS[:2] and set(FLOWS) <= set(r.flows.columns)
    assert list(r.latency.columns) == LATENCY
    assert list(r.buffers.columns) == BUFFERS
    # zeru_a: H112 floods H221 from t = 0
    tx = r.nodes.groupby("node")["tx_bytes"].sum()
    assert tx["H112"] > 0
    same = lnsim.load_results(r.out_dir)
    assert same.summary == r.summary
    pd.testing.assert_frame_equal(same.nodes, r.nodes)
