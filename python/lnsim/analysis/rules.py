"""Forwarding rules per switch of an Ethernet fabric under the addressing models of the Dragonfly
thesis's Ch. 4 (spec §3.12.7, §3.11, §6.2 E1–E3), counted from the networks of
:mod:`lnsim.analysis.networks`.

Addressing models, rules of an access switch with ``(G, S, I) = network.hierarchy()``:

* **flat** (per-host): one exact rule per host of the network, its own included: ``H = G·S·I``;
* **per-switch** (switch prefix + host): one rule per other access switch and one per own host:
  ``(G·S − 1) + I``;
* **per-group** (group + switch + host, Eq. 4-1): ``R = (G − 1) + (S − 1) + I``;
* **compacted**: destinations that leave by the same port merged by wildcarding address
  sub-fields (:func:`compacted_rules`). The lower bound is one rule per port; a Flattened
  Butterfly (coordinates in sub-fields) and a folded-Clos (uplinks by a hash of the source
  fields) reach it; a Dragonfly needs ``S − 1`` more and, when the blocks of groups a router
  reaches are not aligned in the group field, more still (:func:`dragonfly_remote_rules`).

MAR-bP's alternative rules (spec §3.11) come on top (:func:`marbp_extra_rules`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from .networks import Dragonfly, FlattenedButterfly

#: The addressing models, in the order tables and figures give them.
ADDRESSING = ("flat", "per_switch", "per_group", "compacted")

#: How figures and the summary name each addressing model.
ADDRESSING_LABELS = {
    "flat": "flat (per-host)",
    "per_switch": "per-switch",
    "per_group": "per-group",
    "compacted": "compacted",
}

#: The TCAM size the summary and figures compare with (commodity TCAMs hold 4K–64K entries).
TCAM_LINE = 4096

#: Dragonfly compaction: the groups whose routers are all evaluated, at most (evenly spread).
DF_SAMPLE_GROUPS = 16


def eq_4_1(g: int, s: int, i: int) -> int:
    """Eq. 4-1: rules of an access switch under three-level addressing, ``(G−1)+(S−1)+I``."""
    return (g - 1) + (s - 1) + i


def access_rules(net, model: str) -> int:
    """Rules of an access switch of ``net`` under ``model`` (flat, per_switch, per_group); the
    compacted count is :func:`compacted_rules`."""
    g, s, i = net.hierarchy()
    if model == "flat":
        return g * s * i
    if model == "per_switch":
        return (g * s - 1) + i
    if model == "per_group":
        return eq_4_1(g, s, i)
    raise ValueError(f"addressing model {model!r}: one of flat, per_switch, per_group")


# ---------------------------------------------------------------------------------------------
# Compaction


def prefix_rules(values: Sequence[Optional[int]]) -> int:
    """The fewest ternary prefix rules (each a value of the field's high bits, the rest
    wildcarded; the most specific match wins, as with priorities) that send every field value
    ``x`` to port ``values[x]``; ``None`` is a value no packet carries or that rules of higher
    priority take (a don't-care). ``len(values)`` is a power of two. Exact, by dynamic
    programming over the binary trie of the field (the optimal routing-table construction with
    don't-cares): a node costs, for each port its parent's rule may already give, the fewer of
    "no rule here" and "one rule here, with the best port"."""
    n = len(values)
    assert n and n & (n - 1) == 0, "the field's values must number a power of two"

    def solve(lo: int, size: int) -> Tuple[Dict[int, int], int]:
        # (cost by inherited port for the ports that matter here, cost for any other port)
        if size == 1:
            v = values[lo]
            return ({}, 0) if v is None else ({v: 0}, 1)
        half = size // 2
        left, lo_other = solve(lo, half)
        right, ro_other = solve(lo + half, half)
        keys = set(left) | set(right)
        none_here = {q: left.get(q, lo_other) + right.get(q, ro_other) for q in keys}
        other = lo_other + ro_other
        with_rule = 1 + min([other, *none_here.values()])
        costs = {q: min(c, with_rule) for q, c in none_here.items()}
        return costs, min(other, with_rule)

    return solve(0, n)[1]


def dragonfly_remote_rules(df: Dragonfly, group: int, router: int) -> int:
    """Rules router ``router`` of group ``group`` needs for the remote groups after compaction,
    with group ``x``'s address field holding ``x`` in ``⌈log2 G⌉`` bits (the natural numbering)
    and minimal routing: a group whose global link this router owns leaves by that global port
    (one port per group), any other group by the local port to the router that owns its link
    (:meth:`Dragonfly.owner`). The own group and the field values above ``G − 1`` are
    don't-cares (rules on the switch field of the own group take the own group first). Counted
    exactly by :func:`prefix_rules`. At least ``(a − 1) + owned`` (a rule per other router's
    block, one per owned group), reached when every block is a prefix (aligned)."""
    g = df.groups
    width = max(1, (g - 1).bit_length())
    values: List[Optional[int]] = [None] * (1 << width)
    for x in range(g):
        if x == group:
            continue
        offset = (x - group) % g
        owner = df.owner(offset)
        # global ports numbered after the a local ports, one per owned group
        values[x] = df.a + offset if owner == router else owner
    return prefix_rules(values)


def owned_groups(df: Dragonfly, router: int) -> int:
    """How many remote groups ``router`` reaches by a global link of its own."""
    return sum(1 for d in range(1, df.groups) if df.owner(d) == router)


@dataclass(frozen=True)
class Compaction:
    """Rules of an access switch after compaction: ``bound`` the lower bound (``#ports`` for FB
    and folded-Clos; for a Dragonfly ``p + 2(a − 1) + owned``, which is ``ports + S − 1`` at full
    size), ``max``/``mean`` over the evaluated switches (all of them are alike for FB and
    folded-Clos), ``switches`` how many were evaluated."""

    bound: int
    max: int
    mean: float
    switches: int


def dragonfly_sample_groups(df: Dragonfly, limit: int = DF_SAMPLE_GROUPS) -> List[int]:
    """The groups whose routers :func:`compaction` evaluates: all of them when there are at most
    ``limit``, else ``limit`` groups evenly spread (``⌊j·G/limit⌋``)."""
    if df.groups <= limit:
        return list(range(df.groups))
    return sorted({(j * df.groups) // limit for j in range(limit)})


def compaction(net) -> Compaction:
    """Rules of an access switch of ``net`` after compaction (:class:`Compaction`)."""
    if isinstance(net, Dragonfly):
        groups = dragonfly_sample_groups(net)
        counts = []
        bound = None
        for r in range(net.a):
            b = net.p + 2 * (net.a - 1) + owned_groups(net, r)
            bound = b if bound is None else min(bound, b)
            for grp in groups:
                counts.append(net.p + (net.a - 1) + dragonfly_remote_rules(net, grp, r))
        return Compaction(bound=bound, max=max(counts), mean=sum(counts) / len(counts), switches=len(counts))
    # FB: a rule per coordinate value of each dimension (k_d − 1) and per host; folded-Clos:
    # k/2 host rules and k/2 uplink rules on a hash of the source fields (u ternary patterns
    # split the source space into u parts for any u). Both are one rule per port.
    ports = net.ports_used
    return Compaction(bound=ports, max=ports, mean=float(ports), switches=1)


def compacted_rules(net) -> int:
    """The largest rule count of an evaluated access switch of ``net`` after compaction."""
    return compaction(net).max


# ---------------------------------------------------------------------------------------------
# MAR-bP


def marbp_extra_rules(net) -> int:
    """MAR-bP's alternative rules of an access switch (spec §3.11): a Dragonfly, one per
    injection port (``I = p``); a Flattened Butterfly, one per non-minimal remote group, each
    host's injection port mapped to its own: ``min(I, G − 1)`` (with ``I > G − 1`` one host has
    none); a folded-Clos, up to ``u − 1`` alternatives for each of the ``u = k/2`` uplink hash
    rules, ``u·(u − 1)`` (the uplink rules multiplied by ``u ≤ k``)."""
    g, _, i = net.hierarchy()
    if isinstance(net, Dragonfly):
        return net.p
    if isinstance(net, FlattenedButterfly):
        return min(i, g - 1)
    u = net.k // 2
    return u * (u - 1)


# ---------------------------------------------------------------------------------------------
# Every switch of a network (for the power model)


def switch_entries(net, model: str, comp: Optional[Compaction] = None) -> List[Tuple[object, float]]:
    """``(switch class, rules per switch)`` for every class of :meth:`switch_classes` under
    ``model``. A Dragonfly's or an FB's switches are all access switches. A folded-Clos's higher
    stages hold, flat: every host (``H``); per-switch: every access switch (``G·S``); per-group:
    stage 2, the remote pods and the pod's access switches (``(G − 1) + S``), stages 3 and up,
    every pod (``G``); compacted: one rule per port (``k``). Compacted access switches hold the
    mean of :func:`compaction` (``comp``, computed when not given)."""
    out = []
    g, s, i = net.hierarchy()
    for cls in net.switch_classes():
        if model == "compacted":
            comp = comp or compaction(net)
            n = comp.mean if cls.level == 1 else float(net.k)
        elif cls.level == 1:
            n = float(access_rules(net, model))
        elif model == "flat":
            n = float(net.hosts)
        elif model == "per_switch":
            n = float(g * s)
        elif model == "per_group":
            n = float((g - 1) + s if cls.level == 2 else g)
        else:
            raise ValueError(f"addressing model {model!r}: one of {', '.join(ADDRESSING)}")
        out.append((cls, n))
    return out
