"""The `dcsim` command: list, reproduce, run, schema.

Every user error (bad scenario, bad flag, unknown experiment, unwritable output) ends as
one `error: ...` line on stderr and exit status 2, and is found before anything is written.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from . import __version__, _blas, _core, executor  # noqa: F401 (_blas must come before executor and .run, which load NumPy)
from .run import run_loaded
from .scenario import OverrideError, ScenarioError, apply_overrides, read_scenario
from .scenario import validate as validate_scenario

if TYPE_CHECKING:  # pandas is imported where a table is printed: `dcsim list` and `--help` stay light
    import pandas as pd

USER_ERROR = 2


class _Cli(click.Group):
    """A click group that reports user errors in one line instead of a usage block."""

    def main(self, args=None, prog_name=None, **extra):
        extra["standalone_mode"] = False
        try:
            status = super().main(args, prog_name or "dcsim", **extra)
        except ScenarioError as e:
            if len(e.parts) > 1:
                _fail_each(e.source, [str(p).removeprefix(f"{e.source}: ") for p in e.parts])
            _fail(str(e))
        except click.UsageError as e:
            hint = f" (see '{e.ctx.command_path} --help')" if e.ctx else ""
            _fail(e.format_message() + hint)
        except click.ClickException as e:
            _fail(e.format_message())
        except click.Abort:
            _fail("interrupted", status=130)
        except BaseException as e:
            # The engine panicked: an invariant the checking mode found broken, or any other
            # engine bug. Not the user's mistake, so exit 1, with what the engine said.
            if type(e).__name__ != "PanicException":
                raise
            _fail(f"engine bug: {e} (please report it with the scenario)", status=1)
        sys.exit(status if isinstance(status, int) else 0)


class _RangeInSymbols:
    """A number range whose messages say "x≥1" and "0.001≤x≤1000000.0", as every other
    message of dcsim does, not click's "x>=1"."""

    def _describe_range(self) -> str:
        return super()._describe_range().replace(">=", "≥").replace("<=", "≤")  # type: ignore[misc]


class IntRange(_RangeInSymbols, click.IntRange):
    pass


class FloatRange(_RangeInSymbols, click.FloatRange):
    pass


def _fail(message: str, status: int = USER_ERROR) -> NoReturn:
    click.echo(f"error: {' '.join(message.split())}", err=True)
    sys.exit(status)


def _fail_each(source: str, problems: list[str]) -> NoReturn:
    """Several problems of one file (a scenario, a sweep plan): one line each, under one
    `error:` line."""
    click.echo(f"error: {source}: {len(problems)} problems:", err=True)
    for problem in problems:
        click.echo(f"  {' '.join(problem.split())}", err=True)
    sys.exit(USER_ERROR)


@click.group(
    cls=_Cli,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="dcsim")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dcsim: packet-level simulator of datacenter transport (TCP, DCTCP)."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _executor_options(command):
    """--jobs, --scheduler, --force and --quiet, shared by the commands that run many
    simulations (`reproduce`, `sweep`)."""
    options = (
        click.option(
            "--jobs",
            type=IntRange(min=1),
            default=None,
            show_default="cores this process may use",
            help="Simulations to run at once, in local processes.",
        ),
        click.option(
            "--scheduler",
            default=None,
            metavar="ADDRESS",
            help="Run on this Dask distributed scheduler (e.g. tcp://10.0.0.1:8786) instead.",
        ),
        click.option("--force", is_flag=True, help="Rerun everything, ignoring results cached by earlier invocations."),
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            help="No progress or summary: only errors and where results went.",
        ),
    )
    for option in reversed(options):
        command = option(command)
    return command


def _check_executor(jobs: int | None, scheduler: str | None) -> None:
    """Refuse --jobs with --scheduler, and a scheduler that cannot be reached, before anything
    is written."""
    if jobs is not None and scheduler:
        raise click.UsageError("--jobs and --scheduler exclude each other")
    try:
        executor.check_scheduler(scheduler)
    except executor.SchedulerError as e:
        raise click.ClickException(str(e)) from None


@main.command("list", short_help="Print every experiment id (or, with --testbeds, every testbed) with a one-line description.")
@click.option("--testbeds", "testbeds", is_flag=True, help="List the testbeds instead, each with what it is.")
def list_experiments(testbeds: bool) -> None:
    """Print every experiment id with a one-line description (or, with --testbeds, every
    testbed an experiment can run on)."""
    from . import experiments

    if testbeds:
        rows = {name: t.summary for name, t in experiments.TESTBEDS.items()}
    else:
        rows = {exp_id: e.description for exp_id, e in experiments.EXPERIMENTS.items()}
    width = max(map(len, rows), default=0)
    for name, text in rows.items():
        click.echo(f"{name.ljust(width)}  {text}")


def _testbed_names(testbed: str | None, testbeds: str | None) -> list[str | None]:
    """The testbeds to run on, from --testbed or --testbeds (None: each experiment's own);
    a usage error naming the valid ones for a name that is not a testbed."""
    from . import experiments

    if testbed is not None and testbeds is not None:
        raise click.UsageError("--testbed and --testbeds exclude each other")
    if testbed is None and testbeds is None:
        return [None]
    option = "--testbed" if testbed is not None else "--testbeds"
    names = [testbed] if testbed is not None else [n.strip() for n in (testbeds or "").split(",")]
    valid = [experiments.OWN, *experiments.TESTBEDS]
    unknown = [n for n in names if n not in valid]
    if unknown or not names:
        raise click.UsageError(f"{option}: unknown testbed {', '.join(map(repr, unknown)) or repr('')}; valid: {', '.join(valid)}")
    return [None if n == experiments.OWN else n for n in dict.fromkeys(names)]


@main.command(short_help="Run paper experiments (all when no ID is given) and write the report.")
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--scale",
    type=click.Choice(["quick", "full"]),
    default="quick",
    show_default=True,
    help="quick is sized for a laptop; full runs the larger setups.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("dcsim-results"),
    show_default=True,
    help="Directory for the results and index.html.",
)
@click.option(
    "--testbed",
    default=None,
    metavar="NAME",
    help="Run the experiments on this testbed instead of their papers' own (dcsim list --testbeds); results go to OUT/ID@NAME.",
)
@click.option(
    "--testbeds",
    default=None,
    metavar="A,B,...",
    help="Run each experiment on each of these testbeds ('own': its paper's); the report adds a claims-by-testbed matrix.",
)
@_executor_options
def reproduce(
    ids: tuple[str, ...],
    scale: str,
    out: Path,
    testbed: str | None,
    testbeds: str | None,
    jobs: int | None,
    scheduler: str | None,
    force: bool,
    quiet: bool,
) -> None:
    """Run paper experiments (all of them when no ID is given) and write the HTML report.

    Each runs on its paper's testbed unless --testbed or --testbeds says otherwise. Unchanged
    experiments are kept and cached simulations reused, unless --force."""
    from . import experiments
    from . import reproduce as reproducing

    registry = experiments.EXPERIMENTS
    unknown = [exp_id for exp_id in ids if exp_id not in registry]
    if unknown:
        raise click.UsageError(f"unknown experiment {', '.join(map(repr, unknown))}; valid ids: {', '.join(registry)}")
    selected = list(dict.fromkeys(ids)) or list(registry)
    on = _testbed_names(testbed, testbeds)
    _check_executor(jobs, scheduler)
    _make_dir(out)
    try:
        outcomes, index = reproducing.run(
            registry,
            selected,
            scale,
            out,
            jobs or executor.usable_cores(),
            force=force,
            quiet=quiet,
            scheduler=scheduler,
            testbeds=on,
        )
    except executor.SchedulerError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"report: {index}")
    if any(o.status == "failed" for o in outcomes):
        raise click.exceptions.Exit(1)


@main.command("sweep", short_help="Run a parameter sweep: one table of runs and a plot per metric.")
@click.argument("plan", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output directory [default: dcsim-sweeps/<plan name>].",
)
@_executor_options
def sweep_command(plan: Path, out: Path | None, jobs: int | None, scheduler: str | None, force: bool, quiet: bool) -> None:
    """Run a parameter sweep (PLAN.toml: base scenario, axes, repetitions, metrics) and
    write one table of runs (Parquet and CSV) and a plot per metric."""
    from .sweep import expand, load_plan, overview, preflight, sweep

    p = load_plan(plan)
    preflight(p, expand(p))
    out = out or Path("dcsim-sweeps") / p.name
    _check_executor(jobs, scheduler)
    try:
        _make_dir(out)
        table = sweep(p, out, jobs=jobs, scheduler=scheduler, force=force, quiet=quiet)
    except executor.SchedulerError as e:
        raise click.ClickException(str(e)) from None
    info = json.loads((out / "sweep.json").read_text())
    failed = table[table["error"] != ""]
    if not quiet:
        said = executor.report_console()
        said.print(overview(p, table))
        said.print(
            f"{info['runs']} runs ({info['simulated']} simulated, {info['from_cache']} cached), "
            f"{info['failed']} failed, in {info['wall_seconds']:.1f} s on {info['executor']}",
            markup=False,
        )
        for _, row in failed.head(5).iterrows():
            click.echo(f"  run {row['run']} failed: {row['error']}", err=True)
    plots = [f for f in info["files"] if f.endswith(".png")]
    click.echo(
        f"wrote {out}/results.parquet, results.csv, sweep.json"
        + (f" and {len(plots)} plots" if plots else " (no plot: the plan has no axis)")
    )
    if len(failed):
        raise click.exceptions.Exit(1)


@main.command("report", short_help="Rebuild DIR/index.html from the results in DIR, running nothing.")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="DIR")
@click.option("--serve", is_flag=True, help="Serve the report on localhost until Ctrl-C.")
@click.option("--port", type=IntRange(0, 65535), default=8000, show_default=True, help="Port for --serve.")
def report_command(directory: Path, serve: bool, port: int) -> None:
    """Rebuild DIR/index.html from the results in DIR, without rerunning anything."""
    from . import experiments, report

    if not any(p.parent.name[:1] != "." for p in directory.glob("*/summary.json")):
        raise click.ClickException(
            f"{directory}: no experiment results here (no ID/summary.json); `dcsim reproduce --out {directory}` writes them"
        )
    _check_writable(directory)
    httpd = None
    if serve:
        try:
            httpd = report.server(directory, port)
        except OSError as e:  # the port is taken, or not ours to bind
            raise click.ClickException(f"--port {port}: cannot serve there: {e.strerror or e}") from None
    index = report.write_index(directory, experiments.EXPERIMENTS, {})
    click.echo(f"report: {index}")
    if httpd is not None:
        report.serve(httpd, directory)


@main.command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output directory [default: dcsim-out/<scenario file name>].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress or overview: only errors and where results went.")
@click.option(
    "--trace",
    "trace_formats",
    type=click.Choice(["pcap", "csv"]),
    multiple=True,
    help="Write packet traces of the ports and flows named by --trace-ports/--trace-flows: "
    "pcap files (one per port, per flow and per measure.trace_queries workload) or trace.csv. May be given twice.",
)
@click.option(
    "--trace-ports",
    "trace_ports",
    multiple=True,
    metavar="NAMES",
    help="Comma-separated port names to trace, e.g. s0->h0 (every packet leaving the port). May be repeated.",
)
@click.option(
    "--trace-flows",
    "trace_flows",
    multiple=True,
    metavar="IDS",
    help="Comma-separated flow ids to trace, at their sender's host (both directions). May be repeated.",
)
@click.option(
    "--format",
    "table_format",
    type=click.Choice(["csv", "parquet"]),
    default="csv",
    show_default=True,
    help="Format of the tables: CSV, or Parquet (typed columns, smaller and faster to load for large runs).",
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override one scenario field, e.g. --set tcp.cc=newreno --set switch.aqm.k_packets=40 "
    "(a TOML value; a bare word is a string). Checked like the file; recorded in summary.json. May be repeated.",
)
@click.option(
    "--check-invariants",
    is_flag=True,
    help="Check the engine's invariants after every event (slower; sim.check_invariants).",
)
@click.option(
    "--threads",
    default=None,
    metavar="N|auto",
    help="Threads for one run (sim.threads): a fat-tree, leaf-spine or graph with partitions is cut and "
    "runs its partitions in parallel, with results identical on any number; other networks use one.",
)
@click.option(
    "--memory-limit-gb",
    type=FloatRange(min=0.001, max=1e6),
    default=None,
    metavar="GB",
    help="Refuse the run if its estimated memory is above this [default: the scenario's sim.memory_limit_gb, 8].",
)
def run_command(
    scenario: Path,
    out: Path | None,
    quiet: bool,
    trace_formats: tuple[str, ...],
    trace_ports: tuple[str, ...],
    trace_flows: tuple[str, ...],
    memory_limit_gb: float | None,
    check_invariants: bool,
    overrides: tuple[str, ...],
    table_format: str,
    threads: str | None,
) -> None:
    """Run one scenario file and write its summary and tables."""
    ports_given, flows_given = ",".join(trace_ports), ",".join(trace_flows)
    ports = [name.strip() for name in ports_given.split(",") if name.strip()]
    if ports_given and not ports:
        raise click.BadParameter(f"no port names in {ports_given!r}", param_hint="--trace-ports")
    try:
        flows = [int(f) for f in flows_given.split(",") if f.strip()]
    except ValueError:
        flows = []
    if flows_given and (not flows or any(f < 0 for f in flows)):
        raise click.BadParameter(f"expected comma-separated flow ids, got {flows_given!r}", param_hint="--trace-flows")
    spec, overridden = _scenario_with_overrides(scenario, overrides)
    if memory_limit_gb is not None:
        spec.setdefault("sim", {})["memory_limit_gb"] = memory_limit_gb
    if check_invariants:
        spec.setdefault("sim", {})["check_invariants"] = True
    if threads is not None:
        spec.setdefault("sim", {})["threads"] = _thread_count(threads)
    measure = spec.get("measure", {})
    traced = ports or flows or any(measure.get(f"trace_{kind}") for kind in ("ports", "flows", "queries"))
    if traced and not trace_formats:
        trace_formats = ("pcap",)  # the default, whether the scenario or the flags ask for traces
    if trace_formats and not traced:
        raise click.UsageError("--trace needs --trace-ports or --trace-flows (or measure.trace_* in the scenario)")
    if ports or flows:
        # Entries from the file; those after them are the command line's.
        already = {kind: len(measure.get(f"trace_{kind}", [])) for kind in ("ports", "flows")}
        measure = spec.setdefault("measure", {})
        measure["trace_ports"] = [*measure.get("trace_ports", []), *ports]
        measure["trace_flows"] = [*measure.get("trace_flows", []), *flows]
        try:
            validate_scenario(spec, str(scenario))
        except ScenarioError as e:
            # A name given on the command line is the command line's mistake, not the file's.
            for kind in ("ports", "flows"):
                m = re.fullmatch(rf"measure\.trace_{kind}\[(\d+)\]", e.field)
                if m and int(m.group(1)) >= already[kind]:
                    raise click.BadParameter(e.reason, param_hint=f"--trace-{kind}") from None
            raise
    out = out or Path("dcsim-out") / scenario.stem
    created = not out.exists()
    _make_dir(out)
    # Everything is written into a staging directory inside `out` and moved into place at the
    # end: Ctrl-C at any point leaves the previous results as they were, never a mix.
    stage = out / f".partial-{os.getpid()}"
    try:
        results = _run_with_progress(spec, str(scenario), quiet)
        stage.mkdir()
        summary, written = _write_run(stage, results, spec, trace_formats, overridden, table_format)
        _replace_results(out, stage)
    except BaseException:  # Ctrl-C, or a scenario the engine refused: nothing is left behind
        shutil.rmtree(stage, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()  # only if empty: never results that reached it, nor another run's
        raise
    if not quiet:
        from . import overview

        click.echo("\n".join(overview.lines(summary)))
    click.echo(f"wrote {out}/summary.json and {', '.join(written)}")


def _thread_count(text: str) -> int | str:
    """`--threads`: a count in [1, 1024] or "auto"."""
    if text == "auto":
        return text
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 1024:
        raise click.BadParameter(f"expected a count in [1, 1024] or 'auto', got {text!r}", param_hint="--threads")
    return n


def _scenario_with_overrides(path: Path, overrides: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario of file `path` with the `--set` overrides applied, checked (a problem of
    the file is the file's; one the file alone does not have is the command line's), and the
    overrides applied, as JSON values."""
    spec = read_scenario(path)
    if not overrides:
        validate_scenario(spec, str(path))
        return spec, {}
    original = copy.deepcopy(spec)
    try:
        overridden = apply_overrides(spec, overrides)
    except OverrideError as e:
        raise click.BadParameter(str(e), param_hint="--set") from None
    try:
        validate_scenario(spec, str(path))
    except ScenarioError as e:
        try:
            validate_scenario(original, str(path))
            of_the_file: set[tuple[str, str]] = set()
        except ScenarioError as f:
            of_the_file = {(p.field, p.reason) for p in f.parts}
        mine = [p for p in e.parts if (p.field, p.reason) not in of_the_file]
        if mine:
            raise click.BadParameter(
                "; ".join(f"{p.field}: {p.reason}" if p.field else p.reason for p in mine), param_hint="--set"
            ) from None
        raise
    return spec, overridden


def _write_run(
    out: Path, results: Any, spec: dict[str, Any], trace_formats: tuple[str, ...], overrides: dict[str, Any], table_format: str
) -> tuple[dict[str, Any], list[str]]:
    """A run's summary.json, tables (`table_format`: csv or parquet) and traces in `out`; the
    summary and the files' names. The summary records the command line's `--set` overrides
    (`overrides`)."""
    from .files import write_columns_csv, write_columns_parquet, write_csv, write_json
    from .results import COLUMN_TABLES

    write_table = write_columns_parquet if table_format == "parquet" else write_columns_csv

    # Every value the run used, defaults included, so that it can be reproduced from its output.
    summary = results.summary() | {"overrides": overrides, "parameters": results.parameters}
    # Written from the run's columns: a run needs no pandas unless it traces packets.
    for name in COLUMN_TABLES:
        write_table(out / f"{name}.{table_format}", results.columns(name))
    written = [f"{n}.{table_format}" for n in COLUMN_TABLES]
    if "csv" in trace_formats:
        write_csv(out / "trace.csv", results.trace)
        written.append("trace.csv")
    if "pcap" in trace_formats:
        written += _write_pcaps(out, results.trace, spec, results.ports["name"].tolist(), results.flows)
    write_json(out / "summary.json", summary)
    return summary, written


def _replace_results(out: Path, stage: Path) -> None:
    """Move a finished run's files from `stage` into `out`, in place of an earlier run's
    (whose traces must not pass for this one's), with Ctrl-C held off for those few renames."""
    from .results import COLUMN_TABLES

    # Tables in the other format too: a run written as CSV after one written as Parquet must
    # not leave the older run's tables beside its own.
    tables = [out / f"{name}.{ext}" for name in COLUMN_TABLES for ext in ("csv", "parquet")]
    stale = [*out.glob("port-*.pcap"), *out.glob("flow-*.pcap"), out / "trace.csv", *tables]
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for path in stale:
            path.unlink(missing_ok=True)
        for path in stage.iterdir():
            os.replace(path, out / path.name)
        stage.rmdir()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _matching_ports(pattern: str, names: list[str]) -> list[str]:
    """The port names a `measure.trace_ports` entry stands for (`*` matches any run of
    characters, as in the engine)."""
    if "*" not in pattern:
        return [pattern]
    regex = re.compile(".*".join(re.escape(part) for part in pattern.split("*")))
    return [name for name in names if regex.fullmatch(name)]


def _write_pcaps(out: Path, trace: pd.DataFrame, spec: dict[str, Any], port_names: list[str], flows: pd.DataFrame) -> list[str]:
    """One pcap file per traced port, per traced flow and per traced query workload; their
    names."""
    from . import pcap

    tcp = spec.get("tcp", {})
    mtu = tcp.get("mtu_bytes")
    mss = int(mtu) - int(tcp.get("header_bytes", 40)) if mtu else int(tcp.get("mss", 1460))
    sack = bool(tcp.get("sack", True))
    measure = spec.get("measure", {})
    files = []
    names = [name for pattern in measure.get("trace_ports", []) for name in _matching_ports(pattern, port_names)]
    for name in dict.fromkeys(names):
        path = out / f"port-{name.replace('->', '-to-')}.pcap"
        view = trace[(trace.view == "port") & (trace.port_name == name)] if len(trace) else trace
        pcap.write(path, view, mss=mss, sack=sack)
        files.append(path.name)
    for flow in dict.fromkeys(measure.get("trace_flows", [])):
        path = out / f"flow-{flow}.pcap"
        view = trace[(trace.view == "flow") & (trace.flow == flow)] if len(trace) else trace
        pcap.write(path, view, mss=mss, sack=sack)
        files.append(path.name)
    # A traced query workload's connections, each seen at its server, in one file.
    for w in dict.fromkeys(measure.get("trace_queries", [])):
        path = out / f"queries-{w}.pcap"
        conns = flows.loc[flows["workload"] == w, "id"]
        view = trace[(trace.view == "flow") & trace.flow.isin(conns)] if len(trace) else trace
        pcap.write(path, view, mss=mss, sack=sack)
        files.append(path.name)
    return files


def _run_with_progress(spec: dict[str, Any], source: str, quiet: bool):
    """Run the scenario of file ``source`` with a progress bar (simulated time done, time
    left) on a terminal."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        return run_loaded(spec, source, progress=_ignore)  # still checks for Ctrl-C
    with Progress(*executor.progress_columns(percent=True), console=console, transient=True) as progress:
        task = progress.add_task(f"{Path(source).name}: simulated time", total=1.0)
        return run_loaded(spec, source, progress=lambda done: progress.update(task, completed=done))


@main.command("compare", short_help="Put runs side by side: one table of headline metrics and the comparison plots.")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("dcsim-compare"),
    show_default=True,
    help="Directory for the plots (fct_slowdown, queue_cdf, goodput; PNG and SVG) and compare.json.",
)
def compare_command(runs: tuple[Path, ...], out: Path) -> None:
    """Compare runs that `dcsim run` wrote (their output directories): print one table of
    headline metrics, a column per run, and write the standard comparison plots: completion-time
    slowdown by flow size (mean and p99), the queue's distribution at the busiest switch ports
    the runs share, and each flow's goodput."""
    from . import compare
    from .files import write_json

    try:
        summaries = [compare.load(d) for d in runs]
    except compare.CompareError as e:
        raise click.ClickException(str(e)) from None
    names = compare.labels(list(runs))
    _make_dir(out)
    rows = compare.table(names, summaries)
    files, left_out = compare.plots(names, summaries, list(runs), out)
    write_json(out / "compare.json", {"runs": [str(d) for d in runs], "names": names, "headline": [compare.headline(s) for s in summaries]})
    click.echo(compare.render(rows))
    for reason in left_out:
        click.echo(reason)
    click.echo(f"wrote {out}/compare.json and {', '.join(files)}")


@main.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    click.echo(_core.scenario_schema())


def _ignore(_: float) -> None:
    pass


def _make_dir(path: Path) -> None:
    """Creates the output directory `path` if needed, and checks that files can be written in
    it, before anything runs."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"{path}: cannot create the directory: {e.strerror}") from None
    _check_writable(path)


def _check_writable(path: Path) -> None:
    """Fails with one line unless a file can be created in the directory `path`: a probe,
    not the permission bits, so that read-only mounts and ACLs are caught too."""
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise click.ClickException(f"{path}: cannot write in the directory: {e.strerror}") from None
