"""The HTML page being built (:class:`_Page`): sections of HTML fragments, figures rendered to
embedded PNGs (:func:`_render_png`), tables (:func:`_table`, :func:`_kv_table`, folded when
long), the style sheet and the small script that reports on ``load`` how many figures decoded.
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
import re
import warnings
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .._core import version
from .._format import natural_key
from .._results import flatten_summary
from ._cells import _esc, _get, _is_missing, _is_number, fmt_number

#: Resolution of the embedded PNG figures.
FIGURE_DPI = 100
#: A table of nodes or flows with more rows than this is shown folded (click to open).
FOLD_ROWS = 24
#: A key-figures table with more rows than this is laid out in two column pairs.
KV_SPLIT_ROWS = 12


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


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
        from .._read import ResultsError

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
    from .. import plot  # noqa: F401 - selects the Agg backend unless MPLBACKEND says otherwise
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
    rows = sorted(flat.items(), key=lambda kv: natural_key(kv[0]))
    return (f"<details><summary>All {len(rows)} scalar fields of summary.json</summary>"
            + _table(["field", "value"], rows, numeric=[False, True]) + "</details>")
