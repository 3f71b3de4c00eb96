"""Running a batch in worker processes so that it ends promptly and cleanly on a signal.

`concurrent.futures.ProcessPoolExecutor` alone hangs on SIGINT sent to the parent only,
prints a multiprocessing traceback on Ctrl-C and leaves workers running after SIGTERM. Here
the parent owns the signals: workers ignore SIGINT (a terminal's Ctrl-C reaches the whole
process group; the parent decides), and on SIGINT/SIGTERM the parent terminates the workers
— each worker turns SIGTERM into an exception, so a half-written temp file is removed —
waits for them, and re-raises. A worker that dies (a script calling `os._exit` in C code, a
crash) fails only its own job.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from detachviz.errors import EXIT_TERMINATED, Terminated

J = TypeVar("J")
R = TypeVar("R")


_busy = False  # a worker is running a job (else it waits for one: nothing to clean up)


def _on_sigterm(signum: int, frame: Any) -> None:
    if _busy:
        raise Terminated("terminated")  # unwind: `finally` blocks remove temp files
    os._exit(EXIT_TERMINATED)


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)


def _call(func: Callable[[J], R], job: J) -> R:
    """One job in a worker; a SIGTERM ends the worker once the job has unwound."""
    global _busy
    _busy = True
    try:
        return func(job)
    except KeyboardInterrupt:
        os._exit(EXIT_TERMINATED)
    finally:
        _busy = False


def parallel(
    func: Callable[[J], R],
    jobs: list[J],
    workers: int,
    on_broken: Callable[[J, BaseException], R],
) -> Iterator[R]:
    """func(job) for each job in `workers` processes, results in the jobs' order.

    A job whose worker dies is run again alone; if that worker dies too, `on_broken`
    gives its result, and the rest of the batch goes on in a fresh pool.
    """
    func = functools.partial(_call, func)
    done = 0
    while done < len(jobs):
        pool = _pool(workers)
        try:
            futures = [pool.submit(func, job) for job in jobs[done:]]
            for future in futures:
                try:
                    result = future.result()
                except BrokenProcessPool:
                    break
                done += 1
                yield result
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True, cancel_futures=True)
        if done < len(jobs):  # the pool broke: find out whether this job broke it
            alone = _pool(1)
            try:
                result = alone.submit(func, jobs[done]).result()
            except BrokenProcessPool as e:
                result = on_broken(jobs[done], e)
            except BaseException:
                _stop(alone)
                raise
            alone.shutdown(wait=True)
            done += 1
            yield result


def _pool(workers: int) -> ProcessPoolExecutor:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Terminate the workers (they clean up on SIGTERM) and wait for them."""
    children = multiprocessing.active_children()
    for p in children:
        p.terminate()
    for p in children:
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join()
    # NOTE: wait for the pool's manager thread too (it ends at once: its workers are gone).
    # Left running, it could close its wake-up pipe while concurrent.futures' exit hook
    # writes to it: "Exception ignored in: <module 'threading'> ... Bad file descriptor".
    pool.shutdown(wait=True, cancel_futures=True)
