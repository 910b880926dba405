"""scripts/drb_repro.py (the DRB study, drb-and-ddbbm spec A.8) in its --quick form
(2 ms runs, one seed, three loads; the hot spot 8 ms): it runs every scenario of scenarios/drb/
under DRB, IBA_CC-S1 and no CC, writes drb.csv and the figures, and the orderings of the paper
hold on these short runs: identical below saturation (R-A2), DRB accepting more on the torus and
the 4×8 mesh at 1,100 bits/µs (R-A5, R-A6), opening alternative paths (R-A4)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_drb_repro_quick(tmp_path):
    out = tmp_path / "drb"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "drb_repro.py"), "--quick", "--jobs", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "#### torus 8×8" in proc.stdout and "#### Hot spot" in proc.stdout
    rows = list(csv.DictReader(open(out / "drb.csv")))
    assert len(rows) == 3 * 3 * 3 + 3  # topologies × mechanisms × loads + the hot spot's three
    assert (out / "drb_sweep.png").stat().st_size > 10_000
    assert (out / "drb_hotspot.png").stat().st_size > 10_000

    def get(topo, mech, load, key):
        (r,) = [r for r in rows if r["part"] == "sweep" and r["topology"] == topo
                and r["mechanism"] == mech and int(r["load"]) == load]
        return float(r[key])

    for topo in ("torus 8×8", "mesh 8×4", "mesh 4×8"):
        # R-A2: no congestion at 300 bits/µs, nothing to react to: the same runs
        base = get(topo, "no CC", 300, "accepted")
        assert get(topo, "DRB", 300, "accepted") == base == get(topo, "IBA_CC", 300, "accepted")
        assert abs(base - 300) < 30
        assert get(topo, "DRB", 300, "open_paths") == 1.0
    for topo in ("torus 8×8", "mesh 4×8"):
        # beyond the single-path bound (625 bits/µs): DRB spreads and accepts more
        drb, iba = get(topo, "DRB", 1100, "accepted"), get(topo, "IBA_CC", 1100, "accepted")
        assert drb > 1.15 * iba, (topo, drb, iba)
        assert get(topo, "DRB", 1100, "open_paths") > 1.3
        assert int(get(topo, "DRB", 1100, "out_of_order")) > 0
        assert int(get(topo, "IBA_CC", 1100, "out_of_order")) == 0
    # the 8×4 mesh's busiest link carries 2 flows: 1,100 bits/µs fits on one path
    assert get("mesh 8×4", "no CC", 1100, "accepted") > 1000
