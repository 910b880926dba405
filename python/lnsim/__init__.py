"""lnsim — simulation of lossless interconnection networks.

The simulation core is written in Rust (``lnsim._core``); this package is the workflow layer:

>>> import lnsim
>>> r = lnsim.run("scenarios/ibcc/zeru_a.toml", overrides=["sim.end_time=0.02s"])
>>> r.summary["throughput"]["total_rx_gbps"]
>>> r.nodes.head()          # pandas DataFrame of nodes.csv

Results folder (written by the core, read by :func:`load_results`)
-------------------------------------------------------------------
``summary.json``
    ``scenario``, ``complete`` (``false`` for the partial results of an interrupted run, which
    then also has ``stop_reason`` and ``planned_sim_time_s``; ``sim_time_s`` is the time
    actually simulated), ``seed``, ``version``, ``sim_time_s``, ``wall_time_s``, ``events``,
    ``flit_hops`` (credit-hops), ``peak_rss_bytes``, ``interval_s``, ``warmup_s``,
    ``throughput.{total_rx_gbps, total_tx_gbps, rx_gbps_after_warmup, tx_gbps_after_warmup}``,
    ``nodes.<name>.{tx_gbps, rx_gbps, tx_gbps_after_warmup,
    rx_gbps_after_warmup, link_gbps}``, ``flows`` (list of objects with ``src``, ``dst``,
    ``tx_bytes``, ``rx_bytes``, ``rx_gbps``, ...), ``latency_ns.{mean, p50, p99, max}``,
    ``fairness.{jain, ...}``.
``nodes.csv``
    ``t_start_s,node,tx_bytes,rx_bytes`` — bytes sent/received per node per interval of
    ``summary["interval_s"]`` seconds.
``flows.csv``
    ``src,dst,...`` — one row per flow; among its columns ``tx_bytes`` and ``rx_bytes`` (the core
    currently writes ``src,dst,vl,static,tx_bytes,rx_bytes,tx_packets,rx_packets,tx_gbps,rx_gbps,
    rx_gbps_window,latency_mean_ns``).
``latency_hist.csv``
    ``lower_ns,upper_ns,count`` — packet latency histogram.
``buffers.csv`` (only when ``stats.buffer_occupancy`` is on)
    ``t_start_s,switch,port,vl,mean_credits,max_credits``.
``ccti.csv`` (only with congestion control on, ``cc.enabled = true``)
    ``t_start_s,src,dst,vl,ccti_end,ccti_max`` — per interval, every flow whose CCTI was above
    the minimum (``dst`` is ``*`` with ``cc.level = "sl"``); flows absent had CCTI 0.
``cc_ports.csv`` (only with congestion control on)
    ``switch,port,vl,fecn_marks,congested_s``.

Cycle-level results folder (``summary["model"] == "cycle"``: Dragonfly, meshes)
--------------------------------------------------------------------------------
``summary.json``
    ``scenario``, ``complete`` (``false`` for an interrupted run, which then also has
    ``stop_reason``, ``simulated_cycles`` and ``planned_cycles``), ``model`` (``"cycle"``),
    ``version``, ``seed``, ``wall_time_s``, ``setup_time_s``,
    ``peak_rss_bytes``, ``topology``, ``routing``, ``vlb_policy``, ``pattern``,
    ``offered_load``, ``accepted_load``, ``injected_load`` (phits/node/cycle),
    ``latency_cycles.{mean, p50, p99, max}``, ``network_latency_cycles.{mean, p50, p99}``,
    ``nonminimal_fraction``, ``avg_hops``, ``saturated``, ``saturation_undecided``,
    ``warnings`` (list of strings: why saturation is undecided), ``stopped_early``,
    ``warmup_cycles``, ``measured_cycles``,
    ``fairness.{jain_routers, min_router_load, max_router_load}``,
    ``packets.{generated, injected, delivered, in_network}``, ``phit_hops``,
    ``phit_hops_per_s``, ``events``; ``change_cycle`` with a transient pattern.
``routers.csv``
    ``router,name,injected_load,accepted_load`` — per router (index, name), in phits/node/cycle.
``latency_hist.csv``
    ``lo_cycles,hi_cycles,count`` — packet latency histogram in cycles.
``bins.csv``
    ``start_cycle,end_cycle,generated,delivered,accepted_load,latency_mean,nonminimal_fraction``
    — the run cut into time bins.

Every folder lnsim writes holds a ``.lnsim`` marker file (JSON: ``written_by``, ``version``,
``kind``; for a results folder also ``complete``): lnsim replaces only folders that have it.

The InfiniBand model's summary has no ``model`` key (or ``"model": "infiniband"``).
:attr:`RunResult.model` tells the two apart.

Sweeps (:func:`sweep`) run every point of a scenario's ``[sweep]`` table into
``DIR/points/<point id>/`` and write ``DIR/sweep.csv`` (one row per point: the swept keys,
``point``, ``status``, ``error``, ``seed``, then the scalar fields of summary.json flattened
with dots) and ``DIR/sweep.json``. With ``seeds=N`` (``--seeds N``) each point runs N times with
the seeds ``base .. base + N - 1`` (``base``: ``seed=``/``--seed``, else the scenario's
``sim.seed``), in ``DIR/points/<point id>/seed-<seed>/``, one row per point and seed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from . import _core
from ._core import ScenarioError, SimulationError
from ._outdir import OutputError
from ._read import ResultsError

if TYPE_CHECKING:  # pandas is imported lazily: `python -m lnsim._bench_case` must stay small
    import pandas as pd

__all__ = [
    "OutputError",
    "ResultsError",
    "RunResult",
    "SWEEP_COLUMNS",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "estimate_memory",
    "keys",
    "load_point",
    "load_results",
    "load_scenario",
    "read_store",
    "read_sweep",
    "run",
    "scenario_schema",
    "sweep",
    "sweep_points",
    "validate",
]

__version__: str = _core.version()

# Shown as `lnsim.ScenarioError` in tracebacks rather than `_core.ScenarioError`.
for _exc in (ScenarioError, SimulationError, OutputError):
    try:
        _exc.__module__ = "lnsim"
    except (AttributeError, TypeError):  # pragma: no cover - immutable type on some builds
        pass
del _exc

PathLike = Union[str, "os.PathLike[str]"]

#: Names of the files of a results folder.
SUMMARY_FILE = "summary.json"
NODES_FILE = "nodes.csv"
FLOWS_FILE = "flows.csv"
LATENCY_FILE = "latency_hist.csv"
BUFFERS_FILE = "buffers.csv"
CCTI_FILE = "ccti.csv"
CC_PORTS_FILE = "cc_ports.csv"
ROUTERS_FILE = "routers.csv"
BINS_FILE = "bins.csv"

#: ``summary["model"]`` of the two simulation models (the InfiniBand model may omit it).
MODEL_INFINIBAND = "infiniband"
MODEL_CYCLE = "cycle"

#: Documented columns of each CSV file (flows.csv: src, dst first; it has more columns).
NODES_COLUMNS = ["t_start_s", "node", "tx_bytes", "rx_bytes"]
FLOWS_COLUMNS = ["src", "dst", "tx_bytes", "rx_bytes"]
LATENCY_COLUMNS = ["lower_ns", "upper_ns", "count"]
BUFFERS_COLUMNS = ["t_start_s", "switch", "port", "vl", "mean_credits", "max_credits"]
CCTI_COLUMNS = ["t_start_s", "src", "dst", "vl", "ccti_end", "ccti_max"]
CC_PORTS_COLUMNS = ["switch", "port", "vl", "fecn_marks", "congested_s"]
ROUTERS_COLUMNS = ["router", "name", "injected_load", "accepted_load"]
CYCLE_LATENCY_COLUMNS = ["lo_cycles", "hi_cycles", "count"]
BINS_COLUMNS = [
    "start_cycle",
    "end_cycle",
    "generated",
    "delivered",
    "accepted_load",
    "latency_mean",
    "nonminimal_fraction",
]


class RunResult:
    """The results folder of one run.

    ``summary`` is the parsed ``summary.json``; the tables are read on first access and cached:
    ``nodes`` (nodes.csv), ``flows`` (flows.csv), ``latency`` (latency_hist.csv) and
    ``buffers`` (buffers.csv, ``None`` when the run did not record buffer occupancy), ``ccti``
    (ccti.csv) and ``cc_ports`` (cc_ports.csv), both ``None`` when congestion control was off.

    A cycle-level folder (:attr:`model` ``== "cycle"``) has ``routers`` (routers.csv), ``bins``
    (bins.csv) and ``latency`` (latency_hist.csv in cycles) instead; the InfiniBand tables are
    then missing (``nodes`` and ``flows`` raise ``FileNotFoundError``), and ``routers`` and
    ``bins`` are ``None`` in an InfiniBand folder.
    """

    def __init__(self, out_dir: PathLike, summary: Optional[dict] = None) -> None:
        self.out_dir = Path(out_dir)
        if summary is None:
            summary = _read_summary(self.out_dir)
        self.summary: dict = summary
        self._tables: dict = {}

    def __repr__(self) -> str:
        return f"RunResult(out_dir={str(self.out_dir)!r}, scenario={self.summary.get('scenario')!r})"

    def _table(self, name: str, required: bool = True) -> Optional["pd.DataFrame"]:
        """The table ``name``, read and checked once (:func:`lnsim._read.read_table`: the
        documented columns present, numbers where numbers belong; text columns such as node
        names stay strings). A corrupt file raises :class:`ResultsError` naming it."""
        if name not in self._tables:
            from ._read import MissingResultsFile, read_table, table_columns

            path = self.out_dir / name
            if not path.exists():
                if required:
                    raise MissingResultsFile(path, "missing from the results folder")
                self._tables[name] = None
            else:
                self._tables[name] = read_table(path, table_columns(name, cycle=self.is_cycle))
        return self._tables[name]

    def check(self) -> "RunResult":
        """Reads every table of the folder once, so that a corrupt file raises
        :class:`ResultsError` (naming the file, line and column) before anything is drawn.
        Returns ``self``."""
        names = [ROUTERS_FILE, BINS_FILE, LATENCY_FILE] if self.is_cycle else [
            NODES_FILE, FLOWS_FILE, LATENCY_FILE, BUFFERS_FILE, CCTI_FILE, CC_PORTS_FILE]
        for name in names:
            self._table(name, required=False)
        return self

    @property
    def deadlock(self) -> Optional[dict]:
        """``None``, or, when the run deadlocked (InfiniBand model), ``summary["deadlock"]``:
        ``{"time_s", "blocked_packets", "cycle"}`` with the credit loop's input buffers
        (``"SW22 port 4 VL 0"``), each waiting for the next. The run stopped there; its results
        folder is written. Only a scenario with ``sim.allow_deadlock = true`` can deadlock (the
        others are refused when their routes can), and ``lnsim run`` then exits with status 3."""
        dl = self.summary.get("deadlock")
        return dl or None

    @property
    def model(self) -> str:
        """Which simulation model wrote the folder: ``"cycle"`` (cycle-level router model) or
        ``"infiniband"`` (also when summary.json has no ``model`` key)."""
        return str(self.summary.get("model") or MODEL_INFINIBAND)

    @property
    def is_cycle(self) -> bool:
        """True for a folder of the cycle-level router model."""
        return self.model == MODEL_CYCLE

    @property
    def nodes(self) -> "pd.DataFrame":
        """Per-interval bytes per node: ``t_start_s, node, tx_bytes, rx_bytes``."""
        return self._table(NODES_FILE)

    @property
    def flows(self) -> "pd.DataFrame":
        """One row per flow: ``src, dst, tx_bytes, rx_bytes, ...``."""
        return self._table(FLOWS_FILE)

    @property
    def latency(self) -> "pd.DataFrame":
        """Packet latency histogram: ``lower_ns, upper_ns, count`` (cycle-level model:
        ``lo_cycles, hi_cycles, count``)."""
        return self._table(LATENCY_FILE)

    @property
    def routers(self) -> Optional["pd.DataFrame"]:
        """Cycle-level model, per router (``None`` when absent):
        ``router, group, injected_load, accepted_load``."""
        return self._table(ROUTERS_FILE, required=False)

    @property
    def bins(self) -> Optional["pd.DataFrame"]:
        """Cycle-level model, per time bin (``None`` when absent): ``start_cycle, end_cycle,
        generated, delivered, accepted_load, latency_mean, nonminimal_fraction``."""
        return self._table(BINS_FILE, required=False)

    @property
    def buffers(self) -> Optional["pd.DataFrame"]:
        """Buffer occupancy per interval (``None`` if not recorded):
        ``t_start_s, switch, port, vl, mean_credits, max_credits``."""
        return self._table(BUFFERS_FILE, required=False)

    @property
    def ccti(self) -> Optional["pd.DataFrame"]:
        """CCTI per flow per interval (``None`` when congestion control was off):
        ``t_start_s, src, dst, vl, ccti_end, ccti_max``; only flows whose CCTI was above the
        minimum are listed (the others had CCTI 0)."""
        return self._table(CCTI_FILE, required=False)

    @property
    def cc_ports(self) -> Optional["pd.DataFrame"]:
        """FECN marks and congested time per switch port and VL (``None`` when congestion
        control was off): ``switch, port, vl, fecn_marks, congested_s``."""
        return self._table(CC_PORTS_FILE, required=False)


def _read_summary(out_dir: Path) -> dict:
    from ._read import read_summary

    path = out_dir / SUMMARY_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{out_dir}: not a results folder (no {SUMMARY_FILE})")
    return read_summary(path)


def load_results(out_dir: PathLike) -> RunResult:
    """Opens a results folder written by an earlier run. Its files are checked as they are
    read: a corrupt ``summary.json`` (not JSON, not an object, a field of the wrong type) or
    table (not a CSV table, a documented column missing, text where a number belongs) raises
    :class:`ResultsError`, a ``ValueError`` naming the file and the line and column."""
    return RunResult(out_dir)


def _overrides(overrides: Optional[Iterable[str]]) -> list:
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, dict):
        return [f"{k}={_toml_value(v)}" for k, v in overrides.items()]
    return [str(o) for o in overrides]


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v  # unquoted strings are taken as strings by the core ("0.2s", "dmodk")
    return json.dumps(v)  # lists of numbers/strings are valid TOML literals too


#: Largest seed (``sim.seed``, ``--seed``, ``seed=``): seeds are TOML integers, 0 … 2^63 − 1.
MAX_SEED = 2**63 - 1


def check_seed(seed: Any, what: str = "seed") -> Optional[int]:
    """``seed`` as an int when it is a whole number in 0 … :data:`MAX_SEED` (``None`` stays
    ``None``); raises :class:`ScenarioError` naming ``what`` otherwise."""
    if seed is None:
        return None
    import numbers

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ScenarioError(f"{what} {seed!r}: expected a whole number 0 … {MAX_SEED}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ScenarioError(f"{what} {seed}: outside the allowed range 0 … {MAX_SEED} (seeds are TOML integers)")
    return int(seed)


def _max_memory(value: Any) -> Optional[str]:
    """``max_memory=`` as the size text the core parses: bytes (int) or ``"4GiB"``, ``"500MB"``."""
    if value is None:
        return None
    import numbers

    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, str)):
        raise ScenarioError(f"max_memory {value!r}: expected a size such as 4GiB, 500MB or a number of bytes")
    if isinstance(value, numbers.Integral):
        if int(value) <= 0:
            raise ScenarioError(f"max_memory {value}: must be positive")
        return str(int(value))
    return value


def run(
    scenario: PathLike,
    overrides: Optional[Iterable[str]] = None,
    seed: Optional[int] = None,
    out: Optional[PathLike] = None,
    progress: bool = False,
    max_memory: Optional[Union[int, str]] = None,
    *,
    _stop=None,
) -> RunResult:
    """Runs a scenario file and returns its results.

    ``overrides`` are ``"key.path=value"`` strings (like ``--set``) or a dict
    ``{"sim.end_time": "0.02s"}``; ``seed`` overrides ``sim.seed`` (0 … 2^63 − 1); ``out`` is the
    results folder (default ``results/<scenario name>/`` under the current directory).
    ``max_memory`` (bytes, or a size such as ``"4GiB"``) refuses a scenario whose memory
    estimate is larger (default: the memory available). Raises :class:`ScenarioError` for bad
    input and :class:`SimulationError` for internal failures.

    ``out`` must be absent, empty, or a folder lnsim wrote (it holds a ``.lnsim`` marker file);
    such a folder is replaced whole, atomically. Any other existing folder, a file, a path
    under a file or an unwritable place raises :class:`ScenarioError` before anything runs, and
    nothing is written.

    Ctrl-C (``KeyboardInterrupt``) stops the run; it still raises ``KeyboardInterrupt``, but
    first writes what was simulated so far as a results folder marked incomplete
    (``summary.json`` has ``"complete": false`` and ``"stop_reason": "interrupted"``; the
    marker too). The exception's ``result`` attribute is that folder's :class:`RunResult`
    (``None`` when the run was interrupted before it started simulating). Every complete run
    has ``"complete": true``.

    A run that deadlocks (possible only with ``sim.allow_deadlock = true``) does not raise: it
    writes its results folder and returns a result whose :attr:`RunResult.deadlock` describes
    the credit loop (``None`` otherwise); check it.
    """
    try:
        res = _core.run(
            os.fspath(scenario),
            _overrides(overrides),
            check_seed(seed),
            None if out is None else os.fspath(out),
            bool(progress),
            _max_memory(max_memory),
            _stop,
        )
    except KeyboardInterrupt as e:
        out_dir = getattr(e, "out_dir", None)
        e.result = None if out_dir is None else RunResult(out_dir, getattr(e, "summary", None))
        raise
    return RunResult(res["out_dir"], res["summary"])


def validate(
    scenario: PathLike,
    overrides: Optional[Iterable[str]] = None,
    max_memory: Optional[Union[int, str]] = None,
) -> str:
    """Checks a scenario without running it (the same checks :func:`run` makes before
    simulating, and the memory estimate against ``max_memory`` or the memory available);
    returns the core's report, which states the estimate.

    Raises :class:`ScenarioError` naming the offending key when the scenario is invalid.
    """
    return _core.validate(os.fspath(scenario), _overrides(overrides), _max_memory(max_memory))


def estimate_memory(scenario: PathLike, overrides: Optional[Iterable[str]] = None) -> dict:
    """The memory a scenario needs, estimated without building it: ``{"total": bytes,
    "parts": [(name, bytes), ...]}``, largest part first."""
    return _core.estimate_memory(os.fspath(scenario), _overrides(overrides))


def keys(prefix: Optional[str] = None) -> list:
    """Every scenario key (those under ``prefix``, e.g. ``"router"`` or ``"traffic.flows"``):
    dicts with ``path``, ``type`` (type and range in words), ``kind``, ``min``, ``max``,
    ``allowed``, ``unit``, ``default``, ``model``, ``required`` and ``doc``. The same metadata
    drives ``lnsim keys``, ``lnsim schema`` and the README's configuration reference."""
    from .cli import key_matches

    return [k for k in _core.keys() if prefix is None or key_matches(k["path"], prefix)]


def scenario_schema() -> dict:
    """The JSON Schema (draft-07) of the scenario format (``lnsim schema``)."""
    return json.loads(_core.json_schema())


def sweep(
    scenario: PathLike,
    overrides: Optional[Iterable[str]] = None,
    out: Optional[PathLike] = None,
    jobs: Optional[int] = None,
    seed: Optional[int] = None,
    progress: Optional[Union[bool, str]] = None,
    seeds: int = 1,
    grid: Optional[Any] = None,
    dask: Optional[Any] = None,
    resume: bool = False,
    max_memory: Optional[Union[int, str]] = None,
) -> "pd.DataFrame":
    """Runs a sweep and returns ``sweep.csv`` as a DataFrame (``df.attrs["out_dir"]`` is the
    sweep folder, ``df.attrs["keys"]`` the swept keys).

    The points are the Cartesian product of the scenario's ``[sweep]`` table and ``grid`` (a
    dict ``{"traffic.load": [0.1, 0.2]}`` or ``--grid`` strings ``["traffic.load=0.1,0.2"]``; a
    grid key the table also sweeps replaces its list), in the order the keys appear (last key
    fastest); each is one :func:`run` with ``overrides`` (like ``--set``, applied to every point)
    followed by the point's own ``key=value`` overrides, written to
    ``out/points/<point id>/``. ``out`` defaults to ``results/<scenario name>-sweep/``; it
    must be absent, empty or a sweep folder lnsim wrote (:class:`OutputError` otherwise, before
    anything runs); ``jobs`` runs at once on the local pool (default: all cores); ``seed`` overrides ``sim.seed`` in
    every point; ``progress`` is the progress display (points done / total, running, failed,
    time left): by default (``None``) a tqdm bar when stderr is a terminal or in a Jupyter
    notebook, nothing otherwise; ``True`` the bar there and one line per finished point on stderr
    elsewhere (logs); ``False`` nothing; ``"bar"``, ``"lines"`` or ``"errors"`` (only failed
    points) force one.

    ``seeds`` runs every point ``seeds`` times, with the seeds ``base, base + 1, ...,
    base + seeds - 1``; ``base`` is ``seed`` if given, else ``sim.seed`` from ``overrides``, else
    the scenario's ``sim.seed``, else 1. Each run then has its own folder
    ``out/points/<point id>/seed-<seed>/`` and its own row (rows ordered by point, then seed).

    ``dask``: run every point as a task on a Dask distributed cluster, given by its scheduler
    address (``"tcp://host:8786"``) or a ``distributed.Client`` (default: the environment
    variable ``LNSIM_DASK_ADDRESS``, else the local pool). Results are identical whichever
    executor ran them. ``resume``: keep the runs already in ``out``'s results store
    (``store.sqlite``) and run only the missing or failed ones. ``max_memory`` (bytes or a size
    such as ``"4GiB"``): every point is refused beyond it (default: the memory available), and
    the local pool runs at most as many points at once as fit in it.

    Columns (:data:`SWEEP_COLUMNS` then the summary fields): the swept keys (values as written),
    ``point``, ``status`` (``ok`` or ``failed``), ``error``, ``seed`` (the run's seed), then
    every scalar field of each run's summary.json flattened with dots
    (``throughput.total_rx_gbps``, ``latency_ns.mean``, ``fairness.jain``, ``accepted_load``,
    ``latency_cycles.mean``, ``events``, ``wall_time_s``, ...; lists, ``nodes``, ``flows`` and
    ``fairness.per_destination`` are left out). Raises :class:`ScenarioError` before running
    anything when there is nothing to sweep or any point's overrides are invalid, and
    :class:`lnsim.executors.ExecutorError` when the Dask scheduler cannot be reached. A failing
    point does not raise: its row has ``status == "failed"`` and the message in ``error``, and a
    ``RuntimeWarning`` is issued.
    """
    from ._sweep import sweep as _sweep

    return _sweep(
        scenario, overrides=overrides, out=out, jobs=jobs, seed=seed, progress=progress, seeds=seeds, grid=grid,
        dask=dask, resume=resume, max_memory=max_memory,
    )


#: The columns every sweep table starts with, after the swept keys.
SWEEP_COLUMNS = ["point", "status", "error", "seed"]


def read_sweep(sweep_dir: PathLike) -> "pd.DataFrame":
    """Reads a sweep folder's ``sweep.csv`` as a DataFrame (the columns of :func:`sweep`;
    ``attrs["keys"]`` = the swept keys, ``attrs["out_dir"]`` = the folder)."""
    from ._sweep import load_sweep

    return load_sweep(sweep_dir)


def read_store(sweep_dir: PathLike) -> "pd.DataFrame":
    """Reads a sweep folder's results store (``store.sqlite``) as a DataFrame, one row per
    recorded run, with the columns of :data:`lnsim.store.RUN_COLUMNS` (``run_key``, ``point``,
    ``seed``, ``dir``, ``scenario``, ``scenario_hash``, ``overrides``, ``point_values``,
    ``version``, ``status``, ``error``, ``summary``, ``tables``, ``wall_time_s``, ``worker``,
    ``finished_at``; the JSON columns as text)."""
    from .store import read_store as _read

    return _read(sweep_dir)


def load_point(sweep_dir: PathLike, point: str, seed: Optional[int] = None) -> "RunResult":
    """The results of one run of a sweep (its point id, and its seed when the sweep ran several
    seeds per point) as a :class:`RunResult`."""
    d = Path(sweep_dir) / "points" / point
    if seed is not None and (d / f"seed-{seed}").is_dir():
        d = d / f"seed-{seed}"
    return load_results(d)


class Scenario:
    """A scenario file plus ``key.path=value`` overrides, for scripts and notebooks.

    ``Scenario("scenarios/dragonfly/h4_un.toml").set({"routing.algorithm": "ugal"}).run()``.
    Instances are immutable: :meth:`set` returns a new one."""

    def __init__(self, path: PathLike, overrides: Optional[Iterable[str]] = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ScenarioError(f"{self.path}: no such scenario file")
        self.overrides = _overrides(overrides)

    def __repr__(self) -> str:
        return f"Scenario({os.fspath(self.path)!r}, overrides={self.overrides!r})"

    def set(self, values: Optional[dict] = None, **kw: Any) -> "Scenario":
        """A copy with more overrides: a dict ``{"traffic.load": 0.3}`` (keys with dots) and/or
        keyword arguments with ``__`` for the dots (``traffic__load=0.3``)."""
        more = dict(values or {})
        more.update({k.replace("__", "."): v for k, v in kw.items()})
        return Scenario(self.path, [*self.overrides, *_overrides(more)])

    @property
    def text(self) -> str:
        """The scenario file's TOML text (without the overrides)."""
        return self.path.read_text(encoding="utf-8")

    @property
    def sweep_table(self) -> dict:
        """The file's ``[sweep]`` table as ``{key path: [values]}`` (empty when it has none)."""
        from ._sweep import read_sweep_table

        try:
            return read_sweep_table(self.path)
        except ScenarioError:
            return {}

    def validate(self, max_memory: Optional[Union[int, str]] = None) -> str:
        """Checks the scenario with its overrides (see :func:`validate`)."""
        return validate(self.path, self.overrides, max_memory=max_memory)

    def run(
        self,
        seed: Optional[int] = None,
        out: Optional[PathLike] = None,
        progress: bool = False,
        max_memory: Optional[Union[int, str]] = None,
    ) -> "RunResult":
        """Runs one point (see :func:`run`)."""
        return run(self.path, self.overrides, seed=seed, out=out, progress=progress, max_memory=max_memory)

    def sweep(self, grid: Optional[Any] = None, seeds: int = 1, dask: Optional[Any] = None, **kw: Any) -> "pd.DataFrame":
        """Runs a sweep of this scenario (its ``[sweep]`` table and ``grid``) with its overrides
        applied to every point (see :func:`sweep` for ``out``, ``jobs``, ``seed``, ``resume``,
        ``progress``)."""
        return sweep(self.path, self.overrides, grid=grid, seeds=seeds, dask=dask, **kw)


def load_scenario(path: PathLike, overrides: Optional[Iterable[str]] = None) -> Scenario:
    """A :class:`Scenario` for the file at ``path`` (with optional overrides)."""
    return Scenario(path, overrides)


def sweep_points(scenario: PathLike, grid: Optional[Any] = None) -> list:
    """The points of the scenario's ``[sweep]`` table in run order: dicts with ``point`` (the
    folder name, e.g. ``cc.ccti_timer=250us__cc.marking_rate=10``), ``values`` (key -> value),
    ``overrides`` (``["cc.ccti_timer=\"250us\"", "cc.marking_rate=10"]``) and ``dir``
    (``points/<point>``, relative to the sweep folder). Raises :class:`ScenarioError` when the
    scenario has no ``[sweep]`` table."""
    from ._sweep import sweep_points as _points

    return _points(scenario, grid)
