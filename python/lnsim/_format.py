"""Durations as text, one formatter for every place lnsim prints or draws one.

:func:`format_ns` writes a duration given in nanoseconds (packet latencies of the InfiniBand
model, ``latency_ns.*``) in ns, µs or ms. Each caller keeps its own precision and microsecond
symbol: the summary printed after a run (:mod:`lnsim.cli`: ``".3f"``, ``".1f"`` below 1 µs,
``us``), the latency marks of the histogram (:mod:`lnsim.plot`: ``".3g"``) and the tables of
``lnsim report`` (:mod:`lnsim.report`: ``".4g"``). :func:`time_unit` picks the unit of a time
axis of :mod:`lnsim.plot` from the span it covers.
"""

from __future__ import annotations

from typing import Optional, Tuple


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
