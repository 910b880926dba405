"""What every place lnsim prints or draws shares: durations as text and the order of names.

:func:`format_ns` writes a duration given in nanoseconds (packet latencies of the InfiniBand
model, ``latency_ns.*``) in ns, µs or ms. Each caller keeps its own precision and microsecond
symbol: the summary printed after a run (:mod:`lnsim.cli`: ``".3f"``, ``".1f"`` below 1 µs,
``us``), the latency marks of the histogram (:mod:`lnsim.plot`: ``".3g"``) and the tables of
``lnsim report`` (:mod:`lnsim.report`: ``".4g"``).

:func:`natural_key` sorts names of nodes, switches and routers (and field paths holding them)
in natural order, ``H2`` before ``H10``: the core's comparison (``stats/natural.rs``), the
order in which it writes ``summary.json``.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any, Optional

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
