"""``lnsim rules``: the forwarding-rule and power analysis of Ethernet HPC fabrics (the Dragonfly
thesis's Ch. 4, spec §6.2 E1–E6), written into an output folder.

Files (``--out``, default ``results/ethernet_rules/``, a folder lnsim updates in place: absent,
empty or one it wrote, keeping anything else, every file written atomically; see
:mod:`lnsim._outdir`):

* ``rules_by_radix.csv``: per topology (Dragonfly, 2-D and 3-D FB, 3-level folded-Clos) and
  switch radix (``--radix``), the largest network of that radix, its hosts and switches, ``G, S,
  I`` and the rules of an access switch under every addressing model, the compaction bound and
  MAR-bP's extra rules;
* ``networks.csv``: the same for the three ~300K-host networks of the power study (§1.4);
* ``power.csv``: their power per addressing model, by component (W and MW);
* ``rules_vs_hosts.png`` (Fig 4-4), ``compacted_rules.png`` (Fig 4-6), ``power.png`` (Fig 4-13).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
from pathlib import Path
from typing import List, Sequence

from .._exit import EXIT_OK, InputError
from .networks import (
    POWER_STUDY_RADIX,
    Dragonfly,
    FlattenedButterfly,
    FoldedClos,
    clos_for_radix,
    dragonfly_for_radix,
    fb_for_radix,
    power_study_networks,
)
from .power import COMPONENTS, TCAM_FJ_PER_BIT, NetworkPower, PowerModel, power_table
from .rules import ADDRESSING, ADDRESSING_LABELS, TCAM_LINE, access_rules, compaction, marbp_extra_rules

#: ``--radix`` default: the switch radixes of Fig 4-4.
RADIXES = (8, 16, 24, 48, 96)
#: Default output folder.
DEFAULT_OUT = Path("results") / "ethernet_rules"
#: The topologies of Fig 4-4 and 4-6: (label, builder of the largest network of a radix).
FIG_TOPOLOGIES = (
    ("Dragonfly", dragonfly_for_radix),
    ("FB 2-D", lambda k: fb_for_radix(k, 2)),
    ("FB 3-D", lambda k: fb_for_radix(k, 3)),
    ("folded-Clos 3-level", clos_for_radix),
)
RULE_COLUMNS = [
    "topology", "radix", "network", "hosts", "switches", "ports_used", "G", "S", "I",
    "flat", "per_switch", "per_group", "compacted_max", "compacted_mean", "compacted_bound",
    "compacted_switches", "marbp_extra",
]


def add_parser(sub) -> None:
    """Adds ``lnsim rules`` to the command's subparsers."""
    p = sub.add_parser(
        "rules",
        help="count forwarding rules and switch power of Ethernet fabrics (Dragonfly, FB, folded-Clos)",
        description="Forwarding rules per access switch under flat, per-switch, per-group and compacted "
        "addressing for Dragonfly, Flattened Butterfly and folded-Clos networks of every --radix, and the "
        "power of the three ~300K-host networks of the Dragonfly thesis's power study (TCAM, buffers, ports, "
        "fixed logic); writes CSVs and figures into --out and prints a summary. No simulation.",
    )
    p.add_argument("--out", metavar="DIR", default=None, help=f"output folder (default {DEFAULT_OUT}/)")
    p.add_argument("--radix", metavar="K,K,...", default=",".join(map(str, RADIXES)),
                   help="switch radixes of the rules-vs-hosts figures (default %(default)s)")
    p.add_argument("--dragonfly", metavar="P,A,H,GROUPS", default="18,36,18,463",
                   help="the power study's Dragonfly: hosts and routers per group, global ports, groups "
                   "(default %(default)s)")
    p.add_argument("--fb", metavar="D1xD2x...:C", default="15x15x15x6:15",
                   help="the power study's Flattened Butterfly: its dimensions and hosts per switch "
                   "(default %(default)s)")
    p.add_argument("--clos", metavar="K,LEVELS,PODS", default="72,4,234",
                   help="the power study's folded-Clos: ports per switch, stages, pods of (K/2)^2 hosts "
                   "(default %(default)s)")
    p.add_argument("--switch-ports", type=int, default=POWER_STUDY_RADIX, metavar="K",
                   help="active ports of every switch of the power study (default %(default)s)")
    p.add_argument("--tcam-fj-per-bit", type=float, default=TCAM_FJ_PER_BIT, metavar="FJ",
                   help="TCAM search energy per rule bit in femtojoules (an assumption; default %(default)s)")
    p.add_argument("--key-bits", type=int, default=1000, metavar="BITS",
                   help="header bits every rule matches (default %(default)s: OpenFlow 1.5)")
    p.add_argument("--no-plot", action="store_true", help="write the CSVs only")
    p.set_defaults(func=cmd_rules)


def _ints(text: str, option: str, sep: str = ",") -> List[int]:
    try:
        values = [int(v) for v in text.split(sep)]
    except ValueError:
        raise InputError(f"{option} {text}: expected whole numbers separated by '{sep}'") from None
    return values


def parse_networks(args) -> list:
    """The power study's networks from ``--clos``, ``--fb`` and ``--dragonfly``; a bad value is an
    :class:`InputError` naming the option."""
    nets = []
    try:
        k, levels, pods = _expect(_ints(args.clos, "--clos"), 3, "--clos", args.clos, "K,LEVELS,PODS, e.g. 72,4,234")
        nets.append(FoldedClos(k=k, levels=levels, pods=pods))
    except ValueError as e:
        raise InputError(f"--clos {args.clos}: {e}") from None
    m = re.fullmatch(r"\s*([0-9x ]+):\s*([0-9]+)\s*", args.fb)
    if not m:
        raise InputError(f"--fb {args.fb}: expected D1xD2x...:C, e.g. 15x15x15x6:15")
    try:
        nets.append(FlattenedButterfly(dims=tuple(_ints(m.group(1), "--fb", "x")), hosts_per_switch=int(m.group(2))))
    except ValueError as e:
        raise InputError(f"--fb {args.fb}: {e}") from None
    try:
        p, a, h, g = _expect(_ints(args.dragonfly, "--dragonfly"), 4, "--dragonfly", args.dragonfly,
                             "P,A,H,GROUPS, e.g. 18,36,18,463")
        nets.append(Dragonfly(p=p, a=a, h=h, groups=g))
    except ValueError as e:
        raise InputError(f"--dragonfly {args.dragonfly}: {e}") from None
    return nets


def _expect(values: List[int], n: int, option: str, text: str, form: str) -> List[int]:
    if len(values) != n:
        raise InputError(f"{option} {text}: expected {form}")
    return values


def rule_row(topology: str, radix, net) -> dict:
    """One row of ``rules_by_radix.csv`` / ``networks.csv``."""
    g, s, i = net.hierarchy()
    comp = compaction(net)
    return {
        "topology": topology, "radix": radix, "network": net.label, "hosts": net.hosts,
        "switches": net.switches, "ports_used": net.ports_used, "G": g, "S": s, "I": i,
        "flat": access_rules(net, "flat"), "per_switch": access_rules(net, "per_switch"),
        "per_group": access_rules(net, "per_group"), "compacted_max": comp.max,
        "compacted_mean": round(comp.mean, 3), "compacted_bound": comp.bound,
        "compacted_switches": comp.switches, "marbp_extra": marbp_extra_rules(net),
    }


def _csv(rows: Sequence[dict], columns: Sequence[str]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def power_rows(table: Sequence[NetworkPower]) -> List[dict]:
    """Rows of ``power.csv``: per network and addressing model, watts by component (network
    total), the total in MW, the access switches' rules and the highest switch power."""
    rows = []
    for p in table:
        row = {"network": p.network, "addressing": p.addressing, "switches": p.switches, "hosts": p.hosts,
               "access_rules": round(p.access_rules, 3)}
        row.update({f"{c}_w": round(p.watts[c], 3) for c in (*COMPONENTS, "total")})
        row["total_mw"] = round(p.watts["total"] / 1e6, 6)
        row["max_switch_w"] = round(p.max_switch_w, 3)
        rows.append(row)
    return rows


POWER_COLUMNS = ["network", "addressing", "switches", "hosts", "access_rules",
                 *(f"{c}_w" for c in (*COMPONENTS, "total")), "total_mw", "max_switch_w"]


def cmd_rules(args: argparse.Namespace) -> int:
    """``lnsim rules``: computes, writes the folder, prints the summary."""
    radixes = _ints(args.radix, "--radix")
    bad = [k for k in radixes if k < 4]
    if bad:
        raise InputError(f"--radix {args.radix}: every radix must be 4 or more (got {bad[0]})")
    if not args.tcam_fj_per_bit >= 0 or args.tcam_fj_per_bit == float("inf"):
        raise InputError(f"--tcam-fj-per-bit {args.tcam_fj_per_bit}: a finite number of femtojoules, 0 or more")
    if args.key_bits < 1:
        raise InputError(f"--key-bits {args.key_bits}: at least 1")
    nets = parse_networks(args)
    for net in nets:
        if net.ports_used > args.switch_ports:
            raise InputError(f"--switch-ports {args.switch_ports}: {net.label} uses {net.ports_used} ports per "
                             f"switch; give at least {net.ports_used}")
    out = Path(args.out) if args.out else DEFAULT_OUT
    from .._outdir import KIND_FIGURES, prepare_folder, write_own_file

    by_radix = [rule_row(name, k, build(k)) for k in radixes for name, build in FIG_TOPOLOGIES]
    study = [rule_row(net.kind, args.switch_ports, net) for net in nets]
    pm = PowerModel(tcam_fj_per_bit=args.tcam_fj_per_bit, key_bits=args.key_bits)
    table = power_table(nets, args.switch_ports, pm)

    prepare_folder(out, KIND_FIGURES, "rules folder", kinds=[KIND_FIGURES])
    written = [
        write_own_file(out / "rules_by_radix.csv", _csv(by_radix, RULE_COLUMNS), "table"),
        write_own_file(out / "networks.csv", _csv(study, RULE_COLUMNS), "table"),
        write_own_file(out / "power.csv", _csv(power_rows(table), POWER_COLUMNS), "table"),
    ]
    if not args.no_plot:
        from .figures import plot_compacted, plot_power, plot_rules_vs_hosts

        written += [
            plot_rules_vs_hosts(by_radix, out / "rules_vs_hosts.png"),
            plot_compacted(by_radix, out / "compacted_rules.png"),
            plot_power(table, out / "power.png"),
        ]
    print(summary_text(by_radix, study, table, pm))
    print(f"results         {out}  ({', '.join(p.name for p in written)})")
    return EXIT_OK


def summary_text(by_radix: Sequence[dict], study: Sequence[dict], table: Sequence[NetworkPower], pm: PowerModel) -> str:
    """The summary printed by ``lnsim rules``: rules of the power study's networks, the largest
    network per topology that fits in :data:`TCAM_LINE` per-group rules, and power per model."""
    lines = ["Rules per access switch (flat / per-switch / per-group / compacted max, bound; +MAR-bP)"]
    for r in study:
        lines.append(f"  {r['network']:<28} {r['hosts']:>9,} hosts {r['switches']:>7,} switches  "
                     f"{r['flat']:,} / {r['per_switch']:,} / {r['per_group']:,} / {r['compacted_max']:,}, "
                     f"{r['compacted_bound']:,}; +{r['marbp_extra']:,}")
    lines.append(f"Largest network with per-group rules <= {TCAM_LINE} (radix: hosts, rules)")
    for name, _ in FIG_TOPOLOGIES:
        fits = [r for r in by_radix if r["topology"] == name and r["per_group"] <= TCAM_LINE]
        best = max(fits, key=lambda r: r["hosts"], default=None)
        lines.append(f"  {name:<20} " + (f"k={best['radix']}: {best['hosts']:,} hosts, {best['per_group']:,} rules"
                                           if best else "none of the radixes"))
    lines.append(f"Power (MW; TCAM {pm.tcam_fj_per_bit:g} fJ/bit x {pm.key_bits} bits, "
                 f"{pm.packets_per_port / 1e6:.3f} M lookups/s per port)")
    lines.append(f"  {'network':<28} " + "  ".join(f"{ADDRESSING_LABELS[m]:>15}" for m in ADDRESSING))
    for net in dict.fromkeys(p.network for p in table):
        mine = {p.addressing: p for p in table if p.network == net}
        lines.append(f"  {net:<28} " + "  ".join(f"{mine[m].watts['total'] / 1e6:>15.3f}" for m in ADDRESSING))
    flat = [p for p in table if p.addressing == "flat"]
    lines.append("  flat: highest switch " + ", ".join(f"{p.max_switch_w:,.0f} W" for p in flat)
                 + "; TCAM alone " + ", ".join(f"{p.watts['tcam'] / 1e6:.1f} MW" for p in flat))
    return "\n".join(lines)
