"""What the figures say and show: the congestion management of the run in every title (from the
run's results, never from the scenario's description), time axes in a unit chosen from the span,
the bandwidth of many nodes as the notable ones plus a median and min–max band, the warm-up line
in the legend, and the seeds of a sweep point drawn, with a point saturated in some seeds only
treated alike in the load–latency and throughput figures. Tests read the matplotlib artists
(titles, labels, legend texts, lines, bands), not pixels."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import html  # noqa: E402
import re  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import lnsim  # noqa: E402
from lnsim import plot  # noqa: E402
from lnsim.report import report_html  # noqa: E402
from conftest import CC_SHORT, ZERU_A, lnsim_cmd  # noqa: E402


@pytest.fixture
def figure():
    """A new matplotlib figure, closed after the test."""
    fig = plt.figure()
    yield fig
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# congestion control in titles and headings, from the run


def test_cc_on_run_of_a_description_saying_cc_off_is_titled_cc_on(tmp_path, figure):
    text = ZERU_A.read_text(encoding="utf-8").replace('name = "zeru_a"', 'name = "says_off"')
    text = text.replace('description = """\n', 'description = """\nCC off. ', 1)
    scen = tmp_path / "says_off.toml"
    scen.write_text(text, encoding="utf-8")
    out = tmp_path / "run"
    proc = lnsim_cmd("run", scen, *CC_SHORT, "--out", out, "--no-plot")
    assert proc.returncode == 0, proc.stderr
    r = lnsim.load_results(out)
    assert "CC off. " in (out / "scenario.toml").read_text(encoding="utf-8")  # the description, as run

    top, bottom = plot.plot_bandwidth_ccti(r, fig=figure)
    fig2, (a, b) = plt.subplots(1, 2)
    titles = [top.get_title(), bottom.get_title(), plot.plot_throughput(r, ax=a).get_title(),
              plot.plot_latency_histogram(r, ax=b).get_title()]
    plt.close(fig2)
    for title in titles:
        assert title.startswith("says_off, CC on (InfiniBand CC): "), title
        assert "CC off" not in title
    page = html.unescape(report_html(out))
    assert "<h1>lnsim report: says_off, CC on (InfiniBand CC)</h1>" in page
    assert re.search(r"<th[^>]*>congestion control</th>\s*<td[^>]*>CC on \(InfiniBand CC\)</td>", page)


def test_cc_label_names_each_mechanism_from_the_results():
    base = {"scenario": "s", "cc": {"enabled": False}}
    assert plot.cc_label(base) == "CC off"
    assert plot.cc_label({**base, "cc": {"enabled": True, "fecn_marks": 3}}) == "CC on (InfiniBand CC)"
    assert plot.cc_label({**base, "drb": {"notifications": 4}, "monitor": {"fecn_marks": 4}}) == "CC on (DRB)"
    assert plot.cc_label({**base, "throttle": {"max_ird_us": 1.0}}) == "CC on (IBA_CC-S1)"
    assert plot.cc_label({**base, "ddbbm": {"frames": 10}}) == "CC off, DDBBM"
    assert plot.cc_label({"model": "cycle", "accepted_load": 0.1}) is None
    # a sweep.csv row: the same fields flattened, absent ones blank (NaN)
    assert plot.cc_label({"cc.enabled": "True", "drb.notifications": float("nan")}) == "CC on (InfiniBand CC)"
    assert plot.cc_label({"cc.enabled": False, "drb.notifications": float("nan")}) == "CC off"
    assert plot.cc_label({"cc.enabled": False, "drb.notifications": 12.0}) == "CC on (DRB)"


def test_sweep_figure_title_says_the_cc_of_its_runs(figure):
    import pandas as pd

    rows = [{"cc.marking_rate": m, "point": f"cc.marking_rate={m}", "status": "ok", "scenario": "zeru_c4",
             "model": "infiniband", "cc.enabled": True, "throughput.total_rx_gbytes_per_s": 19.0 + m / 10}
            for m in (1, 10)]
    df = pd.DataFrame(rows)
    ax = plot.plot_sweep(df, ax=figure.subplots())
    assert ax.get_title().startswith("zeru_c4, CC on (InfiniBand CC): ")
    both = pd.DataFrame([{**rows[0], "cc.enabled": False}, rows[1]])
    assert plot.sweep_cc_label(both) is None  # runs of both kinds: the title names no one state
    assert plot.plot_sweep(both, ax=figure.add_subplot(2, 1, 2)).get_title().startswith("zeru_c4: ")
