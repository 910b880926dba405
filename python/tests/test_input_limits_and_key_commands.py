"""Input limits and the key commands: sizes the schema accepts never abort the process (they
are refused, exit 2, or fit the memory estimate); seeds out of range are input errors;
`validate` refuses what `run` refuses; `list`, `keys` and `schema` describe the format, with
the names scenarios write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import lnsim

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"

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

CYCLE = """\
[sim]
warmup_cycles = 100
measure_cycles = 200
[topology]
kind = "mesh"
dims = [4, 4]
hcas_per_switch = 1
[traffic]
pattern = "uniform"
load = 0.1
"""


def lnsim_cmd(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lnsim", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ---------------------------------------------------------------------------------------------
# no input aborts the process; the memory estimate


#: The start of the message that refuses a scenario for its memory.
NEEDS = "memory: this scenario needs about "

# (scenario, --set overrides, text the message must name, extra arguments)
CRASHERS = [
    ("ib", ["topology.dims=[400,400]"], NEEDS, ["--max-memory", "8GiB"]),
    ("ib", ["topology.dims=[65536,3]"], NEEDS, []),
    ("cycle", ["router.latency=2147483648"], "router.latency", []),
    ("cycle", ["router.local_latency=4294967295"], "router.local_latency", []),
    # more found while auditing: each used to abort, overflow or allocate without bound
    ("cycle", ["topology.dims=[512,512]", "sim.measure_cycles=1000000000000", "router.injection_queue_phits=10000000",
               "traffic.load=1", "stats.bin_cycles=1000000000"], NEEDS, []),
    # a simple range comes before the memory estimate (which it would fail too)
    ("cycle", ["sim.measure_cycles=1000000000000"], "stats.bin_cycles: sim.warmup_cycles + sim.measure_cycles", []),
    ("cycle", ["router.local_latency=4000000000", "routing.algorithm=pb"], "router.local_latency", []),
    ("ib", ["cc.ccti_limit=4294967295"], "cc.ccti_limit", []),
    ("ib", ["cc.ccti_increase=4000000000"], "cc.ccti_increase", []),
    ("ib", ["sim.interval=1ps", "sim.end_time=10ms"], "sim.interval: gives more than 10 million intervals", []),
    ("ib", ["sim.interval=0s", "sim.end_time=0.7s"], "sim.interval: must be positive", []),
    ("ib", ["traffic.message_bytes=1024GiB"], "traffic.message_bytes", []),
    ("cycle", ["traffic.packet_phits=4294967295"], "traffic.packet_phits", []),
]


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", CRASHERS, ids=lambda c: " ".join(c[1]))
def test_sizes_that_used_to_abort_exit_2_naming_the_key(tmp_path, command, case):
    base, overrides, key, extra = case
    scen = write(tmp_path, "s.toml", IB if base == "ib" else CYCLE)
    args = [command, str(scen), *(a for o in overrides for a in ("--set", o)), *extra]
    if command == "run":
        args += ["--out", str(tmp_path / "out"), "--no-plot"]
    r = lnsim_cmd(*args)
    assert r.returncode == 2, r.stderr
    assert key in r.stderr and "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_range_errors_name_the_key_and_the_allowed_range(tmp_path):
    scen = write(tmp_path, "s.toml", CYCLE)
    r = lnsim_cmd("validate", str(scen), "--set", "router.latency=2147483648")
    assert "key `router.latency`: 2147483648 is outside the allowed range: integer 1 … 100,000 cycles" in r.stderr


def test_validate_states_the_memory_estimate(tmp_path):
    for text in (IB, CYCLE):
        r = lnsim_cmd("validate", str(write(tmp_path, "s.toml", text)))
        assert r.returncode == 0, r.stderr
        assert "memory: about " in r.stdout and "available" in r.stdout, r.stdout


def test_max_memory_refuses_in_run_validate_sweep_and_the_api(tmp_path):
    scen = write(tmp_path, "s.toml", IB + '\n[sweep]\n"sim.seed" = [1, 2]\n')
    for args in (
        ["validate", str(scen), "--max-memory", "1MB"],
        ["run", str(scen), "--max-memory", "1MB", "--out", str(tmp_path / "o"), "--no-plot"],
        ["sweep", str(scen), "--max-memory", "1MB", "--out", str(tmp_path / "sw"), "--no-plot"],
    ):
        r = lnsim_cmd(*args)
        assert r.returncode == 2 and "more than --max-memory allows" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "sw").exists()
    with pytest.raises(lnsim.ScenarioError, match="--max-memory"):
        lnsim.run(scen, max_memory=1000, out=tmp_path / "o")
    with pytest.raises(lnsim.ScenarioError, match="--max-memory"):
        lnsim.validate(scen, max_memory="1MB")
    with pytest.raises(lnsim.ScenarioError, match="max_memory"):
        lnsim.validate(scen, max_memory=True)
    r = lnsim_cmd("validate", str(scen), "--max-memory", "lots")
    assert r.returncode == 2 and "--max-memory lots" in r.stderr
    assert "memory: about" in lnsim.validate(scen, max_memory="4GiB")


def test_a_sweep_runs_only_as_many_points_at_once_as_fit_in_memory(tmp_path):
    scen = write(tmp_path, "s.toml", IB + '\n[sweep]\n"sim.seed" = [1, 2]\n')
    one = lnsim.estimate_memory(scen)["total"]
    r = lnsim_cmd("sweep", str(scen), "--jobs", "2", "--max-memory", str(one + one // 2),
                  "--out", str(tmp_path / "sw"), "--no-plot")
    assert r.returncode == 0, r.stderr
    assert "running at most 1 at once, not 2" in r.stderr, r.stderr


def _peak_rss_of_run(scen: Path, overrides, out: Path) -> int:
    """Peak resident memory (bytes) of a process that runs the scenario through lnsim.run: its
    VmHWM (ru_maxrss would include the peak of the forking parent, kept across exec)."""
    code = textwrap.dedent(
        f"""
        import lnsim
        lnsim.run({str(scen)!r}, overrides={list(overrides)!r}, out={str(out)!r})
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                print(int(line.split()[1]) * 1024)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().splitlines()[-1])


# The peak resident memory this test compares with the estimate is read from /proc (Linux only);
# where /proc is absent (macOS) there is nothing to measure, so the test cannot run there.
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
@pytest.mark.parametrize(
    "scen,overrides",
    [
        # credit-level model: statistics and results files of 5,000 intervals dominate
        ("ib", ["topology.dims=[8,8]", "sim.end_time=100us", "sim.interval=20ns"]),
        # cycle-level model: a Dragonfly's packets, events and start-up checks
        (SCENARIOS / "dragonfly" / "h4_un.toml", ["sim.warmup_cycles=1000", "sim.measure_cycles=3000"]),
        # HoL study, VOQnet with 1 KiB per queue (spec B.5 mode B) on a short run: the packets
        # the run can create, not the buffers' capacity, bound the live packets
        (SCENARIOS / "hol" / "bmin512_6b.toml", ['switch.queue_mapping="voq_net"', "switch.dbbm_queues=0",
                                                 'switch.static_mode="per_queue"', 'switch.queue_bytes="1KiB"',
                                                 'sim.end_time="20us"', 'sim.warmup="10us"']),
    ],
    ids=["credit", "cycle", "hol-voqnet"],
)
def test_memory_estimate_is_above_the_measured_peak_and_within_a_factor_of_two_and_a_half(tmp_path, scen, overrides):
    if scen == "ib":
        scen = write(tmp_path, "s.toml", IB)
    est = lnsim.estimate_memory(scen, overrides)["total"]
    peak = _peak_rss_of_run(scen, overrides, tmp_path / "out")
    assert peak <= est <= 2.5 * peak, (est, peak)


# ---------------------------------------------------------------------------------------------
# seeds


@pytest.mark.parametrize("seed", ["-1", "18446744073709551615", "18446744073709551616", "9223372036854775808"])
def test_seeds_out_of_range_exit_2_in_run_and_sweep(tmp_path, seed):
    scen = write(tmp_path, "s.toml", IB + '\n[sweep]\n"sim.end_time" = ["10us", "20us"]\n')
    r = lnsim_cmd("run", str(scen), f"--seed={seed}", "--out", str(tmp_path / "o"), "--no-plot")
    assert r.returncode == 2 and f"--seed {seed}: outside the allowed range 0 … 9223372036854775807" in r.stderr, r.stderr
    r = lnsim_cmd("sweep", str(scen), f"--seed={seed}", "--out", str(tmp_path / "sw"), "--no-plot")
    assert r.returncode == 2 and f"--seed {seed}" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "sw").exists()


def test_seeds_out_of_range_raise_scenario_error_in_the_api(tmp_path):
    scen = write(tmp_path, "s.toml", IB)
    for seed in (-1, 2**64 - 1, 2**64, 2**70):
        with pytest.raises(lnsim.ScenarioError, match="outside the allowed range"):
            lnsim.run(scen, seed=seed, out=tmp_path / "o")
    with pytest.raises(lnsim.ScenarioError, match="whole number"):
        lnsim.run(scen, seed=1.5, out=tmp_path / "o")
    with pytest.raises(lnsim.ScenarioError, match="--seed -1"):
        lnsim.sweep(scen, grid={"sim.end_time": ["10us", "20us"]}, seed=-1, out=tmp_path / "sw")
    with pytest.raises(lnsim.ScenarioError, match="largest seed"):
        lnsim.sweep(scen, grid={"sim.end_time": ["10us"]}, seed=2**63 - 2, seeds=3, out=tmp_path / "sw")
    assert not (tmp_path / "o").exists() and not (tmp_path / "sw").exists()
    # the largest seed itself is fine
    assert lnsim.run(scen, seed=2**63 - 1, out=tmp_path / "ok").summary["seed"] == 2**63 - 1


def test_sweeps_too_large_to_list_are_refused_before_anything_runs(tmp_path):
    scen = write(tmp_path, "s.toml", IB)
    r = lnsim_cmd("sweep", str(scen), "--grid", "sim.end_time=10us,20us", "--seeds", "2000000",
                  "--out", str(tmp_path / "sw"), "--no-plot")
    assert r.returncode == 2 and "--seeds 2000000" in r.stderr, r.stderr
    grid = {"sim.seed": list(range(1001)), "sim.end_time": [f"{i}us" for i in range(1, 1001)]}
    with pytest.raises(lnsim.ScenarioError, match="1001 × 1000 = 1001000 points"):
        lnsim.sweep(scen, grid=grid, out=tmp_path / "sw")
    assert not (tmp_path / "sw").exists()


@pytest.mark.parametrize(
    "how", [["--set", "sim.seed=-1"], ["--set", "sim.seed=18446744073709551616"], ["file"]], ids=["-1", "2^64", "file"]
)
def test_sim_seed_out_of_range_in_the_file_or_set_exits_2(tmp_path, how):
    text = IB.replace("[sim]\n", "[sim]\nseed = -5\n") if how == ["file"] else IB
    scen = write(tmp_path, "s.toml", text)
    args = [] if how == ["file"] else how
    for cmd in (["validate"], ["run", "--no-plot", "--out", str(tmp_path / "o")]):
        r = lnsim_cmd(cmd[0], str(scen), *args, *cmd[1:])
        assert r.returncode == 2 and "sim.seed" in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------
# validate and run agree


AGREE = [
    ("ib", ["stats.fairness_sources=[\"H999\"]"], "stats.fairness_sources[0]"),
    ("ib", ["stats.fairness_sources=[\"SW11\"]"], "stats.fairness_sources[0]"),
    ("ib", ["traffic.generators[0].vl=2"], "traffic.generators[0].vl"),
    ("ib", ["switch.vls=16"], "switch.vls"),
    ("ib", ["sim.warmup=1ms"], "sim.warmup"),
    ("ib", ["routing.algorithm=dmodk"], "routing.algorithm"),
    ("ib", ["sim.measure_cycles=0"], "sim.measure_cycles"),
    ("cycle", ["routing.algorithm=ugal"], "routing.algorithm"),
    ("cycle", ["traffic.pattern=adv"], "traffic.pattern"),
    ("cycle", ["router.local_buffer_phits=5"], "router.local_buffer_phits"),
    ("cycle", ["routing.dateline=false"], "routing.dateline"),
]


@pytest.mark.parametrize("case", AGREE, ids=lambda c: " ".join(c[1]))
def test_validate_and_run_exit_2_with_the_same_message(tmp_path, case):
    base, overrides, key = case
    scen = write(tmp_path, "s.toml", IB if base == "ib" else CYCLE)
    sets = [a for o in overrides for a in ("--set", o)]
    v = lnsim_cmd("validate", str(scen), *sets)
    r = lnsim_cmd("run", str(scen), *sets, "--out", str(tmp_path / "o"), "--no-plot")
    assert v.returncode == r.returncode == 2, (v.stderr, r.stderr)
    assert v.stderr == r.stderr and key in v.stderr, (v.stderr, r.stderr)
    assert not (tmp_path / "o").exists()


def test_validate_prints_the_names_scenarios_write(tmp_path):
    out = lnsim.validate(SCENARIOS / "dragonfly" / "h4_un.toml", ["routing.algorithm=ugal"])
    assert "routing: ugal (lgl)" in out and "Ugal" not in out, out
    out = lnsim.validate(write(tmp_path, "s.toml", CYCLE), ["routing.algorithm=vlb"])
    assert "routing: vlb" in out and "MeshVlb" not in out, out
    out = lnsim.validate(SCENARIOS / "bench" / "fat_tree_648.toml")
    assert "topology: fat_tree" in out and "routing: dmodk" in out and "FatTree" not in out, out
    r = lnsim_cmd("validate", str(write(tmp_path, "s.toml", CYCLE)), "--set", "topology.kind=fat_tree")
    assert r.returncode == 2 and "FatTree" not in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------
# list, keys, schema


def test_list_shows_every_category_with_its_model():
    r = lnsim_cmd("list")
    assert r.returncode == 0, r.stderr
    for title in ("topologies: topology.kind", "routings: routing.algorithm", "traffic patterns", "congestion control"):
        assert title in r.stdout
    lines = {line.split()[0]: line for line in r.stdout.splitlines() if line.startswith("  ")}
    assert "cycle-level model" in lines["dragonfly"] and "credit-level model" in lines["fat_tree"]
    assert "both models" in lines["mesh"] and "cycle-level model" in lines["ugal"]
    assert "credit-level model" in lines["ib"] and "tornado" in lines
    r = lnsim_cmd("list", "routing")
    assert r.returncode == 0 and "dmodk" in r.stdout and "dragonfly" not in r.stdout
    r = lnsim_cmd("list", "flavours")
    assert r.returncode == 2 and "model, topology, routing, pattern, cc" in r.stderr


def test_list_cc_shows_every_mechanism_and_queue_mapping_with_its_key():
    r = lnsim_cmd("list", "cc")
    assert r.returncode == 0, r.stderr
    lines = {line.split()[0]: line for line in r.stdout.splitlines() if line.startswith("  ")}
    # every value the scenario format accepts for the keys that choose a mechanism (the schema's
    # own enums), each with the model that has it and the key that selects it
    schema = lnsim.scenario_schema()["properties"]
    for table, key in (("cc", "mechanism"), ("switch", "queue_mapping")):
        allowed = schema[table]["properties"][key]["enum"]
        assert allowed, key
        for value in allowed:
            assert value in lines, f"{table}.{key} = {value!r} is missing from `lnsim list cc`:\n{r.stdout}"
            assert f'{table}.{key} = "{value}"' in lines[value] and "credit-level model" in lines[value]
    assert "cc.enabled = false" in lines["none"]
    assert "detects" in lines["ddbbm"] and "ddbbm.frame" in lines["ddbbm"]  # DDBBM with its detection


def test_keys_lists_type_unit_default_range_and_doc():
    r = lnsim_cmd("keys", "router.latency")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "router.latency",
        "    integer 1 … 100,000 cycles; default 90; cycle-level model",
        "    port-to-port router latency of a packet head (Table 3-1: 90 ns)",
    ]
    r = lnsim_cmd("keys")
    paths = [line for line in r.stdout.splitlines() if not line.startswith(" ")]
    assert len(paths) == len(lnsim.keys()) > 100
    for prefix, inside in (("traffic.flows", "traffic.flows[].src"), ("links.host", "links.<class>.rate"),
                           ("traffic.flows[0]", "traffic.flows[].vl"), ("cc", "cc.cct.div")):
        assert inside in lnsim_cmd("keys", prefix).stdout
    r = lnsim_cmd("keys", "routing.nope")
    assert r.returncode == 2 and "no key" in r.stderr
    k = {k["path"]: k for k in lnsim.keys("sim")}
    assert k["sim.seed"]["min"] == 0 and k["sim.seed"]["max"] == 2**63 - 1 and k["sim.seed"]["kind"] == "integer"


def test_configuration_reference_is_lnsim_keys_markdown():
    table = lnsim_cmd("keys", "--markdown").stdout.strip()
    assert table in (REPO / "docs" / "configuration.md").read_text()


def _schema(tmp_path) -> dict:
    out = tmp_path / "lnsim.schema.json"
    r = lnsim_cmd("schema", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(lnsim_cmd("schema").stdout) == json.loads(out.read_text())
    return json.loads(out.read_text())


def test_every_shipped_scenario_validates_against_the_json_schema(tmp_path):
    import jsonschema  # a test dependency (pyproject.toml [test], constraints.txt)

    schema = _schema(tmp_path)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    files = sorted(SCENARIOS.rglob("*.toml"))
    assert len(files) > 20
    for f in files:
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(tomllib.loads(f.read_text()))]
        assert not errors, (f, errors)


@pytest.mark.parametrize(
    "edit,where",
    [
        (lambda d: d["sim"].update(bogus=1), "bogus"),
        (lambda d: d["topology"].update(kind="hypercube"), "hypercube"),
        (lambda d: d["sim"].update(end_time="3 parsecs"), "3 parsecs"),
        (lambda d: d["sim"].update(seed=-1), "-1"),
        (lambda d: d.setdefault("router", {}).update(latency=2147483648), "2147483648"),
        (lambda d: d["topology"].update(dims=[0, 4]), "0"),
        (lambda d: d.pop("topology"), "topology"),
        (lambda d: d.setdefault("traffic", {}).setdefault("flows", [{}]).__setitem__(0, {"src": "H111"}), "dst"),
        (lambda d: d.setdefault("cc", {}).update(victim_mask="fabric_ports"), "fabric_ports"),
        (lambda d: d.setdefault("links", {}).setdefault("host", {}).update(speed="ZDR"), "ZDR"),
        (lambda d: d["topology"].update(k=4), "'k'"),
        (lambda d: d.setdefault("cc", {}).update(ird_step="5us"), "'ird_step'"),
    ],
    ids=["unknown key", "unknown kind", "bad unit", "negative seed", "range", "zero dim", "no topology",
         "flow without dst", "victim mask", "link speed", "key of another topology kind",
         "key of another cc mechanism"],
)
def test_bad_scenarios_do_not_validate_against_the_json_schema(tmp_path, edit, where):
    import jsonschema

    validator = jsonschema.Draft7Validator(_schema(tmp_path))
    doc = tomllib.loads((SCENARIOS / "ibcc" / "zeru_a.toml").read_text())
    assert not list(validator.iter_errors(doc))
    edit(doc)
    errors = list(validator.iter_errors(doc))
    assert errors and any(where in e.message or where in str(list(e.path)) for e in errors), [e.message for e in errors]


def test_schema_out_never_replaces_a_file_it_did_not_write(tmp_path):
    mine = tmp_path / "notes.json"
    mine.write_text('{"title": "my notes"}')
    r = lnsim_cmd("schema", "--out", str(mine))
    assert r.returncode == 2 and "not a schema lnsim wrote" in r.stderr
    assert mine.read_text() == '{"title": "my notes"}'
    r = lnsim_cmd("schema", "--out", str(tmp_path))
    assert r.returncode == 2 and "is a folder" in r.stderr
    r = lnsim_cmd("schema", "--out", str(tmp_path / "missing" / "s.json"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    ours = tmp_path / "s.json"
    assert lnsim_cmd("schema", "--out", str(ours)).returncode == 0
    assert lnsim_cmd("schema", "--out", str(ours)).returncode == 0  # its own file: replaced
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_python_api_exposes_the_same_metadata():
    schema = lnsim.scenario_schema()
    assert schema["title"] == "lnsim scenario"
    assert schema["properties"]["router"]["properties"]["latency"]["maximum"] == 100_000
    assert {k["path"] for k in lnsim.keys()} >= {"sim.seed", "router.latency", "traffic.flows[].src"}
    est = lnsim.estimate_memory(SCENARIOS / "ibcc" / "zeru_a.toml")
    assert est["total"] > 0 and est["parts"] and all(isinstance(n, str) for n, _ in est["parts"])
