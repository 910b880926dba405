"""The figures of ``lnsim rules`` (matplotlib, through :mod:`lnsim.plot`'s figure files): rules
per access switch against hosts under per-group addressing (the thesis's Fig 4-4), after
compaction (Fig 4-6), and the power of the §1.4 networks per addressing model, stacked by
component (Fig 4-13)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..plot._style import _line_colors, _save_figure, plt
from .power import COMPONENTS, NetworkPower
from .rules import ADDRESSING, ADDRESSING_LABELS, TCAM_LINE

#: Stacking order of the power bars, bottom first: the TCAM on top, where a log scale shows how
#: it changes with the addressing model.
STACK = tuple(reversed(COMPONENTS))


def _topologies(rows: Sequence[dict]) -> list:
    return list(dict.fromkeys(r["topology"] for r in rows))


def _rule_lines(ax, rows: Sequence[dict], column: str, title: str) -> None:
    names = _topologies(rows)
    for color, name, marker in zip(_line_colors(len(names)), names, "osD^v<>"):
        mine = sorted((r for r in rows if r["topology"] == name), key=lambda r: r["hosts"])
        xs, ys = [r["hosts"] for r in mine], [r[column] for r in mine]
        ax.plot(xs, ys, marker=marker, color=color, label=name)
        for r in mine:
            ax.annotate(f"k={r['radix']}", (r["hosts"], r[column]), textcoords="offset points", xytext=(4, -10),
                        fontsize=7, color=color)
    ax.axhline(TCAM_LINE, color="0.3", ls="--", lw=1, label="4K TCAM entries")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("hosts")
    ax.set_ylabel("rules per access switch")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)


def plot_rules_vs_hosts(rows: Sequence[dict], path: Path) -> Path:
    """Fig 4-4: rules per access switch under per-group addressing (Eq. 4-1) against hosts, one
    line per topology through the largest network of each radix; the 4K-rules line."""
    fig, ax = plt.subplots(figsize=(8, 5))
    return _save_figure(fig, path, lambda: _rule_lines(
        ax, rows, "per_group", "Rules per access switch, per-group addressing (Eq. 4-1)"))


def plot_compacted(rows: Sequence[dict], path: Path) -> Path:
    """Fig 4-6: rules per access switch after compaction against hosts (the Dragonfly's largest
    evaluated switch; its aligned bound dotted)."""
    fig, ax = plt.subplots(figsize=(8, 5))

    def draw() -> None:
        _rule_lines(ax, rows, "compacted_max", "Rules per access switch after compaction")
        df = sorted((r for r in rows if r["topology"] == "Dragonfly"), key=lambda r: r["hosts"])
        if df:
            ax.plot([r["hosts"] for r in df], [r["compacted_bound"] for r in df], ls=":", color="0.4",
                    label="Dragonfly bound, aligned groups (ports + S - 1)")
            ax.legend(loc="upper left", fontsize=8)

    return _save_figure(fig, path, draw)


def plot_power(table: Sequence[NetworkPower], path: Path) -> Path:
    """Fig 4-13: power of each network under each addressing model, stacked by component (MW,
    log scale, so the small components stay visible under a flat TCAM)."""
    nets = list(dict.fromkeys(p.network for p in table))
    fig, ax = plt.subplots(figsize=(10, 5))

    def draw() -> None:
        colors = _line_colors(len(STACK))
        width = 0.8 / len(ADDRESSING)
        for j, model in enumerate(ADDRESSING):
            for i, net in enumerate(nets):
                p = next(q for q in table if q.network == net and q.addressing == model)
                x = i + (j - (len(ADDRESSING) - 1) / 2) * width
                bottom = 0.0
                for c, color in zip(STACK, colors):
                    v = p.watts[c] / 1e6
                    ax.bar(x, v, width * 0.95, bottom=bottom, color=color,
                           label=c if (i == 0 and j == 0) else None, edgecolor="white", lw=0.3)
                    bottom += v
                ax.text(x, bottom * 1.05, ADDRESSING_LABELS[model].split(" ")[0], rotation=90, ha="center",
                        va="bottom", fontsize=7)
        ax.set_xticks(range(len(nets)))
        ax.set_xticklabels(nets, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.3)
        ax.set_ylabel("network power (MW)")
        ax.set_title("Power per network and addressing model (flat, per-switch, per-group, compacted)")
        ax.legend(title="component", fontsize=8)
        ax.grid(True, axis="y", which="both", alpha=0.3)

    return _save_figure(fig, path, draw)
