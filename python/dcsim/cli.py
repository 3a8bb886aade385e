"""The `dcsim` command: list, reproduce, run, schema.

Every user error (bad scenario, bad flag, unknown experiment, unwritable output) ends as
one `error: ...` line on stderr and exit status 2, and is found before anything is written.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, NoReturn

import click
import pandas as pd

from . import __version__, _core
from .run import run as run_scenario
from .scenario import ScenarioError, load_scenario

USER_ERROR = 2


class _Cli(click.Group):
    """A click group that reports user errors in one line instead of a usage block."""

    def main(self, args=None, prog_name=None, **extra):  # type: ignore[override]
        extra["standalone_mode"] = False
        try:
            status = super().main(args, prog_name or "dcsim", **extra)
        except ScenarioError as e:
            _fail(str(e))
        except click.UsageError as e:
            hint = f" (see '{e.ctx.command_path} --help')" if e.ctx else ""
            _fail(e.format_message() + hint)
        except click.ClickException as e:
            _fail(e.format_message())
        except click.Abort:
            _fail("interrupted", status=130)
        sys.exit(status if isinstance(status, int) else 0)


def _fail(message: str, status: int = USER_ERROR) -> NoReturn:
    click.echo(f"error: {' '.join(message.split())}", err=True)
    sys.exit(status)


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


@main.command("list")
def list_experiments() -> None:
    """Print every experiment id with a one-line description."""
    from . import experiments

    width = max(map(len, experiments.EXPERIMENTS), default=0)
    for exp_id, module in experiments.EXPERIMENTS.items():
        click.echo(f"{exp_id.ljust(width)}  {module.DESCRIPTION.strip().splitlines()[0]}")


@main.command()
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
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    show_default="number of cores",
    help="Simulations to run at once.",
)
def reproduce(ids: tuple[str, ...], scale: str, out: Path, jobs: int | None) -> None:
    """Run paper experiments (all of them when no ID is given) and write the HTML report."""
    from . import experiments, report

    registry = experiments.EXPERIMENTS
    unknown = [exp_id for exp_id in ids if exp_id not in registry]
    if unknown:
        raise click.UsageError(
            f"unknown experiment {', '.join(map(repr, unknown))}; valid ids: {', '.join(registry)}"
        )
    selected = list(dict.fromkeys(ids)) or list(registry)
    jobs = jobs or os.cpu_count() or 1
    _make_dir(out)

    failures: dict[str, str] = {}
    for n, exp_id in enumerate(selected, 1):
        module = registry[exp_id]
        exp_dir = out / exp_id
        _make_dir(exp_dir)
        # A failed run must not leave an older summary behind to be reported as this one.
        (exp_dir / "summary.json").unlink(missing_ok=True)
        prefix = f"[{n}/{len(selected)}] {exp_id}"
        click.echo(f"{prefix}: {module.TITLE} ({scale}) ...", err=True)
        start = time.perf_counter()
        try:
            outcome = module.run(scale, exp_dir, jobs)
            # Plain Python values, so that a numpy bool counts as the JSON `true` it becomes.
            summary = _plain(
                {
                    "id": exp_id,
                    "title": module.TITLE,
                    "scale": scale,
                    "wall_seconds": round(time.perf_counter() - start, 3),
                    "claims": outcome["claims"],
                    "metrics": outcome["metrics"],
                }
            )
        except Exception as e:  # an experiment's bug: report it and go on with the others
            traceback.print_exc()
            failures[exp_id] = f"{type(e).__name__}: {e}"
            click.echo(f"{prefix}: FAILED ({failures[exp_id]})", err=True)
            continue
        _write_json(exp_dir / "summary.json", summary)
        held = sum(claim["holds"] is True for claim in summary["claims"])
        click.echo(
            f"{prefix}: done in {summary['wall_seconds']:.1f} s, "
            f"{held} of {len(summary['claims'])} claims hold",
            err=True,
        )

    index = report.write_index(out, registry, failures)
    click.echo(f"report: {index}")
    if failures:
        raise click.exceptions.Exit(1)


@main.command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output directory [default: dcsim-out/<scenario name>].",
)
def run_command(scenario: Path, out: Path | None) -> None:
    """Run one scenario file and write its summary and tables."""
    spec = load_scenario(scenario)
    out = out or Path("dcsim-out") / scenario.stem
    _make_dir(out)
    results = run_scenario(spec)
    summary = results.summary()
    _write_json(out / "summary.json", summary)
    tables = {
        "flows": results.flows,
        "queries": results.queries,
        "ports": results.ports,
        "switches": results.switches,
        "queue_occupancy": results.queue_occupancy,
        "queue_samples": results.queue_samples,
        "pool_samples": results.pool_samples,
        "flow_samples": results.flow_samples,
        "ictcp_samples": results.ictcp_samples,
    }
    for name, table in tables.items():
        table.to_csv(out / f"{name}.csv", index=False)
    _print_overview(summary, results.flows)
    click.echo(f"wrote {out}/summary.json and {', '.join(f'{n}.csv' for n in tables)}")


@main.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    click.echo(_core.scenario_schema())


def _print_overview(summary: dict[str, Any], flows: pd.DataFrame) -> None:
    click.echo(
        f"{summary['name'] or 'scenario'}: {summary['duration_s']} s simulated, "
        f"{summary['events']:,} events in {summary['wall_seconds']:.2f} s; "
        f"drops {summary['drops']}, marks {summary['marks']}, timeouts {summary['timeouts']}"
    )
    if not flows.empty:
        flows = flows.assign(goodput_mbps=flows["goodput_bps"] / 1e6)
        columns = ["id", "src", "dst", "cc", "goodput_mbps", "retransmits", "timeouts"]
        click.echo(flows[columns].to_string(index=False, float_format="{:.1f}".format))
    switch_ports = [p for p in summary["ports"] if p["is_switch"]]
    if switch_ports:
        columns = [
            "name",
            "utilization",
            "mean_packets",
            "queue_p99_packets",
            "max_packets",
            "drops_buffer",
            "drops_aqm",
            "marks",
        ]
        ports = pd.DataFrame(switch_ports)[columns]
        click.echo(ports.to_string(index=False, float_format="{:.2f}".format))


def _make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.ClickException(f"{path}: cannot create the directory: {e.strerror}") from None


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(_plain(data), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _plain(value: Any) -> Any:
    """JSON-ready: numpy scalars to Python numbers, NaN and infinity to null (strict JSON)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
