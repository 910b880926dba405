"""`lnsim tune`: an Optuna study of the IB CC parameters on a small fabric and workload. With a
fixed seed and a small budget it finds settings at least as good on its objective as a run of the
default settings; a second invocation continues the study without running a finished trial
again; the best settings become OpenSM configuration lines; bad objective or search-space input
exits 2 naming the key."""

from __future__ import annotations

import csv
import json

import lnsim
import pytest
from conftest import SCENARIOS, lnsim_cmd
from lnsim._results import flatten_summary
from lnsim.opensm_cc import cct_entries, write_conf
from lnsim.tune import DEFAULT_SPACE, parse_objective, pareto_front, tune

SCENARIO = SCENARIOS / "tune" / "incast_victim.toml"
#: A shorter run of the shipped example (the tests' budget).
SHORT = ["sim.end_time=1.5ms", "sim.warmup=0.5ms"]
OBJECTIVE = "max jobs.victim.rx_gbps_window; throughput.rx_gbps_after_warmup >= 95% off"


def test_tune_beats_the_default_settings_and_resumes_without_rerunning(tmp_path):
    out = tmp_path / "tune"
    r = tune(SCENARIO, OBJECTIVE, 6, out, overrides=SHORT, jobs=2, seed=1, progress=False)
    assert r["trials"] == 6 and r["simulated_runs"] == 8 and r["best"] is not None
    # the default settings, run on their own, scored by the same objective
    obj = parse_objective(OBJECTIVE)
    off = flatten_summary(lnsim.run(SCENARIO, overrides=SHORT, out=tmp_path / "off").summary)
    default = flatten_summary(lnsim.run(SCENARIO, overrides=[*SHORT, "cc.enabled=true"], out=tmp_path / "d").summary)
    d_value, _, d_cons = obj.evaluate(default, off)
    assert r["best"]["objective"] >= d_value, (r["best"], d_value)
    assert r["default"]["objective"] == d_value
    best_cons = obj.evaluate(flatten_summary(json.loads((out / r["best"]["run"] / "summary.json").read_text())), off)[2]
    assert all(c <= 0 for c in best_cons)

    # every trial is a run folder, listed in trials.csv with its settings, terms and flags
    rows = list(csv.DictReader((out / "trials.csv").open()))
    assert [int(x["trial"]) for x in rows] == list(range(6))
    assert all((out / x["run"] / "summary.json").is_file() for x in rows)
    assert sum(x["best"] == "True" for x in rows) == 1 and any(x["pareto"] == "True" for x in rows)
    assert (out / "tradeoff.png").read_bytes()[:4] == b"\x89PNG"
    conf = (out / "opensm-cc.conf").read_text()
    st = r["best"]["settings"]
    assert f"cc_sw_cong_setting_threshold 0x{st['cc.threshold']:X}\n" in conf
    assert f"cc_ca_cong_setting_ccti_timer 0 {st['cc.ccti_timer']}\n" in conf
    cct = next(line for line in conf.splitlines() if line.startswith("cc_cct "))
    assert len(cct.split(",")) == st["cc.ccti_limit"] + 1

    # a second invocation continues: only the new trials run, the old ones are not touched
    mtime = (out / "trials" / "0000" / "summary.json").stat().st_mtime_ns
    r2 = tune(SCENARIO, OBJECTIVE, 8, out, overrides=SHORT, jobs=2, seed=1, progress=False)
    assert r2["trials"] == 8 and r2["simulated_runs"] == 2 and r2["reused_runs"] == 2
    assert (out / "trials" / "0000" / "summary.json").stat().st_mtime_ns == mtime
    rows2 = list(csv.DictReader((out / "trials.csv").open()))
    assert rows2[:6] == [dict(x, pareto=y["pareto"], best=y["best"]) for x, y in zip(rows, rows2[:6])]
    # asking for what is already there runs nothing
    r3 = tune(SCENARIO, OBJECTIVE, 8, out, overrides=SHORT, jobs=2, seed=1, progress=False)
    assert r3["simulated_runs"] == 0 and r3["best"] == r2["best"]

    # `lnsim plot` draws a tune folder's figures again, from trials.csv and best.json, elsewhere
    figs = tmp_path / "figs"
    p = lnsim_cmd("plot", out, "--out", figs)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(figs / "tradeoff.png"), str(figs / "parameters.png")]
    for name in ("tradeoff.png", "parameters.png"):
        assert (figs / name).read_bytes()[:4] == b"\x89PNG" and (out / name).is_file()
    assert json.loads((out / "best.json").read_text())["searched"] == list(DEFAULT_SPACE)
    p = lnsim_cmd("plot", out, "--metric", "objective")
    assert p.returncode == 2 and "tune folder" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "tune.db").write_bytes(b"")
    p = lnsim_cmd("plot", tmp_path / "half")
    assert p.returncode == 2 and "not a tune folder with finished trials" in p.stderr, p.stderr


def test_same_seed_same_trials(tmp_path):
    a = tune(SCENARIO, OBJECTIVE, 3, tmp_path / "a", overrides=SHORT, jobs=2, seed=7, progress=False)
    b = tune(SCENARIO, OBJECTIVE, 3, tmp_path / "b", overrides=SHORT, jobs=2, seed=7, progress=False)
    strip = lambda p: [{k: v for k, v in row.items() if k != "run"} for row in csv.DictReader(p.open())]  # noqa: E731
    assert strip(tmp_path / "a" / "trials.csv") == strip(tmp_path / "b" / "trials.csv")
    assert a["best"]["settings"] == b["best"]["settings"]


@pytest.mark.parametrize(
    "objective, words",
    [
        ("", "empty"),
        ("jobs.victim.rx_gbps_window", "begins with `max` or `min`"),
        ("max 2*", "cannot read the sum"),
        ("max a.b; a.b > 3", "a constraint is FIELD >= VALUE"),
        ("max a.b; a.b >= x% off", "a constraint is FIELD >= VALUE"),
    ],
)
def test_bad_objective_exits_2_naming_it(tmp_path, objective, words):
    p = lnsim_cmd("tune", SCENARIO, "--objective", objective, "--trials", "2", "--out", tmp_path / "t")
    assert p.returncode == 2 and "--objective" in p.stderr and words in p.stderr, p.stderr
    assert not (tmp_path / "t").exists()


def test_objective_field_missing_from_the_summary_exits_2(tmp_path):
    p = lnsim_cmd("tune", SCENARIO, "--objective", "max jobs.nobody.rx_gbps_window", "--trials", "2",
                  "--out", tmp_path / "t", *[a for s in SHORT for a in ("--set", s)])
    assert p.returncode == 2, p.stderr
    assert "`jobs.nobody.rx_gbps_window` is not a field of summary.json" in p.stderr
    assert "jobs.victim.rx_gbps_window" in p.stderr  # the fields it could have named


@pytest.mark.parametrize(
    "space, words",
    [
        ('[space]\n"cc.threshold" = { low = 9, high = 2 }\n', 'key `space."cc.threshold"`: low 9 > high 2'),
        ('[space]\n"cc.bogus" = { low = 1, high = 2 }\n', 'key `space."cc.bogus"`: not a parameter'),
        ('[space]\n"cc.ccti_limit" = { low = 1, high = 300 }\n', "more than OpenSM's CCTI_Limit"),
        ('[space]\n"cct.shape" = { choices = ["cubic"] }\n', "choices must be among linear, quadratic"),
        ('[space]\n"cc.threshold" = { low = 1, hi = 2 }\n', "unknown field `hi`"),
        ('[spaces]\n', "unknown table or key `spaces`"),
        ('[space]\n"cc.marking_rate" = { low = -3, high = 4 }\n',
         "`low` end of the search space is refused: --set cc.marking_rate=-3: key `cc.marking_rate`"),
    ],
)
def test_bad_search_space_exits_2_naming_the_key(tmp_path, space, words):
    f = tmp_path / "space.toml"
    f.write_text(space)
    p = lnsim_cmd("tune", SCENARIO, "--objective", "max jobs.victim.rx_gbps_window", "--trials", "2",
                  "--out", tmp_path / "t", "--space", f)
    assert p.returncode == 2 and "--space" in p.stderr and words in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_pareto_front_and_cct_quantisation():
    pts = [{"a": 1, "b": 5}, {"a": 2, "b": 4}, {"a": 1, "b": 4}, {"a": 3, "b": 1}]
    assert pareto_front(pts, {"a": 1, "b": 1}) == [True, True, False, True]
    assert pareto_front(pts, {"a": -1, "b": 1}) == [True, False, False, False]
    # the finest shift that keeps the 14-bit multiplier; IRD = multiplier * 2^-shift
    assert cct_entries([0, 0.125, 1.3, 3000, 1e9]) == [(3, 0), (3, 1), (3, 10), (2, 12000), (0, 16383)]
    conf, notes = write_conf({"cc.threshold": 13, "cc.marking_rate": 10, "cc.ccti_timer": 20, "cc.ccti_limit": 2,
                              "cc.ccti_increase": 300}, [(0, 0), (3, 1), (3, 2), (3, 3)], {"victim_mask": True})
    assert "cc_sw_cong_setting_control_map 0x15\n" in conf and "cc_cct 0:0,3:1,3:2\n" in conf
    assert "cc_ca_cong_setting_ccti_increase 0 255\n" in conf and any("300" in n for n in notes)
