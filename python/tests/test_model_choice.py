"""The model a scenario runs on: `sim.model` names it (`credit`, or `infiniband`, its former
name; `cycle`), inferred as before when absent, and `validate` says so; a key of the other model
is refused by the loader and by the JSON Schema, naming the key and the model it belongs to;
enum-like keys name their allowed values; summary.json of both models records the model."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import SCENARIOS, SHORT, ZERU_A, dragonfly_toml, lnsim_cmd

IB = """\
[sim]
end_time = "10us"
[topology]
kind = "mesh"
dims = [2, 2]
hcas_per_switch = 1
[[traffic.generators]]
sources = "all"
"""


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_every_shipped_scenario_names_its_model():
    files = sorted(SCENARIOS.rglob("*.toml"))
    assert len(files) > 20
    for f in files:
        model = tomllib.loads(f.read_text())["sim"].get("model")
        assert model in ("credit", "cycle"), f


def test_validate_says_the_model_and_when_it_was_inferred(tmp_path):
    r = lnsim_cmd("validate", SCENARIOS / "mesh" / "mesh8_uniform.toml")
    assert r.returncode == 0, r.stderr
    assert "  model: cycle (from sim.model)" in r.stdout.splitlines()
    r = lnsim_cmd("validate", write(tmp_path, "ib.toml", IB))
    assert r.returncode == 0, r.stderr
    assert (
        "  model: credit (sim.model not given: inferred credit from the absence of "
        'sim.measure_cycles and of a Dragonfly; add sim.model = "credit")'
    ) in r.stdout.splitlines()
    r = lnsim_cmd("validate", write(tmp_path, "df.toml", dragonfly_toml()))
    assert r.returncode == 0, r.stderr
    assert "inferred cycle from sim.measure_cycles; add sim.model = \"cycle\"" in r.stdout


@pytest.mark.parametrize(
    "scenario,sets,needle",
    [
        (ZERU_A, ["sim.measure_cycles=100"], "key `sim.measure_cycles`: belongs to the cycle-level model"),
        (ZERU_A, ["router.latency=90"], "table `router`: belongs to the cycle-level model"),
        (ZERU_A, ["sim.model=cycle"], "belongs to the credit-level model"),
        (SCENARIOS / "dragonfly" / "h4_un.toml", ["cc.enabled=true"], "table `cc`: belongs to the credit-level model"),
        (SCENARIOS / "dragonfly" / "h4_un.toml", ["sim.model=credit"], "key `topology.kind` = \"dragonfly\""),
        (SCENARIOS / "dragonfly" / "h4_un.toml", ["sim.model=infiniband"], "runs the credit-level model "
         '(sim.model = "infiniband", the former name of "credit")'),
    ],
)
def test_a_key_of_the_other_model_is_refused_naming_key_and_model(scenario, sets, needle):
    args = [a for s in sets for a in ("--set", s)]
    r = lnsim_cmd("validate", scenario, *args)
    assert r.returncode == 2, r.stdout
    assert needle in r.stderr, r.stderr


@pytest.mark.parametrize(
    "key,value,allowed",
    [
        ("sim.model", "ib", '"credit", "cycle"'),
        ("cc.level", "flow", '"qp", "sl"'),
        ("cc.threshold_mode", "max", '"per_voq", "sum", "sum_divided"'),
        ("cc.cct.algorithm", "log", '"linear", "rate_linear", "quadratic", "file"'),
        ("cc.victim_mask", "fabric_ports", 'true, false, "host_ports"'),
        ("traffic.generators[0].destination_per", "flit", '"message", "packet"'),
        ("topology.port_numbering", "xy", '"zeru", "dimension"'),
    ],
)
def test_an_unknown_value_names_the_key_and_the_allowed_values(tmp_path, key, value, allowed):
    r = lnsim_cmd("validate", write(tmp_path, "ib.toml", IB), "--set", f"{key}={value}")
    assert r.returncode == 2, r.stdout
    assert f"key `{key}`: unknown value \"{value}\"; allowed: {allowed}" in r.stderr, r.stderr


def test_unknown_cycle_level_values_name_the_allowed_ones():
    h4 = SCENARIOS / "dragonfly" / "h4_un.toml"
    r = lnsim_cmd("validate", h4, "--set", "routing.vlb_policy=lgg")
    assert r.returncode == 2 and 'key `routing.vlb_policy`: unknown value "lgg"; allowed: "lgl", "lg-", "-gl", "-g-"' in r.stderr
    r = lnsim_cmd("validate", h4, "--set", "traffic.pattern=random")
    assert r.returncode == 2 and 'key `traffic.pattern`: unknown value "random"; allowed: "uniform", "adv"' in r.stderr


def test_the_json_schema_refuses_keys_of_the_named_model_s_other(tmp_path):
    import jsonschema

    out = tmp_path / "s.json"
    assert lnsim_cmd("schema", "--out", out).returncode == 0
    schema = json.loads(out.read_text())
    assert schema["properties"]["sim"]["properties"]["model"]["enum"] == ["credit", "cycle", "infiniband"]
    v = jsonschema.Draft7Validator(schema)
    ib = tomllib.loads(ZERU_A.read_text())
    assert not list(v.iter_errors(ib))
    ib.setdefault("router", {})["latency"] = 90
    # (jsonschema reports a refusing `false` subschema without the path to it)
    assert any(e.message == "False schema does not allow {'latency': 90}" for e in v.iter_errors(ib))
    df = tomllib.loads((SCENARIOS / "dragonfly" / "h4_un.toml").read_text())
    assert not list(v.iter_errors(df))
    df["sim"]["end_time"] = "1ms"
    assert any(e.message == "False schema does not allow '1ms'" for e in v.iter_errors(df))
    # without sim.model the schema cannot tell the model: the loader infers it
    del df["sim"]["model"]
    assert not list(v.iter_errors(df))


def test_summary_records_the_model_of_both_wings(tmp_path):
    import lnsim

    r = lnsim_cmd("run", ZERU_A, *SHORT, "--out", tmp_path / "ib", "--no-plot")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "ib" / "summary.json").read_text())["model"] == "credit"
    assert lnsim.load_results(tmp_path / "ib").model == lnsim.MODEL_CREDIT == "credit"
    df = write(tmp_path, "df.toml", dragonfly_toml())
    r = lnsim_cmd("run", df, "--out", tmp_path / "df", "--no-plot")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "df" / "summary.json").read_text())["model"] == "cycle"


def test_the_credit_level_model_keeps_its_former_name_as_an_alias(tmp_path):
    import lnsim

    # a scenario that says "infiniband" runs the credit-level model, and validate says so
    old = write(tmp_path, "old.toml", IB.replace("[sim]\n", '[sim]\nmodel = "infiniband"\n'))
    r = lnsim_cmd("validate", old)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("OK (credit-level model)"), r.stdout
    assert '  model: credit (from sim.model = "infiniband", the former name of "credit")' in lines
    r = lnsim_cmd("run", old, "--out", tmp_path / "old", "--no-plot")
    assert r.returncode == 0, r.stderr
    summary = tmp_path / "old" / "summary.json"
    assert json.loads(summary.read_text())["model"] == "credit"
    # a results folder written under the former name reads as the credit-level model
    s = json.loads(summary.read_text())
    s["model"] = "infiniband"
    summary.write_text(json.dumps(s))
    assert lnsim.load_results(tmp_path / "old").model == "credit"
    assert lnsim.MODEL_INFINIBAND == lnsim.MODEL_CREDIT
    # keys, schema and list show the name and the alias
    (k,) = lnsim.keys("sim.model")
    assert k["allowed"] == ["credit", "cycle", "infiniband"] and "former name" in k["doc"]
    r = lnsim_cmd("keys", "sim.model")
    assert 'one of "credit", "cycle", "infiniband"' in r.stdout and "former name" in r.stdout
    r = lnsim_cmd("list", "model")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "models: sim.model"
    credit = next(line for line in lines if line.split()[:1] == ["credit"])
    assert "credit-level model" in credit and '"infiniband", its former name' in credit
    assert any(line.split()[:3] == ["cycle", "cycle-level", "model"] for line in lines)
