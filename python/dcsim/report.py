"""The reproduction report: one self-contained HTML page over a `dcsim reproduce` directory.

The page is built from the `ID/summary.json` files on disk (`dcsim report DIR` rebuilds it
without running anything), so it shows every experiment whose results are in the directory,
whichever run produced them. It needs no server and no network: styles are inline, plots
and data files are linked relatively, so the directory can be opened, copied or served as
it is (`dcsim report DIR --serve`).

At the top: how many of the papers' claims and of our own checks hold per paper, the failing
claims, and the engine, scales, seeds and run time behind them; where experiments also ran
on other testbeds (``ID@TESTBED``), a matrix of their claims by testbed. Then one section
per experiment on its own testbed, experiments with failures first: what it reproduces, its
claims (the paper's words and value beside ours, each marked as the paper's claim or our
check), plots, parameters, setup notes and data files.
"""

from __future__ import annotations

import datetime
import functools
import http.server
import inspect
import json
import os
import struct
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import __version__
from .experiments import KINDS, Experiment, paper_of
from .files import atomic

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
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
figure img { max-width: 34rem; border: 1px solid #eee; }
figure.wide { display: block; }
figure.wide img { max-width: 100%; }
figcaption, .meta { color: #555; font-size: 0.9rem; }
pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; }
ul.failing li { margin-bottom: 0.3rem; }
"""

_DATA_SUFFIXES = (".csv", ".parquet", ".svg", ".json")

Entry = tuple[str, Experiment | None, dict[str, Any] | None, str | None]


def write_index(out_dir: Path, experiments: dict[str, Experiment], failures: dict[str, str]) -> Path:
    """Write `out_dir/index.html` over every experiment with results in `out_dir` (those of
    `experiments` in its order, then any other `ID/summary.json` found); `failures` maps the
    result directory (`ID` or `ID@TESTBED`) of each experiment that raised in this run to its
    error message. Results on other testbeds (`ID@TESTBED/`) feed the claims-by-testbed
    matrix."""
    found = sorted(p.parent.name for p in out_dir.glob("*/summary.json") if not p.parent.name.startswith("."))
    ids = list(experiments) + [d for d in found if "@" not in d and d not in experiments]
    entries = [e for e in (_entry(out_dir, d, experiments.get(d), failures) for d in ids) if e is not None]
    others = [d for d in [*found, *failures] if "@" in d]
    variants = [e for e in (_entry(out_dir, d, experiments.get(d.split("@")[0]), failures) for d in dict.fromkeys(others)) if e]
    index = out_dir / "index.html"
    with atomic(index) as tmp:
        tmp.write_text(_page(out_dir, entries, variants), encoding="utf-8")
    return index


def _entry(out_dir: Path, dir_name: str, experiment: Experiment | None, failures: dict[str, str]) -> Entry | None:
    """One result directory's entry: its summary, or the error that left it without one;
    None for a directory with neither."""
    if dir_name in failures:
        return (dir_name, experiment, None, failures[dir_name])
    try:
        summary = _check_summary(json.loads((out_dir / dir_name / "summary.json").read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return (dir_name, experiment, None, f"unreadable summary.json: {e}")
    return (dir_name, experiment, summary, None)


def _check_summary(summary: Any) -> dict[str, Any]:
    """``summary`` if it has the shape of an experiment's summary.json; ValueError if not."""
    if not isinstance(summary, dict):
        raise ValueError(f"expected a JSON object, found {type(summary).__name__}")
    claims = summary.get("claims", [])
    if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
        raise ValueError("'claims' must be a list of objects")
    for key, kind, name in (
        ("metrics", dict, "an object"),
        ("simulations", dict, "an object"),
        ("seeds", list, "a list"),
        ("stacks", list, "a list"),
        ("wall_seconds", (int, float), "a number"),
    ):
        if summary.get(key) is not None and not isinstance(summary[key], kind):
            raise ValueError(f"{key!r} must be {name}")
    return summary


def server(directory: Path, port: int) -> http.server.ThreadingHTTPServer:
    """An HTTP server of `directory` bound to 127.0.0.1:`port` (0: any free port); OSError if
    the port cannot be had. Bound before the report is written, so a taken port changes
    nothing."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=os.fspath(directory))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(httpd: http.server.ThreadingHTTPServer, directory: Path) -> None:
    """Serve until interrupted."""
    with httpd:
        host, bound = httpd.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        print(f"serving {directory} at http://{host}:{bound}/ (Ctrl-C to stop)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


# --- page -------------------------------------------------------------------------------


def _page(out_dir: Path, entries: list[Entry], variants: list[Entry]) -> str:
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    ordered = sorted(entries, key=_failures_first)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>dcsim reproduction report</title>",
            f"<style>{_STYLE}</style></head><body>",
            "<h1>dcsim reproduction report</h1>",
            _provenance([*entries, *variants], generated),
            _per_paper(entries) if entries else "<p>No experiment here ran on its own testbed: see the claims by testbed.</p>",
            _failing(entries),
            _matrix(entries, variants),
            _overview([*ordered, *variants]),
            *(
                _failed_section(exp_id, experiment, error) if error is not None else _section(out_dir, exp_id, experiment, summary or {})
                for exp_id, experiment, summary, error in [*ordered, *variants]
            ),
            "</body></html>",
        ]
    )


def _failures_first(entry: Entry) -> int:
    _, _, summary, error = entry
    if error is not None:
        return 0
    held, total = claims_held(summary)
    return 1 if held < total else 2


def claims_held(summary: dict[str, Any] | None, paper: bool | None = None) -> tuple[int, int]:
    """Claims holding and claims of a summary: of every kind (``paper`` None), the paper's
    (True) or our own checks of every other kind (False). A claim without a kind, from an
    older dcsim, is the paper's."""
    claims = [c for c in (summary or {}).get("claims") or [] if paper is None or (c.get("kind", "paper") == "paper") == paper]
    return sum(c.get("holds") is True for c in claims), len(claims)


def headline(summaries: list[dict[str, Any]]) -> str:
    """ "N of M paper claims hold; K of L checks hold" over ``summaries``."""
    held, total = (sum(x) for x in zip((0, 0), *(claims_held(s, True) for s in summaries)))
    checks_held, checks = (sum(x) for x in zip((0, 0), *(claims_held(s, False) for s in summaries)))
    return f"{held} of {total} paper claims hold; {checks_held} of {checks} checks hold"


def checks_by_kind(summaries: list[dict[str, Any]]) -> str:
    """The checks that hold by kind, e.g. "derived 29 of 31, calibration 3 of 3, check 14 of
    14"; empty without checks."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for s in summaries:
        for c in s.get("claims") or []:
            kind = c.get("kind", "paper")
            if kind != "paper":
                counts[kind][0] += c.get("holds") is True
                counts[kind][1] += 1
    return ", ".join(f"{kind} {counts[kind][0]} of {counts[kind][1]}" for kind in KINDS if kind in counts)


def _provenance(entries: list[Entry], generated: str) -> str:
    summaries = [s for _, _, s, _ in entries if s is not None]
    engines = sorted({s.get("engine") or "not recorded" for s in summaries})
    scales = sorted({s.get("scale", "?") for s in summaries})
    seeds = sorted({seed for s in summaries for seed in s.get("seeds") or []})
    wall = sum(float(s.get("wall_seconds") or 0.0) for s in summaries)
    sims = sum((s.get("simulations") or {}).get("run", 0) for s in summaries)
    cached = sum((s.get("simulations") or {}).get("from_cache", 0) for s in summaries)
    return (
        '<p class="meta">'
        f"Report by dcsim {escape(__version__)}, {generated}. "
        f"Engine: {escape(', '.join(engines) or 'none')}. "
        f"Scale: {escape(', '.join(scales) or 'none')}. "
        f"Seeds: {escape(', '.join(map(str, seeds)) or 'not recorded')}. "
        f"Run time: {wall:.1f} s over {len(summaries)} experiment runs "
        f"({sims} simulations run, {cached} from the cache).</p>"
        "<p>Each claim is the paper's statement or one of our checks (its <em>kind</em>); "
        "<em>paper</em> is the published value, <em>ours</em> what this run measured, and "
        "<em>holds</em> is computed from that measurement.</p>"
    )


def _per_paper(entries: list[Entry]) -> str:
    # paper claims held, paper claims, checks held, checks, experiments, failed to run
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    citations: dict[str, str] = {}
    for exp_id, _, summary, error in entries:
        paper = paper_of(exp_id)
        citations[paper.short] = paper.citation
        t = tally[paper.short]
        t[4] += 1
        if error is not None:
            t[5] += 1
            continue
        t[0:2] = [x + y for x, y in zip(t[0:2], claims_held(summary, True))]
        t[2:4] = [x + y for x, y in zip(t[2:4], claims_held(summary, False))]
    rows = []
    for name in sorted(tally, key=lambda n: (tally[n][0] == tally[n][1] and tally[n][2] == tally[n][3] and not tally[n][5], n)):
        held, total, checks_held, checks, exps, broken = tally[name]
        failing = total - held + checks - checks_held
        status = f'<td class="fails">{failing} fail</td>' if failing else '<td class="holds">all hold</td>'
        broken_note = f", {broken} failed to run" if broken else ""
        rows.append(
            f"<tr><td>{escape(name)}</td><td>{escape(citations[name])}</td>"
            f'<td class="num">{held} / {total}</td><td class="num">{checks_held} / {checks}</td>{status}'
            f'<td class="num">{exps}{broken_note}</td></tr>'
        )
    summaries = [s for _, _, s, _ in entries if s is not None]
    by_kind = checks_by_kind(summaries)
    return (
        f"<p><strong>{escape(headline(summaries))}</strong>{f' ({escape(by_kind)})' if by_kind else ''} "
        f"over {len(entries)} experiments. "
        "A <em>paper</em> claim is the paper's own statement; a <em>check</em> is ours: a property "
        "of the run the measurement depends on, a calibration to a published number, or a number "
        "derived from the paper's analysis or figures.</p>"
        "<table><tr><th>paper</th><th>source</th><th>paper claims holding</th><th>checks holding</th><th></th>"
        "<th>experiments</th></tr>" + "".join(rows) + "</table>"
    )


def _failing(entries: list[Entry]) -> str:
    items = []
    for exp_id, _, summary, error in sorted(entries, key=_failures_first):
        link = f'<a href="#{escape(exp_id)}">{escape(exp_id)}</a>'
        if error is not None:
            items.append(f"<li>{link}: failed to run ({escape(error)})</li>")
            continue
        for claim in (summary or {}).get("claims") or []:
            if claim.get("holds") is not True:
                kind = claim.get("kind", "paper")
                items.append(
                    f"<li>{link}: {escape(str(claim.get('claim')))} "
                    f'<span class="meta">({escape(kind)}; paper: {escape(str(claim.get("paper")))}; '
                    f"ours: {escape(str(claim.get('measured')))})</span></li>"
                )
    if not items:
        return '<p class="holds">Every claim holds.</p>'
    return '<h2>Claims that do not hold</h2><ul class="failing">' + "".join(items) + "</ul>"


def _matrix(entries: list[Entry], variants: list[Entry]) -> str:
    """Claims by testbed for every experiment that ran on another testbed than its own: one
    row per claim, one column per testbed (its own first when it ran), each cell the outcome
    with what we measured as its tooltip, or the run's error."""
    if not variants:
        return ""
    own = {exp_id: summary for exp_id, _, summary, _ in entries if summary is not None}
    # experiment -> testbed -> (the section of that run, its summary, its error)
    by_exp: dict[str, dict[str, tuple[str, dict[str, Any] | None, str | None]]] = defaultdict(dict)
    for dir_name, _, summary, error in variants:
        exp_id, testbed = dir_name.split("@", 1)
        if exp_id in own:
            by_exp[exp_id].setdefault(str(own[exp_id].get("testbed") or "own"), (exp_id, own[exp_id], None))
        by_exp[exp_id][testbed] = (dir_name, summary, error)
    parts = [
        "<h2>Claims by testbed</h2><p>Each experiment below also ran on other testbeds "
        "(<code>dcsim reproduce --testbeds</code>); where it ran on its paper's own, that column "
        "comes first. Hover over a cell for what we measured.</p>"
    ]
    for exp_id, runs in by_exp.items():
        claims: dict[str, dict[str, Any]] = {}
        for _, summary, _ in runs.values():
            for c in (summary or {}).get("claims") or []:
                claims.setdefault(str(c.get("id") or c.get("claim")), c)
        head = "".join(
            f'<th title="scale {escape(str((summary or {}).get("scale", "?")))}"><a href="#{escape(anchor)}">{escape(t)}</a></th>'
            for t, (anchor, summary, _) in runs.items()
        )
        body = []
        for cid, c in claims.items():
            cells = []
            for _, summary, error in runs.values():
                got = next((x for x in (summary or {}).get("claims") or [] if str(x.get("id") or x.get("claim")) == cid), None)
                if error is not None:
                    cells.append(f'<td class="fails" title="{escape(error)}">failed to run</td>')
                elif got is None:
                    cells.append('<td class="undecided">–</td>')
                else:
                    mark = _holds_cell(got.get("holds"))
                    cells.append(mark.replace("<td ", f'<td title="{escape(str(got.get("measured")))}" ', 1))
            body.append(f"<tr><td><code>{escape(cid)}</code></td><td>{escape(str(c.get('kind', 'paper')))}</td>{''.join(cells)}</tr>")
        if not claims:
            errors = "".join(f'<td class="fails">{escape(error or "no claims")}</td>' for _, _, error in runs.values())
            body.append(f"<tr><td>failed to run</td><td></td>{errors}</tr>")
        parts.append(f"<h3>{escape(exp_id)}</h3><table><tr><th>claim</th><th>kind</th>{head}</tr>{''.join(body)}</table>")
    return "\n".join(parts)


def _overview(entries: list[Entry]) -> str:
    rows = []
    for exp_id, experiment, summary, error in entries:
        link = f'<a href="#{escape(exp_id)}">{escape(exp_id)}</a>'
        title = _title(experiment, summary, exp_id)
        if error is not None:
            rows.append(f'<tr><td>{link}</td><td>{escape(title)}</td><td></td><td class="fails">failed to run</td><td></td><td></td></tr>')
            continue
        done = summary or {}  # an entry without an error has its summary
        cells = []
        for paper in (True, False):
            held, total = claims_held(done, paper)
            cls = "holds" if held == total else "fails"
            cells.append(f'<td class="num {cls}">{held} / {total}</td>')
        rows.append(
            f"<tr><td>{link}</td><td>{escape(title)}</td>"
            f"<td>{escape(str(done.get('scale', '')))}</td>{''.join(cells)}"
            f'<td class="num">{float(done.get("wall_seconds") or 0):.1f}</td></tr>'
        )
    return (
        "<h2>Experiments</h2>"
        "<table><tr><th>experiment</th><th>title</th><th>scale</th>"
        "<th>paper claims holding</th><th>checks holding</th><th>wall seconds</th></tr>" + "".join(rows) + "</table>"
    )


def _title(experiment: Experiment | None, summary: dict[str, Any] | None, exp_id: str) -> str:
    return str((summary or {}).get("title") or (experiment.full_title if experiment else exp_id))


def _wide(png: Path) -> str:
    """' class="wide"' for a plot of panels side by side (more than 1.6 times as wide as it is
    high, read from the PNG header), which gets the page's whole width rather than the 34rem
    that keeps single plots two to a row; else ''."""
    try:
        with png.open("rb") as f:
            header = f.read(24)
    except OSError:
        return ""
    if len(header) < 24 or header[:8] != b"\x89PNG\r\n\x1a\n":
        return ""
    width, height = struct.unpack(">II", header[16:24])
    return ' class="wide"' if height and width > 1.6 * height else ""


def _section(out_dir: Path, exp_id: str, experiment: Experiment | None, summary: dict[str, Any]) -> str:
    title = _title(experiment, summary, exp_id)
    claim_rows = "".join(_claim_row(claim) for claim in summary.get("claims") or [])
    files = sorted(p.relative_to(out_dir).as_posix() for p in (out_dir / exp_id).rglob("*") if p.is_file())
    figures = "".join(
        f'<figure{_wide(out_dir / name)}><a href="{quote(name)}"><img src="{quote(name)}" alt="{escape(name)}"></a>'
        f"<figcaption>{escape(Path(name).name)}</figcaption></figure>"
        for name in files
        if name.endswith(".png")
    )
    data_links = ", ".join(f'<a href="{quote(name)}">{escape(Path(name).name)}</a>' for name in files if name.endswith(_DATA_SUFFIXES))
    citation = paper_of(exp_id).citation
    figure = summary.get("reproduces") or title.split(":", 1)[0]
    seeds = ", ".join(map(str, summary.get("seeds") or [])) or "not recorded"
    stacks = ", ".join(map(str, summary.get("stacks") or [])) or "not recorded"
    sims = summary.get("simulations") or {}
    description = experiment.description if experiment else ""
    metrics = json.dumps(summary.get("metrics", {}), indent=2, sort_keys=True)
    return "\n".join(
        [
            f'<section id="{escape(exp_id)}">',
            f"<h2>{escape(title)} <small>({escape(exp_id)})</small></h2>",
            f"<p>Reproduces <strong>{escape(figure)}</strong> of {escape(citation)}."
            + (f" {escape(description)}" if description else "")
            + "</p>",
            f'<p class="meta">testbed {escape(str(summary.get("testbed") or "not recorded"))} '
            f"(<code>dcsim list --testbeds</code>); hosts' TCP stack (docs/stacks.md): {escape(stacks)}; "
            f"scale {escape(str(summary.get('scale', '')))}; "
            f"{float(summary.get('wall_seconds') or 0):.1f} s wall clock; seeds {escape(seeds)}; "
            f"{sims.get('run', '?')} simulations run, {sims.get('from_cache', 0)} from the cache; "
            f"engine {escape(str(summary.get('engine') or 'not recorded'))}</p>",
            f"<table><tr><th>claim</th><th>kind</th><th>paper</th><th>ours</th><th>holds</th></tr>{claim_rows}</table>",
            _published_tables(summary.get("tables") or []),
            f"<div>{figures}</div>",
            _parameters(experiment, str(summary.get("scale", ""))),
            f"<p>Data and vector plots: {data_links or 'none'}</p>",
            f"<details><summary>measured values (metrics)</summary><pre>{escape(metrics)}</pre></details>",
            "</section>",
        ]
    )


def _claim_row(claim: dict[str, Any]) -> str:
    """A claim: what is checked (with its id), whose claim it is, the paper's value (with its
    words and section), ours, and whether it holds."""
    cid = f'<br><code class="meta">{escape(str(claim["id"]))}</code>' if claim.get("id") else ""
    kind = str(claim.get("kind", "paper"))
    words = ""
    if claim.get("quote"):
        words = f'<br><span class="meta">"{escape(str(claim["quote"]))}" ({escape(str(claim.get("section", "")))})</span>'
    return (
        f"<tr><td>{escape(str(claim.get('claim')))}{cid}</td>"
        f'<td title="{escape(KINDS.get(kind, kind))}">{escape(kind)}</td>'
        f"<td>{escape(str(claim.get('paper')))}{words}</td>"
        f"<td>{escape(str(claim.get('measured')))}</td>{_holds_cell(claim.get('holds'))}</tr>"
    )


def _published_tables(tables: list[dict]) -> str:
    """The tables an experiment reproduces (``{"title", "columns", "rows"}``), as HTML."""
    parts = []
    for table in tables:
        head = "".join(f"<th>{escape(str(c))}</th>" for c in table.get("columns", []))
        body = "".join("<tr>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in row) + "</tr>" for row in table.get("rows", []))
        parts.append(f'<table class="published"><caption>{escape(str(table.get("title", "")))}</caption><tr>{head}</tr>{body}</table>')
    return "\n".join(parts)


def _cell(value: Any) -> str:
    """A table cell: numbers to at most 4 significant digits, None as a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _parameters(experiment: Experiment | None, scale: str) -> str:
    """The experiment's settings at this scale, and its setup and assumptions (its notes)."""
    if experiment is None:
        return ""
    parts = []
    settings = experiment.scales.get(scale)
    if isinstance(settings, dict):
        rows = "".join(f"<tr><td>{escape(str(k))}</td><td>{escape(_short(v))}</td></tr>" for k, v in settings.items())
        parts.append(f"<table><tr><th>parameter ({escape(scale)})</th><th>value</th></tr>{rows}</table>")
    if experiment.notes.strip():
        notes = inspect.cleandoc(experiment.notes)
        parts.append(f"<details><summary>setup, parameters and assumptions</summary><pre>{escape(notes)}</pre></details>")
    return "\n".join(parts)


def _short(value: Any) -> str:
    text = str(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 300 else text[:297] + "..."


def _failed_section(exp_id: str, experiment: Experiment | None, error: str) -> str:
    return (
        f'<section id="{escape(exp_id)}"><h2>{escape(_title(experiment, None, exp_id))} '
        f"<small>({escape(exp_id)})</small></h2>"
        f'<p class="fails">Failed to run: {escape(error)}</p></section>'
    )


def _holds_cell(holds: Any) -> str:
    if holds is True:
        return '<td class="holds">✓</td>'
    if holds is False:
        return '<td class="fails">✗</td>'
    return '<td class="undecided">undecided</td>'
