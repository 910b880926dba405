"""Parameter sweeps: the ``[sweep]`` table of a scenario, run point by point in parallel.

A scenario may hold a ``[sweep]`` table mapping key paths to lists of values::

    [sweep]
    "cc.ccti_timer" = ["20us", "250us", "500us"]
    "cc.marking_rate" = [1, 10, 20]

The points are the Cartesian product in the order the keys appear (the last key varies
fastest). Each point is one :func:`lnsim.run` with the user's overrides followed by the point's
own (``cc.ccti_timer="250us"``), written to ``DIR/points/<point id>/``. ``DIR/sweep.csv`` holds
one row per point: the swept keys (values as written), ``point``, ``status``, ``error``,
``seed``, then every scalar field of the point's ``summary.json`` flattened with dots.
``DIR/sweep.json`` describes the sweep (scenario, keys, values, seeds, points).

Seeds per point (``--seeds N``, ``seeds=N``): with N > 1 every point runs N times, with the
seeds ``base, base + 1, ..., base + N - 1``, where ``base`` is ``--seed`` if given, else the
``sim.seed`` of a ``--set`` override, else the scenario's ``sim.seed``, else 1 (the core's
default). Each run is written to ``DIR/points/<point id>/seed-<seed>/`` and is one row of
sweep.csv (rows ordered by point, then seed). With N = 1 (the default) the layout is the one
above: one run per point in ``DIR/points/<point id>/``, with the scenario's (or ``--seed``'s)
seed.

Swept keys can also come from the command line (``--grid key=v1,v2``, ``grid={...}``): they
are combined with the ``[sweep]`` table (Cartesian product); a ``--grid`` key the table also
sweeps replaces its list. A value listed twice is an input error (no point runs twice).

Every run is recorded in the sweep folder's results store, ``DIR/store.sqlite``
(:mod:`lnsim.store`), atomically and as soon as it ends; ``resume=True`` (``--resume``) keeps
the runs already recorded for the same scenario bytes, overrides, seed and lnsim version and
runs only the missing or failed ones. sweep.csv and sweep.json are written from the store at
the end (atomically): a sweep that was killed has none until it is resumed. Runs execute on a
local process pool or a Dask cluster (:mod:`lnsim.executors`).

The public entry points are :func:`lnsim.sweep` and :func:`lnsim.sweep_points`.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import sys
import time
import warnings
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

try:  # Python >= 3.11
    import tomllib as _toml
except ImportError:  # pragma: no cover - Python 3.9/3.10
    import tomli as _toml  # type: ignore[no-redef]

from . import _run
from ._core import ScenarioError, available_memory, parse_size, version
from ._outdir import (
    KIND_SWEEP,
    LOCK_FILE,
    FolderLock,
    OutputError,
    check_folder,
    check_replaceable,
    is_marked,
    prepare_folder,
    remove_folder,
    write_own_file,
)
from ._results import SKIPPED_FIELDS, flatten_summary  # SKIPPED_FIELDS: also a name of this module
from .store import STAGING_DIR, STORE_FILE

#: File names of a sweep folder.
SWEEP_CSV = "sweep.csv"
SWEEP_JSON = "sweep.json"
POINTS_DIR = "points"
SWEEP_PNG = "sweep.png"

#: Columns of sweep.csv that follow the swept keys, before the summary fields.
POINT_COLUMNS = ["point", "status", "error"]
#: Column after :data:`POINT_COLUMNS`: the seed the run used (one row per point and seed).
SEED_COLUMN = "seed"
#: Folder of one seed of a point when a sweep runs several seeds: ``points/<id>/seed-<s>/``.
SEED_DIR_PREFIX = "seed-"
#: ``sim.seed`` when neither the scenario nor the command line gives one (the core's default).
DEFAULT_SEED = 1
STATUS_OK = "ok"
STATUS_FAILED = "failed"

#: summary.json fields that measure the machine that ran a point, not the simulation: the only
#: fields that may differ between two executors (or two runs) of the same sweep.
HOST_FIELDS = ("wall_time_s", "setup_time_s", "peak_rss_bytes", "phit_hops_per_s")

#: Longest point id (folder name) before it is shortened with a hash.
MAX_ID_LEN = 160


# ---------------------------------------------------------------------------------------------
# reading the [sweep] table


def _load_toml(scenario: Path) -> dict:
    """The scenario file as a dict; read as the core reads it (:func:`lnsim._run.read_scenario`:
    a FIFO, a device or a file larger than ``MAX_INPUT_BYTES`` is refused, never read)."""
    text = _run.read_scenario(scenario)
    try:
        return _toml.loads(text)
    except _toml.TOMLDecodeError as e:
        raise ScenarioError(f"{scenario}: invalid TOML: {e}") from None


def _flatten_table(table: dict, prefix: str = "") -> List[Tuple[str, Any]]:
    """``[sweep]`` entries as ``(key path, values)``; unquoted dotted keys (``cc.x = [...]``)
    make nested tables, which are joined back into key paths."""
    out: List[Tuple[str, Any]] = []
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict):
            out.extend(_flatten_table(v, path + "."))
        else:
            out.append((path, v))
    return out


def read_sweep_table(scenario) -> Dict[str, list]:
    """The ``[sweep]`` table of a scenario file as ``{key path: [values]}`` in file order.

    Raises :class:`lnsim.ScenarioError` when the file has no (or an empty) ``[sweep]`` table, an
    entry is not a non-empty list, or a key path is swept twice (quoted and dotted)."""
    scenario = Path(scenario)
    doc = _load_toml(scenario)
    if "sweep" not in doc:
        raise ScenarioError(f"{scenario}: the scenario has no [sweep] table (key path -> list of values)")
    table = doc["sweep"]
    if not isinstance(table, dict):
        raise ScenarioError(f"{scenario}: key `sweep`: expected a table of key path -> list of values")
    entries = _flatten_table(table)
    if not entries:
        raise ScenarioError(f"{scenario}: the scenario has an empty [sweep] table")
    sweep: Dict[str, list] = {}
    for key, values in entries:
        if not isinstance(values, list):
            raise ScenarioError(
                f"{scenario}: key `sweep.\"{key}\"`: expected a list of values, e.g. \"{key}\" = [1, 2]"
            )
        if not values:
            raise ScenarioError(f"{scenario}: key `sweep.\"{key}\"`: the list of values is empty")
        if key in sweep:  # `"cc.x" = [...]` and `cc.x = [...]` (or `[sweep.cc]`) name one key
            raise ScenarioError(
                f"{scenario}: key `sweep.\"{key}\"`: swept twice (once as a quoted key path, once as dotted keys); "
                "list each key once"
            )
        sweep[key] = values
    return sweep


# ---------------------------------------------------------------------------------------------
# values, overrides and point ids


def toml_literal(v: Any) -> str:
    """``v`` as a TOML value literal (what ``--set key=...`` reads)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_literal(x)}" for k, x in v.items()) + "}"
    if hasattr(v, "isoformat"):  # TOML dates and times
        return v.isoformat()
    raise TypeError(f"cannot write {v!r} as a TOML value")


def _display(v: Any) -> str:
    """A value as shown in point ids and labels: strings bare, the rest as TOML."""
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return ",".join(_display(x) for x in v)
    return toml_literal(v)


def csv_value(v: Any) -> Any:
    """A swept value as stored in sweep.csv: scalars as they are, lists/tables as TOML."""
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return toml_literal(v)


_UNSAFE = re.compile(r"[^A-Za-z0-9._,=+\-]+")
_INDEX = re.compile(r"\[(\d+)\]")


def _safe(text: str) -> str:
    return _UNSAFE.sub("_", _INDEX.sub(r".\1", text))


def point_id(values: Dict[str, Any]) -> str:
    """Folder name of a point: ``key=value`` joined by ``__``, restricted to characters that are
    safe in file names and shells (``[0]`` becomes ``.0``, others become ``_``)."""
    pid = "__".join(f"{_safe(k)}={_safe(_display(v))}" for k, v in values.items())
    pid = pid.lstrip(".-") or "point"
    if len(pid) > MAX_ID_LEN:
        import hashlib

        digest = hashlib.sha1(pid.encode("utf-8")).hexdigest()[:10]
        pid = pid[: MAX_ID_LEN - 11] + "~" + digest
    return pid


def _split_top_level(text: str) -> List[str]:
    """``text`` split at the commas that are outside brackets, braces and quotes."""
    items, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    items.append("".join(cur))
    return items


def _grid_value(raw: str) -> Any:
    """One ``--grid`` value: a TOML literal (``0.5``, ``true``, ``"a,b"``, ``[1, 2]``) or, if it
    is not one, the bare text as a string (``min``, ``250us``) — as ``--set`` reads values."""
    raw = raw.strip()
    try:
        return _toml.loads(f"v = {raw}")["v"]
    except _toml.TOMLDecodeError:
        return raw


def parse_grid(grid) -> Dict[str, list]:
    """Swept keys given outside the scenario: ``["key=v1,v2", ...]`` (``--grid``) or a dict
    ``{key: [values]}``, as ``{key path: [values]}``. Raises :class:`lnsim.ScenarioError` for a
    malformed entry."""
    if not grid:
        return {}
    out: Dict[str, list] = {}
    items = grid.items() if isinstance(grid, dict) else grid
    for item in items:
        if isinstance(item, tuple):
            key, values = item
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                values = [values]
            values = list(values)
            where = f"grid key `{key}`"
        else:
            text = str(item)
            if "=" not in text:
                raise ScenarioError(f"--grid {text}: expected KEY=V1,V2,... (e.g. --grid traffic.load=0.1,0.2)")
            key, raw = text.split("=", 1)
            key = key.strip()
            values = [_grid_value(v) for v in _split_top_level(raw)]
            where = f"--grid {text}"
        if not key or not re.fullmatch(r"[A-Za-z0-9_.\[\]\-]+", key):
            raise ScenarioError(f"{where}: `{key}` is not a key path (e.g. traffic.load)")
        if not values or any(isinstance(v, str) and v == "" for v in values):
            raise ScenarioError(f"{where}: expected a non-empty list of values")
        if key in out:
            raise ScenarioError(f"{where}: `{key}` is given twice")
        out[key] = values
    return out


def sweep_table(scenario, grid=None) -> Dict[str, list]:
    """The swept keys of a sweep: the scenario's ``[sweep]`` table followed by ``grid`` (a
    ``--grid`` key that the table also sweeps replaces the table's list). Raises
    :class:`lnsim.ScenarioError` when there is nothing to sweep or a list repeats a value."""
    extra = parse_grid(grid)
    doc = _load_toml(Path(scenario))
    if "sweep" in doc:
        table = read_sweep_table(scenario)
    elif extra:
        table = {}
    else:
        raise ScenarioError(
            f"{scenario}: the scenario has no [sweep] table (key path -> list of values) and no --grid was given"
        )
    table = dict(table)
    table.update(extra)
    for key, values in table.items():
        seen = []
        for v in values:
            lit = toml_literal(v)
            if lit in seen:
                raise ScenarioError(f"swept key `{key}`: the value {lit} is listed twice (a point is never run twice)")
            seen.append(lit)
    return table


#: Most runs (points × seeds) one sweep may have: each is a folder and a row, and every point is
#: validated before any runs.
MAX_RUNS = 1_000_000


def _points_of(table: Dict[str, list]) -> List[Dict[str, Any]]:
    keys = list(table)
    n = 1
    for k in keys:
        n *= len(table[k])
    if n > MAX_RUNS:
        sizes = " × ".join(str(len(table[k])) for k in keys)
        raise ScenarioError(f"[sweep]: {sizes} = {n} points; at most {MAX_RUNS:,} (split the sweep)")
    points: List[Dict[str, Any]] = []
    for combo in itertools.product(*(table[k] for k in keys)):
        values = dict(zip(keys, combo))
        points.append(
            {
                "point": point_id(values),
                "values": values,
                "overrides": [f"{k}={toml_literal(v)}" for k, v in values.items()],
            }
        )
    # Distinct values can give the same folder name once sanitised ("a/b", "a_b"): number them.
    seen: Dict[str, int] = {}
    for p in points:
        seen[p["point"]] = seen.get(p["point"], 0) + 1
    for i, p in enumerate(points):
        if seen[p["point"]] > 1:
            p["point"] = f"{p['point']}~{i + 1}"
    for p in points:
        p["dir"] = f"{POINTS_DIR}/{p['point']}"
    return points


def sweep_points(scenario, grid=None) -> List[Dict[str, Any]]:
    """The points of a sweep (the scenario's ``[sweep]`` table plus ``grid``), in run order
    (Cartesian product, last key fastest). Each point is a dict ``{"point": id, "values": {key:
    value}, "overrides": ["key=<TOML literal>", ...], "dir": "points/<id>"}``."""
    return _points_of(sweep_table(scenario, grid))


def _override_key(o: str) -> str:
    return o.split("=", 1)[0].strip()


def _scenario_name(scenario: Path, doc: dict, overrides: Sequence[str]) -> str:
    _, name = _override_value(overrides, "scenario.name")
    if name is None:
        name = (doc.get("scenario") or {}).get("name") if isinstance(doc.get("scenario"), dict) else None
    return str(name) if name else scenario.stem


# ---------------------------------------------------------------------------------------------
# summary.json -> one row


#: Throughput columns of sweep.csv in Gbit/s -> the same in GB/s (10^9 bytes/s), the one unit of
#: a sweep's printed table, report and figures ([Z] compares aggregates in GB/s).
GBYTES_COLUMNS = {
    "throughput.total_rx_gbps": "throughput.total_rx_gbytes_per_s",
    "throughput.total_tx_gbps": "throughput.total_tx_gbytes_per_s",
    "throughput.rx_gbps_after_warmup": "throughput.rx_gbytes_per_s_after_warmup",
    "throughput.tx_gbps_after_warmup": "throughput.tx_gbytes_per_s_after_warmup",
}


def with_gbytes(df):
    """``df`` (a sweep table) with every throughput column of :data:`GBYTES_COLUMNS` also in
    GB/s (Gbit/s ÷ 8) where sweep.csv lacks it; the table is not modified (a copy is returned
    when a column is added)."""
    from ._read import sweep_numbers

    missing = {g: b for g, b in GBYTES_COLUMNS.items() if g in df.columns and b not in df.columns}
    if not missing:
        return df
    out = df.copy()
    out.attrs = dict(df.attrs)
    for gbps, gbytes in missing.items():
        out[gbytes] = sweep_numbers(df, gbps) / 8.0
    return out


#: Field groups put first in sweep.csv (in this order); the rest follow in summary.json order.
#: The first four are the credit-level model's, the others the cycle-level model's.
FIRST_FIELDS = (
    "throughput.",
    "latency_ns.",
    "network_latency_ns.",
    "fairness.",
    "offered_load",
    "accepted_load",
    "injected_load",
    "latency_cycles.",
    "network_latency_cycles.",
    "nonminimal_fraction",
    "saturated",
    "saturation_undecided",
)


def _field_rank(name: str) -> int:
    for i, prefix in enumerate(FIRST_FIELDS):
        if name.startswith(prefix):
            return i
    return len(FIRST_FIELDS)


# ---------------------------------------------------------------------------------------------
# seeds


def _override_value(overrides: Sequence[str], key: str) -> Tuple[bool, Any]:
    """``(found, value)`` of the last ``key=...`` among ``--set`` overrides (the value parsed as
    TOML, or the raw text when it is not a TOML literal)."""
    found, value = False, None
    for o in overrides:
        if "=" in o and _override_key(o) == key:
            raw = o.split("=", 1)[1].strip()
            try:
                value = _toml.loads(f"v = {raw}")["v"]
            except _toml.TOMLDecodeError:
                value = raw
            found = True
    return found, value


def base_seed(doc: dict, overrides: Sequence[str], seed: Optional[int]) -> Any:
    """The seed of a sweep's first seed per point: ``seed`` (``--seed``) if given, else a
    ``sim.seed`` override, else the scenario's ``sim.seed``, else :data:`DEFAULT_SEED`.
    The value is returned as found (it is checked where it must be an integer)."""
    if seed is not None:
        return seed
    found, value = _override_value(overrides, "sim.seed")
    if found:
        return value
    sim = doc.get("sim")
    if isinstance(sim, dict) and "seed" in sim:
        return sim["seed"]
    return DEFAULT_SEED


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def sweep_runs(points: List[Dict[str, Any]], seeds: int, base: Any, seed: Optional[int]) -> List[Dict[str, Any]]:
    """The runs of a sweep, point by point and seed by seed: dicts ``{"point": <point dict>,
    "seed": the seed used (``None`` if unknown), "seed_arg": the ``seed`` given to
    :func:`lnsim.run`, "dir": folder relative to the sweep folder, "label": name in progress
    messages}``. With ``seeds == 1`` a run is its point (folder ``points/<id>``, ``seed``
    passed on unchanged); with more, seed ``base + i`` runs in ``points/<id>/seed-<base + i>``."""
    runs: List[Dict[str, Any]] = []
    for p in points:
        if seeds == 1:
            used = p["values"].get("sim.seed", base)
            runs.append(
                {"point": p, "seed": used if _is_int(used) else None, "seed_arg": seed, "dir": p["dir"],
                 "label": p["point"]}
            )
            continue
        for i in range(seeds):
            s = base + i
            runs.append(
                {"point": p, "seed": s, "seed_arg": s, "dir": f"{p['dir']}/{SEED_DIR_PREFIX}{s}",
                 "label": f"{p['point']} seed {s}"}
            )
    return runs


def _check_seeds(scenario: Path, keys: List[str], seeds: int, base: Any, seed: Optional[int]) -> None:
    """Raises :class:`lnsim.ScenarioError` for a seeds request that cannot be honoured."""
    from ._run import MAX_SEED

    if not _is_int(seeds) or seeds < 1:
        raise ScenarioError(f"--seeds {seeds}: expected a whole number of at least 1")
    if seeds > MAX_RUNS:
        raise ScenarioError(f"--seeds {seeds}: at most {MAX_RUNS:,} runs per point")
    if seed is not None and "sim.seed" in keys:
        raise ScenarioError(f"--seed {seed}: `sim.seed` is a swept key of {scenario} ([sweep] table)")
    if seeds > 1 and "sim.seed" in keys:
        raise ScenarioError(f"--seeds {seeds}: `sim.seed` is a swept key of {scenario} ([sweep] table)")
    if seeds > 1 and (not _is_int(base) or base < 0):
        raise ScenarioError(f"--seeds {seeds}: the base seed sim.seed = {base!r} is not a non-negative integer")
    if seeds > 1 and base + seeds - 1 > MAX_SEED:
        raise ScenarioError(
            f"--seeds {seeds}: the seeds {base} … {base + seeds - 1} go beyond the largest seed {MAX_SEED}"
        )


def _clear_stale(out_dir: Path, points: List[Dict[str, Any]]) -> None:
    """Removes the folders of an earlier sweep's points (with one or several seeds): they must
    not pass for this sweep's results. Only folders lnsim wrote are removed (see
    :func:`lnsim._outdir.is_replaceable`); folders without results are left alone."""
    for p in points:
        d = out_dir / p["dir"]
        if not d.is_dir():
            continue
        seeded = any((s / "summary.json").is_file() for s in d.glob(f"{SEED_DIR_PREFIX}*"))
        if (d / "summary.json").is_file() or seeded:
            remove_folder(d)  # only when lnsim wrote it


# ---------------------------------------------------------------------------------------------
# run identity


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes (the ``scenario_hash`` of the store)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_key(scenario_hash: str, overrides: Sequence[str], seed_arg: Optional[int], version: str) -> str:
    """Identity of a run in the results store: the same scenario bytes, overrides (in order),
    seed argument and lnsim version are the same simulation."""
    import hashlib

    text = json.dumps([scenario_hash, list(overrides), seed_arg, version], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# running


def _outcome(payload: dict) -> str:
    """The figures shown for a finished run: received rate (credit-level model) or accepted load
    and mean latency (cycle-level model)."""
    rx = payload.get("throughput.total_rx_gbps")
    if isinstance(rx, (int, float)):
        return f", rx {rx:.3f} Gbit/s"
    acc = payload.get("accepted_load")
    if isinstance(acc, (int, float)):
        lat = payload.get("latency_cycles.mean")
        lat_s = f", latency {lat:.1f} cycles" if isinstance(lat, (int, float)) else ""
        sat = ", saturated" if payload.get("saturated") is True else ""
        if payload.get("saturation_undecided") is True:
            sat += ", saturation undecided"
        return f", accepted {acc:.4g}{lat_s}{sat}"
    return ""


def _fmt_eta(seconds: Optional[float]) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class _Progress:
    """The one progress display of a sweep: runs done / total, running, failed and the estimated
    time left — a tqdm bar on a terminal, else one line per finished run."""

    def __init__(self, total: int, mode: Optional[str], unit: str = "point", reused: int = 0,
                 where: str = "") -> None:
        self.total = total
        self.mode = mode
        self.done = 0
        self.failed = 0
        self.running = 0
        self.t0 = time.monotonic()
        self.bar = None
        if mode == "bar" and _in_notebook():  # a notebook widget (or text bar without ipywidgets)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from tqdm.auto import tqdm as auto_tqdm
            self.bar = auto_tqdm(total=total, unit=unit, desc="sweep")
        elif mode == "bar":
            from tqdm import tqdm

            try:
                width = os.get_terminal_size(sys.stderr.fileno()).columns
            except (OSError, ValueError, AttributeError):
                width = 0
            # A terminal that reports no width (some pseudo-terminals) would get an empty bar.
            sizing = {"dynamic_ncols": True} if width > 0 else {"ncols": 100, "nrows": 24}
            self.bar = tqdm(total=total, unit=unit, desc="sweep", file=sys.stderr, **sizing)
        if reused and mode in ("bar", "lines"):
            self._say(f"lnsim: resuming: {reused} {unit}s already in the store, {total} to run{where}")
        elif mode in ("bar", "lines") and where:
            self._say(f"lnsim: {total} {unit}s to run{where}")

    def _say(self, msg: str) -> None:
        if self.bar is not None:
            self.bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr, flush=True)

    def eta(self) -> Optional[float]:
        if self.done == 0:
            return None
        return (time.monotonic() - self.t0) / self.done * (self.total - self.done)

    def _postfix(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix(running=self.running, failed=self.failed, refresh=True)

    def tick(self, running: int) -> None:
        """Refreshes the running count (called while waiting)."""
        if running != self.running:
            self.running = running
            self._postfix()

    def update(self, label: str, status: str, payload: Any, wall: float, running: int) -> None:
        self.done += 1
        self.running = running
        if status != STATUS_OK:
            self.failed += 1
            msg = f"lnsim: point {label} failed: {payload}"
        else:
            msg = f"[{self.done}/{self.total}] {label}: ok ({wall:.2f} s{_outcome(payload)})"
        if self.bar is not None:
            if status != STATUS_OK:
                self.bar.write(msg, file=sys.stderr)
            self._postfix()
            self.bar.update(1)
        elif self.mode == "lines":
            state = f"running {self.running}, failed {self.failed}, left {_fmt_eta(self.eta())}"
            line = msg if status == STATUS_OK else f"[{self.done}/{self.total}] {msg}"
            print(f"{line} | {state}", file=sys.stderr, flush=True)
        elif self.mode == "errors" and status != STATUS_OK:
            print(msg, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (notebook, JupyterLab, VS Code notebooks)."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        shell = sys.modules["IPython"].get_ipython()
    except (KeyError, AttributeError):
        return False
    return shell is not None and "zmq" in type(shell).__name__.lower()


#: ``progress`` values of :func:`lnsim.sweep` given as text.
PROGRESS_MODES = ("bar", "lines", "errors")


def progress_mode(progress) -> Optional[str]:
    """The progress display of :func:`lnsim.sweep` for its ``progress`` argument: ``None``
    (the default) shows a tqdm bar when stderr is a terminal or in a Jupyter notebook and
    nothing otherwise; ``True`` a bar there and else one line per finished run on stderr;
    ``False`` nothing; or one of :data:`PROGRESS_MODES`."""
    if isinstance(progress, str):
        if progress not in PROGRESS_MODES:
            raise ScenarioError(f"progress={progress!r}: expected True, False, None or one of "
                                f"{', '.join(map(repr, PROGRESS_MODES))}")
        return progress
    interactive = _stderr_is_tty() or _in_notebook()
    if progress is None:
        return "bar" if interactive else None
    return ("bar" if interactive else "lines") if progress else None


def _table(keys: List[str], runs: List[Dict[str, Any]], records: Dict[str, Dict[str, Any]]):
    """sweep.csv as a DataFrame: one row per run, from the store's records."""
    import pandas as pd

    rows = []
    for run in runs:
        rec = records[run["key"]]
        p = run["point"]
        row: Dict[str, Any] = {k: csv_value(v) for k, v in p["values"].items()}
        ok = rec["status"] == STATUS_OK
        row.update(point=p["point"], status=rec["status"], error=None if ok else rec["error"])
        row[SEED_COLUMN] = run["seed"]
        if ok:
            payload = rec["summary"] or {}
            if payload.get(SEED_COLUMN) is not None:
                row[SEED_COLUMN] = payload[SEED_COLUMN]  # what the core used
            for k, v in payload.items():
                row.setdefault(k, v)
        rows.append(row)
    head = [*keys, *POINT_COLUMNS, SEED_COLUMN]
    fields: List[str] = []
    for row in rows:
        fields.extend(k for k in row if k not in head and k not in fields)
    fields.sort(key=_field_rank)  # stable: summary.json order within a group
    return pd.DataFrame(rows, columns=[*head, *fields])


def _meta(scenario: Path, user, seed, seeds, base, table, points, runs, records, executor, stats) -> dict:
    """The content of sweep.json."""
    by_point: Dict[str, List[dict]] = {}
    for run in runs:
        rec = records[run["key"]]
        by_point.setdefault(run["point"]["point"], []).append(
            {"seed": run["seed"], "dir": run["dir"], "status": rec["status"], "run_key": run["key"]}
        )
    return {
        "scenario": os.fspath(scenario),
        "scenario_hash": stats["scenario_hash"],
        "version": stats["version"],
        "overrides": user,
        "seed": seed,
        "seeds": seeds,
        "base_seed": base if _is_int(base) else None,
        "keys": list(table),
        "values": {k: [csv_value(v) for v in vals] for k, vals in table.items()},
        "grid": stats["grid"],
        "points": [
            {
                "point": p["point"],
                "dir": p["dir"],
                "values": {k: csv_value(v) for k, v in p["values"].items()},
                "overrides": p["overrides"],
                "status": STATUS_OK if all(r["status"] == STATUS_OK for r in by_point[p["point"]]) else STATUS_FAILED,
                "runs": by_point[p["point"]],
            }
            for p in points
        ],
        "runs": len(runs),
        "failed": sum(1 for r in runs if records[r["key"]]["status"] != STATUS_OK),
        "simulated": stats["simulated"],
        "reused": stats["reused"],
        "executor": executor,
        "jobs": stats["jobs"],
        "store": STORE_FILE,
        "wall_time_s": round(stats["wall"], 3),
    }


def _remove_run_files(out_dir: Path, rec: Dict[str, Any], keep_dirs: set) -> None:
    """Deletes the files a store record lists (and its folder once empty), unless its folder is
    one this sweep writes anyway."""
    d = out_dir / rec["dir"]
    if rec["dir"] in keep_dirs or not d.is_dir() or not is_marked(d):
        return
    for name in rec.get("tables") or []:
        try:
            (d / name).unlink()
        except OSError:
            pass
    for sub in sorted((p for p in d.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        try:
            sub.rmdir()
        except OSError:
            pass
    try:
        d.rmdir()
    except OSError:
        pass


def _check_own_entries(out_dir: Path) -> None:
    """Raises :class:`OutputError` when an entry of the sweep folder that lnsim writes (the
    ``points/`` and ``.staging/`` folders, the store, the tables) is a symbolic link or not the
    kind of entry lnsim writes (a folder where a file belongs, or the reverse): lnsim never
    writes through a link, nor over something it did not write."""
    folders = (POINTS_DIR, STAGING_DIR)
    for name in (*folders, STORE_FILE, SWEEP_CSV, SWEEP_JSON, LOCK_FILE):
        p = out_dir / name
        if not os.path.lexists(p):
            continue
        if p.is_symlink() or p.is_dir() != (name in folders):
            raise OutputError(f"sweep folder {out_dir}: {p} is not the {'folder' if name in folders else 'file'} "
                              "lnsim writes there; choose another --out, or move it away yourself")


def run_sweep(
    scenario,
    overrides=None,
    out=None,
    jobs: Optional[int] = None,
    seed: Optional[int] = None,
    progress: Optional[str] = None,
    seeds: int = 1,
    grid=None,
    dask=None,
    resume: bool = False,
    max_memory=None,
):
    """Runs the sweep; returns ``(DataFrame of sweep.csv, out dir, number of failed runs)``.

    ``grid``: extra swept keys (``{key: [values]}`` or ``--grid key=v1,v2`` strings), combined
    with the scenario's ``[sweep]`` table. ``seeds``: runs per point (see the module
    documentation for the seed values and folders). ``dask``: a scheduler address or a
    ``distributed.Client`` (default: the local pool, or :data:`lnsim.executors.DASK_ENV`).
    ``resume``: keep the runs already in the folder's store and run only the missing (or
    failed) ones. ``max_memory``: bytes or a size (``"4GiB"``) no point may exceed (default: the
    memory available); the local pool then runs only as many points at once as fit in it.
    ``progress``: ``"bar"`` (tqdm), ``"lines"`` (one line per run on stderr),
    ``"errors"`` (only failed runs, on stderr) or ``None`` (nothing).

    While it writes the folder the sweep holds its lock (:class:`lnsim._outdir.FolderLock`): a
    second sweep on the same folder is refused (exit status 2) instead of discarding or
    rewriting the first one's runs."""
    with ExitStack() as held:
        return _run_sweep(scenario, overrides, out, jobs, seed, progress, seeds, grid, dask, resume, max_memory,
                          held)


def _run_sweep(scenario, overrides, out, jobs, seed, progress, seeds, grid, dask, resume, max_memory,
               held: ExitStack):
    """:func:`run_sweep`'s work; ``held`` releases the folder's lock when the sweep ends."""
    from .executors import make_executor
    from .store import ResultsStore

    scenario = Path(scenario)
    user = _run._overrides(overrides)
    doc = _load_toml(scenario)
    extra = parse_grid(grid)
    table = sweep_table(scenario, extra)
    points = _points_of(table)
    keys = list(table)

    for o in user:
        if _override_key(o) in keys:
            raise ScenarioError(f"--set {o}: `{_override_key(o)}` is a swept key of {scenario} ([sweep] table or --grid)")
    seed = _run.check_seed(seed, "--seed")
    limit = _run._max_memory(max_memory)
    base = base_seed(doc, user, seed)
    _check_seeds(scenario, keys, seeds, base, seed)
    if len(points) * seeds > MAX_RUNS:
        raise ScenarioError(f"--seeds {seeds}: {len(points)} points × {seeds} seeds is more than {MAX_RUNS:,} runs")
    if jobs is not None and jobs < 1:
        raise ScenarioError(f"--jobs {jobs}: expected at least 1")

    # Validate every point before running any: a bad key or value (or a point that would not
    # fit in memory) fails the sweep up front.
    largest = 0
    for p in points:
        try:
            _run.validate(scenario, overrides=[*user, *p["overrides"]], max_memory=limit)
        except ScenarioError as e:
            raise ScenarioError(f"sweep point {p['point']} ({', '.join(p['overrides'])}): {e}") from None
        try:
            largest = max(largest, _run.estimate_memory(scenario, [*user, *p["overrides"]])["total"])
        except ScenarioError:  # only limits how many run at once; validate has judged the point
            pass
    # the local pool runs only as many points at once as fit in the memory
    room = parse_size(limit) if limit is not None else available_memory()
    max_local = max(1, room // largest) if room and largest else None

    lnsim_version = version()
    scen_hash = file_hash(scenario)
    runs = sweep_runs(points, seeds, base, seed)
    for r in runs:
        r["overrides"] = [*user, *r["point"]["overrides"]]
        r["key"] = run_key(scen_hash, r["overrides"], r["seed_arg"], lnsim_version)

    out_dir = Path(out) if out is not None else Path("results") / f"{_scenario_name(scenario, doc, user)}-sweep"
    # the sweep folder: absent, empty, or a sweep folder lnsim wrote (nothing else is touched)
    protect = [(scenario.parent, "the scenario file's folder")]
    check_folder(out_dir, "sweep folder", protect=protect, kinds=[KIND_SWEEP])
    _check_own_entries(out_dir)
    wanted = min(jobs or os.cpu_count() or 1, max(len(runs), 1))
    from .executors import DASK_ENV

    local = dask is None and not os.environ.get(DASK_ENV)
    if max_local is not None and max_local < wanted and local and progress is not None:
        print(
            f"lnsim: running at most {max_local} at once, not {wanted}: a point needs up to "
            f"{largest / 2**30:.2f} GiB and {room / 2**30:.2f} GiB is available",
            file=sys.stderr,
            flush=True,
        )
    executor = make_executor(jobs, len(runs), dask, max_local)  # fails fast on an unreachable scheduler
    try:
        prepare_folder(out_dir, KIND_SWEEP, "sweep folder", protect=protect, kinds=[KIND_SWEEP])
        held.enter_context(FolderLock(out_dir))  # before the store is read: one writer at a time
        points_dir = out_dir / POINTS_DIR
        points_dir.mkdir(parents=True, exist_ok=True)
        store = ResultsStore(out_dir)
    except BaseException:
        executor.close()
        raise
    try:
        current = {r["key"]: r for r in runs}
        run_dirs = {r["dir"] for r in runs}
        existing = store.records()
        keep = {}
        if resume:
            keep = {
                k: rec
                for k, rec in existing.items()
                if rec["status"] == STATUS_OK and k in current and rec["dir"] == current[k]["dir"]
                and all((out_dir / rec["dir"] / t).is_file() for t in rec["tables"] or [])
            }
        todo = [r for r in runs if r["key"] not in keep]
        for r in todo:  # every run folder to be (re)written must be lnsim's: checked before any change
            check_replaceable(out_dir / r["dir"], f"run folder of point {r['label']}")
    except BaseException:
        store.close()
        executor.close()
        raise
    try:
        store.clear_staging()
        for name in (SWEEP_CSV, SWEEP_JSON):  # rewritten at the end: no stale table meanwhile
            try:
                (out_dir / name).unlink()
            except FileNotFoundError:
                pass
        stale = [rec for k, rec in existing.items() if k not in keep]
        if stale and progress is not None:
            why = "they are not runs of this sweep" if resume else "no --resume"
            print(f"lnsim: discarding {len(stale)} runs recorded in {store.path} ({why})", file=sys.stderr, flush=True)
        for rec in stale:
            _remove_run_files(out_dir, rec, run_dirs)
        store.delete(rec["run_key"] for rec in stale)
        if not resume:
            _clear_stale(out_dir, points)  # folders of a sweep written before the store existed

        tasks = [(os.fspath(scenario.resolve()), r["overrides"], r["seed_arg"], limit) for r in todo]
        unit = "point" if seeds == 1 else "run"
        where = f" on {executor.name} ({executor.slots} at once)" if executor.name.startswith("dask") else ""
        bar = _Progress(len(todo), progress, unit, reused=len(keep), where=where)
        t0 = time.perf_counter()
        try:
            for i, outcome in executor.run(tasks):
                if i < 0:
                    bar.tick(executor.running())
                    continue
                r = todo[i]
                ok = outcome["status"] == STATUS_OK
                summary = flatten_summary(outcome["summary"]) if ok else None
                record = {
                    "run_key": r["key"],
                    "point": r["point"]["point"],
                    "seed": r["seed"],
                    "dir": r["dir"],
                    "scenario": os.fspath(scenario),
                    "scenario_hash": scen_hash,
                    "overrides": r["overrides"],
                    "point_values": {k: csv_value(v) for k, v in r["point"]["values"].items()},
                    "version": lnsim_version,
                    "status": outcome["status"],
                    "error": None if ok else outcome["error"],
                    "summary": summary,
                    "wall_time_s": outcome.get("wall_time_s"),
                    "worker": outcome.get("worker"),
                }
                if ok and record["seed"] is None and _is_int(summary.get(SEED_COLUMN)):
                    record["seed"] = summary[SEED_COLUMN]
                # a failed run that still has files (it deadlocked) keeps its folder
                store.commit_run(record, outcome.get("files"))
                bar.update(r["label"], outcome["status"], summary if ok else outcome["error"],
                           outcome.get("wall_time_s") or 0.0, executor.running())
        finally:
            bar.close()
            executor.close()
        wall = time.perf_counter() - t0

        records = store.records()
    finally:
        store.clear_staging()  # only lnsim's leftovers, then the folder itself once empty
        store.close()
    df = _table(keys, runs, records)
    write_own_file(out_dir / SWEEP_CSV, df.to_csv(index=False))
    stats = {
        "scenario_hash": scen_hash,
        "version": lnsim_version,
        "grid": {k: [csv_value(v) for v in vals] for k, vals in extra.items()},
        "simulated": len(todo),
        "reused": len(keep),
        "jobs": executor.slots,
        "wall": wall,
    }
    meta = _meta(scenario, user, seed, seeds, base, table, points, runs, records, executor.name, stats)
    write_own_file(out_dir / SWEEP_JSON, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return df, out_dir, meta["failed"]


def sweep(scenario, overrides=None, out=None, jobs=None, seed=None, progress=None, seeds=1, grid=None,
          dask=None, resume=False, max_memory=None):
    """Runs every point of a sweep and returns sweep.csv as a DataFrame (see
    :func:`lnsim.sweep`; ``progress``: :func:`progress_mode`)."""
    mode = progress_mode(progress)
    df, out_dir, failed = run_sweep(
        scenario, overrides=overrides, out=out, jobs=jobs, seed=seed, progress=mode, seeds=seeds, grid=grid,
        dask=dask, resume=resume, max_memory=max_memory,
    )
    df.attrs["out_dir"] = str(out_dir)
    df.attrs["keys"] = sweep_keys(df, out_dir)
    if failed:
        what = "points" if seeds == 1 else "runs"
        warnings.warn(f"{failed} of {len(df)} sweep {what} failed (see the error column)", RuntimeWarning, stacklevel=2)
    return df


def load_sweep(d) -> "Any":
    """Reads ``sweep.csv`` of a sweep folder as a DataFrame (``attrs["keys"]`` = swept keys,
    ``attrs["path"]`` = the file). Raises :class:`lnsim.ResultsError` naming the file, line and
    column when it is not a CSV table with the ``point`` and ``status`` columns."""

    from ._read import SWEEP_TABLE, ResultsError, read_table

    d = Path(d)
    path = d / SWEEP_CSV
    if not path.is_file():
        raise FileNotFoundError(f"{d}: not a sweep folder (no {SWEEP_CSV})")
    df = read_table(path, SWEEP_TABLE)  # a corrupt table raises ResultsError naming it
    if df.empty:
        raise ResultsError(path, "no rows (a sweep has at least one point; was the file cut short?)", line=2)
    df.attrs["out_dir"] = str(d)
    df.attrs["keys"] = sweep_keys(df, d)
    return df


def sweep_keys(df, d=None) -> List[str]:
    """The swept keys of a sweep DataFrame: ``sweep.json``'s list when the folder is known (a
    corrupt sweep.json raises :class:`lnsim.ResultsError`), else the columns before ``point``."""
    if d is not None and (Path(d) / SWEEP_JSON).is_file():
        from ._read import read_sweep_meta

        keys = read_sweep_meta(Path(d) / SWEEP_JSON).get("keys")  # corrupt: ResultsError
        if keys and all(k in df.columns for k in keys):
            return list(keys)
    if "keys" in getattr(df, "attrs", {}):
        return list(df.attrs["keys"])
    cols = list(df.columns)
    if "point" not in cols:
        raise ValueError("not a sweep table: no `point` column")
    return cols[: cols.index("point")]
