"""The two kinds of folder a report describes, and the files it reads there: a results folder
(one run, ``summary.json``, with the scenario as run in ``scenario.toml``) or a sweep folder
(``sweep.csv``, ``sweep.json``): :func:`folder_kind`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

PathLike = Union[str, "os.PathLike[str]"]

SUMMARY_FILE = "summary.json"
SWEEP_CSV = "sweep.csv"
SWEEP_JSON = "sweep.json"
SCENARIO_COPY = "scenario.toml"

#: Kinds of folder (:func:`folder_kind`).
KIND_RUN = "run"
KIND_SWEEP = "sweep"


def folder_kind(results_dir: PathLike) -> str:
    """``"run"`` for a results folder (it has ``summary.json``) or ``"sweep"`` for a sweep folder
    (``sweep.csv`` and no ``summary.json``). Raises ``FileNotFoundError`` when the folder does
    not exist and ``ValueError`` when it is neither kind, both naming the folder."""
    d = Path(results_dir)
    if not d.exists():
        raise FileNotFoundError(f"{d}: no such folder (expected a results folder with {SUMMARY_FILE} "
                                f"or a sweep folder with {SWEEP_CSV})")
    if not d.is_dir():
        raise ValueError(f"{d}: not a folder (expected a results folder with {SUMMARY_FILE} "
                         f"or a sweep folder with {SWEEP_CSV})")
    if (d / SUMMARY_FILE).is_file():
        return KIND_RUN
    if (d / SWEEP_CSV).is_file():
        return KIND_SWEEP
    raise ValueError(f"{d}: not a results folder (no {SUMMARY_FILE}) nor a sweep folder (no {SWEEP_CSV})")
