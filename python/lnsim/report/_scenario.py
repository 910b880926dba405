"""The scenario section of a page: the scenario's name, file (the copy in the results folder, or
found by name in a ``scenarios/`` folder above it) and its TOML text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Tuple

try:  # Python >= 3.11
    import tomllib as _toml
except ImportError:  # pragma: no cover - Python 3.9/3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ImportError:  # pragma: no cover
        _toml = None  # type: ignore[assignment]

from ._cells import _esc
from ._folder import PathLike
from ._page import _kv_table, _Page

#: A scenario file longer than this many lines is shown folded (click to open).
OPEN_TOML_LINES = 30


def _read_toml_text(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _scenario_meta(text: Optional[str]) -> dict:
    """The ``[scenario]`` table of a scenario's TOML text (``{}`` when absent or unreadable)."""
    if not text or _toml is None:
        return {}
    try:
        doc = _toml.loads(text)
    except Exception:  # noqa: BLE001 - a broken file is still shown as text
        return {}
    meta = doc.get("scenario")
    return meta if isinstance(meta, dict) else {}


def _find_file(name: PathLike, near: Path) -> Optional[Path]:
    """``name`` as given (absolute, or relative to the current folder), else relative to each
    folder above ``near`` (a sweep run from the repository names ``scenarios/...``)."""
    p = Path(name)
    if p.is_absolute():
        return p if p.is_file() else None
    if p.is_file():
        return p
    for parent in near.resolve().parents:
        q = parent / p
        if q.is_file():
            return q
    return None


def _find_by_name(name: str, near: Path) -> Optional[Path]:
    """A ``scenarios/**/<name>.toml`` in the first folder above ``near`` that has a
    ``scenarios`` folder."""
    if not name or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        return None
    for parent in near.resolve().parents:
        scen = parent / "scenarios"
        if scen.is_dir():
            hits = sorted(scen.rglob(f"{name}.toml"))
            return hits[0] if hits else None
    return None


def _scenario_section(page: _Page, name: str, rows: List[Tuple[str, str]], toml_path: Optional[Path],
                      toml_label: str, missing_note: str) -> None:
    parts = page.section("Scenario")
    text = _read_toml_text(toml_path) if toml_path is not None else None
    meta = _scenario_meta(text)
    items = [("name", name or "–")] + rows
    parts.append(_kv_table(items))
    desc = meta.get("description")
    if isinstance(desc, str) and desc.strip():
        parts.append(f"<p>{_esc(' '.join(desc.split()))}</p>")
    if text is None:
        parts.append(f'<p class="note">{_esc(missing_note)}</p>')
    else:
        n_lines = text.count("\n") + 1
        open_attr = " open" if n_lines <= OPEN_TOML_LINES else ""
        parts.append(f"<details{open_attr}><summary>{_esc(toml_label)} ({n_lines} lines)</summary>"
                     f"<pre>{_esc(text)}</pre></details>")
