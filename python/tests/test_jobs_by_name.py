"""Jobs placed by node name on a fabric: host lists (ranges, lists, a file of names) wherever a
node set is accepted, the patterns administrators run (all-to-all, incast onto a storage set, a
hot spot, shift(k), a seeded random permutation), each on a subset of the fabric beside a victim
job, and every job's throughput, latency and fairness in summary.json and in `lnsim run`'s print."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import lnsim
import pytest
from conftest import lnsim_cmd

#: A 4-ary 2-tree (16 HCAs H1 ... H16), a short run; the job under test is on H1 ... H8 and a
#: victim job on H9 ... H16 runs beside it.
FABRIC = """
[sim]
model = "credit"
end_time = "200us"
warmup = "50us"
interval = "50us"
seed = 3

[topology]
kind = "fat_tree"
k = 4
n = 2

[traffic]
message_bytes = "4096B"

[[traffic.generators]]
job = "victim"
sources = ["H[9-16]"]
destinations = ["H[9-12]", "H13,H14", "H[15-16]"]
"""


def job_toml(body: str) -> str:
    return FABRIC + "\n[[traffic.generators]]\njob = \"job\"\n" + body


def run(tmp_path, text: str, seed=None):
    """summary.json of a run of scenario ``text`` (through the Python API: no process per run)."""
    scen = tmp_path / "s.toml"
    scen.write_text(text, encoding="utf-8")
    return lnsim.run(scen, seed=seed, out=tmp_path / "out").summary


def run_cmd(tmp_path, text: str):
    """summary.json and the print of `lnsim run` of scenario ``text``."""
    scen = tmp_path / "s.toml"
    scen.write_text(text, encoding="utf-8")
    out = tmp_path / "cmd"
    proc = lnsim_cmd("run", scen, "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((out / "summary.json").read_text()), proc.stdout


def job_pairs(summary) -> dict:
    """Bytes received per (src, dst) of the flows between the job's nodes H1 ... H8."""
    job = {f"H{i}" for i in range(1, 9)}
    pairs = defaultdict(int)
    for f in summary["flows"]:
        if f["src"] in job:
            pairs[(f["src"], f["dst"])] += f["rx_bytes"]
    return pairs


def test_host_ranges_a_host_file_and_lists_name_the_same_nodes(tmp_path):
    (tmp_path / "hosts.txt").write_text("# the job\nH[1-3], H4\nH5 H6  # more\nH[7-8]\n", encoding="utf-8")
    by_range = run(tmp_path, job_toml('sources = ["H[1-8]"]\ndestinations = ["H[1-8]"]\n'))
    by_file = run(tmp_path, job_toml('sources = ["@hosts.txt"]\ndestinations = ["H[1-4,5]", "H6,H[7-8]"]\n'))
    names = [f"H{i}" for i in range(1, 9)]
    by_list = run(tmp_path, job_toml(f"sources = {json.dumps(names)}\ndestinations = {json.dumps(names)}\n"))
    assert by_range["flows"] == by_file["flows"] == by_list["flows"]
    assert {s for s, _ in job_pairs(by_range)} == set(names)


@pytest.mark.parametrize(
    "body, key, words",
    [
        ('sources = ["H[8-1]"]', "traffic.generators[1].sources[0]", "runs backwards"),
        ('sources = ["H[1-x]"]', "traffic.generators[1].sources[0]", "not a number"),
        ('sources = ["H1", "H[1-2"]', "traffic.generators[1].sources[1]", "without its `]`"),
        ('sources = ["@missing.txt"]', "traffic.generators[1].sources[0]", "does not exist"),
        ('sources = ["H[1-17]"]', "traffic.generators[1].sources[16]", "no node named `H17`"),
        ('sources = ["H[1-4]"]\nidle = ["H[0-1]"]', "traffic.generators[1].idle[0]", "no node named `H0`"),
        ('sources = ["H[1-4]"]\npattern = "shift"', "traffic.generators[1].shift", "needs the offset"),
        ('sources = ["H[1-4]"]\npattern = "shift"\nshift = 4', "traffic.generators[1].shift", "onto itself"),
        ('sources = ["H[1-4]"]\nshift = 1', "traffic.generators[1].shift", "allowed only with \\\"shift\\\""),
        ('sources = ["H[1-4]"]\npattern = "random_permutation"\ndestinations = ["H1"]',
         "traffic.generators[1].destinations", "does not apply"),
    ],
)
def test_bad_host_lists_and_job_patterns_exit_2_naming_the_key(tmp_path, body, key, words):
    scen = tmp_path / "s.toml"
    scen.write_text(job_toml(body + "\n"), encoding="utf-8")
    proc = lnsim_cmd("validate", scen)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert key in proc.stderr and words.replace("\\", "") in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    # `lnsim run` reads the scenario through the same function
    with pytest.raises(lnsim.ScenarioError, match=re.escape(key)):
        lnsim.run(scen, out=tmp_path / "o")


def test_all_to_all_on_a_subset_stays_inside_it(tmp_path):
    s = run(tmp_path, job_toml('sources = ["H[1-8]"]\ndestinations = ["H[1-8]"]\n'))
    pairs = job_pairs(s)
    assert all(d in {f"H{i}" for i in range(1, 9)} and d != src for src, d in pairs)
    # every source reaches several of the 7 others
    per_src = defaultdict(set)
    for src, d in pairs:
        per_src[src].add(d)
    assert len(per_src) == 8 and min(len(v) for v in per_src.values()) >= 4


def test_incast_onto_a_storage_set(tmp_path):
    s = run(tmp_path, job_toml('sources = ["H[3-8]"]\ndestinations = ["H[1-2]"]\n'))
    pairs = job_pairs(s)
    assert {d for _, d in pairs} == {"H1", "H2"} and {src for src, _ in pairs} == {f"H{i}" for i in range(3, 9)}


def test_hot_spot_inside_a_job(tmp_path):
    s = run(tmp_path, job_toml('sources = ["H[2-8]"]\ndestinations = ["H[1-8]"]\n'
                                  'injection = "bernoulli"\nload = 0.3\nhotspot = "H1"\nhotspot_fraction = 0.5\n'))
    pairs = job_pairs(s)
    into_h1 = sum(b for (_, d), b in pairs.items() if d == "H1")
    total = sum(pairs.values())
    # half the messages go to H1, the other half uniformly over the 7 others (H1 included)
    assert 0.45 < into_h1 / total < 0.70, into_h1 / total


@pytest.mark.parametrize("k", [1, 3, -2])
def test_shift_k_within_the_job(tmp_path, k):
    s = run(tmp_path, job_toml(f'sources = ["H[1-8]"]\npattern = "shift"\nshift = {k}\n'))
    pairs = job_pairs(s)
    want = {(f"H{i + 1}", f"H{(i + k) % 8 + 1}") for i in range(8)}
    assert set(pairs) == want and all(b > 0 for b in pairs.values())


def test_random_permutation_is_seeded_and_has_no_fixed_point(tmp_path):
    text = job_toml('sources = ["H[1-8]"]\npattern = "random_permutation"\n')
    a = run(tmp_path, text)
    b = run(tmp_path, text)
    perms = []
    for seed in range(4):
        c = run(tmp_path, text, seed=seed)
        perms.append(frozenset(job_pairs(c)))
    pa = job_pairs(a)
    assert pa == job_pairs(b)
    srcs = [src for src, _ in pa]
    dsts = [d for _, d in pa]
    assert sorted(srcs) == sorted(dsts) == sorted(f"H{i}" for i in range(1, 9))
    assert all(src != d for src, d in pa)
    assert len(set(perms)) > 1, "other seeds draw other permutations"


def test_each_job_reports_throughput_latency_and_fairness(tmp_path):
    s, out = run_cmd(tmp_path, job_toml('sources = ["H[3-8]"]\ndestinations = ["H[1-2]"]\n'))
    jobs = s["jobs"]
    assert set(jobs) == {"victim", "job"}
    v = jobs["victim"]
    assert v["sources"] == 8 and v["flows"] > 8 and v["rx_gbps_window"] > 0 and v["latency_mean_ns"] > 0
    assert 0 < v["jain"] <= 1
    # the job's throughput is what its flows received in the window
    window = s["sim_time_s"] - s["fairness"]["window_start_s"]
    rx = sum(f["rx_gbps_window"] for f in s["flows"] if f["src"] in {f"H{i}" for i in range(3, 9)})
    assert jobs["job"]["rx_gbps_window"] == pytest.approx(rx, rel=1e-4) and window > 0
    assert "job victim" in out and "job job" in out
    # a scenario that names no job has no `jobs`
    plain = FABRIC.replace('job = "victim"\n', "")
    s2, out2 = run_cmd(tmp_path, plain)
    assert "jobs" not in s2 and "job " not in out2


def test_an_imported_fabric_takes_guids_where_names_are_asked_for(tmp_path):
    """On the shipped Gran test bed (imported from its ibnetdiscover file), the fairness sources
    named by port GUID, by 16 hex digits and by ibnetdiscover's H- id give the run the names give."""
    from conftest import SCENARIOS

    scen = SCENARIOS / "fabrics" / "gran_s2.toml"
    short = ["sim.end_time=3ms", "sim.warmup=1ms", "sim.interval=1ms"]
    by_name = lnsim.run(scen, overrides=[*short, 'stats.fairness_sources=["H1","H2","H3"]'], out=tmp_path / "a")
    by_guid = lnsim.run(scen, overrides=[
        *short, 'stats.fairness_sources=["0x6c6e730000000301","6c6e730000000401","H-6c6e730000000500"]'],
        out=tmp_path / "b")
    assert by_name.summary["fairness"] == by_guid.summary["fairness"]
    assert by_name.summary["flows"] == by_guid.summary["flows"]
    with pytest.raises(lnsim.ScenarioError, match=r"stats\.fairness_sources\[0\].*nor one with that GUID"):
        lnsim.run(scen, overrides=[*short, 'stats.fairness_sources=["0x6c6e7300000009ff"]'], out=tmp_path / "c")
