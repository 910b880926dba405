"""The texts shipped with the scenarios say what each scenario is: no description claims a
congestion-control state (the figures and the report take it from the run), no text points at
work that has long been done, and the throughput of the [Z] studies has one unit (GB/s, as the
sweep tables, the report and docs/scenarios.md give it)."""

from __future__ import annotations

import re

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

from conftest import REPO, SCENARIOS

SCENARIO_FILES = sorted(SCENARIOS.rglob("*.toml"))
SCENARIO_TEXTS = sorted(SCENARIOS.rglob("*.md")) + SCENARIO_FILES

#: A description that states a congestion-control state, which `--set cc.enabled=...` overrides.
CC_STATE = re.compile(r"\bCC[- ]?(off|on)\b", re.IGNORECASE)
#: Phrases of texts written before a feature existed.
STALE = re.compile(r"\bissue \d+|\bneeds (the )?IB CC keys|accepts only `?enabled = false", re.IGNORECASE)


def test_no_scenario_description_states_a_cc_state():
    said = []
    for f in SCENARIO_FILES:
        desc = tomllib.loads(f.read_text(encoding="utf-8")).get("scenario", {}).get("description", "")
        if CC_STATE.search(desc):
            said.append(f"{f.relative_to(REPO)}: {CC_STATE.search(desc).group(0)!r}")
    assert not said, "\n".join(said)


def test_no_scenario_text_points_at_past_work():
    stale = [f"{f.relative_to(REPO)}:{i}: {line.strip()}" for f in SCENARIO_TEXTS
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if STALE.search(line)]
    assert not stale, "\n".join(stale)


def test_zeru_aggregate_throughput_has_one_unit():
    """[Z]'s C1-C4 totals are GB/s (docs/scenarios.md, "[Z]'s aggregate unit"), wherever a
    scenario text quotes them."""
    docs = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    assert "| `zeru_c4` | [Z] C4, Z-Tab 4.2 | 15.9 | 15.54 GB/s |" in docs
    quoted = re.compile(r"\b(15\.9|19\.8|13|15\.7|18|20|25)\s*Gbps\b")
    for f in [SCENARIOS / "README.md", *sorted((SCENARIOS / "ibcc").glob("zeru_c*.toml"))]:
        hits = [f"{f.name}:{i}: {m.group(0)}" for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
                for m in quoted.finditer(line)]
        assert not hits, "\n".join(hits)
    assert "15.9 GB/s" in (SCENARIOS / "README.md").read_text(encoding="utf-8")
