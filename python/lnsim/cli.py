"""The ``lnsim`` command.

    lnsim run SCENARIO.toml [--set key.path=value]... [--seed N] [--out DIR] [--no-progress] [--no-plot]
    lnsim validate SCENARIO.toml [--set key.path=value]...
    lnsim sweep SCENARIO.toml [--set key.path=value]... [--out DIR] [--jobs N] [--seed N] [--no-progress] [--no-plot]
    lnsim plot DIR [--out DIR] [--metric FIELD]
    lnsim bench [--case NAME]... [--quick] [--scenarios DIR]

Exit status: 0 success, 2 bad input (the message names the key), 1 simulation or unexpected
error, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INPUT = 2
EXIT_INTERRUPTED = 130

#: Per-node table rows printed after a run; the rest is in summary.json.
MAX_NODE_ROWS = 32


class InputError(Exception):
    """Bad command-line input found by the front end itself (exit status 2)."""


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="override one scenario value, e.g. --set sim.end_time=0.2s (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="lnsim",
        description="Simulate lossless interconnection networks (InfiniBand, HPC fabrics) at credit granularity.",
        epilog="Exit status: 0 ok, 2 bad input, 1 simulation error, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"lnsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="run a scenario and write its results folder")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    _add_set(p)
    p.add_argument("--seed", type=int, default=None, help="override sim.seed")
    p.add_argument("--out", metavar="DIR", default=None, help="results folder (default results/<scenario name>/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it is shown only on a terminal anyway)")
    p.add_argument("--no-plot", action="store_true", help="do not write the PNG figures into the results folder")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("validate", help="check a scenario (topology, routes, traffic) without running it")
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file")
    _add_set(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "sweep",
        help="run every point of the scenario's [sweep] table in parallel; write sweep.csv",
        description="Run the Cartesian product of the scenario's [sweep] table (key path -> list of values), "
        "one run per point in DIR/points/<point>/, in parallel; write DIR/sweep.csv (one row per point: "
        "swept keys, point, status, error, summary.json fields), DIR/sweep.json and DIR/sweep.png.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="scenario file with a [sweep] table")
    _add_set(p)
    p.add_argument("--out", metavar="DIR", default=None, help="sweep folder (default results/<scenario name>-sweep/)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="points run at once (default: all cores)")
    p.add_argument("--seed", type=int, default=None, help="override sim.seed in every point")
    p.add_argument("--no-progress", action="store_true", help="no progress output (failed points are still reported)")
    p.add_argument("--no-plot", action="store_true", help="do not write sweep.png")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("plot", help="write the figures of a results folder, or sweep.png of a sweep folder")
    p.add_argument("dir", metavar="DIR", help="results folder (with summary.json) or sweep folder (with sweep.csv)")
    p.add_argument("--out", metavar="DIR", default=None, help="where to write the PNGs (default: DIR)")
    p.add_argument(
        "--metric",
        default=None,
        metavar="FIELD",
        help="sweep folder: the sweep.csv column drawn (default throughput.total_rx_gbytes_per_s)",
    )
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("bench", help="measure simulator speed and memory on fixed cases")
    p.add_argument("--case", dest="cases", action="append", default=[], metavar="NAME", help="run only this case (repeatable)")
    p.add_argument("--quick", action="store_true", help="shorten every case (smoke test)")
    p.add_argument("--scenarios", metavar="DIR", default=None, help="the scenarios/ folder (default: the repository's)")
    p.add_argument("--out", metavar="DIR", default=None, help="where bench.json goes (default results/bench/)")
    p.set_defaults(func=cmd_bench)
    return parser


# ---------------------------------------------------------------------------------------------
# run


def cmd_run(args: argparse.Namespace) -> int:
    import lnsim

    scenario = Path(args.scenario)
    progress = (not args.no_progress) and _stderr_is_tty()
    result = lnsim.run(scenario, overrides=args.overrides, seed=args.seed, out=args.out, progress=progress)
    print(format_summary(result.summary, result.out_dir))
    if not args.no_plot:
        try:
            from .plot import plot_results

            plot_results(result)
        except Exception as e:  # the run succeeded: a figure problem must not fail it
            print(f"lnsim: warning: could not write the figures: {e}", file=sys.stderr)
    return EXIT_OK


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


def _fmt_time_ns(v) -> str:
    x = _num(v)
    if x is None:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:.3f} ms"
    if x >= 1e3:
        return f"{x / 1e3:.3f} us"
    return f"{x:.1f} ns"


def _fmt_rate(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.2f} {suffix}"
    return f"{x:.2f} "


def format_summary(summary: dict, out_dir) -> str:
    """The short human summary printed after a run."""
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

    lines = [
        f"scenario        {s.get('scenario', 'n/a')}  (seed {s.get('seed', 'n/a')}, lnsim {s.get('version', 'n/a')})",
        f"simulated       {_fmt(sim, '.6g', ' s')}   wall {_fmt(wall, '.3f', ' s')}",
        f"events          {_fmt(events, ',.0f')}  ({_fmt_rate(ev_rate)}events/s)",
        f"speed           {_fmt(speed, '.4g')} sim s per wall s, {_fmt_rate(hops_rate)}credit-hops/s",
        f"throughput      rx {_fmt(thr.get('total_rx_gbps'), '.3f')} / tx {_fmt(thr.get('total_tx_gbps'), '.3f')} Gbit/s"
        f" (after warm-up {_fmt(s.get('warmup_s'), '.6g', ' s')}: rx {_fmt(thr.get('rx_gbps_after_warmup'), '.3f')}"
        f" / tx {_fmt(thr.get('tx_gbps_after_warmup'), '.3f')} Gbit/s)",
    ]
    cc = s.get("cc") or {}
    cc_on = bool(cc.get("enabled"))
    nodes = s.get("nodes") or {}
    active = [
        (name, v)
        for name, v in nodes.items()
        if isinstance(v, dict) and ((_num(v.get("tx_gbps")) or 0.0) > 0 or (_num(v.get("rx_gbps")) or 0.0) > 0)
    ]
    if active:
        width = max(8, max(len(n) for n, _ in active[:MAX_NODE_ROWS]))
        lines.append("")
        header = f"  {'node':<{width}}  {'tx Gbit/s':>10}  {'rx Gbit/s':>10}"
        if cc_on:
            header += f"  {'CNPs sent':>10}  {'CNPs rcvd':>10}"
        lines.append(header)
        for name, v in active[:MAX_NODE_ROWS]:
            row = f"  {name:<{width}}  {_num(v.get('tx_gbps')) or 0.0:>10.3f}  {_num(v.get('rx_gbps')) or 0.0:>10.3f}"
            if cc_on:
                row += f"  {_fmt(v.get('cnps_sent'), '.0f'):>10}  {_fmt(v.get('cnps_received'), '.0f'):>10}"
            lines.append(row)
        if len(active) > MAX_NODE_ROWS:
            lines.append(f"  ... {len(active) - MAX_NODE_ROWS} more nodes (see summary.json)")
        lines.append("")
    lines.append(
        f"latency         mean {_fmt_time_ns(lat.get('mean'))}, p50 {_fmt_time_ns(lat.get('p50'))},"
        f" p99 {_fmt_time_ns(lat.get('p99'))}, max {_fmt_time_ns(lat.get('max'))}"
    )
    lines.append(f"fairness        Jain {_fmt(fair.get('jain'), '.4f')}")
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
    lines.append(f"results         {out_dir}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# validate, plot, bench


def cmd_validate(args: argparse.Namespace) -> int:
    import lnsim

    print(lnsim.validate(Path(args.scenario), overrides=args.overrides).rstrip("\n"))
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from ._sweep import run_sweep

    progress = "errors" if args.no_progress else ("bar" if _stderr_is_tty() else "lines")
    df, out_dir, failed = run_sweep(
        Path(args.scenario), overrides=args.overrides, out=args.out, jobs=args.jobs, seed=args.seed, progress=progress
    )
    print(format_sweep(df, out_dir, failed))
    if not args.no_plot and failed < len(df):
        try:
            from .plot import plot_sweep_results

            plot_sweep_results(out_dir)
        except Exception as e:  # the sweep ran: a figure problem must not fail it
            print(f"lnsim: warning: could not write sweep.png: {e}", file=sys.stderr)
    if failed:
        print(f"lnsim: error: {failed} of {len(df)} sweep points failed (see {out_dir / 'sweep.csv'})", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


#: Columns of the table printed after a sweep (those present).
SWEEP_SHOWN = [
    ("throughput.total_rx_gbps", "rx Gbit/s", ".3f"),
    ("throughput.rx_gbps_after_warmup", "rx after wu", ".3f"),
    ("latency_ns.mean", "lat mean ns", ".1f"),
    ("fairness.jain", "Jain", ".4f"),
]
MAX_SWEEP_ROWS = 40


def format_sweep(df, out_dir, failed: int) -> str:
    """The table printed after a sweep: swept values and a few figures per point."""
    from ._sweep import sweep_keys

    keys = sweep_keys(df)
    shown = [(c, h, f) for c, h, f in SWEEP_SHOWN if c in df.columns]
    header = [*keys, *(h for _, h, _ in shown), "status"]
    rows = []
    for _, r in df.head(MAX_SWEEP_ROWS).iterrows():
        cells = [str(r[k]) for k in keys]
        for c, _, f in shown:
            cells.append(_fmt(r[c], f) if r["status"] == "ok" else "-")
        cells.append(str(r["status"]))
        rows.append(cells)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]

    def line(cells) -> str:  # swept values left-aligned, figures right-aligned
        return "  ".join(c.ljust(w) if i < len(keys) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    lines = [line(header), *(line(row) for row in rows)]
    if len(df) > MAX_SWEEP_ROWS:
        lines.append(f"... {len(df) - MAX_SWEEP_ROWS} more points")
    lines.append("")
    ok = len(df) - failed
    lines.append(f"sweep           {len(df)} points, {ok} ok, {failed} failed")
    lines.append(f"results         {Path(out_dir) / 'sweep.csv'}")
    return "\n".join(lines)


def cmd_plot(args: argparse.Namespace) -> int:
    d = Path(args.dir)
    if (d / "sweep.csv").is_file() and not (d / "summary.json").is_file():
        from .plot import DEFAULT_SWEEP_METRIC, plot_sweep_results

        try:
            path = plot_sweep_results(d, out_dir=args.out, metric=args.metric or DEFAULT_SWEEP_METRIC)
        except (KeyError, ValueError) as e:
            raise InputError(str(e).strip("'\"")) from None
        print(path)
        return EXIT_OK
    if not (d / "summary.json").is_file():
        raise InputError(f"{d}: not a results folder (no summary.json) nor a sweep folder (no sweep.csv)")
    if args.metric is not None:
        raise InputError(f"--metric: {d} is a results folder; --metric applies to a sweep folder (with sweep.csv)")
    from .plot import plot_results

    for p in plot_results(d, out_dir=args.out):
        print(p)
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    return bench.main(cases=args.cases, quick=args.quick, scenarios=args.scenarios, out=args.out)


# ---------------------------------------------------------------------------------------------


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``lnsim`` command; returns the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.func(args)
    except BrokenPipeError:
        # the reader of our output went away (e.g. `lnsim validate ... | head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("lnsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - every failure becomes a message and an exit status
        return _report(e)


def _report(e: BaseException) -> int:
    from . import ScenarioError, SimulationError

    if isinstance(e, (ScenarioError, InputError)):
        print(f"lnsim: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    if isinstance(e, SimulationError):
        print(f"lnsim: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    if os.environ.get("LNSIM_TRACEBACK"):
        import traceback

        traceback.print_exception(type(e), e, e.__traceback__)
    print(f"lnsim: error: {type(e).__name__}: {e}", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
