"""The page of one run: key figures, figures and tables of a run of the credit-level model
(bandwidth, throughput, latency, buffers; per node, per flow, FECN ports) or of the
cycle-level model (timeline, load per router, latency; least and most loaded routers).
"""

from __future__ import annotations

from pathlib import Path

from .._format import natural_key
from .._outdir import is_incomplete
from .._results import load_results
from ._cells import _esc, _fmt_bytes, _fmt_ns, _fmt_s, _is_number, _unit, fmt_number
from ._folder import SCENARIO_COPY
from ._page import _all_fields, _fold, _key_figures, _kv_table, _Page, _table
from ._scenario import _find_by_name, _scenario_section

#: Longest tables: rows beyond these are left out (the note says where the rest is).
MAX_NODE_ROWS = 64
MAX_FLOW_ROWS = 100
MAX_PORT_ROWS = 20
#: Routers listed at each end (least / most loaded) in a cycle-level run.
ROUTER_EXTREMES = 5


_IB_KEYS = [
    ("seed", "seed", fmt_number),
    ("sim_time_s", "simulated time", _fmt_s),
    ("warmup_s", "warm-up (figures after it)", _fmt_s),
    ("interval_s", "statistics interval", _fmt_s),
    ("throughput.total_rx_gbps", "throughput received", _unit("Gbit/s")),
    ("throughput.total_tx_gbps", "throughput sent", _unit("Gbit/s")),
    ("throughput.rx_gbps_after_warmup", "received after warm-up", _unit("Gbit/s")),
    ("throughput.tx_gbps_after_warmup", "sent after warm-up", _unit("Gbit/s")),
    ("latency_ns.mean", "packet latency, mean", _fmt_ns),
    ("latency_ns.p50", "packet latency, median", _fmt_ns),
    ("latency_ns.p99", "packet latency, p99", _fmt_ns),
    ("latency_ns.max", "packet latency, max", _fmt_ns),
    ("network_latency_ns.mean", "network latency, mean", _fmt_ns),
    ("fairness.jain", "Jain fairness index (flows)", lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)),
    ("fairness.window_start_s", "fairness measured from", _fmt_s),
    ("cc.fecn_marks", "FECN marks", fmt_number),
    ("cc.cnps_sent", "CNPs sent", fmt_number),
    ("cc.cnps_received", "CNPs received", fmt_number),
    ("cc.max_ccti", "max CCTI", fmt_number),
    ("cc.throttled_s", "time throttled (sum over flows)", _fmt_s),
    ("flows_total", "flows", fmt_number),
    ("events", "events", fmt_number),
    ("flit_hops", "credit-hops", fmt_number),
    ("wall_time_s", "wall time", _fmt_s),
    ("peak_rss_bytes", "peak memory", _fmt_bytes),
    ("version", "lnsim version", str),
]

_CYCLE_KEYS = [
    ("topology", "topology", str),
    ("routing", "routing", str),
    ("vlb_policy", "VLB policy", str),
    ("pattern", "traffic pattern", str),
    ("seed", "seed", fmt_number),
    ("warmup_cycles", "warm-up", _unit("cycles")),
    ("measured_cycles", "measured", _unit("cycles")),
    ("change_cycle", "transient change at", _unit("cycles")),
    ("offered_load", "offered load", _unit("phits/node/cycle")),
    ("injected_load", "injected load", _unit("phits/node/cycle")),
    ("accepted_load", "accepted load", _unit("phits/node/cycle")),
    ("saturated", "saturated", fmt_number),
    ("stopped_early", "stopped early", fmt_number),
    ("latency_cycles.mean", "packet latency, mean", _unit("cycles")),
    ("latency_cycles.p50", "packet latency, median", _unit("cycles")),
    ("latency_cycles.p99", "packet latency, p99", _unit("cycles")),
    ("latency_cycles.max", "packet latency, max", _unit("cycles")),
    ("network_latency_cycles.mean", "network latency, mean", _unit("cycles")),
    ("network_latency_cycles.p99", "network latency, p99", _unit("cycles")),
    ("nonminimal_fraction", "non-minimal fraction", fmt_number),
    ("avg_hops", "mean hops", fmt_number),
    ("fairness.jain_routers", "Jain index of the routers' injected loads",
     lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)),
    ("fairness.min_router_load", "lowest injected load of a router", _unit("phits/node/cycle")),
    ("fairness.max_router_load", "highest injected load of a router", _unit("phits/node/cycle")),
    ("packets.generated", "packets generated", fmt_number),
    ("packets.injected", "packets injected", fmt_number),
    ("packets.delivered", "packets delivered", fmt_number),
    ("packets.in_network", "packets in the network at the end", fmt_number),
    ("phit_hops_per_s", "speed", _unit("phit-hops/s")),
    ("wall_time_s", "wall time", _fmt_s),
    ("peak_rss_bytes", "peak memory", _fmt_bytes),
    ("version", "lnsim version", str),
]


def _run_report(page: _Page, d: Path) -> None:
    from ..plot import cc_label

    r = load_results(d).check()  # a corrupt file raises ResultsError before any figure
    s = r.summary
    name = str(s.get("scenario") or d.name)
    model = "cycle-level router model" if r.is_cycle else "credit-level model"
    cc = cc_label(s)  # from the run's summary.json, never from the scenario's description
    page.title = f"lnsim report: {name}, {cc}" if cc else f"lnsim report: {name}"
    page.subtitle = f"One run of the {_esc(model)} — results folder <code>{_esc(d)}</code>"
    if is_incomplete(d):
        from ..plot import incomplete_note

        page.title += " (INCOMPLETE)"
        note = incomplete_note(s) or "INCOMPLETE RUN: partial results"
        page.banner = (f'<p class="incomplete"><b>{_esc(note)}.</b> The run did not reach its end: every '
                       "figure and number below covers only the part that was simulated (summary.json has "
                       "<code>\"complete\": false</code>).</p>")

    copy = d / SCENARIO_COPY
    if copy.is_file():
        toml_path, label = copy, f"{SCENARIO_COPY} (the scenario as run, overrides applied)"
        file_row = [("scenario file", f"{copy} (as run, overrides applied)")]
    else:
        toml_path = _find_by_name(name, d)
        label = f"{toml_path} (found by the scenario's name; the run may have used overrides)" if toml_path else ""
        file_row = [("scenario file", f"{toml_path} (found by name)" if toml_path else "not found")]
    rows = file_row + [("model", model)] + ([("congestion control", cc)] if cc else []) + [("results folder", str(d))]
    _scenario_section(page, name, rows, toml_path, label,
                      f"No {SCENARIO_COPY} in the results folder and no scenarios/**/{name}.toml found above it.")
    if r.is_cycle:
        _cycle_run(page, r)
    else:
        _ib_run(page, r)


def _ib_run(page: _Page, r) -> None:
    from .. import plot

    s = r.summary
    parts = page.section("Summary")
    dl = s.get("deadlock")
    if dl:
        loop = " → ".join(str(x) for x in dl.get("cycle", []))
        parts.append(f'<p class="warn"><b>Deadlock</b> at {_esc(_fmt_s(dl.get("time_s")))}: '
                     f'{_esc(fmt_number(dl.get("blocked_packets")))} packets stuck; credit loop {_esc(loop)}. '
                     "The run stopped there.</p>")
    parts.append(_kv_table(_key_figures(s, _IB_KEYS)))
    parts.append(_all_fields(s))

    parts = page.section("Figures")
    has_nodes = (r.out_dir / "nodes.csv").is_file()
    many = (f"With more than {plot.MAX_NODE_LINES} nodes with traffic only the notable ones have lines (mean "
            f"rate after the warm-up at least {plot.NOTABLE_RATIO:g} times the median of its kind or at most the "
            f"median divided by it, at most {plot.MAX_NOTABLE} per kind), the others a median with a min–max band; "
            "nodes.csv has every node.")
    if has_nodes:
        if r.ccti is not None:
            page.figure(parts, "Bandwidth of each node over time (top: senders solid, left axis; receivers dashed, "
                        "right axis, same scale; MB/s = 1e6 bytes/s; each line has its own marker, staggered, so "
                        "that lines at equal rates stay visible) and the CCTI of each flow at the end of every interval "
                        "(bottom; 0 = not throttled), on one time axis. The dotted line is the end of the warm-up. "
                        + many,
                        lambda fig: plot.plot_bandwidth_ccti(r, fig=fig), figsize=(11, 9),
                        title="bandwidth and CCTI over time")
        else:
            page.figure(parts, "Bandwidth of each node over time: senders solid (left axis), receivers dashed "
                        "(right axis, same scale), MB/s = 1e6 bytes/s; each line has its own marker, staggered, so "
                        f"that lines at equal rates stay visible. The dotted line is the end of the warm-up. {many}",
                        lambda fig: plot.plot_bandwidth(r, ax=fig.subplots()), figsize=(11, 6),
                        title="bandwidth over time")
        if r.ccti is not None:
            n = max(min(len(plot.flow_ccti(r, "ccti_max").columns), plot.MAX_CCTI_PANELS), 1)
            page.figure(parts, "CCTI of each throttled flow over time, a panel per flow (the flows with the highest "
                        f"mean CCTI, at most {plot.MAX_CCTI_PANELS}): the CCTI at the end of every interval (line) "
                        "and, shaded, up to the highest CCTI within it; 0 = not throttled.",
                        lambda fig: plot.plot_ccti_flows(r, fig=fig), figsize=(10, 1.5 * n + 1.4),
                        title="CCTI per flow")
        page.figure(parts, "Aggregate network throughput per interval: bytes received by all nodes (blue) and "
                    "sent (grey), in Gbit/s.", lambda fig: plot.plot_throughput(r, ax=fig.subplots()),
                    figsize=(10, 4.5), title="network throughput")
    if (r.out_dir / "latency_hist.csv").is_file():
        page.figure(parts, "Packet latency histogram on logarithmic axes, with the mean, median and p99 of "
                    "summary.json marked.", lambda fig: plot.plot_latency_histogram(r, ax=fig.subplots()),
                    figsize=(8, 4.5), title="latency histogram")
    buffers = r.buffers
    if buffers is not None and not buffers.empty and float(buffers["mean_credits"].max()) > 0:
        page.figure(parts, f"Time-averaged occupancy of the switch input buffers per interval, in credits "
                    f"(the {plot.MAX_LINES} fullest buffers).", lambda fig: plot.plot_buffers(r, ax=fig.subplots()),
                    figsize=(11, 5.5), title="buffer occupancy")
    if not parts:
        parts.append('<p class="note">No figure: the folder has neither nodes.csv nor latency_hist.csv.</p>')

    _ib_tables(page, r)


def _ib_tables(page: _Page, r) -> None:
    s = r.summary
    cc_on = bool((s.get("cc") or {}).get("enabled"))
    nodes = s.get("nodes") or {}
    parts = None
    active = sorted(((n, v) for n, v in nodes.items()
                     if isinstance(v, dict) and ((v.get("tx_gbps") or 0) > 0 or (v.get("rx_gbps") or 0) > 0)),
                    key=lambda nv: natural_key(nv[0]))
    if active:
        parts = page.section("Nodes and flows")
        parts.append("<h3>Nodes</h3>")
        note = ""
        if len(active) > MAX_NODE_ROWS:
            ranked = sorted(active, key=lambda nv: -((nv[1].get("tx_gbps") or 0) + (nv[1].get("rx_gbps") or 0)))
            keep = {n for n, _ in ranked[:MAX_NODE_ROWS]}
            note = (f"The {MAX_NODE_ROWS} busiest of {len(active)} active nodes; all are in summary.json. ")
            active = [(n, v) for n, v in active if n in keep]
        cols = [("link_gbps", "link Gbit/s"), ("tx_gbps", "tx Gbit/s"), ("rx_gbps", "rx Gbit/s"),
                ("tx_gbps_after_warmup", "tx after warm-up"), ("rx_gbps_after_warmup", "rx after warm-up")]
        if cc_on:
            cols += [("cnps_sent", "CNPs sent"), ("cnps_received", "CNPs received")]
        cols = [(k, h) for k, h in cols if any(k in v for _, v in active)]
        rows = [[n, *(v.get(k) for k, _ in cols)] for n, v in active]
        parts.append(_fold(_table(["node", *(h for _, h in cols)], rows, numeric=[False] + [True] * len(cols)),
                           len(rows), "nodes"))
        idle = len(nodes) - len([1 for _, v in nodes.items() if isinstance(v, dict) and
                                 ((v.get("tx_gbps") or 0) > 0 or (v.get("rx_gbps") or 0) > 0)])
        if idle:
            note += f"{idle} idle node{'s' if idle != 1 else ''} not listed."
        if note:
            parts.append(f'<p class="note">{_esc(note.strip())}</p>')

    flows = r.flows if (r.out_dir / "flows.csv").is_file() else None
    if flows is not None and not flows.empty:
        if parts is None:
            parts = page.section("Nodes and flows")
        parts.append("<h3>Flows</h3>")
        wanted = [("src", "src", None), ("dst", "dst", None), ("vl", "VL", None), ("tx_bytes", "tx bytes", None),
                  ("rx_bytes", "rx bytes", None), ("tx_gbps", "tx Gbit/s", None), ("rx_gbps", "rx Gbit/s", None),
                  ("rx_gbps_window", "rx Gbit/s (fairness window)", None),
                  ("latency_mean_ns", "mean latency", _fmt_ns), ("throttled_s", "throttled", _fmt_s)]
        cols = [(c, h, f) for c, h, f in wanted if c in flows.columns]
        note = ""
        t = flows
        if len(t) > MAX_FLOW_ROWS:
            key = "rx_bytes" if "rx_bytes" in t.columns else t.columns[-1]
            t = t.loc[t[key].sort_values(ascending=False, kind="stable").index[:MAX_FLOW_ROWS]].sort_index()
            note = f"The {MAX_FLOW_ROWS} flows that received most of {len(flows)}; all are in flows.csv."
        rows = [[row[c] for c, _, _ in cols] for _, row in t.iterrows()]
        numeric = [c not in ("src", "dst") for c, _, _ in cols]
        parts.append(_fold(_table([h for _, h, _ in cols], rows, numeric=numeric, formats=[f for _, _, f in cols]),
                           len(rows), "flows"))
        if note:
            parts.append(f'<p class="note">{_esc(note)}</p>')
        per_dest = (s.get("fairness") or {}).get("per_destination")
        if isinstance(per_dest, dict) and per_dest:
            items = sorted(per_dest.items(), key=lambda kv: natural_key(kv[0]))[:MAX_NODE_ROWS]
            parts.append("<h3>Fairness per destination</h3>")
            parts.append(_table(["destination", "Jain index"], items, numeric=[False, True],
                                formats=[None, lambda v: f"{float(v):.4f}" if _is_number(v) else fmt_number(v)]))

    ports = r.cc_ports
    if ports is not None and not ports.empty and "fecn_marks" in ports.columns:
        marked = ports[ports["fecn_marks"] > 0].sort_values("fecn_marks", ascending=False, kind="stable")
        cc_parts = page.section("Congestion control")
        if marked.empty:
            cc_parts.append('<p class="note">No switch port marked FECN (no congestion detected).</p>')
        else:
            cols = [c for c in ("switch", "port", "vl", "fecn_marks", "congested_s") if c in marked.columns]
            heads = {"switch": "switch", "port": "port", "vl": "VL", "fecn_marks": "FECN marks",
                     "congested_s": "time congested"}
            rows = [[row[c] for c in cols] for _, row in marked.head(MAX_PORT_ROWS).iterrows()]
            cc_parts.append(f"<p>Switch ports that marked FECN, most marks first ({len(marked)} of {len(ports)} "
                            "port/VL pairs; cc_ports.csv has them all).</p>")
            cc_parts.append(_table([heads[c] for c in cols], rows, numeric=[c != "switch" for c in cols],
                                   formats=[_fmt_s if c == "congested_s" else None for c in cols]))


def _cycle_run(page: _Page, r) -> None:
    from .. import plot

    s = r.summary
    parts = page.section("Summary")
    state = [w for k, w in (("saturated", "saturated"), ("stopped_early", "stopped early")) if s.get(k)]
    if state:
        parts.append(f'<p class="warn">The run {" and ".join(state)}: the offered load is beyond what the network '
                     "accepts, latencies have no steady state.</p>")
    parts.append(_kv_table(_key_figures(s, _CYCLE_KEYS)))
    parts.append(_all_fields(s))

    parts = page.section("Figures")
    bins = r.bins
    if bins is not None:
        n_panels = len([c for c in plot.BINS_PANELS if c in bins.columns])
        page.figure(parts, "The run over time in cycles, per time bin (bins.csv): accepted load, mean packet latency "
                    "and fraction of packets routed non-minimally. Dotted: end of the warm-up; dashed red: the "
                    "transient change, if any.", lambda fig: plot.plot_timeline(r, fig=fig),
                    figsize=(10, 2.6 * max(n_panels, 1) + 0.6), title="timeline")
    if r.routers is not None:
        page.figure(parts, "Accepted load of each router (bars, groups in alternating shades), injected load (dots) "
                    "and the offered load (dashed line); the title gives the Jain index of the routers' injected loads.",
                    lambda fig: plot.plot_router_load(r, ax=fig.subplots()), figsize=(11, 4.5),
                    title="accepted load per router")
    if (r.out_dir / "latency_hist.csv").is_file():
        page.figure(parts, "Packet latency histogram in cycles on logarithmic axes, with the mean, median and p99 "
                    "marked.", lambda fig: plot.plot_latency_histogram(r, ax=fig.subplots()), figsize=(8, 4.5),
                    title="latency histogram")
    if not parts:
        parts.append('<p class="note">No figure: the folder has none of bins.csv, routers.csv, latency_hist.csv.</p>')

    t = r.routers
    if t is not None and not t.empty and "accepted_load" in t.columns:
        parts = page.section("Routers")
        label_col = "name" if "name" in t.columns else None
        cols = ["router"] + ([label_col] if label_col else []) + (["group"] if "group" in t.columns else []) + \
               [c for c in ("injected_load", "accepted_load") if c in t.columns]
        heads = {"router": "router", "name": "name", "group": "group", "injected_load": "injected load",
                 "accepted_load": "accepted load"}
        order = t.sort_values("accepted_load", kind="stable")
        if len(t) <= 2 * ROUTER_EXTREMES:
            shown, what = order, f"All {len(t)} routers, least loaded first"
        else:
            shown = order.iloc[list(range(ROUTER_EXTREMES)) + list(range(len(t) - ROUTER_EXTREMES, len(t)))]
            what = f"The {ROUTER_EXTREMES} least and {ROUTER_EXTREMES} most loaded of {len(t)} routers (routers.csv)"
        parts.append(f"<p>{_esc(what)}; loads in phits/node/cycle.</p>")
        rows = [[row[c] for c in cols] for _, row in shown.iterrows()]
        parts.append(_table([heads.get(c, c) for c in cols], rows,
                            numeric=[c not in ("name", "group") for c in cols]))
        if "group" in t.columns and t["group"].nunique() > 1:
            g = t.groupby("group", sort=False)["accepted_load"].agg(["count", "mean", "min", "max"]).reset_index()
            parts.append("<h3>Accepted load per group</h3>")
            rows = [[row["group"], row["count"], row["mean"], row["min"], row["max"]] for _, row in g.iterrows()]
            parts.append(_table(["group", "routers", "mean", "min", "max"], rows,
                                numeric=[False, True, True, True, True]))
