"""Output folders and files that lnsim writes, and the rules that keep a user's files safe.

Every folder lnsim writes carries a marker file, :data:`MARKER_FILE` (``.lnsim``), holding a
small JSON object: ``{"written_by": "lnsim", "version": ..., "kind": ...}`` with ``kind``
``"results"`` (one run, written by the core, which also records ``"complete"``),
``"sweep"`` (a sweep folder) or ``"figures"`` (a folder of PNGs made by ``lnsim plot --out``).
lnsim replaces or writes into a folder only when it is absent, empty or marked; any other
existing folder, a file, a path under a file, or a place that cannot be written is refused
with :class:`OutputError` (exit status 2) naming the path and saying what to do. A folder that
holds the current folder (or another protected path) is never used, marker or not.

An HTML report is recognised by its ``<meta name="generator" content="lnsim report">`` tag:
``lnsim report --out FILE`` overwrites only such a file.

The core (Rust, ``crates/lnsim/src/outdir.rs``) applies the same rules to results folders.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Iterable, Optional, Tuple

from ._core import ScenarioError, version

#: Name of the marker file inside every folder lnsim writes.
MARKER_FILE = ".lnsim"
#: Marker kinds written by the Python layer (the core writes ``"results"``).
KIND_RESULTS = "results"
KIND_SWEEP = "sweep"
KIND_FIGURES = "figures"
#: The tag that identifies an lnsim HTML report.
REPORT_GENERATOR = '<meta name="generator" content="lnsim report">'

#: What to do instead, appended to every refusal of a path.
ADVICE = "choose another --out (an absent or empty folder, or one lnsim wrote)"
#: ... and of an existing folder of someone else's files.
ADVICE_FOLDER = ADVICE + ", or remove the folder yourself"


class OutputError(ScenarioError):
    """An output path lnsim must not (or cannot) write: an existing folder it did not write, a
    file, a path under a file, an unwritable place. Bad input: the command exits with status 2
    and nothing is written."""


def read_marker(folder) -> Optional[dict]:
    """The marker of ``folder`` (a dict) when it has one written by lnsim, else ``None``."""
    try:
        with open(Path(folder) / MARKER_FILE, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("written_by") == "lnsim":
        return data
    return None


def is_marked(folder) -> bool:
    """True when ``folder`` carries an lnsim marker."""
    return read_marker(folder) is not None


#: Files of results and sweep folders written by an lnsim without markers (besides ``*.png``).
LEGACY_RESULTS_FILES = frozenset({
    "summary.json", "nodes.csv", "flows.csv", "latency_hist.csv", "buffers.csv", "ccti.csv", "cc_ports.csv",
    "routers.csv", "bins.csv", "scenario.toml", "report.html",
})
LEGACY_SWEEP_ENTRIES = frozenset({
    "store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal", "sweep.csv", "sweep.json",
    "points", ".staging", "report.html",
})


def legacy_kind(folder) -> Optional[str]:
    """``"results"`` or ``"sweep"`` for a folder written by an lnsim that wrote no markers: it
    holds nothing but what lnsim writes there (and ``*.png`` figures) — an lnsim
    ``summary.json``, or a results store / ``sweep.csv`` — so using it loses no user file;
    else ``None``."""
    folder = Path(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    names = {e.name for e in entries}
    pngs = {e.name for e in entries if e.name.endswith(".png") and e.is_file(follow_symlinks=False)}
    if "summary.json" in names and names - pngs <= LEGACY_RESULTS_FILES:
        if not all(e.is_file(follow_symlinks=False) for e in entries):
            return None
        try:
            with open(folder / "summary.json", encoding="utf-8") as f:
                s = json.load(f)
        except (OSError, ValueError):
            return None
        return KIND_RESULTS if isinstance(s, dict) and "scenario" in s and "version" in s else None
    if names & {"store.sqlite", "sweep.csv"} and names - pngs <= LEGACY_SWEEP_ENTRIES:
        return KIND_SWEEP
    return None


def write_marker(folder, kind: str, **extra) -> None:
    """Writes the marker of ``kind`` into ``folder`` (which exists)."""
    data = {"written_by": "lnsim", "version": version(), "kind": kind, **extra}
    path = Path(folder) / MARKER_FILE
    tmp = path.with_name(f"{MARKER_FILE}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data) + "\n")
    os.replace(tmp, path)


def is_incomplete(folder) -> bool:
    """True when ``folder`` holds the partial results of a run that did not reach its end
    (``summary.json`` or the marker says ``"complete": false``)."""
    m = read_marker(folder)
    if m is not None and m.get("complete") is False:
        return True
    try:
        with open(Path(folder) / "summary.json", encoding="utf-8") as f:
            return json.load(f).get("complete") is False
    except (OSError, ValueError, AttributeError):
        return False


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _refuse(path, what: str, why: str, advice: str = ADVICE) -> OutputError:
    return OutputError(f"{what} {path}: {why}; {advice}")


def _canonical(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return Path(os.path.abspath(p))


def _check_writable(folder: Path, path, what: str, advice: str) -> None:
    """Creates and removes an empty hidden folder in ``folder``: an honest test of
    writability, also for root and on read-only file systems."""
    for n in range(1000):
        probe = folder / f".lnsim-probe-{os.getpid()}-{n}"
        try:
            probe.mkdir()
        except FileExistsError:
            continue
        except OSError as e:
            raise _refuse(path, what, f"cannot write into {folder}: {_reason(e)}", advice) from None
        try:
            probe.rmdir()
        except OSError:
            pass
        return
    raise _refuse(path, what, f"cannot create a temporary folder in {folder}", advice)


def _nearest_existing(path: Path, what: str, advice: str) -> Path:
    """The nearest existing ancestor of an absent ``path``, which must be a folder."""
    for anc in Path(os.path.abspath(path)).parents:
        try:
            anc.stat()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            raise _refuse(path, what, f"cannot access {anc}: {_reason(e)}", advice) from None
        if not anc.is_dir():
            raise _refuse(path, what, f"lies under {anc}, which is a file, not a folder", advice)
        return anc
    raise _refuse(path, what, "no existing folder above it", advice)


def check_folder(path, what: str = "output folder", protect: Iterable[Tuple[Path, str]] = (),
                 allow: Iterable = (), kinds: Optional[Iterable[str]] = None) -> Tuple[Path, bool]:
    """Checks that lnsim may write the folder ``path``: absent, empty, marked by lnsim (with a
    ``kind`` among ``kinds`` when given) or one of ``allow`` (folders lnsim wrote whose marker
    may predate markers, e.g. the results folder being plotted); not a file, not under a file,
    writable; holding neither the current folder nor a ``protect`` path (``(path,
    description)`` pairs). Returns ``(path, exists)``; creates nothing. Raises
    :class:`OutputError`."""
    path = Path(path)
    allowed = {_canonical(Path(a)) for a in allow}
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        anc = _nearest_existing(path, what, ADVICE)
        _check_writable(anc, path, what, ADVICE)
        return path, False
    except OSError as e:
        raise _refuse(path, what, f"cannot access it: {_reason(e)}") from None
    if not path.is_dir():
        if path.is_symlink() and not path.exists():
            raise _refuse(path, what, "is a broken symbolic link")
        raise _refuse(path, what, "is a file, not a folder")
    real = _canonical(path)
    guarded = [(Path.cwd(), "the current folder"), *protect]
    for g, desc in guarded:
        g = _canonical(Path(g))
        if g == real or real in g.parents:
            rel = "is" if g == real else "holds"
            raise _refuse(path, what, f"{rel} {desc} ({g})")
    if real not in allowed:
        try:
            empty = next(os.scandir(path), None) is None
        except OSError as e:
            raise _refuse(path, what, f"cannot read the folder: {_reason(e)}") from None
        if not empty:
            m = read_marker(path)
            if m is None and legacy_kind(path) is not None:
                m = {"kind": legacy_kind(path)}  # written by an lnsim without markers
            if m is None:
                raise _refuse(path, what, f"the folder exists and holds files that lnsim did not write (it has no "
                                          f"{MARKER_FILE} marker); lnsim writes only into folders it wrote itself",
                              ADVICE_FOLDER)
            if kinds is not None and m.get("kind") not in set(kinds):
                raise _refuse(path, what, f"it holds lnsim {m.get('kind')} output, not {' or '.join(kinds)}")
    _check_writable(path, path, what, ADVICE)
    return path, True


def prepare_folder(path, kind: str, what: str = "output folder", protect: Iterable[Tuple[Path, str]] = (),
                   allow: Iterable = (), kinds: Optional[Iterable[str]] = None) -> Path:
    """:func:`check_folder`, then creates the folder (and its parents) when absent and marks it
    as ``kind`` when it was absent or empty. Returns the path."""
    path, exists = check_folder(path, what, protect=protect, allow=allow, kinds=kinds)
    try:
        fresh = not exists or next(os.scandir(path), None) is None
        path.mkdir(parents=True, exist_ok=True)
        if fresh:
            write_marker(path, kind)
    except OSError as e:
        raise _refuse(path, what, f"cannot create it: {_reason(e)}") from None
    return path


def is_replaceable(folder) -> bool:
    """True when lnsim may replace or delete ``folder``: it is absent, or a folder (not a
    symbolic link) that is marked by lnsim (or a results folder of an lnsim without markers:
    :func:`legacy_kind`), or whose every entry is such a folder (e.g. empty, or a point folder
    holding only the ``seed-*`` folders of its runs)."""
    folder = Path(folder)
    try:
        folder.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return True
    if folder.is_symlink() or not folder.is_dir():
        return False
    if is_marked(folder) or legacy_kind(folder) == KIND_RESULTS:
        return True
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    return all(e.is_dir(follow_symlinks=False) and is_replaceable(e.path) for e in entries)


def check_replaceable(folder, what: str = "folder") -> None:
    """Raises :class:`OutputError` unless ``folder`` :func:`is_replaceable`: the only folders
    lnsim replaces or deletes."""
    if not is_replaceable(folder):
        raise _refuse(folder, what, f"it holds files that lnsim did not write (no {MARKER_FILE} marker); "
                                    "lnsim replaces only folders it wrote itself", ADVICE_FOLDER)


def remove_folder(folder) -> bool:
    """Removes ``folder`` when lnsim may (:func:`is_replaceable`); leaves anything else alone.
    Returns True when it was removed."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink() or not is_replaceable(folder):
        return False
    shutil.rmtree(folder)
    return True


def is_lnsim_report(path) -> bool:
    """True when the file ``path`` is an HTML report written by ``lnsim report``."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return REPORT_GENERATOR.encode("ascii") in head


def check_report_file(path) -> Path:
    """Checks that ``lnsim report`` may write the file ``path``: absent, or an lnsim report; not
    a folder, not under a file, in a writable folder. Raises :class:`OutputError`."""
    path = Path(path)
    advice = "choose another --out, or remove the file yourself"
    what = "report file"
    if path.is_dir():
        raise _refuse(path, what, "is a folder", "give a file name, e.g. --out report.html")
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise _refuse(path, what, "is not a regular file", advice)
        if not is_lnsim_report(path):
            raise _refuse(path, what, "the file exists and was not written by lnsim report "
                                      "(lnsim overwrites only its own reports)", advice)
        _check_writable(_canonical(path).parent, path, what, advice)
        return path
    try:
        parent_exists = path.parent.is_dir()
    except OSError:
        parent_exists = False
    anc = path.parent if parent_exists else _nearest_existing(path, what, advice)
    _check_writable(anc, path, what, advice)
    return path


#: Lock file of a sweep folder while a sweep writes it (see :class:`FolderLock`).
LOCK_FILE = ".lnsim-lock"


class FolderLock:
    """An exclusive lock on a folder lnsim writes, held while one process writes it: a second
    ``lnsim sweep`` on the same folder (another terminal, another campaign script) would
    otherwise discard, stage or rewrite the first one's runs under it. The lock is an advisory
    ``flock`` on :data:`LOCK_FILE` inside the folder, so the operating system releases it when the
    holder exits, however it exits: a crashed sweep never leaves the folder locked. The file
    holds the holder's process id and host, for the refusal's message, and stays behind (empty
    of meaning once unlocked)."""

    def __init__(self, folder, what: str = "sweep folder"):
        self.path = Path(folder) / LOCK_FILE
        self._fd: Optional[int] = None
        try:
            import fcntl
        except ImportError:  # no flock (not a POSIX system): no lock, as before
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            finally:
                os.close(fd)
            raise OutputError(
                f"{what} {Path(folder)}: in use by another lnsim sweep ({holder}); wait for it to "
                "finish, or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {os.uname().nodename}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Releases the lock (closing the file releases the flock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()

