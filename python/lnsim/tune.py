"""``lnsim tune``: search the InfiniBand congestion-control parameters of a scenario (its fabric
and its jobs) for the best value of an objective the user states, with an Optuna study
(docs/tune.md).

What is searched (:data:`DEFAULT_SPACE`, overridable by ``--space FILE.toml``): the switches'
``cc.threshold`` and ``cc.marking_rate``, the channel adapters' ``cc.ccti_increase``,
``cc.ccti_timer`` (in OpenSM's unit, ticks of 1.024 µs, so that every trial is exactly
expressible in OpenSM's configuration) and ``cc.ccti_limit``, and the shape of the Congestion
Control Table: ``cct.shape`` (``linear`` or ``quadratic`` in the CCTI) and ``cct.max_ird`` (the
injection-rate delay at CCTI_Limit, in packet times). Each trial's table is quantised to IBA
entries (``multiplier``, ``shift``) as OpenSM would send it (:func:`lnsim.opensm_cc.cct_entries`)
and run from that file (``cc.cct.algorithm = "file"``): what is simulated is what is exported.

The objective (``--objective``, :func:`parse_objective`): ``max`` or ``min`` of a weighted sum of
summary.json fields (flattened with dots, e.g. ``jobs.victim.rx_gbps_window``), then
``;``-separated constraints ``FIELD >= VALUE`` / ``FIELD <= VALUE``, where VALUE is a number or
``P% off``: P % of that field in the run with congestion control off (run once, the reference).

Every trial is a normal run folder (``DIR/trials/NNNN/``) recorded in the results store
(``DIR/store.sqlite``, :mod:`lnsim.store`), run by the sweep executors (:mod:`lnsim.executors`:
a local process pool, or a Dask cluster); the study lives in ``DIR/tune.db`` (Optuna's RDB
storage on SQLite), so a second invocation continues it: finished trials are not run again, and
a trial a killed invocation left running is asked again with the same parameters (its run, if
it had finished, is taken from the store). The sampler (TPE, seeded by ``--seed``) makes the
same command give the same trials.

Outputs in DIR: ``trials.csv`` (one row per trial: parameters, objective, every term and
constraint, feasible, on the Pareto front), ``best.json`` (best settings and their figures, the
default settings' and CC off's), ``tradeoff.png`` (the objective's terms of every trial, the
Pareto front marked), ``parameters.png`` (the objective against each searched parameter) and ``opensm-cc.conf`` (the best settings as OpenSM congestion-control
configuration lines, :mod:`lnsim.opensm_cc`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from . import _run
from ._core import ScenarioError, version
from ._exit import InputError
from ._outdir import (
    KIND_SWEEP,
    FolderLock,
    check_folder,
    check_replaceable,
    claim_file,
    prepare_folder,
    write_own_file,
)
from ._results import flatten_summary
from ._sweep import file_hash, run_key
from .opensm_cc import CCT_MAX_ENTRIES, TIMER_TICK_NS, cct_entries, write_conf
from .store import ResultsStore

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

#: The search space when ``--space`` does not change it: parameter -> ``low``/``high`` (ints or
#: floats, ``log`` for a logarithmic scale) or ``choices``. ``cc.*`` names are scenario keys
#: (``cc.ccti_timer`` counted in ticks of 1.024 µs); ``cct.*`` are the table's shape.
DEFAULT_SPACE: Dict[str, Dict[str, Any]] = {
    "cc.threshold": {"low": 1, "high": 15},
    "cc.marking_rate": {"low": 0, "high": 64},
    "cc.ccti_increase": {"low": 1, "high": 16},
    "cc.ccti_timer": {"low": 2, "high": 200},
    "cc.ccti_limit": {"low": 16, "high": CCT_MAX_ENTRIES - 1},
    "cct.shape": {"choices": ["linear", "quadratic"]},
    "cct.max_ird": {"low": 0.25, "high": 64.0, "log": True},
}
#: The table-shape parameters (the rest are scenario keys).
CCT_PARAMS = ("cct.shape", "cct.max_ird")
#: Allowed table shapes: the IRD grows with CCTI**exponent.
CCT_SHAPES = {"linear": 1, "quadratic": 2}
#: Files of a tune folder.
STUDY_DB, TRIALS_CSV, BEST_JSON, TRADEOFF_PNG, PARAMETERS_PNG, OPENSM_CONF = (
    "tune.db", "trials.csv", "best.json", "tradeoff.png", "parameters.png", "opensm-cc.conf")
#: The Optuna study's name inside ``tune.db``.
STUDY_NAME = "lnsim-tune"
#: The most trials one study may run.
MAX_TRIALS = 100_000

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PATH = r"[A-Za-z_][\w\-]*(?:\.[\w\-\[\]]+)*"


# ---------------------------------------------------------------------------------------------
# the objective


class Objective:
    """A parsed ``--objective``: ``direction`` (``maximize``/``minimize``), ``terms`` (weight,
    summary field) summed, and ``constraints`` (field, ``>=``/``<=``, value, relative: the value
    is a fraction of CC off's field)."""

    def __init__(self, spec: str, direction: str, terms: List[Tuple[float, str]],
                 constraints: List[Tuple[str, str, float, bool]]):
        self.spec = spec
        self.direction = direction
        self.terms = terms
        self.constraints = constraints

    def fields(self) -> List[str]:
        """Every summary field the objective reads, objective terms first, no duplicates."""
        out: List[str] = []
        for f in [p for _, p in self.terms] + [c[0] for c in self.constraints]:
            if f not in out:
                out.append(f)
        return out

    def senses(self) -> Dict[str, int]:
        """Per field: +1 when more is better, -1 when less is (the Pareto front's order)."""
        sign = 1 if self.direction == "maximize" else -1
        out: Dict[str, int] = {}
        for w, p in self.terms:
            out.setdefault(p, sign if w >= 0 else -sign)
        for f, op, _, _ in self.constraints:
            out.setdefault(f, 1 if op == ">=" else -1)
        return out

    def evaluate(self, s: Dict[str, Any], off: Dict[str, Any]) -> Tuple[float, Dict[str, float], List[float]]:
        """The objective value, every field's value and the constraint values (<= 0: satisfied)
        of a run's flattened summary ``s`` (``off``: the CC-off run's)."""
        vals = {f: _field(s, f) for f in self.fields()}
        value = sum(w * vals[p] for w, p in self.terms)
        cons = []
        for f, op, v, rel in self.constraints:
            bound = v * _field(off, f) if rel else v
            cons.append(bound - vals[f] if op == ">=" else vals[f] - bound)
        return value, vals, cons


def _field(s: Dict[str, Any], f: str) -> float:
    v = s.get(f)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)):
        return 0.0 if v is None else float("nan")
    return float(v)


def parse_objective(spec: str) -> Objective:
    """Parses ``--objective`` (grammar in the module docstring and docs/tune.md); bad input raises
    :class:`InputError` naming ``--objective`` and the clause."""
    def bad(clause: str, why: str) -> InputError:
        return InputError(f"--objective: `{clause.strip()}`: {why}")

    clauses = [c for c in spec.split(";")]
    if not spec.strip():
        raise InputError("--objective: empty; e.g. \"max jobs.victim.rx_gbps_window\"")
    head = clauses[0].strip()
    m = re.fullmatch(r"(max|min|maximize|minimize)\s+(.+)", head)
    if not m:
        raise bad(head, "begins with `max` or `min`, then a weighted sum of summary.json fields "
                        "(e.g. `max jobs.victim.rx_gbps_window + 0.5*fairness.jain`)")
    direction = "maximize" if m.group(1).startswith("max") else "minimize"
    terms: List[Tuple[float, str]] = []
    body = m.group(2).strip()
    pos = 0
    term_re = re.compile(rf"\s*([-+])?\s*(?:({_NUM})\s*\*\s*)?({_PATH})\s*")
    first = True
    while pos < len(body):
        t = term_re.match(body, pos)
        if not t or t.end() == pos or (not first and t.group(1) is None):
            raise bad(head, f"cannot read the sum at `{body[pos:]}`; terms are FIELD or WEIGHT*FIELD joined by + or -")
        w = float(t.group(2)) if t.group(2) else 1.0
        if t.group(1) == "-":
            w = -w
        if not math.isfinite(w):
            raise bad(head, f"weight {t.group(2)} is not a finite number")
        terms.append((w, t.group(3)))
        pos = t.end()
        first = False
    if not terms:
        raise bad(head, "no term to optimise")
    cons = []
    for c in clauses[1:]:
        if not c.strip():
            continue
        cm = re.fullmatch(rf"\s*({_PATH})\s*(>=|<=)\s*({_NUM})\s*(%\s*off)?\s*", c)
        if not cm:
            raise bad(c, "a constraint is FIELD >= VALUE or FIELD <= VALUE, VALUE a number or `P% off` "
                         "(P % of the field with congestion control off)")
        v = float(cm.group(3))
        rel = cm.group(4) is not None
        if not math.isfinite(v):
            raise bad(c, "the bound is not a finite number")
        cons.append((cm.group(1), cm.group(2), v / 100.0 if rel else v, rel))
    return Objective(spec, direction, terms, cons)


def check_fields(obj: Objective, summary: Dict[str, Any]) -> None:
    """Refuses (exit status 2) an objective field that is not a number of summary.json."""
    for f in obj.fields():
        v = summary.get(f)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            head = f.split(".")[0]
            last = f.split(".")[-1]
            near = sorted((k for k, x in summary.items() if k.split(".")[0] == head
                           and isinstance(x, (int, float)) and not isinstance(x, bool)),
                          key=lambda k: (k.split(".")[-1] != last, k))[:12]  # same last name first
            hint = f"; numeric fields under `{head}`: {', '.join(near)}" if near else \
                "; jobs are named by `traffic.generators[].job` / `traffic.flows[].job`"
            what = "not a field of summary.json" if v is None and f not in summary else "not a number in summary.json"
            raise InputError(f"--objective: `{f}` is {what} (of the run with congestion control off){hint}")


# ---------------------------------------------------------------------------------------------
# the search space


def load_space(path: Optional[str]) -> Dict[str, Dict[str, Any]]:
    """:data:`DEFAULT_SPACE` with the ``[space]`` table of ``path`` (a TOML file) merged in: an
    entry replaces the default's; ``{ value = X }`` fixes a parameter. Bad entries raise
    :class:`InputError` naming the file and the key."""
    space = {k: dict(v) for k, v in DEFAULT_SPACE.items()}
    if path is None:
        return space
    where = f"--space {path}"
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except OSError as e:
        raise InputError(f"{where}: cannot be read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{where}: TOML syntax error: {e}") from None
    extra = sorted(set(doc) - {"space"})
    if extra:
        raise InputError(f"{where}: unknown table or key `{extra[0]}`; the file has one table, [space]")
    table = doc.get("space", {})
    if not isinstance(table, dict):
        raise InputError(f"{where}: `space` must be a table of parameter = {{ low, high }} entries")
    known_keys = {k["path"] for k in _run.keys("cc")}
    for name, entry in table.items():
        key = f"{where}: key `space.\"{name}\"`"
        if name not in DEFAULT_SPACE and name not in known_keys:
            raise InputError(f"{key}: not a parameter lnsim tune searches; allowed: {', '.join(DEFAULT_SPACE)} "
                             "or another numeric cc.* key (see `lnsim keys cc`)")
        if name in ("cc.enabled", "cc.cct.algorithm", "cc.cct.file", "cc.cct.div", "cc.cct.scale"):
            raise InputError(f"{key}: set by lnsim tune itself (the table is searched as cct.shape and cct.max_ird)")
        if not isinstance(entry, dict):
            raise InputError(f"{key}: must be a table, e.g. {{ low = 1, high = 15 }}, {{ choices = [...] }} "
                             "or {{ value = 4 }}")
        unknown = sorted(set(entry) - {"low", "high", "log", "choices", "value"})
        if unknown:
            raise InputError(f"{key}: unknown field `{unknown[0]}`; allowed: low, high, log, choices, value")
        if "value" in entry:
            if len(entry) != 1:
                raise InputError(f"{key}: `value` fixes the parameter and takes no other field")
        elif "choices" in entry:
            ch = entry["choices"]
            if set(entry) - {"choices"} or not isinstance(ch, list) or not ch:
                raise InputError(f"{key}: `choices` is a non-empty list and takes no other field")
            if name == "cct.shape" and any(c not in CCT_SHAPES for c in ch):
                raise InputError(f"{key}: choices must be among {', '.join(CCT_SHAPES)}")
        else:
            lo, hi = entry.get("low"), entry.get("high")
            nums = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi))
            if not nums:
                raise InputError(f"{key}: give numbers `low` and `high` (or `choices`, or `value`)")
            if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
                raise InputError(f"{key}: low {lo} > high {hi} (or not finite)")
            if entry.get("log") and lo <= 0:
                raise InputError(f"{key}: a log scale needs low > 0")
            if name == "cct.shape":
                raise InputError(f"{key}: give `choices` among {', '.join(CCT_SHAPES)}")
            if name in ("cct.max_ird",) and lo <= 0:
                raise InputError(f"{key}: the IRD at CCTI_Limit must be positive")
            if name == "cc.ccti_limit" and hi > CCT_MAX_ENTRIES - 1:
                raise InputError(f"{key}: high {hi} is more than OpenSM's CCTI_Limit can be "
                                 f"({CCT_MAX_ENTRIES - 1}: a CCT has at most {CCT_MAX_ENTRIES} entries)")
        space[name] = dict(entry)
    return space


def _suggest(trial, name: str, entry: Dict[str, Any]):
    if "value" in entry:
        return entry["value"]
    if "choices" in entry:
        return trial.suggest_categorical(name, entry["choices"])
    lo, hi = entry["low"], entry["high"]
    if isinstance(lo, int) and isinstance(hi, int):
        return trial.suggest_int(name, lo, hi, log=bool(entry.get("log")))
    return trial.suggest_float(name, float(lo), float(hi), log=bool(entry.get("log")))


def settings_of(space: Dict[str, Dict[str, Any]], params: Dict[str, Any]) -> Dict[str, Any]:
    """Every parameter's value: a searched one from ``params``, a fixed one from the space."""
    return {k: (e["value"] if "value" in e else params[k]) for k, e in space.items()}


def trial_overrides(settings: Dict[str, Any], cct_file: Optional[Path]) -> List[str]:
    """The ``--set`` overrides of a trial's settings (CC on; the timer in 1.024 µs ticks; the
    table from ``cct_file``)."""
    out = ["cc.enabled=true"]
    for k, v in settings.items():
        if k in CCT_PARAMS:
            continue
        if k == "cc.ccti_timer":
            out.append(f"{k}={int(round(v)) * TIMER_TICK_NS}ns")
        else:
            out.append(f"{k}={_run._toml_value(v)}")
    th = settings.get("cc.threshold")
    if th is not None and "cc.reset_threshold" not in settings:
        # lnsim's hysteresis keeps its default pairing (threshold 2, reset 3): one weight above
        # the threshold, none at 15 (OpenSM has no Reset_Threshold option)
        out.append(f"cc.reset_threshold={int(th) + 1 if int(th) < 15 and int(th) > 0 else 0}")
    if cct_file is not None:
        out += ["cc.cct.algorithm=file", f"cc.cct.file={os.fspath(cct_file)}"]
    return out


def trial_cct(settings: Dict[str, Any]) -> Optional[List[Tuple[int, int]]]:
    """The IBA CCT entries (shift, multiplier) of a trial: ``CCT_MAX_ENTRIES`` entries of the
    shape, the IRD at CCTI_Limit = ``cct.max_ird``; None when the space has no table shape."""
    if not all(k in settings for k in CCT_PARAMS):
        return None
    limit = int(settings.get("cc.ccti_limit", CCT_MAX_ENTRIES - 1))
    p = CCT_SHAPES[settings["cct.shape"]]
    top = float(settings["cct.max_ird"])
    ird = [top * (min(i, limit) / max(limit, 1)) ** p for i in range(CCT_MAX_ENTRIES)]
    return cct_entries(ird)


# ---------------------------------------------------------------------------------------------
# running trials


class _Runner:
    """Runs (or takes from the store) the runs of one tune folder."""

    def __init__(self, scenario: Path, out: Path, user: List[str], seed: Optional[int], jobs, dask,
                 max_memory, store: ResultsStore, progress: bool):
        self.scenario, self.out, self.user, self.seed = scenario, out, user, seed
        self.jobs, self.dask, self.max_memory, self.store = jobs, dask, max_memory, store
        self.progress = progress
        self.version = version()
        self.scen_hash = file_hash(scenario)
        self.simulated = 0
        self.reused = 0

    def run(self, runs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """Runs ``runs`` (each ``{"point", "dir", "overrides", "values"}``) and returns their
        outcomes ``{"status", "summary" (flattened), "error"}`` in order; a run the store holds
        (same scenario bytes, overrides, seed, version) is not run again."""
        from .executors import STATUS_OK, make_executor

        records = self.store.records()
        outcomes: List[Optional[Dict[str, Any]]] = [None] * len(runs)
        todo = []
        for i, r in enumerate(runs):
            r["overrides"] = [*self.user, *r["overrides"]]
            r["key"] = run_key(self.scen_hash, r["overrides"], self.seed, self.version)
            rec = records.get(r["key"])
            if rec and rec["status"] == STATUS_OK and rec["dir"] == r["dir"] and \
                    all((self.out / rec["dir"] / t).is_file() for t in rec["tables"] or []):
                outcomes[i] = {"status": STATUS_OK, "summary": rec["summary"], "error": None}
                self.reused += 1
            else:
                check_replaceable(self.out / r["dir"], f"run folder {r['dir']}")
                todo.append(i)
        if todo:
            tasks = [(os.fspath(self.scenario.resolve()), runs[i]["overrides"], self.seed, self.max_memory) for i in todo]
            executor = make_executor(self.jobs, len(tasks), self.dask)
            try:
                for j, outcome in executor.run(tasks):
                    if j < 0:
                        continue
                    r = runs[todo[j]]
                    ok = outcome["status"] == STATUS_OK
                    summary = flatten_summary(outcome["summary"]) if ok else None
                    self.store.commit_run({
                        "run_key": r["key"], "point": r["point"], "seed": self.seed, "dir": r["dir"],
                        "scenario": os.fspath(self.scenario), "scenario_hash": self.scen_hash,
                        "overrides": r["overrides"], "point_values": r["values"], "version": self.version,
                        "status": outcome["status"], "error": None if ok else outcome["error"],
                        "summary": summary, "wall_time_s": outcome.get("wall_time_s"),
                        "worker": outcome.get("worker"),
                    }, outcome.get("files"))
                    outcomes[todo[j]] = {"status": outcome["status"], "summary": summary,
                                         "error": None if ok else outcome["error"]}
                    self.simulated += 1
                    if self.progress:
                        print(f"lnsim tune: {r['point']} {outcome['status']}"
                              + ("" if ok else f": {outcome['error']}"), file=sys.stderr, flush=True)
            finally:
                executor.close()
        return outcomes  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# the command


def tune(scenario, objective: str, trials: int, out, space=None, overrides=None, jobs=None, dask=None,
         seed: int = 0, run_seed=None, max_memory=None, progress: bool = True) -> Dict[str, Any]:
    """Runs (or continues) the study of ``scenario`` into the folder ``out`` until it holds
    ``trials`` finished trials; writes the outputs and returns best.json's content. ``seed``
    seeds the sampler, ``run_seed`` overrides ``sim.seed`` of every run."""
    import optuna

    scenario = Path(scenario)
    out = Path(out)
    obj = parse_objective(objective)
    sp = load_space(space)
    user = _run._overrides(overrides)
    for o in user:
        k = o.split("=", 1)[0].strip()
        if k in sp or k.startswith("cc.cct") or k == "cc.enabled":
            raise InputError(f"--set {o}: `{k}` is set by lnsim tune in every trial; fix it in --space "
                             f"with {{ value = ... }} instead")
    if not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise InputError(f"--trials {trials}: expected 1 … {MAX_TRIALS}")
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs {jobs}: expected at least 1")
    seed = _run.check_seed(seed, "--seed") or 0
    run_seed = _run.check_seed(run_seed, "--run-seed")
    limit = _run._max_memory(max_memory)
    # the scenario and every bound of the space, as a run would read them
    _run.validate(scenario, overrides=user, max_memory=limit)
    for which in ("low", "high"):  # every parameter at one end of its range at once
        settings = {name: e.get("value", e.get(which)) for name, e in sp.items()
                    if name not in CCT_PARAMS and "choices" not in e}
        try:
            _run.validate(scenario, overrides=[*user, *trial_overrides(settings, None)], max_memory=limit)
        except ScenarioError as err:
            raise InputError(f"--space: a value at the `{which}` end of the search space is refused: {err}") from None

    protect = [(scenario.parent, "the scenario file's folder")]
    check_folder(out, "tune folder", protect=protect, kinds=[KIND_SWEEP])
    with ExitStack() as held:
        prepare_folder(out, KIND_SWEEP, "tune folder", protect=protect, kinds=[KIND_SWEEP])
        held.enter_context(FolderLock(out, "tune folder"))
        store = ResultsStore(out)
        held.callback(store.close)
        held.callback(store.clear_staging)
        store.clear_staging()
        runner = _Runner(scenario, out, user, run_seed, jobs, dask, limit, store, progress)
        t0 = time.perf_counter()

        # the references: CC off (the relative constraints' base) and the default CC settings
        off, default = runner.run([
            {"point": "cc-off", "dir": "reference/cc-off", "overrides": ["cc.enabled=false"], "values": {}},
            {"point": "default", "dir": "reference/default", "overrides": ["cc.enabled=true"], "values": {}},
        ])
        for name, o in (("cc-off", off), ("default", default)):
            if o["status"] != "ok":
                raise ScenarioError(f"the {name} reference run failed: {o['error']}")
        check_fields(obj, off["summary"])

        claim_file(out / STUDY_DB, "study database")
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        storage = optuna.storages.RDBStorage(f"sqlite:///{(out / STUDY_DB).resolve()}")
        identity = {"scenario_hash": runner.scen_hash, "objective": objective, "space": sp, "overrides": user,
                    "run_seed": run_seed, "seed": seed}
        # constraints reach the sampler through Trial.set_constraint (Optuna 5)
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(2, min(10, trials // 3)))
        study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction=obj.direction,
                                    sampler=sampler, load_if_exists=True)
        old = study.user_attrs.get("identity")
        if old is None:
            study.set_user_attr("identity", json.loads(json.dumps(identity)))
        elif old != json.loads(json.dumps(identity)):
            diff = [k for k in identity if json.loads(json.dumps(identity[k])) != old.get(k)]
            raise InputError(f"--out {out}: holds a study of another {', '.join(diff)}; "
                             "choose another --out to start a new study")
        # a trial a killed invocation left running: asked again with its parameters
        for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
            study.enqueue_trial(t.params, skip_if_exists=False)
            study.tell(t.number, state=optuna.trial.TrialState.FAIL)
            study.set_user_attr(f"abandoned_{t.number}", True)
        finished = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)

        def done() -> int:
            return sum(1 for t in study.get_trials(deepcopy=False, states=finished)
                       if not study.user_attrs.get(f"abandoned_{t.number}"))

        slots = jobs or os.cpu_count() or 1
        while done() < trials:
            batch = min(slots, trials - done())
            asked = [study.ask() for _ in range(batch)]
            runs = []
            for t in asked:
                st = settings_of(sp, {n: _suggest(t, n, e) for n, e in sp.items() if "value" not in e})
                cct = trial_cct(st)
                cct_file = None
                if cct is not None:
                    text = "".join(f"{m} {s}\n" for s, m in cct)
                    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                    cct_file = (out / f"cct-{digest}.txt").resolve()
                    if not cct_file.is_file():
                        write_own_file(cct_file, "# CCT of lnsim tune: multiplier shift (IRD = multiplier * 2^-shift)\n"
                                       + text, "CCT file")
                t.set_user_attr("settings", st)
                runs.append({"point": f"trial-{t.number:04d}", "dir": f"trials/{t.number:04d}",
                             "overrides": trial_overrides(st, cct_file), "values": st})
            outcomes = runner.run(runs)
            for t, o in zip(asked, outcomes):
                if o["status"] != "ok":
                    t.set_user_attr("error", o["error"])
                    study.tell(t, state=optuna.trial.TrialState.FAIL)
                    continue
                value, vals, cons = obj.evaluate(o["summary"], off["summary"])
                t.set_user_attr("fields", vals)
                t.set_user_attr("constraints", cons)
                for k, c in enumerate(cons):
                    t.set_constraint(f"c{k}", c)
                if math.isnan(value):
                    study.tell(t, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(t, value)
        wall = time.perf_counter() - t0
        return _write_outputs(out, study, obj, sp, off["summary"], default["summary"], runner, wall)


def _scenario_cc(run_dir: Path) -> Dict[str, Any]:
    """The ``[cc]`` table of a run's ``scenario.toml`` (the scenario as run; empty if absent)."""
    try:
        with open(run_dir / "scenario.toml", "rb") as f:
            cc = tomllib.load(f).get("cc", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return cc if isinstance(cc, dict) else {}


def _feasible(t) -> bool:
    return all(c <= 0 for c in t.user_attrs.get("constraints", []))


def pareto_front(points: List[Dict[str, float]], senses: Dict[str, int]) -> List[bool]:
    """Per point: True when no other point is at least as good in every field and better in
    one (``senses``: +1 more is better, -1 less is)."""
    keys = list(senses)

    def dominates(a, b) -> bool:
        ge = all(senses[k] * a[k] >= senses[k] * b[k] for k in keys)
        return ge and any(senses[k] * a[k] > senses[k] * b[k] for k in keys)

    return [not any(dominates(q, p) for q in points if q is not p) for p in points]


def _write_outputs(out: Path, study, obj: Objective, sp, off: Dict[str, Any], default: Dict[str, Any],
                   runner: _Runner, wall: float) -> Dict[str, Any]:
    import optuna
    import pandas as pd

    trials = [t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE]
    trials.sort(key=lambda t: t.number)
    fields = obj.fields()
    senses = obj.senses()
    pts = [t.user_attrs["fields"] for t in trials]
    front = pareto_front(pts, senses) if pts else []
    sign = 1 if obj.direction == "maximize" else -1
    feasible = [t for t in trials if _feasible(t)]
    best = max(feasible, key=lambda t: (sign * t.value, -t.number)) if feasible else None

    rows = []
    for t, on_front in zip(trials, front):
        row = {"trial": t.number, "run": f"trials/{t.number:04d}"}
        row.update(t.user_attrs["settings"])
        row["objective"] = t.value
        row.update(t.user_attrs["fields"])
        for (f, op, v, rel), c in zip(obj.constraints, t.user_attrs.get("constraints", [])):
            row[f"constraint: {f} {op} {v * 100:g}% off" if rel else f"constraint: {f} {op} {v:g}"] = c
        row["feasible"] = _feasible(t)
        row["pareto"] = on_front
        row["best"] = best is not None and t.number == best.number
        rows.append(row)
    failed = [t.number for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.FAIL
              and not study.user_attrs.get(f"abandoned_{t.number}")]
    write_own_file(out / TRIALS_CSV, pd.DataFrame(rows).to_csv(index=False))

    d_value, d_vals, d_cons = obj.evaluate(default, off)
    o_value, o_vals, o_cons = obj.evaluate(off, off)
    result: Dict[str, Any] = {
        "objective": obj.spec,
        "direction": obj.direction,
        "trials": len(trials),
        "failed_trials": failed,
        "simulated_runs": runner.simulated,
        "reused_runs": runner.reused,
        "wall_time_s": round(wall, 3),
        "cc_off": {"objective": o_value, "fields": o_vals, "feasible": all(c <= 0 for c in o_cons), "run": "reference/cc-off"},
        "default": {"objective": d_value, "fields": d_vals, "feasible": all(c <= 0 for c in d_cons), "run": "reference/default"},
        "searched": [n for n, e in sp.items() if "value" not in e],
        "best": None,
    }
    if best is not None:
        st = best.user_attrs["settings"]
        result["best"] = {
            "trial": best.number, "run": f"trials/{best.number:04d}", "objective": best.value,
            "fields": best.user_attrs["fields"], "settings": st,
            "ccti_timer_us": st["cc.ccti_timer"] * 1.024 if "cc.ccti_timer" in st else None,
        }
        conf, warnings = write_conf(st, trial_cct(st), scenario_cc=_scenario_cc(out / "reference" / "default"), header=[
            f"OpenSM congestion-control settings written by lnsim tune {version()} for review before use",
            f"(OpenSM labels its CC support experimental): trial {best.number} of {len(trials)}, the best on",
            f"`{obj.direction} {obj.spec}`; its run: {out / 'trials' / f'{best.number:04d}'}",
        ])
        write_own_file(out / OPENSM_CONF, conf)
        result["best"]["opensm_warnings"] = warnings
    write_own_file(out / BEST_JSON, json.dumps(result, indent=2) + "\n")
    points = _trial_points(trials, front)
    best_n = best.number if best is not None else None
    _tradeoff_png(out / TRADEOFF_PNG, obj, points, best_n, d_vals, o_vals)
    _parameters_png(out / PARAMETERS_PNG, obj, points, result["searched"], best_n, d_value, o_value)
    return result


def _trial_points(trials, front) -> List[Dict[str, Any]]:
    """The finished trials as the figures read them (what ``trials.csv`` holds too)."""
    return [{"number": t.number, "objective": t.value, "fields": t.user_attrs["fields"],
             "settings": t.user_attrs["settings"], "feasible": _feasible(t), "pareto": f}
            for t, f in zip(trials, front)]


def _tradeoff_png(path: Path, obj: Objective, points: List[Dict[str, Any]], best: Optional[int],
                  d_vals: Dict[str, float], o_vals: Dict[str, float]) -> Path:
    """The trade-off figure: the first two fields of the objective (with one field: the
    objective over the trials), every trial (``points``, :func:`_trial_points`), the Pareto
    front joined, the best trial (number ``best``), the default settings and CC off."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fields = obj.fields()
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    if len(fields) >= 2:
        fx, fy = fields[1], fields[0]
        get = lambda vals: (vals[fx], vals[fy])  # noqa: E731
        ax.set_xlabel(fx)
        ax.set_ylabel(fy)
    else:
        fy = fields[0]
        ax.set_xlabel("trial")
        ax.set_ylabel(fy)
    xs, ys, ok = [], [], []
    for t in points:
        v = t["fields"]
        x, y = get(v) if len(fields) >= 2 else (t["number"], v[fy])
        xs.append(x)
        ys.append(y)
        ok.append(t["feasible"])
    ax.scatter([x for x, o in zip(xs, ok) if o], [y for y, o in zip(ys, ok) if o], s=18, c="tab:blue", label="trial")
    if not all(ok):
        ax.scatter([x for x, o in zip(xs, ok) if not o], [y for y, o in zip(ys, ok) if not o], s=18, c="tab:gray",
                   marker="x", label="trial (constraint violated)")
    fr = sorted((x, y) for x, y, t in zip(xs, ys, points) if t["pareto"])
    if fr:
        ax.plot([p[0] for p in fr], [p[1] for p in fr], "-o", c="tab:red", ms=7, mfc="none", label="Pareto front")
    if len(fields) >= 2:
        for vals, mk, lab in ((d_vals, "D", "default CC"), (o_vals, "s", "CC off")):
            ax.scatter(*get(vals), marker=mk, s=50, c="k", label=lab)
    numbers = [t["number"] for t in points]
    if best is not None and best in numbers:
        i = numbers.index(best)
        ax.scatter([xs[i]], [ys[i]], marker="*", s=220, c="gold", edgecolors="k", label=f"best (trial {best})",
                   zorder=5)
    ax.set_title(f"lnsim tune: {obj.spec}"[:90], fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    write_own_file(path, lambda f: fig.savefig(f, format="png", dpi=110), "figure")
    plt.close(fig)
    return path


def _parameters_png(path: Path, obj: Objective, points: List[Dict[str, Any]], params: List[str],
                    best: Optional[int], d_value: float, o_value: float) -> Path:
    """The objective against each searched parameter, one panel per parameter (how sensitive
    the objective is to each, and where the best trial lies): feasible trials as dots, the
    others as crosses, the best starred; the default settings' and CC off's objective as
    horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(len(params), 1)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for k, name in enumerate(params):
        ax = axes[k // cols][k % cols]
        vals = [t["settings"].get(name) for t in points]
        labels = None
        if any(isinstance(v, str) for v in vals):
            labels = sorted({str(v) for v in vals})
            vals = [labels.index(str(v)) for v in vals]
            ax.set_xticks(range(len(labels)), labels)
        ys = [t["objective"] for t in points]
        ok = [t["feasible"] for t in points]
        ax.scatter([x for x, o in zip(vals, ok) if o], [y for y, o in zip(ys, ok) if o], s=16, c="tab:blue",
                   label="trial")
        if not all(ok):
            ax.scatter([x for x, o in zip(vals, ok) if not o], [y for y, o in zip(ys, ok) if not o], s=16,
                       c="tab:gray", marker="x", label="constraint violated")
        for i, t in enumerate(points):
            if t["number"] == best:
                ax.scatter([vals[i]], [ys[i]], marker="*", s=180, c="gold", edgecolors="k", zorder=5, label="best")
        for v, style, lab in ((d_value, "--", "default CC"), (o_value, ":", "CC off")):
            if v is not None and math.isfinite(v):
                ax.axhline(v, ls=style, c="k", lw=1, label=lab)
        ax.set_xlabel(name)
        if DEFAULT_SPACE.get(name, {}).get("log") and labels is None and all(x > 0 for x in vals):
            ax.set_xscale("log")
        if k % cols == 0:
            ax.set_ylabel("objective")
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7)
    for k in range(len(params), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    fig.suptitle(f"lnsim tune: {obj.spec}"[:110], fontsize=9)
    fig.tight_layout()
    write_own_file(path, lambda f: fig.savefig(f, format="png", dpi=110), "figure")
    plt.close(fig)
    return path


def plot_tune_folder(folder, out_dir=None) -> List[Path]:
    """Draws a tune folder's figures again from its ``trials.csv`` and ``best.json`` (what
    ``lnsim plot TUNE_DIR`` does; Optuna is not needed): ``tradeoff.png`` and
    ``parameters.png``, into the folder or ``out_dir`` (a figures folder). Raises
    :class:`InputError` when the folder is not a finished tune folder."""
    import pandas as pd

    from .plot._style import _figures_dir

    folder = Path(folder)
    missing = [f for f in (BEST_JSON, TRIALS_CSV) if not (folder / f).is_file()]
    if missing:
        raise InputError(f"{folder}: not a tune folder with finished trials (no {' nor '.join(missing)}; "
                         "`lnsim tune` writes them when its trials end)")
    try:
        result = json.loads((folder / BEST_JSON).read_text())
        obj = parse_objective(result["objective"])
        table = pd.read_csv(folder / TRIALS_CSV)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"{folder}: its {BEST_JSON} or {TRIALS_CSV} cannot be read ({e})") from None
    cols = list(table.columns)
    if "run" not in cols or "objective" not in cols:
        raise InputError(f"{folder / TRIALS_CSV}: lacks the `run` or `objective` column")
    settings = cols[cols.index("run") + 1:cols.index("objective")]
    params = [p for p in result.get("searched", settings) if p in settings]
    fields = obj.fields()
    lost = [f for f in fields if f not in cols]
    if lost:
        raise InputError(f"{folder / TRIALS_CSV}: lacks the objective's field(s) {', '.join(lost)}")
    true = lambda v: str(v) == "True"  # noqa: E731
    points = [{"number": int(r["trial"]), "objective": float(r["objective"]),
               "fields": {f: float(r[f]) for f in fields},
               "settings": {p: (r[p].item() if hasattr(r[p], "item") else r[p]) for p in settings},
               "feasible": true(r["feasible"]), "pareto": true(r["pareto"])} for _, r in table.iterrows()]
    best = (result.get("best") or {}).get("trial")
    target = _figures_dir(out_dir, folder)
    target.mkdir(parents=True, exist_ok=True)
    return [
        _tradeoff_png(target / TRADEOFF_PNG, obj, points, best, result["default"]["fields"],
                      result["cc_off"]["fields"]),
        _parameters_png(target / PARAMETERS_PNG, obj, points, params, best, result["default"]["objective"],
                        result["cc_off"]["objective"]),
    ]


def format_result(r: Dict[str, Any], out) -> str:
    """The lines ``lnsim tune`` prints."""
    lines = [f"objective       {r['direction']} {r['objective']}",
             f"trials          {r['trials']} finished ({len(r['failed_trials'])} failed), {r['simulated_runs']} runs "
             f"simulated, {r['reused_runs']} taken from the store, {r['wall_time_s']:.1f} s"]
    for name in ("cc_off", "default"):
        x = r[name]
        lines.append(f"{name.replace('_', ' '):<15} objective {x['objective']:.6g}"
                     + ("" if x["feasible"] else " (violates a constraint)"))
    b = r["best"]
    if b is None:
        lines.append("best            no trial satisfies the constraints")
    else:
        lines.append(f"best            objective {b['objective']:.6g} (trial {b['trial']}, {b['run']})")
        lines.append("settings        " + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                                                   for k, v in b["settings"].items()))
        for w in b.get("opensm_warnings") or []:
            lines.append(f"opensm note     {w}")
    lines.append(f"outputs         {Path(out) / TRIALS_CSV}, {TRADEOFF_PNG}, {PARAMETERS_PNG}, {BEST_JSON}, {OPENSM_CONF}")
    return "\n".join(lines)
