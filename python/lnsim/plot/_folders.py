"""The figures lnsim writes into a folder, whatever its kind: :func:`plot_results` for a results
folder (the credit-level model's figures, or :func:`plot_cycle_results` for the cycle-level
model; what ``lnsim run`` and ``lnsim plot RESULTS_DIR`` write) and :func:`plot_sweep_folder`
for a sweep folder (load-sweep figures or ``sweep.png``; what ``lnsim sweep`` and ``lnsim plot
SWEEP_DIR`` write).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import matplotlib.pyplot as plt

from ._ccti import MAX_CCTI_PANELS, flow_ccti, plot_bandwidth_ccti, plot_ccti_flows
from ._cycle import plot_cycle_results
from ._infiniband import plot_bandwidth, plot_throughput
from ._latency import plot_latency_histogram
from ._load_sweep import ACCEPTED_METRIC, LATENCY_METRIC, load_key, plot_load_sweep, plot_load_sweep_results
from ._metric_sweep import _metric_values, _true, default_sweep_metric, plot_sweep_results
from ._style import ResultLike, _figures_dir, _result, _save_figure, incomplete_note


def plot_results(result_or_dir: ResultLike, out_dir=None) -> List[Path]:
    """Writes ``bandwidth.png``, ``throughput.png`` and ``latency_hist.png`` into the results
    folder (or ``out_dir``) and returns their paths. With congestion control on (ccti.csv in the
    folder) ``bandwidth.png`` is :func:`plot_bandwidth_ccti` (bandwidth above, CCTI per flow
    below) and ``ccti.png`` (:func:`plot_ccti_flows`: the CCTI of each flow in a panel of its
    own) is written too. A cycle-level folder gets :func:`plot_cycle_results`'s figures
    instead."""
    r = _result(result_or_dir)
    if r.is_cycle:
        return plot_cycle_results(r, out_dir=out_dir)
    r.nodes, r.latency, r.ccti  # noqa: B018 - read and checked (ResultsError) before anything is written
    target = _figures_dir(out_dir, r.out_dir)
    target.mkdir(parents=True, exist_ok=True)
    note = incomplete_note(r.summary)
    written: List[Path] = []
    with_cc = r.ccti is not None
    for name, fn, size in (
        ("bandwidth.png", plot_bandwidth, (11, 9) if with_cc else (11, 6)),
        ("throughput.png", plot_throughput, (10, 4.5)),
        ("latency_hist.png", plot_latency_histogram, (8, 4.5)),
    ):
        if fn is plot_bandwidth and with_cc:
            fig = plt.figure(figsize=size)
        else:
            fig, ax = plt.subplots(figsize=size)
        if fn is plot_bandwidth and with_cc:
            written.append(_save_figure(fig, target / name, lambda: plot_bandwidth_ccti(r, fig=fig), note))
        else:
            written.append(_save_figure(fig, target / name, lambda: fn(r, ax=ax), note))
    if with_cc:
        n_panels = min(max(len(flow_ccti(r, "ccti_max").columns), 1), MAX_CCTI_PANELS)
        fig = plt.figure(figsize=(10, 1.5 * n_panels + 1.4))
        written.append(_save_figure(fig, target / "ccti.png", lambda: plot_ccti_flows(r, fig=fig), note))
    return written


def plot_sweep_folder(sweep_dir, out_dir=None, metric: Optional[str] = None,
                      bounds: Optional[dict] = None) -> List[Path]:
    """The figures of a sweep folder (what ``lnsim plot SWEEP_DIR`` and ``lnsim sweep`` write):
    a load sweep of the cycle-level model gets :func:`plot_load_sweep_results`
    (``load_latency.png``, ``throughput.png``; with ``metric``, ``sweep.png`` of that metric
    against the offered load instead), any other sweep ``sweep.png`` (:func:`plot_sweep`).
    Returns the paths written."""
    from .._sweep import SWEEP_PNG, load_sweep

    df = load_sweep(sweep_dir)
    # the columns the figures need are checked (ResultsError) before anything is written
    if load_key(df, df.attrs["keys"]) is None:
        if bounds:
            raise ValueError("bounds apply to a load sweep (offered_load column and a swept traffic.load)")
        _metric_values(df, metric or default_sweep_metric(df))
        return [plot_sweep_results(sweep_dir, out_dir=out_dir, metric=metric)]
    for column in ([metric] if metric else [LATENCY_METRIC, ACCEPTED_METRIC]):
        if column in df.columns or column == metric:
            _metric_values(df, column)
    if "saturated" in df.columns:
        _true(df["saturated"], df.attrs.get("path"))
    if metric is None:
        return plot_load_sweep_results(sweep_dir, out_dir=out_dir, bounds=bounds)
    target = _figures_dir(out_dir, sweep_dir)
    target.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    return [_save_figure(fig, target / SWEEP_PNG, lambda: plot_load_sweep(df, metric, ax=ax, bounds=bounds))]
