"""Values as the text of a table cell: :func:`fmt_number` (thousands separators, about four
significant digits, ``yes``/``no``, ``–`` when missing), durations in ns and s, sizes in MiB,
numbers with a unit; HTML escaping and dotted look-ups in a summary.
"""

from __future__ import annotations

import html
import math
from typing import Any, Callable

from .._format import format_ns

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


def _get(summary: dict, path: str) -> Any:
    v: Any = summary
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v
