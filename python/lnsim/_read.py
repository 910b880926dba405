"""Reading the files of results and sweep folders, checked (issue 14 item 5).

Every file that :func:`lnsim.load_results`, :func:`lnsim.read_sweep`, ``lnsim plot`` and
``lnsim report`` read goes through this module: ``summary.json`` must be a JSON object whose
known fields have the documented types, and each CSV table must be text with the documented
header and numbers where numbers belong. Anything else raises :class:`ResultsError`, which
names the file (and the line and column or field when known); the command line turns it into
exit status 2 ("bad input") instead of a traceback.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]


class ResultsError(ValueError):
    """A file of a results or sweep folder cannot be read or is not what lnsim writes.

    ``path`` is the file; ``line`` (1-based, the header being line 1) and ``column`` (a CSV
    column or a summary.json field, dotted) are set when known. The message starts with
    ``path:line:`` like a compiler's."""

    def __init__(self, path: PathLike, message: str, column: Optional[str] = None,
                 line: Optional[int] = None) -> None:
        self.path = Path(path)
        self.column = column
        self.line = line
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {message}")


class MissingResultsFile(ResultsError, FileNotFoundError):
    """A file the results folder must have is absent (also a ``FileNotFoundError``)."""


# ---------------------------------------------------------------------------------------------
# CSV tables

#: Kinds of column: a number in every row, a number or nothing, any text.
NUMBER = "number"
NUMBER_OR_BLANK = "number or blank"
TEXT = "text"

#: A column of a table: (name, kind, required).
Column = Tuple[str, str, bool]


def _cols(spec: str, kind: str = NUMBER, required: bool = True) -> List[Column]:
    return [(c, kind, required) for c in spec.split(",")]


#: The columns each table must have (others may follow), by file name; ``latency_hist.csv``
#: depends on the model (:func:`table_columns`).
TABLES: Dict[str, List[Column]] = {
    "nodes.csv": [("t_start_s", NUMBER, True), ("node", TEXT, True), *_cols("tx_bytes,rx_bytes")],
    "flows.csv": [("src", TEXT, True), ("dst", TEXT, True), *_cols("tx_bytes,rx_bytes")],
    "buffers.csv": [("t_start_s", NUMBER, True), ("switch", TEXT, True),
                    *_cols("port,vl,mean_credits,max_credits")],
    "output_buffers.csv": [("t_start_s", NUMBER, True), ("switch", TEXT, True),
                           *_cols("port,vl,queue,capacity_credits,mean_credits,max_credits")],
    "links.csv": [("t_start_s", NUMBER, True), ("from", TEXT, True), ("port", NUMBER, True),
                  ("to", TEXT, True), *_cols("bytes,mbps")],
    "ccti.csv": [("t_start_s", NUMBER, True), ("src", TEXT, True), ("dst", TEXT, True),
                 *_cols("vl,ccti_end,ccti_max")],
    "cc_ports.csv": [("switch", TEXT, True), *_cols("port,vl,fecn_marks,congested_s")],
    "routers.csv": [("router", NUMBER, True), ("name", TEXT, False), ("injected_load", NUMBER, False),
                    ("accepted_load", NUMBER, True)],
    "bins.csv": [*_cols("start_cycle,end_cycle,generated,delivered"),
                 *_cols("accepted_load,latency_mean,nonminimal_fraction", NUMBER_OR_BLANK)],
    "qcn_probabilities.csv": [*_cols("cycle,time_us,router"), ("name", TEXT, True), *_cols("port,probability"),
                              ("cause", TEXT, True), ("fb", NUMBER, True)],
}
LATENCY_IB: List[Column] = _cols("lower_ns,upper_ns,count")
LATENCY_CYCLE: List[Column] = _cols("lo_cycles,hi_cycles,count")

#: sweep.csv: the columns it must have (the swept keys come first, the summary fields after).
SWEEP_TABLE: List[Column] = [("point", TEXT, True), ("status", TEXT, True), ("seed", NUMBER_OR_BLANK, False)]


def table_columns(name: str, cycle: bool = False) -> List[Column]:
    """The documented columns of the table ``name`` (a file name of a results folder) of the
    credit-level model, or of the cycle-level model with ``cycle``."""
    if name == "latency_hist.csv":
        return LATENCY_CYCLE if cycle else LATENCY_IB
    return TABLES.get(name, [])


def _shown(value: Any, limit: int = 40, quote: bool = True) -> str:
    """``value`` for a message: strings quoted (unless not ``quote``), cut at ``limit``."""
    text = repr(value) if isinstance(value, str) and quote else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Cell texts read as "no value" in number columns (pandas' default list).
NA_WORDS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
            "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")

#: Bytes looked at to tell a text file from a binary one.
SNIFF_BYTES = 1 << 16


def _is_text(path: Path) -> bool:
    """False when the start of the file holds a NUL byte or is not UTF-8 (a file that cannot be
    opened is left to the reader, which names the problem)."""
    import codecs

    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return True
    if b"\0" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)  # a cut last character is fine
    except UnicodeDecodeError:
        return False
    return True


def read_table(path: PathLike, columns: Sequence[Column]):
    """Reads the CSV table at ``path`` as a DataFrame and checks it against ``columns``: the
    file is UTF-8 text, a table, has every required column, and every number column holds
    numbers (or nothing, where allowed). Text columns are read as strings (node names like
    ``1`` stay strings); other columns as pandas infers them. Raises :class:`ResultsError`
    naming the file, line and column of the first problem."""
    import pandas as pd

    path = Path(path)
    required = [c for c, _, req in columns if req]
    header = f"`{','.join(required)}`"  # what the header line must hold (other columns may follow)
    text_cols = {c: str for c, kind, _ in columns if kind == TEXT}
    if not _is_text(path):
        raise ResultsError(path, f"not a text file (binary or not UTF-8; expected a CSV table with the columns {header})")
    try:
        # text columns: only an empty cell is missing (a node may be named "NA" or "null");
        # other columns: pandas' usual missing-value words
        names = pd.read_csv(path, nrows=0).columns
        na = {c: [""] if c in text_cols else list(NA_WORDS) for c in names}
        df = pd.read_csv(path, dtype=text_cols or None, skip_blank_lines=False, keep_default_na=False,
                         na_values=na)
    except pd.errors.EmptyDataError:
        raise ResultsError(path, f"empty file (expected a CSV table with the columns {header})") from None
    except UnicodeDecodeError:
        raise ResultsError(path, f"not a text file (binary or not UTF-8; expected a CSV table with the columns {header})") from None
    except pd.errors.ParserError as e:
        msg = " ".join(str(e).split()).replace("Error tokenizing data. C error: ", "")
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", msg)
        if m:
            raise ResultsError(path, f"not a valid CSV table: {m.group(3)} fields where the header has {m.group(1)}",
                               line=int(m.group(2))) from None
        raise ResultsError(path, f"not a valid CSV table: {msg}") from None
    except (OSError, ValueError) as e:
        raise ResultsError(path, f"cannot be read: {e}") from None
    # trailing empty lines are harmless; an empty line inside the table is not
    while len(df) and df.iloc[-1].isna().all():
        df = df.iloc[:-1]
    missing = [c for c in required if c not in df.columns]
    if missing:
        got = ",".join(str(c) for c in df.columns)
        plural = "s" if len(missing) > 1 else ""
        raise ResultsError(
            path,
            f"missing column{plural} {', '.join(f'`{c}`' for c in missing)} (expected a CSV table with the columns "
            f"{header}; the first line is `{_shown(got, 120, quote=False)}`)",
            column=missing[0],
            line=1,
        )
    for name, kind, _ in columns:
        if name not in df.columns:
            continue
        col = df[name]
        if kind == TEXT:
            if col.isna().any() and name in required:
                i = int(col.isna().to_numpy().nonzero()[0][0])
                raise ResultsError(path, f"column `{name}`: no value", column=name, line=i + 2)
            continue
        df[name] = number_column(col, path, name, blank_ok=kind == NUMBER_OR_BLANK)
    df.attrs["path"] = str(path)
    return df


def number_column(col, path: PathLike, name: str, blank_ok: bool = True, rows=None, first_line: int = 2):
    """``col`` (a pandas Series read from the CSV file ``path``) as numbers; raises
    :class:`ResultsError` at the first row (among ``rows``, a boolean mask, if given) whose
    value is not a number, or is blank unless ``blank_ok``. Row ``i`` is line
    ``i + first_line`` of the file."""
    import numpy as np
    import pandas as pd

    check = np.ones(len(col), dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    if pd.api.types.is_bool_dtype(col):
        num = pd.Series(np.nan, index=col.index)
    elif pd.api.types.is_numeric_dtype(col):
        num = col
    else:
        num = pd.to_numeric(col.map(lambda v: v if not isinstance(v, bool) else None), errors="coerce")
    present = col.notna().to_numpy()
    bad = check & present & num.isna().to_numpy()
    if bad.any():
        i = int(bad.nonzero()[0][0])
        raise ResultsError(path, f"column `{name}`: {_shown(col.iloc[i])} is not a number", column=name,
                           line=i + first_line)
    if not blank_ok:
        blank = check & ~present
        if blank.any():
            i = int(blank.nonzero()[0][0])
            raise ResultsError(path, f"column `{name}`: no value (expected a number)", column=name,
                               line=i + first_line)
    return num


def sweep_numbers(df, column: str):
    """The numbers of ``column`` of a sweep table in its successful rows (``status`` ok; other
    rows give NaN). A value of a successful row that is not a number (blank is allowed: the
    summary field was null) raises :class:`ResultsError` naming sweep.csv, the line and the
    column."""
    import pandas as pd

    col = df[column]
    ok = (df["status"] == "ok").to_numpy() if "status" in df.columns else None
    path = df.attrs.get("path") or (Path(df.attrs["out_dir"]) / "sweep.csv" if df.attrs.get("out_dir") else None)
    if path is None:  # a DataFrame built in memory: no file to name
        y = pd.to_numeric(col, errors="coerce")
    else:
        y = number_column(col, path, column, blank_ok=True, rows=ok)
    return y if ok is None else y.where(df["status"] == "ok")


# ---------------------------------------------------------------------------------------------
# summary.json

_N, _B, _O, _L, _S = "number", "true or false", "object", "list", "text"

#: Types of the known fields of summary.json (both models): dotted path -> expected kind; ``*``
#: matches any one key. A field may be absent; numbers and objects of results may be null.
SUMMARY_FIELDS: Dict[str, str] = {
    "scenario": _S, "model": _S, "version": _S,
    "seed": _N, "sim_time_s": _N, "interval_s": _N, "warmup_s": _N, "wall_time_s": _N, "events": _N,
    "flit_hops": _N, "packet_hops": _N, "flow_control_packets": _N, "peak_rss_bytes": _N, "flows_total": _N,
    "throughput": _O, "throughput.*": _N,
    "nodes": _O, "nodes.*": _O, "nodes.*.*": _N,
    "flows": _L,
    "latency_ns": _O, "latency_ns.*": _N, "network_latency_ns": _O, "network_latency_ns.*": _N,
    "fairness": _O, "fairness.jain": _N, "fairness.flows": _L, "fairness.window_start_s": _N,
    "fairness.per_destination": _O, "fairness.per_destination.*": _N,
    "fairness.jain_routers": _N, "fairness.min_router_load": _N, "fairness.max_router_load": _N,
    "fairness.rx_jain_non_hot": _N, "fairness.non_hot_destinations": _N, "fairness.hot_destinations": _L,
    "fairness.victims": _N, "fairness.victim_share": _N, "fairness.min_over_expected": _N,
    "fairness.victim_destinations": _L, "fairness.non_hot_rx_fraction": _O, "fairness.non_hot_rx_fraction.*": _N,
    "delivery": _O, "delivery.out_of_order_packets": _N,
    "cc": _O, "cc.enabled": _B, "cc.fecn_marks": _N, "cc.cnps_sent": _N, "cc.cnps_received": _N,
    "cc.max_ccti": _N, "cc.throttled_s": _N,
    "deadlock": _O, "deadlock.time_s": _N, "deadlock.blocked_packets": _N, "deadlock.cycle": _L,
    "conservation": _O,
    # cycle-level model
    "offered_load": _N, "accepted_load": _N, "injected_load": _N,
    "latency_cycles": _O, "latency_cycles.*": _N, "network_latency_cycles": _O, "network_latency_cycles.*": _N,
    "nonminimal_fraction": _N, "avg_hops": _N, "saturated": _B, "stopped_early": _B,
    "warmup_cycles": _N, "measured_cycles": _N, "change_cycle": _N,
    "packets": _O, "packets.*": _N, "phit_hops": _N, "phit_hops_per_s": _N,
    "recomputations": _N, "paths": _O, "paths.*": _N, "acor_level_share": _L,
}


def _kind_ok(v: Any, kind: str) -> bool:
    if v is None:
        return kind != _B
    if kind == _N:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind == _B:
        return isinstance(v, bool)
    if kind == _O:
        return isinstance(v, dict)
    if kind == _L:
        return isinstance(v, list)
    return isinstance(v, str)


def _expected(path: str) -> Optional[str]:
    if path in SUMMARY_FIELDS:
        return SUMMARY_FIELDS[path]
    parts = path.split(".")
    for pattern, kind in SUMMARY_FIELDS.items():
        pp = pattern.split(".")
        if len(pp) == len(parts) and all(p == "*" or p == q for p, q in zip(pp, parts)):
            return kind
    return None


def check_summary(summary: Any, path: PathLike) -> dict:
    """Checks a parsed summary.json: an object whose known fields (:data:`SUMMARY_FIELDS`) have
    the documented types. Returns it; raises :class:`ResultsError` naming the field."""
    if not isinstance(summary, dict):
        raise ResultsError(path, f"expected a JSON object {{...}} (a run's summary), got a JSON {_json_kind(summary)}")

    def walk(d: dict, prefix: str) -> None:
        for k, v in d.items():
            field = f"{prefix}{k}"
            kind = _expected(field)
            if kind is None:
                continue
            if not _kind_ok(v, kind):
                raise ResultsError(path, f"field `{field}`: expected {'a number' if kind == _N else kind}"
                                   f"{' or null' if kind not in (_B,) else ''}, got {_shown(json.dumps(v), quote=False)}",
                                   column=field)
            if isinstance(v, dict):
                walk(v, field + ".")

    walk(summary, "")
    return summary


def _json_kind(v: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(v), "number")


def read_summary(path: PathLike) -> dict:
    """Reads and checks a summary.json (:func:`check_summary`); raises :class:`ResultsError`
    naming the file (and the line of a JSON syntax error)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultsError(path, "not a text file (binary or not UTF-8; expected a JSON object)") from None
    except OSError as e:
        raise ResultsError(path, f"cannot be read: {e.strerror or e}") from None
    if not text.strip():
        raise ResultsError(path, "empty file (expected a JSON object, a run's summary)")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(path, f"not valid JSON: {e.msg} (column {e.colno})", line=e.lineno) from None
    except RecursionError:
        raise ResultsError(path, "not valid JSON: nested too deeply") from None
    return check_summary(value, path)


def read_json_object(path: PathLike) -> dict:
    """A JSON file holding an object (e.g. sweep.json), unchecked beyond that; raises
    :class:`ResultsError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        value = json.loads(text)
    except UnicodeDecodeError:
        raise ResultsError(path, "not a text file (binary or not UTF-8; expected a JSON object)") from None
    except json.JSONDecodeError as e:
        raise ResultsError(path, f"not valid JSON: {e.msg} (column {e.colno})", line=e.lineno) from None
    except OSError as e:
        raise ResultsError(path, f"cannot be read: {e.strerror or e}") from None
    if not isinstance(value, dict):
        raise ResultsError(path, f"expected a JSON object {{...}}, got a JSON {_json_kind(value)}")
    return value



# ---------------------------------------------------------------------------------------------
# sweep.json

#: Types of the fields of sweep.json that lnsim reads back (the others are not checked).
SWEEP_JSON_FIELDS: Dict[str, str] = {
    "scenario": _S, "version": _S, "executor": _S, "keys": _L, "overrides": _L, "values": _O, "points": _L,
    "seeds": _N, "jobs": _N, "simulated": _N, "reused": _N, "wall_time_s": _N,
}
#: Types of the fields of each element of ``points`` and of its ``runs``.
SWEEP_POINT_FIELDS: Dict[str, str] = {"point": _S, "dir": _S, "runs": _L}
SWEEP_RUN_FIELDS: Dict[str, str] = {"dir": _S}


def read_sweep_meta(path: PathLike) -> dict:
    """Reads and checks a sweep.json: a JSON object whose fields read back by lnsim
    (:data:`SWEEP_JSON_FIELDS`, and ``points[i].point/dir/runs``, ``points[i].runs[j].dir``)
    have the documented types. Raises :class:`ResultsError` naming the file and field."""
    meta = read_json_object(path)

    def check(d: dict, fields: Dict[str, str], prefix: str) -> None:
        for k, kind in fields.items():
            if k in d and not _kind_ok(d[k], kind):
                raise ResultsError(path, f"field `{prefix}{k}`: expected {'a number' if kind == _N else kind}, got "
                                   f"{_shown(json.dumps(d[k]), quote=False)}", column=f"{prefix}{k}")

    check(meta, SWEEP_JSON_FIELDS, "")
    for i, p in enumerate(meta.get("points") or []):
        if not isinstance(p, dict):
            raise ResultsError(path, f"field `points[{i}]`: expected an object, got {_shown(json.dumps(p), quote=False)}",
                               column=f"points[{i}]")
        check(p, SWEEP_POINT_FIELDS, f"points[{i}].")
        for j, r in enumerate(p.get("runs") or []):
            if not isinstance(r, dict):
                raise ResultsError(path, f"field `points[{i}].runs[{j}]`: expected an object", column=f"points[{i}].runs[{j}]")
            check(r, SWEEP_RUN_FIELDS, f"points[{i}].runs[{j}].")
    if any(not isinstance(k, str) for k in meta.get("keys") or []):
        raise ResultsError(path, "field `keys`: expected a list of key paths (text)", column="keys")
    return meta
