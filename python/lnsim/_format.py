"""Durations as text, one formatter for every place lnsim prints or draws one.

:func:`format_ns` writes a duration given in nanoseconds (packet latencies of the InfiniBand
model, ``latency_ns.*``) in ns, µs or ms. Each caller keeps its own precision and microsecond
symbol: the summary printed after a run (:mod:`lnsim.cli`: ``".3f"``, ``".1f"`` below 1 µs,
``us``), the latency marks of the histogram (:mod:`lnsim.plot`: ``".3g"``) and the tables of
``lnsim report`` (:mod:`lnsim.report`: ``".4g"``).
"""

from __future__ import annotations

from typing import Optional


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
