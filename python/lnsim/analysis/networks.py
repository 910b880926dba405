"""The three Ethernet HPC fabrics of the Dragonfly thesis's Ch. 4 analysis, built from their
parameters: their switch and host counts, the ports of a switch, and the hierarchy an access
switch sees under per-group addressing (spec §1.1, §1.2, §1.4, Table 4-2).

Every network gives, for the rule counts of :mod:`lnsim.analysis.rules`:

* ``hierarchy()``: ``(G, S, I)``, the groups, the access switches per group and the hosts per
  access switch of Eq. 4-1 (``H = G·S·I``);
* ``ports_used``: the ports an access switch uses (hosts plus links), the compaction bound;
* ``switch_classes()``: the kinds of switch it has (:class:`SwitchClass`), with their count and
  host ports, for the power model.

What "group" means per topology (documented in docs/scenarios.md, "Ethernet fabrics"):

* Dragonfly: a Dragonfly group (S = a routers, I = p hosts).
* Flattened Butterfly / HyperX: the switches that share the coordinates of every dimension but
  a chosen set; the set is the one that makes ``(G − 1) + (S − 1)`` smallest (the thesis: "R is
  minimized with G ≈ S"); in a 2-D FB a group is one row and ``S = G`` (spec §1.2).
* Folded-Clos: a pod (``k/2`` access switches and ``k/2`` second-level switches, ``(k/2)²``
  hosts), so S = I = k/2.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

@dataclass(frozen=True)
class SwitchClass:
    """Switches of one kind in a network: ``count`` of them, each with ``host_ports`` ports to
    hosts; ``level`` is 1 for access switches, 2… for the higher stages of a folded-Clos."""

    level: int
    count: int
    host_ports: int


@dataclass(frozen=True)
class Dragonfly:
    """A canonical Dragonfly (spec §1.1): ``groups`` groups of ``a`` routers, each router with
    ``p`` hosts, ``a − 1`` local links and ``h`` global ports; at most ``a·h + 1`` groups (one
    global link per pair of groups). With fewer groups than that, the spare global ports carry
    extra parallel links (spec §1.4) and add no forwarding rule."""

    p: int
    a: int
    h: int
    groups: int

    def __post_init__(self) -> None:
        for name in ("p", "a", "h", "groups"):
            if getattr(self, name) < 1:
                raise ValueError(f"dragonfly {name} = {getattr(self, name)}: must be at least 1")
        if self.groups > self.a * self.h + 1:
            raise ValueError(
                f"dragonfly groups = {self.groups}: at most a·h + 1 = {self.a * self.h + 1} "
                f"(one global link between each pair of groups)"
            )

    kind = "dragonfly"

    @property
    def label(self) -> str:
        """Short name, e.g. ``DF p=18 a=36 h=18 G=463``."""
        return f"DF p={self.p} a={self.a} h={self.h} G={self.groups}"

    @property
    def switches(self) -> int:
        """Routers in the network."""
        return self.groups * self.a

    @property
    def hosts(self) -> int:
        """Hosts in the network."""
        return self.switches * self.p

    @property
    def ports_used(self) -> int:
        """Ports of a router: ``p + (a − 1) + h``."""
        return self.p + self.a - 1 + self.h

    def hierarchy(self) -> Tuple[int, int, int]:
        """``(G, S, I)`` of Eq. 4-1: groups, routers per group, hosts per router."""
        return self.groups, self.a, self.p

    def switch_classes(self) -> List[SwitchClass]:
        """Every router is an access switch."""
        return [SwitchClass(1, self.switches, self.p)]

    def owner(self, offset: int) -> int:
        """The router of a group that owns the global link to the group at relative ``offset``
        (1 … groups − 1). At full size (``groups = a·h + 1``) this is the palmtree arrangement
        (spec §1.1.2): router ``A`` owns offsets ``h(a−1−A)+1 … h(a−1−A)+h``. With fewer groups
        the offsets are dealt to the routers in the same order, as ``a`` contiguous blocks of
        sizes differing by at most one: router ``a − 1 − ⌊(offset − 1)·a / (groups − 1)⌋``."""
        return self.a - 1 - ((offset - 1) * self.a) // (self.groups - 1)


@dataclass(frozen=True)
class FlattenedButterfly:
    """A Flattened Butterfly / HyperX (spec §1.2): switches at the points of a grid of ``dims``
    (all-to-all links along every dimension), each with ``hosts_per_switch`` hosts."""

    dims: Tuple[int, ...]
    hosts_per_switch: int

    def __post_init__(self) -> None:
        if not self.dims or any(d < 2 for d in self.dims):
            raise ValueError(f"flattened butterfly dims {list(self.dims)}: at least one dimension, each of size 2 or more")
        if self.hosts_per_switch < 1:
            raise ValueError(f"flattened butterfly hosts per switch = {self.hosts_per_switch}: must be at least 1")

    kind = "fb"

    @property
    def label(self) -> str:
        """Short name, e.g. ``FB 15x15x15x6 c=15``."""
        return f"FB {'x'.join(map(str, self.dims))} c={self.hosts_per_switch}"

    @property
    def switches(self) -> int:
        """Switches in the network."""
        return math.prod(self.dims)

    @property
    def hosts(self) -> int:
        """Hosts in the network."""
        return self.switches * self.hosts_per_switch

    @property
    def ports_used(self) -> int:
        """Ports of a switch: its hosts plus ``k_d − 1`` links per dimension."""
        return self.hosts_per_switch + sum(d - 1 for d in self.dims)

    def group_dims(self) -> Tuple[int, ...]:
        """Indices of the dimensions that span a group: of every non-empty proper subset (the
        whole set for a 1-D FB), the first, in order of size then index, with the smallest
        ``(G − 1) + (S − 1)``."""
        n = len(self.dims)
        if n == 1:
            return (0,)
        best: Optional[Tuple[int, Tuple[int, ...]]] = None
        for size in range(1, n):
            for subset in itertools.combinations(range(n), size):
                s = math.prod(self.dims[i] for i in subset)
                g = self.switches // s
                if best is None or g + s < best[0]:
                    best = (g + s, subset)
        assert best is not None
        return best[1]

    def hierarchy(self) -> Tuple[int, int, int]:
        """``(G, S, I)`` of Eq. 4-1 with the groups of :meth:`group_dims`."""
        s = math.prod(self.dims[i] for i in self.group_dims())
        return self.switches // s, s, self.hosts_per_switch

    def switch_classes(self) -> List[SwitchClass]:
        """Every switch is an access switch."""
        return [SwitchClass(1, self.switches, self.hosts_per_switch)]


@dataclass(frozen=True)
class FoldedClos:
    """A full-bisection folded-Clos of ``levels`` stages of ``k``-port switches built from
    ``pods`` pods: a pod is ``k/2`` access switches (``k/2`` hosts and ``k/2`` uplinks each)
    fully connected to ``k/2`` second-stage switches, serving ``(k/2)²`` hosts. Every stage
    below the top has ``hosts / (k/2)`` switches (``k/2`` links down, ``k/2`` up); the top stage
    has ``hosts / k`` switches, all ``k`` ports down (rounded up: a top switch may be partly
    used). At most ``2·(k/2)^(levels−2)`` pods. The §1.4 network is ``k = 72``, 4 stages, 234
    pods (6.5 stage-3 groups of 36 pods)."""

    k: int
    levels: int
    pods: int

    def __post_init__(self) -> None:
        if self.k < 4 or self.k % 2:
            raise ValueError(f"folded-Clos k = {self.k}: an even number of ports, at least 4")
        if self.levels < 3:
            raise ValueError(f"folded-Clos levels = {self.levels}: at least 3 (access, pod, top)")
        if not 1 <= self.pods <= self.max_pods:
            raise ValueError(
                f"folded-Clos pods = {self.pods}: 1 … {self.max_pods} for k = {self.k} and {self.levels} levels"
            )

    kind = "clos"

    @property
    def max_pods(self) -> int:
        """The most pods ``levels`` stages of ``k``-port switches connect: ``2·(k/2)^(levels−2)``."""
        return 2 * (self.k // 2) ** (self.levels - 2)

    @property
    def label(self) -> str:
        """Short name, e.g. ``Clos k=72 4 levels 234 pods``."""
        return f"Clos k={self.k} {self.levels} levels {self.pods} pods"

    @property
    def hosts(self) -> int:
        """Hosts in the network."""
        return self.pods * (self.k // 2) ** 2

    @property
    def switches(self) -> int:
        """Switches in the network, every stage."""
        return sum(c.count for c in self.switch_classes())

    @property
    def ports_used(self) -> int:
        """Ports of an access switch: ``k`` (``k/2`` hosts, ``k/2`` uplinks)."""
        return self.k

    def hierarchy(self) -> Tuple[int, int, int]:
        """``(G, S, I)`` of Eq. 4-1: pods, access switches per pod, hosts per access switch."""
        half = self.k // 2
        return self.pods, half, half

    def switch_classes(self) -> List[SwitchClass]:
        """Stage 1 (access), stages 2 … levels − 1 (``hosts / (k/2)`` each), the top stage."""
        half = self.k // 2
        below = self.hosts // half
        classes = [SwitchClass(1, below, half)]
        classes += [SwitchClass(level, below, 0) for level in range(2, self.levels)]
        classes.append(SwitchClass(self.levels, -(-self.hosts // self.k), 0))
        return classes


# ---------------------------------------------------------------------------------------------
# The largest network of each topology built from k-port switches (Table 4-2, Fig 4-4)


def dragonfly_for_radix(k: int) -> Dragonfly:
    """The largest balanced canonical Dragonfly of ``k``-port routers: ``h = ⌊(k + 1)/4⌋``,
    ``p = h``, ``a = 2h`` (``4h − 1 ≤ k`` ports), ``a·h + 1`` groups."""
    h = (k + 1) // 4
    if h < 1:
        raise ValueError(f"radix {k}: too small for a Dragonfly (at least 3 ports)")
    return Dragonfly(p=h, a=2 * h, h=h, groups=2 * h * h + 1)


def fb_for_radix(k: int, n_dims: int) -> FlattenedButterfly:
    """The largest full-bandwidth ``n_dims``-D Flattened Butterfly of ``k``-port switches: ``c``
    hosts per switch and ``c`` switches per dimension, ``c + n_dims·(c − 1) ≤ k``."""
    c = (k + n_dims) // (n_dims + 1)
    if c < 2:
        raise ValueError(f"radix {k}: too small for a {n_dims}-D Flattened Butterfly")
    return FlattenedButterfly(dims=(c,) * n_dims, hosts_per_switch=c)


def clos_for_radix(k: int, levels: int = 3) -> FoldedClos:
    """The largest folded-Clos of ``levels`` stages of ``k``-port switches (``k³/4`` hosts for
    three stages)."""
    k = k - (k % 2)
    half = k // 2
    return FoldedClos(k=k, levels=levels, pods=2 * half ** (levels - 2))


# ---------------------------------------------------------------------------------------------
# The three ~300K-host networks of the power study (spec §1.4), 72-port switches

#: Ports of every switch of the power study.
POWER_STUDY_RADIX = 72


def power_study_networks() -> List[object]:
    """The §1.4 networks: a 4-stage folded-Clos (29,484 switches, 303,264 hosts), a 4-D FB
    15×15×15×6 with 15 hosts per switch (20,250 / 303,750) and a Dragonfly of 463 groups × 36
    routers, p = 18, h = 18 (16,668 / 300,024)."""
    return [
        FoldedClos(k=72, levels=4, pods=234),
        FlattenedButterfly(dims=(15, 15, 15, 6), hosts_per_switch=15),
        Dragonfly(p=18, a=36, h=18, groups=463),
    ]
