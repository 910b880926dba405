"""scripts/thesis_figures.py, the campaign of the thesis's Ch. 5-6 figures (spec §9.2) and §9.3
checks. The catalogue is complete and consistent (every figure of the list, every series and
panel defined, ADV+i covering every other group once, shared sweeps shared), and a tiny
campaign (h = 2, 400 + 400 cycles) runs each kind of figure, draws it, and is resumable: a
second `run` reuses every run it already has."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "thesis_figures.py"


def _module():
    spec = importlib.util.spec_from_file_location("thesis_figures", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["thesis_figures"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_catalogue_covers_the_list_and_is_consistent(tmp_path):
    tf = _module()
    # spec §9.2's chapter 5-6 rows from Fig 5-2 to 6-15 (5-8, the level traces, is 5-7's last row)
    want = {"5-2", "5-3", "5-4", "5-5", "5-6", "5-7", "5-9", "5-10", "5-11", "5-12", "5-13", "5-14", "6-3", "6-7",
            "6-8", "6-9", "6-10", "6-11", "6-12", "6-13", "6-14", "6-15"}
    assert want <= set(tf.FIG)
    for f in tf.FIGURES:
        assert f.kind in tf.PLOTS
        assert all(s in tf.SERIES for s in f.series), f.fig
        assert all(p in tf.panels(6) for p in f.panels), f.fig
        assert all(c in tf.TRANSIENTS for c in f.transients), f.fig
        if f.kind in ("bars", "paths"):
            assert tf.BAR_LOAD in tf.LOADS["advc"]
    for c in tf.CHECKS:
        assert all(s in tf.SERIES for s in c.series) and c.panel in tf.panels(6) and 1 <= c.seeds <= 10
    # ADV+i, i = ±1 … ±36 on h = 6 (73 groups): every other group exactly once
    s6 = tf.shifts(6)
    assert len(s6) == 72 and max(s6) == 36 and min(s6) == -36
    assert sorted(i % 73 for i in s6) == list(range(1, 73))
    # one folder per (panel, series): MIN under UN is the same sweep in every figure that draws it
    w = (60000, 60000)
    folders = {f.fig: {j.folder for j in tf.figure_jobs(f, tmp_path, 6, w, 1, None)} for f in tf.FIGURES}
    min_un = tmp_path / "h6-w60000-60000" / "un" / "min"
    assert all(min_un in folders[k] for k in ("5-3", "5-4", "5-5", "5-13", "6-9"))
    # the series differ in what they set (no two names for one configuration)
    configs = [tuple(sorted(kv.items())) for _, kv in tf.SERIES.values()]
    assert len(configs) == len(set(configs))


def test_vlb_g_limit_of_the_adv_shift_figure():
    """Fig 6-3's -g- limit line: spec §6.4 L4's worked example (ADV+8 = 1·6 + 2 on h = 6: 4 flows
    on l−1, 2 on l−2, a 25 % limit), the ADV+h limit 1/h, the global-link cap 0.5 of ADV+1, the
    symmetry of ±i; and the flow-by-flow count over every source group (spec §1.1.2's palmtree
    formula), which the ±1 wrap can only make busier, agrees with the rule where it has no wrap
    (i = 4: 2 flows … 6: 6 flows, in every group)."""
    tf = _module()
    assert tf.vlb_g_bound(6, 8) == 0.25
    assert abs(tf.vlb_g_bound(6, 6) - 1 / 6) < 1e-12 and abs(tf.vlb_g_bound(4, 4) - 0.25) < 1e-12
    assert tf.vlb_g_bound(6, 1) == 0.5 and tf.vlb_g_bound(6, 3) == 1 / 3
    for h in (4, 6):
        for i in tf.shifts(h):
            assert tf.vlb_g_bound(h, i) == tf.vlb_g_bound(h, -i)
            assert tf.vlb_g_wrap_bound(h, i) <= tf.vlb_g_bound(h, i) + 1e-12
    assert [tf.vlb_g_wrap_bound(6, i) for i in (4, 5, 6)] == [tf.vlb_g_bound(6, i) for i in (4, 5, 6)]
    assert tf.vlb_g_wrap_bound(6, 8) == 0.2  # R0 → R11 of each group takes a fifth flow (the wrap)


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_tiny_campaign_runs_draws_and_resumes(tmp_path):
    out = tmp_path / "thesis"
    small = ["--h", "2", "--windows", "400,400", "--loads", "0.1,0.5", "--out", str(out), "--jobs", "2"]
    figs = ["--fig", "5-2", "--fig", "5-6", "--fig", "5-7", "--fig", "6-3", "--fig", "6-13"]
    proc = _run("run", *figs, *small)
    assert proc.returncode == 0, proc.stderr
    assert "0 failed" in proc.stdout.splitlines()[-1]
    one = out / "h2-w400-400" / "advl" / "min" / "sweep.csv"
    stamp = one.read_text()
    summaries = sorted((out / "h2-w400-400").rglob("summary.json"))
    mtimes = [p.stat().st_mtime_ns for p in summaries]
    assert len(summaries) >= 5 * 2 + 6 + 8 * 8  # 5-2's sweeps, 5-7's transients, 6-3's shifts (±1…±4)
    again = _run("run", *figs, *small)  # resumable: nothing is run twice
    assert again.returncode == 0, again.stderr
    assert [p.stat().st_mtime_ns for p in summaries] == mtimes
    assert one.read_text() == stamp
    img = tmp_path / "img"
    drawn = _run("plot", *figs, *small, "--img", str(img))
    assert drawn.returncode == 0, drawn.stderr
    for name in ("fig5-2.png", "fig5-6.png", "fig5-7.png", "fig6-3.png", "fig6-13.png"):
        assert (img / name).stat().st_size > 10_000, name
    # a figure not run is drawn with what exists and says what is missing, rather than failing
    partial = _run("plot", "--fig", "5-3", *small, "--img", str(img))
    assert partial.returncode == 0, partial.stderr
    table = _run("checks", *small)
    assert table.returncode == 0 and "not run" in table.stdout


def test_bad_options_are_refused_by_name(tmp_path):
    bad = _run("run", "--fig", "9-9", "--out", str(tmp_path))
    assert bad.returncode == 2 and "--fig" in bad.stderr and "5-5" in bad.stderr
    bad = _run("run", "--windows", "100", "--out", str(tmp_path))
    assert bad.returncode == 2 and "--windows" in bad.stderr
