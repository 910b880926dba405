#!/usr/bin/env python3
"""Developer tool for speed work and restructures: runs a fixed set of short scenarios of every
shipped scenario family (InfiniBand CC studies, the fat-tree benchmark, the HoL study, DRB
against InfiniBand throttling, meshes/tori, the Dragonflies and the thesis's routings; both
models) through the Rust example runner and fingerprints every output file,
so that a change meant to be "faster, same results" or "same results, new layout" can be checked
to be exactly that.

    python3 scripts/identity_check.py record /tmp/ident-before.json
    ... change the code ...
    python3 scripts/identity_check.py compare /tmp/ident-before.json

`summary.json` is compared without the host-dependent fields (wall time, peak memory, speed)
and without the engine's work counters (events, router visits, allocator runs), which a
restructured event loop may legitimately change, and without `model` (added by issue 15: a
record made before it lacks the field); `scenario.toml` (the scenario as run) without its
`sim.model` line, which issue 15 added to the shipped scenarios. Every other byte of every file
must match.
The runner is built with `cargo build --release --example run_scenario`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "target" / "release" / "examples" / "run_scenario"

# summary.json keys left out of the fingerprint (host-dependent or engine work counters)
VOLATILE = {"wall_time_s", "setup_time_s", "peak_rss_bytes", "phit_hops_per_s", "events", "router_visits", "allocator_runs", "model"}

S = "scenarios"
SHORT_DF = ["sim.warmup_cycles=3000", "sim.measure_cycles=3000"]
SHORT_MESH = ["sim.warmup_cycles=2000", "sim.measure_cycles=8000"]
SHORT_C = ['sim.end_time="20ms"', 'sim.warmup="10ms"']
SHORT_HOL = ['sim.end_time="0.3ms"', 'sim.warmup="100us"']
SHORT_GRAN = ['sim.end_time="60ms"', 'sim.warmup="40ms"']
SHORT_DRB = ['sim.end_time="3ms"', 'sim.warmup="1ms"']
# the hot spot moved into the shortened run: 1 ms of background, then 1 ms of hot spot
SHORT_DRB_HOT = ['sim.end_time="4ms"', 'sim.warmup="1ms"', 'traffic.generators[1].start="2ms"', 'traffic.generators[1].stop="3ms"']
SHORT_CH6 = SHORT_DF + ['traffic.pattern="adv"', "traffic.shift=1", "traffic.load=0.3"]

# (name, scenario, overrides)
CASES: list[tuple[str, str, list[str]]] = [
    # credit-level model (InfiniBand CC studies and the fat-tree benchmark)
    ("ib_zeru_a", f"{S}/ibcc/zeru_a.toml", []),
    ("ib_zeru_a_cc", f"{S}/ibcc/zeru_a.toml", ["cc.enabled=true"]),
    ("ib_zeru_b1", f"{S}/ibcc/zeru_b1.toml", ['sim.end_time="0.2s"', 'sim.warmup="0.1s"']),
    ("ib_zeru_b2_cc", f"{S}/ibcc/zeru_b2.toml", ['sim.end_time="0.2s"', 'sim.warmup="0.1s"', "cc.enabled=true"]),
    ("ib_zeru_c1", f"{S}/ibcc/zeru_c1.toml", SHORT_C),
    ("ib_zeru_c2_cc", f"{S}/ibcc/zeru_c2.toml", SHORT_C + ["cc.enabled=true"]),
    ("ib_zeru_c3", f"{S}/ibcc/zeru_c3.toml", SHORT_C),
    ("ib_zeru_c4_cc", f"{S}/ibcc/zeru_c4.toml", SHORT_C + ["cc.enabled=true"]),
    ("ib_gran_s1", f"{S}/ibcc/gran_s1.toml", SHORT_GRAN),
    ("ib_gran_s2", f"{S}/ibcc/gran_s2.toml", SHORT_GRAN),
    ("ib_fat_tree_648", f"{S}/bench/fat_tree_648.toml", ['sim.end_time="0.4ms"', 'sim.warmup="0.2ms"']),
    ("ib_fat_tree_648_cc", f"{S}/bench/fat_tree_648.toml", ['sim.end_time="0.4ms"', 'sim.warmup="0.2ms"', "cc.enabled=true"]),
    # the HoL study's schemes (credit-level model, spec PART B): every scheme and buffer mode
    ("hol_3b_1q", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['switch.queue_mapping="one_queue"', "switch.dbbm_queues=0"]),
    ("hol_3b_voqsw", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['switch.queue_mapping="voq_sw"', "switch.dbbm_queues=0"]),
    ("hol_3b_voqnet", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['switch.queue_mapping="voq_net"', "switch.dbbm_queues=0"]),
    ("hol_3b_dbbm", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['switch.queue_mapping="dbbm"', "switch.dbbm_queues=4"]),
    ("hol_3b_ddbbm", f"{S}/hol/bmin64_3b.toml", SHORT_HOL),
    ("hol_3b_ddbbm_shared", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['switch.buffer_sharing="shared"']),
    ("hol_3b_ddbbm_no_obuf", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ["switch.output_buffer_credits=0"]),
    ("hol_3b_ddbbm_adapter", f"{S}/hol/bmin64_3b.toml", SHORT_HOL + ['hca.injection_queues="scheme"']),
    ("hol_3b_ib", f"{S}/hol/bmin64_3b_ib.toml", SHORT_HOL),
    ("hol_3m_ddbbm", f"{S}/hol/mesh8x8_3m.toml", SHORT_HOL),
    ("hol_7b_ddbbm", f"{S}/hol/bmin1024_7b.toml", ['sim.end_time="0.1ms"', 'sim.warmup="50us"']),
    # DRB against InfiniBand throttling (credit-level model, spec PART A): both mechanisms and the
    # reference, both path modes, both marking buffers, every topology, the hot spot
    ("drb_torus_drb", f"{S}/drb/torus8x8_shuffle.toml", SHORT_DRB),
    ("drb_torus_ib_s1", f"{S}/drb/torus8x8_shuffle.toml", SHORT_DRB + ['cc.mechanism="ib_s1"']),
    ("drb_torus_off", f"{S}/drb/torus8x8_shuffle.toml", SHORT_DRB + ["cc.enabled=false"]),
    ("drb_torus_mark_output", f"{S}/drb/torus8x8_shuffle.toml", SHORT_DRB + ['cc.mark_buffer="output"']),
    ("drb_mesh8x4_drb", f"{S}/drb/mesh8x4_shuffle.toml", SHORT_DRB),
    ("drb_mesh8x4_ib_faithful", f"{S}/drb/mesh8x4_shuffle.toml", SHORT_DRB + ['drb.path_mode="ib_faithful"']),
    ("drb_mesh4x8_ib_s1", f"{S}/drb/mesh4x8_shuffle.toml", SHORT_DRB + ['cc.mechanism="ib_s1"']),
    ("drb_hotspot_drb", f"{S}/drb/torus8x8_hotspot.toml", SHORT_DRB_HOT),
    ("drb_hotspot_ib_s1", f"{S}/drb/torus8x8_hotspot.toml", SHORT_DRB_HOT + ['cc.mechanism="ib_s1"']),
    # cycle-level model
    ("mesh_bench", f"{S}/bench/mesh_8x8.toml", []),
    ("mesh_sat", f"{S}/bench/mesh_8x8.toml", ["traffic.load=0.6", "sim.measure_cycles=20000"]),
    ("mesh_vlb", f"{S}/mesh/mesh8_uniform.toml", SHORT_MESH + ["routing.algorithm=vlb", "traffic.load=0.3"]),
    ("mesh_hotspot", f"{S}/mesh/mesh8_uniform.toml", SHORT_MESH + ["traffic.pattern=hotspot", "traffic.hotspots=[0,27]", "traffic.hotspot_fraction=0.2", "traffic.load=0.2"]),
    ("torus_un", f"{S}/mesh/torus8_uniform.toml", SHORT_MESH + ["traffic.load=0.5"]),
    ("torus_tornado", f"{S}/mesh/torus8_uniform.toml", SHORT_MESH + ["traffic.pattern=tornado", "traffic.load=0.3"]),
    ("df6_bench", f"{S}/bench/dragonfly_h6.toml", ["sim.warmup_cycles=2000", "sim.measure_cycles=2000"]),
    ("df4_un_min", f"{S}/dragonfly/h4_un.toml", SHORT_DF + ["routing.algorithm=min", "traffic.load=0.6"]),
    ("df4_un_ugal", f"{S}/dragonfly/h4_un.toml", SHORT_DF + ["routing.algorithm=ugal", "traffic.load=0.6"]),
    ("df4_un_pb", f"{S}/dragonfly/h4_un.toml", SHORT_DF + ["routing.algorithm=pb", "traffic.load=0.6"]),
    ("df4_adv1_min", f"{S}/dragonfly/h4_adv1.toml", SHORT_DF + ["routing.algorithm=min", "traffic.load=0.2"]),
    ("df4_adv1_vlb", f"{S}/dragonfly/h4_adv1.toml", SHORT_DF + ["routing.algorithm=vlb", "traffic.load=0.4"]),
    ("df4_adv1_ugal", f"{S}/dragonfly/h4_adv1.toml", SHORT_DF + ["routing.algorithm=ugal", "traffic.load=0.4"]),
    ("df4_adv1_pb", f"{S}/dragonfly/h4_adv1.toml", SHORT_DF + ["routing.algorithm=pb", "traffic.load=0.4"]),
    ("df4_advh_lg-", f"{S}/dragonfly/h4_vlb_policies_advh.toml", SHORT_DF + ["routing.algorithm=vlb", 'routing.vlb_policy="lg-"', "traffic.load=0.3"]),
    ("df4_advh_-gl", f"{S}/dragonfly/h4_vlb_policies_advh.toml", SHORT_DF + ["routing.algorithm=vlb", 'routing.vlb_policy="-gl"', "traffic.load=0.3"]),
    ("df4_advc_-g-", f"{S}/dragonfly/h4_vlb_policies_advc.toml", SHORT_DF + ["routing.algorithm=vlb", 'routing.vlb_policy="-g-"', "traffic.load=0.3"]),
    ("df4_advl_ugal", f"{S}/dragonfly/h4_advl.toml", SHORT_DF + ["routing.algorithm=ugal", "traffic.load=0.3"]),
    ("df4_transient", f"{S}/dragonfly/h4_transient_un_advh.toml", ["sim.warmup_cycles=3000", "sim.measure_cycles=3000", "traffic.transient.at_cycle=3000"]),
    # the thesis's own routings (Ch. 5: ACOR, PB-ACOR) and Ch. 6 (TPR, LIAN), the group-counter observer
    ("df4_acor_transient", f"{S}/dragonfly/h4_acor_transient_advh.toml", ["sim.warmup_cycles=3000", "sim.measure_cycles=3000", "traffic.transient.at_cycle=3000"]),
    ("df4_adv1_pb_acor", f"{S}/dragonfly/h4_ch6_routings.toml", SHORT_CH6 + ['routing.algorithm="pb_acor"']),
    ("df4_adv1_tpr", f"{S}/dragonfly/h4_ch6_routings.toml", SHORT_CH6 + ['routing.algorithm="tpr"', "routing.recompute=true"]),
    ("df4_adv1_lian", f"{S}/dragonfly/h4_ch6_routings.toml", SHORT_CH6),
    ("df4_un_counters", f"{S}/dragonfly/h4_un.toml", SHORT_DF + ["routing.algorithm=ugal", "traffic.load=0.3", "stats.group_counters=true"]),
]


def fingerprint(out: Path) -> dict[str, str]:
    prints = {}
    for f in sorted(out.iterdir()):
        data = f.read_bytes()
        if f.name == "summary.json":
            s = json.loads(data)
            for k in VOLATILE:
                s.pop(k, None)
            data = json.dumps(s, sort_keys=True).encode()
        elif f.name == "scenario.toml":
            # the only `model` key of a scenario is sim.model (written sorted, one line)
            data = re.sub(rb'(?m)^model = "(credit|infiniband|cycle)"\n', b"", data, count=1)
        prints[f.name] = hashlib.sha256(data).hexdigest()
    return prints


def run_all(only: set[str] | None) -> dict[str, dict[str, str]]:
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "run_scenario"], cwd=ROOT, check=True)
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, scen, over in CASES:
            if only and name not in only:
                continue
            out = Path(tmp) / name
            p = subprocess.run([str(RUNNER), scen, str(out), *over], cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                result[name] = {"error": p.stderr.strip()[-500:]}
            else:
                result[name] = fingerprint(out)
            print(f"{name:16s} {'error' if p.returncode else 'ok'}", file=sys.stderr, flush=True)
    return result


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in ("record", "compare"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = sys.argv[1], Path(sys.argv[2])
    only = set(sys.argv[3:]) or None
    got = run_all(only)
    if mode == "record":
        path.write_text(json.dumps(got, indent=1, sort_keys=True))
        print(f"recorded {len(got)} cases in {path}")
        return 0
    want = json.loads(path.read_text())
    bad = 0
    for name, files in got.items():
        ref = want.get(name)
        if ref is None:
            print(f"{name}: not in the record")
            continue
        for f in sorted(set(ref) | set(files)):
            if ref.get(f) != files.get(f):
                bad += 1
                print(f"DIFFERS {name}/{f}")
    n = sum(len(v) for v in got.values())
    print(f"{n - bad} of {n} files identical" + ("" if bad == 0 else f", {bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("RUST_BACKTRACE", "0")
    sys.exit(main())
