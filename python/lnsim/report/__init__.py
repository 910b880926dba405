"""One self-contained HTML page of a results folder or a sweep folder (``lnsim report DIR``).

:func:`write_report` writes ``DIR/report.html`` (or ``out``): the scenario (name, file and its
TOML text when found), summary tables and every figure of :mod:`lnsim.plot` that fits the
folder, embedded as PNG ``data:`` URIs. The page needs no network access (no external CSS,
scripts, fonts or images) and can be mailed or archived on its own.

What the page holds, by kind of folder:

* a run of the credit-level model (``summary.json``, ``nodes.csv``, ...): key figures, bandwidth
  per node over time (with the CCTI per flow below when congestion control was on), network
  throughput, packet latency histogram, switch buffer occupancy (``buffers.csv``); tables per
  node, per flow and of the ports that marked FECN;
* a run of the cycle-level model (``summary["model"] == "cycle"``): key figures, timeline
  (accepted load, latency and non-minimal fraction per time bin), accepted load per router,
  latency histogram; tables of the least and most loaded routers (and per group);
* a sweep folder (``sweep.csv``, ``sweep.json``, ``points/``): the sweep table, the failed
  points with their errors; for a load sweep of the cycle-level model the load–latency,
  accepted-vs-offered, Jain-index-vs-load (and non-minimal fraction) curves and the accepted
  load per router at the highest load of each line (from ``points/<id>/[seed-<s>/]``); any
  other sweep gets a heatmap (two or more swept keys) or a line (one key) per main metric.
  Only ``sweep.csv``, ``sweep.json`` and the point folders are read: other files are ignored.

The page carries a small inline script that, on ``load``, writes into ``<body>``:
``data-figures-loaded`` (how many ``<img>`` figures decoded), ``data-figures-found`` (how many
there are; ``data-figures-total`` is the number written by Python), ``data-js-errors`` (number
of JavaScript errors seen by ``window.onerror``; their messages in ``data-js-error-log``) and
``data-report-ready="1"``, so that a headless browser can check the page.

The page is built one part per module, behind these public names: :mod:`._folder` (the two kinds
of folder), :mod:`._cells` (values as table text), :mod:`._page` (the HTML page, figures, tables),
:mod:`._scenario` (the scenario section), :mod:`._run_page` (one run of either model) and
:mod:`._sweep_page` (a sweep folder).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

from .._exit import EXIT_OK, InputError
from .._outdir import check_report_file, record_files, write_atomic
from .._results import flatten_summary
# re-exported: the names this module has always had
from ._cells import fmt_number
from ._folder import (
    KIND_RUN,
    KIND_SWEEP,
    SCENARIO_COPY,
    SUMMARY_FILE,
    SWEEP_CSV,
    SWEEP_JSON,
    PathLike,
    folder_kind,
)
from ._page import FIGURE_DPI, FOLD_ROWS, KV_SPLIT_ROWS, _Page
from ._run_page import MAX_FLOW_ROWS, MAX_NODE_ROWS, MAX_PORT_ROWS, ROUTER_EXTREMES, _run_report
from ._scenario import OPEN_TOML_LINES
from ._sweep_page import MAX_ROUTER_PANELS, MAX_SWEEP_ROWS, SWEEP_COLUMNS, SWEEP_METRICS, _sweep_report

__all__ = [
    "REPORT_FILE",
    "add_parser",
    "cmd_report",
    "flatten",
    "fmt_number",
    "folder_kind",
    "report_html",
    "write_report",
]

#: The summary flattener (:func:`lnsim._results.flatten_summary`) under this module's public name.
flatten = flatten_summary

#: Default file name of the report, written into the folder it describes.
REPORT_FILE = "report.html"


def report_html(results_dir: PathLike) -> str:
    """The HTML text of the report of a results folder or sweep folder (see :func:`write_report`).
    Raises like :func:`folder_kind` when the folder is neither."""
    d = Path(results_dir)
    kind = folder_kind(d)
    page = _Page()
    if kind == KIND_RUN:
        _run_report(page, d)
    else:
        _sweep_report(page, d)
    return page.render()


def write_report(results_dir: PathLike, out: Optional[PathLike] = None) -> Path:
    """Writes one self-contained HTML page describing a results folder (one run of either model)
    or a sweep folder to ``out`` (default ``RESULTS_DIR/report.html``; an existing folder gets
    ``report.html`` inside) and returns its path. An existing file there is replaced only when it
    is an lnsim report (its ``generator`` meta tag says so); any other file, a path under a file
    or an unwritable folder raises :class:`lnsim.OutputError`. The page of an incomplete run
    (interrupted) says so in a banner under its title.

    The page holds the scenario (name, file and TOML text when found), summary tables and every
    figure that fits the folder, embedded as PNG data URIs: no network access is needed to view
    it. Raises ``FileNotFoundError`` when ``results_dir`` does not exist and ``ValueError`` when
    it is neither a results folder (``summary.json``) nor a sweep folder (``sweep.csv``)."""
    d = Path(results_dir)
    folder_kind(d)  # a missing folder or one of no known kind is the first thing to say
    target = Path(out) if out is not None else d / REPORT_FILE
    if target.is_dir():
        target = target / REPORT_FILE
    check_report_file(target)  # before the (slow) page: never overwrites a file lnsim did not write
    text = report_html(d)
    check_report_file(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    record_files(target.parent, [target.name])  # in a folder lnsim wrote: the page is lnsim's
    write_atomic(target, text)
    return target


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Registers the ``report`` subcommand (``lnsim report RESULTS_DIR [-o FILE]``) on the
    ``add_subparsers()`` object of the ``lnsim`` parser; it calls :func:`cmd_report`. Returns
    the subparser."""
    p = subparsers.add_parser(
        "report",
        help="write one self-contained HTML page (scenario, tables, figures) of a results or sweep folder",
        description="Write one self-contained HTML page describing a results folder (one run, with summary.json) "
        "or a sweep folder (with sweep.csv): the scenario, summary tables and every figure that fits, embedded "
        "in the page (it needs no network access). Prints the path written.",
    )
    p.add_argument("dir", metavar="RESULTS_DIR", help="results folder (with summary.json) or sweep folder (with sweep.csv)")
    p.add_argument("-o", "--out", metavar="FILE", default=None, help=f"where to write the page (default RESULTS_DIR/{REPORT_FILE})")
    p.set_defaults(func=cmd_report)
    return p


def cmd_report(args: argparse.Namespace) -> int:
    """``lnsim report``: writes the page of ``args.dir`` to ``args.out`` and prints its path.
    A folder that is missing or of no known kind is bad input (``InputError``, exit status 2)."""
    try:
        folder_kind(args.dir)
    except (FileNotFoundError, ValueError) as e:
        raise InputError(str(e)) from None
    print(write_report(args.dir, out=args.out))
    return EXIT_OK
