#!/usr/bin/env python3
"""The queue cost of the HoL-blocking schemes (issue 17 item 7; spec B.2, B.5): queues per switch
port, buffer bytes per switch input port and the simulator's memory estimate, per scheme, network
and buffer mode. Prints a Markdown table (docs/scenarios.md, "HoL-blocking elimination: queue
cost").

    PYTHONPATH=python python3 scripts/hol_cost.py [--networks bmin64,bmin512,...] [--modes A,B]

What comes from the simulator itself (`lnsim.validate`, nothing is run):

- **queues per port**: the number of queues the simulator builds per VL at a switch input. It is
  read by probing: validated with `switch.static_mode = "split"` and `switch.buffer_credits = 1`,
  a switch input of more than one queue cannot give each queue a packet and the simulator
  refuses the scenario naming the count ("1 credits per VL split over Q queues ..."); a scenario
  it accepts has one queue per VL. The port is the first switch input the simulator sizes: for
  VOQsw on a mesh, a corner switch (2 + p ports in 2-D, 3 + p in 3-D), where spec B.2's count
  (printed beside it) is a switch inside the mesh, 2·d + p.
- **memory estimate**: the `memory: about ...` line of `lnsim validate` for the scenario with the
  scheme and buffer mode set, or the memory check's refusal when the run would not fit.

What is computed here from the rules of `credit/switch/buffer/partitioned.rs` (`QueueSizing`):
the bytes of one switch input port's buffer, queues × share, where the share is spec B.5 mode A
of spec B.2's queue count (`static_mode = "divided"`: the 1-KB port buffer divided by the queues in whole 64-B packets, at
least one packet, two for VOQnet) or mode B (`static_mode = "per_queue"`, `queue_bytes = 1 KiB`).
"All switch inputs" is that times the network's switch ports that carry a link (from the
topology line of `lnsim validate`; for VOQsw on a mesh an upper bound, its corner and edge
switches having fewer queues). The scenarios of scenarios/hol also give every switch port an
output buffer of 1 KB (`switch.output_buffer_credits = 16`, spec B.5), divided among the queues
of the buffer it feeds: up to as many bytes again, which the memory estimate includes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import lnsim  # noqa: E402

HOL = ROOT / "scenarios" / "hol"

#: (label, scenario file, end nodes N, switch ports P) — the BMINs of Table 1 and one mesh per
#: distinct (N, P); a mesh switch inside the mesh has 2·d + p ports (d dimensions, p end nodes).
NETWORKS = {
    "bmin64": ("BMIN 64 (4-ary 3-tree)", "bmin64_3b.toml", 64, 8),
    "bmin512": ("BMIN 512 (XGFT)", "bmin512_6b.toml", 512, 8),
    "bmin1024": ("BMIN 1,024 (4-ary 5-tree)", "bmin1024_7b.toml", 1024, 8),
    "mesh8x8": ("mesh 8×8, p = 1", "mesh8x8_1m.toml", 64, 5),
    "mesh4x4n4": ("mesh 4×4, p = 4", "mesh4x4n4_2m.toml", 64, 8),
    "mesh16x16": ("mesh 16×16, p = 1", "mesh16x16_6m.toml", 256, 5),
    "mesh8x8x4": ("mesh 8×8×4, p = 1", "mesh8x8x4_4m.toml", 256, 7),
    "mesh8x8n4": ("mesh 8×8, p = 4", "mesh8x8n4_7m.toml", 256, 8),
    "mesh4x4x4n4": ("mesh 4×4×4, p = 4", "mesh4x4x4n4_9m.toml", 256, 10),
    "mesh4x4n16": ("mesh 4×4, p = 16", "mesh4x4n16_8m.toml", 256, 20),
}


def spec_queues(scheme: str, n: int, ports: int) -> int:
    """Queues per port of spec B.2: 1, P, N, Q, Q + 1."""
    if scheme == "1Q":
        return 1
    if scheme == "VOQsw":
        return ports
    if scheme == "VOQnet":
        return n
    return int(re.search(r"(\d+)Q", scheme).group(1))

#: (label, overrides) of the schemes of spec B.2.
SCHEMES = [
    ("1Q", ['switch.queue_mapping="one_queue"', "switch.dbbm_queues=0"]),
    ("VOQsw", ['switch.queue_mapping="voq_sw"', "switch.dbbm_queues=0"]),
    ("VOQnet", ['switch.queue_mapping="voq_net"', "switch.dbbm_queues=0"]),
    ("DBBM-4Q", ['switch.queue_mapping="dbbm"', "switch.dbbm_queues=4"]),
    ("DBBM-8Q", ['switch.queue_mapping="dbbm"', "switch.dbbm_queues=8"]),
    ("DBBM-16Q", ['switch.queue_mapping="dbbm"', "switch.dbbm_queues=16"]),
    ("DDBBM-5Q", ['switch.queue_mapping="ddbbm"', "switch.dbbm_queues=4"]),
    ("DDBBM-9Q", ['switch.queue_mapping="ddbbm"', "switch.dbbm_queues=8"]),
    ("DDBBM-17Q", ['switch.queue_mapping="ddbbm"', "switch.dbbm_queues=16"]),
]

#: Buffer modes of spec B.5.
MODES = {
    "A": ['switch.buffer_sharing="static"', 'switch.static_mode="divided"'],
    "B": ['switch.buffer_sharing="static"', 'switch.static_mode="per_queue"', 'switch.queue_bytes="1KiB"'],
}

PORT_BYTES = 1024  # spec B.5: 1 KB per port (switch.buffer_credits = 16 of 64 B in scenarios/hol)
PACKET_BYTES = 64  # spec B.5: 64-B packets = one credit

_SPLIT = re.compile(r"split over (\d+) queues")
_MEMORY = re.compile(r"memory: about ([0-9.]+ [KMGT]?i?B)")


def queues_per_port(scenario: Path, scheme: list) -> int:
    """Queues per VL at a switch input as the simulator builds them (see the module doc)."""
    probe = scheme + ['switch.buffer_sharing="static"', 'switch.static_mode="split"', "switch.buffer_credits=1"]
    try:
        lnsim.validate(scenario, probe)
    except lnsim.ScenarioError as e:
        m = _SPLIT.search(str(e))
        if not m:
            raise
        return int(m.group(1))
    return 1


def port_bytes(label: str, queues: int, mode: str) -> int:
    """Bytes of one switch input port's buffer (spec B.5 mode A or B; the rule of
    `QueueSizing::share`)."""
    if mode == "B":
        return queues * 1024
    min_packets = 2 if label == "VOQnet" else 1
    per_queue = max(PORT_BYTES // queues // PACKET_BYTES, min_packets) * PACKET_BYTES
    return queues * per_queue


_TOPOLOGY = re.compile(r"(\d+) switches, (\d+) HCAs, (\d+) links")


def switch_ports(scenario: Path) -> int:
    """Switch ports of the network that carry a link, from `lnsim validate`'s topology line:
    every link has two ends, and an HCA's end is not a switch port."""
    m = _TOPOLOGY.search(lnsim.validate(scenario))
    return 2 * int(m.group(3)) - int(m.group(2))


def memory(scenario: Path, overrides: list) -> str:
    """The memory estimate of `lnsim validate`, or the memory check's refusal."""
    try:
        text = lnsim.validate(scenario, overrides)
    except lnsim.ScenarioError as e:
        need = re.search(r"needs (about [0-9.]+ [KMGT]?i?B)", str(e))
        return f"refused (needs {need.group(1)})" if need else f"refused: {str(e).splitlines()[0]}"
    m = _MEMORY.search(text)
    return m.group(1) if m else "n/a"


def _bytes(b: int) -> str:
    return f"{b // 1024} KiB" if b % 1024 == 0 else f"{b:,} B"


def _big(b: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return _bytes(b)


def rows(networks, modes):
    """One dict per (network, scheme): label, queues per port (the simulator's and spec B.2's),
    bytes per port (of spec B.2's count: a mesh's largest switch), bytes of all switch inputs
    and memory per mode."""
    for key in networks:
        label, file, n, ports = NETWORKS[key]
        scenario = HOL / file
        sw_ports = switch_ports(scenario)
        for scheme, ov in SCHEMES:
            q = queues_per_port(scenario, ov)
            spec = spec_queues(scheme, n, ports)
            r = {"network": label, "N": n, "scheme": scheme, "queues": q, "spec_queues": spec}
            for mode in modes:
                r[f"bytes_{mode}"] = port_bytes(scheme, spec, mode)
                r[f"network_{mode}"] = sw_ports * r[f"bytes_{mode}"]
                r[f"memory_{mode}"] = memory(scenario, ov + MODES[mode])
            yield r


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--networks", default=",".join(NETWORKS), help="comma-separated keys of NETWORKS")
    p.add_argument("--modes", default="A,B", help="buffer modes (spec B.5): A, B or A,B")
    a = p.parse_args(argv)
    networks = [k for k in a.networks.split(",") if k]
    unknown = [k for k in networks if k not in NETWORKS]
    modes = [m for m in a.modes.split(",") if m]
    if unknown or not set(modes) <= set(MODES):
        print(f"unknown network or mode: {unknown or modes}; networks: {', '.join(NETWORKS)}; modes: A, B", file=sys.stderr)
        return 2
    head = "| network | N | scheme | queues per port (simulator) | spec B.2 |"
    sep = "|---|---|---|---|---|"
    for m in modes:
        head += f" bytes per port ({m}) | all switch inputs ({m}) | memory estimate ({m}) |"
        sep += "---|---|---|"
    print(head)
    print(sep)
    for r in rows(networks, modes):
        line = f"| {r['network']} | {r['N']} | {r['scheme']} | {r['queues']} | {r['spec_queues']} |"
        for m in modes:
            line += f" {_bytes(r[f'bytes_{m}'])} | {_big(r[f'network_{m}'])} | {r[f'memory_{m}']} |"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
