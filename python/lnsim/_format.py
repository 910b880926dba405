"""What every place lnsim prints or draws shares: durations as text and the order of names.

:func:`format_ns` writes a duration given in nanoseconds (packet latencies of the InfiniBand
model, ``latency_ns.*``) in ns, µs or ms. Each caller keeps its own precision and microsecond
symbol: the summary printed after a run (:mod:`lnsim.cli`: ``".3f"``, ``".1f"`` below 1 µs,
``us``), the latency marks of the histogram (:mod:`lnsim.plot`: ``".3g"``) and the tables of
``lnsim report`` (:mod:`lnsim.report`: ``".4g"``). :func:`time_unit` picks the unit of a time
axis of :mod:`lnsim.plot` from the span it covers.

:func:`natural_key` sorts names of nodes, switches and routers (and field paths holding them)
in natural order, ``H2`` before ``H10``: the core's comparison (``stats/natural.rs``), the
order in which it writes ``summary.json``.

:func:`no_window_note` says that a run stopped before its warm-up ended and so measured
nothing (the printed summary, the figures' titles, the report's banner).
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any, Optional, Tuple

from . import _core

_NATURAL = cmp_to_key(_core.natural_cmp)


def natural_key(name: Any):
    """Sort key of ``name`` (taken as text) in lnsim's natural order: runs of digits compare as
    numbers (``H1_2`` before ``H1_10``, ``G3R9`` before ``G3R10``), the rest as text; e.g.
    ``sorted(nodes, key=natural_key)``."""
    return _NATURAL(str(name))


def format_ns(ns: float, spec: str = ".4g", ns_spec: Optional[str] = None, micro: str = "µs") -> str:
    """``ns`` nanoseconds in the largest of ms, µs and ns in which its magnitude is at least 1
    (``"12.35 µs"``): the number formatted with ``spec`` (with ``ns_spec`` when it stays in
    ns; default ``spec``), ``micro`` the microsecond symbol (``"us"`` for plain ASCII)."""
    magnitude = abs(ns)
    if magnitude >= 1e6:
        return f"{ns / 1e6:{spec}} ms"
    if magnitude >= 1e3:
        return f"{ns / 1e3:{spec}} {micro}"
    return f"{ns:{ns_spec or spec}} ns"


#: The units of a time axis, largest first: symbol and seconds per unit (:func:`time_unit`).
TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def time_unit(span_s: float) -> Tuple[str, float]:
    """The unit of a time axis that spans ``span_s`` seconds: the largest of s, ms, µs and ns in
    which the span is at least 1 (a 0.2-ms run in µs, a 0.7-s run in ms, a 6-s run in s), as
    ``(symbol, seconds per unit)``; seconds for a span that is not a positive number."""
    if not span_s or span_s != span_s or span_s <= 0:
        return TIME_UNITS[0]
    for symbol, per in TIME_UNITS:
        if span_s >= per * (1 - 1e-9):
            return symbol, per
    return TIME_UNITS[-1]


def no_window_note(summary: dict) -> Optional[str]:
    """``"no measurement window reached (stopped at 4.44 s, before the warm-up's end at 4.5 s)"``
    for a run that stopped (was interrupted) before its warm-up ended — its after-warm-up
    figures are null — and ``None`` for a run that has a measurement window. Cycle-level runs
    count cycles (``simulated_cycles`` against ``warmup_cycles``), credit-level runs seconds
    (``sim_time_s`` against ``warmup_s``)."""

    def num(key: str) -> Optional[float]:
        v = summary.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    if summary.get("model") == "cycle":
        done, warm = num("simulated_cycles"), num("warmup_cycles")
        if done is None or warm is None or done > warm:
            return None
        return (f"no measurement window reached (stopped at cycle {done:,.0f}, before the warm-up's end"
                f" at cycle {warm:,.0f})")
    done, warm = num("sim_time_s"), num("warmup_s")
    if done is None or warm is None or done > warm:
        return None
    return f"no measurement window reached (stopped at {done:.6g} s, before the warm-up's end at {warm:.6g} s)"
