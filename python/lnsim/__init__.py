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
    ``fairness.{jain, ...}``; drb-and-ddbbm spec A.7: ``message_latency_ns.{count, mean, p50,
    p99, max, generated, window_start_s}`` (generation → last packet, messages generated from
    ``sim.warmup`` on), ``throughput.{offered_bits_per_us_per_node,
    accepted_bits_per_us_per_node, sending_nodes, measure_from_s, measure_to_s}`` and, with
    ``stats.hotspot``, ``hotspot.{peak_link_mbps, peak_link, links, ...}``.
``nodes.csv``
    ``t_start_s,node,tx_bytes,rx_bytes`` — bytes sent/received per node per interval of
    ``summary["interval_s"]`` seconds.
``flows.csv``
    ``src,dst,...`` — one row per flow; among its columns ``tx_bytes`` and ``rx_bytes`` (the core
    currently writes ``src,dst,vl,static,tx_bytes,rx_bytes,tx_packets,rx_packets,tx_gbps,rx_gbps,
    rx_gbps_window,latency_mean_ns``).
``latency_hist.csv``
    ``lower_ns,upper_ns,count`` — packet latency histogram.
``routes.csv``
    ``from,port,to,to_port,switch_link,routes`` — per directed link, the routes of every
    ordered HCA pair (whatever the traffic) the forwarding tables lay on it; summarised in
    ``summary["route_balance"]`` (``switch_links``/``all_links``: ``links, max, mean, min,
    max_over_mean``; ``pairs_routed``, ``pairs_unrouted``).
``buffers.csv`` (only when ``stats.buffer_occupancy`` is on)
    ``t_start_s,switch,port,vl,mean_credits,max_credits``.
``output_buffers.csv`` (only with ``stats.buffer_occupancy`` on and output buffers,
``switch.output_buffer_credits`` > 0)
    ``t_start_s,switch,port,vl,queue,capacity_credits,mean_credits,max_credits`` — per interval,
    every output queue of every switch port.
``links.csv`` (only with ``stats.links = true``)
    ``t_start_s,from,port,to,bytes,mbps`` — data bytes each switch output (switch → switch and
    switch → HCA) started to send per interval, and that in Mbit/s = bits/µs.
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
    ``phit_hops_per_s``, ``events``, ``recomputations`` (blocked injection heads routed
    again, Dragonfly spec §3.4); ``change_cycle`` with a transient pattern; on a Dragonfly
    ``paths.{min, lgl, -gl, lg-, -g-, local}`` (share of the delivered packets per path shape,
    spec §5); with ACOR-Switch ``acor_level_share`` (share of router-cycles per level).
``routers.csv``
    ``router,name,injected_load,accepted_load,delivered_load`` — per router (index, name), in
    phits/node/cycle: injected by and delivered to its terminals, and of its terminals' packets
    delivered (its throughput as a source, the fairness measure);
    on a Dragonfly also ``paths_{min,lgl,-gl,lg-,-g-,local}``, the share of the router's
    sourced packets (delivered in the window) per path shape.
``latency_hist.csv``
    ``lo_cycles,hi_cycles,count`` — packet latency histogram in cycles.
``bins.csv``
    ``start_cycle,end_cycle,generated,delivered,accepted_load,latency_mean,nonminimal_fraction``
    — the run cut into time bins; on a Dragonfly then ``paths_min,paths_lgl,paths_-gl,
    paths_lg-,paths_-g-,paths_local`` (the path breakdown of the bin's deliveries).
``acor_levels.csv``
    ``cycle,router,name,level`` — ACOR-Switch (``routing.algorithm = "acor"`` or ``"pb_acor"``):
    every router's level at cycle 0, then each change from the cycle it holds.
``pfc.csv``
    ``router,name,port,kind,vc,pause_frames_sent,resume_frames_sent,paused_cycles`` — priority
    flow control (``router.flow_control = "pfc"``): per router-to-router port and VC, the PAUSE
    and resume frames its input sent upstream and the cycles its output VC was paused, in the
    measurement window.

Every folder lnsim writes holds a ``.lnsim`` marker file (JSON: ``written_by``, ``version``,
``kind``; for a results folder also ``complete``): lnsim replaces only folders that have it.

The credit-level model's summary says ``"model": "credit"`` (folders written before lnsim
named it so say ``"infiniband"``, its former name, or nothing). :attr:`RunResult.model` tells
the two apart: ``"credit"`` or ``"cycle"``.

Sweeps (:func:`sweep`) run every point of a scenario's ``[sweep]`` table into
``DIR/points/<point id>/`` and write ``DIR/sweep.csv`` (one row per point: the swept keys,
``point``, ``status``, ``error``, ``seed``, then the scalar fields of summary.json flattened
with dots) and ``DIR/sweep.json``. With ``seeds=N`` (``--seeds N``) each point runs N times with
the seeds ``base .. base + N - 1`` (``base``: ``seed=``/``--seed``, else the scenario's
``sim.seed``), in ``DIR/points/<point id>/seed-<seed>/``, one row per point and seed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from . import _core
from ._core import ScenarioError, SimulationError
from ._outdir import OutputError
from ._read import ResultsError
# re-exported: the public API (the file and column names of a results folder are public too)
from ._results import (
    BINS_COLUMNS,
    BINS_FILE,
    BUFFERS_COLUMNS,
    BUFFERS_FILE,
    CC_PORTS_COLUMNS,
    CC_PORTS_FILE,
    CCTI_COLUMNS,
    CCTI_FILE,
    CYCLE_LATENCY_COLUMNS,
    FLOWS_COLUMNS,
    FLOWS_FILE,
    LATENCY_COLUMNS,
    LATENCY_FILE,
    LINKS_COLUMNS,
    LINKS_FILE,
    MODEL_CREDIT,
    MODEL_CYCLE,
    MODEL_INFINIBAND,
    NODES_COLUMNS,
    NODES_FILE,
    ROUTERS_COLUMNS,
    ROUTERS_FILE,
    SUMMARY_FILE,
    PathLike,
    RunResult,
    load_results,
)
from ._run import (
    MAX_SEED,
    _overrides,
    check_seed,
    estimate_memory,
    keys,
    run,
    scenario_schema,
    validate,
)

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

# Shown as `lnsim.ScenarioError` in tracebacks rather than `_core.ScenarioError` (and
# `lnsim.RunResult`, not `lnsim._results.RunResult`).
for _cls in (ScenarioError, SimulationError, OutputError, RunResult):
    try:
        _cls.__module__ = "lnsim"
    except (AttributeError, TypeError):  # pragma: no cover - immutable type on some builds
        pass
del _cls


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
    must be absent, empty or a sweep folder lnsim wrote, which is updated in place (files lnsim
    did not write are kept), and every run folder the sweep replaces must hold nothing but what
    lnsim wrote (:class:`OutputError` otherwise, before anything runs); ``jobs`` runs at once on the local pool (default: all cores); ``seed`` overrides ``sim.seed`` in
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
            if self.path.exists():  # a folder, a FIFO, a device: the core says which
                from ._run import read_scenario

                read_scenario(self.path)
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
        """The scenario file's TOML text (without the overrides), read as the core reads it."""
        from ._run import read_scenario

        return read_scenario(self.path)

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
