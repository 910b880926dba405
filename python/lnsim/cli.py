"""The ``lnsim`` command.

    lnsim run SCENARIO.toml [--set key.path=value]... [--seed N] [--out DIR] [--max-memory SIZE]
              [--no-progress] [--no-plot]
    lnsim validate SCENARIO.toml [--set key.path=value]... [--max-memory SIZE]
    lnsim sweep SCENARIO.toml [--set key.path=value]... [--grid key.path=v1,v2]... [--seeds N] [--dask ADDRESS]
                [--resume] [--out DIR] [--jobs N] [--seed N] [--max-memory SIZE]
                [--no-progress] [--no-plot]
    lnsim list [CATEGORY]
    lnsim keys [PREFIX] [--markdown]
    lnsim schema [--out FILE]
    lnsim plot DIR [--out DIR] [--metric FIELD] [--bound LABEL=VALUE]...
    lnsim report DIR [--out FILE]
    lnsim bench [--case NAME]... [--quick] [--scenarios DIR] [--out DIR]
    lnsim rules [--out DIR] [--radix K,K,...] [--dragonfly P,A,H,GROUPS] [--fb D1xD2x...:C]
                [--clos K,LEVELS,PODS] [--switch-ports K] [--tcam-fj-per-bit FJ] [--key-bits BITS] [--no-plot]

Exit status: 0 success, 2 bad input (the message names the key or path), 1 simulation or
unexpected error (a sweep: some point failed), 3 the run deadlocked (its results folder is
written), 130 interrupted (Ctrl-C, SIGINT, SIGTERM: a run writes what it simulated so
far as a results folder marked incomplete).

Output folders: lnsim writes only into a folder that is absent, empty, or marked by a ``.lnsim``
file as one it wrote (see :mod:`lnsim._outdir`); anything else is exit status 2.

A reader that goes away (``lnsim sweep ... | head -3``) does not stop the work: once a pipe is
closed, the rest of the output is discarded and the command finishes its results.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import List, Optional

# the exit statuses and InputError are also public names of this module
from ._exit import (
    EXIT_DEADLOCK,
    EXIT_ERROR,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    InputError,
    interruptible,
    report_error,
)
from ._format import format_ns, natural_key, no_window_note
from ._run import key_matches  # also a public name of this module

#: Per-node table rows printed after a run; the rest is in summary.json.
MAX_NODE_ROWS = 32


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one scenario value, e.g. --set cc.enabled=true or --set traffic.load=0.3 (repeatable)",
    )


def _add_max_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        default=None,
        help="refuse a scenario whose memory estimate exceeds SIZE, e.g. 4GiB or 500MB "
        "(default: the memory available; `lnsim validate` states the estimate)",
    )


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="lnsim",
        description="Simulate lossless interconnection networks (InfiniBand, HPC fabrics) at credit granularity.",
        epilog="Exit status: 0 ok, 2 bad input (nothing written), 1 simulation error (sweep: a point failed), "
        "3 the run deadlocked (results written), 130 interrupted (Ctrl-C or SIGTERM; a run writes its partial "
        "results, marked incomplete).",
    )
    parser.add_argument("--version", action="version", version=f"lnsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="run a scenario and write its results folder")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    _add_set(p)
    p.add_argument("--seed", type=int, default=None, help="override sim.seed (0 … 2^63 − 1)")
    p.add_argument("--out", metavar="DIR", default=None, help="results folder (default results/<scenario name>/)")
    _add_max_memory(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it is shown only on a terminal anyway)")
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG figures into the results folder")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "validate",
        help="check a scenario (topology, routes, traffic, memory) without running it",
        description="Build everything a run builds (with the same checks) and run nothing; print what was "
        "built and the memory estimate.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    _add_set(p)
    _add_max_memory(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "export",
        help="write a credit-level scenario's fabric as ibnetdiscover output and its forwarding tables as an LFT dump",
        description="Build the scenario's fabric and forwarding tables (run nothing) and write them as a real "
        "InfiniBand fabric's diagnostics show them: DIR/<name>.ibnetdiscover (ibnetdiscover output) and "
        "DIR/<name>.lfts (OpenSM's opensm-lfts.dump format). A built fabric gets deterministic GUIDs and LIDs; "
        "an imported one keeps its own. topology.kind = \"ibnetdiscover\" and routing.algorithm = \"lft_dump\" "
        "read them back (docs/fabrics.md).",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (credit-level model)")
    _add_set(p)
    p.add_argument("--out", metavar="DIR", default=None,
                   help="folder to write the two files into (default results/<scenario name>-fabric/)")
    p.add_argument("--lmc", type=int, default=0, metavar="N",
                   help="LID mask control of the HCA ports of a built fabric, 0-7 (default 0: one LID each)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "sweep",
        help="run every point of the scenario's [sweep] table in parallel; write sweep.csv",
        description="Run the Cartesian product of the scenario's [sweep] table (key path -> list of values), "
        "one run per point in DIR/points/<point>/, in parallel; write DIR/sweep.csv (one row per point: "
        "swept keys, point, status, error, seed, summary.json fields), DIR/sweep.json and the figures "
        "(sweep.png; load_latency.png and throughput.png for a load sweep of the cycle-level model). "
        "With --seeds N every point runs N times with the seeds BASE..BASE+N-1 (BASE: --seed, else the "
        "scenario's sim.seed), each in DIR/points/<point>/seed-<seed>/, one row per point and seed. "
        "Every run is recorded in DIR/store.sqlite as soon as it ends (atomically); --resume runs only "
        "what is missing. Points run on a local process pool, or on a Dask cluster with --dask.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (with a [sweep] table, or use --grid)")
    _add_set(p)
    p.add_argument("--out", metavar="DIR", default=None, help="sweep folder (default results/<scenario name>-sweep/)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="runs at once (default: all cores)")
    p.add_argument(
        "--seed", type=int, default=None, help="override sim.seed in every point (with --seeds: the first seed; 0 … 2^63 − 1)"
    )
    _add_max_memory(p)
    p.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="run every point N times, with the seeds BASE..BASE+N-1, BASE being --seed or the scenario's sim.seed "
        "(default: once, with the scenario's seed)",
    )
    p.add_argument(
        "--grid",
        dest="grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="sweep KEY over these values too (Cartesian product with the scenario's [sweep] table, which may "
        "then be absent; a KEY the table also sweeps gets these values instead; repeatable)",
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help="run the points as tasks on this Dask scheduler, e.g. tcp://127.0.0.1:8786 "
        "(default: $LNSIM_DASK_ADDRESS if set, else a local process pool)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs already in DIR's results store (store.sqlite) and run only the missing or failed "
        "ones (without it, a sweep into DIR starts afresh)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress output (failed points are still reported)")
    p.add_argument("--no-plot", action="store_true", help="do not write the sweep figures")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "tune",
        help="search the InfiniBand congestion-control parameters for the best value of an objective",
        description="Search the IB CC parameters (switch Threshold and Marking_Rate, CA CCTI_Increase, CCTI_Timer, "
        "CCTI_Limit, the CCT shape) of a scenario with an Optuna study: every trial is a run with congestion control "
        "on, recorded in DIR's results store; one run with CC off and one with the default settings are the "
        "references. Writes DIR/trials.csv, DIR/best.json, DIR/tradeoff.png and DIR/opensm-cc.conf (the best "
        "settings as OpenSM configuration lines). A second invocation on DIR continues the study (see docs/tune.md).",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file (its jobs named with traffic.*.job)")
    p.add_argument(
        "--objective",
        required=True,
        metavar="SPEC",
        help="max|min of a weighted sum of summary.json fields, then ;-separated constraints, e.g. "
        "\"max jobs.victim.rx_gbps_window; throughput.rx_gbps_after_warmup >= 95%% off; jobs.victim.jain >= 0.9\"",
    )
    p.add_argument("--trials", type=int, required=True, metavar="N", help="finished trials the study should hold")
    p.add_argument("--out", metavar="DIR", required=True, help="tune folder (study, run folders, outputs)")
    p.add_argument("--space", metavar="FILE.toml", default=None, help="search space changes ([space] table)")
    _add_set(p)
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="trials at once (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", default=None,
                   help="run the trials on this Dask scheduler (default: $LNSIM_DASK_ADDRESS if set, else a local pool)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampler (default 0)")
    p.add_argument("--run-seed", type=int, default=None, help="override sim.seed of every run")
    _add_max_memory(p)
    p.add_argument("--no-progress", action="store_true", help="do not print a line per finished run")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("plot", help="write the figures of a results folder, a sweep folder or a tune folder")
    p.add_argument("dir", metavar="DIR", help="results folder (with summary.json), sweep folder (with sweep.csv) "
                   "or tune folder (with tune.db: tradeoff.png and parameters.png)")
    p.add_argument("--out", metavar="DIR", default=None, help="where to write the PNGs (default: DIR)")
    p.add_argument(
        "--metric",
        default=None,
        metavar="FIELD",
        help="sweep folder: the sweep.csv column drawn into sweep.png (default throughput.total_rx_gbytes_per_s, "
        "or accepted_load for the cycle-level model; a load sweep draws load_latency.png and throughput.png "
        "unless --metric is given)",
    )
    p.add_argument(
        "--bound",
        dest="bounds",
        action="append",
        default=[],
        metavar="LABEL=VALUE",
        help="load sweep: an analytical bound in phits/node/cycle drawn as a reference line, "
        "e.g. --bound 'MIN 1/(ap)=0.0139' (repeatable)",
    )
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("bench", help="measure simulator speed and memory on fixed cases")
    p.add_argument("--case", dest="cases", action="append", default=[], metavar="NAME", help="run only this case (repeatable)")
    p.add_argument("--quick", action="store_true", help="shorten every case (smoke test)")
    p.add_argument("--scenarios", metavar="DIR", default=None, help="the scenarios/ folder (default: the repository's)")
    p.add_argument("--out", metavar="DIR", default=None, help="where bench.json goes (default results/bench/)")
    p.set_defaults(func=cmd_bench)

    from .report import add_parser as add_report_parser

    add_report_parser(sub)

    from .analysis.command import add_parser as add_rules_parser

    add_rules_parser(sub)

    p = sub.add_parser(
        "list",
        help="list the models, topologies, routings, traffic patterns and congestion control mechanisms",
        description="What a scenario can choose from, one line each, with the model that has it.",
    )
    p.add_argument(
        "category",
        nargs="?",
        default=None,
        metavar="CATEGORY",
        help="only this category: model, topology, routing, pattern or cc",
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "keys",
        help="list every scenario key with its type, unit, default, allowed values and meaning",
        description="Every scenario key (or those under PREFIX, e.g. `router` or `traffic.flows`) with its type and "
        "range, unit, default, the model that reads it and what it means.",
    )
    p.add_argument("prefix", nargs="?", default=None, metavar="PREFIX", help="only keys under this path")
    p.add_argument("--markdown", action="store_true", help="print the README's configuration reference table")
    p.set_defaults(func=cmd_keys)

    p = sub.add_parser(
        "schema",
        help="write a JSON Schema of the scenario format (for TOML editors)",
        description="Write a JSON Schema (draft-07) of the scenario format to stdout or FILE, for editors that "
        "validate TOML files against one (Taplo, Even Better TOML).",
    )
    p.add_argument("--out", metavar="FILE", default=None, help="write it to FILE (default: stdout)")
    p.set_defaults(func=cmd_schema)
    return parser


# ---------------------------------------------------------------------------------------------
# run


def cmd_run(args: argparse.Namespace) -> int:
    import lnsim

    scenario = Path(args.scenario)
    lnsim.check_seed(args.seed, "--seed")
    progress = (not args.no_progress) and _stderr_is_tty()
    try:
        result = lnsim.run(scenario, overrides=args.overrides, seed=args.seed, out=args.out, progress=progress,
                           max_memory=args.max_memory)
    except KeyboardInterrupt as e:
        partial = getattr(e, "result", None)
        if partial is None:
            raise
        print(format_summary(partial.summary, partial.out_dir))
        print(f"lnsim: interrupted: {_simulated(partial.summary)}; the partial results are in {partial.out_dir} "
              "(marked incomplete: summary.json has \"complete\": false; `lnsim plot` and `lnsim report` "
              "draw them)", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(format_summary(result.summary, result.out_dir))
    for w in result.summary.get("warnings") or []:
        print(f"lnsim: warning: {w}", file=sys.stderr)
    if not args.no_plot:
        try:
            from .plot import plot_results

            plot_results(result)
        except Exception as e:  # the run succeeded: a figure problem must not fail it
            print(f"lnsim: warning: could not write the figures: {e}", file=sys.stderr)
    if result.deadlock:
        print(f"lnsim: error: the run deadlocked (results in {result.out_dir})", file=sys.stderr)
        return EXIT_DEADLOCK
    return EXIT_OK


def _simulated(summary: dict) -> str:
    """How much of an interrupted run was simulated, e.g. ``simulated 0.0123 s of 0.2 s``."""
    if "simulated_cycles" in summary:
        return f"simulated {_fmt(summary.get('simulated_cycles'), ',.0f')} of {_fmt(summary.get('planned_cycles'), ',.0f')} cycles"
    return f"simulated {_fmt(summary.get('sim_time_s'), '.6g', ' s')} of {_fmt(summary.get('planned_sim_time_s'), '.6g', ' s')}"


def _incomplete_line(summary: dict) -> Optional[str]:
    """The line a summary of partial results starts with (``None`` for a complete run)."""
    if summary.get("complete") is not False:
        return None
    why = summary.get("stop_reason") or "stopped early"
    return f"INCOMPLETE      {why}: {_simulated(summary)}; these are partial results"


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _num(v) -> Optional[float]:
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def _fmt(v, spec: str = ".3f", unit: str = "") -> str:
    x = _num(v)
    if x is None:
        return "n/a"
    return f"{x:{spec}}{unit}"


def _fmt_latency_ns(v) -> str:
    """A latency of summary.json (ns) as printed after a run (:func:`lnsim._format.format_ns`:
    ``12.345 us``), ``n/a`` when missing."""
    x = _num(v)
    return "n/a" if x is None else format_ns(x, ".3f", ns_spec=".1f", micro="us")


def _fmt_rate(x: Optional[float]) -> str:
    if x is None:
        return "n/a "
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.2f} {suffix}"
    return f"{x:.2f} "


def _share(rate: Optional[float], link: Optional[float]) -> str:
    """``rate`` as a percentage of ``link`` (``25.0``), ``n/a`` when either is unknown."""
    if rate is None or not link:
        return "n/a"
    return f"{100.0 * rate / link:.1f}"


def _pct(share) -> str:
    """A share of a link (``0.459``) as a percentage (``45.9 %``), ``n/a`` when unknown."""
    x = _num(share)
    return "n/a" if x is None else f"{100.0 * x:.1f} %"


def _names(names, limit: int = 10) -> str:
    """Up to ``limit`` names in natural order (``H43, H51``), then how many more."""
    names = sorted(map(str, names), key=natural_key)
    more = f", … {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _jain_flows(fair: dict) -> str:
    """Jain's index of ``fairness.flows`` and what it is over: ``Jain 0.8889 over the 3 flows
    into H221`` (the flows of ``stats.fairness_sources``, or else those into the destination
    with the most flows)."""
    flows = [str(f) for f in fair.get("flows") or []]
    dsts = {f.rsplit("->", 1)[-1] for f in flows}
    if not flows:
        over = "no flows compared"
    elif len(dsts) == 1:
        over = f"the {len(flows)} flow{'s' if len(flows) != 1 else ''} into {dsts.pop()}"
    else:
        over = f"the {len(flows)} flows of stats.fairness_sources"
    return f"Jain {_fmt(fair.get('jain'), '.4f')} over {over}"


def _generated_traffic(s: dict) -> bool:
    """Does the run's traffic come (also) from generators — random destinations, offered rates
    per destination, as in the HoL-blocking study — rather than only from static flows? Then
    its reception per destination (spec B.7) is what the summary shows. ``flows`` lists every
    flow (or, beyond 1000, the static ones), each saying whether it is static."""
    flows = s.get("flows")
    total = _num(s.get("flows_total"))
    if not isinstance(flows, list) or total is None or "non_hot_destinations" not in (s.get("fairness") or {}):
        return False
    static = sum(1 for f in flows if isinstance(f, dict) and f.get("static") is True)
    return total > static


def _reception_lines(s: dict) -> List[str]:
    """The HoL-blocking study's figures (spec B.7) of a run with generated traffic: accepted
    load per node after warm-up as a share of its link (the mean over all nodes, each hot spot,
    the non-hot destinations' mean and range), and the victims among the non-hot destinations."""
    fair = s.get("fairness") or {}
    nodes = s.get("nodes") or {}
    hot = sorted(map(str, fair.get("hot_destinations") or []), key=natural_key)
    n = _fmt(fair.get("non_hot_destinations"), ".0f")
    spread = fair.get("non_hot_rx_fraction") or {}
    parts = [f"mean {_pct((s.get('throughput') or {}).get('accepted_per_node'))} over all nodes"]
    if hot:
        shown = [f"{h} {_pct((nodes.get(h) or {}).get('rx_fraction'))}" for h in hot[:10]]
        more = f", … {len(hot) - 10} more" if len(hot) > 10 else ""
        parts.append(f"hot spot{'s' if len(hot) > 1 else ''} " + ", ".join(shown) + more)
    rest = "the other" if hot else "the"
    parts.append(f"{rest} {n} destinations mean {_pct(spread.get('mean'))},"
                 f" {_pct(spread.get('min'))} .. {_pct(spread.get('max'))}")
    victims = fair.get("victim_destinations")
    count = _fmt(fair.get("victims"), ".0f")
    share = _num(fair.get("victim_share"))
    below = f"below {100.0 * share:g} % of" if share is not None else "below"
    named = f" ({_names(victims)})" if victims else ""
    return [
        "accepted load   after warm-up, as a share of each node's link: " + "; ".join(parts),
        f"victims         {count}{named} of the {n} non-hot destinations received {below} the traffic"
        f" offered to them; lowest received/offered {_fmt(fair.get('min_over_expected'), '.4f')}",
    ]


def format_summary(summary: dict, out_dir) -> str:
    """The short human summary printed after a run (of either model)."""
    if summary.get("model") == "cycle":
        return format_cycle_summary(summary, out_dir)
    s = summary
    sim = _num(s.get("sim_time_s"))
    wall = _num(s.get("wall_time_s"))
    events = _num(s.get("events"))
    hops = _num(s.get("flit_hops"))
    speed = sim / wall if sim is not None and wall else None
    hops_rate = hops / wall if hops is not None and wall else None
    ev_rate = events / wall if events is not None and wall else None
    thr = s.get("throughput") or {}
    lat = s.get("latency_ns") or {}
    fair = s.get("fairness") or {}

    warm = _num(s.get("warmup_s"))
    no_window = no_window_note(s)  # stopped before the warm-up's end: nothing measured
    window = f"after warm-up ({_fmt(warm, '.6g', ' s')} to {_fmt(sim, '.6g', ' s')})"
    whole = (f"whole run: rx {_fmt(thr.get('total_rx_gbps'), '.3f')} / tx {_fmt(thr.get('total_tx_gbps'), '.3f')}"
             " Gbit/s")
    lines = [
        f"scenario        {s.get('scenario', 'n/a')}  (seed {s.get('seed', 'n/a')}, lnsim {s.get('version', 'n/a')})",
        *filter(None, [_incomplete_line(s)]),
        f"simulated       {_fmt(sim, '.6g', ' s')}   wall {_fmt(wall, '.3f', ' s')}",
        f"events          {_fmt(events, ',.0f')}  ({_fmt_rate(ev_rate)}events/s)",
        f"speed           {_fmt(speed, '.4g')} sim s per wall s, {_fmt_rate(hops_rate)}credit-hops/s",
        f"throughput      {no_window}; {whole}" if no_window else
        f"throughput      {window}: rx {_fmt(thr.get('rx_gbps_after_warmup'), '.3f')}"
        f" / tx {_fmt(thr.get('tx_gbps_after_warmup'), '.3f')} Gbit/s; {whole}",
    ]
    cc = s.get("cc") or {}
    cc_on = bool(cc.get("enabled"))
    nodes = s.get("nodes") or {}
    active = sorted(
        ((name, v) for name, v in nodes.items()
         if isinstance(v, dict) and ((_num(v.get("tx_gbps")) or 0.0) > 0 or (_num(v.get("rx_gbps")) or 0.0) > 0)),
        key=lambda nv: natural_key(nv[0]),
    )
    if active:
        width = max(8, max(len(n) for n, _ in active[:MAX_NODE_ROWS]))
        lines.append("")
        # without a measurement window, the rates over the whole run (all there is)
        tx_key, rx_key = ("tx_gbps", "rx_gbps") if no_window else ("tx_gbps_after_warmup", "rx_gbps_after_warmup")
        if no_window:
            lines.append(f"per node        whole run (0 s to {_fmt(sim, '.6g', ' s')}); no measurement window reached")
        else:
            lines.append(f"per node        {window}; whole-run rates are in summary.json"
                         + ("; CNPs: whole run" if cc_on else ""))
        heads = ["link Gbit/s", "tx Gbit/s", "tx % link", "rx Gbit/s", "rx % link"]
        if cc_on:
            heads += ["CNPs sent", "CNPs rcvd"]
        lines.append(f"  {'node':<{width}}" + "".join(f"  {h:>11}" for h in heads))
        for name, v in active[:MAX_NODE_ROWS]:
            link = _num(v.get("link_gbps"))
            tx, rx = _num(v.get(tx_key)), _num(v.get(rx_key))
            cells = [_fmt(link, ".4g"), _fmt(tx, ".3f"), _share(tx, link), _fmt(rx, ".3f"), _share(rx, link)]
            if cc_on:
                cells += [_fmt(v.get("cnps_sent"), ",.0f"), _fmt(v.get("cnps_received"), ",.0f")]
            lines.append(f"  {name:<{width}}" + "".join(f"  {c:>11}" for c in cells))
        if len(active) > MAX_NODE_ROWS:
            lines.append(f"  ... {len(active) - MAX_NODE_ROWS} more nodes (see summary.json)")
        lines.append("")
    lines.append(
        f"latency         mean {_fmt_latency_ns(lat.get('mean'))}, p50 {_fmt_latency_ns(lat.get('p50'))},"
        f" p99 {_fmt_latency_ns(lat.get('p99'))}, max {_fmt_latency_ns(lat.get('max'))}"
    )
    msg = s.get("message_latency_ns") or {}
    if (_num(msg.get("count")) or 0) > 0:
        # drb-and-ddbbm spec A.7: messages of Bernoulli/Poisson sources generated after sim.warmup
        lines.append(
            f"messages        latency mean {_fmt_latency_ns(msg.get('mean'))}, p50 {_fmt_latency_ns(msg.get('p50'))},"
            f" p99 {_fmt_latency_ns(msg.get('p99'))}; {_fmt(msg.get('count'), ',.0f')} of"
            f" {_fmt(msg.get('generated'), ',.0f')} generated from {_fmt(msg.get('window_start_s'), '.6g', ' s')} delivered;"
            f" per node offered {_fmt(thr.get('offered_bits_per_us_per_node'), '.1f')},"
            f" accepted {_fmt(thr.get('accepted_bits_per_us_per_node'), '.1f')} bits/us"
        )
    hot = s.get("hotspot") or {}
    if hot:
        lines.append(
            f"hot spot        {hot.get('hca', 'n/a')}: peak {_fmt(hot.get('peak_link_mbps'), '.1f')} Mbit/s"
            f" on {hot.get('peak_link') or 'n/a'} (links into {hot.get('switch', 'n/a')}"
            f" from {_fmt(hot.get('from_s'), '.6g', ' s')})"
        )
    if _generated_traffic(s) and not no_window:
        lines += _reception_lines(s)
        lines.append(f"fairness        Jain {_fmt(fair.get('rx_jain_non_hot'), '.4f')} over the reception of the"
                     f" {_fmt(fair.get('non_hot_destinations'), '.0f')} non-hot destinations; {_jain_flows(fair)}")
    else:
        lines.append(f"fairness        {_jain_flows(fair)}")
    for name, job in (s.get("jobs") or {}).items():
        # per job (traffic.*.job): a victim job's throughput is a measured figure
        lines.append(
            f"job {name:<11} {_fmt(job.get('rx_gbps_window'), '.3f', ' Gbit/s')} received in the window"
            f" by {_fmt(job.get('flows'), '.0f')} flows of {_fmt(job.get('sources'), '.0f')} sources,"
            f" latency mean {_fmt_latency_ns(job.get('latency_mean_ns'))}, Jain {_fmt(job.get('jain'), '.4f')}"
        )
    if cc_on:
        lines.append(
            f"congestion ctl  FECN marks {_fmt(cc.get('fecn_marks'), '.0f')},"
            f" CNPs sent {_fmt(cc.get('cnps_sent'), '.0f')} / received {_fmt(cc.get('cnps_received'), '.0f')},"
            f" max CCTI {_fmt(cc.get('max_ccti'), '.0f')}, throttled {_fmt(cc.get('throttled_s'), '.4g')} s"
        )
    dl = s.get("deadlock")
    if dl:
        lines.append(
            f"DEADLOCK        at {dl['time_s']:.6g} s: {dl['blocked_packets']} packets stuck; credit loop "
            + " -> ".join(dl["cycle"])
            + " (the run stopped there; the routing is not deadlock-free on this topology)"
        )
    bal = s.get("route_balance") or {}
    if bal:
        isl, every = bal.get("switch_links") or {}, bal.get("all_links") or {}
        lines.append(
            f"routes/link     switch links max {_fmt(isl.get('max'), '.0f')}, mean {_fmt(isl.get('mean'), '.2f')},"
            f" min {_fmt(isl.get('min'), '.0f')} (max/mean {_fmt(isl.get('max_over_mean'), '.3f')});"
            f" all links max {_fmt(every.get('max'), '.0f')}, mean {_fmt(every.get('mean'), '.2f')}"
            f" (every HCA pair's route; per link in routes.csv)"
        )
    layers = (s.get("routing") or {}).get("layers")
    if layers:
        lines.append(
            f"VL layers       {len(layers)} (the routing's SL per source and destination LID); pairs per layer "
            + ", ".join(str(n) for n in layers)
        )
    lines.append(f"results         {out_dir}")
    return "\n".join(lines)


def format_cycle_summary(summary: dict, out_dir) -> str:
    """The short human summary of a run of the cycle-level router model."""
    s = summary
    wall = _num(s.get("wall_time_s"))
    events = _num(s.get("events"))
    ev_rate = events / wall if events is not None and wall else None
    warm, meas = _num(s.get("warmup_cycles")), _num(s.get("measured_cycles"))
    lat = s.get("latency_cycles") or {}
    net = s.get("network_latency_cycles") or {}
    fair = s.get("fairness") or {}
    pk = s.get("packets") or {}
    routing = str(s.get("routing", "n/a")) + (f" ({s['vlb_policy']})" if s.get("vlb_policy") else "")
    no_window = no_window_note(s)
    state = []
    if s.get("saturated"):
        state.append("SATURATED")
    if s.get("stopped_early"):
        state.append("stopped early")
    if s.get("saturation_undecided"):
        state.append("saturation undecided: window too short")
    lines = [
        f"scenario        {s.get('scenario', 'n/a')}  (seed {s.get('seed', 'n/a')}, lnsim {s.get('version', 'n/a')},"
        " cycle-level model)",
        *filter(None, [_incomplete_line(s)]),
        f"network         {s.get('topology', 'n/a')}, routing {routing}, traffic {s.get('pattern', 'n/a')}",
        (f"simulated       {_fmt(s.get('simulated_cycles'), ',.0f')} cycles: {no_window}" if no_window else
         f"simulated       {_fmt(warm, ',.0f')} warm-up + {_fmt(meas, ',.0f')} measured cycles")
        + f"   wall {_fmt(wall, '.3f', ' s')}",
        f"speed           {_fmt_rate(_num(s.get('phit_hops_per_s')))}flit-hops/s, {_fmt_rate(ev_rate)}events/s",
        f"load            offered {_fmt(s.get('offered_load'), '.4f')}, injected {_fmt(s.get('injected_load'), '.4f')},"
        f" accepted {_fmt(s.get('accepted_load'), '.4f')} phits/node/cycle" + (f"  [{', '.join(state)}]" if state else ""),
        f"latency         mean {_fmt(lat.get('mean'), '.1f')}, p50 {_fmt(lat.get('p50'), '.1f')},"
        f" p99 {_fmt(lat.get('p99'), '.1f')}, max {_fmt(lat.get('max'), '.1f')} cycles"
        f" (network: mean {_fmt(net.get('mean'), '.1f')}, p99 {_fmt(net.get('p99'), '.1f')})",
        f"paths           non-minimal {_fmt(s.get('nonminimal_fraction'), '.3f')}, mean hops {_fmt(s.get('avg_hops'), '.2f')}",
        f"fairness        Jain (routers) {_fmt(fair.get('jain_routers'), '.4f')},"
        f" router load {_fmt(fair.get('min_router_load'), '.4f')} .. {_fmt(fair.get('max_router_load'), '.4f')}",
        f"packets         generated {_fmt(pk.get('generated'), ',.0f')}, injected {_fmt(pk.get('injected'), ',.0f')},"
        f" delivered {_fmt(pk.get('delivered'), ',.0f')}, in network {_fmt(pk.get('in_network'), ',.0f')}",
        *_ethernet_lines(s),
        f"results         {out_dir}",
    ]
    return "\n".join(lines)


def _ethernet_lines(s: dict) -> List[str]:
    """The QCN, QCN-Switch and transient-response lines of a cycle-level summary (none when the
    run has neither)."""
    out = []
    q = s.get("qcn")
    if isinstance(q, dict):
        per_hop = _num(q.get("notifications_per_packet_hop"))
        line = (f"qcn             {q.get('sampling', 'n/a')} sampling: notifications {_fmt(q.get('cnms_created'), ',.0f')}"
                f" sent, {_fmt(q.get('cnms_delivered'), ',.0f')} delivered, {_fmt(q.get('applied_locally'), ',.0f')} applied"
                f" locally, {_fmt(q.get('cnms_dropped_at_source'), ',.0f')} dropped at source"
                f" ({_fmt(None if per_hop is None else 100 * per_hop, '.3f', ' %')} of packet hops)")
        out.append(line)
        rp = q.get("reaction_point")
        if isinstance(rp, dict):
            out.append(f"reaction points {_fmt(rp.get('notifications'), ',.0f')} notifications,"
                       f" {_fmt(rp.get('limited_at_end'), ',.0f')} nodes limited at the end")
    qs = s.get("qcn_switch")
    if isinstance(qs, dict):
        out.append(f"qcn-switch      mean minimal probability at the end {_fmt(qs.get('mean_min_probability_end'), '.1f', ' %')},"
                   f" {_fmt(qs.get('notifications_applied'), ',.0f')} notifications applied")
    tr = s.get("transient_response")
    if isinstance(tr, dict):
        out.append(f"response        latency {_fmt(tr.get('latency_us'), '.1f', ' µs')},"
                   f" non-minimal share {_fmt(tr.get('nonminimal_us'), '.1f', ' µs')} after the change")
    return out


# ---------------------------------------------------------------------------------------------
# validate, plot, bench


def cmd_validate(args: argparse.Namespace) -> int:
    import lnsim

    print(lnsim.validate(Path(args.scenario), overrides=args.overrides, max_memory=args.max_memory).rstrip("\n"))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from . import _core
    from ._outdir import KIND_FABRIC, prepare_folder, write_own_file

    if not 0 <= args.lmc <= 7:
        raise InputError(f"--lmc {args.lmc}: the LID mask control is 0-7")
    name, topo, lfts = _core.export_fabric(os.fspath(args.scenario), list(args.overrides), args.lmc)
    where = Path(args.out) if args.out is not None else Path("results") / f"{name}-fabric"
    out = prepare_folder(where, KIND_FABRIC, "export folder", kinds=[KIND_FABRIC])
    for suffix, text in ((".ibnetdiscover", topo), (".lfts", lfts)):
        print(write_own_file(out / f"{name}{suffix}", text))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from . import _core

    categories, items = _core.catalog()
    ids = [c[0] for c in categories]
    if args.category is not None and args.category not in ids:
        raise InputError(f"list {args.category}: unknown category; allowed: {', '.join(ids)}")
    width = max(len(i["name"]) for i in items)
    mwidth = max(len(i["model"]) for i in items)
    blocks = []
    for cid, title, key in categories:
        if args.category not in (None, cid):
            continue
        mine = [i for i in items if i["category"] == cid]
        # a category whose items are chosen by different keys says each item's key and value
        swidth = max((len(i["select"]) for i in mine if i.get("select")), default=0)
        lines = [f"{title}: {key}"]
        for i in mine:
            select = f"{i.get('select') or '':<{swidth}}  " if swidth else ""
            lines.append(f"  {i['name']:<{width}}  {i['model']:<{mwidth}}  {select}{i['doc']}")
        blocks.append("\n".join(lines))
    print("\n\n".join(blocks))
    return EXIT_OK


def cmd_keys(args: argparse.Namespace) -> int:
    import lnsim

    from . import _core

    if args.markdown:
        if args.prefix is not None:
            raise InputError("keys --markdown: prints the whole table; give no PREFIX")
        print(_core.keys_markdown().rstrip("\n"))
        return EXIT_OK
    keys = lnsim.keys(args.prefix)
    if not keys:
        raise InputError(f"keys {args.prefix}: no key is under this path; `lnsim keys` lists them all")
    blocks = []
    for k in keys:
        req = "required" if k["required"] else f"default {k['default']}"
        model = {"both": "both models", "credit": "credit-level model", "cycle": "cycle-level model"}[k["model"]]
        # backticks mark code in the README; a terminal shows the text
        blocks.append(f"{k['path']}\n    {k['type']}; {req}; {model}\n    {k['doc']}".replace("`", ""))
    print("\n".join(blocks))
    return EXIT_OK


#: The title of the JSON Schema `lnsim schema` writes; an existing --out FILE is replaced only
#: when it is such a schema (lnsim never overwrites a file it did not write).
SCHEMA_TITLE = "lnsim scenario"


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from . import _core

    text = _core.json_schema()
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_OK
    out = Path(args.out)
    if out.is_dir():
        raise InputError(f"--out {out}: is a folder; give a file name, e.g. {out / 'lnsim.schema.json'}")
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: the folder {out.parent} does not exist")
    if out.exists():
        try:
            old = json.loads(out.read_text(encoding="utf-8"))
            ours = isinstance(old, dict) and old.get("title") == SCHEMA_TITLE
        except (OSError, ValueError):
            ours = False
        if not ours:
            raise InputError(
                f"--out {out}: exists and is not a schema lnsim wrote; remove it or choose another file name"
            )
    from ._outdir import write_atomic

    try:
        write_atomic(out, text)
    except OSError as e:
        raise InputError(f"--out {out}: cannot write it: {e.strerror or e}") from None
    print(out)
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from ._sweep import run_sweep

    progress = "errors" if args.no_progress else ("bar" if _stderr_is_tty() else "lines")
    df, out_dir, failed = run_sweep(
        Path(args.scenario),
        overrides=args.overrides,
        out=args.out,
        jobs=args.jobs,
        seed=args.seed,
        progress=progress,
        seeds=args.seeds,
        grid=args.grid,
        dask=args.dask,
        resume=args.resume,
        max_memory=args.max_memory,
    )
    print(format_sweep(df, out_dir, failed))
    undecided = _undecided_count(df)
    if undecided:
        what = "points" if args.seeds == 1 else "runs"
        print(
            f"lnsim: warning: {undecided} of {len(df)} sweep {what} could not decide whether they are saturated"
            " (measured window too short: column saturation_undecided of sweep.csv, warnings in their summary.json)",
            file=sys.stderr,
        )
    if not args.no_plot and failed < len(df):
        try:
            from .plot import plot_sweep_folder

            plot_sweep_folder(out_dir)
        except Exception as e:  # the sweep ran: a figure problem must not fail it
            print(f"lnsim: warning: could not write the sweep figures: {e}", file=sys.stderr)
    if failed:
        what = "points" if args.seeds == 1 else "runs"
        print(f"lnsim: error: {failed} of {len(df)} sweep {what} failed (see {out_dir / 'sweep.csv'})", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def cmd_tune(args: argparse.Namespace) -> int:
    from .tune import format_result, tune

    r = tune(Path(args.scenario), args.objective, args.trials, args.out, space=args.space, overrides=args.overrides,
             jobs=args.jobs, dask=args.dask, seed=args.seed, run_seed=args.run_seed, max_memory=args.max_memory,
             progress=not args.no_progress)
    print(format_result(r, args.out))
    return EXIT_OK


def _undecided_count(df) -> int:
    """Runs of a sweep whose summary says ``saturation_undecided`` (cycle-level model)."""
    if "saturation_undecided" not in df.columns:
        return 0
    return int(df["saturation_undecided"].map(lambda v: str(v).strip().lower() in ("true", "1", "1.0")).sum())


#: Columns of the table printed after a sweep (those present): credit-level model (throughput in
#: GB/s = 10^9 bytes/s, the unit of the sweep figures), then the cycle-level model.
SWEEP_SHOWN = [
    ("throughput.total_rx_gbytes_per_s", "rx GB/s", ".3f"),
    ("throughput.rx_gbytes_per_s_after_warmup", "rx GB/s after wu", ".3f"),
    ("latency_ns.mean", "lat mean ns", ".1f"),
    ("fairness.jain", "Jain", ".4f"),
    ("accepted_load", "accepted", ".4f"),
    ("latency_cycles.mean", "lat mean cyc", ".1f"),
    ("nonminimal_fraction", "non-min", ".3f"),
    ("saturated", "saturated", ""),
]
MAX_SWEEP_ROWS = 40


def format_sweep(df, out_dir, failed: int) -> str:
    """The table printed after a sweep: swept values and a few figures per point (throughput in
    GB/s, as in the sweep's figures)."""
    from ._sweep import sweep_keys, with_gbytes

    df = with_gbytes(df)
    keys = sweep_keys(df)
    n_points = df["point"].nunique() if "point" in df.columns else len(df)
    seeded = "seed" in df.columns and n_points < len(df)  # several runs per point
    left = [*keys, "seed"] if seeded else list(keys)
    shown = [(c, h, f) for c, h, f in SWEEP_SHOWN if c in df.columns]
    header = [*left, *(h for _, h, _ in shown), "status"]
    rows = []
    for _, r in df.head(MAX_SWEEP_ROWS).iterrows():
        cells = [_cell_text(r[k]) for k in left]
        for c, _, f in shown:
            cells.append((_fmt(r[c], f) if f else _cell_text(r[c])) if r["status"] == "ok" else "-")
        cells.append(str(r["status"]))
        rows.append(cells)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]

    def line(cells) -> str:  # swept values left-aligned, figures right-aligned
        return "  ".join(c.ljust(w) if i < len(keys) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    what = "runs" if seeded else "points"
    lines = [line(header), *(line(row) for row in rows)]
    if len(df) > MAX_SWEEP_ROWS:
        lines.append(f"... {len(df) - MAX_SWEEP_ROWS} more {what}")
    lines.append("")
    ok = len(df) - failed
    if seeded:
        seeds = len(df) // max(n_points, 1)
        lines.append(f"sweep           {len(df)} runs ({n_points} points x {seeds} seeds), {ok} ok, {failed} failed")
    else:
        lines.append(f"sweep           {len(df)} points, {ok} ok, {failed} failed")
    lines.append(f"results         {Path(out_dir) / 'sweep.csv'}")
    return "\n".join(lines)


def _cell_text(v) -> str:
    """A swept value or flag in the sweep table (whole floats without ``.0``)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def parse_bounds(items: List[str]) -> dict:
    """``--bound LABEL=VALUE`` arguments as ``{label: value}`` (split at the last ``=``); a label
    given twice is an :class:`InputError` (one line per label)."""
    bounds = {}
    for item in items:
        label, sep, value = item.rpartition("=")
        try:
            if not sep or not label.strip():
                raise ValueError
            number = float(value)
        except ValueError:
            raise InputError(f"--bound {item}: expected LABEL=VALUE with a number, e.g. --bound 'MIN 1/(ap)=0.0139'") from None
        if label.strip() in bounds:
            raise InputError(f"--bound {item}: the label `{label.strip()}` is given twice; give each bound once")
        bounds[label.strip()] = number
    return bounds


def cmd_plot(args: argparse.Namespace) -> int:
    d = Path(args.dir)
    bounds = parse_bounds(args.bounds)
    if (d / "tune.db").is_file() and not (d / "summary.json").is_file():
        from .tune import plot_tune_folder

        for opt, given in (("--metric", args.metric is not None), ("--bound", bool(bounds))):
            if given:
                raise InputError(f"{opt}: {d} is a tune folder; {opt} applies to a sweep folder (with sweep.csv)")
        for path in plot_tune_folder(d, out_dir=args.out):
            print(path)
        return EXIT_OK
    if (d / "sweep.csv").is_file() and not (d / "summary.json").is_file():
        from .plot import plot_sweep_folder

        try:
            paths = plot_sweep_folder(d, out_dir=args.out, metric=args.metric, bounds=bounds or None)
        except (KeyError, ValueError) as e:
            raise InputError(str(e).strip("'\"")) from None
        for path in paths:
            print(path)
        return EXIT_OK
    if not (d / "summary.json").is_file():
        raise InputError(f"{d}: not a results folder (no summary.json), a sweep folder (no sweep.csv) "
                         "nor a tune folder (no tune.db)")
    if args.metric is not None:
        raise InputError(f"--metric: {d} is a results folder; --metric applies to a sweep folder (with sweep.csv)")
    if bounds:
        raise InputError(f"--bound: {d} is a results folder; --bound applies to a load sweep folder")
    from ._outdir import is_incomplete
    from .plot import plot_results

    if is_incomplete(d):
        print(f"lnsim: warning: {d} holds the partial results of an incomplete run (summary.json: "
              "\"complete\": false); the figures say so in their titles", file=sys.stderr)
    for p in plot_results(d, out_dir=args.out):
        print(p)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    return bench.main(cases=args.cases, quick=args.quick, scenarios=args.scenarios, out=args.out)


# ---------------------------------------------------------------------------------------------


class _ReaderSafe:
    """A text stream (``sys.stdout``, ``sys.stderr``) whose reader may go away: once writing
    fails with a broken pipe (``lnsim sweep ... | head -3``), the stream's file descriptor is
    pointed at ``/dev/null`` and further output is discarded, so the command goes on and
    finishes its results instead of stopping at its next message."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.reader_gone = False

    def _gone(self) -> None:
        self.reader_gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # what is still buffered goes there too
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._gone()

    def __getattr__(self, name):
        return getattr(self._stream, name)


#: The process that installed :func:`_on_sigterm` (worker processes forked from it inherit it).
_MAIN_PID = os.getpid()


def _on_sigterm(signum, frame) -> None:
    """SIGTERM stops lnsim like Ctrl-C: a run writes its partial results, exit status 130. A
    sweep's worker process (forked, so it inherits this handler) ends at once, as before."""
    if os.getpid() != _MAIN_PID:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise KeyboardInterrupt


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``lnsim`` command; returns the exit status. An interrupt (Ctrl-C,
    SIGTERM) wherever it lands, while an error is being reported too, ends the command with
    :data:`EXIT_INTERRUPTED` and one line on stderr (:func:`lnsim._exit.interruptible`)."""
    return interruptible(lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    """:func:`main`'s work: the parsed command, its error reported as an exit status."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _ReaderSafe(sys.stdout), _ReaderSafe(sys.stderr)
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    try:
        old_term = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (main() called from a thread): leave it alone
        old_term = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.func(args)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - every failure becomes a message and an exit status
        return report_error(e)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - nothing more can be said
                pass
        sys.stdout, sys.stderr = saved
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
