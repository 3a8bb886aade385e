"""Parameter sweeps: a base scenario, parameter axes, repetitions with distinct seeds, and the
metrics to collect; one tidy table out (one row per run).

A plan, as TOML (`dcsim sweep PLAN.toml`) or as a dict (`dcsim.sweep(plan)`):

    name = "k-sweep"
    base = "dctcp-2flows.toml"       # a scenario file, relative to the plan; or a [base] table
    repetitions = 3                  # seeds base_seed, base_seed + 1, ...
    metrics = ["ports[s0->h0].mean_packets", "flows.goodput_bps.mean"]

    [grid]                           # every combination of these ...
    "switch.aqm.k_packets" = [5, 10, 20, 40]
    "tcp.cc" = ["dctcp", "tcp_ecn"]

    [zip]                            # ... with each position of these lists taken together
    "topology.link.rate_gbps" = [1.0, 10.0]
    "sim.duration_s" = [0.5, 0.1]

Parameters are dotted paths into the scenario (`flows[0].cc` indexes a list). Metrics:

- `ports[NAME].COLUMN`, `flows[ID].COLUMN`, `queries[INDEX].COLUMN`: one row's value;
- `ports.COLUMN.AGG`, `flows.COLUMN.AGG`, `queries.COLUMN.AGG`: over all rows, AGG one of
  mean, median, min, max, sum, std, count, or pNN (a percentile, e.g. p99);
- `ports[NAME].queue_pNN` (and `ports.queue_pNN.AGG`): a port's time-weighted queue
  percentile, packets;
- `fct[BUCKET].STAT`: a statistic of one flow-size bucket of `fct_stats` (`100kB-1MB`, or
  the bucket's index), NaN in a run without a flow in it;
- `run.FIELD`: a number of the run's summary (events, packet_hops, drops, marks, timeouts,
  wall_seconds, ...).

`[ranges]` (optional) gives a metric's plotted range as [low, high]; other plots start at
zero unless a value is negative.

Each run is a pure function of its scenario (seed included): its row is cached under
`OUT/.cache/` by the scenario's content, the metrics and the engine build, so an interrupted
sweep resumes where it stopped. A run that fails (a bad parameter combination, an engine
error, a metric it lacks) is recorded with its error and the others go on; failures are
retried on the next start. Runs execute in local processes, or on a Dask distributed
cluster with `scheduler=`; scenarios are built as workers take them and only their rows
travel back, so memory grows only with the table (about 1.3 KB a run).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import numbers
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import executor
from .files import atomic, write_csv, write_json
from .results import Results, occupancy, occupancy_quantile
from .scenario import PARAMETER_PATH, Problems, ScenarioError, json_default, port_names, read_toml, set_path, validate
from .stats import t_quantile
from .workloads import DCTCP_BUCKETS, FCT_COLUMNS, bucket_labels

if TYPE_CHECKING:  # pandas is imported where a table is built: `import dcsim` stays light
    import pandas as pd

_AGG = re.compile(r"^(mean|median|min|max|sum|std|count|p(\d{1,2}(?:\.\d+)?))$")
_ROW = re.compile(r"^(ports|flows|queries)\[([^\]]+)\]\.(\w+(?:\.\d+_?\w*)?)$")
# A port's time-weighted queue percentile, as a column: queue_p99 or queue_p99_packets.
_QUEUE_Q = re.compile(r"^queue_p(\d{1,2}(?:\.\d+)?)(?:_packets)?$")
# A statistic of one flow-size bucket of `fct_stats`: fct[100kB-1MB].p99_slowdown, or by index.
_FCT = re.compile(r"^fct\[([^\]]+)\]\.([\w.]+)$")
_TABLE = re.compile(r"^(ports|flows|queries)\.(\w+)\.(\w+(?:\.\d+)?)$")
_RUN = re.compile(r"^run\.(\w+)$")
_PLAN_KEYS = {"name", "base", "repetitions", "metrics", "grid", "zip", "ranges"}


@dataclass
class Plan:
    name: str
    base: dict[str, Any]
    metrics: list[str]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zipped: dict[str, list[Any]] = field(default_factory=dict)
    repetitions: int = 1
    source: str = "<plan>"
    # A metric's plotted range, [low, high], where the plan states one (`[ranges]`).
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    # Set by preflight(), so that sweep() does not check a plan the CLI checked already.
    checked: bool = False

    @property
    def axes(self) -> list[str]:
        return [*self.grid, *self.zipped]


@dataclass(frozen=True)
class Run:
    """One run of a plan. Its scenario is built when asked for, not stored, so a plan of any
    size costs only its parameters in memory."""

    index: int
    params: dict[str, Any]
    repetition: int
    seed: int
    plan: Plan = field(repr=False, compare=False)

    @property
    def scenario(self) -> dict[str, Any]:
        scenario = copy.deepcopy(self.plan.base)
        for path, value in self.params.items():
            try:
                set_path(scenario, path, value)
            except (IndexError, ValueError, TypeError, AttributeError, KeyError) as e:
                kind = "grid" if path in self.plan.grid else "zip"
                raise ScenarioError(self.plan.source, f"{kind}.{path}", f"cannot set it in the base scenario: {e}") from None
        scenario.setdefault("sim", {})["seed"] = self.seed
        # Named by its point's content, not its position: a run's cache key must not change
        # when the plan gains points or repetitions.
        text = json.dumps(self.params, sort_keys=True, default=json_default)
        point = hashlib.sha256(text.encode()).hexdigest()[:10]
        scenario["name"] = f"{self.plan.name}-{point}-r{self.repetition}"
        return scenario


# --- the plan ---------------------------------------------------------------------------


def load_plan(plan: dict[str, Any] | str | Path) -> Plan:
    """A plan from a TOML file or a dict; ScenarioError (source, field, reason) if invalid."""
    if isinstance(plan, (str, Path)):
        path = Path(plan)
        return _plan(read_toml(path), str(path), path.parent)
    return _plan(plan, "<plan>", Path.cwd())


def _plan(d: dict[str, Any], source: str, here: Path) -> Plan:
    """Checks every part of the plan and reports every problem found at once."""
    problems = Problems(source)
    unknown = sorted(set(d) - _PLAN_KEYS)
    for key in unknown:
        problems.add(key, f"unknown field (a plan has {', '.join(sorted(_PLAN_KEYS))})")
    base = d.get("base")
    try:
        if isinstance(base, str):
            base_path = here / base
            base = read_toml(base_path)
            validate(base, str(base_path))
        elif isinstance(base, dict):
            validate(base, f"{source}: base")
        else:
            problems.add("base", "a scenario file name or a [base] table is required")
    except ScenarioError as e:
        problems.add_error(e)
    metrics = d.get("metrics")
    if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
        problems.add("metrics", "a non-empty list of metric names is required")
    else:
        for i, m in enumerate(metrics):
            if not _metric_form(m):
                problems.add(
                    f"metrics[{i}]",
                    f"{m!r} is not a metric: use ports[NAME].COLUMN, ports[NAME].queue_p99, flows.COLUMN.AGG, "
                    "fct[100kB-1MB].p99_slowdown, run.FIELD, ...",
                )
    axes: dict[str, dict[str, list[Any]]] = {"grid": {}, "zip": {}}
    for kind in ("grid", "zip"):
        table = d.get(kind, {})
        if not isinstance(table, dict):
            problems.add(kind, "must be a table of parameter = [values]")
            continue
        for key, values in table.items():
            if not PARAMETER_PATH.match(key):
                problems.add(f"{kind}.{key}", "not a parameter path like switch.aqm.k_packets")
            elif not isinstance(values, list) or not values:
                problems.add(f"{kind}.{key}", "must be a non-empty list of values")
            else:
                axes[kind][key] = list(values)
    for key in sorted(set(axes["grid"]) & set(axes["zip"])):
        problems.add(f"zip.{key}", "is also a grid axis")
    lengths = {len(v) for v in axes["zip"].values()}
    if len(lengths) > 1:
        problems.add("zip", f"zipped lists must have the same length, got {sorted(lengths)}")
    repetitions = d.get("repetitions", 1)
    if not isinstance(repetitions, int) or isinstance(repetitions, bool) or repetitions < 1:
        problems.add("repetitions", f"must be a whole number ≥ 1, got {repetitions!r}")
    ranges = _ranges(d.get("ranges", {}), metrics if isinstance(metrics, list) else [], problems)
    problems.raise_any()
    name = str(d.get("name") or Path(source).stem)
    return Plan(name, base, list(metrics), axes["grid"], axes["zip"], repetitions, source, ranges)  # type: ignore[arg-type]


def _ranges(table: Any, metrics: list[Any], problems: Problems) -> dict[str, tuple[float, float]]:
    """The plan's `[ranges]`: metric = [low, high], the range its plot shows."""
    if not isinstance(table, dict):
        problems.add("ranges", "must be a table of metric = [low, high]")
        return {}
    ranges = {}
    for key, value in table.items():
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        )
        if key not in metrics:
            problems.add(f"ranges.{key}", "not one of the plan's metrics")
        elif not ok or value[0] >= value[1]:
            problems.add(f"ranges.{key}", f"must be [low, high] with low < high, got {value!r}")
        else:
            ranges[key] = (float(value[0]), float(value[1]))
    return ranges


def _metric_form(m: str) -> bool:
    if _ROW.match(m) or _RUN.match(m) or _FCT.match(m):
        return True
    t = _TABLE.match(m)
    return bool(t and _AGG.match(t.group(3)))


def expand(plan: Plan) -> list[Run]:
    """Every run of a plan: grid product × zipped positions × repetitions. Repetition r uses
    seed s + r at every parameter point (common random numbers across points), s being the
    point's ``sim.seed`` if that is an axis, else the base scenario's. ScenarioError if a
    parameter cannot be set in the base scenario."""
    base_seed = int(plan.base.get("sim", {}).get("seed", 1))
    grid = [dict(zip(plan.grid, combo)) for combo in itertools.product(*plan.grid.values())]
    n_zip = len(next(iter(plan.zipped.values()))) if plan.zipped else 1
    zipped = [{k: v[i] for k, v in plan.zipped.items()} for i in range(n_zip)]
    runs: list[Run] = []
    for g in grid:
        for z in zipped:
            params = {**g, **z}
            seed = params.get("sim.seed", base_seed)
            seed = int(seed) if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) else seed
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                kind = "grid" if "sim.seed" in plan.grid else "zip"
                raise ScenarioError(plan.source, f"{kind}.sim.seed", f"seeds are whole numbers ≥ 0, got {seed!r}")
            for rep in range(plan.repetitions):
                runs.append(Run(len(runs), params, rep, seed + rep, plan))
            _ = runs[-1].scenario  # every parameter can be set: raises ScenarioError if not
    return runs


def preflight(plan: Plan, runs: list[Run]) -> None:
    """Reject, before anything runs, a plan whose every run would fail: every parameter
    point is an invalid scenario, or a metric names a column, field, port or flow the runs
    cannot have. Raises ScenarioError naming the plan's field. (A plan where only some
    points are invalid runs: those runs are recorded as failed.)"""
    points = [r for r in runs if r.repetition == 0]
    first_error: ScenarioError | None = None
    valid: Run | None = None
    for r in points:
        try:
            scenario = r.scenario
            validate(scenario, scenario["name"])
            valid = valid or r
        except ScenarioError as e:
            first_error = first_error or e
    if valid is None:
        assert first_error is not None  # a plan has at least one point
        raise ScenarioError(plan.source, first_error.field, f"{first_error.reason} (in every run of the plan)")
    # A run of the first valid point, cut to a microsecond: the tables' shapes and columns.
    probe = valid.scenario
    sim = probe.setdefault("sim", {})
    sim["duration_s"] = float(sim.get("warmup_s", 0.0)) + 1e-6
    sim["drain_s"] = 0.0  # a drain of the full run would not fit in the probe's microsecond
    from .run import run

    results = run(probe)
    # Port rows are checked against every point's own network (the engine names its ports,
    # whatever the axes change); flow rows only when the list of flows is not an axis.
    networks: dict[str, set[str]] = {}
    fixed_flows = "flows" not in plan.axes
    problems = Problems(plan.source)
    for i, m in enumerate(plan.metrics):
        row = _ROW.match(m)
        try:
            if fct := _FCT.match(m):
                _bucket_index(fct.group(1))
                if fct.group(2) not in FCT_COLUMNS:
                    raise KeyError(f"fct has no column {fct.group(2)!r} (it has {', '.join(FCT_COLUMNS)})")
            elif row and row.group(1) == "ports":
                if not _QUEUE_Q.match(row.group(3)):
                    _column(_table(results, "ports"), row.group(3), "ports")
                for r in points:
                    names = _port_names(r.scenario, networks)
                    if names is not None and row.group(2) not in names:
                        raise KeyError(f"no ports row {row.group(2)!r} in the run with {r.params}")
            elif row and not (row.group(1) == "flows" and fixed_flows):
                _column(_table(results, row.group(1)), row.group(3), row.group(1))
            else:
                metric(results, m)
        except (KeyError, IndexError) as e:
            problems.add(f"metrics[{i}]", str(e.args[0] if e.args else e))
    problems.raise_any()
    plan.checked = True


def _port_names(scenario: dict[str, Any], cache: dict[str, set[str]]) -> set[str] | None:
    """The port names of a run's network (None if the run's scenario is not valid: that run
    is reported when it runs), cached by the network's description."""
    key = json.dumps(scenario.get("topology"), sort_keys=True, default=json_default)
    if key not in cache:
        try:
            cache[key] = set(port_names(scenario, scenario.get("name")))
        except ScenarioError:
            return None
    return cache[key]


# --- one run ----------------------------------------------------------------------------


def run_point(task: tuple[dict[str, Any], list[str]]) -> dict[str, Any]:
    """Run one scenario and reduce it to its metrics (in the worker: only this row travels
    back). Never raises for the run's own failure: the row carries the error."""
    from .run import run

    scenario, metrics = task
    start = time.perf_counter()
    row: dict[str, Any] = {m: math.nan for m in metrics}
    try:
        results = run(scenario, progress=_ignore)
        errors = []
        for m in metrics:
            try:
                row[m] = metric(results, m)
            except (KeyError, IndexError, ValueError) as e:
                errors.append(f"{m}: {e}")
        row["error"] = "; ".join(errors)
    except ScenarioError as e:
        row["error"] = str(e)
    row["wall_seconds"] = time.perf_counter() - start
    return row


def _ignore(_: float) -> None:
    pass


def metric(results: Results, spec: str) -> float:
    """The value of one metric of a run (see the module docstring)."""
    if m := _RUN.match(spec):
        summary = results.summary()
        if m.group(1) not in summary or isinstance(summary[m.group(1)], (dict, list)):
            raise KeyError(f"the run summary has no number {m.group(1)!r}")
        return float(summary[m.group(1)])
    if m := _FCT.match(spec):
        return _fct_metric(results, *m.groups())
    if m := _ROW.match(spec):
        table, key, column = m.groups()
        frame = _table(results, table)
        if table == "ports":
            rows = frame[frame["name"] == key]
        else:
            rows = frame.iloc[[int(key)]] if key.isdigit() and int(key) < len(frame) else frame.iloc[[]]
        if rows.empty:
            raise KeyError(f"no {table} row {key!r}")
        if table == "ports" and (q := _QUEUE_Q.match(column)):
            return float(occupancy_quantile(results.occupancy(key), float(q.group(1)) / 100))
        return float(_column(rows, column, table).iloc[0])
    m = _TABLE.match(spec)
    if m is None:
        raise KeyError(f"{spec!r} is not a metric")
    table, column, agg = m.groups()
    if table == "ports" and (q := _QUEUE_Q.match(column)):
        values = _float_series([occupancy_quantile(h, float(q.group(1)) / 100) for h in occupancy(results.raw)])
    else:
        values = _column(_table(results, table), column, table).astype(float)
    if agg == "count":
        return float(values.count())
    if agg.startswith("p"):
        return float(np.nanpercentile(values, float(agg[1:]))) if values.notna().any() else math.nan
    return float(getattr(values, agg)())


def _float_series(values: list[float]) -> pd.Series:
    import pandas as pd

    return pd.Series(values, dtype=float)


def _fct_metric(results: Results, bucket: str, column: str) -> float:
    """Statistic `column` of `fct_stats` in size bucket `bucket` (its label, spaces and dash
    forms aside, or its index); NaN when the run has no flow in the bucket."""
    i = _bucket_index(bucket)
    if column not in FCT_COLUMNS:
        raise KeyError(f"fct has no column {column!r} (it has {', '.join(FCT_COLUMNS)})")
    table = results.fct_stats()
    label = bucket_labels(DCTCP_BUCKETS)[i]
    rows = table[table["bucket"].astype(str) == label] if len(table) else table
    return float(rows[column].iloc[0]) if len(rows) else math.nan


def _bucket_index(bucket: str) -> int:
    """The index of a size bucket named by its label (`100kB-1MB`, `100 kB–1 MB`) or index."""
    labels = bucket_labels(DCTCP_BUCKETS)
    if bucket.isdigit() and int(bucket) < len(labels):
        return int(bucket)

    def plain(label: str) -> str:
        return label.replace(" ", "").replace("–", "-").replace("∞", "inf").lower()

    for i, label in enumerate(labels):
        if plain(label) == plain(bucket):
            return i
    raise KeyError(f"no flow-size bucket {bucket!r} (the buckets are {', '.join(plain(b) for b in labels)}, or 0 to {len(labels) - 1})")


def _table(results: Results, name: str) -> pd.DataFrame:
    return {"ports": results.ports, "flows": results.flows, "queries": results.queries}[name]


def _column(frame: pd.DataFrame, column: str, table: str) -> pd.Series:
    if column not in frame.columns:
        raise KeyError(f"{table} has no column {column!r}")
    return frame[column]


# --- the sweep --------------------------------------------------------------------------


def sweep(
    plan: dict[str, Any] | str | Path | Plan,
    out: str | Path | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    progress: bool = True,
    quiet: bool = False,
) -> pd.DataFrame:
    """Run every run of ``plan``; return the table (one row per run: parameters, repetition,
    seed, metrics, wall seconds, error). With ``out``, also write ``results.parquet``,
    ``results.csv``, ``sweep.json`` and a plot per metric there, and cache each run's row
    in ``out/.cache`` (reused unless ``force``). ``scheduler`` is a Dask scheduler address
    (``tcp://host:8786``); by default runs use ``jobs`` local processes."""
    _check_arguments(jobs, out, scheduler)
    p = plan if isinstance(plan, Plan) else load_plan(plan)
    runs = expand(p)
    if not p.checked:
        preflight(p, runs)
    out_dir = Path(out) if out is not None else None
    cache = out_dir / ".cache" if out_dir is not None else None
    rows: list[dict[str, Any] | None] = [None] * len(runs)
    todo: list[tuple[int, str]] = []  # (run index, cache key) of the runs to simulate
    for r in runs:
        key = _row_key(r.scenario, p.metrics)
        hit = None if force or cache is None else _load_row(cache, key)
        if hit is None:
            todo.append((r.index, key))
        else:
            rows[r.index] = hit
    from_cache = len(runs) - len(todo)
    started = time.perf_counter()
    # Scenarios are built as the executor takes them: only those in flight are in memory.
    tasks = ((runs[i].scenario, p.metrics) for i, _ in todo)
    with _bar(progress and not quiet, len(runs), from_cache) as advance:
        for j, outcome in executor.stream(run_point, tasks, jobs or executor.usable_cores(), scheduler, count=len(todo)):
            i, key = todo[j]
            if isinstance(outcome, BaseException):  # the worker itself failed
                outcome = {m: math.nan for m in p.metrics} | {"error": f"{type(outcome).__name__}: {outcome}", "wall_seconds": math.nan}
            rows[i] = outcome
            if cache is not None and not outcome.get("error"):
                _store_row(cache, key, outcome)
            advance()
    table = _tidy(p, runs, rows)  # type: ignore[arg-type]
    if out_dir is not None:
        _write(out_dir, p, table, len(todo), from_cache, time.perf_counter() - started, scheduler)
    return table


def _check_arguments(jobs: Any, out: Any, scheduler: Any) -> None:
    """Python callers get one clear error for a bad argument, before anything runs."""
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError(f"dcsim.sweep: jobs must be a whole number ≥ 1 (or None for every core), got {jobs!r}")
    if jobs is not None and scheduler:
        raise ValueError("dcsim.sweep: jobs and scheduler exclude each other")
    if scheduler is not None and not isinstance(scheduler, str):
        raise TypeError(f"dcsim.sweep: scheduler must be an address string, got {scheduler!r}")
    if out is not None:
        if not isinstance(out, (str, os.PathLike)):
            raise TypeError(f"dcsim.sweep: out must be a directory path, got {out!r}")
        if Path(out).exists() and not Path(out).is_dir():
            raise ValueError(f"dcsim.sweep: out: {out} exists and is not a directory")


def _tidy(plan: Plan, runs: list[Run], rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    records = []
    for run, row in zip(runs, rows):
        record = {"run": run.index, **run.params, "repetition": run.repetition, "seed": run.seed}
        record |= {m: row.get(m, math.nan) for m in plan.metrics}
        record["wall_seconds"] = row.get("wall_seconds", math.nan)
        record["error"] = row.get("error") or ""
        records.append(record)
    table = pd.DataFrame(records)
    for axis in plan.axes:
        table[axis] = _column_of_values(table[axis])
    return table


def _column_of_values(values: pd.Series) -> pd.Series:
    """An axis as a table column that groups, plots and stores in Parquet: numbers or strings
    as they are; lists and tables (a sweep over `flows`, say) as their JSON text; a mix of
    kinds as text."""
    if values.map(lambda v: isinstance(v, (list, dict))).any():
        return values.map(lambda v: json.dumps(v, sort_keys=True, default=json_default))
    kinds = {bool if isinstance(v, bool) else float if isinstance(v, (int, float)) else type(v) for v in values}
    return values.astype(str) if len(kinds) > 1 else values


def _row_key(scenario: dict[str, Any], metrics: list[str]) -> str:
    return hashlib.sha256(f"{executor.cache_key(scenario)}\n{json.dumps(metrics)}".encode()).hexdigest()


def _load_row(cache: Path, key: str) -> dict[str, Any] | None:
    try:
        return json.loads((cache / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _store_row(cache: Path, key: str, row: dict[str, Any]) -> None:
    path = cache / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic(path) as tmp:
        tmp.write_text(json.dumps(row, allow_nan=True), encoding="utf-8")


class _bar:
    """A rich progress bar over the runs on a terminal (cached runs count as done); a no-op
    elsewhere."""

    def __init__(self, show: bool, total: int, done: int):
        from rich.console import Console
        from rich.progress import Progress

        console = Console(stderr=True)
        self.progress = Progress(*executor.progress_columns(), console=console, disable=not (show and console.is_terminal), transient=True)
        self.task = self.progress.add_task("sweep runs", total=total, completed=done)

    def __enter__(self):
        self.progress.__enter__()
        return lambda: self.progress.advance(self.task)

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)


# --- files ------------------------------------------------------------------------------


def _write(out: Path, plan: Plan, table: pd.DataFrame, simulated: int, from_cache: int, wall: float, scheduler: str | None) -> None:

    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "results.csv", table)
    with atomic(out / "results.parquet") as tmp:
        table.to_parquet(tmp, index=False)
    plots = plot(plan, table, out)
    write_json(
        out / "sweep.json",
        {
            "name": plan.name,
            "runs": len(table),
            "failed": int((table["error"] != "").sum()),
            "simulated": simulated,
            "from_cache": from_cache,
            "wall_seconds": round(wall, 3),
            "executor": f"dask {scheduler}" if scheduler else "local processes",
            "engine": executor.engine_fingerprint(),
            "axes": plan.axes,
            "metrics": plan.metrics,
            "files": ["results.parquet", "results.csv", *plots],
        },
    )


def summarize(table: pd.DataFrame, plan: Plan, metric_name: str) -> pd.DataFrame:
    """Mean and 95% confidence interval (Student t over the repetitions) of a metric at each
    parameter point, failed runs left out."""
    import pandas as pd

    ok = table[table["error"] == ""]
    keys = plan.axes
    grouped = ok.groupby(keys, dropna=False, sort=False)[metric_name] if keys else [((), ok[metric_name])]
    rows = []
    for key, values in grouped:
        v = values.dropna().to_numpy(dtype=float)
        n = len(v)
        mean = float(v.mean()) if n else math.nan
        half = float(t_quantile(0.975, n - 1) * v.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        point = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        rows.append({**point, "n": n, "mean": mean, "ci95_low": mean - half, "ci95_high": mean + half})
    return pd.DataFrame(rows)


# Points the closing table shows; the rest are in results.csv.
MAX_OVERVIEW_POINTS = 40


def overview(plan: Plan, table: pd.DataFrame) -> Any:
    """A rich table for the end of a sweep: one row per parameter point, with each metric's
    mean over the point's successful runs (± the 95% confidence interval's half width with
    repetitions)."""
    from rich.markup import escape
    from rich.table import Table

    ok = table[table["error"] == ""]
    view = Table(title=f"sweep {escape(plan.name)}: {len(ok)} of {len(table)} runs succeeded", title_justify="left")
    for name in (*plan.axes, "runs"):
        view.add_column(escape(name), justify="left" if name != "runs" else "right", overflow="fold")
    for m in plan.metrics:
        view.add_column(escape(m), justify="right", overflow="fold")
    points = table.groupby(plan.axes, dropna=False, sort=False) if plan.axes else [((), table)]
    stats = {m: summarize(table, plan, m) for m in plan.metrics}
    shown = 0
    for key, runs in points:
        key = key if isinstance(key, tuple) else (key,)
        if shown == MAX_OVERVIEW_POINTS:
            view.add_row(f"... {len(table.groupby(plan.axes, sort=False)) - shown} more points in results.csv")
            break
        cells = [escape(str(v)) for v in key]
        cells.append(f"{int((runs['error'] == '').sum())}/{len(runs)}")
        for m in plan.metrics:
            cells.append(_mean_cell(stats[m], plan.axes, key))
        view.add_row(*cells)
        shown += 1
    return view


def _mean_cell(stats: pd.DataFrame, axes: list[str], key: tuple[Any, ...]) -> str:
    """A metric's mean at one point (± half the 95% interval), or empty if no run there has it."""
    rows = stats
    for axis, value in zip(axes, key, strict=True):
        rows = rows[rows[axis] == value]
    if not len(rows) or not math.isfinite(rows["mean"].iloc[0]):
        return ""
    mean, high = rows["mean"].iloc[0], rows["ci95_high"].iloc[0]
    return f"{mean:.4g} ± {high - mean:.2g}" if math.isfinite(high) else f"{mean:.4g}"


def plot(plan: Plan, table: pd.DataFrame, out: Path) -> list[str]:
    """One PNG + SVG per metric: the metric against the first axis, one line per value of
    the other axes, mean with its 95% confidence interval across repetitions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not plan.axes or not (table["error"] == "").any():
        return []
    x, others = plan.axes[0], plan.axes[1:]
    files = []
    stems = plot_stems(plan.metrics)
    for n, m in enumerate(plan.metrics):
        s = summarize(table, plan, m)
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        groups = s.groupby(others, sort=False) if others else [((), s)]
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            label = ", ".join(f"{k}={v}" for k, v in zip(others, key)) or m
            g = g.sort_values(x) if _numeric(g[x]) else g
            xs = g[x] if _numeric(g[x]) else g[x].astype(str)
            ax.plot(xs, g["mean"], "o-", ms=4, label=label)
            if g["ci95_low"].notna().any():
                ax.fill_between(xs, g["ci95_low"], g["ci95_high"], alpha=0.2)
        ax.set_xlabel(x)
        ax.set_ylabel(m)
        if m in plan.ranges:
            ax.set_ylim(*plan.ranges[m])
        elif not (s[["mean", "ci95_low"]].min(skipna=True) < 0).any():
            # From zero: a 0.01% change must not look like a cliff.
            ax.set_ylim(bottom=0)
        reps = f", mean and 95% CI over {plan.repetitions} seeds" if plan.repetitions > 1 else ""
        ax.set_title(f"{plan.name}: {m}{reps}", fontsize=9)
        if others:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        stem = stems[n]
        for suffix in ("png", "svg"):
            with atomic(out / f"{stem}.{suffix}") as tmp:
                fig.savefig(tmp, format=suffix, dpi=120, bbox_inches="tight")
            files.append(f"{stem}.{suffix}")
        plt.close(fig)
    return files


def plot_stems(metrics: list[str]) -> list[str]:
    """Each metric's plot file name, without suffix: the metric in characters any file system
    takes (`ports[s0->h0].mean_packets` → `ports_s0-to-h0.mean_packets`), numbered where two
    would coincide."""
    stems: list[str] = []
    for m in metrics:
        stem = re.sub(r"[^A-Za-z0-9.-]+", "_", m.replace("->", "-to-")).strip("_").replace("_.", ".")
        stems.append(stem if stem not in stems else f"{stem}-{len(stems)}")
    return stems


def _numeric(series: pd.Series) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(series)
