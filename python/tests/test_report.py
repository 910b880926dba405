"""`lnsim report`: one self-contained HTML page of a results folder or a sweep folder.

Real (short) runs of both models and two small real sweeps feed the report; the page is
checked as text (sections, figures, escaping, no external resources) and in a real headless
Chromium (every embedded figure decodes, no JavaScript error, the screenshot is not blank).
The browser tests need Debian's ``chromium`` (``make install`` installs it); with
``LNSIM_SKIP_BROWSER=1`` they are skipped instead of failing.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from conftest import ZERU_A, dragonfly_toml, lnsim_cmd, short
from lnsim.report import add_parser, cmd_report, folder_kind, report_html, write_report

#: A tiny cycle-level Dragonfly; the description checks that text is escaped.
TINY_DRAGONFLY = dragonfly_toml(head='[scenario]\nname = "tiny_df"\ndescription = "tiny <b>dragonfly</b> & friends"\n')

LOAD_SWEEP = '\n[sweep]\n"routing.algorithm" = ["min", "vlb"]\n"traffic.load" = [0.1, 0.3]\n'
CC_SWEEP = '\n[sweep]\n"cc.ccti_timer" = ["20us", "250us"]\n"cc.marking_rate" = [1, 10]\n'
#: zeru_a with CC on long enough (0.3 s) for the flows to be throttled (from 0.1 s on).
IB_CC = ["--set", "cc.enabled=true", *short("0.3s", "0.2s")]

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=5000",
]


def _ok(proc: subprocess.CompletedProcess, what: str) -> None:
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stderr}"


@pytest.fixture(scope="module")
def ib_run(tmp_path_factory) -> Path:
    """A 0.3 s run of zeru_a with congestion control on (flows throttled, ccti.csv filled)."""
    out = tmp_path_factory.mktemp("rep_ib") / "run"
    _ok(lnsim_cmd("run", ZERU_A, *IB_CC, "--out", out, "--no-plot"), "lnsim run")
    return out


@pytest.fixture(scope="module")
def cycle_run(tmp_path_factory) -> Path:
    """One run of the tiny Dragonfly (cycle-level model)."""
    tmp = tmp_path_factory.mktemp("rep_cyc")
    scen = tmp / "tiny_df.toml"
    scen.write_text(TINY_DRAGONFLY, encoding="utf-8")
    out = tmp / "run"
    _ok(lnsim_cmd("run", scen, "--out", out, "--no-plot"), "lnsim run")
    return out


@pytest.fixture(scope="module")
def ib_sweep(tmp_path_factory) -> Path:
    """A 2 x 2 sweep of two CC parameters of zeru_a (heatmaps)."""
    tmp = tmp_path_factory.mktemp("rep_ibsw")
    scen = tmp / "zeru_a_cc.toml"
    scen.write_text(ZERU_A.read_text(encoding="utf-8") + CC_SWEEP, encoding="utf-8")
    out = tmp / "sweep"
    proc = lnsim_cmd("sweep", scen, "--set", "cc.enabled=true", *short("0.15s", "0.1s"), "--out", out,
                     "--jobs", "2", "--no-plot", "--no-progress")
    _ok(proc, "lnsim sweep")
    return out


@pytest.fixture(scope="module")
def load_sweep(tmp_path_factory) -> Path:
    """A load sweep of the tiny Dragonfly: 2 routings x 2 loads x 2 seeds."""
    tmp = tmp_path_factory.mktemp("rep_load")
    scen = tmp / "tiny_df.toml"
    scen.write_text(TINY_DRAGONFLY + LOAD_SWEEP, encoding="utf-8")
    out = tmp / "sweep"
    proc = lnsim_cmd("sweep", scen, "--out", out, "--jobs", "2", "--seeds", "2", "--no-plot", "--no-progress")
    _ok(proc, "lnsim sweep")
    return out


@pytest.fixture(scope="module")
def report_of():
    """``report_of(folder)``: the path of the folder's report, written once (to the default
    ``folder/report.html``) and shared by the tests of this module."""
    cache = {}

    def get(folder: Path) -> Path:
        if folder not in cache:
            cache[folder] = write_report(folder)
        return cache[folder]

    return get


# ---------------------------------------------------------------------------------------------
# helpers


def section_ids(page: str) -> list:
    return re.findall(r'<section id="([^"]+)">', page)


def figure_count(page: str) -> int:
    return len(re.findall(r"<img\b", page))


def captions(page: str) -> str:
    return html.unescape(" ".join(re.findall(r"<figcaption>(.*?)</figcaption>", page, flags=re.S)))


def assert_self_contained(page: str) -> None:
    """Every src/href is an embedded data: URI or an in-page anchor; no external stylesheet,
    script, font or import; no http(s) resource at all."""
    tags = re.findall(r"<[A-Za-z][^>]*>", page)  # text is escaped: every "<" left opens a real tag
    refs = [m for t in tags for m in re.findall(r"""\s(?:src|href)\s*=\s*["']?([^"'\s>]*)""", t, flags=re.I)]
    assert refs, "the page has no figure or link at all"
    bad = [r for r in refs if not (r.startswith("data:image/png;base64,") or r.startswith("#"))]
    assert not bad, f"external references: {bad[:5]}"
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, flags=re.I)
    assert not re.search(r"<link\b", page, flags=re.I)
    assert "@import" not in page and "url(" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page, flags=re.I)
    assert not re.search(r"<(?:iframe|object|embed)\b", page, flags=re.I)


def assert_common(page: str, n_figures: int) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert figure_count(page) == n_figures
    assert f'data-figures-total="{n_figures}"' in page
    assert 'data-figure-errors="0"' in page and '<p class="figure-error">' not in page
    assert "could not be drawn" not in page
    assert '<nav class="toc">' in page and "window.onerror" in page and "naturalWidth" in page
    assert_self_contained(page)


# ---------------------------------------------------------------------------------------------
# the page as text


def test_ib_run_report(ib_run, report_of):
    path = report_of(ib_run)
    assert path == ib_run / "report.html" and path.is_file()
    page = path.read_text(encoding="utf-8")
    # bandwidth + CCTI, CCTI per flow, throughput, latency histogram, buffer occupancy
    assert_common(page, 5)
    assert section_ids(page) == ["scenario", "summary", "figures", "nodes-and-flows", "congestion-control"]
    assert "<title>lnsim report: zeru_a, CC on (InfiniBand CC)</title>" in page  # CC from the run
    assert "CCTI" in captions(page) and "throughput" in captions(page) and "latency histogram" in captions(page)
    assert "scenario.toml (the scenario as run" in page
    assert "[topology]" in page and 'kind = &quot;mesh&quot;' in page  # the TOML text, escaped
    assert "H221" in page and "FECN marks" in page and "Jain fairness index" in page
    assert "max CCTI" in page


def test_cycle_run_report(cycle_run, report_of):
    page = report_of(cycle_run).read_text(encoding="utf-8")
    assert_common(page, 3)  # timeline, per-router load, latency histogram
    assert section_ids(page) == ["scenario", "summary", "figures", "routers"]
    assert "cycle-level router model" in page
    caps = captions(page)
    assert "per time bin" in caps and "Accepted load of each router" in caps and "in cycles" in caps
    # the description is escaped, never markup
    assert "tiny &lt;b&gt;dragonfly&lt;/b&gt; &amp; friends" in page and "<b>dragonfly</b>" not in page
    assert "dragonfly p=2" in page and "phits/node/cycle" in page


def test_report_out_option(cycle_run, tmp_path):
    out = tmp_path / "sub" / "page.html"  # missing parent folders are made
    assert write_report(cycle_run, out=out) == out and out.is_file()
    assert not list(tmp_path.glob("sub/.*"))  # no temporary file left behind
    # an existing folder as out gets report.html inside
    assert write_report(cycle_run, out=tmp_path) == tmp_path / "report.html"


def test_ib_sweep_report(ib_sweep, report_of):
    page = report_of(ib_sweep).read_text(encoding="utf-8")
    # heatmaps of total rx, rx after warm-up, mean latency, Jain and max CCTI
    assert_common(page, 5)
    assert section_ids(page) == ["scenario", "summary", "figures", "sweep-table"]
    caps = captions(page)
    assert caps.count("heatmap: one row per cc.ccti_timer, one column per cc.marking_rate") == 5
    assert "Jain fairness index of the flows" in caps and "in µs" in caps
    table = re.search(r'<table class="sweep">(.*?)</table>', page, flags=re.S).group(1)
    assert table.count("<tr>") == 5  # header + 4 points
    assert "<th>cc.ccti_timer</th>" in table and ">250us<" in table
    assert "zeru_a_cc.toml (the scenario file)" in page and "cc.enabled=true" in page
    assert "Failed points" not in page


def test_load_sweep_report(load_sweep, report_of):
    assert folder_kind(load_sweep) == "sweep"
    assert (load_sweep / "points").is_dir() and any((load_sweep / "points").glob("*/seed-2/routers.csv"))
    page = report_of(load_sweep).read_text(encoding="utf-8")
    # load-latency, accepted vs offered, Jain vs load, non-minimal fraction, per-router bars
    assert_common(page, 5)
    caps = captions(page)
    assert "Mean packet latency against the offered load" in caps
    assert "Accepted against offered load" in caps
    assert "Jain index of the routers' injected loads" in caps
    assert "non-minimally" in caps
    assert "highest offered load of each line" in caps
    assert "mean over seeds" in caps
    table = re.search(r'<table class="sweep">(.*?)</table>', page, flags=re.S).group(1)
    assert table.count("<tr>") == 9  # header + 2 routings x 2 loads x 2 seeds
    assert '<th class="num">seed</th>' in table
    assert "8 runs (4 points × 2 seeds): 8 ok, 0 failed" in page
    assert "A load sweep of the cycle-level router model" in page


def test_failed_points_and_unknown_files(ib_sweep, tmp_path):
    d = tmp_path / "sweep"
    shutil.copytree(ib_sweep, d)
    df = pd.read_csv(d / "sweep.csv")
    df["error"] = df["error"].astype(object)
    df.loc[1, ["status", "error"]] = ["failed", "boom: <script>alert(1)</script> & more"]
    df.to_csv(d / "sweep.csv", index=False)
    (d / "store.sqlite").write_bytes(b"SQLite format 3\x00" + bytes(range(256)))  # not read
    (d / "notes.txt").write_text("whatever")
    (d / "report.html").write_text("<html>an old report</html>")
    page = report_html(d)
    assert section_ids(page) == ["scenario", "summary", "failed-points", "figures", "sweep-table"]
    assert "boom: &lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "<script>alert" not in page and page.count("<script>") == 1
    assert "4 points: 3 ok, 1 failed" in page
    assert_common(page, 5)  # the figures are still drawn (the failed cell is grey)


def test_not_a_results_folder(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError, match="nope: no such folder"):
        write_report(missing)
    with pytest.raises(ValueError, match=r"empty: not a results folder \(no summary.json\) nor a sweep folder"):
        (tmp_path / "empty").mkdir()
        write_report(tmp_path / "empty")
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(ValueError, match="file.txt: not a folder"):
        write_report(f)
    assert not list(tmp_path.rglob("report.html"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lnsim")
    sub = parser.add_subparsers(dest="command")
    add_parser(sub)
    return parser


def test_cli_functions(cycle_run, tmp_path, capsys):
    from lnsim.cli import InputError

    out = tmp_path / "r.html"
    args = _parser().parse_args(["report", str(cycle_run), "-o", str(out)])
    assert args.func is cmd_report
    assert cmd_report(args) == 0
    assert capsys.readouterr().out.strip() == str(out) and out.is_file()
    args = _parser().parse_args(["report", str(tmp_path / "missing")])
    with pytest.raises(InputError, match="missing: no such folder"):
        cmd_report(args)
    help_text = add_parser(argparse.ArgumentParser(prog="lnsim").add_subparsers()).format_help()
    assert "lnsim report [-h] [-o FILE] RESULTS_DIR" in help_text and "-o FILE, --out FILE" in help_text


def test_lnsim_report_command(ib_run, tmp_path):
    from lnsim.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert "report" in sub.choices
    out = tmp_path / "x.html"
    proc = lnsim_cmd("report", ib_run, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out) and out.is_file()
    proc = lnsim_cmd("report", tmp_path / "missing")
    assert proc.returncode == 2 and "missing: no such folder" in proc.stderr


# ---------------------------------------------------------------------------------------------
# in a real browser


def chromium() -> str:
    """Path of the Chromium executable; fails (or skips with LNSIM_SKIP_BROWSER=1) without one."""
    if os.environ.get("LNSIM_SKIP_BROWSER") == "1":
        pytest.skip("LNSIM_SKIP_BROWSER=1: browser tests skipped")
    exe = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
    if exe is None:
        pytest.fail(
            "Chromium is needed to test the HTML report in a real browser: install Debian's `chromium` package "
            "(`sudo apt-get install chromium`; `make browser`, run by `make test`, does it), "
            "or set LNSIM_SKIP_BROWSER=1 to skip these tests",
            pytrace=False,
        )
    return exe


@pytest.fixture
def browser() -> str:
    """The Chromium executable (:func:`chromium`); asked for first, so that a skipped browser
    test does not run the simulations."""
    return chromium()


def test_missing_chromium_fails_with_advice(monkeypatch):
    monkeypatch.delenv("LNSIM_SKIP_BROWSER", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(pytest.fail.Exception, match="install Debian's `chromium` package"):
        chromium()
    monkeypatch.setenv("LNSIM_SKIP_BROWSER", "1")
    with pytest.raises(pytest.skip.Exception):
        chromium()


def run_chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    cmd = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"chromium did not finish within 60 s: {' '.join(cmd)}", pytrace=False)
    assert proc.returncode == 0, f"chromium failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc


def body_attributes(dom: str) -> dict:
    m = re.search(r"<body\b([^>]*)>", dom)
    assert m, f"no <body> in the dumped DOM:\n{dom[:2000]}"
    return dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))


@pytest.mark.parametrize("which", ["ib_run", "cycle_run", "ib_sweep", "load_sweep"])
def test_report_in_headless_chromium(browser, which, request, report_of, tmp_path):
    page = report_of(request.getfixturevalue(which))
    expected = figure_count(page.read_text(encoding="utf-8"))
    assert expected >= 3
    dom = run_chromium(tmp_path, page, "--dump-dom").stdout
    attrs = body_attributes(dom)
    assert attrs.get("data-report-ready") == "1", f"the load handler did not run: {attrs}"
    assert attrs.get("data-js-errors") == "0", f"JavaScript errors: {attrs.get('data-js-error-log')}"
    assert attrs["data-figures-total"] == str(expected)
    assert attrs["data-figures-found"] == str(expected)
    assert attrs["data-figures-loaded"] == str(expected), f"figures that did not decode: {attrs}"


def test_report_screenshot_is_not_blank(browser, load_sweep, report_of, tmp_path):
    from PIL import Image, ImageStat

    page = report_of(load_sweep)
    png = tmp_path / "shot.png"
    run_chromium(tmp_path, page, "--hide-scrollbars", f"--screenshot={png}", "--window-size=1280,2000")
    assert png.is_file() and png.stat().st_size > 10_000
    with Image.open(png) as im:
        assert im.size == (1280, 2000)
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 200, "the screenshot has almost no colours"
        assert max(ImageStat.Stat(rgb).stddev) > 20, "the screenshot is nearly uniform"
        # the top of the page (title, contents) is not empty, nor is the part holding figures
        for box in ((0, 0, 1280, 400), (0, 1000, 1280, 2000)):
            part = rgb.crop(box)
            assert max(ImageStat.Stat(part).stddev) > 10, f"region {box} is blank"


def test_plot_buffers(ib_run):
    import matplotlib.pyplot as plt

    from lnsim.plot import MAX_LINES, buffer_occupancy, plot_buffers

    table = buffer_occupancy(ib_run)
    assert table.index.name == "t_start_s" and len(table) == 60  # 0.3 s in 5 ms intervals
    assert "SW11:1" in table.columns and (table.to_numpy() >= 0).all()
    fig, ax = plt.subplots()
    try:
        plot_buffers(ib_run, ax=ax)
        assert 0 < len(ax.lines) <= MAX_LINES and ax.get_ylabel() == "mean occupancy (credits)"
        assert "buffer occupancy" in ax.get_title()
    finally:
        plt.close(fig)
