"""Figures of a results folder (matplotlib, Agg backend).

Every ``plot_*`` function takes a :class:`lnsim.RunResult` or a results folder path and an
optional matplotlib ``ax`` so figures can be composed::

    import matplotlib.pyplot as plt
    from lnsim import load_results
    from lnsim.plot import plot_bandwidth, plot_latency_histogram

    r = load_results("results/zeru_a")
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4))
    plot_bandwidth(r, ax=a)
    plot_latency_histogram(r, ax=b)
    fig.savefig("both.png")

:func:`plot_results` writes ``bandwidth.png``, ``throughput.png`` and ``latency_hist.png``
into a results folder (what ``lnsim plot DIR`` does); with congestion control on (the folder has
``ccti.csv``) ``bandwidth.png`` has a second panel below, :func:`plot_ccti`, on the same time
axis, and ``ccti.png`` (:func:`plot_ccti_flows`) gives each throttled flow's CCTI a panel of its
own. Every title names the run's congestion management from its results (:func:`cc_label`);
time axes are in s, ms or µs by the run's length; with more than :data:`MAX_NODE_LINES` nodes
``bandwidth.png`` draws the notable ones (:func:`notable_nodes`) and the rest as a median with
its min–max band. The figures of an incomplete run (the partial results of an interrupted run)
carry a red title saying so (:func:`incomplete_note`). Figures go into the results folder itself, or
into ``out_dir``, which must be absent, empty or a folder lnsim wrote (a new one is marked as a
figures folder). :func:`plot_sweep` draws one metric of a
sweep (``sweep.csv`` of ``lnsim sweep``) against the swept keys; :func:`plot_sweep_results`
writes it as ``sweep.png`` (what ``lnsim plot SWEEP_DIR`` does).

The cycle-level router model (``summary["model"] == "cycle"``) has its own figures: for one run,
:func:`plot_timeline` (accepted load, latency and non-minimal fraction over time in cycles, from
bins.csv, with the transient change marked), :func:`plot_router_load` (accepted load per
router, routers.csv) and, with QCN-Switch, :func:`plot_min_probabilities` (group 0's minimal
probabilities over time in µs, qcn_probabilities.csv), written by :func:`plot_cycle_results` (what :func:`plot_results` does for
such a folder); for a load sweep (a swept ``traffic.load``), :func:`plot_load_latency` and
:func:`plot_load_throughput` (one line per combination of the other swept keys, mean over seeds
with the min–max spread shaded and each seed's value marked, a point saturated in some seeds
only ringed alike in both, optional analytical bounds), written by
:func:`plot_load_sweep_results` as ``load_latency.png`` and ``throughput.png``.
:func:`plot_sweep_folder` picks the right figures for any sweep folder.

:func:`plot_buffers` draws the occupancy of the switch input buffers over time (buffers.csv, the
fullest ones; :func:`buffer_occupancy` gives the table); ``lnsim report`` (:mod:`lnsim.report`)
puts it with the other figures into one HTML page.

The figures are written one family per module, behind these public names: :mod:`._style`
(what every figure shares: backend, figure files, series styles), :mod:`._infiniband`
(bandwidth, throughput, buffer occupancy), :mod:`._ccti` (CCTI per flow), :mod:`._latency`
(the latency histogram of either model), :mod:`._cycle` (timeline, load per router),
:mod:`._metric_sweep` (a metric of any sweep: line or heatmap), :mod:`._load_sweep` (load
sweeps), and :mod:`._folders` (the figures written into a results or sweep folder).
"""

from __future__ import annotations

from . import _style  # noqa: F401 - first: selects the matplotlib backend before any pyplot import
from ._ccti import MAX_CCTI_PANELS, flow_ccti, plot_bandwidth_ccti, plot_ccti, plot_ccti_flows
from ._cycle import (
    BINS_PANELS,
    MAX_GROUP_TICKS,
    plot_bins,
    plot_cycle_results,
    plot_latency_over_time,
    plot_min_probabilities,
    plot_nonminimal_over_time,
    plot_router_load,
    plot_timeline,
)
from ._folders import plot_results, plot_sweep_folder
from ._infiniband import (
    MAX_LINES,
    MAX_NODE_LINES,
    MAX_NOTABLE,
    NOTABLE_RATIO,
    UNITS,
    buffer_occupancy,
    node_bandwidth,
    notable_nodes,
    plot_bandwidth,
    plot_buffers,
    plot_throughput,
    sender_colors,
)
from ._latency import LATENCY_BINS_PER_DECADE, latency_log_bins, plot_latency_histogram
from ._load_sweep import (
    ACCEPTED_METRIC,
    LATENCY_METRIC,
    LOAD_COLUMN,
    LOAD_KEY,
    LOAD_LATENCY_PNG,
    THROUGHPUT_PNG,
    is_load_sweep,
    load_curves,
    load_key,
    load_runs,
    plot_load_latency,
    plot_load_sweep,
    plot_load_sweep_results,
    plot_load_throughput,
)
from ._metric_sweep import (
    CYCLE_SWEEP_METRIC,
    DEFAULT_SWEEP_METRIC,
    default_sweep_metric,
    heatmap_cell_format,
    plot_sweep,
    plot_sweep_results,
    sweep_cc_label,
)
from ._style import MARKERS, MARKS_PER_SERIES, ResultLike, cc_label, incomplete_note

__all__ = [
    "ACCEPTED_METRIC",
    "BINS_PANELS",
    "DEFAULT_SWEEP_METRIC",
    "LATENCY_BINS_PER_DECADE",
    "LATENCY_METRIC",
    "MAX_LINES",
    "MAX_NODE_LINES",
    "MAX_NOTABLE",
    "NOTABLE_RATIO",
    "UNITS",
    "buffer_occupancy",
    "cc_label",
    "flow_ccti",
    "incomplete_note",
    "is_load_sweep",
    "latency_log_bins",
    "load_curves",
    "load_key",
    "load_runs",
    "node_bandwidth",
    "notable_nodes",
    "plot_bandwidth",
    "plot_bandwidth_ccti",
    "plot_bins",
    "plot_buffers",
    "plot_ccti",
    "plot_ccti_flows",
    "plot_cycle_results",
    "plot_latency_histogram",
    "plot_latency_over_time",
    "plot_load_latency",
    "plot_load_sweep",
    "plot_load_sweep_results",
    "plot_load_throughput",
    "plot_nonminimal_over_time",
    "plot_results",
    "plot_router_load",
    "plot_sweep",
    "plot_sweep_folder",
    "plot_sweep_results",
    "plot_throughput",
    "plot_timeline",
    "plot_min_probabilities",
    "sweep_cc_label",
]
