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


def test_the_repository_has_no_upward_import_no_circle_and_no_wing_only_foundation_file():
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
        f.write("\nfn planted() { let _ = crate::credit::memory_estimate::estimate; }\n")
    with open(src / "cycle/memory_estimate.rs", "a") as f:
        f.write("\nfn planted() { let _ = crate::credit::memory_estimate::estimate; }\n")
    with open(root / "python/lnsim/_format.py", "a") as f:
        f.write("\ndef planted():\n    from . import cli  # noqa: F401\n")
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert "upward import (foundation -> wings): stats/results_folder.rs -> credit/memory_estimate.rs" in p.stdout
    assert "wing imports wing: cycle/memory_estimate.rs -> credit/memory_estimate.rs" in p.stdout
    assert "python circle:" in p.stdout and "lnsim._format" in p.stdout


def test_a_foundation_file_one_wing_alone_uses_is_reported(tmp_path):
    root = copy_tree(tmp_path)
    src = root / "crates/lnsim/src"
    # a foundation file only the credit-level wing imports (through a name its folder
    # re-exports), and one only that file uses
    (src / "traffic/planted.rs").write_text("//! Planted.\npub fn f() { super::planted_too::g() }\n")
    (src / "traffic/planted_too.rs").write_text("//! Planted too.\npub fn g() {}\n")
    with open(src / "traffic/mod.rs", "a") as f:
        f.write("\npub mod planted;\npub mod planted_too;\npub use planted::f;\n")
    with open(src / "credit/build.rs", "a") as f:
        f.write("\nfn planted() { crate::traffic::f() }\n")
    # a foundation file both wings import stays
    (src / "traffic/shared.rs").write_text("//! Shared.\npub fn h() {}\n")
    with open(src / "traffic/mod.rs", "a") as f:
        f.write("pub mod shared;\n")
    for wing in ("credit/results.rs", "cycle/link.rs"):
        with open(src / wing, "a") as f:
            f.write("\nfn planted_shared() { crate::traffic::shared::h() }\n")
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert (
        "wing-only file in the foundation (credit alone uses it): traffic/planted.rs (imported by credit/build.rs)"
        in p.stdout
    )
    assert (
        "wing-only file in the foundation (credit alone uses it): traffic/planted_too.rs "
        "(reached through foundation files only it uses)" in p.stdout
    )
    assert "traffic/shared.rs" not in p.stdout


def test_an_import_after_a_string_continued_over_lines_is_seen(tmp_path):
    root = copy_tree(tmp_path)
    # a `\` at the end of a line continues a string literal: what follows is code again
    with open(root / "crates/lnsim/src/cycle/link.rs", "a") as f:
        f.write('\nfn planted() -> usize {\n    let _ = "a \\\n        b";\n'
                '    crate::credit::memory_estimate::planted();\n    let _ = "c";\n    0\n}\n')
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert "wing imports wing: cycle/link.rs -> credit/memory_estimate.rs" in p.stdout


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


def test_a_mechanism_named_outside_its_files_and_registrations_is_reported(tmp_path):
    root = copy_tree(tmp_path)
    src = root / "crates/lnsim/src"
    # code naming ACOR in the link stage is reported; a comment or a string naming it is not
    with open(src / "cycle/link.rs", "a") as f:
        f.write('\nfn planted() { let acor_level = 0; let _ = acor_level; }\n')
    with open(src / "cycle/allocator.rs", "a") as f:
        f.write('\n// ACOR and LIAN are only mentioned here\nfn planted_text() -> &\'static str { "acor lian" }\n')
    p = check("--root", str(root))
    assert p.returncode == 1, p.stdout
    assert "mechanism named outside its files and its seams' registrations: ACOR in cycle/link.rs" in p.stdout
    assert "cycle/allocator.rs" not in p.stdout


def test_a_place_listed_as_still_to_remove_must_leave_the_list_once_it_is_gone(tmp_path):
    root = copy_tree(tmp_path)
    src = root / "crates/lnsim/src"
    # a copy of the check whose MECHANISMS list a place still to remove for LIAN
    script = tmp_path / "structure_check.py"
    text = CHECK.read_text()
    assert text.count('"pending": {},') >= 1
    script.write_text(text.replace('"pending": {},', '"pending": {"cycle/link.rs": "planted"},', 1))

    def planted(*args):
        return subprocess.run([sys.executable, str(script), "--root", str(root), *args], capture_output=True, text=True)

    # the listed place does not name LIAN: the entry is stale
    p = planted()
    assert p.returncode == 1, p.stdout
    assert "LIAN is no longer named in cycle/link.rs: remove it from MECHANISMS' pending list" in p.stdout
    # once it names LIAN in code, the place is a note, not a fault
    with open(src / "cycle/link.rs", "a") as f:
        f.write("\nfn planted() { let lian_window = 0; let _ = lian_window; }\n")
    p = planted()
    assert p.returncode == 0, p.stdout
    listing = planted("--mechanisms")
    assert "cycle/link.rs" in listing.stdout, listing.stdout
