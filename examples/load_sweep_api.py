"""A Dragonfly load sweep from Python: run it, read it back, and compose a custom figure.

    python examples/load_sweep_api.py            # h=4 Dragonfly (1,056 nodes), takes minutes
    python examples/load_sweep_api.py --quick    # h=2 (72 nodes), a few seconds

Pass --dask tcp://HOST:8786 to run the points on a Dask cluster instead of this machine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import lnsim  # noqa: E402
from lnsim import plot  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a 72-node network and short runs")
    ap.add_argument("--dask", default=None, metavar="ADDRESS", help="Dask scheduler address")
    ap.add_argument("--out", default="results/example-load-sweep", help="sweep folder")
    args = ap.parse_args()

    # 1. a scenario plus overrides; .set() returns a new Scenario
    scen = lnsim.load_scenario(REPO / "scenarios/dragonfly/h4_adv1.toml")
    loads = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5]
    if args.quick:
        scen = scen.set({"topology.h": 2, "topology.p": 2, "topology.a": 4, "sim.warmup_cycles": 500,
                         "sim.measure_cycles": 1500})
        loads = [0.05, 0.15, 0.3, 0.45]

    # 2. the sweep: routing x load (replacing the scenario's own [sweep] table), two seeds
    df = scen.sweep(
        grid={"routing.algorithm": ["min", "vlb", "ugal", "pb"], "traffic.load": loads},
        seeds=2, out=args.out, dask=args.dask, progress=True,
    )
    print(df.groupby(["routing.algorithm", "traffic.load"])["accepted_load"].mean().unstack().round(3))

    # 3. read it back later (from sweep.csv, or every record of the results store)
    df = lnsim.read_sweep(args.out)
    runs = lnsim.read_store(args.out)
    print(f"{len(runs)} runs in the store, {int((runs['status'] == 'ok').sum())} ok")

    # 4. the lnsim plot functions draw into your own axes
    fig, (left, mid, right) = plt.subplots(1, 3, figsize=(15, 4.5))
    plot.plot_load_throughput(df, ax=left)
    plot.plot_load_latency(df, ax=mid)
    busiest = df[df["routing.algorithm"] == "min"].sort_values("traffic.load").iloc[-1]
    plot.plot_router_load(lnsim.load_point(args.out, busiest["point"], seed=int(busiest["seed"])), ax=right)
    for ax, title in zip((left, mid, right), ("throughput", "latency", f"per router, MIN at {busiest['traffic.load']}")):
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(Path(args.out) / "example.png", dpi=110)
    print(f"figure: {Path(args.out) / 'example.png'}")


if __name__ == "__main__":
    main()
