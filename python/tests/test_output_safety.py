"""Output safety: lnsim never loses a user's files, refuses output paths it cannot or must not
write (exit 2, nothing left behind), finishes its work when the reader of its output goes away,
and writes the partial results of an interrupted run, marked incomplete."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, ZERU_A, dragonfly_toml, lnsim_cmd, short, write_fake_results

#: A user's folder: files lnsim did not write.
USER_FILES = {"thesis.tex": "precious", "data/raw.csv": "1,2,3\n"}

#: A path no process can create a folder in, root included.
UNWRITABLE = Path("/proc/lnsim-unwritable-out")


def user_folder(d: Path) -> Path:
    for name, text in USER_FILES.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)
    return d


def assert_intact(d: Path) -> None:
    for name, text in USER_FILES.items():
        assert (d / name).read_text() == text, f"{d / name} was changed or deleted"


def no_temporaries(d: Path) -> None:
    left = [p.name for p in d.iterdir() if ".tmp" in p.name or ".old-" in p.name or "probe" in p.name]
    assert not left, f"left behind in {d}: {left}"


def marker(d: Path) -> dict:
    return json.loads((d / ".lnsim").read_text())


def cli(capsys, *args):
    """``lnsim ARGS`` in this process (cheaper than a subprocess for refusals): ``(status,
    stdout, stderr)``."""
    from lnsim import cli as lnsim_cli

    status = lnsim_cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def run_short(*args, cwd=None):
    return lnsim_cmd("run", ZERU_A, *short("0.005s", "0.002s"), "--no-plot", *args, cwd=cwd)


def cycle_scenario(d: Path, measure: int = 300, name: str = "df.toml", **kw) -> Path:
    p = d / name
    p.write_text(dragonfly_toml(warmup=100, measure=measure, **kw))
    return p


# ---------------------------------------------------------------------------------------------
# lnsim only replaces folders it wrote


def test_run_refuses_a_folder_of_user_files(tmp_path):
    out = user_folder(tmp_path / "mine")
    proc = run_short("--out", out)
    assert proc.returncode == 2, proc.stderr
    assert "did not write" in proc.stderr and "choose another --out" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert_intact(out)
    no_temporaries(tmp_path)


@pytest.mark.parametrize("model", ["credit", "cycle"])
def test_run_into_absent_empty_and_own_folders(tmp_path, model):
    scen = ZERU_A if model == "credit" else cycle_scenario(tmp_path)
    extra = short("0.005s", "0.002s") if model == "credit" else []
    out = tmp_path / "out"
    out.mkdir()  # empty: fine
    for _ in range(2):  # the second run replaces the folder the first wrote
        proc = lnsim_cmd("run", scen, *extra, "--no-plot", "--out", out)
        assert proc.returncode == 0, proc.stderr
        m = marker(out)
        assert m["written_by"] == "lnsim" and m["kind"] == "results" and m["complete"] is True
        assert json.loads((out / "summary.json").read_text())["complete"] is True
    no_temporaries(tmp_path)


def test_run_out_dot_and_parents_of_the_current_folder_are_refused(tmp_path, monkeypatch, capsys):
    work = user_folder(tmp_path / "work")
    scen = work / "s.toml"
    scen.write_text(ZERU_A.read_text())
    sub = work / "sub"
    sub.mkdir()
    for out, cwd in ((".", work), ("..", sub), (str(work), work), (str(tmp_path), sub)):
        monkeypatch.chdir(cwd)
        status, _, err = cli(capsys, "run", scen, *short("0.005s", "0.002s"), "--no-plot", "--out", out)
        assert status == 2, (out, err)
        assert "current folder" in err, err
    assert_intact(work)
    assert scen.is_file() and sub.is_dir()


def test_run_never_replaces_the_scenario_folder_even_if_lnsim_wrote_it(tmp_path):
    # results/x/scenario.toml run again into results/x: the scenario would go with it
    out = tmp_path / "x"
    assert run_short("--out", out).returncode == 0
    scen = out / "scenario.toml"
    proc = lnsim_cmd("run", scen, "--no-plot", "--out", out, cwd=REPO)
    assert proc.returncode == 2, proc.stderr
    assert "scenario file's folder" in proc.stderr
    assert scen.is_file()


@pytest.mark.parametrize("name", ["..", "../../x", ".", "a/b", ""])
def test_scenario_name_that_is_not_one_folder_is_refused(tmp_path, name, monkeypatch, capsys):
    work = user_folder(tmp_path / "a" / "b" / "work")
    monkeypatch.chdir(work)
    for sub in ("run", "validate", "sweep"):
        args = [sub, ZERU_A, "--set", f'scenario.name="{name}"']
        if sub == "sweep":
            args += ["--grid", "sim.seed=1,2"]
        if sub != "validate":
            args += short("0.005s", "0.002s")
        status, _, err = cli(capsys, *args)
        assert status == 2, (sub, err)
        assert "scenario.name" in err and "results/<name>/" in err, err
    assert_intact(work)
    assert sorted(p.name for p in work.iterdir()) == ["data", "thesis.tex"]


def test_sweep_refuses_user_folders_and_keeps_its_own(tmp_path):
    args = ["sweep", ZERU_A, *short("0.005s", "0.002s"), "--grid", "sim.seed=1,2", "--jobs", "1", "--no-plot"]
    mine = user_folder(tmp_path / "mine")
    proc = lnsim_cmd(*args, "--out", mine)
    assert proc.returncode == 2, proc.stderr
    assert "did not write" in proc.stderr
    assert_intact(mine)
    assert not (mine / "points").exists() and not (mine / "store.sqlite").exists()

    out = tmp_path / "sw"
    proc = lnsim_cmd(*args, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert marker(out)["kind"] == "sweep"
    assert marker(out / "points" / "sim.seed=1")["kind"] == "results"
    # a folder of the user's inside the sweep folder is left alone by a new sweep
    keep = user_folder(out / "points" / "notes")
    # a point folder holding user files is refused, not replaced
    point2 = out / "points" / "sim.seed=2"
    (point2 / ".lnsim").unlink()
    (point2 / "notes.txt").write_text("mine")
    proc = lnsim_cmd(*args, "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert "sim.seed=2" in proc.stderr
    assert (point2 / "summary.json").is_file() and (point2 / "notes.txt").read_text() == "mine"
    # without them it holds only what lnsim writes (as an lnsim without markers left it): replaced
    (point2 / "notes.txt").unlink()
    proc = lnsim_cmd(*args, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert_intact(keep)
    assert len(pd.read_csv(out / "sweep.csv")) == 2 and marker(point2)["kind"] == "results"
    # a results folder is not a sweep folder
    run_dir = tmp_path / "run"
    assert run_short("--out", run_dir).returncode == 0
    proc = lnsim_cmd(*args, "--out", run_dir)
    assert proc.returncode == 2 and "holds the results of one lnsim run" in proc.stderr, proc.stderr
    proc = lnsim_cmd(*args, "--out", ".", cwd=tmp_path)
    assert proc.returncode == 2 and "current folder" in proc.stderr, proc.stderr


def test_plot_out_refuses_user_folders(tmp_path, fake_results):
    mine = user_folder(tmp_path / "mine")
    proc = lnsim_cmd("plot", fake_results, "--out", mine)
    assert proc.returncode == 2, proc.stderr
    assert "did not write" in proc.stderr
    assert_intact(mine)
    assert not list(mine.glob("*.png"))
    # a new folder is made and marked
    figs = tmp_path / "figs"
    proc = lnsim_cmd("plot", fake_results, "--out", figs)
    assert proc.returncode == 0, proc.stderr
    assert marker(figs)["kind"] == "figures" and (figs / "bandwidth.png").is_file()
    # a folder lnsim wrote, and the results folder itself (written by lnsim; here a fake one
    # without a marker) are fine
    from lnsim._outdir import check_folder

    check_folder(figs, allow=[fake_results])
    check_folder(fake_results, allow=[fake_results])


def test_report_out_never_overwrites_a_file_lnsim_did_not_write(tmp_path):
    fake_results = write_fake_results(tmp_path / "fake", end=0.05, buffers=False)
    mine = tmp_path / "notes.html"
    mine.write_text("<html>my notes</html>")
    proc = lnsim_cmd("report", fake_results, "--out", mine)
    assert proc.returncode == 2, proc.stderr
    assert "not written by lnsim report" in proc.stderr
    assert mine.read_text() == "<html>my notes</html>"
    page = tmp_path / "r.html"  # an lnsim report (recognised by its generator tag) is replaced
    page.write_text('<!DOCTYPE html>\n<html><head><meta name="generator" content="lnsim report">OLD-PAGE</head></html>')
    proc = lnsim_cmd("report", fake_results, "--out", page)
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert '<meta name="generator" content="lnsim report">' in html and "OLD-PAGE" not in html
    assert 'class="incomplete"' not in html  # a complete run has no "incomplete" banner
    # the default target, RESULTS_DIR/report.html, follows the same rule
    (fake_results / "report.html").write_text("mine")
    proc = lnsim_cmd("report", fake_results)
    assert proc.returncode == 2, proc.stderr
    assert (fake_results / "report.html").read_text() == "mine"
    no_temporaries(tmp_path)
    no_temporaries(fake_results)


# ---------------------------------------------------------------------------------------------
# a file, a path under a file, an unwritable place


def bad_paths(tmp_path: Path):
    f = tmp_path / "file.txt"
    f.write_text("keep")
    return [(f, "is a file"), (f / "sub" / "out", "which is a file"), (UNWRITABLE, "cannot write")]


@pytest.mark.parametrize("model", ["credit", "cycle"])
def test_run_out_that_is_a_file_under_a_file_or_unwritable(tmp_path, model):
    scen = ZERU_A if model == "credit" else cycle_scenario(tmp_path)
    extra = short("0.005s", "0.002s") if model == "credit" else []
    for out, why in bad_paths(tmp_path):
        proc = lnsim_cmd("run", scen, *extra, "--no-plot", "--out", out)
        assert proc.returncode == 2, (out, proc.stderr)
        assert why in proc.stderr and str(out) in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert (tmp_path / "file.txt").read_text() == "keep"
    no_temporaries(tmp_path)


def test_sweep_plot_report_out_that_is_a_file_under_a_file_or_unwritable(tmp_path, fake_results, capsys):
    for out, why in bad_paths(tmp_path):
        status, _, err = cli(capsys, "sweep", ZERU_A, *short("0.005s", "0.002s"), "--grid", "sim.seed=1,2",
                             "--out", out)
        assert status == 2 and why in err, (out, err)
        status, _, err = cli(capsys, "plot", fake_results, "--out", out)
        assert status == 2 and why in err, (out, err)
        if why != "is a file":  # an existing file is the report's own case (above)
            status, _, err = cli(capsys, "report", fake_results, "--out",
                                 out / "r.html" if why == "cannot write" else out)
            assert status == 2 and why in err, (out, err)
    assert (tmp_path / "file.txt").read_text() == "keep"
    no_temporaries(tmp_path)


def _readonly_mount(tmp_path: Path):
    """A read-only tmpfs at tmp_path/ro, or None when this machine cannot mount one."""
    ro = tmp_path / "ro"
    ro.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(ro)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return None
    return ro


def test_run_out_on_a_read_only_file_system(tmp_path):
    ro = _readonly_mount(tmp_path)
    if ro is None:
        pytest.skip("cannot mount a read-only tmpfs here (needs CAP_SYS_ADMIN); the /proc case above "
                    "covers an unwritable place")
    try:
        proc = run_short("--out", ro / "out")
        assert proc.returncode == 2, proc.stderr
        assert "cannot write" in proc.stderr and "Read-only" in proc.stderr, proc.stderr
    finally:
        subprocess.run(["umount", str(ro)])


# ---------------------------------------------------------------------------------------------
# a reader that goes away does not stop the work


def _closed_early(cmd, cwd, lines: int, stream: str):
    """Runs ``cmd`` with ``stream`` (stdout or stderr; both for "both") into a pipe whose reader
    reads ``lines`` lines and then closes it; returns the exit status."""
    both = stream == "both"
    p = subprocess.Popen(
        cmd, cwd=cwd,
        stdout=subprocess.PIPE if stream in ("stdout", "both") else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if both else (subprocess.PIPE if stream == "stderr" else subprocess.DEVNULL),
    )
    pipe = p.stdout if stream in ("stdout", "both") else p.stderr
    for _ in range(lines):
        pipe.readline()
    pipe.close()
    return p.wait(timeout=600)


def test_run_finishes_when_its_reader_goes_away(tmp_path):
    # `lnsim run ... | head -1`
    out = tmp_path / "r"
    cmd = [sys.executable, "-m", "lnsim", "run", str(ZERU_A), *short("0.005s", "0.002s"), "--out", str(out)]
    rc = _closed_early(cmd, tmp_path, 1, "stdout")
    assert rc == 0
    for f in ("summary.json", "bandwidth.png", "throughput.png", "latency_hist.png"):
        assert (out / f).is_file(), f


@pytest.mark.parametrize("stream", ["stdout", "both"])
def test_sweep_finishes_when_its_reader_goes_away(tmp_path, stream):
    # `lnsim sweep ... | head -2` and `lnsim sweep ... 2>&1 | head -2` (progress lines on stderr)
    scen = cycle_scenario(tmp_path, measure=200)
    out = tmp_path / "sw"
    loads = ",".join(f"{x / 100:g}" for x in range(1, 9))
    cmd = [sys.executable, "-m", "lnsim", "sweep", str(scen), "--grid", f"traffic.load={loads}", "--jobs", "2",
           "--out", str(out)]
    rc = _closed_early(cmd, tmp_path, 2, stream)
    assert rc == 0
    df = pd.read_csv(out / "sweep.csv")
    assert len(df) == 8 and (df["status"] == "ok").all()
    assert (out / "load_latency.png").is_file()


# ---------------------------------------------------------------------------------------------
# an interrupted run writes its partial results, marked incomplete


def _start(cmd, cwd):
    # Ctrl-C as at a terminal: a suite started in the background by a shell without job control
    # inherits SIGINT ignored, and a program started so rightly keeps ignoring it
    return subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _interrupt(p, sig=signal.SIGINT, after: float = 3.0):
    try:
        time.sleep(after)  # well past start-up: the core is simulating
        assert p.poll() is None, p.communicate()
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    return p.returncode, out, err


LONG_IB = ["--set", "sim.end_time=100s"]


@pytest.fixture(scope="module")
def interrupted_ib(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("int_ib")
    out = tmp / "r"
    p = _start([sys.executable, "-m", "lnsim", "run", str(ZERU_A), *LONG_IB, "--out", str(out)], tmp)
    rc, stdout, err = _interrupt(p)
    return out, rc, stdout, err


@pytest.fixture(scope="module")
def interrupted_cycle(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("int_cycle")
    scen = cycle_scenario(tmp, measure=10**9)
    out = tmp / "r"
    p = _start([sys.executable, "-m", "lnsim", "run", str(scen), "--out", str(out)], tmp)
    rc, stdout, err = _interrupt(p)
    return out, rc, stdout, err


def test_ctrl_c_writes_partial_credit_level_results(interrupted_ib):
    out, rc, stdout, err = interrupted_ib
    assert rc == 130, err
    assert "interrupted" in err and str(out) in err and "incomplete" in err, err
    s = json.loads((out / "summary.json").read_text())
    assert s["complete"] is False and s["stop_reason"] == "interrupted"
    assert 0 < s["sim_time_s"] < 100 and s["planned_sim_time_s"] == 100
    assert s["conservation"]["ok"] is True and s["conservation"]["delivered_packets"] > 0
    m = marker(out)
    assert m["complete"] is False and m["stop_reason"] == "interrupted"
    nodes = pd.read_csv(out / "nodes.csv")
    assert nodes["t_start_s"].max() <= s["sim_time_s"]
    assert "INCOMPLETE" in stdout
    no_temporaries(out.parent)


def test_ctrl_c_writes_partial_cycle_results(interrupted_cycle):
    out, rc, _, err = interrupted_cycle
    assert rc == 130, err
    assert "interrupted" in err and str(out) in err, err
    s = json.loads((out / "summary.json").read_text())
    assert s["complete"] is False and s["stop_reason"] == "interrupted"
    assert 100 < s["simulated_cycles"] < s["planned_cycles"] == 100 + 10**9
    assert s["conservation"]["ok"] is True and s["packets"]["delivered"] > 0
    assert marker(out)["complete"] is False
    bins = pd.read_csv(out / "bins.csv")
    assert bins["end_cycle"].max() <= s["simulated_cycles"]


def test_sigterm_writes_partial_results_too(tmp_path):
    out = tmp_path / "r"
    p = _start([sys.executable, "-m", "lnsim", "run", str(ZERU_A), *LONG_IB, "--out", str(out), "--no-plot"],
               tmp_path)
    rc, _, err = _interrupt(p, signal.SIGTERM)
    assert rc == 130, err
    assert json.loads((out / "summary.json").read_text())["complete"] is False


def test_report_and_plot_show_an_incomplete_folder(interrupted_ib, interrupted_cycle, tmp_path):
    from lnsim.plot import incomplete_note

    ib, cycle = interrupted_ib[0], interrupted_cycle[0]
    page = tmp_path / "ib.html"
    proc = lnsim_cmd("report", ib, "--out", page)
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert 'class="incomplete"' in html and "INCOMPLETE" in html and "interrupted" in html
    proc = lnsim_cmd("plot", cycle, "--out", tmp_path / "png")
    assert proc.returncode == 0, proc.stderr
    assert "incomplete" in proc.stderr, proc.stderr
    # the figures' red title line, for either model
    for d in (ib, cycle):
        note = incomplete_note(json.loads((d / "summary.json").read_text()))
        assert note and note.startswith("INCOMPLETE RUN (interrupted)"), note


API_SCRIPT = r"""
import json, sys, threading, time, _thread
import lnsim
threading.Timer(2.5, _thread.interrupt_main).start()
try:
    lnsim.run(sys.argv[1], overrides=["sim.end_time=100s"], out=sys.argv[2])
except KeyboardInterrupt as e:
    r = e.result
    print(json.dumps({"out_dir": str(r.out_dir), "complete": r.summary["complete"],
                      "same": r.summary == json.load(open(sys.argv[2] + "/summary.json"))}))
    sys.exit(0)
print("lnsim.run returned without KeyboardInterrupt", file=sys.stderr)
sys.exit(1)
"""


def test_python_api_keyboard_interrupt_keeps_the_partial_folder(tmp_path):
    out = tmp_path / "api"
    # SIGINT back to its default in the child, as _start does: a suite started in the background
    # by a shell without job control inherits SIGINT ignored, and a Python started so installs
    # no KeyboardInterrupt handler, so interrupt_main() would do nothing
    proc = subprocess.run([sys.executable, "-c", API_SCRIPT, str(ZERU_A), str(out)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got == {"out_dir": str(out), "complete": False, "same": True}


def test_interrupted_sweep_keeps_finished_runs_and_records_no_partial_one(tmp_path):
    scen = tmp_path / "sw.toml"
    scen.write_text(ZERU_A.read_text())
    out = tmp_path / "sw"
    # the first point ends at once, the second runs until interrupted
    cmd = [sys.executable, "-m", "lnsim", "sweep", str(scen), "--set", "sim.warmup=0.001s",
           "--grid", "sim.end_time=0.002s,100s", "--jobs", "1", "--no-plot", "--out", str(out)]
    p = _start(cmd, tmp_path)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = p.stderr.readline()
            if line.startswith("[1/2]") or not line:
                break
        time.sleep(1.5)
        assert p.poll() is None
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 130, err
    import lnsim

    store = lnsim.read_store(out)
    assert list(store["point"]) == ["sim.end_time=0.002s"] and list(store["status"]) == ["ok"]
    assert (out / "points" / "sim.end_time=0.002s" / "summary.json").is_file()
    assert not (out / "points" / "sim.end_time=100s").exists()
    assert not (out / "sweep.csv").exists()
