"""What every figure family shares: the matplotlib backend (Agg, headless, unless ``MPLBACKEND``
says otherwise; this module is imported before any ``pyplot``), opening a results folder
(:data:`ResultLike`), new axes, writing a figure file (:func:`_save_figure`, with the red title
of an incomplete run, :func:`incomplete_note`) into the figures folder (:func:`_figures_dir`),
the "no data" note, and the styles of series: a marker shape per line, staggered along it
(:func:`_marker_style`), line colours, value labels.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

import matplotlib

if os.environ.get("MPLBACKEND") is None:  # headless by default; respect an explicit choice
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .._format import no_window_note  # noqa: E402
from .._results import RunResult, load_results  # noqa: E402


ResultLike = Union[RunResult, str, "os.PathLike[str]"]


def _save_figure(fig, path: Path, draw, note: Optional[str] = None) -> Path:
    """Calls ``draw()``, lays ``fig`` out and writes it to ``path`` (110 dpi); the figure is
    closed even when drawing fails. ``note`` (e.g. :func:`incomplete_note`) is written in red
    above the figure. The file is written as lnsim writes into a folder it updates in place
    (:func:`lnsim._outdir.write_own_file`: never over a file lnsim did not write, atomically,
    recorded in the folder's marker). Returns ``path``."""
    from .._outdir import write_own_file

    try:
        draw()
        if note:
            fig.suptitle(note, color="red", fontsize=10, fontweight="bold")
        fig.tight_layout()
        fmt = Path(path).suffix.lstrip(".") or "png"
        write_own_file(path, lambda f: fig.savefig(f, format=fmt, dpi=110, bbox_inches="tight"), "figure")
    finally:
        plt.close(fig)
    return path


def _result(r: ResultLike) -> RunResult:
    return r if isinstance(r, RunResult) else load_results(r)


def incomplete_note(summary: dict) -> Optional[str]:
    """The red title line of the figures of an incomplete run (``summary["complete"]`` false:
    partial results of an interrupted run), else ``None``; for a run stopped before the end of
    its warm-up it also says that no measurement window was reached."""
    if summary.get("complete") is not False:
        return None
    why = summary.get("stop_reason") or "stopped early"
    if "simulated_cycles" in summary:
        done = f"{summary.get('simulated_cycles')} of {summary.get('planned_cycles')} cycles simulated"
    else:
        done = f"{summary.get('sim_time_s', 0):.6g} s of {summary.get('planned_sim_time_s', float('nan')):.6g} s simulated"
    no_window = no_window_note(summary)
    return f"INCOMPLETE RUN ({why}): {done}" + (f"; {no_window}" if no_window else "") + " — partial results"


#: The congestion managements that run without ``cc.enabled`` in summary.json: the field prefix
#: their run writes (sweep.csv: the same fields flattened) -> what figures and reports call them.
_CC_FIELDS = (("drb.", "CC on (DRB)"), ("throttle.", "CC on (IBA_CC-S1)"), ("ddbbm.", "CC off, DDBBM"))


def _present(v) -> bool:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return False
    return str(v).strip() != ""


def cc_label(summary) -> Optional[str]:
    """The congestion management a run of the credit-level model had, as figure titles and report
    headings say it, read from the run's own results — its summary.json, or its sweep.csv row
    (the same fields flattened with dots) — never from the scenario's description:
    ``"CC on (InfiniBand CC)"`` (``cc.enabled``), ``"CC on (DRB)"`` and ``"CC on (IBA_CC-S1)"``
    (``cc.mechanism = "drb"`` / ``"ib_s1"``, whose runs write ``drb.*`` / ``throttle.*``),
    ``"CC off, DDBBM"`` (``switch.queue_mapping = "ddbbm"``: destination congestion detection,
    ``ddbbm.*``) or ``"CC off"``. ``None`` for the cycle-level model, which has no congestion
    control."""
    from .._results import MODEL_CYCLE, flatten_summary

    fields = flatten_summary(summary) if any(isinstance(v, dict) for v in summary.values()) else dict(summary)
    if str(fields.get("model")) == MODEL_CYCLE:
        return None
    if str(fields.get("cc.enabled")).strip().lower() in ("true", "1", "1.0"):
        return "CC on (InfiniBand CC)"
    for prefix, label in _CC_FIELDS:
        if any(k.startswith(prefix) and _present(v) for k, v in fields.items()):
            return label
    return "CC off"


def _run_title(r: RunResult, what: str) -> str:
    """The title of a figure of one run: the scenario's name, the congestion management of an
    credit-level run (:func:`cc_label`), and ``what`` the figure shows."""
    name = r.summary.get("scenario", r.out_dir.name)
    cc = cc_label(r.summary)
    return f"{name}, {cc}: {what}" if cc else f"{name}: {what}"


def _figures_dir(out_dir, source) -> Path:
    """Where figures go: ``source`` itself (the results or sweep folder) when ``out_dir`` is
    ``None`` or that same folder, else ``out_dir``, which must be absent, empty or a figures
    folder lnsim wrote (it is created and marked as a figures folder; see
    :mod:`lnsim._outdir`)."""
    from .._outdir import KIND_FIGURES, prepare_folder

    if out_dir is None:
        return Path(source)
    return prepare_folder(out_dir, KIND_FIGURES, "figures folder", allow=[source], kinds=[KIND_FIGURES])


def _new_ax(ax, figsize=(10, 5)):
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def _no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what}", ha="center", va="center", transform=ax.transAxes, color="0.4")


#: Marker shapes of the series of a line plot, in drawing order (see :func:`_marker_style`).
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "p", "h", "*")
#: About this many markers per series.
MARKS_PER_SERIES = 10


def _marker_style(i: int, n_series: int, y) -> dict:
    """Line2D keywords giving series ``i`` of ``n_series`` (values ``y``) its own marker shape,
    placed every ``stride`` points from an offset of its own (where the value is not 0): where
    lines coincide (equal rates, drawn on top of each other) the markers of every series still
    show, side by side."""
    y = np.asarray(y, dtype=float)
    stride = max(len(y) // MARKS_PER_SERIES, n_series, 1)
    offset = (i * stride) // max(n_series, 1)
    marks = [k for k in range(offset, len(y), stride) if np.isfinite(y[k]) and y[k] != 0]
    return dict(marker=MARKERS[i % len(MARKERS)], ms=5, markevery=marks, markeredgewidth=0.8)


def _line_colors(n: int) -> list:
    """Colours of ``n`` lines (tab10, tab20 beyond ten)."""
    cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
    return [cmap(i % cmap.N) for i in range(max(n, 1))]


def _in_order(values) -> list:
    """Distinct values in order of first appearance (= sweep order: rows are in run order)."""
    return list(dict.fromkeys(values))


def _label(v) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v)) if abs(v) < 1e15 else f"{v:g}"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)
