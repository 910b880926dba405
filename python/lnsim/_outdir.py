"""Output folders and files that lnsim writes, and the rules that keep a user's files safe.

Every folder lnsim writes carries a marker file, :data:`MARKER_FILE` (``.lnsim``), holding a
small JSON object: ``{"written_by": "lnsim", "version": ..., "kind": ..., "files": [...]}``.
``kind`` says what the folder holds — ``"results"`` (one run, written by the core, which also
records ``"complete"``), ``"sweep"`` (a sweep folder), ``"figures"`` (PNGs made by ``lnsim plot
--out``) or ``"bench"`` (``lnsim bench``) — and decides which command may write there: ``run``
only a results folder, ``sweep`` only a sweep folder, ``bench`` only a bench folder, ``plot
--out`` only a figures folder (or the folder it plots). ``files`` lists exactly the entries lnsim
wrote into the folder (the core's files; ``lnsim plot`` and ``lnsim report`` add theirs as they
write them: :func:`claim_file`). A folder of an lnsim that listed no files, or wrote no markers
(:func:`legacy_kind`), is judged by the names lnsim writes into a folder of its kind.

How each kind is written:

* a **results folder** is replaced whole, atomically, by the core (``crates/lnsim/src/outdir.rs``):
  only when it holds nothing but what lnsim wrote. Entries lnsim did not write (notes, a
  sub-folder) make ``lnsim run`` refuse, naming them, before anything is simulated: move them out
  of the folder, or choose another ``--out``. A folder inside a sweep folder is the sweep's and
  is refused too. The run folders of a sweep (``points/<point>/[seed-<s>/]``) and of a bench
  (``<case>/``) follow the same rule (:func:`replace_problem`), checked for every run before any
  runs;
* a **sweep folder**, a **bench folder** and a **figures folder** are updated in place: lnsim
  replaces or removes only its own entries there (``sweep.csv``, ``bench.json``, the figures,
  the run folders, the staging folder once empty of lnsim's leftovers) and leaves anything else
  as it is. A file lnsim would write over is its own (listed, or a name lnsim writes there) or
  refused; files are written under a temporary name and renamed into place
  (:func:`write_atomic`), so a symbolic link in their place is replaced, never followed.

Any other existing folder, a file, a path under a file, or a place that cannot be written is
refused with :class:`OutputError` (exit status 2) naming the path and saying what to do. A
folder that holds the current folder (or another protected path) is never used, marker or not.

An HTML report is recognised by its ``<meta name="generator" content="lnsim report">`` tag:
``lnsim report --out FILE`` overwrites only such a file.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Optional, Tuple, Union

from . import _core
from ._core import ScenarioError, version

#: Name of the marker file inside every folder lnsim writes.
MARKER_FILE = ".lnsim"
#: Marker kinds (the core writes ``"results"``; the Python layer the others).
KIND_RESULTS = "results"
KIND_SWEEP = "sweep"
KIND_FIGURES = "figures"
KIND_BENCH = "bench"
#: The tag that identifies an lnsim HTML report.
REPORT_GENERATOR = '<meta name="generator" content="lnsim report">'

#: What to do instead, appended to every refusal of a path.
ADVICE = "choose another --out (an absent or empty folder, or one lnsim wrote)"
#: ... and of an existing folder of someone else's files.
ADVICE_FOLDER = ADVICE + ", or remove the folder yourself"


class OutputError(ScenarioError):
    """An output path lnsim must not (or cannot) write: an existing folder it did not write, a
    folder of another kind, a results folder holding files lnsim did not write, a file, a path
    under a file, an unwritable place. Bad input: the command exits with status 2 and nothing
    is written."""


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


def legacy_kind(folder) -> Optional[str]:
    """``"results"``, ``"sweep"`` or ``"bench"`` for a folder written by an lnsim that wrote no
    markers: it holds nothing but what lnsim writes into a folder of that kind (and ``*.png``
    figures), so using it loses no user file; else ``None`` (the core's rule:
    ``outdir::legacy_kind``)."""
    return _core.legacy_kind(os.fspath(folder))


def folder_kind(folder) -> Optional[str]:
    """The kind of an lnsim folder: its marker's, else its :func:`legacy_kind`; ``None`` for a
    folder lnsim did not write."""
    m = read_marker(folder)
    return m.get("kind") if m is not None else legacy_kind(folder)


def kind_description(kind: str) -> str:
    """What a folder of ``kind`` holds, as refusals say it (``an lnsim sweep (points/, ...)``)."""
    return _core.kind_description(kind)


def write_atomic(path, data: Union[str, bytes, Callable]) -> Path:
    """Writes the file ``path`` atomically: ``data`` (text, bytes, or a function writing into a
    binary file object) goes into a new temporary file in the same folder, which is then
    renamed over ``path``. A crash leaves the old file or the new one, never half of one; a
    symbolic link at ``path`` is replaced, never followed. Returns ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)  # our own temporary file, left only by a failure
    return path


def write_marker(folder, kind: str, **extra) -> None:
    """Writes the marker of ``kind`` into ``folder`` (which exists); ``extra`` are more fields
    (e.g. ``files=[]``: the list of what lnsim wrote there, which :func:`claim_file` extends)."""
    data = {"written_by": "lnsim", "version": version(), "kind": kind, **extra}
    write_atomic(Path(folder) / MARKER_FILE, json.dumps(data) + "\n")


def record_files(folder, names: Iterable[str]) -> None:
    """Adds ``names`` to the list of entries lnsim wrote into ``folder`` (its marker's
    ``files``), when its marker has that list; a folder without one is left as it is (it is
    judged by the names lnsim writes there)."""
    m = read_marker(folder)
    if m is None or not isinstance(m.get("files"), list):
        return
    new = [n for n in names if n not in m["files"]]
    if new:
        m["files"] = sorted({*m["files"], *new})
        write_atomic(Path(folder) / MARKER_FILE, json.dumps(m) + "\n")


def is_own_entry(folder, name: str) -> bool:
    """True when the entry ``name`` of ``folder`` is one lnsim wrote (or that is absent): listed
    by the folder's marker (see :func:`_core.foreign_entries`); in a folder lnsim did not write,
    only a ``*.png`` figure (what ``lnsim plot`` wrote into a results folder before markers)."""
    path = Path(folder) / name
    if not os.path.lexists(path):
        return True
    foreign = _core.foreign_entries(os.fspath(folder))
    if foreign is None:
        return name.endswith(".png") and not path.is_dir()
    return name not in foreign and name + "/" not in foreign


def claim_file(path, what: str = "file") -> Path:
    """Checks that lnsim may write the file ``path`` (absent, or an entry lnsim wrote there:
    :func:`is_own_entry`; not a folder) and records its name in its folder's marker
    (:func:`record_files`). Raises :class:`OutputError` naming the file otherwise. Returns
    ``path``."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        raise _refuse(path, what, "is a folder", "move it away, or choose another --out")
    if not is_own_entry(path.parent, path.name):
        raise _refuse(path, what, "the file exists and lnsim did not write it (lnsim never writes over a file it "
                                  "did not write)", "move it away, or choose another --out")
    record_files(path.parent, [path.name])
    return path


def write_own_file(path, data: Union[str, bytes, Callable], what: str = "file") -> Path:
    """:func:`claim_file`, then :func:`write_atomic`: how lnsim writes a file into a folder it
    updates in place (a figure, ``sweep.csv``, ``bench.json``). Returns ``path``."""
    claim_file(path, what)
    return write_atomic(path, data)


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
    """Checks that lnsim may write into the folder ``path``: absent, empty, an lnsim folder
    (:func:`folder_kind`; of a kind among ``kinds`` when given) or one of ``allow`` (folders
    lnsim wrote whose marker may predate markers, e.g. the results folder being plotted); not a
    file, not under a file, writable; holding neither the current folder nor a ``protect`` path
    (``(path, description)`` pairs). Returns ``(path, exists)``; creates nothing. Raises
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
            kind = folder_kind(path)
            if kind is None:
                raise _refuse(path, what, f"the folder exists and holds files that lnsim did not write (it has no "
                                          f"{MARKER_FILE} marker); lnsim writes only into folders it wrote itself",
                              ADVICE_FOLDER)
            if kinds is not None and kind not in set(kinds):
                wanted = " or ".join(kind_description(k) for k in kinds)
                raise _refuse(path, what, f"holds {kind_description(kind)}, not {wanted}")
    _check_writable(path, path, what, ADVICE)
    return path, True


def prepare_folder(path, kind: str, what: str = "output folder", protect: Iterable[Tuple[Path, str]] = (),
                   allow: Iterable = (), kinds: Optional[Iterable[str]] = None) -> Path:
    """:func:`check_folder`, then creates the folder (and its parents) when absent and marks it
    as ``kind`` when it was absent or empty (with an empty list of ``files``, which grows as
    lnsim writes them: :func:`claim_file`). Returns the path."""
    path, exists = check_folder(path, what, protect=protect, allow=allow, kinds=kinds)
    try:
        fresh = not exists or next(os.scandir(path), None) is None
        path.mkdir(parents=True, exist_ok=True)
        if fresh:
            write_marker(path, kind, files=[])
    except OSError as e:
        raise _refuse(path, what, f"cannot create it: {_reason(e)}") from None
    return path


def replace_problem(folder) -> Optional[str]:
    """Why lnsim may not replace or delete the run folder ``folder`` (a results folder, or a
    sweep's point folder holding the ``seed-*`` run folders of its runs), with what to do
    instead; ``None`` when it may: it is absent, empty, a results folder holding nothing but
    what lnsim wrote (the core's rule, ``outdir::replace_problem``: entries lnsim did not write
    are named), or an unmarked folder whose every entry is such a folder."""
    folder = Path(folder)
    try:
        folder.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if folder.is_symlink():
        return f"is a symbolic link, not a folder lnsim wrote; {ADVICE}"
    if not folder.is_dir():
        return f"is a file, not a folder; {ADVICE}"
    if folder_kind(folder) is not None:
        return _core.results_folder_problem(os.fspath(folder))
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        return f"cannot read the folder: {_reason(e)}; {ADVICE}"
    if any(not e.is_dir(follow_symlinks=False) for e in entries):
        return _core.results_folder_problem(os.fspath(folder))  # a folder of someone else's files
    for e in entries:
        problem = replace_problem(e.path)
        if problem is not None:
            return f"{e.name}: {problem}"
    return None


def is_replaceable(folder) -> bool:
    """True when lnsim may replace or delete the run folder ``folder`` (:func:`replace_problem`)."""
    return replace_problem(folder) is None


def check_replaceable(folder, what: str = "folder") -> None:
    """Raises :class:`OutputError` naming ``folder`` and saying why, unless lnsim may replace it
    (:func:`replace_problem`)."""
    problem = replace_problem(folder)
    if problem is not None:
        raise OutputError(f"{what} {folder}: {problem}")


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
        try:  # never through a symbolic link: the lock file is lnsim's own
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as e:
            raise OutputError(f"{what} {Path(folder)}: cannot use its lock file {self.path}: {_reason(e)}; "
                              "choose another --out, or move it away yourself") from None
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

