"""The traffic and metrics of the DRB reproduction (drb-and-ddbbm spec A.6, A.7) through the
Python layer: a Poisson run's ``links.csv`` as ``RunResult.links``, the summary fields it adds,
and the run printout's message and hot-spot lines."""

from __future__ import annotations

import lnsim
from lnsim.cli import format_summary

TORUS = """
[sim]
model = "credit"
end_time = "3ms"
warmup = "500us"
interval = "500us"
[topology]
kind = "torus"
dims = [4, 4]
hcas_per_switch = 1
[links.host]
rate = "2.5Gbps"
[links.fabric]
rate = "2.5Gbps"
[switch]
vls = 2
[traffic]
packet_bytes = "2048B"
payload_bytes = "2048B"
message_bytes = "4096B"
[[traffic.generators]]
sources = "all"
pattern = "shuffle"
injection = "poisson"
rate = "800bit/us"
[stats]
links = true
hotspot = "H221"
"""


def test_poisson_run_tables_summary_and_printout(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(TORUS)
    r = lnsim.run(path, out=tmp_path / "out")
    links = r.links
    assert list(links.columns) == lnsim.LINKS_COLUMNS
    # 16 switches × 5 outputs, 6 intervals
    assert len(links) == 16 * 5 * 6
    assert links["mbps"].max() > 0
    s = r.summary
    thr = s["throughput"]
    assert thr["sending_nodes"] == 14
    assert 500 < thr["offered_bits_per_us_per_node"] < 1100
    assert s["message_latency_ns"]["count"] > 0
    hot = s["hotspot"]
    assert hot["switch"] == "SW22" and len(hot["links"]) == 5
    text = format_summary(s, tmp_path / "out")
    assert "messages        latency mean" in text and "bits/us" in text
    assert "hot spot        H221: peak" in text


def test_links_absent_is_none(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(TORUS.replace("links = true\nhotspot = \"H221\"\n", ""))
    r = lnsim.run(path, out=tmp_path / "out")
    assert r.links is None
    assert "hotspot" not in r.summary
    assert "hot spot" not in format_summary(r.summary, tmp_path / "out")
