"""Property-based fuzzing of the scenario input (issue 14 item 18).

Hypothesis mutates the shipped scenarios (drops keys, puts extreme and non-finite numbers, wrong
types, odd unit strings, unknown keys, empty or huge arrays in their place) and runs
``lnsim validate`` on each and, when it is valid, a very short ``lnsim run``. The only allowed
outcomes are exit 0, 2 (bad input, with a message) and 130, within a time and a memory bound:
a panic (101), an allocation abort (134), a traceback (1) or a hang is a failure.

``LNSIM_FUZZ_EXAMPLES`` sets the number of examples (default 25, about a minute on CI's two
cores); e.g. ``LNSIM_FUZZ_EXAMPLES=2000 pytest python/tests/test_fuzz_scenarios.py`` for a long
session. Every failure found is kept as a regression case in ``python/tests/fuzz_regressions/``
(a scenario file; its first comment line says what it caught), which runs on every suite.
"""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any, List, Tuple

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is a test dependency: pip install -e '.[test]'")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]
import tomli_w  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((REPO / "scenarios").rglob("*.toml"))
REGRESSIONS = sorted((Path(__file__).parent / "fuzz_regressions").glob("*.toml"))
EXAMPLES = int(os.environ.get("LNSIM_FUZZ_EXAMPLES", "25"))
ALLOWED = {0, 2, 130}
#: Wall-clock bound of one validate or run (a hang is a failure), seconds.
TIME_BOUND = 90
#: Address-space bound of the lnsim process; the runs are told to stay within MAX_MEMORY, so an
#: allocation beyond it means the memory estimate let through what it should have refused.
ADDRESS_SPACE = 8 << 30
MAX_MEMORY = "2GiB"

EXTREME_NUMBERS = [0, -1, 1, 255, 256, 1000, 4096, 65535, 65536, 10**6, 10**9, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1, -(2**63),
                   1e308, -1e308, 1e-308, 0.5, -0.0, math.inf, -math.inf, math.nan]
ODD_STRINGS = ["", " ", "5", "5 xs", "-3us", "1e400s", "0s", "NaNs", "infus", "µs", "1.5.3ns", "10 Gb/s",
               "-1Gbps", "0Gbps", "99999999999999999999999ps", "3KiB", "0B", "1e9TB", "../..", "x" * 300,
               "\u0000", "ünïcødé", "1_000us"]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _lnsim(*args, cwd) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [sys.executable, "-m", "lnsim", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=TIME_BOUND, preexec_fn=_limit_memory,
            env={**os.environ, "MPLBACKEND": "Agg"},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"lnsim {' '.join(map(str, args))}: no answer within {TIME_BOUND} s", pytrace=False)


def _is_cycle(table: dict) -> bool:
    sim = table.get("sim") if isinstance(table.get("sim"), dict) else {}
    topo = table.get("topology") if isinstance(table.get("topology"), dict) else {}
    return "measure_cycles" in sim or "warmup_cycles" in sim or topo.get("kind") == "dragonfly"


def _short(table: dict) -> List[str]:
    """Overrides that make a run of the scenario's model very short."""
    if _is_cycle(table):
        return ["--set", "sim.warmup_cycles=50", "--set", "sim.measure_cycles=100"]
    return ["--set", "sim.end_time=100us", "--set", "sim.warmup=50us"]


def check_scenario(text: str, tmp: Path, table: Any = None) -> None:
    """validate, then (if valid) a short run: only exits 0, 2 and 130 are allowed."""
    f = tmp / "fuzzed.toml"
    f.write_text(text, encoding="utf-8")
    what = f"--- scenario ---\n{text[:4000]}"
    v = _lnsim("validate", f, "--max-memory", MAX_MEMORY, cwd=tmp)
    assert v.returncode in ALLOWED, f"validate exited {v.returncode}\n{v.stderr[-3000:]}\n{what}"
    if v.returncode == 2:
        assert v.stderr.startswith("lnsim: error: ") and "Traceback" not in v.stderr, f"{v.stderr}\n{what}"
        return
    if v.returncode != 0:
        return
    if not isinstance(table, dict):
        table = tomllib.loads(text)
    r = _lnsim("run", f, *_short(table), "--max-memory", MAX_MEMORY, "--no-plot", "--no-progress",
               "--out", tmp / "out", cwd=tmp)
    allowed = ALLOWED | ({3} if (table.get("sim") or {}).get("allow_deadlock") is True else set())
    assert r.returncode in allowed, f"run exited {r.returncode}\n{r.stderr[-3000:]}\n{what}"
    if r.returncode == 2:
        assert "Traceback" not in r.stderr, f"{r.stderr}\n{what}"


# --- mutations ---------------------------------------------------------------------------------------

Path_ = Tuple[Any, ...]


def leaves(node: Any, prefix: Path_ = ()) -> List[Path_]:
    """Every path (keys and list indices) of the table, inner ones included."""
    out: List[Path_] = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += leaves(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += leaves(v, prefix + (i,))
    return out


def _parent(table: Any, path: Path_):
    node = table
    for k in path[:-1]:
        node = node[k]
    return node


def _replacement(draw) -> Any:
    kind = draw(st.sampled_from(["number", "string", "type", "array", "table", "bool"]))
    if kind == "number":
        return draw(st.one_of(st.sampled_from(EXTREME_NUMBERS), st.integers(-(2**63), 2**64 - 1),
                              st.floats(allow_nan=True, allow_infinity=True)))
    if kind == "string":
        return draw(st.one_of(st.sampled_from(ODD_STRINGS), st.text(max_size=12)))
    if kind == "array":
        size = draw(st.sampled_from([0, 1, 3, 20000]))
        item = draw(st.sampled_from([0, 1, 65536, -1, "x", 0.5]))
        return [item] * size
    if kind == "table":
        return {draw(st.sampled_from(["x", "kind", "load", "name"])): draw(st.sampled_from([1, "a", -1]))}
    if kind == "bool":
        return draw(st.booleans())
    return draw(st.sampled_from([[], {}, True, "", 0]))


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(SCENARIOS))
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        paths = leaves(table)
        if not paths:
            break
        op = draw(st.sampled_from(["drop", "replace", "replace", "scale", "unknown", "unknown_section"]))
        p = draw(st.sampled_from(paths))
        parent = _parent(table, p)
        if op == "drop":
            if isinstance(parent, dict):
                del parent[p[-1]]
            else:
                parent.pop(p[-1])
        elif op == "replace":
            parent[p[-1]] = _replacement(draw)
        elif op == "scale":  # a plausible number made large: where sizes and latencies overflow
            v = parent[p[-1]]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                parent[p[-1]] = type(v)(v * draw(st.sampled_from([10, 100, 1000, 65536, 2**32])))
        elif op == "unknown":
            if isinstance(parent, dict):
                parent[draw(st.sampled_from(["unknown_key", "lod", "Load", "end-time", "ü"]))] = 1
        else:
            table[draw(st.sampled_from(["typo", "swich", "SIM"]))] = {"x": 1}
    try:
        text = tomli_w.dumps(table)
    except (TypeError, ValueError):  # e.g. an integer TOML cannot hold (2**64 - 1): write it as text
        text = _dump_loosely(table)
    return path.name, table, text


def _dump_loosely(table: dict) -> str:
    """TOML for tables tomli_w refuses (integers beyond 64 bits): such values become their digits
    in the text, which the scenario parser must then refuse cleanly."""
    def fix(v):
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
            return f"@@{v}@@"
        return v

    return tomli_w.dumps(fix(table)).replace('"@@', "").replace('@@"', "")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False,
          database=None if os.environ.get("CI") else hypothesis.database.DirectoryBasedExampleDatabase(
              str(REPO / ".hypothesis")))
@given(case=mutated())
def test_mutated_scenarios_fail_cleanly(case, tmp_path_factory):
    name, table, text = case
    check_scenario(f"# mutated from {name}\n{text}", tmp_path_factory.mktemp("fuzz"), table)


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_fuzz_regression(path: Path, tmp_path):
    """The inputs the fuzzer (or the issue) found once stay fixed."""
    check_scenario(path.read_text(encoding="utf-8"), tmp_path)
