"""The results store of a sweep: one SQLite record per run, written atomically.

A sweep folder ``DIR/`` holds ``DIR/store.sqlite`` with one table, ``runs``, one row per run
(a point of the sweep with one seed). SQLite was chosen over a Parquet dataset because it gives
what a sweep that may be killed at any moment needs with nothing to install: every record is
written in one transaction (a ``kill -9`` leaves either the whole record or nothing), the file
stays readable while a sweep writes to it, and any tool can query it (``sqlite3 store.sqlite``,
``pandas.read_sql``, :func:`lnsim.read_sweep`).

Columns of ``runs`` (:data:`RUN_COLUMNS`):

=================  ==========================================================================
``run_key``        identity of the run: SHA-256 of the scenario file's bytes, the ``--set``
                   and point overrides in order, the seed argument and the lnsim version. Two
                   runs with the same key are the same simulation (never run twice).
``point``          the point id (folder name under ``points/``)
``seed``           the seed the run used (``NULL`` if not known)
``dir``            the run's results folder, relative to the sweep folder
``scenario``       the scenario file as given
``scenario_hash``  SHA-256 of the scenario file's bytes
``overrides``      JSON list of the ``key=value`` overrides of the run (user's, then point's)
``point_values``   JSON object: swept key -> value of this point
``version``        lnsim version that ran it
``status``         ``ok`` or ``failed``
``error``          the error message of a failed run
``summary``        JSON object: every scalar field of summary.json, flattened with dots
``tables``         JSON list of the files in ``dir`` (summary.json, CSVs, ...)
``wall_time_s``    wall-clock seconds the run took on its worker
``worker``         where it ran (``local`` or the Dask worker's address)
``finished_at``    UTC time the record was written (ISO 8601)
=================  ==========================================================================

Writing a run (:meth:`ResultsStore.commit_run`): its files are first written into a staging
folder inside the sweep folder, which is then renamed into place (``points/<id>/``), and only
then is the record inserted. A sweep killed between the two leaves a complete folder without a
record, which ``--resume`` runs again (replacing the folder); a record always names a complete
folder. The staging folder goes when the sweep ends (:meth:`ResultsStore.clear_staging`, which
also removes, when the next sweep starts, what a killed one left there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

from ._outdir import check_replaceable, replace_run_folder

#: File name of the store inside a sweep folder.
STORE_FILE = "store.sqlite"
#: Folder (inside the sweep folder) where runs are written before being renamed into place.
STAGING_DIR = ".staging"
#: Names of what lnsim puts in the staging folder: a run being written (a UUID), an old run
#: folder being removed (``old-<UUID>``).
_STAGED = re.compile(r"(old-)?[0-9a-f]{32}")
#: Schema version, kept in SQLite's ``user_version``.
SCHEMA_VERSION = 1

#: The columns of the ``runs`` table, in order.
RUN_COLUMNS = [
    "run_key",
    "point",
    "seed",
    "dir",
    "scenario",
    "scenario_hash",
    "overrides",
    "point_values",
    "version",
    "status",
    "error",
    "summary",
    "tables",
    "wall_time_s",
    "worker",
    "finished_at",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_key TEXT PRIMARY KEY,
    point TEXT NOT NULL,
    seed INTEGER,
    dir TEXT NOT NULL,
    scenario TEXT NOT NULL,
    scenario_hash TEXT NOT NULL,
    overrides TEXT NOT NULL,
    point_values TEXT NOT NULL,
    version TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    summary TEXT,
    tables TEXT,
    wall_time_s REAL,
    worker TEXT,
    finished_at TEXT NOT NULL
);
"""


class StoreError(Exception):
    """The store file cannot be used (not an lnsim store, newer schema, unreadable)."""


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class ResultsStore:
    """The ``store.sqlite`` of a sweep folder (created if missing)."""

    def __init__(self, sweep_dir) -> None:
        self.dir = Path(sweep_dir)
        self.path = self.dir / STORE_FILE
        self.dir.mkdir(parents=True, exist_ok=True)
        try:
            # autocommit mode: every statement below runs in an explicit transaction
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: written by a newer lnsim (store schema {version}, this one reads {SCHEMA_VERSION})"
                )
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable lnsim results store: {e}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "ResultsStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------------

    def records(self, status: Optional[str] = None) -> Dict[str, Dict[str, Any]]:
        """Every record (``run_key`` -> row as a dict, JSON columns decoded)."""
        q = f"SELECT {', '.join(RUN_COLUMNS)} FROM runs"
        args: tuple = ()
        if status is not None:
            q += " WHERE status = ?"
            args = (status,)
        out: Dict[str, Dict[str, Any]] = {}
        for row in self.db.execute(q, args):
            rec = dict(zip(RUN_COLUMNS, row))
            for c in ("overrides", "point_values", "summary", "tables"):
                if rec[c] is not None:
                    rec[c] = json.loads(rec[c])
            out[rec["run_key"]] = rec
        return out

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    # -- writing ------------------------------------------------------------------------------

    def clear_staging(self) -> None:
        """Removes what lnsim left in the staging folder — a run half-written by a sweep that was
        killed (a folder named by a UUID), an old run folder on its way out (``old-<UUID>``) —
        and then the staging folder itself, once empty. Anything else there is left alone (and
        the staging folder with it)."""
        staging = self.dir / STAGING_DIR
        if staging.is_symlink() or not staging.is_dir():
            return
        for e in os.scandir(staging):
            if e.is_dir(follow_symlinks=False) and _STAGED.fullmatch(e.name):
                shutil.rmtree(e.path, ignore_errors=True)
        try:
            staging.rmdir()
        except OSError:  # not empty: it holds something lnsim did not put there
            pass

    def delete(self, run_keys: Iterable[str]) -> None:
        """Deletes records (and nothing else) in one transaction."""
        keys = list(run_keys)
        if not keys:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("DELETE FROM runs WHERE run_key = ?", [(k,) for k in keys])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def commit_run(self, record: Dict[str, Any], files: Optional[Dict[str, bytes]]) -> None:
        """Writes one run: its files into ``record["dir"]`` (via a staging folder renamed into
        place; an existing folder there is replaced, when lnsim wrote it: see
        :func:`lnsim._outdir.check_replaceable`) and then its record, atomically.

        ``record`` has the :data:`RUN_COLUMNS` (``tables``, ``finished_at`` are filled in here);
        ``files`` maps names relative to the run folder to their bytes (``None`` for a failed
        run, which gets a record but no folder)."""
        rec = dict(record)
        if files is not None:
            target = self.dir / rec["dir"]
            check_replaceable(target, "run folder")  # never replaces a folder lnsim did not write
            staging = self.dir / STAGING_DIR / uuid.uuid4().hex
            for name, data in files.items():
                p = staging / name
                p.parent.mkdir(parents=True, exist_ok=True)
                with open(p, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            staging.mkdir(parents=True, exist_ok=True)  # a run with no files still gets a folder
            _fsync_dir(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:  # the old folder steps aside, is checked again there, goes last
                replace_run_folder(staging, target, self.dir / STAGING_DIR / f"old-{uuid.uuid4().hex}")
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)  # our own staging folder
                raise
            rec["tables"] = sorted(files)
        else:
            rec["tables"] = []
        rec["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        values = []
        for c in RUN_COLUMNS:
            v = rec.get(c)
            if c in ("overrides", "point_values", "summary", "tables") and v is not None:
                v = json.dumps(v, ensure_ascii=False, sort_keys=c == "summary")
            values.append(v)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(
                f"INSERT OR REPLACE INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
                values,
            )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise


def read_store(sweep_dir) -> "Any":
    """The ``runs`` table of a sweep folder's store as a pandas DataFrame (JSON columns left as
    text; see :data:`RUN_COLUMNS`)."""
    import pandas as pd

    path = Path(sweep_dir) / STORE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{sweep_dir}: not a sweep folder with a results store (no {STORE_FILE})")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return pd.read_sql_query(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs ORDER BY point, seed", db)
    finally:
        db.close()


def list_files(root: Path) -> List[str]:
    """Every file under ``root``, as paths relative to it (``/``-separated), sorted."""
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out.append(p.relative_to(root).as_posix())
    return out
