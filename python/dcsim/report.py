"""The reproduction report: one self-contained HTML page over a `dcsim reproduce` directory.

The page is built from the `ID/summary.json` files on disk, so it always shows every
experiment whose results are in the directory, whichever run produced them. Plots are
linked relatively, so the directory can be copied or served as it is.
"""

from __future__ import annotations

import datetime
import json
from html import escape
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

from . import __version__

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.4; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { color: #137333; font-weight: bold; }
.fails { color: #b3261e; font-weight: bold; }
.undecided { color: #777; }
section { border-top: 2px solid #ddd; margin-top: 2rem; padding-top: 0.5rem; }
figure { display: inline-block; margin: 0 1rem 1rem 0; }
figure img { max-width: 32rem; border: 1px solid #eee; }
figcaption, .meta { color: #555; font-size: 0.9rem; }
pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; }
"""

_DATA_SUFFIXES = (".csv", ".parquet", ".svg", ".json")


def write_index(
    out_dir: Path, experiments: dict[str, ModuleType], failures: dict[str, str]
) -> Path:
    """Write `out_dir/index.html`, in the order of `experiments`; `failures` maps the id of
    each experiment that raised in this run to its error message."""
    entries = []
    for exp_id, module in experiments.items():
        summary_path = out_dir / exp_id / "summary.json"
        if exp_id in failures:
            entries.append((exp_id, module, None, failures[exp_id]))
        elif summary_path.is_file():
            entries.append((exp_id, module, json.loads(summary_path.read_text()), None))
    index = out_dir / "index.html"
    index.write_text(_page(out_dir, entries), encoding="utf-8")
    return index


def _page(out_dir: Path, entries: list[tuple[str, ModuleType, Any, str | None]]) -> str:
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        _failed_section(exp_id, module, error)
        if error is not None
        else _section(out_dir, exp_id, module, summary)
        for exp_id, module, summary, error in entries
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>dcsim reproduction report</title>",
            f"<style>{_STYLE}</style></head><body>",
            "<h1>dcsim reproduction report</h1>",
            f'<p class="meta">dcsim {escape(__version__)}, generated {generated}. '
            "Each claim is the paper's statement; <em>measured</em> is what this run "
            "got and <em>holds</em> is computed from that measurement.</p>",
            _overview(entries),
            *sections,
            "</body></html>",
        ]
    )


def _overview(entries: list[tuple[str, ModuleType, Any, str | None]]) -> str:
    rows = []
    held_total = claims_total = 0
    for exp_id, module, summary, error in entries:
        link = f'<a href="#{escape(exp_id)}">{escape(exp_id)}</a>'
        if error is not None:
            rows.append(
                f"<tr><td>{link}</td><td>{escape(module.TITLE)}</td><td></td>"
                '<td class="fails">failed to run</td><td></td></tr>'
            )
            continue
        claims = summary["claims"]
        held = sum(claim["holds"] is True for claim in claims)
        held_total += held
        claims_total += len(claims)
        rows.append(
            f"<tr><td>{link}</td><td>{escape(summary['title'])}</td>"
            f"<td>{escape(summary['scale'])}</td>"
            f'<td class="num">{held} / {len(claims)}</td>'
            f'<td class="num">{summary["wall_seconds"]:.1f}</td></tr>'
        )
    return (
        f"<p>{len(entries)} experiments; {held_total} of {claims_total} claims hold.</p>"
        "<table><tr><th>experiment</th><th>title</th><th>scale</th>"
        "<th>claims holding</th><th>wall seconds</th></tr>" + "".join(rows) + "</table>"
    )


def _section(out_dir: Path, exp_id: str, module: ModuleType, summary: dict[str, Any]) -> str:
    claim_rows = "".join(
        f"<tr><td>{escape(str(claim['claim']))}</td><td>{escape(str(claim['paper']))}</td>"
        f"<td>{escape(str(claim['measured']))}</td>{_holds_cell(claim['holds'])}</tr>"
        for claim in summary["claims"]
    )
    files = sorted(
        p.relative_to(out_dir).as_posix() for p in (out_dir / exp_id).rglob("*") if p.is_file()
    )
    figures = "".join(
        f'<figure><a href="{quote(name)}"><img src="{quote(name)}" alt="{escape(name)}"></a>'
        f"<figcaption>{escape(Path(name).name)}</figcaption></figure>"
        for name in files
        if name.endswith(".png")
    )
    data_links = ", ".join(
        f'<a href="{quote(name)}">{escape(Path(name).name)}</a>'
        for name in files
        if name.endswith(_DATA_SUFFIXES)
    )
    metrics = json.dumps(summary["metrics"], indent=2, sort_keys=True)
    return "\n".join(
        [
            f'<section id="{escape(exp_id)}">',
            f"<h2>{escape(summary['title'])} <small>({escape(exp_id)})</small></h2>",
            f"<p>{escape(module.DESCRIPTION)}</p>",
            f'<p class="meta">scale {escape(summary["scale"])}, '
            f"{summary['wall_seconds']:.1f} s wall clock</p>",
            "<table><tr><th>claim</th><th>paper</th><th>measured</th><th>holds</th></tr>"
            f"{claim_rows}</table>",
            f"<div>{figures}</div>",
            f"<p>Data and vector plots: {data_links or 'none'}</p>",
            f"<details><summary>metrics</summary><pre>{escape(metrics)}</pre></details>",
            "</section>",
        ]
    )


def _failed_section(exp_id: str, module: ModuleType, error: str) -> str:
    return (
        f'<section id="{escape(exp_id)}"><h2>{escape(module.TITLE)} '
        f"<small>({escape(exp_id)})</small></h2>"
        f'<p class="fails">Failed to run: {escape(error)}</p></section>'
    )


def _holds_cell(holds: Any) -> str:
    if holds is True:
        return '<td class="holds">✓</td>'
    if holds is False:
        return '<td class="fails">✗</td>'
    return '<td class="undecided">undecided</td>'
