"""`dcsim reproduce`: run paper experiments into a results directory, then write its report.

Layout of the directory ``OUT``:

- ``OUT/ID/``: one experiment's ``summary.json``, data files and plots. An experiment runs
  into ``OUT/.ID.partial/`` and only a finished one replaces ``OUT/ID/`` (one rename), so an
  interrupted or failed run leaves the previous results whole and no half-written file.
- ``OUT/.cache/``: one entry per simulation (:mod:`dcsim.executor`); a rerun only simulates
  scenarios whose content or engine changed.
- ``OUT/index.html``: the report (:mod:`dcsim.report`).

An experiment whose summary was written by the same engine build, at the same scale, by the
same experiment code (its cache key) is not run again unless ``force``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from . import executor, report
from .experiments import paper_of, reproduces
from .files import plain, write_json

CACHE_DIR = ".cache"


@dataclass
class Outcome:
    exp_id: str
    status: str  # "ran", "cached" (results kept), "failed"
    held: int = 0
    claims: int = 0
    wall_seconds: float = 0.0
    simulated: int = 0
    from_cache: int = 0
    error: str | None = None


def run(
    registry: dict[str, ModuleType],
    selected: list[str],
    scale: str,
    out: Path,
    jobs: int,
    force: bool = False,
    quiet: bool = False,
    scheduler: str | None = None,
) -> tuple[list[Outcome], Path]:
    """Run ``selected`` experiments of ``registry`` into ``out``; then write the report.
    Returns the outcomes and the report's path. Ctrl-C stops after cleaning up the
    experiment in progress; the report then covers every finished one."""
    console = Console(stderr=True, quiet=quiet)  # progress bars and interruptions
    said = executor.report_console(quiet)  # each experiment's outcome and the closing table
    live = console.is_terminal and not quiet
    outcomes: list[Outcome] = []
    failures: dict[str, str] = {}
    progress = Progress(
        *executor.progress_columns(),
        console=console,
        disable=not live,
        transient=True,
        # On one terminal, lines for stdout print above the bars; into a file they go as they are.
        redirect_stdout=sys.stdout.isatty(),
    )
    try:
        with progress:
            overall = progress.add_task("experiments", total=len(selected))
            for n, exp_id in enumerate(selected, 1):
                module = registry[exp_id]
                prefix = f"[{n}/{len(selected)}] {exp_id}"
                sims = progress.add_task(f"{exp_id}: simulations", total=0)
                outcome = _one(module, exp_id, scale, out, jobs, force, scheduler, progress, sims, said, prefix)
                progress.remove_task(sims)
                progress.advance(overall)
                outcomes.append(outcome)
                if outcome.status == "failed":
                    failures[exp_id] = outcome.error or "failed"
    except KeyboardInterrupt:
        if any(p.parent.name[:1] != "." for p in out.glob("*/summary.json")):
            _say(console, "interrupted: finished experiments are kept; writing the report")
            report.write_index(out, registry, failures)
        else:
            _say(console, "interrupted before any experiment finished: no report written")
        raise
    index = report.write_index(out, registry, failures)
    if outcomes:
        said.print(_table(outcomes))
    return outcomes, index


def _one(
    module: ModuleType,
    exp_id: str,
    scale: str,
    out: Path,
    jobs: int,
    force: bool,
    scheduler: str | None,
    progress: Progress,
    sims: Any,
    console: Console,
    prefix: str,
) -> Outcome:
    final = out / exp_id
    key = _experiment_key(module, scale)
    previous = _read_summary(final)
    if not force and key is not None and previous is not None and previous.get("cache_key") == key and _intact(final, previous):
        held = sum(c.get("holds") is True for c in previous.get("claims", []))
        _say(console, f"{prefix}: unchanged since its last run, kept ({held} of {len(previous['claims'])} claims hold)")
        return Outcome(exp_id, "cached", held, len(previous["claims"]), float(previous.get("wall_seconds", 0.0)))

    _say(console, f"{prefix}: {module.TITLE} ({scale}) ...")
    staging = out / f".{exp_id}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    ctx = executor.RunContext(
        cache_dir=out / CACHE_DIR,
        force=force,
        scheduler=scheduler,
        on_planned=lambda n: progress.update(sims, total=_total(progress, sims) + n),
        on_done=lambda: progress.advance(sims),
    )
    start = time.perf_counter()
    try:
        with executor.using(ctx):
            outcome = module.run(scale, staging, jobs)
        paper, citation = paper_of(exp_id)
        summary = plain(
            {
                "id": exp_id,
                "title": module.TITLE,
                "scale": scale,
                "wall_seconds": round(time.perf_counter() - start, 3),
                "claims": outcome["claims"],
                "metrics": outcome["metrics"],
                # Tables the source publishes, with its numbers beside ours (the report shows them).
                "tables": outcome.get("tables", []),
                "paper": paper,
                "citation": citation,
                "reproduces": reproduces(module.TITLE),
                "engine": executor.engine_fingerprint(),
                "seeds": sorted(ctx.seeds),
                # The hosts' TCP stack profiles its scenarios ran (docs/stacks.md).
                "stacks": sorted(ctx.stacks),
                "simulations": {"run": ctx.simulated, "from_cache": ctx.from_cache},
                "cache_key": key,
                # What the experiment wrote, with sizes: a kept result must still have it all.
                "outputs": _outputs(staging),
            }
        )
        write_json(staging / "summary.json", summary)
    except (KeyboardInterrupt, executor.SchedulerError):
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except Exception as e:  # an experiment's bug: report it and go on with the others
        shutil.rmtree(staging, ignore_errors=True)
        traceback.print_exc()
        error = f"{type(e).__name__}: {e}"
        # Older results must not be reported as this run's.
        shutil.rmtree(final, ignore_errors=True)
        _say(console, f"{prefix}: FAILED ({error})")
        return Outcome(exp_id, "failed", error=error, simulated=ctx.simulated, from_cache=ctx.from_cache)
    _replace_dir(staging, final)
    held = sum(claim["holds"] is True for claim in summary["claims"])
    _say(
        console,
        f"{prefix}: done in {summary['wall_seconds']:.1f} s, {held} of {len(summary['claims'])} claims hold"
    )
    return Outcome(
        exp_id,
        "ran",
        held,
        len(summary["claims"]),
        summary["wall_seconds"],
        ctx.simulated,
        ctx.from_cache,
    )


def _outputs(exp_dir: Path) -> dict[str, int]:
    return {
        p.relative_to(exp_dir).as_posix(): p.stat().st_size
        for p in sorted(exp_dir.rglob("*"))
        if p.is_file() and p.name != "summary.json"
    }


def _intact(exp_dir: Path, summary: dict[str, Any]) -> bool:
    """Every file the summary lists is there, with its size."""
    outputs = summary.get("outputs")
    if not isinstance(outputs, dict):
        return False
    for name, size in outputs.items():
        path = exp_dir / name
        if not path.is_file() or path.stat().st_size != size:
            return False
    return True


def _total(progress: Progress, task_id: Any) -> float:
    return next(t.total or 0 for t in progress.tasks if t.id == task_id)


def _replace_dir(staging: Path, final: Path) -> None:
    """Put ``staging`` in ``final``'s place: the old results go only once the new are whole."""
    old = final.with_name(f".{final.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def _read_summary(exp_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((exp_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _experiment_key(module: ModuleType, scale: str) -> str | None:
    """Engine build, scale and the experiment code (its module and the package's shared
    helpers); None for a module without a source file (always run)."""
    source = getattr(module, "__file__", None)
    if not source:
        return None
    h = hashlib.sha256(f"{executor.engine_fingerprint()}\n{scale}\n".encode())
    h.update(Path(source).read_bytes())
    h.update(_package_digest().encode())
    return h.hexdigest()


@cache
def _package_digest() -> str:
    """Digest of every module of the experiments package and of the package's run path."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted([*(here / "experiments").glob("*.py"), here / "executor.py", here / "run.py"]):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _table(outcomes: list[Outcome]) -> Table:
    table = Table(title="dcsim reproduce", title_justify="left")
    for name, justify in (
        ("experiment", "left"),
        ("claims holding", "right"),
        ("wall s", "right"),
        ("simulations run / cached", "right"),
        ("note", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for o in sorted(outcomes, key=lambda o: (o.status != "failed", o.held == o.claims)):
        note = {"failed": f"[red]failed: {escape(o.error or '')}[/red]", "cached": "unchanged, kept"}.get(o.status, "")
        claims = "" if o.status == "failed" else f"{o.held} / {o.claims}"
        style = "red" if o.status == "failed" or o.held < o.claims else ""
        table.add_row(
            o.exp_id,
            f"[{style}]{claims}[/{style}]" if style and claims else claims,
            f"{o.wall_seconds:.1f}",
            f"{o.simulated} / {o.from_cache}",
            note,
        )
    return table


def _say(console: Console, text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


__all__ = ["Outcome", "run"]
