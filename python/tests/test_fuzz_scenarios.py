"""Property-based fuzzing of the scenario input.

Hypothesis mutates the shipped scenarios (drops keys, puts extreme and non-finite numbers, wrong
types, odd unit strings, unknown keys, empty or huge arrays in their place, writes a table as an
array of its values, repeats an entry of a list) and runs ``lnsim validate`` on each and, when it
is valid, a very short ``lnsim run``. The only allowed outcomes are exit 0, 2 (bad input, with a
message) and 130, within a time and a memory bound: a panic (101), an allocation abort (134), a
traceback (1) or a hang is a failure. Two mutations have one right answer, checked on their own:
a table written as an array (which used to be read by position) and a list that is a set with
an entry repeated (which used to count it twice) are bad input naming the key.

``LNSIM_FUZZ_EXAMPLES`` sets the number of examples (default 25, about a minute on CI's two
cores); e.g. ``LNSIM_FUZZ_EXAMPLES=2000 pytest python/tests/test_fuzz_scenarios.py`` for a long
session. Every failure found is kept as a regression case in ``python/tests/fuzz_regressions/``
(a scenario file; its first comment line says what it caught), which runs on every suite. A
regression whose right answer is a refusal says so in a comment line ``# expect-error: TEXT``:
it must then exit 2 with TEXT in the message.
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


def check_scenario(text: str, tmp: Path, table: Any = None, expect_error: str = None) -> None:
    """validate, then (if valid) a short run: only exits 0, 2 and 130 are allowed; with
    ``expect_error``, validate must exit 2 with that text in its message."""
    f = tmp / "fuzzed.toml"
    f.write_text(text, encoding="utf-8")
    what = f"--- scenario ---\n{text[:4000]}"
    v = _lnsim("validate", f, "--max-memory", MAX_MEMORY, cwd=tmp)
    assert v.returncode in ALLOWED, f"validate exited {v.returncode}\n{v.stderr[-3000:]}\n{what}"
    if expect_error is not None:
        assert v.returncode == 2 and expect_error in v.stderr, \
            f"expected exit 2 with {expect_error!r}, got {v.returncode}: {v.stderr[-3000:]}\n{what}"
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


def tables_in(table: dict) -> List[Path_]:
    """Every path of ``table`` whose value is a table of the format (TOML tables, inline ones and
    entries of arrays of tables; not the free-form entries of ``[sweep]``)."""
    return [p for p in leaves(table) if isinstance(_parent(table, p)[p[-1]], dict) and (p[0] != "sweep" or len(p) == 1)]


def as_array(draw, table: dict, p: Path_) -> None:
    """Writes the table at ``p`` as an array: its values in order (which used to be read by
    position: ``router = [1, 2, 1]``), an empty array, or the table as an array of tables."""
    parent = _parent(table, p)
    value = parent[p[-1]]
    parent[p[-1]] = draw(st.sampled_from([list(value.values()), [], [value]]))


#: The schema's description of every list, by path (``traffic.generators[].sources``).
_LISTS: dict = {}


def _schema_lists() -> dict:
    """Path (``[]`` for an entry of an array of tables) → whether the list is a set
    (``uniqueItems`` in ``lnsim schema``), for every list of the format."""
    if not _LISTS:
        import json

        out = subprocess.run([sys.executable, "-m", "lnsim", "schema"], stdout=subprocess.PIPE, text=True, check=True)
        schema = json.loads(out.stdout)

        def walk(node: dict, prefix: str) -> None:
            for k, v in (node.get("properties") or {}).items():
                path = f"{prefix}{k}"
                for branch in [v, *(v.get("anyOf") or [])]:
                    if branch.get("type") == "array" and "properties" not in (branch.get("items") or {}):
                        _LISTS[path] = bool(branch.get("uniqueItems"))
                if v.get("type") == "array" and "properties" in (v.get("items") or {}):
                    walk(v["items"], f"{path}[].")
                elif "properties" in v:
                    walk(v, f"{path}.")

        walk(schema, "")
    return _LISTS


def _generic(p: Path_) -> str:
    """``("traffic", "generators", 0, "sources")`` → ``traffic.generators[].sources``."""
    out = ""
    for k in p:
        out += "[]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def set_lists_in(table: dict) -> List[Path_]:
    """Every path of ``table`` holding a non-empty list that the format takes as a set."""
    sets = _schema_lists()
    return [p for p in leaves(table) if sets.get(_generic(p)) and isinstance(_parent(table, p)[p[-1]], list)
            and _parent(table, p)[p[-1]]]


def repeat_entry(draw, table: dict, p: Path_) -> None:
    """Repeats one entry of the list at ``p`` somewhere in it."""
    items = _parent(table, p)[p[-1]]
    if items:
        items.insert(draw(st.integers(0, len(items))), items[draw(st.integers(0, len(items) - 1))])


def _dump(table: dict) -> str:
    try:
        return tomli_w.dumps(table)
    except (TypeError, ValueError):  # e.g. an integer TOML cannot hold (2**64 - 1): write it as text
        return _dump_loosely(table)


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(SCENARIOS))
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        paths = leaves(table)
        if not paths:
            break
        op = draw(st.sampled_from(["drop", "replace", "replace", "scale", "unknown", "unknown_section",
                                   "array_for_table", "repeat_entry"]))
        p = draw(st.sampled_from(paths))
        parent = _parent(table, p)
        if op == "array_for_table":
            tables = tables_in(table)
            if tables:
                as_array(draw, table, draw(st.sampled_from(tables)))
        elif op == "repeat_entry":
            lists = [q for q in paths if isinstance(_parent(table, q)[q[-1]], list)]
            if lists:
                repeat_entry(draw, table, draw(st.sampled_from(lists)))
        elif op == "drop":
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
    return path.name, table, _dump(table)


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


#: Examples of each of the two mutations with one right answer.
SHAPE_EXAMPLES = max(4, EXAMPLES // 3)


@st.composite
def table_as_array(draw):
    """A shipped scenario with one of its tables written as an array."""
    path = draw(st.sampled_from(SCENARIOS))
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    p = draw(st.sampled_from(tables_in(table)))
    as_array(draw, table, p)
    return path.name, p, table, _dump(table)


@st.composite
def set_with_a_repeat(draw):
    """A shipped scenario with a list that is a set, one of its entries repeated."""
    candidates = []
    for path in SCENARIOS:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
        candidates += [(path, p) for p in set_lists_in(table)]
    path, p = draw(st.sampled_from(candidates))
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    repeat_entry(draw, table, p)
    return path.name, p, table, _dump(table)


_SHAPE_SETTINGS = settings(max_examples=SHAPE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                           database=None)


@_SHAPE_SETTINGS
@given(case=table_as_array())
def test_a_table_written_as_an_array_is_refused(case, tmp_path_factory):
    name, p, table, text = case
    check_scenario(f"# {name}, {_generic(p)} as an array\n{text}", tmp_path_factory.mktemp("shape"), table,
                   expect_error="expected a table")


@_SHAPE_SETTINGS
@given(case=set_with_a_repeat())
def test_a_set_with_a_repeated_entry_is_refused(case, tmp_path_factory):
    name, p, table, text = case
    check_scenario(f"# {name}, {_generic(p)} with an entry repeated\n{text}", tmp_path_factory.mktemp("set"),
                   table, expect_error="is listed twice")


def test_the_schema_names_the_sets_the_shipped_scenarios_use():
    sets = {k for k, is_set in _schema_lists().items() if is_set}
    assert {"stats.fairness_sources", "traffic.generators[].sources", "traffic.hotspots"} <= sets, sets
    assert not _schema_lists()["topology.dims"]  # a list that is not a set
    used = {_generic(p) for path in SCENARIOS for p in set_lists_in(tomllib.loads(path.read_text(encoding="utf-8")))}
    assert len(used) >= 2, used


def _expected_error(text: str):
    for line in text.splitlines():
        if line.startswith("# expect-error: "):
            return line[len("# expect-error: "):].strip()
    return None


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_fuzz_regression(path: Path, tmp_path):
    """The inputs the fuzzer (or the issue) found once stay fixed."""
    text = path.read_text(encoding="utf-8")
    check_scenario(text, tmp_path, expect_error=_expected_error(text))
