"""The results folder of one run: its file names and documented columns, :class:`RunResult`
(``summary.json`` plus the tables, read lazily and checked by :mod:`lnsim._read`) and
:func:`load_results`. The package re-exports every public name (``lnsim.RunResult``,
``lnsim.SUMMARY_FILE``, ...); the folder's layout is described in :mod:`lnsim`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

if TYPE_CHECKING:  # pandas is imported lazily: `python -m lnsim._bench_case` must stay small
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]

#: Names of the files of a results folder.
SUMMARY_FILE = "summary.json"
NODES_FILE = "nodes.csv"
FLOWS_FILE = "flows.csv"
LATENCY_FILE = "latency_hist.csv"
BUFFERS_FILE = "buffers.csv"
LINKS_FILE = "links.csv"
CCTI_FILE = "ccti.csv"
CC_PORTS_FILE = "cc_ports.csv"
ROUTERS_FILE = "routers.csv"
BINS_FILE = "bins.csv"
QCN_PROBABILITIES_FILE = "qcn_probabilities.csv"

#: ``summary["model"]`` of the two simulation models (``RunResult.model``).
MODEL_CREDIT = "credit"
MODEL_CYCLE = "cycle"
#: The credit-level model's former name: what results folders written before the name
#: ``"credit"`` say in ``summary["model"]`` (older ones say nothing); read as :data:`MODEL_CREDIT`.
FORMER_MODEL_NAMES = {"infiniband": MODEL_CREDIT}
#: The former constant of the credit-level model, kept for code written against it: it is
#: :data:`MODEL_CREDIT` now, so that it still compares equal to :attr:`RunResult.model`.
MODEL_INFINIBAND = MODEL_CREDIT

#: Documented columns of each CSV file (flows.csv: src, dst first; it has more columns).
NODES_COLUMNS = ["t_start_s", "node", "tx_bytes", "rx_bytes"]
FLOWS_COLUMNS = ["src", "dst", "tx_bytes", "rx_bytes"]
LATENCY_COLUMNS = ["lower_ns", "upper_ns", "count"]
BUFFERS_COLUMNS = ["t_start_s", "switch", "port", "vl", "mean_credits", "max_credits"]
LINKS_COLUMNS = ["t_start_s", "from", "port", "to", "bytes", "mbps"]
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
    ``bins`` are ``None`` in a credit-level folder.
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
        names = [ROUTERS_FILE, BINS_FILE, LATENCY_FILE, QCN_PROBABILITIES_FILE] if self.is_cycle else [
            NODES_FILE, FLOWS_FILE, LATENCY_FILE, BUFFERS_FILE, LINKS_FILE, CCTI_FILE, CC_PORTS_FILE]
        for name in names:
            self._table(name, required=False)
        return self

    @property
    def deadlock(self) -> Optional[dict]:
        """``None``, or, when the run deadlocked (credit-level model), ``summary["deadlock"]``:
        ``{"time_s", "blocked_packets", "cycle"}`` with the credit loop's input buffers
        (``"SW22 port 4 VL 0"``), each waiting for the next. The run stopped there; its results
        folder is written. Only a scenario with ``sim.allow_deadlock = true`` can deadlock (the
        others are refused when their routes can), and ``lnsim run`` then exits with status 3."""
        dl = self.summary.get("deadlock")
        return dl or None

    @property
    def model(self) -> str:
        """Which simulation model wrote the folder: ``"cycle"`` (cycle-level model) or
        ``"credit"`` (credit-level model; also for a folder whose summary.json says
        ``"infiniband"``, the model's former name, or has no ``model`` key)."""
        model = str(self.summary.get("model") or MODEL_CREDIT)
        return FORMER_MODEL_NAMES.get(model, model)

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
    def qcn_probabilities(self) -> Optional["pd.DataFrame"]:
        """Cycle-level model with QCN-Switch (``None`` when absent): every change of a minimal
        probability of group 0's routers, ``cycle, time_us, router, name, port, probability,
        cause, fb`` (Dragonfly spec §3.12, Fig 4-21)."""
        return self._table(QCN_PROBABILITIES_FILE, required=False)

    @property
    def buffers(self) -> Optional["pd.DataFrame"]:
        """Buffer occupancy per interval (``None`` if not recorded):
        ``t_start_s, switch, port, vl, mean_credits, max_credits``."""
        return self._table(BUFFERS_FILE, required=False)

    @property
    def links(self) -> Optional["pd.DataFrame"]:
        """Data bytes per switch-output link direction and interval (``None`` unless the run
        had ``stats.links = true``): ``t_start_s, from, port, to, bytes, mbps`` (Mbit/s =
        bits/µs; drb-and-ddbbm spec A.7, per-link throughput over time)."""
        return self._table(LINKS_FILE, required=False)

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


#: summary.json entries that are not scalars worth a column (per-node / per-flow objects).
SKIPPED_FIELDS = ("nodes", "flows", "fairness.per_destination")


def flatten_summary(summary: dict, prefix: str = "") -> Dict[str, Any]:
    """Every scalar field of a summary.json, nested keys joined with dots after ``prefix``
    (``throughput.total_rx_gbps``), in summary.json order: the row of a run in sweep.csv and
    in the results store, and the key figures of ``lnsim report``. Lists and the per-node /
    per-flow objects (:data:`SKIPPED_FIELDS`) are left out."""
    out: Dict[str, Any] = {}
    for k, v in summary.items():
        path = f"{prefix}{k}"
        if path in SKIPPED_FIELDS or isinstance(v, (list, tuple)):
            continue
        if isinstance(v, dict):
            out.update(flatten_summary(v, path + "."))
        else:
            out[path] = v
    return out
