"""One self-contained HTML page of a results folder or a sweep folder (``lnsim report DIR``).

:func:`write_report` writes ``DIR/report.html`` (or ``out``): the scenario (name, file and its
TOML text when found), summary tables and every figure of :mod:`lnsim.plot` that fits the
folder, embedded as PNG ``data:`` URIs. The page needs no network access (no external CSS,
scripts, fonts or images) and can be mailed or archived on its own.

What the page holds, by kind of folder:

* a run of the InfiniBand model (``summary.json``, ``nodes.csv``, ...): key figures, bandwidth
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
"""

from __future__ import annotations

import argparse
import base64
import datetime as _dt
import html
import io
import math
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

try:  # Python >= 3.11
    import tomllib as _toml
except ImportError:  # pragma: no cover - Python 3.9/3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ImportError:  # pragma: no cover
        _toml = None  # type: ignore[assignment]

from ._core import version
from ._exit import EXIT_OK, InputError
from ._format import format_ns
from ._outdir import check_report_file, is_incomplete
from ._results import flatten_summary, load_results

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

PathLike = Union[str, "os.PathLike[str]"]

#: The summary flattener (:func:`lnsim._results.flatten_summary`) under this module's public name.
flatten = flatten_summary

#: Default file name of the report, written into the folder it describes.
REPORT_FILE = "report.html"
SUMMARY_FILE = "summary.json"
SWEEP_CSV = "sweep.csv"
SWEEP_JSON = "sweep.json"
SCENARIO_COPY = "scenario.toml"

#: Kinds of folder (:func:`folder_kind`).
KIND_RUN = "run"
KIND_SWEEP = "sweep"

#: Resolution of the embedded PNG figures.
FIGURE_DPI = 100
#: Longest tables: rows beyond these are left out (the note says where the rest is).
MAX_NODE_ROWS = 64
MAX_FLOW_ROWS = 100
MAX_SWEEP_ROWS = 500
MAX_PORT_ROWS = 20
#: Routers listed at each end (least / most loaded) in a cycle-level run.
ROUTER_EXTREMES = 5
#: At most this many lines get their own per-router panel in a load sweep.
MAX_ROUTER_PANELS = 8
#: A scenario file longer than this many lines is shown folded (click to open).
OPEN_TOML_LINES = 30
#: A table of nodes or flows with more rows than this is shown folded (click to open).
FOLD_ROWS = 24
#: A key-figures table with more rows than this is laid out in two column pairs.
KV_SPLIT_ROWS = 12


# ---------------------------------------------------------------------------------------------
# public API


def folder_kind(results_dir: PathLike) -> str:
    """``"run"`` for a results folder (it has ``summary.json``) or ``"sweep"`` for a sweep folder
    (``sweep.csv`` and no ``summary.json``). Raises ``FileNotFoundError`` when the folder does
    not exist and ``ValueError`` when it is neither kind, both naming the folder."""
    d = Path(results_dir)
    if not d.exists():
        raise FileNotFoundError(f"{d}: no such folder (expected a results folder with {SUMMARY_FILE} "
                                f"or a sweep folder with {SWEEP_CSV})")
    if not d.is_dir():
        raise ValueError(f"{d}: not a folder (expected a results folder with {SUMMARY_FILE} "
                         f"or a sweep folder with {SWEEP_CSV})")
    if (d / SUMMARY_FILE).is_file():
        return KIND_RUN
    if (d / SWEEP_CSV).is_file():
        return KIND_SWEEP
    raise ValueError(f"{d}: not a results folder (no {SUMMARY_FILE}) nor a sweep folder (no {SWEEP_CSV})")


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
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.tmp-")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()  # our own temporary file, left only by a failure
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


# ---------------------------------------------------------------------------------------------
# formatting


def _esc(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, (str, bytes, dict, list, tuple)):
        return False
    import pandas as pd

    try:
        missing = pd.isna(v)
    except (TypeError, ValueError):
        return False
    if getattr(missing, "ndim", 0) != 0:  # an array: not a scalar cell
        return False
    return bool(missing)


def fmt_number(v: Any) -> str:
    """A table cell value as text: thousands separators for integers, about 4 significant digits
    for other numbers, ``yes``/``no`` for booleans, ``–`` for missing values."""
    import numpy as np

    if _is_missing(v):
        return "–"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        a = abs(x)
        if a >= 1e4:
            return f"{x:,.0f}"
        if a >= 1e-3:
            return f"{x:.4g}"
        return f"{x:.3e}"
    return str(v)


def _is_number(v: Any) -> bool:
    import numpy as np

    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _fmt_ns(v: Any) -> str:
    """A table cell of a duration in ns (:func:`lnsim._format.format_ns`, 4 significant
    digits); a missing value or a non-number as :func:`fmt_number` writes it."""
    if _is_missing(v) or not _is_number(v):
        return fmt_number(v)
    return format_ns(float(v), ".4g")


def _fmt_s(v: Any) -> str:
    if _is_missing(v) or not _is_number(v):
        return fmt_number(v)
    x = float(v)
    if x != 0 and abs(x) < 1e-3:
        return f"{x * 1e6:.4g} µs"
    if x != 0 and abs(x) < 1:
        return f"{x * 1e3:.4g} ms"
    return f"{x:.4g} s"


def _fmt_bytes(v: Any) -> str:
    if _is_missing(v) or not _is_number(v):
        return fmt_number(v)
    return f"{float(v) / 2**20:.1f} MiB"


def _unit(unit: str) -> Callable[[Any], str]:
    def f(v: Any) -> str:
        text = fmt_number(v)
        return text if text == "–" or not _is_number(v) else f"{text} {unit}"

    return f


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _get(summary: dict, path: str) -> Any:
    v: Any = summary
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


# ---------------------------------------------------------------------------------------------
# the page


_CSS = """
:root { --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --accent: #1f5fa8; --bg-alt: #f4f6fa; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI",
       Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 1.7em; margin: 0.2em 0 0.1em; }
h2 { font-size: 1.3em; margin: 1.8em 0 0.5em; padding-bottom: 0.2em; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05em; margin: 1.3em 0 0.4em; }
p.lead { color: var(--muted); margin: 0 0 1em; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
nav.toc { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px; padding: 10px 18px;
          margin: 16px 0; }
nav.toc ol { margin: 0.3em 0; padding-left: 1.4em; }
nav.toc ol ol { list-style: disc; font-size: 0.93em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid var(--line); padding: 3px 9px; text-align: left; vertical-align: top; }
th { background: var(--bg-alt); font-weight: 600; }
tbody tr:nth-child(even) td { background: #fafbfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
table.sweep th { max-width: 9em; overflow-wrap: anywhere; }
td.bad { color: #b3261e; font-weight: 600; }
table.kv th { width: 17em; }
table.kv2 th { width: auto; white-space: nowrap; }
table.kv2 td { min-width: 10em; padding-right: 18px; }
.scroll { overflow-x: auto; max-width: 100%; }
figure { margin: 1em 0 1.6em; padding: 10px; border: 1px solid var(--line); border-radius: 6px; }
figure img { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { color: var(--muted); font-size: 0.9em; margin-top: 6px; }
figcaption b { color: var(--fg); }
pre { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px;
      overflow-x: auto; font-size: 0.85em; line-height: 1.35; }
pre.error { white-space: pre-wrap; margin: 0; border: 0; background: none; padding: 0; }
details { margin: 0.5em 0 1em; }
summary { cursor: pointer; color: var(--accent); }
.note { color: var(--muted); font-size: 0.9em; }
p.incomplete { background: #fdecea; border: 2px solid #b3261e; border-radius: 6px; padding: 10px 14px;
               color: #7a1a14; }
.warn { background: #fff4e5; border: 1px solid #f0b45a; border-radius: 6px; padding: 8px 12px; }
.figure-error { background: #fdecea; border: 1px solid #e49a93; border-radius: 6px; padding: 8px 12px; }
footer { margin-top: 3em; color: var(--muted); font-size: 0.85em; border-top: 1px solid var(--line);
         padding-top: 8px; }
"""

# Counts the figures that decoded and the JavaScript errors, for headless-browser checks.
_SCRIPT = """
(function () {
  var errors = [];
  window.onerror = function (message, source, line) {
    errors.push(String(message) + (line ? " (line " + line + ")" : ""));
    if (document.body) { document.body.dataset.jsErrors = String(errors.length);
                         document.body.dataset.jsErrorLog = errors.join("\\n"); }
    return false;
  };
  window.addEventListener("load", function () {
    var imgs = document.querySelectorAll("img.figure");
    var loaded = 0;
    for (var i = 0; i < imgs.length; i++) {
      if (imgs[i].complete && imgs[i].naturalWidth > 0) { loaded++; }
    }
    var b = document.body.dataset;
    b.figuresLoaded = String(loaded);
    b.figuresFound = String(imgs.length);
    b.jsErrors = String(errors.length);
    b.jsErrorLog = errors.join("\\n");
    b.reportReady = "1";
  });
})();
"""


class _Page:
    """The report being built: a title, sections (each a list of HTML fragments), figures."""

    def __init__(self) -> None:
        self.title = "lnsim report"
        self.subtitle = ""
        #: HTML of a warning shown under the title (e.g. the partial results of an interrupted run).
        self.banner = ""
        self.sections: List[Tuple[str, str, List[str], List[Tuple[str, str]]]] = []
        self.n_figures = 0
        self.n_figure_errors = 0
        self._ids: set = set()

    def section(self, title: str) -> List[str]:
        """Starts a section; returns the list its HTML fragments are appended to."""
        sid = _slug(title)
        while sid in self._ids:
            sid += "-x"
        self._ids.add(sid)
        parts: List[str] = []
        self.sections.append((sid, title, parts, []))
        return parts

    def figure(self, parts: List[str], caption: str, draw: Callable[[Any], Any], figsize=(10, 5), title: str = "") -> None:
        """Renders ``draw(fig)`` (on a new matplotlib figure of ``figsize`` inches) into a PNG
        figure of the current section with ``caption`` (plain text); a drawing error becomes a
        visible note instead."""
        self.n_figures += 1
        number = self.n_figures
        fid = f"fig-{number}"
        short = title or caption.split(".")[0]
        from ._read import ResultsError

        try:
            png = _render_png(draw, figsize)
        except ResultsError:
            raise  # a corrupt input file is the user's to fix: no page (exit status 2)
        except Exception as e:  # noqa: BLE001 - one bad figure must not lose the page
            self.n_figures -= 1
            self.n_figure_errors += 1
            parts.append(f'<p class="figure-error">Figure “{_esc(short)}” could not be drawn: '
                         f"{_esc(type(e).__name__)}: {_esc(e)}</p>")
            return
        data = base64.b64encode(png).decode("ascii")
        parts.append(
            f'<figure id="{fid}"><img class="figure" src="data:image/png;base64,{data}" alt="{_esc(short)}">'
            f"<figcaption><b>Figure {number}.</b> {_esc(caption)}</figcaption></figure>"
        )
        self.sections[-1][3].append((fid, f"Figure {number}: {short}"))

    def render(self) -> str:
        toc = []
        for sid, title, _, figs in self.sections:
            sub = "".join(f'<li><a href="#{fid}">{_esc(t)}</a></li>' for fid, t in figs)
            toc.append(f'<li><a href="#{sid}">{_esc(title)}</a>' + (f"<ol>{sub}</ol>" if sub else "") + "</li>")
        body = []
        for sid, title, parts, _ in self.sections:
            body.append(f'<section id="{sid}"><h2>{_esc(title)}</h2>\n' + "\n".join(parts) + "\n</section>")
        stamp = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="generator" content="lnsim report">\n'
            f"<title>{_esc(self.title)}</title>\n<style>{_CSS}</style>\n<script>{_SCRIPT}</script>\n</head>\n"
            f'<body data-figures-total="{self.n_figures}" data-figure-errors="{self.n_figure_errors}">\n<main>\n'
            f"<header><h1>{_esc(self.title)}</h1><p class=\"lead\">{self.subtitle}</p>{self.banner}</header>\n"
            f'<nav class="toc"><b>Contents</b><ol>{"".join(toc)}</ol></nav>\n'
            + "\n".join(body)
            + f"\n<footer>Written by lnsim {_esc(version())} on {_esc(stamp)}. Self-contained page: "
            "figures are embedded, nothing is loaded from the network.</footer>\n</main>\n</body>\n</html>\n"
        )


def _render_png(draw: Callable[[Any], Any], figsize) -> bytes:
    """PNG bytes of a new matplotlib figure drawn by ``draw(fig)``; the figure is always closed."""
    from . import plot  # noqa: F401 - selects the Agg backend unless MPLBACKEND says otherwise
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=figsize)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            draw(fig)
            fig.tight_layout()
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches="tight", facecolor="white")
    finally:
        plt.close(fig)
    return buf.getvalue()


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Optional[Sequence[bool]] = None,
           formats: Optional[Sequence[Optional[Callable[[Any], str]]]] = None, cls: str = "") -> str:
    """An HTML table; ``numeric`` columns are right-aligned, cells formatted by ``formats``
    (default :func:`fmt_number`) and escaped."""
    n = len(header)
    if numeric is None:
        numeric = [all(_is_number(r[i]) or _is_missing(r[i]) for r in rows) and any(_is_number(r[i]) for r in rows)
                   for i in range(n)]
    formats = list(formats or [None] * n)
    num = ' class="num"'
    head = "".join(f"<th{num if numeric[i] else ''}>{_esc(h)}</th>" for i, h in enumerate(header))
    out = []
    for r in rows:
        cells = []
        for i, v in enumerate(r):
            text = (formats[i] or fmt_number)(v)
            cells.append(f"<td{num if numeric[i] else ''}>{_esc(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    klass = f' class="{cls}"' if cls else ""
    return f'<div class="scroll"><table{klass}><thead><tr>{head}</tr></thead><tbody>' + "".join(out) + "</tbody></table></div>"


def _fold(table: str, n_rows: int, what: str) -> str:
    """``table`` as it is, or folded (click to open) when it has more than
    :data:`FOLD_ROWS` rows."""
    if n_rows <= FOLD_ROWS:
        return table
    return f"<details><summary>Table of {n_rows} {_esc(what)} (click to open)</summary>{table}</details>"


def _kv_table(items: Sequence[Tuple[str, str]]) -> str:
    """A table of (label, already formatted text) pairs; a long one is laid out in two column
    pairs (first half on the left, second half on the right)."""
    items = list(items)
    if len(items) <= KV_SPLIT_ROWS:
        rows = "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(v)}</td></tr>" for k, v in items)
        return f'<table class="kv"><tbody>{rows}</tbody></table>'
    half = (len(items) + 1) // 2
    rows = []
    for i in range(half):
        cells = [items[i]] + ([items[i + half]] if i + half < len(items) else [])
        row = "".join(f"<th>{_esc(k)}</th><td>{_esc(v)}</td>" for k, v in cells)
        rows.append(f"<tr>{row}{'<th></th><td></td>' if len(cells) == 1 else ''}</tr>")
    return f'<table class="kv kv2"><tbody>{"".join(rows)}</tbody></table>'


def _key_figures(summary: dict, spec: Sequence[Tuple[str, str, Callable[[Any], str]]]) -> List[Tuple[str, str]]:
    return [(label, f(_get(summary, path))) for path, label, f in spec if _get(summary, path) is not None]


def _all_fields(summary: dict) -> str:
    flat = flatten_summary(summary)
    rows = [(k, v) for k, v in sorted(flat.items())]
    return (f"<details><summary>All {len(rows)} scalar fields of summary.json</summary>"
            + _table(["field", "value"], rows, numeric=[False, True]) + "</details>")


# ---------------------------------------------------------------------------------------------
# the scenario


def _read_toml_text(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _scenario_meta(text: Optional[str]) -> dict:
    """The ``[scenario]`` table of a scenario's TOML text (``{}`` when absent or unreadable)."""
    if not text or _toml is None:
        return {}
    try:
        doc = _toml.loads(text)
    except Exception:  # noqa: BLE001 - a broken file is still shown as text
        return {}
    meta = doc.get("scenario")
    return meta if isinstance(meta, dict) else {}


def _find_file(name: PathLike, near: Path) -> Optional[Path]:
    """``name`` as given (absolute, or relative to the current folder), else relative to each
    folder above ``near`` (a sweep run from the repository names ``scenarios/...``)."""
    p = Path(name)
    if p.is_absolute():
        return p if p.is_file() else None
    if p.is_file():
        return p
    for parent in near.resolve().parents:
        q = parent / p
        if q.is_file():
            return q
    return None


def _find_by_name(name: str, near: Path) -> Optional[Path]:
    """A ``scenarios/**/<name>.toml`` in the first folder above ``near`` that has a
    ``scenarios`` folder."""
    if not name or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        return None
    for parent in near.resolve().parents:
        scen = parent / "scenarios"
        if scen.is_dir():
            hits = sorted(scen.rglob(f"{name}.toml"))
            return hits[0] if hits else None
    return None


def _scenario_section(page: _Page, name: str, rows: List[Tuple[str, str]], toml_path: Optional[Path],
                      toml_label: str, missing_note: str) -> None:
    parts = page.section("Scenario")
    text = _read_toml_text(toml_path) if toml_path is not None else None
    meta = _scenario_meta(text)
    items = [("name", name or "–")] + rows
    parts.append(_kv_table(items))
    desc = meta.get("description")
    if isinstance(desc, str) and desc.strip():
        parts.append(f"<p>{_esc(' '.join(desc.split()))}</p>")
    if text is None:
        parts.append(f'<p class="note">{_esc(missing_note)}</p>')
    else:
        n_lines = text.count("\n") + 1
        open_attr = " open" if n_lines <= OPEN_TOML_LINES else ""
        parts.append(f"<details{open_attr}><summary>{_esc(toml_label)} ({n_lines} lines)</summary>"
                     f"<pre>{_esc(text)}</pre></details>")


# ---------------------------------------------------------------------------------------------
# one run


_IB_KEYS = [
    ("seed", "seed", fmt_number),
    ("sim_time_s", "simulated time", _fmt_s),
    ("warmup_s", "warm-up (figures after it)", _fmt_s),
    ("interval_s", "statistics interval", _fmt_s),
    ("throughput.total_rx_gbps", "throughput received", _unit("Gbit/s")),
    ("throughput.total_tx_gbps", "throughput sent", _unit("Gbit/s")),
    ("throughput.rx_gbps_after_warmup", "received after warm-up", _unit("Gbit/s")),
    ("throughput.tx_gbps_after_warmup", "sent after warm-up", _unit("Gbit/s")),
    ("latency_ns.mean", "packet latency, mean", _fmt_ns),
    ("latency_ns.p50", "packet latency, median", _fmt_ns),
    ("latency_ns.p99", "packet latency, p99", _fmt_ns),
    ("latency_ns.max", "packet latency, max", _fmt_ns),
    ("network_latency_ns.mean", "network latency, mean", _fmt_ns),
    ("fairness.jain", "Jain fairness index (flows)", lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)),
    ("fairness.window_start_s", "fairness measured from", _fmt_s),
    ("cc.enabled", "congestion control", fmt_number),
    ("cc.fecn_marks", "FECN marks", fmt_number),
    ("cc.cnps_sent", "CNPs sent", fmt_number),
    ("cc.cnps_received", "CNPs received", fmt_number),
    ("cc.max_ccti", "max CCTI", fmt_number),
    ("cc.throttled_s", "time throttled (sum over flows)", _fmt_s),
    ("flows_total", "flows", fmt_number),
    ("events", "events", fmt_number),
    ("flit_hops", "credit-hops", fmt_number),
    ("wall_time_s", "wall time", _fmt_s),
    ("peak_rss_bytes", "peak memory", _fmt_bytes),
    ("version", "lnsim version", str),
]

_CYCLE_KEYS = [
    ("topology", "topology", str),
    ("routing", "routing", str),
    ("vlb_policy", "VLB policy", str),
    ("pattern", "traffic pattern", str),
    ("seed", "seed", fmt_number),
    ("warmup_cycles", "warm-up", _unit("cycles")),
    ("measured_cycles", "measured", _unit("cycles")),
    ("change_cycle", "transient change at", _unit("cycles")),
    ("offered_load", "offered load", _unit("phits/node/cycle")),
    ("injected_load", "injected load", _unit("phits/node/cycle")),
    ("accepted_load", "accepted load", _unit("phits/node/cycle")),
    ("saturated", "saturated", fmt_number),
    ("stopped_early", "stopped early", fmt_number),
    ("latency_cycles.mean", "packet latency, mean", _unit("cycles")),
    ("latency_cycles.p50", "packet latency, median", _unit("cycles")),
    ("latency_cycles.p99", "packet latency, p99", _unit("cycles")),
    ("latency_cycles.max", "packet latency, max", _unit("cycles")),
    ("network_latency_cycles.mean", "network latency, mean", _unit("cycles")),
    ("network_latency_cycles.p99", "network latency, p99", _unit("cycles")),
    ("nonminimal_fraction", "non-minimal fraction", fmt_number),
    ("avg_hops", "mean hops", fmt_number),
    ("fairness.jain_routers", "Jain index of the routers' injected loads",
     lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)),
    ("fairness.min_router_load", "lowest injected load of a router", _unit("phits/node/cycle")),
    ("fairness.max_router_load", "highest injected load of a router", _unit("phits/node/cycle")),
    ("packets.generated", "packets generated", fmt_number),
    ("packets.injected", "packets injected", fmt_number),
    ("packets.delivered", "packets delivered", fmt_number),
    ("packets.in_network", "packets in the network at the end", fmt_number),
    ("phit_hops_per_s", "speed", _unit("phit-hops/s")),
    ("wall_time_s", "wall time", _fmt_s),
    ("peak_rss_bytes", "peak memory", _fmt_bytes),
    ("version", "lnsim version", str),
]


def _run_report(page: _Page, d: Path) -> None:
    r = load_results(d).check()  # a corrupt file raises ResultsError before any figure
    s = r.summary
    name = str(s.get("scenario") or d.name)
    model = "cycle-level router model" if r.is_cycle else "InfiniBand model"
    page.title = f"lnsim report: {name}"
    page.subtitle = f"One run of the {_esc(model)} — results folder <code>{_esc(d)}</code>"
    if is_incomplete(d):
        from .plot import incomplete_note

        page.title += " (INCOMPLETE)"
        note = incomplete_note(s) or "INCOMPLETE RUN: partial results"
        page.banner = (f'<p class="incomplete"><b>{_esc(note)}.</b> The run did not reach its end: every '
                       "figure and number below covers only the part that was simulated (summary.json has "
                       "<code>\"complete\": false</code>).</p>")

    copy = d / SCENARIO_COPY
    if copy.is_file():
        toml_path, label = copy, f"{SCENARIO_COPY} (the scenario as run, overrides applied)"
        file_row = [("scenario file", f"{copy} (as run, overrides applied)")]
    else:
        toml_path = _find_by_name(name, d)
        label = f"{toml_path} (found by the scenario's name; the run may have used overrides)" if toml_path else ""
        file_row = [("scenario file", f"{toml_path} (found by name)" if toml_path else "not found")]
    rows = file_row + [("model", model), ("results folder", str(d))]
    _scenario_section(page, name, rows, toml_path, label,
                      f"No {SCENARIO_COPY} in the results folder and no scenarios/**/{name}.toml found above it.")
    if r.is_cycle:
        _cycle_run(page, r)
    else:
        _ib_run(page, r)


def _ib_run(page: _Page, r) -> None:
    from . import plot

    s = r.summary
    parts = page.section("Summary")
    dl = s.get("deadlock")
    if dl:
        loop = " → ".join(str(x) for x in dl.get("cycle", []))
        parts.append(f'<p class="warn"><b>Deadlock</b> at {_esc(_fmt_s(dl.get("time_s")))}: '
                     f'{_esc(fmt_number(dl.get("blocked_packets")))} packets stuck; credit loop {_esc(loop)}. '
                     "The run stopped there.</p>")
    parts.append(_kv_table(_key_figures(s, _IB_KEYS)))
    parts.append(_all_fields(s))

    parts = page.section("Figures")
    has_nodes = (r.out_dir / "nodes.csv").is_file()
    if has_nodes:
        if r.ccti is not None:
            page.figure(parts, "Bandwidth of each node over time (top: senders solid, left axis; receivers dashed, "
                        "right axis, same scale; MB/s = 1e6 bytes/s; each line has its own marker, staggered, so "
                        "that lines at equal rates stay visible) and the CCTI of each flow at the end of every interval "
                        "(bottom; 0 = not throttled), on one time axis. The dotted line is the end of the warm-up.",
                        lambda fig: plot.plot_bandwidth_ccti(r, fig=fig), figsize=(11, 9),
                        title="bandwidth and CCTI over time")
        else:
            page.figure(parts, "Bandwidth of each node over time: senders solid (left axis), receivers dashed "
                        "(right axis, same scale), MB/s = 1e6 bytes/s; each line has its own marker, staggered, so "
                        "that lines at equal rates stay visible. The dotted line is the end of the warm-up.",
                        lambda fig: plot.plot_bandwidth(r, ax=fig.subplots()), figsize=(11, 6),
                        title="bandwidth over time")
        if r.ccti is not None:
            n = max(min(len(plot.flow_ccti(r, "ccti_max").columns), plot.MAX_CCTI_PANELS), 1)
            page.figure(parts, "CCTI of each throttled flow over time, a panel per flow (the flows with the highest "
                        f"mean CCTI, at most {plot.MAX_CCTI_PANELS}): the CCTI at the end of every interval (line) "
                        "and, shaded, up to the highest CCTI within it; 0 = not throttled.",
                        lambda fig: plot.plot_ccti_flows(r, fig=fig), figsize=(10, 1.5 * n + 1.4),
                        title="CCTI per flow")
        page.figure(parts, "Aggregate network throughput per interval: bytes received by all nodes (blue) and "
                    "sent (grey), in Gbit/s.", lambda fig: plot.plot_throughput(r, ax=fig.subplots()),
                    figsize=(10, 4.5), title="network throughput")
    if (r.out_dir / "latency_hist.csv").is_file():
        page.figure(parts, "Packet latency histogram on logarithmic axes, with the mean, median and p99 of "
                    "summary.json marked.", lambda fig: plot.plot_latency_histogram(r, ax=fig.subplots()),
                    figsize=(8, 4.5), title="latency histogram")
    buffers = r.buffers
    if buffers is not None and not buffers.empty and float(buffers["mean_credits"].max()) > 0:
        page.figure(parts, f"Time-averaged occupancy of the switch input buffers per interval, in credits "
                    f"(the {plot.MAX_LINES} fullest buffers).", lambda fig: plot.plot_buffers(r, ax=fig.subplots()),
                    figsize=(11, 5.5), title="buffer occupancy")
    if not parts:
        parts.append('<p class="note">No figure: the folder has neither nodes.csv nor latency_hist.csv.</p>')

    _ib_tables(page, r)


def _ib_tables(page: _Page, r) -> None:
    s = r.summary
    cc_on = bool((s.get("cc") or {}).get("enabled"))
    nodes = s.get("nodes") or {}
    parts = None
    active = [(n, v) for n, v in nodes.items()
              if isinstance(v, dict) and ((v.get("tx_gbps") or 0) > 0 or (v.get("rx_gbps") or 0) > 0)]
    if active:
        parts = page.section("Nodes and flows")
        parts.append("<h3>Nodes</h3>")
        note = ""
        if len(active) > MAX_NODE_ROWS:
            ranked = sorted(active, key=lambda nv: -((nv[1].get("tx_gbps") or 0) + (nv[1].get("rx_gbps") or 0)))
            keep = {n for n, _ in ranked[:MAX_NODE_ROWS]}
            note = (f"The {MAX_NODE_ROWS} busiest of {len(active)} active nodes; all are in summary.json. ")
            active = [(n, v) for n, v in active if n in keep]
        cols = [("link_gbps", "link Gbit/s"), ("tx_gbps", "tx Gbit/s"), ("rx_gbps", "rx Gbit/s"),
                ("tx_gbps_after_warmup", "tx after warm-up"), ("rx_gbps_after_warmup", "rx after warm-up")]
        if cc_on:
            cols += [("cnps_sent", "CNPs sent"), ("cnps_received", "CNPs received")]
        cols = [(k, h) for k, h in cols if any(k in v for _, v in active)]
        rows = [[n, *(v.get(k) for k, _ in cols)] for n, v in active]
        parts.append(_fold(_table(["node", *(h for _, h in cols)], rows, numeric=[False] + [True] * len(cols)),
                           len(rows), "nodes"))
        idle = len(nodes) - len([1 for _, v in nodes.items() if isinstance(v, dict) and
                                 ((v.get("tx_gbps") or 0) > 0 or (v.get("rx_gbps") or 0) > 0)])
        if idle:
            note += f"{idle} idle node{'s' if idle != 1 else ''} not listed."
        if note:
            parts.append(f'<p class="note">{_esc(note.strip())}</p>')

    flows = r.flows if (r.out_dir / "flows.csv").is_file() else None
    if flows is not None and not flows.empty:
        if parts is None:
            parts = page.section("Nodes and flows")
        parts.append("<h3>Flows</h3>")
        wanted = [("src", "src", None), ("dst", "dst", None), ("vl", "VL", None), ("tx_bytes", "tx bytes", None),
                  ("rx_bytes", "rx bytes", None), ("tx_gbps", "tx Gbit/s", None), ("rx_gbps", "rx Gbit/s", None),
                  ("rx_gbps_window", "rx Gbit/s (fairness window)", None),
                  ("latency_mean_ns", "mean latency", _fmt_ns), ("throttled_s", "throttled", _fmt_s)]
        cols = [(c, h, f) for c, h, f in wanted if c in flows.columns]
        note = ""
        t = flows
        if len(t) > MAX_FLOW_ROWS:
            key = "rx_bytes" if "rx_bytes" in t.columns else t.columns[-1]
            t = t.loc[t[key].sort_values(ascending=False, kind="stable").index[:MAX_FLOW_ROWS]].sort_index()
            note = f"The {MAX_FLOW_ROWS} flows that received most of {len(flows)}; all are in flows.csv."
        rows = [[row[c] for c, _, _ in cols] for _, row in t.iterrows()]
        numeric = [c not in ("src", "dst") for c, _, _ in cols]
        parts.append(_fold(_table([h for _, h, _ in cols], rows, numeric=numeric, formats=[f for _, _, f in cols]),
                           len(rows), "flows"))
        if note:
            parts.append(f'<p class="note">{_esc(note)}</p>')
        per_dest = (s.get("fairness") or {}).get("per_destination")
        if isinstance(per_dest, dict) and per_dest:
            items = list(per_dest.items())[:MAX_NODE_ROWS]
            parts.append("<h3>Fairness per destination</h3>")
            parts.append(_table(["destination", "Jain index"], items, numeric=[False, True],
                                formats=[None, lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)]))

    ports = r.cc_ports
    if ports is not None and not ports.empty and "fecn_marks" in ports.columns:
        marked = ports[ports["fecn_marks"] > 0].sort_values("fecn_marks", ascending=False, kind="stable")
        cc_parts = page.section("Congestion control")
        if marked.empty:
            cc_parts.append('<p class="note">No switch port marked FECN (no congestion detected).</p>')
        else:
            cols = [c for c in ("switch", "port", "vl", "fecn_marks", "congested_s") if c in marked.columns]
            heads = {"switch": "switch", "port": "port", "vl": "VL", "fecn_marks": "FECN marks",
                     "congested_s": "time congested"}
            rows = [[row[c] for c in cols] for _, row in marked.head(MAX_PORT_ROWS).iterrows()]
            cc_parts.append(f"<p>Switch ports that marked FECN, most marks first ({len(marked)} of {len(ports)} "
                            "port/VL pairs; cc_ports.csv has them all).</p>")
            cc_parts.append(_table([heads[c] for c in cols], rows, numeric=[c != "switch" for c in cols],
                                   formats=[_fmt_s if c == "congested_s" else None for c in cols]))


def _cycle_run(page: _Page, r) -> None:
    from . import plot

    s = r.summary
    parts = page.section("Summary")
    state = [w for k, w in (("saturated", "saturated"), ("stopped_early", "stopped early")) if s.get(k)]
    if state:
        parts.append(f'<p class="warn">The run {" and ".join(state)}: the offered load is beyond what the network '
                     "accepts, latencies have no steady state.</p>")
    parts.append(_kv_table(_key_figures(s, _CYCLE_KEYS)))
    parts.append(_all_fields(s))

    parts = page.section("Figures")
    bins = r.bins
    if bins is not None:
        n_panels = len([c for c in plot.BINS_PANELS if c in bins.columns])
        page.figure(parts, "The run over time in cycles, per time bin (bins.csv): accepted load, mean packet latency "
                    "and fraction of packets routed non-minimally. Dotted: end of the warm-up; dashed red: the "
                    "transient change, if any.", lambda fig: plot.plot_timeline(r, fig=fig),
                    figsize=(10, 2.6 * max(n_panels, 1) + 0.6), title="timeline")
    if r.routers is not None:
        page.figure(parts, "Accepted load of each router (bars, groups in alternating shades), injected load (dots) "
                    "and the offered load (dashed line); the title gives the Jain index of the routers' injected loads.",
                    lambda fig: plot.plot_router_load(r, ax=fig.subplots()), figsize=(11, 4.5),
                    title="accepted load per router")
    if (r.out_dir / "latency_hist.csv").is_file():
        page.figure(parts, "Packet latency histogram in cycles on logarithmic axes, with the mean, median and p99 "
                    "marked.", lambda fig: plot.plot_latency_histogram(r, ax=fig.subplots()), figsize=(8, 4.5),
                    title="latency histogram")
    if not parts:
        parts.append('<p class="note">No figure: the folder has none of bins.csv, routers.csv, latency_hist.csv.</p>')

    t = r.routers
    if t is not None and not t.empty and "accepted_load" in t.columns:
        parts = page.section("Routers")
        label_col = "name" if "name" in t.columns else None
        cols = ["router"] + ([label_col] if label_col else []) + (["group"] if "group" in t.columns else []) + \
               [c for c in ("injected_load", "accepted_load") if c in t.columns]
        heads = {"router": "router", "name": "name", "group": "group", "injected_load": "injected load",
                 "accepted_load": "accepted load"}
        order = t.sort_values("accepted_load", kind="stable")
        if len(t) <= 2 * ROUTER_EXTREMES:
            shown, what = order, f"All {len(t)} routers, least loaded first"
        else:
            shown = order.iloc[list(range(ROUTER_EXTREMES)) + list(range(len(t) - ROUTER_EXTREMES, len(t)))]
            what = f"The {ROUTER_EXTREMES} least and {ROUTER_EXTREMES} most loaded of {len(t)} routers (routers.csv)"
        parts.append(f"<p>{_esc(what)}; loads in phits/node/cycle.</p>")
        rows = [[row[c] for c in cols] for _, row in shown.iterrows()]
        parts.append(_table([heads.get(c, c) for c in cols], rows,
                            numeric=[c not in ("name", "group") for c in cols]))
        if "group" in t.columns and t["group"].nunique() > 1:
            g = t.groupby("group", sort=False)["accepted_load"].agg(["count", "mean", "min", "max"]).reset_index()
            parts.append("<h3>Accepted load per group</h3>")
            rows = [[row["group"], row["count"], row["mean"], row["min"], row["max"]] for _, row in g.iterrows()]
            parts.append(_table(["group", "routers", "mean", "min", "max"], rows,
                                numeric=[False, True, True, True, True]))


# ---------------------------------------------------------------------------------------------
# a sweep

#: Columns of the sweep table (those present), after the swept keys: InfiniBand, then cycle-level.
SWEEP_COLUMNS = [
    ("throughput.total_rx_gbytes_per_s", "rx GB/s"),
    ("throughput.rx_gbytes_per_s_after_warmup", "rx after warm-up GB/s"),
    ("latency_ns.mean", "mean latency ns"),
    ("latency_ns.p99", "p99 latency ns"),
    ("fairness.jain", "Jain"),
    ("cc.max_ccti", "max CCTI"),
    ("offered_load", "offered"),
    ("accepted_load", "accepted"),
    ("latency_cycles.mean", "mean latency cycles"),
    ("latency_cycles.p99", "p99 latency cycles"),
    ("nonminimal_fraction", "non-minimal"),
    ("avg_hops", "hops"),
    ("fairness.jain_routers", "Jain (routers)"),
    ("saturated", "saturated"),
]

#: Metrics drawn against the swept keys of a sweep that is not a load sweep (those with data).
SWEEP_METRICS = [
    ("throughput.total_rx_gbytes_per_s", "Total bytes received per second"),
    ("throughput.rx_gbytes_per_s_after_warmup", "Throughput received after the warm-up"),
    ("latency_ns.mean", "Mean packet latency"),
    ("fairness.jain", "Jain fairness index of the flows"),
    ("cc.max_ccti", "Highest CCTI reached"),
    ("accepted_load", "Accepted load"),
    ("latency_cycles.mean", "Mean packet latency"),
    ("nonminimal_fraction", "Fraction of packets routed non-minimally"),
    ("fairness.jain_routers", "Jain fairness index of the accepted load per router"),
]


def _read_json(path: Path) -> dict:
    """sweep.json checked (:func:`lnsim._read.read_sweep_meta`), ``{}`` when absent; a corrupt
    one raises :class:`lnsim.ResultsError` naming it."""
    from ._read import read_sweep_meta

    return read_sweep_meta(path) if path.is_file() else {}


def _ok_mask(df):
    import pandas as pd

    return df["status"] == "ok" if "status" in df.columns else pd.Series(True, index=df.index)


def _has_data(df, col: str, nonzero: bool = False) -> bool:
    from ._read import sweep_numbers

    if col not in df.columns:
        return False
    v = sweep_numbers(df, col).dropna()  # text in a successful row: ResultsError
    return len(v) > 0 and (not nonzero or bool((v != 0).any()))


def _run_dir(d: Path, meta: dict, row) -> Optional[Path]:
    """The folder of one row of sweep.csv (``points/<id>/`` or ``points/<id>/seed-<s>/``)."""
    point = str(row.get("point", ""))
    seed = row.get("seed")
    for p in meta.get("points") or []:
        if p.get("point") == point:
            for run in p.get("runs") or []:
                if str(run.get("seed")) == str(seed) and run.get("dir"):
                    q = d / run["dir"]
                    if (q / SUMMARY_FILE).is_file():
                        return q
            if p.get("dir") and (d / p["dir"] / SUMMARY_FILE).is_file():
                return d / p["dir"]
    base = d / "points" / point
    if seed is not None and not _is_missing(seed):
        s = str(int(seed)) if _is_number(seed) else str(seed)
        if (base / f"seed-{s}" / SUMMARY_FILE).is_file():
            return base / f"seed-{s}"
    return base if (base / SUMMARY_FILE).is_file() else None


def _sweep_report(page: _Page, d: Path) -> None:
    from . import plot
    from ._sweep import load_sweep, with_gbytes
    from .plot._style import _label

    df = with_gbytes(load_sweep(d))  # throughput in GB/s in the table and the figures
    keys = list(df.attrs["keys"])
    meta = _read_json(d / SWEEP_JSON)
    ok = _ok_mask(df)
    n_points = df["point"].nunique() if "point" in df.columns else len(df)
    seeded = "seed" in df.columns and n_points < len(df)
    cycle = "model" in df.columns and (df.loc[ok, "model"] == "cycle").any()
    scen_path = meta.get("scenario")
    name = None
    if "scenario" in df.columns and df.loc[ok, "scenario"].notna().any():
        name = str(df.loc[ok, "scenario"].dropna().iloc[0])
    name = name or (Path(str(scen_path)).stem if scen_path else d.name)
    page.title = f"lnsim sweep report: {name}"
    lkey = plot.load_key(df, keys) if ok.any() else None
    what = "load sweep" if lkey else "sweep"
    model = "cycle-level router model" if cycle else "InfiniBand model"
    page.subtitle = (f"A {_esc(what)} of the {_esc(model)} over {_esc(', '.join(keys) or '–')} — "
                     f"sweep folder <code>{_esc(d)}</code>")

    # scenario
    found = _find_file(scen_path, d) if scen_path else None
    rows: List[Tuple[str, str]] = [("scenario file", str(scen_path) if scen_path else "not recorded (no sweep.json)")]
    if found is not None and str(found) != str(scen_path):
        rows.append(("found at", str(found)))
    overrides = meta.get("overrides") or []
    rows.append(("overrides (--set)", ", ".join(str(o) for o in overrides) if overrides else "none"))
    values = meta.get("values") or {}
    for k in keys:
        vals = values.get(k)
        if vals is None:
            vals = list(dict.fromkeys(df[k].tolist()))
        rows.append((f"swept: {k}", ", ".join(_label(v) for v in vals)))
    if seeded or meta.get("seeds", 1) not in (None, 1):
        seeds = sorted(set(df["seed"].dropna().tolist())) if "seed" in df.columns else []
        rows.append(("seeds per point", f"{meta.get('seeds') or len(seeds)} ({', '.join(fmt_number(s) for s in seeds)})"))
    rows.append(("sweep folder", str(d)))
    toml_path, label = found, f"{found} (the scenario file)"
    missing = f"The scenario file {scen_path} was not found." if scen_path else "sweep.json names no scenario file."
    if found is None:  # the first point's copy, as run, with that point's overrides
        first = _run_dir(d, meta, df.iloc[0]) if len(df) else None
        if first is not None and (first / SCENARIO_COPY).is_file():
            toml_path = first / SCENARIO_COPY
            label = f"{toml_path} (the scenario as run by the first point, its overrides applied)"
    _scenario_section(page, name, rows, toml_path, label, missing)

    # summary and table
    parts = page.section("Summary")
    failed = int((~ok).sum())
    runs = f"{len(df)} runs ({n_points} points × {len(df) // max(n_points, 1)} seeds)" if seeded else f"{len(df)} points"
    items = [("runs", f"{runs}: {len(df) - failed} ok, {failed} failed")]
    if meta.get("executor"):
        items.append(("executor", str(meta["executor"])))
    if meta.get("jobs"):
        items.append(("parallel jobs", fmt_number(meta["jobs"])))
    if meta.get("simulated") is not None:
        items.append(("simulated / from the store", f"{meta['simulated']} / {meta.get('reused', 0)} runs"))
    if meta.get("wall_time_s") is not None:
        items.append(("wall time", _fmt_s(meta["wall_time_s"])))
    if meta.get("version"):
        items.append(("lnsim version", str(meta["version"])))
    for col, label_, swept in (("topology", "topology", "topology."), ("pattern", "traffic pattern", "traffic.pattern"),
                               ("routing", "routing", "routing.")):
        if any(k.startswith(swept) for k in keys):
            continue  # the swept key says it
        if col in df.columns and col not in keys and df.loc[ok, col].notna().any():
            vals = list(dict.fromkeys(str(v) for v in df.loc[ok, col].dropna()))
            items.append((label_, ", ".join(vals)))
    parts.append(_kv_table(items))
    if failed:
        parts.append(f'<p class="warn">{failed} {"runs" if seeded else "points"} failed: see '
                     '<a href="#failed-points">Failed points</a>; they are blank in the figures.</p>')

    if failed:
        parts = page.section("Failed points")
        fr = df[~ok]
        parts.append(f"<p>{failed} of {len(df)} {'runs' if seeded else 'points'} failed:</p>")
        body = []
        for _, row in fr.iterrows():
            seed = f" (seed {fmt_number(row['seed'])})" if seeded else ""
            err = row.get("error")
            err = "no message" if _is_missing(err) else str(err)
            body.append(f"<tr><td>{_esc(row.get('point', ''))}{_esc(seed)}</td>"
                        f'<td><pre class="error">{_esc(err)}</pre></td></tr>')
        parts.append('<div class="scroll"><table class="failed"><thead><tr><th>point</th><th>error</th></tr></thead>'
                     f"<tbody>{''.join(body)}</tbody></table></div>")

    parts = page.section("Figures")
    if not ok.any():
        parts.append('<p class="note">No figure: no run of the sweep succeeded.</p>')
    elif lkey is not None:
        _load_sweep_figures(page, parts, d, df, meta, keys, lkey)
    else:
        _sweep_figures(page, parts, df, keys)
    if not parts:
        parts.append('<p class="note">No figure fits this sweep.</p>')

    parts = page.section("Sweep table")
    left = [*keys, "seed"] if seeded else list(keys)
    shown = [(c, h) for c, h in SWEEP_COLUMNS if c in df.columns and c not in left and df[c].notna().any()
             and not (c == "offered_load" and lkey is not None)]  # the load key is the offered load
    header = [*left, "status", *(h for _, h in shown)]
    rows_ = []
    for _, row in df.head(MAX_SWEEP_ROWS).iterrows():
        good = row.get("status", "ok") == "ok"
        rows_.append([*(row[k] for k in left), row.get("status", "ok"),
                      *((row[c] if good else None) for c, _ in shown)])
    numeric = [_is_number(df[k].dropna().iloc[0]) if df[k].notna().any() else False for k in left] + \
              [False] + [c != "saturated" for c, _ in shown]
    parts.append(_table(header, rows_, numeric=numeric, cls="sweep"))
    if len(df) > MAX_SWEEP_ROWS:
        parts.append(f'<p class="note">{len(df) - MAX_SWEEP_ROWS} more rows in sweep.csv.</p>')
    parts.append('<p class="note">Every column of every run is in sweep.csv; each run\'s own files are in '
                 "points/&lt;point&gt;/" + ("seed-&lt;seed&gt;/" if seeded else "") + ".</p>")


def _sweep_figures(page: _Page, parts: List[str], df, keys: List[str]) -> None:
    two = len(keys) >= 2
    shape = (f"heatmap: one row per {keys[0]}, one column per {' / '.join(keys[1:])}, each cell the value "
             "(mean over seeds); grey cells failed") if two else f"against {keys[0]} (mean over seeds)"
    size = (8, 5.5) if two else (7, 4.5)
    for metric, what in SWEEP_METRICS:
        nonzero = metric in ("cc.max_ccti", "nonminimal_fraction")
        if not _has_data(df, metric, nonzero=nonzero):
            continue
        unit = " in µs" if metric.startswith("latency_ns.") else ""
        page.figure(parts, f"{what} ({metric}{unit}) of every point, {shape}.",
                    lambda fig, m=metric: _sweep_metric(df, m, fig), figsize=size, title=what)


def _sweep_metric(df, metric: str, fig):
    """:func:`lnsim.plot.plot_sweep` of one metric; latencies in ns are drawn in µs (readable
    heatmap cells)."""
    from . import plot
    from .plot._metric_sweep import _METRIC_LABEL

    if not metric.startswith("latency_ns."):
        return plot.plot_sweep(df, metric=metric, ax=fig.subplots())
    us = metric.replace("latency_ns.", "latency_us.", 1)
    scaled = df.copy()
    scaled.attrs = dict(df.attrs)
    scaled[us] = _numeric_col(df, metric) / 1e3
    ax = plot.plot_sweep(scaled, metric=us, ax=fig.subplots())
    label = _METRIC_LABEL.get(metric, metric).replace("(ns)", "(µs)")
    if len(fig.axes) > 1:  # the heatmap's colour bar
        fig.axes[-1].set_ylabel(label)
    else:
        ax.set_ylabel(label)
    ax.set_title(ax.get_title().replace(us, label), fontsize=10)
    return ax


def _numeric_col(df, col: str):
    from ._read import sweep_numbers

    return sweep_numbers(df, col)


def _load_sweep_figures(page: _Page, parts: List[str], d: Path, df, meta: dict, keys: List[str], lkey: str) -> None:
    from . import plot
    from .plot._load_sweep import _line_labels
    from .plot._style import _label

    others = [k for k in keys if k != lkey]
    per = f"one line per {' / '.join(others)}" if others else "one line"
    spread = ", mean over seeds with the min–max spread shaded" if "seed" in df.columns and \
        df["point"].nunique() < len(df) else ""
    page.figure(parts, f"Mean packet latency against the offered load, {per}{spread}; load points where a run "
                "saturated are left out (no steady state).",
                lambda fig: plot.plot_load_latency(df, ax=fig.subplots()), figsize=(8, 5.2), title="load–latency")
    page.figure(parts, f"Accepted against offered load (throughput), {per}{spread}; crosses mark saturated points, "
                "the dotted diagonal is accepted = offered.",
                lambda fig: plot.plot_load_throughput(df, ax=fig.subplots()), figsize=(8, 5.2),
                title="accepted vs offered load")
    if _has_data(df, "fairness.jain_routers"):
        page.figure(parts, f"Fairness: Jain index of the routers' injected loads (fairness.jain_routers) against "
                    f"the offered load, {per} (1 = every router injects the same load).",
                    lambda fig: _jain_vs_load(df, fig), figsize=(8, 5.2), title="Jain index vs load")
    if _has_data(df, "nonminimal_fraction", nonzero=True):
        page.figure(parts, f"Fraction of packets routed non-minimally against the offered load, {per}.",
                    lambda fig: plot.plot_load_sweep(df, "nonminimal_fraction", ax=fig.subplots()), figsize=(8, 5.2),
                    title="non-minimal fraction vs load")

    # accepted load per router at the highest load of each line (first successful seed)
    ok = _ok_mask(df)
    labels = _line_labels(df, others)
    loads = df[lkey]
    picks: List[Tuple[str, Path]] = []
    for line in dict.fromkeys(labels):
        mask = ok & (_series(labels, df.index) == line)
        if not mask.any():
            continue
        top = loads[mask].max()
        for idx in df.index[mask & (loads == top)]:
            run = _run_dir(d, meta, df.loc[idx])
            if run is not None and (run / "routers.csv").is_file():
                picks.append((f"{line} at load {_label(top)}" if line else f"load {_label(top)}", run))
                break
    if not picks:
        return
    shown = picks[:MAX_ROUTER_PANELS]
    more = f" (first {len(shown)} of {len(picks)} lines)" if len(picks) > len(shown) else ""

    def draw(fig):
        axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
        for ax, (label, run) in zip(axes, shown):
            plot.plot_router_load(load_results(run), ax=ax)
            ax.set_title(f"{label}: {ax.get_title()}", fontsize=9)

    page.figure(parts, f"Accepted load per router at the highest offered load of each line{more}: bars per router "
                "(groups in alternating shades), injected load as dots, offered load dashed; from the point's "
                "own routers.csv.", draw, figsize=(11, 3.4 * len(shown) + 0.4), title="per-router load at the highest load")


def _series(values, index):
    """``values`` as a pandas Series on ``index`` (helper of the sweep figures)."""
    import pandas as pd

    return pd.Series(list(values), index=index)


def _jain_vs_load(df, fig):
    from . import plot
    from .plot._load_sweep import _sweep_title

    ax = plot.plot_load_sweep(df, "fairness.jain_routers", ax=fig.subplots())
    ax.set_ylim(0, 1.02)
    ax.set_title(_sweep_title(df, "Jain index of the routers' injected loads vs offered load"), fontsize=10)
    return ax
