"""Run an lnsim sweep on a Slurm or PBS cluster through dask-jobqueue.

dask-jobqueue submits batch jobs that each start Dask workers; lnsim sends every sweep point to
them as one task and writes the results into the sweep folder on the machine where this script
runs (the login node), as they complete. The workers need lnsim installed in the same Python
environment (e.g. a shared virtualenv on the cluster file system) and must see the scenario file
at the same path; they do not need to see the results folder.

    pip install dask-jobqueue
    python examples/dask_jobqueue_cluster.py --system slurm --jobs 8 \\
        scenarios/dragonfly/h6_un.toml --out results/h6_un-sweep --seeds 3

Interrupted (Ctrl-C, lost allocation, login node reboot)? Run the same command with --resume:
only the points not yet in the results store are simulated.

The equivalent by hand: start a scheduler and workers yourself (``dask scheduler`` on one node,
``dask worker tcp://SCHEDULER:8786 --nthreads 1`` in each batch job) and run
``lnsim sweep SCENARIO --dask tcp://SCHEDULER:8786``.
"""

from __future__ import annotations

import argparse

import lnsim


def make_cluster(system: str, cores: int, memory: str, walltime: str, queue: str | None, account: str | None):
    """A dask-jobqueue cluster whose every batch job runs ``cores`` single-threaded workers.

    lnsim runs one point per worker thread and a point is single-threaded, so one process per
    core with one thread each uses the nodes fully."""
    try:
        import dask_jobqueue
    except ImportError:
        raise SystemExit("this example needs dask-jobqueue: pip install dask-jobqueue") from None
    kind = {"slurm": dask_jobqueue.SLURMCluster, "pbs": dask_jobqueue.PBSCluster}[system]
    return kind(
        cores=cores,
        processes=cores,  # one worker process per core, one thread each
        memory=memory,
        walltime=walltime,
        queue=queue,
        account=account,
        job_name="lnsim-sweep",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", help="scenario file (with a [sweep] table, or use --grid)")
    ap.add_argument("--system", choices=["slurm", "pbs"], default="slurm")
    ap.add_argument("--jobs", type=int, default=4, help="batch jobs to submit (each one node's worth of workers)")
    ap.add_argument("--cores", type=int, default=32, help="cores per batch job")
    ap.add_argument("--memory", default="64GB", help="memory per batch job")
    ap.add_argument("--walltime", default="02:00:00")
    ap.add_argument("--queue", default=None, help="partition (Slurm) or queue (PBS)")
    ap.add_argument("--account", default=None)
    ap.add_argument("--out", default=None, help="sweep folder (default results/<scenario name>-sweep)")
    ap.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2", help="extra swept key (repeatable)")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--resume", action="store_true", help="run only the points missing from the results store")
    args = ap.parse_args()

    from distributed import Client

    cluster = make_cluster(args.system, args.cores, args.memory, args.walltime, args.queue, args.account)
    cluster.scale(jobs=args.jobs)
    with Client(cluster) as client:
        df = lnsim.sweep(
            args.scenario, grid=args.grid, seeds=args.seeds, out=args.out, dask=client, resume=args.resume,
            progress=True,
        )
    cluster.close()
    print(df[[*df.attrs["keys"], "status"]].to_string(index=False))
    print(f"results: {df.attrs['out_dir']}/sweep.csv; report: lnsim report {df.attrs['out_dir']}")


if __name__ == "__main__":
    main()
