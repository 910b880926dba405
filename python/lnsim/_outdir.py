"""Output folders and files that lnsim writes, and the rules that keep a user's files safe.

The rules are the core's, in one place: ``crates/lnsim/src/outdir.rs`` (its module
documentation says them whole; docs/usage.md "Output folders" says them to users). This module
only calls them through the binding (:mod:`lnsim._core`), taking paths as Python does, and adds
what is Python's alone: writing a file from a function (a figure saved by matplotlib) and the
:class:`FolderLock` of a sweep folder.

In short: every folder lnsim writes carries a marker, :data:`MARKER_FILE` (``.lnsim``), whose
``kind`` (:data:`KIND_RESULTS`, :data:`KIND_SWEEP`, :data:`KIND_FIGURES`, :data:`KIND_BENCH`)
decides which command may write there and whose ``files`` lists what lnsim wrote. A results
folder is replaced whole, and refused when it holds entries lnsim did not write; a sweep, bench
or figures folder is updated in place (:func:`prepare_folder`, :func:`write_own_file`), keeping
anything lnsim did not write. Files are written atomically (:func:`write_atomic`), never over a
file lnsim did not write, never through a symbolic link; a folder that holds the current folder
or a protected path is never used. Refusals raise :class:`OutputError` (exit status 2).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Callable, Iterable, Optional, Tuple, Union

from . import _core
from ._core import (
    KIND_BENCH,
    KIND_FABRIC,
    KIND_FIGURES,
    KIND_RESULTS,
    KIND_SWEEP,
    MARKER_FILE,
    REPORT_GENERATOR,
    OutputError,
)

__all__ = [
    "KIND_BENCH", "KIND_FABRIC", "KIND_FIGURES", "KIND_RESULTS", "KIND_SWEEP", "MARKER_FILE", "REPORT_GENERATOR", "OutputError",
]

PathLike = Union[str, os.PathLike]


def _p(path: PathLike) -> str:
    """``path`` as the core takes it (a ``Path``'s spelling: ``out/`` is ``out``)."""
    return os.fspath(Path(path))


def read_marker(folder: PathLike) -> Optional[dict]:
    """The marker of ``folder`` (a dict) when it has one written by lnsim, else ``None``."""
    text = _core.read_marker(_p(folder))
    return None if text is None else json.loads(text)


def is_marked(folder: PathLike) -> bool:
    """True when ``folder`` carries an lnsim marker."""
    return _core.read_marker(_p(folder)) is not None


def legacy_kind(folder: PathLike) -> Optional[str]:
    """``"results"``, ``"sweep"`` or ``"bench"`` for a folder written by an lnsim that wrote no
    markers, judged by what it holds; else ``None`` (``outdir::legacy_kind``)."""
    return _core.legacy_kind(_p(folder))


def folder_kind(folder: PathLike) -> Optional[str]:
    """The kind of an lnsim folder: its marker's, else its :func:`legacy_kind`; ``None`` for a
    folder lnsim did not write."""
    return _core.folder_kind(_p(folder))


def kind_description(kind: str) -> str:
    """What a folder of ``kind`` holds, as refusals say it (``an lnsim sweep (points/, ...)``)."""
    return _core.kind_description(kind)


def write_atomic(path: PathLike, data: Union[str, bytes, Callable]) -> Path:
    """Writes the file ``path`` atomically (``outdir::write_atomic``): ``data`` is text, bytes,
    or a function writing into a binary file object (a figure's ``savefig``). A crash leaves the
    old file or the new one, never half of one; a symbolic link at ``path`` is replaced, never
    followed. Raises ``OSError``. Returns ``path``."""
    if callable(data):
        buf = io.BytesIO()
        data(buf)
        data = buf.getvalue()
    elif isinstance(data, str):
        data = data.encode("utf-8")
    _core.write_atomic(_p(path), data)
    return Path(path)


def write_marker(folder: PathLike, kind: str, **extra) -> None:
    """Writes the marker of ``kind`` into ``folder`` (which exists); ``extra`` are more fields
    (e.g. ``files=[]``: the list of what lnsim wrote there, which :func:`claim_file` extends)."""
    _core.write_marker(_p(folder), kind, json.dumps(extra))


def record_files(folder: PathLike, names: Iterable[str]) -> None:
    """Adds ``names`` to the list of entries lnsim wrote into ``folder`` (its marker's
    ``files``), when its marker has that list."""
    _core.record_files(_p(folder), list(names))


def is_own_entry(folder: PathLike, name: str) -> bool:
    """True when the entry ``name`` of ``folder`` is one lnsim wrote (or is absent)."""
    return _core.is_own_entry(_p(folder), name)


def check_own_file(path: PathLike, what: str = "file") -> Path:
    """Checks that lnsim may write the file ``path``: absent, or an entry lnsim wrote there; not a
    folder. Raises :class:`OutputError` naming the file otherwise. Returns ``path``."""
    _core.check_own_file(_p(path), what)
    return Path(path)


def claim_file(path: PathLike, what: str = "file") -> Path:
    """:func:`check_own_file`, then records the file's name in its folder's marker. Raises
    :class:`OutputError` naming the file otherwise. Returns ``path``."""
    _core.claim_file(_p(path), what)
    return Path(path)


def write_own_file(path: PathLike, data: Union[str, bytes, Callable], what: str = "file") -> Path:
    """:func:`claim_file`, then :func:`write_atomic`: how lnsim writes a file into a folder it
    updates in place (a figure, ``sweep.csv``, ``bench.json``). Returns ``path``."""
    claim_file(path, what)
    return write_atomic(path, data)


def is_incomplete(folder: PathLike) -> bool:
    """True when ``folder`` holds the partial results of a run that did not reach its end
    (``summary.json`` or the marker says ``"complete": false``)."""
    return _core.is_incomplete(_p(folder))


def check_folder(path: PathLike, what: str = "output folder", protect: Iterable[Tuple[PathLike, str]] = (),
                 allow: Iterable[PathLike] = (), kinds: Optional[Iterable[str]] = None) -> Tuple[Path, bool]:
    """Checks that lnsim may write into the folder ``path`` (``outdir::check_folder``): absent,
    empty, an lnsim folder (of a kind among ``kinds`` when given) or one of ``allow``; not a
    file, not under a file, writable; holding neither the current folder nor a ``protect`` path
    (``(path, description)`` pairs). Returns ``(path, exists)``; creates nothing. Raises
    :class:`OutputError`."""
    exists = _core.check_folder(_p(path), what, [(_p(g), d) for g, d in protect], [_p(a) for a in allow],
                                None if kinds is None else list(kinds))
    return Path(path), exists


def prepare_folder(path: PathLike, kind: str, what: str = "output folder",
                   protect: Iterable[Tuple[PathLike, str]] = (), allow: Iterable[PathLike] = (),
                   kinds: Optional[Iterable[str]] = None) -> Path:
    """:func:`check_folder`, then creates the folder when absent and marks it as ``kind`` when it
    was absent or empty, with an empty list of ``files`` (``outdir::prepare_folder``). Returns
    the path."""
    _core.prepare_folder(_p(path), kind, what, [(_p(g), d) for g, d in protect], [_p(a) for a in allow],
                         None if kinds is None else list(kinds))
    return Path(path)


def replace_problem(folder: PathLike) -> Optional[str]:
    """Why lnsim may not replace or delete the run folder ``folder`` (a results folder, or a
    sweep's point folder of ``seed-*`` run folders), with what to do instead; ``None`` when it
    may (``outdir::run_folder_problem``)."""
    return _core.run_folder_problem(_p(folder))


def is_replaceable(folder: PathLike) -> bool:
    """True when lnsim may replace or delete the run folder ``folder`` (:func:`replace_problem`)."""
    return replace_problem(folder) is None


def check_replaceable(folder: PathLike, what: str = "folder") -> None:
    """Raises :class:`OutputError` naming ``folder`` and saying why, unless lnsim may replace it
    (:func:`replace_problem`)."""
    _core.check_replaceable(_p(folder), what)


def remove_folder(folder: PathLike) -> bool:
    """Removes ``folder`` when lnsim may (:func:`is_replaceable`); leaves anything else alone.
    Returns True when it was removed."""
    return _core.remove_folder(_p(folder))


def replace_run_folder(new: PathLike, target: PathLike, aside: PathLike) -> None:
    """Puts the complete new run folder ``new`` in place as ``target``, replacing an existing one
    only when lnsim may: it steps aside as ``aside`` and is checked again there
    (:func:`replace_problem`; a file the user added since puts it back and raises
    :class:`OutputError`), then goes once the new one is in place (``outdir::swap_in``, as the
    core replaces a results folder). Raises ``OSError`` when a rename fails."""
    _core.replace_run_folder(_p(new), _p(target), _p(aside))


def is_lnsim_report(path: PathLike) -> bool:
    """True when the file ``path`` is an HTML report written by ``lnsim report``."""
    return _core.is_lnsim_report(_p(path))


def check_report_file(path: PathLike) -> Path:
    """Checks that ``lnsim report`` may write the file ``path``: absent, or an lnsim report; not
    a folder, not under a file, in a writable folder. Raises :class:`OutputError`."""
    _core.check_report_file(_p(path))
    return Path(path)


#: Lock file of a sweep folder while a sweep writes it (see :class:`FolderLock`).
LOCK_FILE = ".lnsim-lock"


class FolderLock:
    """An exclusive lock on a folder lnsim writes, held while one process writes it: a second
    ``lnsim sweep`` on the same folder (another terminal, another campaign script) would
    otherwise discard, stage or rewrite the first one's runs under it. The lock is an advisory
    ``flock`` on :data:`LOCK_FILE` inside the folder, so the operating system releases it when the
    holder exits, however it exits: a crashed sweep never leaves the folder locked. The file
    holds the holder's process id and host, for the refusal's message, and stays behind (empty
    of meaning once unlocked). It is Python's alone: only a sweep, which Python drives, takes it,
    for as long as a ``with`` block of Python code runs (the core refuses a run inside a sweep
    folder by its marker, and never needs the lock)."""

    def __init__(self, folder: PathLike, what: str = "sweep folder"):
        self.path = Path(folder) / LOCK_FILE
        self._fd: Optional[int] = None
        try:
            import fcntl
        except ImportError:  # no flock (not a POSIX system): no lock, as before
            return
        try:  # never through a symbolic link: the lock file is lnsim's own
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as e:
            raise OutputError(f"{what} {Path(folder)}: cannot use its lock file {self.path}: "
                              f"{e.strerror or e}; choose another --out, or move it away yourself") from None
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
