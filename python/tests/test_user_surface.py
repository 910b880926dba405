"""The user surface: corrupt results given to ``plot``/``report``, the run summary's
after-warm-up rates and shares of the link, and the smaller user-surface items (documentation
facts, units, figures, progress of the Python API, number formatting).

The corruption matrix runs ``lnsim plot`` and ``lnsim report`` in-process (``cli.main``: the
command's own entry point, which prints the message and returns the exit status) on copies of
real results folders of both models and of two real sweeps, each with one file spoiled.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import lnsim
from conftest import REPO, SCENARIOS, ZERU_A, dragonfly_toml, lnsim_cmd, short
from lnsim import cli

#: A short CC-on zeru_a run (ccti.csv is written; flows are throttled from 0.1 s on).
IB_RUN = ["--set", "cc.enabled=true", *short("0.15s", "0.1s")]
LOAD_SWEEP = '\n[sweep]\n"routing.algorithm" = ["min", "vlb"]\n"traffic.load" = [0.1, 0.3]\n'


def _ok(proc: subprocess.CompletedProcess, what: str) -> None:
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stderr}"


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict:
    """Real folders written once: a credit-level run with CC on, a cycle-level run, a
    cycle-level load sweep and a credit-level sweep."""
    tmp = tmp_path_factory.mktemp("ux")
    out = {}
    out["ib"] = tmp / "ib"
    _ok(lnsim_cmd("run", ZERU_A, *IB_RUN, "--out", out["ib"], "--no-plot", "--no-progress"), "lnsim run (IB)")
    scen = tmp / "tiny_df.toml"
    scen.write_text(dragonfly_toml(head='[scenario]\nname = "tiny_df"\n'), encoding="utf-8")
    out["cycle"] = tmp / "cycle"
    _ok(lnsim_cmd("run", scen, "--out", out["cycle"], "--no-plot", "--no-progress"), "lnsim run (cycle)")
    sw = tmp / "tiny_sw.toml"
    sw.write_text(scen.read_text(encoding="utf-8") + LOAD_SWEEP, encoding="utf-8")
    out["sweep"] = tmp / "sweep"
    _ok(lnsim_cmd("sweep", sw, "--out", out["sweep"], "--jobs", "1", "--no-plot", "--no-progress"), "lnsim sweep")
    out["ib_sweep"] = tmp / "ib_sweep"
    _ok(lnsim_cmd("sweep", ZERU_A, "--grid", "cc.marking_rate=1,10", "--set", "cc.enabled=true",
                  *short("0.02s", "0.01s"), "--out", out["ib_sweep"], "--jobs", "1", "--no-plot", "--no-progress"),
        "lnsim sweep (IB)")
    return out


# ---------------------------------------------------------------------------------------------
# corrupt results -> exit 2 naming the file (and line / column)


def _write(text):
    def f(path: Path) -> None:
        path.write_text(text, encoding="utf-8")

    return f


def _bytes(data: bytes):
    def f(path: Path) -> None:
        path.write_bytes(data)

    return f


JUNK = bytes(range(256)) * 8 + b"\xff\xfe\x00\x81"


def _rename_column(old: str, new: str):
    def f(path: Path) -> None:
        lines = path.read_text(encoding="utf-8").split("\n")
        cols = lines[0].split(",")
        lines[0] = ",".join(new if c == old else c for c in cols)
        path.write_text("\n".join(lines), encoding="utf-8")

    return f


def _drop_column(name: str):
    def f(path: Path) -> None:
        rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
        i = rows[0].index(name)
        with path.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows([r[:i] + r[i + 1:] for r in rows])

    return f


def _cell(column: str, row: int, value: str):
    """Sets ``column`` of data row ``row`` (0-based; file line ``row + 2``) to ``value``."""

    def f(path: Path) -> None:
        rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
        rows[row + 1][rows[0].index(column)] = value
        with path.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows(rows)

    return f


def _ragged(row: int):
    def f(path: Path) -> None:
        lines = path.read_text(encoding="utf-8").split("\n")
        lines[row + 1] += ",1,2,3"
        path.write_text("\n".join(lines), encoding="utf-8")

    return f


def _header_only(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8").split("\n")[0] + "\n", encoding="utf-8")


def _json_field(dotted: str, value):
    def f(path: Path) -> None:
        d = json.loads(path.read_text(encoding="utf-8"))
        *parents, last = dotted.split(".")
        node = d
        for p in parents:
            node = node[p]
        node[last] = value
        path.write_text(json.dumps(d), encoding="utf-8")

    return f


def _first_point_summary(folder: Path) -> Path:
    return sorted((folder / "points").glob("*/summary.json"))[-1]


BOTH, REPORT = ("plot", "report"), ("report",)

#: (folder, case id, file (relative, or a function of the folder), spoil, commands that must
#: fail, text the message must hold besides the file name). Corruptions of a file that `plot`
#: does not read fail `report` only, and `plot` must then still succeed.
CORRUPTIONS = [
    # a credit-level results folder
    ("ib", "summary-not-json", "summary.json", _write('{"scenario": "x",\n  "seed": }'), BOTH, "summary.json:2:"),
    ("ib", "summary-array", "summary.json", _write("[1, 2, 3]\n"), BOTH, "JSON object"),
    ("ib", "summary-string", "summary.json", _write('"results"\n'), BOTH, "JSON object"),
    ("ib", "summary-empty", "summary.json", _write(""), BOTH, "empty file"),
    ("ib", "summary-binary", "summary.json", _bytes(JUNK), BOTH, "not a text file"),
    ("ib", "summary-field-type", "summary.json", _json_field("interval_s", "5ms"), BOTH, "`interval_s`"),
    ("ib", "summary-node-type", "summary.json", _json_field("nodes.H112.tx_gbps", "fast"), BOTH,
     "`nodes.H112.tx_gbps`"),
    ("ib", "summary-latency-object", "summary.json", _json_field("latency_ns", [1, 2]), BOTH, "`latency_ns`"),
    ("ib", "nodes-garbage", "nodes.csv", _write("hello world\nthis is not a table\n"), BOTH, "missing columns"),
    ("ib", "nodes-renamed", "nodes.csv", _rename_column("tx_bytes", "bytes_tx"), BOTH, "`tx_bytes`"),
    ("ib", "nodes-missing", "nodes.csv", _drop_column("rx_bytes"), BOTH, "`rx_bytes`"),
    ("ib", "nodes-text-number", "nodes.csv", _cell("rx_bytes", 1, "lots"), BOTH, "nodes.csv:3: column `rx_bytes`"),
    ("ib", "nodes-blank-number", "nodes.csv", _cell("t_start_s", 4, ""), BOTH, "nodes.csv:6: column `t_start_s`"),
    ("ib", "nodes-ragged", "nodes.csv", _ragged(2), BOTH, "nodes.csv:4:"),
    ("ib", "nodes-empty", "nodes.csv", _write(""), BOTH, "empty file"),
    ("ib", "nodes-binary", "nodes.csv", _bytes(JUNK), BOTH, "not a text file"),
    ("ib", "latency-renamed", "latency_hist.csv", _rename_column("count", "n"), BOTH, "`count`"),
    ("ib", "ccti-text", "ccti.csv", _cell("ccti_end", 0, "high"), BOTH, "ccti.csv:2: column `ccti_end`"),
    ("ib", "flows-garbage", "flows.csv", _write("src\n1\n"), REPORT, "`dst`"),
    ("ib", "buffers-missing", "buffers.csv", _drop_column("mean_credits"), REPORT, "`mean_credits`"),
    ("ib", "cc-ports-binary", "cc_ports.csv", _bytes(JUNK), REPORT, "not a text file"),
    # a cycle-level results folder
    ("cycle", "summary-not-json", "summary.json", _write("{'model': 'cycle'}"), BOTH, "summary.json:1:"),
    ("cycle", "summary-array", "summary.json", _write("[]"), BOTH, "JSON object"),
    ("cycle", "summary-flag-type", "summary.json", _json_field("saturated", "no"), BOTH, "`saturated`"),
    ("cycle", "summary-binary", "summary.json", _bytes(JUNK), BOTH, "not a text file"),
    ("cycle", "bins-renamed", "bins.csv", _rename_column("start_cycle", "start"), BOTH, "`start_cycle`"),
    ("cycle", "bins-text-number", "bins.csv", _cell("end_cycle", 0, "later"), BOTH, "bins.csv:2: column `end_cycle`"),
    ("cycle", "bins-empty", "bins.csv", _write(""), BOTH, "empty file"),
    ("cycle", "routers-missing", "routers.csv", _drop_column("accepted_load"), BOTH, "`accepted_load`"),
    ("cycle", "routers-garbage", "routers.csv", _write("router;load\n0;1\n"), BOTH, "missing columns"),
    ("cycle", "latency-binary", "latency_hist.csv", _bytes(JUNK), BOTH, "not a text file"),
    # a load sweep of the cycle-level model
    ("sweep", "csv-binary", "sweep.csv", _bytes(JUNK), BOTH, "not a text file"),
    ("sweep", "csv-empty", "sweep.csv", _write(""), BOTH, "empty file"),
    ("sweep", "csv-header-only", "sweep.csv", _header_only, BOTH, "no rows"),
    ("sweep", "csv-garbage", "sweep.csv", _write("hello\nworld\n"), BOTH, "missing columns `point`, `status`"),
    ("sweep", "csv-no-point", "sweep.csv", _rename_column("point", "pt"), BOTH, "`point`"),
    ("sweep", "csv-no-status", "sweep.csv", _drop_column("status"), BOTH, "`status`"),
    ("sweep", "csv-text-metric", "sweep.csv", _cell("accepted_load", 1, "lots"), BOTH,
     "sweep.csv:3: column `accepted_load`"),
    ("sweep", "csv-text-latency", "sweep.csv", _cell("latency_cycles.mean", 2, "x"), BOTH,
     "sweep.csv:4: column `latency_cycles.mean`"),
    ("sweep", "csv-bad-flag", "sweep.csv", _cell("saturated", 3, "maybe"), BOTH, "sweep.csv:5: column `saturated`"),
    ("sweep", "csv-ragged", "sweep.csv", _ragged(1), BOTH, "sweep.csv:3:"),
    ("sweep", "json-not-json", "sweep.json", _write("[\n"), BOTH, "sweep.json:2:"),
    ("sweep", "json-points", "sweep.json", _write('{"points": [1]}'), BOTH, "`points[0]`"),
    ("sweep", "point-summary", _first_point_summary, _write("{"), REPORT, "summary.json:1:"),
    # a sweep of the credit-level model (heatmap)
    ("ib_sweep", "csv-text-metric", "sweep.csv", _cell("throughput.total_rx_gbytes_per_s", 0, "fast"), BOTH,
     "sweep.csv:2: column `throughput.total_rx_gbytes_per_s`"),
    ("ib_sweep", "csv-binary", "sweep.csv", _bytes(JUNK), BOTH, "not a text file"),
]


def _case_id(case) -> str:
    return f"{case[0]}-{case[1]}"


@pytest.mark.parametrize("command", ["plot", "report"])
@pytest.mark.parametrize("case", CORRUPTIONS, ids=_case_id)
def test_corrupt_results_exit_2_naming_the_file(folders, case, command, tmp_path, capsys):
    kind, _, file, spoil, failing, needle = case
    d = tmp_path / kind
    shutil.copytree(folders[kind], d)
    path = file(d) if callable(file) else d / file
    spoil(path)
    target = tmp_path / ("png" if command == "plot" else "page.html")
    status = cli.main([command, str(d), "--out", str(target)])
    err = capsys.readouterr().err
    if command not in failing:  # plot does not read this file: it must still work
        assert status == 0, err
        return
    assert status == 2, err
    assert "Traceback" not in err
    assert err.startswith("lnsim: error: ") and str(path) in err, err
    assert needle in err, err
    assert not target.exists(), "nothing may be written from corrupt input"


def test_corrupt_results_through_the_command(folders, tmp_path):
    """The same through the installed command (a real process: status 2, no traceback)."""
    d = tmp_path / "ib"
    shutil.copytree(folders["ib"], d)
    (d / "nodes.csv").write_bytes(JUNK)
    for command in ("plot", "report"):
        proc = lnsim_cmd(command, d)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and f"{d / 'nodes.csv'}: not a text file" in proc.stderr


def test_results_error_in_the_python_api(folders, tmp_path):
    d = tmp_path / "ib"
    shutil.copytree(folders["ib"], d)
    _cell("tx_bytes", 0, "x")(d / "nodes.csv")
    r = lnsim.load_results(d)
    with pytest.raises(lnsim.ResultsError) as e:
        r.nodes  # noqa: B018
    assert e.value.path == d / "nodes.csv" and e.value.line == 2 and e.value.column == "tx_bytes"
    assert isinstance(e.value, ValueError)
    (d / "summary.json").write_text("[]")
    with pytest.raises(lnsim.ResultsError):
        lnsim.load_results(d)
    # a missing table is still a FileNotFoundError (and a ResultsError)
    shutil.rmtree(d)
    shutil.copytree(folders["cycle"], d)
    with pytest.raises(FileNotFoundError):
        lnsim.load_results(d).nodes  # noqa: B018


def test_intact_folders_still_read(folders):
    """The checks accept what the core writes (both models, both sweeps)."""
    for kind in ("ib", "cycle"):
        r = lnsim.load_results(folders[kind]).check()
        assert r.latency is not None
    assert lnsim.load_results(folders["ib"]).nodes["node"].map(type).eq(str).all()  # names stay text
    for kind in ("sweep", "ib_sweep"):
        df = lnsim.read_sweep(folders[kind])
        assert (df["status"] == "ok").all() and len(df) >= 2


def test_node_names_that_look_missing_stay_names(tmp_path):
    """The checks must not turn a node named "NA" or "null" into a missing value (an error)."""
    from conftest import write_fake_results

    d = write_fake_results(tmp_path / "na", senders=("NA", "H211"), receivers=("null",))
    r = lnsim.load_results(d).check()
    assert {"NA", "null", "H211"} <= set(r.nodes["node"])
    assert cli.main(["plot", str(d), "--out", str(tmp_path / "png")]) == 0


# ---------------------------------------------------------------------------------------------
# the run summary prints the after-warm-up rates and shares of each node's link


def _zeru_a_like_summary() -> dict:
    """The figures of a full zeru_a run (after warm-up 25/25/25/50 %, whole run lower)."""
    node = lambda tx, rx, txa, rxa: {  # noqa: E731
        "tx_gbps": tx, "rx_gbps": rx, "tx_gbps_after_warmup": txa, "rx_gbps_after_warmup": rxa, "link_gbps": 8.0}
    return {
        "scenario": "zeru_a", "seed": 12, "version": "0.1.0", "sim_time_s": 0.7, "warmup_s": 0.45,
        "wall_time_s": 1.0, "events": 100, "flit_hops": 1000,
        "throughput": {"total_rx_gbps": 8.857, "total_tx_gbps": 8.862, "rx_gbps_after_warmup": 10.0,
                       "tx_gbps_after_warmup": 10.0},
        "nodes": {"H111": node(0.857841, 0.0, 1.99997, 0.0), "H121": node(1.429296, 0.85712, 1.99997, 1.99997),
                  "H211": node(3.430023, 0.0, 4.00001, 0.0), "H221": node(0.0, 7.999996, 0.0, 8.00002)},
        "latency_ns": {}, "fairness": {"jain": 0.9}, "cc": {"enabled": False},
    }


def _node_row(text: str, node: str) -> list:
    (line,) = [ln for ln in text.splitlines() if ln.split()[:1] == [node]]
    return line.split()[1:]


def test_summary_prints_after_warmup_rates_and_link_shares():
    text = cli.format_summary(_zeru_a_like_summary(), "results/zeru_a")
    assert "per node        after warm-up (0.45 s to 0.7 s)" in text
    assert "link Gbit/s    tx Gbit/s    tx % link    rx Gbit/s    rx % link" in text
    assert _node_row(text, "H111") == ["8", "2.000", "25.0", "0.000", "0.0"]  # the victim: 25 %, as documented
    assert _node_row(text, "H211") == ["8", "4.000", "50.0", "0.000", "0.0"]
    assert _node_row(text, "H221") == ["8", "0.000", "0.0", "8.000", "100.0"]
    assert "0.858" not in text  # the whole-run rate is not in the node table ...
    assert "whole run: rx 8.857 / tx 8.862 Gbit/s" in text  # ... the totals say which is which
    assert "after warm-up (0.45 s to 0.7 s): rx 10.000 / tx 10.000 Gbit/s" in text


def test_summary_without_link_rate_or_with_cc():
    s = _zeru_a_like_summary()
    for v in s["nodes"].values():
        del v["link_gbps"]  # a folder written before link_gbps existed
    assert _node_row(cli.format_summary(s, "x"), "H111") == ["n/a", "2.000", "n/a", "0.000", "n/a"]
    s["cc"] = {"enabled": True, "max_ccti": 128}
    s["nodes"]["H111"].update(cnps_sent=0, cnps_received=12345, link_gbps=8.0)
    text = cli.format_summary(s, "x")
    assert "CNPs: whole run" in text
    assert _node_row(text, "H111") == ["8", "2.000", "25.0", "0.000", "0.0", "0", "12,345"]


def test_real_run_summary_gives_link_rate(folders):
    s = json.loads((folders["ib"] / "summary.json").read_text())
    assert all(v["link_gbps"] == 8.0 for v in s["nodes"].values())  # zeru_a: 4x SDR host links
    # the whole-run figures stay in summary.json
    assert all({"tx_gbps", "rx_gbps", "tx_gbps_after_warmup", "rx_gbps_after_warmup"} <= set(v) for v in
               s["nodes"].values())


def test_readme_quick_start_sample_is_what_run_prints(tmp_path):
    """The README's sample is the summary `lnsim run scenarios/ibcc/zeru_a.toml` prints (the
    machine-dependent lines aside); the documented 25 % of the victim is in it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("scenario        zeru_a")
    sample = readme[start: readme.index("```", start)]
    assert _node_row(sample, "H111") == ["8", "2.000", "25.0", "0.000", "0.0"]
    assert "victim H111 is held to 25 %" in readme
    proc = lnsim_cmd("run", ZERU_A, "--no-plot", "--no-progress", "--out", tmp_path / "zeru_a")  # 0.7 s simulated
    assert proc.returncode == 0, proc.stderr
    volatile = ("simulated", "events", "speed", "results")
    keep = lambda text: [ln for ln in text.splitlines() if ln.split()[:1] and ln.split()[0] not in volatile]  # noqa: E731
    assert keep(proc.stdout) == keep(sample)


# ---------------------------------------------------------------------------------------------
# documentation facts


def _subparser(name: str):
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return sub.choices[name]


def test_readme_bench_usage_lists_every_option():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (usage,) = [ln for ln in readme.splitlines() if ln.startswith("lnsim bench ")]
    options = [s for a in _subparser("bench")._actions for s in a.option_strings if s.startswith("--") and s != "--help"]
    assert "--scenarios" in options
    for opt in options:
        assert opt in usage, f"README's `lnsim bench` usage lacks {opt}: {usage}"
        assert opt in cli.__doc__.split("lnsim bench", 1)[1].splitlines()[0]


def _repo_text_files(*tops: str):
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *tops], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout.split()
    for rel in out:
        p = REPO / rel
        if p.is_file() and p.suffix not in (".png", ".so", ".sqlite"):
            try:
                yield rel, p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_no_absolute_developer_paths_in_the_repository():
    """Scenarios, docs and code cite the specs by name and section, not by a path on a
    developer's machine."""
    pattern = re.compile("/" + "(?:work|home)" + "/")  # written so that this file does not match itself
    hits = [f"{rel}:{i}" for rel, text in _repo_text_files("scenarios", "docs", "README.md", "python", "crates")
            for i, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    assert hits == []


def test_scenarios_readme_tells_the_truth_about_cc():
    text = (SCENARIOS / "README.md").read_text(encoding="utf-8")
    assert "accepts only `enabled = false`" not in text
    assert "`[cc]` accepts every" in text
    # what it says: any CC key, in the file's [cc] table or with --set, on the CC-off files
    scen = SCENARIOS / "ibcc" / "zeru_a.toml"
    lnsim.validate(scen, ["cc.enabled=true", "cc.threshold=1", "cc.marking_rate=10", 'cc.ccti_timer="250us"'])


def test_experiment_d_time_is_phrased_by_points():
    text = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    assert "~25 s" not in text
    assert "points × time per point ÷ cores" in text and "71 s" in text


# ---------------------------------------------------------------------------------------------
# one throughput unit for a sweep (GB/s), labelled


def test_sweep_table_is_in_the_unit_of_the_heatmap(folders):
    from lnsim.plot import DEFAULT_SWEEP_METRIC
    from lnsim.plot._metric_sweep import _METRIC_LABEL

    df = lnsim.read_sweep(folders["ib_sweep"])
    text = cli.format_sweep(df, folders["ib_sweep"], 0)
    header = text.splitlines()[0]
    assert "rx GB/s" in header and "rx GB/s after wu" in header and "Gbit/s" not in text
    assert "(GB/s)" in _METRIC_LABEL[DEFAULT_SWEEP_METRIC]  # the heatmap's colour bar
    first = text.splitlines()[1].split()
    assert f"{df['throughput.total_rx_gbytes_per_s'][0]:.3f}" in first
    assert f"{df['throughput.rx_gbps_after_warmup'][0] / 8:.3f}" in first  # after warm-up, GB/s too
    # an older sweep.csv without the GB/s columns: derived from Gbit/s
    old = df.drop(columns=["throughput.total_rx_gbytes_per_s"])
    assert f"{df['throughput.total_rx_gbps'][0] / 8:.3f}" in cli.format_sweep(old, "x", 0).splitlines()[1]


def test_sweep_report_table_in_gbytes(folders):
    from lnsim.report import report_html

    page = report_html(folders["ib_sweep"])
    table = page[page.index('<table class="sweep">'):]
    table = table[: table.index("</thead>")]
    assert "rx GB/s" in table and "Gbit/s" not in table


# ---------------------------------------------------------------------------------------------
# the CCTI figure of a CC-on run


def test_cc_on_run_writes_ccti_png(folders, tmp_path):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_ccti_flows, plot_results

    paths = plot_results(folders["ib"], out_dir=tmp_path / "png")
    assert "ccti.png" in [p.name for p in paths] and (tmp_path / "png" / "ccti.png").stat().st_size > 10_000
    r = lnsim.load_results(folders["ib"])
    throttled = sorted({f"{s}→{d}" for s, d in zip(r.ccti["src"], r.ccti["dst"])})
    fig = plt.figure()
    try:
        axes = plot_ccti_flows(r, fig=fig)
        assert len(axes) == len(throttled) >= 2  # a panel per throttled flow
        names = sorted(ax.texts[0].get_text().split(":")[0] for ax in axes)
        assert names == throttled
        assert all("mean" in ax.texts[0].get_text() and "max" in ax.texts[0].get_text() for ax in axes)
        top = int(r.ccti["ccti_max"].max())
        assert any(f"max {top}" in ax.texts[0].get_text() for ax in axes)
    finally:
        plt.close(fig)
    # CC off: no ccti.png
    d = tmp_path / "off"
    shutil.copytree(folders["ib"], d)
    for f in ("ccti.csv", "cc_ports.csv"):
        (d / f).unlink()
    assert "ccti.png" not in [p.name for p in plot_results(d)]


def test_cc_report_has_the_ccti_figure(folders):
    from lnsim.report import report_html

    assert "CCTI of each throttled flow over time, a panel per flow" in report_html(folders["ib"])


# ---------------------------------------------------------------------------------------------
# progress of the Python API's sweeps


@pytest.fixture
def tiny_sweep_scenario(tmp_path) -> Path:
    scen = tmp_path / "tiny_sw.toml"
    scen.write_text(dragonfly_toml(warmup=50, measure=100, head='[scenario]\nname = "tiny_sw"\n')
                    + '\n[sweep]\n"traffic.load" = [0.05, 0.1]\n', encoding="utf-8")
    return scen


@pytest.mark.parametrize(
    "progress, tty, notebook, shown",
    [
        (None, False, False, "nothing"),  # the default: silent when nobody watches
        (None, True, False, "bar"),  # ... a bar in a terminal
        (None, False, True, "bar"),  # ... and in a notebook
        (True, False, False, "lines"),
        (False, True, True, "nothing"),
        ("errors", True, False, "nothing"),
    ],
)
def test_python_sweep_progress(tiny_sweep_scenario, tmp_path, monkeypatch, capfd, progress, tty, notebook, shown):
    from lnsim import _sweep

    monkeypatch.setattr(_sweep, "_stderr_is_tty", lambda: tty)
    monkeypatch.setattr(_sweep, "_in_notebook", lambda: notebook)
    kw = {} if progress is None else {"progress": progress}
    df = lnsim.sweep(tiny_sweep_scenario, out=tmp_path / "out", jobs=1, **kw)
    assert (df["status"] == "ok").all()
    err = capfd.readouterr().err
    if shown == "nothing":
        assert err == ""
    elif shown == "bar":
        assert "sweep" in err and "2/2" in err and "100%" in err  # tqdm
    else:
        assert "[1/2]" in err and "[2/2]" in err and "100%" not in err


def test_python_sweep_progress_rejects_unknown_mode(tiny_sweep_scenario, tmp_path):
    with pytest.raises(lnsim.ScenarioError, match="progress='loud'"):
        lnsim.sweep(tiny_sweep_scenario, out=tmp_path / "out", jobs=1, progress="loud")


# ---------------------------------------------------------------------------------------------
# figures


def _fake_ib(tmp_path):
    from conftest import write_fake_results

    return write_fake_results(tmp_path / "fake")


def test_bandwidth_lines_at_equal_rates_stay_visible(tmp_path):
    """zeru_a-like data: H112, H121 and H111 send at the same rate (and H121 receives at it):
    each line has its own marker and its markers sit at other times than the others'."""
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_bandwidth

    d = _fake_ib(tmp_path)
    fig, ax = plt.subplots()
    try:
        plot_bandwidth(d, ax=ax)
        lines = ax.get_lines() + ax.right_ax.get_lines()
        lines = [l for l in lines if not l.get_label().startswith("_") and l.get_gid() != "warmup"]  # the data
        assert len(lines) >= 5
        assert len({l.get_marker() for l in lines}) == len(lines)  # a marker shape each
        marks = [set(np.asarray(l.get_xdata())[list(l.get_markevery())]) for l in lines]
        for i in range(len(marks)):
            for j in range(i):
                assert not marks[i] & marks[j], "markers of two lines at the same times"
        assert ax.get_ylim() == ax.right_ax.get_ylim()  # one scale for senders and receivers
        assert "equal rates stay visible" in ax.get_legend().get_title().get_text()
    finally:
        plt.close(fig)


def _timeline(tmp_path, change):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_timeline
    from test_load_sweep import write_fake_cycle_results

    d = write_fake_cycle_results(tmp_path / f"cyc{change}", change_cycle=change)  # warm-up: 1000 cycles
    fig = plt.figure(figsize=(10, 8))
    axes = plot_timeline(d, fig=fig)
    fig.tight_layout()
    fig.canvas.draw()
    return fig, axes


def test_timeline_legend_is_off_the_data_and_warmup_line_visible(tmp_path):
    import matplotlib.pyplot as plt

    fig, axes = _timeline(tmp_path, 1000)  # the change at the end of the warm-up (the default)
    try:
        for ax in axes:
            labels = [l.get_label() for l in ax.lines if not l.get_label().startswith("_")]
            assert labels == ["end of warm-up = transient change (cycle 1000)"]
        legend = axes[-1].get_legend()
        box = legend.get_window_extent()
        for ax in axes:  # the legend overlaps no panel
            assert not box.overlaps(ax.get_window_extent())
    finally:
        plt.close(fig)
    fig, axes = _timeline(tmp_path, 1500)
    try:
        ax = axes[0]
        warm = next(l for l in ax.lines if l.get_label().startswith("end of warm-up"))
        change = next(l for l in ax.lines if l.get_label().startswith("transient change"))
        assert warm.get_zorder() > change.get_zorder()  # never hidden under the change line
        assert list(warm.get_xdata()) == [1000, 1000] and list(change.get_xdata()) == [1500, 1500]
    finally:
        plt.close(fig)


def test_latency_histogram_marks_are_inside_the_frame(folders, tmp_path):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_latency_histogram

    d = tmp_path / "ib"
    shutil.copytree(folders["ib"], d)
    s = json.loads((d / "summary.json").read_text())
    s["latency_ns"]["p99"] = s["latency_ns"]["max"]  # as in a full zeru_a run: p99 = max, the last bucket
    (d / "summary.json").write_text(json.dumps(s))
    fig, ax = plt.subplots()
    try:
        plot_latency_histogram(d, ax=ax)
        lo, hi = ax.get_xlim()
        marks = {l.get_label().split()[0]: l.get_xdata()[0] for l in ax.lines}
        assert set(marks) == {"mean", "p50", "p99", "max"}
        assert all(lo < v < hi / 1.2 for v in marks.values())  # clear of the edge
        right = max(p.get_x() + p.get_width() for p in ax.patches)
        assert right < hi  # the last bar too
        assert any(l.get_label().endswith("(= p99)") for l in ax.lines)
    finally:
        plt.close(fig)


def _all_saturated_sweep(d: Path) -> Path:
    d.mkdir()
    rows = ["routing.algorithm,traffic.load,point,status,error,seed,offered_load,accepted_load,"
            "latency_cycles.mean,saturated,routing"]
    for routing, cap in (("min", 0.5), ("vlb", 0.05), ("ugal", 0.25)):
        for load in (0.1, 0.2, 0.3, 0.4):
            rows.append(f"{routing},{load},routing.algorithm={routing}__traffic.load={load},ok,,1,{load},"
                        f"{min(load, cap)},{200 / max(1 - load / cap, 0.05)},{load >= cap},{routing}")
    (d / "sweep.csv").write_text("\n".join(rows) + "\n")
    return d


def test_load_latency_keeps_an_entry_for_an_all_saturated_line(tmp_path):
    import matplotlib.pyplot as plt

    from lnsim.plot import plot_load_latency, plot_load_throughput

    d = _all_saturated_sweep(tmp_path / "sw")
    fig, (a, b) = plt.subplots(1, 2)
    try:
        plot_load_latency(d, ax=a)
        labels = [t.get_text() for t in a.get_legend().get_texts()]
        assert "vlb: all 4 points saturated (left out)" in labels
        assert "ugal (2 saturated points left out)" in labels and "min" in labels
        plot_load_throughput(d, ax=b)
        color = {l.get_gid().split(":", 1)[1]: l.get_color() for l in a.lines + b.lines if l.get_gid()}
        for name in ("min", "vlb", "ugal"):  # each line keeps its colour in both figures
            ca = [l.get_color() for l in a.lines if (l.get_gid() or "").endswith(f":{name}")]
            cb = [l.get_color() for l in b.lines if l.get_gid() == f"curve:{name}"]
            assert ca == cb == [color[name]]
    finally:
        plt.close(fig)


def test_integer_heatmap_cells_have_no_decimals():
    import matplotlib.pyplot as plt
    import pandas as pd

    from lnsim.plot import plot_sweep

    df = pd.DataFrame({"cc.ccti_timer": ["20us", "20us", "250us", "250us"], "cc.marking_rate": [1, 10, 1, 10],
                       "point": list("abcd"), "status": "ok", "cc.max_ccti": [128, 99, 128, 128],
                       "fairness.jain": [0.5, 0.25, 0.125, 1.0]})
    fig, (a, b) = plt.subplots(1, 2)
    try:
        plot_sweep(df, metric="cc.max_ccti", ax=a)
        assert sorted(t.get_text() for t in a.texts) == ["128", "128", "128", "99"]
        plot_sweep(df, metric="fairness.jain", ax=b)
        assert "0.50" in [t.get_text() for t in b.texts]
    finally:
        plt.close(fig)
