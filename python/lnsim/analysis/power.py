"""Power of an Ethernet fabric's switches by addressing model (the Dragonfly thesis's §4.7.2,
Fig 4-13; spec §2.3 "Power model"), from the rule counts of :mod:`lnsim.analysis.rules`.

A switch with ``P`` active ports, ``I`` of them to hosts, and ``E`` forwarding rules draws

* **TCAM**: ``E × key_bits × tcam_fj_per_bit × lookups/s``, every rule's ``key_bits`` searched
  on every lookup, one lookup per packet received on each active port: ``P × load ×
  port_rate / (8 × packet_bytes)`` (78.125 M packets/s per 40-Gbps port at 64 bytes). The thesis
  used a TCAM tool ([7], 32 nm) that is not available; ``tcam_fj_per_bit`` is an assumption
  (default :data:`TCAM_FJ_PER_BIT`, its source in docs/scenarios.md "Ethernet fabrics"), never
  fitted to the thesis's totals;
* **buffers**: one write (4.4993 nJ) and one read (4.5048 nJ) per 64-byte packet at the same
  packet rate;
* **ports**: 0.6 W per optical switch-to-switch port, 20 % less (0.48 W) per electrical host port;
* **logic**: 30 W fixed.

Every switch has ``radix`` active ports: the §1.4 networks use their spare ports for extra links
(full bisection), so a Dragonfly router or an FB switch lights all 72.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .rules import ADDRESSING, Compaction, compaction, switch_entries

#: Assumed TCAM search energy per rule bit (fJ): a round figure of ours. Energy per bit per search
#: is TCAM designs' usual figure of merit (reviewed by Pagiamtzis and Sheikholeslami, IEEE JSSC
#: 41(3), 2006), but this value is not checked against a particular 32-nm design. An assumption
#: (``lnsim rules --tcam-fj-per-bit``), not fitted to the thesis's totals.
TCAM_FJ_PER_BIT = 1.0
#: Header bits matched by every rule: OpenFlow 1.5's matchable fields (spec §2.3).
KEY_BITS = 1000
#: Packet size of the power study (bytes).
PACKET_BYTES = 64
#: Port rate (bit/s).
PORT_BPS = 40e9
#: Buffer energy per 64-byte packet: read and write (J), spec §2.3 [48].
BUFFER_READ_J = 4.5048e-9
BUFFER_WRITE_J = 4.4993e-9
#: Optical switch-to-switch port (W): 4 lanes × 150 mW.
OPTICAL_PORT_W = 0.6
#: Electrical host ports draw this share of an optical port's power (20 % less).
HOST_PORT_SHARE = 0.8
#: CPU and logic per switch (W).
FIXED_W = 30.0

#: The power components, in the order tables and the stacked bars give them.
COMPONENTS = ("tcam", "buffers", "ports", "fixed")


@dataclass(frozen=True)
class PowerModel:
    """The constants of the switch power model (module documentation); ``load`` is the share of
    line rate every port receives (1: the worst case, as in the thesis)."""

    tcam_fj_per_bit: float = TCAM_FJ_PER_BIT
    key_bits: int = KEY_BITS
    packet_bytes: int = PACKET_BYTES
    port_bps: float = PORT_BPS
    buffer_read_j: float = BUFFER_READ_J
    buffer_write_j: float = BUFFER_WRITE_J
    optical_port_w: float = OPTICAL_PORT_W
    host_port_share: float = HOST_PORT_SHARE
    fixed_w: float = FIXED_W
    load: float = 1.0

    @property
    def packets_per_port(self) -> float:
        """Packets per second a port receives: ``load × port_bps / (8 × packet_bytes)``."""
        return self.load * self.port_bps / (8 * self.packet_bytes)

    def switch(self, ports: int, host_ports: int, entries: float) -> Dict[str, float]:
        """Watts of one switch by component (:data:`COMPONENTS`) and ``total``."""
        rate = ports * self.packets_per_port
        out = {
            "tcam": entries * self.key_bits * self.tcam_fj_per_bit * 1e-15 * rate,
            "buffers": (self.buffer_read_j + self.buffer_write_j) * rate,
            "ports": (ports - host_ports) * self.optical_port_w + host_ports * self.optical_port_w * self.host_port_share,
            "fixed": self.fixed_w,
        }
        out["total"] = sum(out[c] for c in COMPONENTS)
        return out


@dataclass
class NetworkPower:
    """Power of one network under one addressing model: watts by component (and ``total``) for
    the whole network, the access switches' mean rules and the highest power of one switch."""

    network: str
    addressing: str
    switches: int
    hosts: int
    access_rules: float
    watts: Dict[str, float] = field(default_factory=dict)
    max_switch_w: float = 0.0


def network_power(net, model: str, radix: int, pm: PowerModel, comp: Optional[Compaction] = None) -> NetworkPower:
    """Power of ``net`` (switches of ``radix`` active ports) under addressing ``model``."""
    if radix < net.ports_used:
        raise ValueError(f"{net.label}: uses {net.ports_used} ports per switch, more than the radix {radix}")
    watts = {c: 0.0 for c in (*COMPONENTS, "total")}
    access, max_w = 0.0, 0.0
    for cls, entries in switch_entries(net, model, comp):
        one = pm.switch(radix, cls.host_ports, entries)
        for c in watts:
            watts[c] += cls.count * one[c]
        max_w = max(max_w, one["total"])
        if cls.level == 1:
            access = entries
    return NetworkPower(net.label, model, net.switches, net.hosts, access, watts, max_w)


def power_table(nets, radix: int, pm: PowerModel) -> List[NetworkPower]:
    """:func:`network_power` of every network under every addressing model (:data:`ADDRESSING`)."""
    rows = []
    for net in nets:
        comp = compaction(net)
        for model in ADDRESSING:
            rows.append(network_power(net, model, radix, pm, comp))
    return rows
