"""The layering of docs/architecture.md holds (scripts/structure_check.py), and the check finds
the faults it is meant to find when they are planted in a copy of the sources."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "structure_check.py"


def check(*args):
    return subprocess.run([sys.executable, str(CHECK), *args], capture_output=True, text=True)


def test_the_repository_has_no_upward_import_and_no_circle():
    p = check()
    assert p.returncode == 0, p.stdout + p.stderr
    assert "structure check: ok" in p.stdout


def copy_tree(tmp_path):
    for sub in ("crates/lnsim/src", "python/lnsim"):
        shutil.copytree(ROOT / sub, tmp_path / sub, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return tmp_path


def test_planted_faults_are_reported(tmp_path):
    root = copy_tree(tmp_path)
    src = root / "crates/lnsim/src"
    # foundation -> wing, wing -> wing, and a circle of Python modules
    with open(src / "stats/results_folder.rs", "a") as f:
        f.write("\nfn planted() { let _ = crate::credit::memory::estimate; }\n")
    with open(src / "cycle/memory.rs", "a") as f:
        f.write("\nfn planted() { let _ = crate::credit::memory::estimate; }\n")
    with open(root / "python/lnsim/_format.py", "a") as f:
        f.write("\ndef planted():\n    from . import cli  # noqa: F401\n")
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert "upward import (foundation -> wings): stats/results_folder.rs -> credit/memory.rs" in p.stdout
    assert "wing imports wing: cycle/memory.rs -> credit/memory.rs" in p.stdout
    assert "python circle:" in p.stdout and "lnsim._format" in p.stdout


def test_architecture_file_table_follows_the_files(tmp_path):
    root = copy_tree(tmp_path)
    (root / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "architecture.md", root / "docs" / "architecture.md")
    assert check("--root", str(root)).returncode == 0
    # a new file without its row, and a row whose file is gone
    (root / "crates/lnsim/src/traffic/planted.rs").write_text("//! Planted.\n")
    (root / "crates/lnsim/src/traffic/injection.rs").unlink()
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert "docs/architecture.md: no row for traffic/planted.rs" in p.stdout
    assert "docs/architecture.md: row for traffic/injection.rs, which does not exist" in p.stdout
