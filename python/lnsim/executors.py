"""Where the runs of a sweep execute: a local process pool or a Dask distributed cluster.

Both executors run the same task, :func:`run_task`, which calls the compiled core
(:func:`lnsim.run`) into a private temporary folder on the worker and returns the run's files as
bytes; the sweep (in the calling process) writes them into the results store. So the results
folder need not be on a file system the workers share, and the same sweep gives byte-identical
results whichever executor ran it. The scenario file (and any file it names, e.g. a topology
file) must be readable by the workers at the same path.

Interface (:class:`Executor`): ``run(tasks)`` yields ``(index, outcome)`` as runs finish, in any
order; ``running()`` is the number of runs executing now; ``close()`` releases the workers.

A run that deadlocked (``summary["deadlock"]``) is a failed outcome whose error names the
credit loop; its files are still returned.

Workers never outlive the sweep. A local pool worker stops within about a second when the
process that started it dies, even by ``kill -9``: on Linux the kernel sends it SIGTERM
(``prctl(PR_SET_PDEATHSIG)``), elsewhere a watchdog thread notices that its parent changed; it
then deletes its temporary run folder and exits (the compiled core polls for signals every
100 ms, so a running simulation stops too). Dask tasks are cancelled when the sweep is
interrupted; when the sweep process is killed, the scheduler drops its client and releases
the tasks: queued runs never start, and a run already executing on a worker is stopped by the
same poll once the worker learns of the cancellation.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _run
from ._core import ScenarioError, SimulationError
from .store import list_files

#: Environment variable giving the Dask scheduler address when ``--dask`` is not given.
DASK_ENV = "LNSIM_DASK_ADDRESS"
#: Seconds to wait for the Dask scheduler before giving up with a clear error.
DASK_CONNECT_TIMEOUT_S = 10

STATUS_OK = "ok"
STATUS_FAILED = "failed"


class ExecutorError(Exception):
    """The executor cannot be used (e.g. the Dask scheduler cannot be reached)."""


def run_task(scenario: str, overrides: List[str], seed: Optional[int], max_memory: Optional[str] = None) -> Dict[str, Any]:
    """One run, on whatever worker executes it: ``{"status", "summary" (summary.json as a dict)
    or "error", "files" ({relative name: bytes}), "wall_time_s", "worker"}``. Never raises for a
    failing simulation: the error is the outcome. A run that deadlocked is ``failed`` with the
    credit loop in ``error``, and keeps its ``summary`` and ``files``."""
    global _RUN_DIR
    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="lnsim-run-"))
    _RUN_DIR = tmp
    out: Dict[str, Any] = {"worker": _worker_name()}
    try:
        stop = _cancelled_check()  # only inside a Dask task
        kw = {} if stop is None else {"_stop": stop}
        r = _run.run(scenario, overrides=overrides, seed=seed, out=tmp / "run", max_memory=max_memory, **kw)
        if r.summary.get("complete") is False:  # partial results are never recorded as a run
            raise SimulationError(f"the run stopped early ({r.summary.get('stop_reason')})")
        files = {name: (tmp / "run" / name).read_bytes() for name in list_files(tmp / "run")}
        out.update(status=STATUS_OK, summary=r.summary, files=files)
        if r.deadlock:
            out.update(status=STATUS_FAILED, error=deadlock_message(r.deadlock))
    except (ScenarioError, SimulationError) as e:
        out.update(status=STATUS_FAILED, error=str(e))
    except Exception as e:  # noqa: BLE001 - reported as the run's error
        out.update(status=STATUS_FAILED, error=f"{type(e).__name__}: {e}")
    finally:
        _RUN_DIR = None
        shutil.rmtree(tmp, ignore_errors=True)  # this task's own temporary folder
    out["wall_time_s"] = time.perf_counter() - t0
    return out


def deadlock_message(dl: Dict[str, Any]) -> str:
    """The error text of a run that deadlocked: when, how many packets, and the credit loop."""
    cycle = dl.get("cycle") or []
    return (
        f"deadlock at {dl.get('time_s', float('nan')):.6g} s: {dl.get('blocked_packets', '?')} packets stuck "
        f"in a credit loop of {len(cycle)} buffers: " + " -> ".join(map(str, cycle))
    )


# --- workers die with their parent ------------------------------------------------------------

#: The temporary folder of the run executing in this process (deleted if the process must exit).
_RUN_DIR: Optional[Path] = None
#: Seconds between two checks of the watchdog thread of a pool worker.
PARENT_POLL_S = 0.25
#: ``prctl`` option: the signal the kernel sends when the parent dies (Linux, <linux/prctl.h>).
_PR_SET_PDEATHSIG = 1
#: Ask the kernel to signal a worker when its parent dies (Linux only; the watchdog thread
#: covers every platform).
USE_PDEATHSIG = sys.platform.startswith("linux")


def _exit_now(code: int) -> None:
    """Deletes the running run's temporary folder and ends the process at once."""
    d = _RUN_DIR
    if d is not None:
        shutil.rmtree(d, ignore_errors=True)
    os._exit(code)


def _on_sigterm(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    _exit_now(128 + signum)


def _watch_parent(parent_pid: int, sweep_pid: int) -> None:
    """Watchdog thread: ends the worker when its parent is gone (it was re-parented) or the
    sweep is (a pool started from a fork server has that as its parent)."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent_pid or not _pid_alive(sweep_pid):
            _exit_now(128 + signal.SIGTERM)


def _pid_alive(pid: int) -> bool:
    """False when process ``pid`` is gone or a zombie (POSIX; always True elsewhere)."""
    if os.name != "posix":  # os.kill(pid, 0) is not a probe on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _worker_init(sweep_pid: int) -> None:
    """Initializer of a local pool worker: it exits, with its temporary folder removed, as soon
    as its parent (the sweep ``sweep_pid``, or the fork server the pool started from it) is
    gone, however that died. SIGTERM (from the kernel on the parent's death, or from the pool
    when the sweep stops it) runs the same exit; the compiled core runs Python's signal handlers
    every 100 ms, so a run in progress stops promptly."""
    try:
        signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass
    if USE_PDEATHSIG:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except Exception:  # noqa: BLE001 - the watchdog below still covers it
            pass
    parent = os.getppid()
    if parent != sweep_pid and not _pid_alive(sweep_pid):  # the sweep died before we were set up
        _exit_now(128 + signal.SIGTERM)
    threading.Thread(
        target=_watch_parent, args=(parent, sweep_pid), name="lnsim-parent-watch", daemon=True
    ).start()


def _cancelled_check():
    """Inside a Dask task: a function telling whether the scheduler cancelled this task (its
    client went away or cancelled it), which the core polls to stop the run; else ``None``."""
    try:
        from distributed import get_worker

        worker = get_worker()
        key = worker.get_current_task()
    except Exception:  # noqa: BLE001 - not inside a Dask worker
        return None

    def cancelled() -> bool:
        try:
            ts = worker.state.tasks.get(key)
        except Exception:  # noqa: BLE001 - worker internals changed: never stop the run
            return False
        return ts is None or ts.state in ("cancelled", "released", "forgotten")

    return cancelled


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # noqa: BLE001 - not inside a Dask worker
        return "local"


def _failed(error: str) -> Dict[str, Any]:
    return {"status": STATUS_FAILED, "error": error, "wall_time_s": 0.0, "worker": None}


class Executor:
    """Runs tasks ``(scenario, overrides, seed)`` and yields ``(index, outcome)`` as they end."""

    #: Short name shown in progress output and recorded in sweep.json.
    name = "executor"
    #: Runs that can execute at once.
    slots = 1

    def run(self, tasks: List[Tuple[str, List[str], Optional[int]]]) -> Iterator[Tuple[int, Dict[str, Any]]]:
        raise NotImplementedError

    def running(self) -> int:
        return 0

    def close(self) -> None:
        pass


class InlineExecutor(Executor):
    """Runs every task in this process, one after the other (``jobs=1``)."""

    name = "inline"

    def __init__(self) -> None:
        self._busy = 0

    def run(self, tasks):
        for i, t in enumerate(tasks):
            self._busy = 1
            try:
                yield i, run_task(*t)
            finally:
                self._busy = 0

    def running(self) -> int:
        return self._busy


class LocalExecutor(Executor):
    """A pool of ``jobs`` worker processes on this machine (the default executor)."""

    name = "local"

    def __init__(self, jobs: int) -> None:
        self.slots = jobs
        self._pool = None
        self._pending = 0

    def run(self, tasks):
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        self._pool = ProcessPoolExecutor(max_workers=self.slots, initializer=_worker_init, initargs=(os.getpid(),))
        futures = {self._pool.submit(run_task, *t): i for i, t in enumerate(tasks)}
        self._pending = len(futures)
        left = set(futures)
        try:
            while left:
                done, left = wait(left, timeout=0.5, return_when=FIRST_COMPLETED)
                self._pending = len(left)
                if not done:
                    yield -1, {}  # a heartbeat: lets the progress display refresh
                for fut in done:
                    try:
                        outcome = fut.result()
                    except Exception as e:  # noqa: BLE001 - e.g. a worker killed by the OS
                        outcome = _failed(f"{type(e).__name__}: {e}")
                    yield futures[fut], outcome
        except BaseException:
            self._stop()
            raise

    def running(self) -> int:
        return min(self._pending, self.slots)

    def _stop(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if hasattr(pool, "terminate_workers"):  # Python >= 3.14
            pool.terminate_workers()
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.terminate()
            except Exception:  # noqa: BLE001
                pass
        for p in procs:
            try:
                p.join(timeout=5)
            except Exception:  # noqa: BLE001
                pass

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class DaskExecutor(Executor):
    """Runs every task as one Dask task on a ``dask.distributed`` cluster.

    ``address`` is the scheduler's (``tcp://host:8786``) or an existing
    ``distributed.Client``. Outcomes stream back as tasks finish; a task whose worker dies is
    reported as a failed run without stopping the others."""

    name = "dask"

    def __init__(self, address, connect_timeout: float = DASK_CONNECT_TIMEOUT_S) -> None:
        try:
            import distributed
        except ImportError:
            raise ExecutorError(
                "--dask needs the `distributed` package: pip install 'dask[distributed]' "
                "(the README's install command installs it)"
            ) from None
        self._own = False
        if isinstance(address, distributed.Client):
            self.client = address
            self.address = address.scheduler.address if address.scheduler else str(address)
        else:
            self.address = str(address)
            _check_reachable(self.address, connect_timeout)
            try:
                self.client = distributed.Client(self.address, timeout=f"{connect_timeout}s")
            except (OSError, TimeoutError, ValueError) as e:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler at {self.address} within {connect_timeout:g} s: {e}"
                ) from None
            self._own = True
        self._futures: list = []
        info = self.client.scheduler_info()
        self.slots = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
        self.name = f"dask {self.address}"

    def run(self, tasks):
        from distributed import as_completed

        keys = [f"lnsim-run-{i}-{os.getpid()}-{time.time_ns()}" for i in range(len(tasks))]
        futures = [self.client.submit(run_task, *t, key=k, pure=False) for t, k in zip(tasks, keys)]
        index = {f.key: i for i, f in enumerate(futures)}
        self._futures = futures
        ac = as_completed(futures)
        try:
            while not ac.is_empty():
                batch = ac.next_batch(block=False)
                if not batch:
                    time.sleep(0.2)
                    yield -1, {}  # heartbeat
                    continue
                for fut in batch:
                    try:
                        outcome = fut.result()
                    except Exception as e:  # noqa: BLE001 - KilledWorker, lost connection ...
                        outcome = _failed(f"{type(e).__name__}: {e}")
                    fut.release()
                    yield index[fut.key], outcome
        except BaseException:
            self.client.cancel(futures)
            raise

    def running(self) -> int:
        try:
            processing = self.client.processing()
        except Exception:  # noqa: BLE001 - progress only
            return 0
        ours = {f.key for f in self._futures}
        # `processing` also lists tasks already sent to a worker but queued behind others there
        assigned = sum(1 for keys in processing.values() for k in keys if k in ours)
        return min(assigned, self.slots)

    def close(self) -> None:
        if self._own:
            self.client.close()


def _check_reachable(address: str, timeout: float) -> None:
    """Fails fast, with a clear message, when nothing listens at a ``tcp://host:port``."""
    if "://" in address and not address.startswith("tcp://"):
        return  # other protocols (tls://, ucx://, inproc://) are left to distributed
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--dask {address}: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=min(timeout, 5)):
            pass
    except OSError as e:
        raise ExecutorError(
            f"cannot reach the Dask scheduler at {address}: {e.strerror or e} "
            "(is `dask scheduler` running there, and is the address right?)"
        ) from None


def make_executor(jobs: Optional[int], n_tasks: int, dask=None, max_local: Optional[int] = None) -> Executor:
    """The executor for a sweep: Dask when ``dask`` (an address or a Client) is given or
    :data:`DASK_ENV` is set, else a local pool of ``jobs`` processes (default: all cores;
    in-process when that is 1), at most ``max_local`` (the runs that fit in memory at once)."""
    if dask is None:
        dask = os.environ.get(DASK_ENV) or None
    if dask is not None:
        return DaskExecutor(dask)
    n = min(jobs or os.cpu_count() or 1, max(n_tasks, 1))
    if max_local is not None:
        n = max(1, min(n, max_local))
    return InlineExecutor() if n == 1 else LocalExecutor(n)
