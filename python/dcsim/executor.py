"""Running many scenarios: across local processes or a Dask distributed cluster, with a
results cache and progress reporting. Experiments (`dcsim reproduce`), `dcsim.run_many` and
sweeps (:mod:`dcsim.sweep`) all go through :func:`stream`.

Every simulation an experiment runs goes through :func:`run_scenarios`. What surrounds a
run - where the cache is, whether to ignore it, who is told of progress, which seeds were
used - is a :class:`RunContext` that the caller (``dcsim reproduce``) installs with
:func:`using`; without one, scenarios simply run.

The cache holds one file per simulation (the raw results, pickled), keyed by the scenario's
content (canonical JSON), the engine build (:func:`engine_fingerprint`) and the layout of
raw results (``results.RAW_FORMAT``): a rerun only simulates scenarios that changed, or all of
them again when the engine or that layout changed. Entries are written to a temporary
name and renamed, so an interrupted run never leaves a half-written one.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import itertools
import json
import math
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, _core
from .files import atomic
from .results import RAW_FORMAT
from .run import run as run_one
from .scenario import json_default

if TYPE_CHECKING:  # process pools and rich load where used: `dcsim run` needs neither (30 ms)
    from concurrent.futures import Future, ProcessPoolExecutor

    from rich.console import Console


def report_console(quiet: bool = False) -> Console:
    """The console for what a command reports (each experiment's outcome, the closing table):
    standard output, so that `> log` keeps it, while progress bars stay on stderr. On a file
    or a pipe it is 200 columns wide, so that a table is not wrapped at 80."""
    from rich.console import Console

    return Console(quiet=quiet, highlight=False, width=None if sys.stdout.isatty() else 200)


def progress_columns(percent: bool = False) -> tuple:
    """Fresh columns (rich caches renders per column) for a progress bar: what, how far (done
    of total, or ``percent``), time spent and time left."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%") if percent else MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )


@dataclass
class RunContext:
    """How the scenarios of an experiment run, and what was run."""

    cache_dir: Path | None = None
    force: bool = False
    # Told how many simulations are coming (before they run) and of each one finished.
    on_planned: Callable[[int], None] | None = None
    on_done: Callable[[], None] | None = None
    # Address of a Dask distributed scheduler to run on instead of local processes.
    scheduler: str | None = None
    seeds: set[int] = field(default_factory=set)
    # The hosts' TCP stacks the scenarios ran: their `tcp.profile`, or "engine defaults".
    stacks: set[str] = field(default_factory=set)
    simulated: int = 0
    from_cache: int = 0
    # Cache keys simulated by this invocation so far, shared by every experiment's context:
    # `force` reruns what earlier invocations left in the cache, never a run made minutes ago
    # for another experiment (Figs. 22 and 23 share their runs).
    fresh: set[str] = field(default_factory=set)
    # Simulations started ahead for the experiments to come (`Prefetch`).
    prefetch: Prefetch | None = None


# What a scenario without `tcp.profile` runs (docs/stacks.md).
STACK_DEFAULTS = "engine defaults"

# Tasks in flight per worker: enough to keep workers busy, few enough for flat memory.
IN_FLIGHT_PER_WORKER = 2
DASK_CONNECT_TIMEOUT_S = 10

_current: ContextVar[RunContext | None] = ContextVar("dcsim_run_context", default=None)


def usable_cores(cgroup_root: Path = Path("/sys/fs/cgroup"), own_cgroup: Path = Path("/proc/self/cgroup")) -> int:
    """How many simulations run at once by default: the cores this process may run on (its CPU
    affinity), and no more than its cgroup's CPU quota, rounded up. ``os.cpu_count()`` counts the
    machine's CPUs, which in a container or a CI runner can be many times its share, and a
    worker per CPU there swaps the machine to a halt."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_cpu_quota(cgroup_root, own_cgroup)
    return max(1, min(cores, quota) if quota is not None else cores)


def _cgroup_cpu_quota(root: Path, own_cgroup: Path) -> int | None:
    """The CPU quota of this process's cgroup in cores, rounded up, or None without one:
    cgroup v2's ``cpu.max`` ("QUOTA PERIOD", or "max PERIOD" for none) in this process's
    cgroup or at the root, else cgroup v1's ``cpu.cfs_quota_us`` (-1 for none) over
    ``cpu.cfs_period_us``."""
    try:
        paths = [line.split(":", 2)[2].strip().lstrip("/") for line in own_cgroup.read_text().splitlines() if line.startswith("0::")]
    except (OSError, IndexError):
        paths = []
    candidates: list[tuple[Path, Path | None]] = [(root / p / "cpu.max", None) for p in paths if p]
    candidates.append((root / "cpu.max", None))
    candidates.append((root / "cpu" / "cpu.cfs_quota_us", root / "cpu" / "cpu.cfs_period_us"))
    for quota_file, period_file in candidates:
        try:
            if period_file is None:
                quota, period = quota_file.read_text().split()[:2]
            else:
                quota, period = quota_file.read_text().strip(), period_file.read_text().strip()
        except (OSError, ValueError):
            continue
        if quota in ("max", "-1"):
            return None
        try:
            q, p = int(quota), int(period)
        except ValueError:
            return None
        return math.ceil(q / p) if q > 0 and p > 0 else None
    return None


@contextlib.contextmanager
def using(context: RunContext) -> Iterator[RunContext]:
    """Run the scenarios of the enclosed code under ``context``."""
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


@cache
def engine_fingerprint() -> str:
    """The engine's version and a digest of its compiled extension: any change to the engine,
    even without a version bump, changes it."""
    digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    return f"{__version__}+{digest}"


def cache_key(scenario: dict[str, Any]) -> str:
    text = json.dumps(scenario, sort_keys=True, separators=(",", ":"), allow_nan=True, default=json_default)
    return hashlib.sha256(f"{engine_fingerprint()}\nraw {RAW_FORMAT}\n{text}".encode()).hexdigest()


def run_scenarios(scenarios: list[dict[str, Any]], jobs: int) -> list[dict[str, Any]]:
    """Run scenario dicts on up to ``jobs`` processes (or the context's Dask scheduler); the
    engine's raw result dicts, in input order. Cached results are reused unless the context
    says ``force``. A failing scenario raises (experiments expect every run to succeed)."""
    ctx = _current.get() or RunContext()
    if ctx.on_planned:
        ctx.on_planned(len(scenarios))
    for sc in scenarios:
        ctx.seeds.add(int(sc.get("sim", {}).get("seed", 1)))
        ctx.stacks.add(str(sc.get("tcp", {}).get("profile") or STACK_DEFAULTS))
    results: list[dict[str, Any] | None] = [None] * len(scenarios)
    cache_dir = ctx.cache_dir
    keys: list[str | None] = [cache_key(sc) for sc in scenarios] if cache_dir else [None] * len(scenarios)
    todo = []
    ahead: dict[Future[None], int] = {}
    for i, key in enumerate(keys):
        future = ctx.prefetch.take(key) if ctx.prefetch is not None and key is not None else None
        if future is not None:
            ahead[future] = i
            continue
        stale = ctx.force and key not in ctx.fresh
        hit = None if stale or key is None or cache_dir is None else _load(cache_dir, key)
        if hit is None:
            todo.append(i)
        else:
            results[i] = hit
            ctx.from_cache += 1
            _done(ctx)
    # Runs started ahead by `Prefetch`, each stored in the cache by its worker. One that failed
    # (or whose entry cannot be read) runs again below, where its error is reported.
    for future in _completed(ahead):
        i, key = ahead[future], keys[ahead[future]]
        hit = None if future.exception() is not None or key is None or cache_dir is None else _load(cache_dir, key)
        if hit is None:
            todo.append(i)
            continue
        results[i] = hit
        ctx.fresh.add(key)  # type: ignore[arg-type]
        ctx.simulated += 1
        _done(ctx)
    for j, outcome in stream(_run_raw, [scenarios[i] for i in todo], jobs, ctx.scheduler):
        i = todo[j]
        if isinstance(outcome, BaseException):
            raise outcome
        results[i] = outcome
        key = keys[i]
        if key is not None and cache_dir is not None:
            _store(cache_dir, key, outcome)
            ctx.fresh.add(key)
        ctx.simulated += 1
        _done(ctx)
    return results  # type: ignore[return-value]


def _completed(futures: Iterable[Future[None]]) -> Iterator[Future[None]]:
    """``futures`` as each completes."""
    from concurrent.futures import FIRST_COMPLETED, wait

    pending = set(futures)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        yield from done


class Prefetch:
    """The simulations of the experiments still to come, started ahead on one pool of local
    workers, each stored in the run cache by its worker: the cores go on simulating while an
    experiment waits for its last run and is analysed and drawn, instead of idling at each
    experiment's end. `run_scenarios` takes a run from here when its experiment asks for it.
    A run counted in the cache already (and not `force`d) is not started again; nor is one
    asked for twice."""

    def __init__(self, cache_dir: Path, jobs: int, force: bool):
        from concurrent.futures import ProcessPoolExecutor

        self.cache_dir, self.force = cache_dir, force
        self.pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint)
        self.futures: dict[str, Future[None]] = {}  # not taken yet
        self.started: list[Future[None]] = []
        self.seen: set[str] = set()

    def add(self, scenarios: Iterable[dict[str, Any]]) -> None:
        """Starts each of ``scenarios`` that needs running, in their order."""
        for scenario in scenarios:
            key = cache_key(scenario)
            if key in self.seen:
                continue
            self.seen.add(key)
            if self.force or not _path(self.cache_dir, key).exists():
                self.futures[key] = future = self.pool.submit(_run_and_store, scenario, self.cache_dir, key)
                self.started.append(future)

    def take(self, key: str) -> Future[None] | None:
        """The run of ``key``, if it was started here and not taken yet."""
        return self.futures.pop(key, None)

    def close(self) -> None:
        """Stops the workers: at once, with whatever they hold, if runs are still under way or
        waiting (Ctrl-C, a failed experiment), else as they are idle."""
        if any(not f.done() for f in self.started):
            _terminate(self.pool)
        else:
            self.pool.shutdown(wait=True)


def _run_and_store(scenario: dict[str, Any], cache_dir: Path, key: str) -> None:
    _store(cache_dir, key, _run_raw(scenario))


def stream(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    jobs: int,
    scheduler: str | None = None,
    count: int | None = None,
) -> Iterator[tuple[int, Any]]:
    """Apply ``fn`` to each item in worker processes - ``jobs`` local ones, or the workers of
    the Dask scheduler at ``scheduler`` - and yield ``(index, result)`` as each finishes; a
    result is the exception if ``fn`` raised or its worker died. Items are taken from
    ``items`` only as workers free up (it may be a generator; ``count`` is its length if it
    has none), and at most a few tasks per worker are in flight, so memory stays flat however
    many items there are. One item, or ``jobs = 1`` without a scheduler, runs in this
    process."""
    n = count if count is not None else len(items)  # type: ignore[arg-type]
    if scheduler:
        yield from _stream_dask(fn, items, scheduler)
    elif jobs <= 1 or n <= 1:
        for i, item in enumerate(items):
            yield i, _call(fn, item)
    else:
        yield from _stream_local(fn, items, min(jobs, n))


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    try:
        return fn(item)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:  # returned, not raised: the caller decides
        return e
    except BaseException as e:  # an engine panic (pyo3's PanicException): a failed run too
        return RuntimeError(f"engine panic: {e}")


def _call_on_worker(fn: Callable[[Any], Any], item: Any, engine: str) -> Any:
    """``_call`` on a Dask worker, which must run the client's engine build: results are
    cached under the client's engine, so a worker with another dcsim fails its runs."""
    if engine_fingerprint() != engine:
        return RuntimeError(
            f"this Dask worker runs dcsim engine {engine_fingerprint()}, the client {engine}: install the same dcsim on every machine"
        )
    return _call(fn, item)


def _ignore_sigint() -> None:
    """Worker initialiser: Ctrl-C is the parent's to handle. A worker that took it too would
    print its own traceback and could leave the pool waiting for it at exit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stream_local(fn: Callable[[Any], Any], items: Iterable[Any], workers: int) -> Iterator[tuple[int, Any]]:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    queue = enumerate(items)
    unsent: list[tuple[int, Any]] = []  # taken from the queue, refused by a pool that broke
    while True:
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
        source, unsent = itertools.chain(unsent, queue), []
        pending: dict[Any, int] = {}
        broken = False

        # Bound to this round's pool and queues (a new round makes new ones).
        def submit(
            n: int,
            source: Iterator[tuple[int, Any]] = source,
            pending: dict[Any, int] = pending,
            pool: ProcessPoolExecutor = pool,
            unsent: list[tuple[int, Any]] = unsent,
        ) -> None:
            nonlocal broken
            for j, item in itertools.islice(source, n):
                try:
                    if not broken:
                        pending[pool.submit(_call, fn, item)] = j
                        continue
                except BrokenProcessPool:
                    broken = True  # a worker died since the last look: retry in a fresh pool
                unsent.append((j, item))

        try:
            submit(IN_FLIGHT_PER_WORKER * workers)
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    i = pending.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool as e:
                        # A worker died (killed, out of memory): the runs it held, and the
                        # others in flight with it, fail; the rest go on in a fresh pool.
                        broken = True
                        result = RuntimeError(f"worker process died: {e}")
                    if not broken:
                        submit(1)
                    yield i, result
        except BaseException:
            # Ctrl-C, or the caller stopped early: end the workers now rather than wait for
            # the runs they hold.
            _terminate(pool)
            raise
        pool.shutdown(wait=True)
        if not broken:
            return


def _terminate(pool: ProcessPoolExecutor) -> None:
    processes = list((pool._processes or {}).values())  # no public way to stop running tasks
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=5)


def _stream_dask(fn: Callable[[Any], Any], items: Iterable[Any], scheduler: str) -> Iterator[tuple[int, Any]]:
    from distributed import as_completed

    client = connect(scheduler)
    try:
        queue = enumerate(items)
        futures: dict[Any, int] = {}
        running = as_completed()
        window = _DaskWindow(client)

        def top_up() -> None:
            # Workers may join (or leave) while the sweep runs: keep a few tasks per thread.
            for j, item in itertools.islice(queue, max(0, window.size() - len(futures))):
                future = client.submit(_call_on_worker, fn, item, engine_fingerprint(), pure=False)
                futures[future] = j
                running.add(future)

        top_up()
        for future in running:
            i = futures.pop(future)
            try:
                result = future.result()
            except Exception as e:  # the worker died or the task was lost: report, go on
                result = e
            top_up()
            yield i, result
    finally:
        client.close()


class _DaskWindow:
    """How many tasks to keep in flight on a Dask cluster: a few per worker thread, counted
    again at most once a second (a cluster that is scaling up gains workers as it runs); at
    least two, so that a sweep started before any worker joined still goes."""

    def __init__(self, client: Any):
        self.client = client
        self.checked = -math.inf
        self.threads = 0

    def size(self) -> int:
        now = time.monotonic()
        if now - self.checked >= 1.0:
            self.checked = now
            self.threads = sum(self.client.nthreads().values())
        return IN_FLIGHT_PER_WORKER * max(1, self.threads)


class SchedulerError(RuntimeError):
    """The Dask scheduler given cannot be used."""


def connect(scheduler: str):
    """A Dask client of the scheduler at ``scheduler``; SchedulerError (one line) if the
    address is malformed or nothing answers there, or if Dask is not installed."""
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        raise SchedulerError(f"--scheduler {scheduler}: Dask is not installed; pip install 'dcsim[dask]' adds it") from None

    try:  # a malformed address is refused before any client is made
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError) as e:
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {_one_line(e)}") from None
    try:
        return Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S)
    except Exception as e:  # OSError for a refusal or a timeout; any failure means unusable
        reason = _one_line(e)
    # The failed Client is finalised by the garbage collector; distributed's finaliser
    # deadlocks if that happens while a later Client starts its event loop (its loop lock is
    # not re-entrant), so finalise it now.
    gc.collect()
    raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {reason}")


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def check_scheduler(scheduler: str | None) -> None:
    """Fail early (before anything is written) if ``scheduler`` is given but unusable."""
    if scheduler:
        connect(scheduler).close()


def _run_raw(scenario: dict[str, Any]) -> dict[str, Any]:
    # A progress callback makes the engine check for Ctrl-C as it runs.
    return run_one(scenario, progress=_ignore).raw


def _ignore(_: float) -> None:
    pass


def _done(ctx: RunContext) -> None:
    if ctx.on_done:
        ctx.on_done()


def _path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.pkl.gz"


def _load(cache_dir: Path, key: str) -> dict[str, Any] | None:
    path = _path(cache_dir, key)
    try:
        with gzip.open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except (OSError, EOFError, pickle.UnpicklingError):
        return None  # unreadable entry: simulate again and overwrite it


def _store(cache_dir: Path, key: str, raw: dict[str, Any]) -> None:
    path = _path(cache_dir, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic(path) as tmp, gzip.open(tmp, "wb", compresslevel=1) as f:
        pickle.dump(raw, f, protocol=pickle.HIGHEST_PROTOCOL)
