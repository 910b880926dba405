"""Output folders: what may replace or write into a folder lnsim wrote (the marker's ``kind``),
results folders holding files lnsim did not write (refused, naming them), the exact list of what
lnsim wrote (the marker's ``files``), bench folders, and a sweep's staging folder."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import uuid
from pathlib import Path

import pytest

from conftest import SCENARIOS, ZERU_A, lnsim_cmd, short, write_fake_results

SHORT = short("0.005s", "0.002s")


def cli(capsys, *args):
    """``lnsim ARGS`` in this process: ``(status, stdout, stderr)``."""
    from lnsim import cli as lnsim_cli

    status = lnsim_cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def tree(d: Path) -> dict:
    """Everything under ``d``: relative path -> file bytes, ``"<dir>"`` or ``"-> target"``."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = Path(root) / name
            rel = p.relative_to(d).as_posix()
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_dir():
                out[rel] = "<dir>"
            else:
                out[rel] = p.read_bytes()
    return out


def marker(d: Path) -> dict:
    return json.loads((d / ".lnsim").read_text())


def no_temporaries(d: Path) -> None:
    left = [p.name for p in d.iterdir() if ".tmp" in p.name or ".old-" in p.name or "probe" in p.name]
    assert not left, f"left behind in {d}: {left}"


# ---------------------------------------------------------------------------------------------
# what may replace or write into a folder of each kind


#: What each kind of folder holds, as a refusal says it.
HOLDS = {
    "results": "holds the results of one lnsim run",
    "sweep": "holds an lnsim sweep (points/, sweep.csv, store.sqlite)",
    "figures": "holds lnsim figures",
    "bench": "holds an lnsim bench",
}
#: The folder each command writes, and the kind it may write into.
WRITERS = {"run": "results", "sweep": "sweep", "bench": "bench", "plot": "figures"}
#: The run folder of a sweep (two seeds per point: points/<point>/seed-<s>/).
RUN_IN_SWEEP = "sweep/points/sim.warmup=0.002s/seed-1"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """One folder of each kind, written by lnsim: copied by each test before use."""
    from lnsim import cli as lnsim_cli

    d = tmp_path_factory.mktemp("kinds")
    for args in (
        ["run", ZERU_A, *SHORT, "--no-plot", "--out", d / "results"],
        ["sweep", ZERU_A, "--set", "sim.end_time=0.005s", "--grid", "sim.warmup=0.002s", "--seeds", "2",
         "--seed", "1", "--jobs", "1", "--no-plot", "--no-progress", "--out", d / "sweep"],
        ["plot", write_fake_results(d / "src", end=0.05, buffers=False), "--out", d / "figures"],
        ["bench", "--quick", "--case", "c4", "--out", d / "bench"],
    ):
        assert lnsim_cli.main([str(a) for a in args]) == 0, args
    return d


def write(capsys, writer: str, out: Path, tmp: Path):
    if writer == "run":
        return cli(capsys, "run", ZERU_A, *SHORT, "--no-plot", "--out", out)
    if writer == "sweep":
        return cli(capsys, "sweep", ZERU_A, *SHORT, "--grid", "sim.seed=1", "--jobs", "1", "--no-plot",
                   "--no-progress", "--out", out)
    if writer == "bench":
        return cli(capsys, "bench", "--quick", "--case", "c4", "--out", out)
    src = tmp / "plotted"
    if not src.exists():
        write_fake_results(src, end=0.05, buffers=False)
    return cli(capsys, "plot", src, "--out", out)


@pytest.mark.parametrize("target", [*HOLDS, "run_in_sweep"])
@pytest.mark.parametrize("writer", WRITERS)
def test_each_command_writes_only_into_a_folder_of_its_own_kind(folders, tmp_path, capsys, monkeypatch,
                                                                 writer, target):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(folders / ("sweep" if target == "run_in_sweep" else target), tmp_path / "sweep"
                    if target == "run_in_sweep" else tmp_path / target, symlinks=True)
    out = tmp_path / (RUN_IN_SWEEP if target == "run_in_sweep" else target)
    root = tmp_path / ("sweep" if target == "run_in_sweep" else target)
    before = tree(root)
    status, _, err = write(capsys, writer, out, tmp_path)
    if WRITERS[writer] == target:
        assert status == 0, err
        assert marker(out)["kind"] == target
        return
    assert status == 2, err
    if writer == "run" and target == "run_in_sweep":
        assert f"lies inside the lnsim sweep folder {tmp_path / 'sweep'}" in err, err
    else:
        assert HOLDS["results" if target == "run_in_sweep" else target] in err, err
    assert "Traceback" not in err and "choose another --out" in err, err
    assert tree(root) == before, "a refused command changed the folder"
    no_temporaries(out.parent)


def test_run_onto_a_sweep_folder_is_refused_and_touches_nothing(folders, tmp_path):
    out = tmp_path / "X"
    shutil.copytree(folders / "sweep", out, symlinks=True)
    (out / "notes.txt").write_text("notes\n")
    before = tree(out)
    proc = lnsim_cmd("run", ZERU_A, *SHORT, "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert HOLDS["sweep"] in proc.stderr and "Traceback" not in proc.stderr
    assert tree(out) == before
    # the Python API refuses it too (the core checks the folder it replaces)
    import lnsim

    with pytest.raises(lnsim.ScenarioError, match=r"holds an lnsim sweep"):
        lnsim.run(ZERU_A, overrides=SHORT[1::2], out=out)
    assert tree(out) == before


# ---------------------------------------------------------------------------------------------
# a results folder holding entries lnsim did not write


def test_rerun_refuses_a_results_folder_holding_user_entries(folders, tmp_path, capsys):
    out = tmp_path / "r"
    shutil.copytree(folders / "results", out, symlinks=True)
    (out / "notes.txt").write_text("mine")
    (out / "sub").mkdir()
    (out / "sub" / "a.txt").write_text("mine too")
    before = tree(out)
    status, _, err = cli(capsys, "run", ZERU_A, *SHORT, "--no-plot", "--out", out)
    assert status == 2, err
    assert "notes.txt, sub/" in err and "lnsim did not write" in err and "move them out" in err, err
    assert tree(out) == before
    no_temporaries(tmp_path)
    for k in range(7):  # a long list is cut short
        (out / f"extra{k}.txt").write_text("x")
    status, _, err = cli(capsys, "run", ZERU_A, *SHORT, "--no-plot", "--out", out)
    assert status == 2 and "and 4 more" in err, err
    for p in [out / "notes.txt", *out.glob("extra*.txt")]:
        p.unlink()
    shutil.rmtree(out / "sub")
    status, _, err = cli(capsys, "run", ZERU_A, *SHORT, "--no-plot", "--out", out)
    assert status == 0, err


#: Runs whose models and options write extra files: (name, scenario, overrides).
KINDS_OF_RUN = [
    ("cc", ZERU_A, ["cc.enabled=true", "sim.end_time=0.02s", "sim.warmup=0.01s"]),
    ("drb", SCENARIOS / "drb" / "mesh4x8_shuffle.toml",
     ["sim.end_time=1ms", "sim.warmup=0.5ms", "stats.links=true", "stats.buffer_occupancy=true"]),
    ("ib_s1", SCENARIOS / "drb" / "mesh4x8_shuffle.toml", ["sim.end_time=1ms", "sim.warmup=0.5ms", "cc.mechanism=ib_s1"]),
    ("hol_ddbbm", SCENARIOS / "hol" / "bmin64_3b.toml", ["sim.end_time=0.05ms", "sim.warmup=0.02ms", "sim.interval=10us"]),
    ("acor_group_counters", None, []),
]

ACOR = ('[sim]\nwarmup_cycles = 100\nmeasure_cycles = 200\n[topology]\nkind = "dragonfly"\np = 2\n'
        '[routing]\nalgorithm = "acor"\n[traffic]\npattern = "uniform"\nload = 0.1\n'
        '[stats]\ngroup_counters = true\n')


@pytest.mark.parametrize("name,scenario,overrides", KINDS_OF_RUN, ids=[k[0] for k in KINDS_OF_RUN])
def test_nothing_lnsim_wrote_is_taken_for_a_user_file(tmp_path, capsys, name, scenario, overrides):
    from lnsim.report import write_report

    if scenario is None:
        scenario = tmp_path / "acor.toml"
        scenario.write_text(ACOR)
    out, old = tmp_path / "r", tmp_path / "old"
    sets = [a for o in overrides for a in ("--set", o)]
    status, _, err = cli(capsys, "run", scenario, *sets, "--out", out)
    assert status == 0, err
    if name == "cc":  # one report suffices: it is the same page writer for every kind of run
        write_report(out)
        assert (out / "report.html").is_file()
    written = {p.name for p in out.iterdir()} - {".lnsim"}
    assert "summary.json" in written and any(n.endswith(".png") for n in written)
    assert sorted(marker(out)["files"]) == sorted(written), "the marker lists exactly what lnsim wrote"
    # the same folder as an lnsim whose markers listed no files wrote it: judged by the names
    # lnsim writes into a results folder
    shutil.copytree(out, old)
    m = marker(old)
    del m["files"]
    (old / ".lnsim").write_text(json.dumps(m))
    for d in (out, old):
        status, _, err = cli(capsys, "run", scenario, *sets, "--no-plot", "--out", d)
        assert status == 0, err
        assert sorted(marker(d)["files"]) == sorted(p.name for p in d.iterdir() if p.name != ".lnsim")


def test_plot_never_overwrites_a_figure_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "r"
    assert cli(capsys, "run", ZERU_A, *short("0.02s", "0.01s"), "--no-plot", "--out", out)[0] == 0
    mine = out / "bandwidth.png"
    mine.write_bytes(b"my own figure")
    status, _, err = cli(capsys, "plot", out)
    assert status == 2, err
    assert "bandwidth.png" in err and "lnsim did not write" in err, err
    assert mine.read_bytes() == b"my own figure"
    mine.unlink()
    assert cli(capsys, "plot", out)[0] == 0
    # a figure lnsim wrote that became a symbolic link: the link is replaced, never followed
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_bytes(b"keep")
    mine.unlink()
    mine.symlink_to(elsewhere)
    status, _, err = cli(capsys, "plot", out)
    assert status == 0, err
    assert elsewhere.read_bytes() == b"keep" and not mine.is_symlink()
    no_temporaries(out)


# ---------------------------------------------------------------------------------------------
# sweep folders: updated in place; their run folders follow the results-folder rule


SWEEP2 = ["sweep", ZERU_A, *SHORT, "--grid", "sim.seed=1,2", "--jobs", "1", "--no-plot", "--no-progress"]


def test_sweep_checks_every_run_folder_before_running_any(folders, tmp_path, capsys):
    out = tmp_path / "sw"
    shutil.copytree(folders / "sweep", out, symlinks=True)
    args = ["sweep", ZERU_A, "--set", "sim.end_time=0.005s", "--grid", "sim.warmup=0.002s", "--seeds", "2",
            "--seed", "1", "--jobs", "1", "--no-plot", "--no-progress", "--out", out]
    (out / "points" / "sim.warmup=0.002s" / "seed-2" / "notes.txt").write_text("mine")
    import lnsim

    records = lnsim.read_store(out)
    before = tree(out)
    status, _, err = cli(capsys, *args)
    assert status == 2, err
    assert "seed 2" in err and "notes.txt" in err and "move them out" in err, err
    # nothing runs, nothing changes (but the lock the sweep took, and the store it read)
    bookkeeping = (".lnsim-lock", "store.sqlite", "store.sqlite-wal", "store.sqlite-shm")
    assert {k: v for k, v in tree(out).items() if k not in bookkeeping} == \
        {k: v for k, v in before.items() if k not in bookkeeping}
    assert lnsim.read_store(out).equals(records)
    (out / "points" / "sim.warmup=0.002s" / "seed-2" / "notes.txt").unlink()
    status, _, err = cli(capsys, *args)
    assert status == 0, err


def test_a_fresh_sweep_keeps_what_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "sw"
    assert cli(capsys, *SWEEP2, "--out", out)[0] == 0
    (out / "notes.txt").write_text("mine")
    (out / "sub").mkdir()
    (out / "sub" / "a.txt").write_text("mine too")
    (out / "points" / "mine.txt").write_text("mine")
    (out / ".staging").mkdir(exist_ok=True)
    (out / ".staging" / "mine.txt").write_text("mine")
    status, _, err = cli(capsys, *SWEEP2, "--out", out)
    assert status == 0, err
    assert (out / "notes.txt").read_text() == "mine" and (out / "sub" / "a.txt").read_text() == "mine too"
    assert (out / "points" / "mine.txt").read_text() == "mine"
    assert (out / ".staging" / "mine.txt").read_text() == "mine"
    assert [p.name for p in (out / ".staging").iterdir()] == ["mine.txt"]


def test_a_completed_sweep_leaves_no_staging_folder(tmp_path, capsys):
    out = tmp_path / "sw"
    status, _, err = cli(capsys, *SWEEP2, "--out", out)
    assert status == 0, err
    assert not (out / ".staging").exists()
    # what a sweep killed while writing a run leaves in it: gone once a resumed sweep ends
    staging = out / ".staging"
    half = staging / uuid.uuid4().hex
    half.mkdir(parents=True)
    (half / "summary.json").write_text("{}")
    (staging / f"old-{uuid.uuid4().hex}").mkdir()
    shutil.rmtree(out / "points" / "sim.seed=2")  # a run to do again
    status, _, err = cli(capsys, *SWEEP2, "--resume", "--out", out)
    assert status == 0, err
    assert (out / "points" / "sim.seed=2" / "summary.json").is_file()
    assert not staging.exists()


@pytest.mark.parametrize("entry", [".lnsim-lock", "store.sqlite", "sweep.csv"])
def test_a_sweep_never_writes_through_a_link_in_its_folder(tmp_path, capsys, entry):
    out = tmp_path / "sw"
    assert cli(capsys, *SWEEP2, "--out", out)[0] == 0
    mine = tmp_path / "mine.sqlite"  # a database of the user's (any file would do but for the store)
    db = sqlite3.connect(mine)
    db.execute("CREATE TABLE mine (x)")
    db.close()
    precious = mine.read_bytes()
    (out / entry).unlink()
    (out / entry).symlink_to(mine)
    status, _, err = cli(capsys, *SWEEP2, "--out", out)
    assert status == 2, err
    assert entry in err and "Traceback" not in err, err
    assert mine.read_bytes() == precious and (out / entry).is_symlink()


# ---------------------------------------------------------------------------------------------
# bench folders


BENCH = ["bench", "--quick", "--case", "c4"]


def test_bench_out_that_is_not_a_bench_folder_is_refused(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("mine")
    status, _, err = cli(capsys, *BENCH, "--out", f)
    assert status == 2 and "is a file" in err and "Traceback" not in err, err
    assert f.read_text() == "mine"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "bench.json").write_text("my own\n")
    status, _, err = cli(capsys, *BENCH, "--out", mine)
    assert status == 2 and "did not write" in err, err
    assert tree(mine) == {"bench.json": b"my own\n"}


def test_bench_replaces_only_its_own_files(folders, tmp_path, capsys):
    out = tmp_path / "b"
    shutil.copytree(folders / "bench", out, symlinks=True)
    assert marker(out)["kind"] == "bench"
    (out / "notes.txt").write_text("mine")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("keep")
    (out / "bench.json").unlink()
    (out / "bench.json").symlink_to(elsewhere)
    status, _, err = cli(capsys, *BENCH, "--out", out)
    assert status == 0, err
    assert elsewhere.read_text() == "keep", "bench.json was written through a symbolic link"
    assert not (out / "bench.json").is_symlink() and json.loads((out / "bench.json").read_text())["quick"]
    assert (out / "notes.txt").read_text() == "mine"
    no_temporaries(out)
    # a case's results folder follows the results-folder rule, checked before any case runs
    (out / "c4" / "notes.txt").write_text("mine")
    before = tree(out)
    status, _, err = cli(capsys, *BENCH, "--out", out)
    assert status == 2 and "notes.txt" in err and "c4" in err, err
    assert tree(out) == before

