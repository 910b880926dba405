"""Bad input through the command: each case exits 2 with a message naming the key or the
file line, prints no traceback, and creates no results folder."""

from __future__ import annotations

import pytest

from conftest import lnsim_cmd

TINY = """
[scenario]
name = "tiny"
[sim]
end_time = "1ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 1
[[traffic.flows]]
src = "H111"
dst = "{dst}"
"""

# a cycle-level Dragonfly under priority flow control (802.1Qbb)
PFC = """
[sim]
warmup_cycles = 100
measure_cycles = 200
[topology]
kind = "dragonfly"
p = 2
[routing]
algorithm = "min"
[router]
flow_control = "pfc"
[traffic]
pattern = "uniform"
load = 0.1
"""

CASES = {
    # impossible topology: a mesh dimension of size zero
    "impossible_topology": (TINY.format(dst="H121"), {}, ["--set", "topology.dims=[0, 2]"], ["topology.dims"]),
    # a flow naming a node that does not exist
    "missing_node": (TINY.format(dst="H999"), {}, [], ["traffic.flows[0].dst", "H999"]),
    # a forwarding table pointing at a port the switch does not have
    "lft_missing_port": (
        TINY.format(dst="H121"),
        {"bad.fdbs": "SW11: 255 0 7\nSW12: 255 1 0\n"},
        ["--set", "routing.algorithm=lft_file", "--set", "routing.file=bad.fdbs"],
        ["bad.fdbs:1", "port 7"],
    ),
    # a forwarding table leaving the flow's destination unreachable
    "unreachable_destination": (
        TINY.format(dst="H121"),
        {"hole.fdbs": "SW11: 255 0 255\nSW12: 255 1 0\n"},
        ["--set", "routing.algorithm=lft_file", "--set", "routing.file=hole.fdbs"],
        ["unreachable", "H121", "SW11"],
    ),
    # an unknown key in the file itself
    "unknown_key_in_file": (TINY.format(dst="H121") + "[hca]\nbuffer_creditz = 3\n", {}, [],
                            ["s.toml: key `hca.buffer_creditz`: unknown key; did you mean `hca.buffer_credits`?"]),
    # an unknown key given with --set: named as the override's, with the nearest key
    "unknown_key_in_set": (TINY.format(dst="H121"), {}, ["--set", "sim.end_tme=2ms"],
                           ["--set sim.end_tme=2ms: key `sim.end_tme`: unknown key; did you mean `sim.end_time`?"]),
    # a table written as an array (read by position before), in the file and with --set
    "table_as_array_in_file": ("hca = [7]\n" + TINY.format(dst="H121"), {}, [],
                               ["s.toml: key `hca`: expected a table", "not given in order"]),
    "table_as_array_in_set": (TINY.format(dst="H121"), {}, ["--set", "sim=3"],
                              ["--set sim=3: key `sim`: expected a table (`[sim]`"]),
    # a set listing a node twice (counted twice in the fairness index before)
    "fairness_source_twice": (TINY.format(dst="H121") + '[stats]\nfairness_sources = ["H111", "H111"]\n', {}, [],
                              ['key `stats.fairness_sources[1]`: "H111" is listed twice']),
    # values with units: what is wrong, not an unknown unit
    "negative_duration": (TINY.format(dst="H121"), {}, ["--set", "sim.end_time=-1ms"],
                          ['--set sim.end_time=-1ms: key `sim.end_time`: duration "-1ms" is negative']),
    "exponent_duration": (TINY.format(dst="H121"), {}, ["--set", "sim.end_time=1e-30s"],
                          ['duration "1e-30s" uses exponent notation']),
    "negative_max_memory": (TINY.format(dst="H121"), {}, ["--max-memory=-1GB"],
                            ["--max-memory -1GB: is negative"]),
    # PFC: local buffers without room for the headroom above two packets, named with the keys
    "pfc_without_headroom": (PFC, {}, ["--set", "router.local_buffer_phits=100"],
                             ["router.local_buffer_phits", "router.local_latency d = 15",
                              "traffic.packet_phits L = 10", "router.pfc.pause_phits P = 13"]),
    # PFC keys under credits
    "pfc_keys_under_credits": (PFC.replace('flow_control = "pfc"', ""), {}, ["--set", "router.pfc.xoff_phits=500"],
                               ["router.pfc.xoff_phits: applies to router.flow_control = \"pfc\""]),
    # a value without a unit
    "duration_without_unit": (TINY.format(dst="H121").replace('"1ms"', '"1"'), {}, [], ["sim.end_time", "no unit"]),
}


@pytest.mark.parametrize("sub", ["run", "validate"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2(tmp_path, sub, case):
    text, files, args, names = CASES[case]
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    scen = tmp_path / "s.toml"
    scen.write_text(text)
    out = tmp_path / "results"
    extra = ["--out", out, "--no-plot"] if sub == "run" else []
    proc = lnsim_cmd(sub, scen, *args, *extra, cwd=tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("lnsim: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    for n in names:
        assert n in proc.stderr, (n, proc.stderr)
    assert not out.exists()
    assert not (tmp_path / "results").exists()
