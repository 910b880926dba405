"""Parameter sweeps: the ``[sweep]`` table of a scenario, run point by point in parallel.

A scenario may hold a ``[sweep]`` table mapping key paths to lists of values::

    [sweep]
    "cc.ccti_timer" = ["20us", "250us", "500us"]
    "cc.marking_rate" = [1, 10, 20]

The points are the Cartesian product in the order the keys appear (the last key varies
fastest). Each point is one :func:`lnsim.run` with the user's overrides followed by the point's
own (``cc.ccti_timer="250us"``), written to ``DIR/points/<point id>/``. ``DIR/sweep.csv`` holds
one row per point: the swept keys (values as written), ``point``, ``status``, ``error``, then
every scalar field of the point's ``summary.json`` flattened with dots. ``DIR/sweep.json``
describes the sweep (scenario, keys, values, points).

The public entry points are :func:`lnsim.sweep` and :func:`lnsim.sweep_points`.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

try:  # Python >= 3.11
    import tomllib as _toml
except ImportError:  # pragma: no cover - Python 3.9/3.10
    import tomli as _toml  # type: ignore[no-redef]

from ._core import ScenarioError

#: File names of a sweep folder.
SWEEP_CSV = "sweep.csv"
SWEEP_JSON = "sweep.json"
POINTS_DIR = "points"
SWEEP_PNG = "sweep.png"

#: Columns of sweep.csv that follow the swept keys, before the summary fields.
POINT_COLUMNS = ["point", "status", "error"]
STATUS_OK = "ok"
STATUS_FAILED = "failed"

#: summary.json entries that are not scalars worth a column (per-node / per-flow objects).
SKIPPED_FIELDS = ("nodes", "flows", "fairness.per_destination")

#: Longest point id (folder name) before it is shortened with a hash.
MAX_ID_LEN = 160


# ---------------------------------------------------------------------------------------------
# reading the [sweep] table


def _load_toml(scenario: Path) -> dict:
    try:
        with open(scenario, "rb") as f:
            return _toml.load(f)
    except FileNotFoundError:
        raise ScenarioError(f"{scenario}: no such scenario file") from None
    except OSError as e:
        raise ScenarioError(f"{scenario}: cannot read: {e.strerror or e}") from None
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

    Raises :class:`lnsim.ScenarioError` when the file has no (or an empty) ``[sweep]`` table or
    an entry is not a non-empty list."""
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


def sweep_points(scenario) -> List[Dict[str, Any]]:
    """The points of a scenario's ``[sweep]`` table, in run order (Cartesian product, last key
    fastest). Each point is a dict ``{"point": id, "values": {key: value}, "overrides":
    ["key=<TOML literal>", ...], "dir": "points/<id>"}``."""
    sweep = read_sweep_table(scenario)
    keys = list(sweep)
    points: List[Dict[str, Any]] = []
    for combo in itertools.product(*(sweep[k] for k in keys)):
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


def _override_key(o: str) -> str:
    return o.split("=", 1)[0].strip()


def _scenario_name(scenario: Path, doc: dict, overrides: Sequence[str]) -> str:
    name = None
    for o in overrides:
        if _override_key(o) == "scenario.name" and "=" in o:
            raw = o.split("=", 1)[1].strip()
            try:
                name = _toml.loads(f"v = {raw}")["v"]
            except _toml.TOMLDecodeError:
                name = raw
    if name is None:
        name = (doc.get("scenario") or {}).get("name") if isinstance(doc.get("scenario"), dict) else None
    return str(name) if name else scenario.stem


# ---------------------------------------------------------------------------------------------
# summary.json -> one row


def flatten_summary(summary: dict) -> Dict[str, Any]:
    """Every scalar field of a summary.json, flattened with dots (``throughput.total_rx_gbps``);
    lists and the per-node / per-flow objects (:data:`SKIPPED_FIELDS`) are left out."""
    out: Dict[str, Any] = {}

    def walk(d: dict, prefix: str) -> None:
        for k, v in d.items():
            path = f"{prefix}{k}"
            if path in SKIPPED_FIELDS or isinstance(v, (list, tuple)):
                continue
            if isinstance(v, dict):
                walk(v, path + ".")
            else:
                out[path] = v

    walk(summary, "")
    return out


#: Field groups put first in sweep.csv (in this order); the rest follow in summary.json order.
FIRST_FIELDS = ("throughput.", "latency_ns.", "network_latency_ns.", "fairness.")


def _field_rank(name: str) -> int:
    for i, prefix in enumerate(FIRST_FIELDS):
        if name.startswith(prefix):
            return i
    return len(FIRST_FIELDS)


# ---------------------------------------------------------------------------------------------
# running


def _run_point(scenario: str, overrides: List[str], seed: Optional[int], out: str) -> Tuple[str, Any, float]:
    """One point (in a worker process): ``(status, flattened summary or error message, wall s)``."""
    import lnsim

    t0 = time.perf_counter()
    try:
        r = lnsim.run(scenario, overrides=overrides, seed=seed, out=out)
    except (lnsim.ScenarioError, lnsim.SimulationError) as e:
        return STATUS_FAILED, str(e), time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - reported as the point's error
        return STATUS_FAILED, f"{type(e).__name__}: {e}", time.perf_counter() - t0
    return STATUS_OK, flatten_summary(r.summary), time.perf_counter() - t0


class _Progress:
    """One overall progress bar (tqdm, on a terminal) or one line per finished point."""

    def __init__(self, total: int, mode: Optional[str]) -> None:
        self.total = total
        self.mode = mode
        self.done = 0
        self.failed = 0
        self.bar = None
        if mode == "bar":
            from tqdm import tqdm

            try:
                width = os.get_terminal_size(sys.stderr.fileno()).columns
            except (OSError, ValueError, AttributeError):
                width = 0
            # A terminal that reports no width (some pseudo-terminals) would get an empty bar.
            sizing = {"dynamic_ncols": True} if width > 0 else {"ncols": 80, "nrows": 24}
            self.bar = tqdm(total=total, unit="point", desc="sweep", file=sys.stderr, **sizing)

    def update(self, point: dict, status: str, payload: Any, wall: float) -> None:
        self.done += 1
        if status != STATUS_OK:
            self.failed += 1
            msg = f"lnsim: point {point['point']} failed: {payload}"
        else:
            rx = payload.get("throughput.total_rx_gbps")
            rx_s = f", rx {rx:.3f} Gbit/s" if isinstance(rx, (int, float)) else ""
            msg = f"[{self.done}/{self.total}] {point['point']}: ok ({wall:.2f} s{rx_s})"
        if self.bar is not None:
            if status != STATUS_OK:
                self.bar.write(msg, file=sys.stderr)
                self.bar.set_postfix(failed=self.failed)
            self.bar.update(1)
        elif self.mode == "lines":
            print(msg if status == STATUS_OK else f"[{self.done}/{self.total}] {msg}", file=sys.stderr, flush=True)
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


def _stop_workers(executor) -> None:
    """Cancels pending points and ends the worker processes this sweep started."""
    if hasattr(executor, "terminate_workers"):  # Python >= 3.14
        executor.terminate_workers()
        return
    procs = list((getattr(executor, "_processes", None) or {}).values())  # gone after shutdown()
    executor.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.terminate()
        except Exception:  # noqa: BLE001
            pass
    for p in procs:
        try:
            p.join(timeout=5)
        except Exception:  # noqa: BLE001
            pass


def run_sweep(
    scenario,
    overrides=None,
    out=None,
    jobs: Optional[int] = None,
    seed: Optional[int] = None,
    progress: Optional[str] = None,
):
    """Runs the sweep; returns ``(DataFrame of sweep.csv, out dir, number of failed points)``.

    ``progress``: ``"bar"`` (tqdm), ``"lines"`` (one line per point on stderr), ``"errors"``
    (only failed points, on stderr) or ``None`` (nothing)."""
    import pandas as pd

    import lnsim

    scenario = Path(scenario)
    user = lnsim._overrides(overrides)
    doc = _load_toml(scenario)
    points = sweep_points(scenario)
    keys = list(points[0]["values"])

    for o in user:
        if _override_key(o) in keys:
            raise ScenarioError(f"--set {o}: `{_override_key(o)}` is a swept key of {scenario} ([sweep] table)")
    if seed is not None and "sim.seed" in keys:
        raise ScenarioError(f"--seed {seed}: `sim.seed` is a swept key of {scenario} ([sweep] table)")
    if jobs is not None and jobs < 1:
        raise ScenarioError(f"--jobs {jobs}: expected at least 1")

    # Validate every point before running any: a bad key or value fails the sweep up front.
    for p in points:
        try:
            lnsim.validate(scenario, overrides=[*user, *p["overrides"]])
        except ScenarioError as e:
            raise ScenarioError(f"sweep point {p['point']} ({', '.join(p['overrides'])}): {e}") from None

    out_dir = Path(out) if out is not None else Path("results") / f"{_scenario_name(scenario, doc, user)}-sweep"
    points_dir = out_dir / POINTS_DIR
    points_dir.mkdir(parents=True, exist_ok=True)
    for p in points:  # a stale folder of an earlier sweep must not pass for this one's result
        d = out_dir / p["dir"]
        if (d / "summary.json").is_file():
            shutil.rmtree(d)

    n_jobs = min(jobs or os.cpu_count() or 1, len(points))
    results: List[Optional[Tuple[str, Any, float]]] = [None] * len(points)
    bar = None
    t0 = time.perf_counter()
    args = [(os.fspath(scenario), [*user, *p["overrides"]], seed, os.fspath(out_dir / p["dir"])) for p in points]
    if n_jobs == 1:
        bar = _Progress(len(points), progress)
        try:
            for i, a in enumerate(args):
                results[i] = _run_point(*a)
                bar.update(points[i], *results[i])
        finally:
            bar.close()
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        executor = ProcessPoolExecutor(max_workers=n_jobs)
        try:
            futures = {executor.submit(_run_point, *a): i for i, a in enumerate(args)}
            bar = _Progress(len(points), progress)  # after the workers are started
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as e:  # noqa: BLE001 - e.g. a worker killed by the OS
                    results[i] = (STATUS_FAILED, f"{type(e).__name__}: {e}", 0.0)
                bar.update(points[i], *results[i])
        except BaseException:
            _stop_workers(executor)
            raise
        finally:
            if bar is not None:
                bar.close()
        executor.shutdown(wait=True)
    wall = time.perf_counter() - t0

    rows = []
    for p, (status, payload, _) in zip(points, results):
        row: Dict[str, Any] = {k: csv_value(v) for k, v in p["values"].items()}
        row.update(point=p["point"], status=status, error=None if status == STATUS_OK else payload)
        if status == STATUS_OK:
            for k, v in payload.items():
                row.setdefault(k, v)
        rows.append(row)
    fields: List[str] = []
    for row in rows:
        fields.extend(k for k in row if k not in keys and k not in POINT_COLUMNS and k not in fields)
    fields.sort(key=_field_rank)  # stable: summary.json order within a group
    columns: List[str] = [*keys, *POINT_COLUMNS, *fields]
    df = pd.DataFrame(rows, columns=columns)
    df.to_csv(out_dir / SWEEP_CSV, index=False)

    failed = sum(1 for r in results if r[0] != STATUS_OK)
    meta = {
        "scenario": os.fspath(scenario),
        "overrides": user,
        "seed": seed,
        "keys": keys,
        "values": {k: [csv_value(v) for v in vals] for k, vals in read_sweep_table(scenario).items()},
        "points": [
            {
                "point": p["point"],
                "dir": p["dir"],
                "values": {k: csv_value(v) for k, v in p["values"].items()},
                "overrides": p["overrides"],
                "status": r[0],
            }
            for p, r in zip(points, results)
        ],
        "failed": failed,
        "jobs": n_jobs,
        "wall_time_s": round(wall, 3),
    }
    with open(out_dir / SWEEP_JSON, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return df, out_dir, failed


def sweep(scenario, overrides=None, out=None, jobs=None, seed=None, progress=False):
    """Runs every point of the scenario's ``[sweep]`` table and returns sweep.csv as a DataFrame.

    ``overrides`` (``--set`` strings or a dict) apply to every point, before the point's own;
    ``out`` is the sweep folder (default ``results/<scenario name>-sweep/``); ``jobs`` the number
    of points run at once (default: all cores); ``seed`` overrides ``sim.seed`` in every point;
    ``progress`` shows a progress bar on stderr (one line per point when stderr is not a
    terminal). Raises :class:`lnsim.ScenarioError` before running anything when the scenario has
    no ``[sweep]`` table or a point is invalid. A point that fails does not raise: its row has
    ``status == "failed"`` and the message in ``error`` (and a ``RuntimeWarning`` is issued).
    """
    mode = None
    if progress:
        mode = "bar" if _stderr_is_tty() else "lines"
    df, out_dir, failed = run_sweep(scenario, overrides=overrides, out=out, jobs=jobs, seed=seed, progress=mode)
    df.attrs["out_dir"] = str(out_dir)
    if failed:
        warnings.warn(f"{failed} of {len(df)} sweep points failed (see the error column)", RuntimeWarning, stacklevel=2)
    return df


def load_sweep(d) -> "Any":
    """Reads ``sweep.csv`` of a sweep folder as a DataFrame (``attrs["keys"]`` = swept keys)."""
    import pandas as pd

    d = Path(d)
    path = d / SWEEP_CSV
    if not path.is_file():
        raise FileNotFoundError(f"{d}: not a sweep folder (no {SWEEP_CSV})")
    df = pd.read_csv(path)
    df.attrs["out_dir"] = str(d)
    df.attrs["keys"] = sweep_keys(df, d)
    return df


def sweep_keys(df, d=None) -> List[str]:
    """The swept keys of a sweep DataFrame: ``sweep.json``'s list when the folder is known,
    else the columns before ``point``."""
    if d is not None and (Path(d) / SWEEP_JSON).is_file():
        try:
            with open(Path(d) / SWEEP_JSON, encoding="utf-8") as f:
                keys = json.load(f).get("keys")
            if keys and all(k in df.columns for k in keys):
                return list(keys)
        except (OSError, ValueError):
            pass
    if "keys" in getattr(df, "attrs", {}):
        return list(df.attrs["keys"])
    cols = list(df.columns)
    if "point" not in cols:
        raise ValueError("not a sweep table: no `point` column")
    return cols[: cols.index("point")]
