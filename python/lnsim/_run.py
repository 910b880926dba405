"""One scenario through the compiled core (:mod:`lnsim._core`): :func:`run`, :func:`validate`,
:func:`estimate_memory`, the scenario keys (:func:`keys`, :func:`scenario_schema`), and the
checks of what the Python API passes on (overrides, seeds, memory limits). The package
re-exports the public names (``lnsim.run``, ``lnsim.validate``, ...); the sweep
(:mod:`lnsim._sweep`) and the executors (:mod:`lnsim.executors`) call them here.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Iterable, Optional, Union

import lnsim._core as _core

from ._core import ScenarioError
from ._results import PathLike, RunResult


def _overrides(overrides: Optional[Iterable[str]]) -> list:
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, dict):
        return [f"{k}={_toml_value(v)}" for k, v in overrides.items()]
    return [str(o) for o in overrides]


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return v  # unquoted strings are taken as strings by the core ("0.2s", "dmodk")
    return json.dumps(v)  # lists of numbers/strings are valid TOML literals too


#: Largest seed (``sim.seed``, ``--seed``, ``seed=``): seeds are TOML integers, 0 … 2^63 − 1.
MAX_SEED = 2**63 - 1


def check_seed(seed: Any, what: str = "seed") -> Optional[int]:
    """``seed`` as an int when it is a whole number in 0 … :data:`MAX_SEED` (``None`` stays
    ``None``); raises :class:`ScenarioError` naming ``what`` otherwise."""
    if seed is None:
        return None
    import numbers

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ScenarioError(f"{what} {seed!r}: expected a whole number 0 … {MAX_SEED}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ScenarioError(f"{what} {seed}: outside the allowed range 0 … {MAX_SEED} (seeds are TOML integers)")
    return int(seed)


def _max_memory(value: Any) -> Optional[str]:
    """``max_memory=`` as the size text the core parses: bytes (int) or ``"4GiB"``, ``"500MB"``."""
    if value is None:
        return None
    import numbers

    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, str)):
        raise ScenarioError(f"max_memory {value!r}: expected a size such as 4GiB, 500MB or a number of bytes")
    if isinstance(value, numbers.Integral):
        if int(value) <= 0:
            raise ScenarioError(f"max_memory {value}: must be positive")
        return str(int(value))
    return value


#: The largest input file (scenario, topology file, ...) lnsim reads, in bytes (the core's).
MAX_INPUT_BYTES: int = _core.MAX_INPUT_BYTES


def read_scenario(scenario: PathLike) -> str:
    """The text of the scenario file ``scenario``, read as the core reads it: a regular UTF-8
    file of at most :data:`MAX_INPUT_BYTES`; a FIFO, a device or a folder is refused before it is
    opened (it could block or never end). Raises :class:`ScenarioError` naming the file."""
    return _core.read_scenario(os.fspath(scenario))


def run(
    scenario: PathLike,
    overrides: Optional[Iterable[str]] = None,
    seed: Optional[int] = None,
    out: Optional[PathLike] = None,
    progress: bool = False,
    max_memory: Optional[Union[int, str]] = None,
    *,
    _stop=None,
) -> RunResult:
    """Runs a scenario file and returns its results.

    ``overrides`` are ``"key.path=value"`` strings (like ``--set``) or a dict
    ``{"sim.end_time": "0.02s"}``; ``seed`` overrides ``sim.seed`` (0 … 2^63 − 1); ``out`` is the
    results folder (default ``results/<scenario name>/`` under the current directory).
    ``max_memory`` (bytes, or a size such as ``"4GiB"``) refuses a scenario whose memory
    estimate is larger (default: the memory available). Raises :class:`ScenarioError` for bad
    input and :class:`SimulationError` for internal failures.

    ``out`` must be absent, empty, or the results folder of a run that holds nothing but what
    lnsim wrote there (its ``.lnsim`` marker lists it: the run's files, figures, report); such a
    folder is replaced whole, atomically. A folder of another kind (a sweep, a bench, figures),
    a folder inside a sweep folder, a results folder holding entries lnsim did not write (they
    are named: move them out), any other existing folder, a file, a path under a file or an
    unwritable place raises :class:`ScenarioError` before anything runs, and nothing is written
    (the core checks the folder it replaces: ``crates/lnsim/src/outdir.rs``).

    Ctrl-C (``KeyboardInterrupt``) stops the run; it still raises ``KeyboardInterrupt``, but
    first writes what was simulated so far as a results folder marked incomplete
    (``summary.json`` has ``"complete": false`` and ``"stop_reason": "interrupted"``; the
    marker too). The exception's ``result`` attribute is that folder's :class:`RunResult`
    (``None`` when the run was interrupted before it started simulating). Every complete run
    has ``"complete": true``.

    A run that deadlocks (possible only with ``sim.allow_deadlock = true``) does not raise: it
    writes its results folder and returns a result whose :attr:`RunResult.deadlock` describes
    the credit loop (``None`` otherwise); check it.
    """
    try:
        res = _core.run(
            os.fspath(scenario),
            _overrides(overrides),
            check_seed(seed),
            None if out is None else os.fspath(out),
            bool(progress),
            _max_memory(max_memory),
            _stop,
        )
    except KeyboardInterrupt as e:
        out_dir = getattr(e, "out_dir", None)
        e.result = None if out_dir is None else RunResult(out_dir, getattr(e, "summary", None))
        raise
    return RunResult(res["out_dir"], res["summary"])


def validate(
    scenario: PathLike,
    overrides: Optional[Iterable[str]] = None,
    max_memory: Optional[Union[int, str]] = None,
) -> str:
    """Checks a scenario without running it (the same checks :func:`run` makes before
    simulating, and the memory estimate against ``max_memory`` or the memory available);
    returns the core's report, which states the estimate.

    Raises :class:`ScenarioError` naming the offending key when the scenario is invalid.
    """
    return _core.validate(os.fspath(scenario), _overrides(overrides), _max_memory(max_memory))


def estimate_memory(scenario: PathLike, overrides: Optional[Iterable[str]] = None) -> dict:
    """The memory a scenario needs, estimated without building it: ``{"total": bytes,
    "parts": [(name, bytes), ...]}``, largest part first."""
    return _core.estimate_memory(os.fspath(scenario), _overrides(overrides))


def keys(prefix: Optional[str] = None) -> list:
    """Every scenario key (those under ``prefix``, e.g. ``"router"`` or ``"traffic.flows"``):
    dicts with ``path``, ``type`` (type and range in words), ``kind``, ``min``, ``max``,
    ``allowed``, ``unit``, ``default``, ``model``, ``required`` and ``doc``. The same metadata
    drives ``lnsim keys``, ``lnsim schema`` and the README's configuration reference."""
    return [k for k in _core.keys() if prefix is None or key_matches(k["path"], prefix)]


def scenario_schema() -> dict:
    """The JSON Schema (draft-07) of the scenario format (``lnsim schema``)."""
    return json.loads(_core.json_schema())


def key_matches(path: str, prefix: str) -> bool:
    """Is key `path` (README notation: `traffic.flows[].src`, `links.<class>.rate`) under
    `prefix`, written either way (`traffic.flows`, `traffic.flows[0]`, `links.host`)?"""
    prefix = re.sub(r"\[\d*\]", "", prefix.strip()).rstrip(".")
    if not prefix:
        return True
    spellings = {path.replace("[]", "")}
    for ph, names in (("<class>_ports", ("host_ports", "fabric_ports")), ("<class>", ("host", "fabric")),
                      ("<phase>", ("before", "after"))):
        spellings |= {s.replace(ph, n) for s in spellings for n in names}
    return any(s == prefix or s.startswith(prefix + ".") for s in spellings)
