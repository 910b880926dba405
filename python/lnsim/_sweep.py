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
#: Column after :data:`POINT_COLUMNS`: the seed the run used (one row per point and seed).
SEED_COLUMN = "seed"
#: Folder of one seed of a point when a sweep runs several seeds: ``points/<id>/seed-<s>/``.
SEED_DIR_PREFIX = "seed-"
#: ``sim.seed`` when neither the scenario nor the command line gives one (the core's default).
DEFAULT_SEED = 1
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
    _, name = _override_value(overrides, "scenario.name")
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
#: The first four are the InfiniBand model's, the others the cycle-level model's.
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
    if not _is_int(seeds) or seeds < 1:
        raise ScenarioError(f"--seeds {seeds}: expected a whole number of at least 1")
    if seed is not None and "sim.seed" in keys:
        raise ScenarioError(f"--seed {seed}: `sim.seed` is a swept key of {scenario} ([sweep] table)")
    if seeds > 1 and "sim.seed" in keys:
        raise ScenarioError(f"--seeds {seeds}: `sim.seed` is a swept key of {scenario} ([sweep] table)")
    if seeds > 1 and (not _is_int(base) or base < 0):
        raise ScenarioError(f"--seeds {seeds}: the base seed sim.seed = {base!r} is not a non-negative integer")


def _clear_stale(out_dir: Path, points: List[Dict[str, Any]]) -> None:
    """Removes the folders of an earlier sweep's points (with one or several seeds): they must
    not pass for this sweep's results. Folders without results are left alone."""
    for p in points:
        d = out_dir / p["dir"]
        if not d.is_dir():
            continue
        seeded = any((s / "summary.json").is_file() for s in d.glob(f"{SEED_DIR_PREFIX}*"))
        if (d / "summary.json").is_file() or seeded:
            shutil.rmtree(d)


# ---------------------------------------------------------------------------------------------
# running


def _run_point(scenario: str, overrides: List[str], seed: Optional[int], out: str) -> Tuple[str, Any, float]:
    """One run (in a worker process): ``(status, flattened summary or error message, wall s)``."""
    import lnsim

    t0 = time.perf_counter()
    try:
        r = lnsim.run(scenario, overrides=overrides, seed=seed, out=out)
    except (lnsim.ScenarioError, lnsim.SimulationError) as e:
        return STATUS_FAILED, str(e), time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - reported as the point's error
        return STATUS_FAILED, f"{type(e).__name__}: {e}", time.perf_counter() - t0
    return STATUS_OK, flatten_summary(r.summary), time.perf_counter() - t0


def _outcome(payload: dict) -> str:
    """The figures shown for a finished run: received rate (InfiniBand model) or accepted load
    and mean latency (cycle-level model)."""
    rx = payload.get("throughput.total_rx_gbps")
    if isinstance(rx, (int, float)):
        return f", rx {rx:.3f} Gbit/s"
    acc = payload.get("accepted_load")
    if isinstance(acc, (int, float)):
        lat = payload.get("latency_cycles.mean")
        lat_s = f", latency {lat:.1f} cycles" if isinstance(lat, (int, float)) else ""
        sat = ", saturated" if payload.get("saturated") is True else ""
        return f", accepted {acc:.4g}{lat_s}{sat}"
    return ""


class _Progress:
    """One overall progress bar over the runs (tqdm, on a terminal) or one line per finished
    run."""

    def __init__(self, total: int, mode: Optional[str], unit: str = "point") -> None:
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
            self.bar = tqdm(total=total, unit=unit, desc="sweep", file=sys.stderr, **sizing)

    def update(self, label: str, status: str, payload: Any, wall: float) -> None:
        self.done += 1
        if status != STATUS_OK:
            self.failed += 1
            msg = f"lnsim: point {label} failed: {payload}"
        else:
            msg = f"[{self.done}/{self.total}] {label}: ok ({wall:.2f} s{_outcome(payload)})"
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


def _execute(args: List[tuple], labels: List[str], n_jobs: int, progress: Optional[str], unit: str) -> list:
    """Runs :func:`_run_point` on every argument tuple, ``n_jobs`` at once, with one progress
    bar; returns the results in the order of ``args``."""
    results: List[Optional[Tuple[str, Any, float]]] = [None] * len(args)
    bar = None
    if n_jobs == 1:
        bar = _Progress(len(args), progress, unit)
        try:
            for i, a in enumerate(args):
                results[i] = _run_point(*a)
                bar.update(labels[i], *results[i])
        finally:
            bar.close()
        return results
    from concurrent.futures import ProcessPoolExecutor, as_completed

    executor = ProcessPoolExecutor(max_workers=n_jobs)
    try:
        futures = {executor.submit(_run_point, *a): i for i, a in enumerate(args)}
        bar = _Progress(len(args), progress, unit)  # after the workers are started
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as e:  # noqa: BLE001 - e.g. a worker killed by the OS
                results[i] = (STATUS_FAILED, f"{type(e).__name__}: {e}", 0.0)
            bar.update(labels[i], *results[i])
    except BaseException:
        _stop_workers(executor)
        raise
    finally:
        if bar is not None:
            bar.close()
    executor.shutdown(wait=True)
    return results


def _table(keys: List[str], runs: List[Dict[str, Any]], results: list):
    """sweep.csv as a DataFrame: one row per run."""
    import pandas as pd

    rows = []
    for run, (status, payload, _) in zip(runs, results):
        p = run["point"]
        row: Dict[str, Any] = {k: csv_value(v) for k, v in p["values"].items()}
        row.update(point=p["point"], status=status, error=None if status == STATUS_OK else payload)
        row[SEED_COLUMN] = run["seed"]
        if status == STATUS_OK:
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


def _meta(scenario: Path, user, seed, seeds, base, keys, points, runs, results, n_jobs, wall) -> dict:
    """The content of sweep.json."""
    by_point: Dict[str, List[dict]] = {}
    for run, r in zip(runs, results):
        by_point.setdefault(run["point"]["point"], []).append({"seed": run["seed"], "dir": run["dir"], "status": r[0]})
    return {
        "scenario": os.fspath(scenario),
        "overrides": user,
        "seed": seed,
        "seeds": seeds,
        "base_seed": base if _is_int(base) else None,
        "keys": keys,
        "values": {k: [csv_value(v) for v in vals] for k, vals in read_sweep_table(scenario).items()},
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
        "failed": sum(1 for r in results if r[0] != STATUS_OK),
        "jobs": n_jobs,
        "wall_time_s": round(wall, 3),
    }


def run_sweep(
    scenario,
    overrides=None,
    out=None,
    jobs: Optional[int] = None,
    seed: Optional[int] = None,
    progress: Optional[str] = None,
    seeds: int = 1,
):
    """Runs the sweep; returns ``(DataFrame of sweep.csv, out dir, number of failed runs)``.

    ``seeds``: runs per point (see the module documentation for the seed values and folders).
    ``progress``: ``"bar"`` (tqdm), ``"lines"`` (one line per run on stderr), ``"errors"``
    (only failed runs, on stderr) or ``None`` (nothing)."""
    import lnsim

    scenario = Path(scenario)
    user = lnsim._overrides(overrides)
    doc = _load_toml(scenario)
    points = sweep_points(scenario)
    keys = list(points[0]["values"])

    for o in user:
        if _override_key(o) in keys:
            raise ScenarioError(f"--set {o}: `{_override_key(o)}` is a swept key of {scenario} ([sweep] table)")
    base = base_seed(doc, user, seed)
    _check_seeds(scenario, keys, seeds, base, seed)
    if jobs is not None and jobs < 1:
        raise ScenarioError(f"--jobs {jobs}: expected at least 1")

    # Validate every point before running any: a bad key or value fails the sweep up front.
    for p in points:
        try:
            lnsim.validate(scenario, overrides=[*user, *p["overrides"]])
        except ScenarioError as e:
            raise ScenarioError(f"sweep point {p['point']} ({', '.join(p['overrides'])}): {e}") from None

    out_dir = Path(out) if out is not None else Path("results") / f"{_scenario_name(scenario, doc, user)}-sweep"
    (out_dir / POINTS_DIR).mkdir(parents=True, exist_ok=True)
    _clear_stale(out_dir, points)

    runs = sweep_runs(points, seeds, base, seed)
    args = [
        (os.fspath(scenario), [*user, *r["point"]["overrides"]], r["seed_arg"], os.fspath(out_dir / r["dir"]))
        for r in runs
    ]
    n_jobs = min(jobs or os.cpu_count() or 1, len(runs))
    t0 = time.perf_counter()
    results = _execute(args, [r["label"] for r in runs], n_jobs, progress, "point" if seeds == 1 else "run")
    wall = time.perf_counter() - t0

    df = _table(keys, runs, results)
    df.to_csv(out_dir / SWEEP_CSV, index=False)
    meta = _meta(scenario, user, seed, seeds, base, keys, points, runs, results, n_jobs, wall)
    with open(out_dir / SWEEP_JSON, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return df, out_dir, meta["failed"]


def sweep(scenario, overrides=None, out=None, jobs=None, seed=None, progress=False, seeds=1):
    """Runs every point of the scenario's ``[sweep]`` table and returns sweep.csv as a DataFrame.

    ``overrides`` (``--set`` strings or a dict) apply to every point, before the point's own;
    ``out`` is the sweep folder (default ``results/<scenario name>-sweep/``); ``jobs`` the number
    of runs at once (default: all cores); ``seed`` overrides ``sim.seed`` in every point;
    ``seeds`` runs every point that many times with the seeds ``base .. base + seeds - 1``
    (``base``: ``seed``, else the scenario's ``sim.seed``), one row per point and seed;
    ``progress`` shows a progress bar on stderr (one line per run when stderr is not a
    terminal). Raises :class:`lnsim.ScenarioError` before running anything when the scenario has
    no ``[sweep]`` table or a point is invalid. A run that fails does not raise: its row has
    ``status == "failed"`` and the message in ``error`` (and a ``RuntimeWarning`` is issued).
    """
    mode = None
    if progress:
        mode = "bar" if _stderr_is_tty() else "lines"
    df, out_dir, failed = run_sweep(
        scenario, overrides=overrides, out=out, jobs=jobs, seed=seed, progress=mode, seeds=seeds
    )
    df.attrs["out_dir"] = str(out_dir)
    if failed:
        what = "points" if seeds == 1 else "runs"
        warnings.warn(f"{failed} of {len(df)} sweep {what} failed (see the error column)", RuntimeWarning, stacklevel=2)
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
