"""Analytical models of Ethernet HPC fabrics (no simulation): the forwarding-rule and power
analysis of the Dragonfly thesis's Ch. 4 (spec §6.2 E1–E6), behind ``lnsim rules``.

One concern per module: :mod:`.networks` (Dragonfly, Flattened Butterfly / HyperX and folded-Clos
of any size: switches, hosts, ports, the hierarchy of Eq. 4-1), :mod:`.rules` (rules per switch
under flat, per-switch, per-group and compacted addressing; MAR-bP's extra rules), :mod:`.power`
(TCAM, buffer, port and fixed power per switch and network), :mod:`.figures` (Fig 4-4, 4-6,
4-13) and :mod:`.command` (the command: CSVs, figures, summary).
"""

from .networks import (
    Dragonfly,
    FlattenedButterfly,
    FoldedClos,
    clos_for_radix,
    dragonfly_for_radix,
    fb_for_radix,
    power_study_networks,
)
from .power import PowerModel, network_power, power_table
from .rules import access_rules, compaction, eq_4_1, marbp_extra_rules, prefix_rules

__all__ = [
    "Dragonfly", "FlattenedButterfly", "FoldedClos", "PowerModel", "access_rules", "clos_for_radix",
    "compaction", "dragonfly_for_radix", "eq_4_1", "fb_for_radix", "marbp_extra_rules", "network_power",
    "power_study_networks", "power_table", "prefix_rules",
]
