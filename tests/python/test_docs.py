"""Every example in docs/ runs as written: Python blocks run in order (one namespace per
page), TOML blocks are valid scenarios or sweep plans (a block after `<!-- file: NAME -->`
is saved as NAME first), and each `dcsim` command of a shell block runs and exits 0. The generated
scenario reference matches the engine's schema."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dcsim
from conftest import INTERNAL_LABELS, REPO
from dcsim import _core
from dcsim.docgen import scenario_reference, stacks
from dcsim.scenario import read_toml
from dcsim.sweep import expand, load_plan

DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<code>.*?)```", re.DOTALL)


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    return [(m["lang"], m["code"], m["file"]) for m in BLOCK.finditer(page.read_text())]


def test_the_sweep_plan_of_the_docs_ships_as_it_is_shown() -> None:
    shown = {file: code for lang, code, file in blocks(DOCS / "sweeps.md") if file}
    assert set(shown) == {"dctcp-2flows-short.toml", "k-sweep.toml"}
    for name, code in shown.items():
        assert (REPO / "scenarios" / "sweeps" / name).read_text() == code, name
    plan = load_plan(REPO / "scenarios" / "sweeps" / "k-sweep.toml")
    assert len(expand(plan)) == 60


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}  # as if each page were a script
    for lang, code, file in blocks(page):
        if file:
            (tmp_path / file).write_text(code)
        if lang == "toml":
            path = tmp_path / (file or "block.toml")
            path.write_text(code)
            if "metrics" in read_toml(path):
                load_plan(path)  # a sweep plan
            else:
                dcsim.load_scenario(path)
        elif lang == "python":
            exec(compile(code, str(page), "exec"), namespace)
        elif lang == "sh":
            for line in code.splitlines():
                if line.startswith("dcsim ") and "--serve" not in line:
                    args = shlex.split(line)[1:]
                    cmd = [sys.executable, "-c", "from dcsim.cli import main; main()", *args]
                    done = subprocess.run(cmd, capture_output=True, text=True)
                    assert done.returncode == 0, f"{page.name}: {line}\n{done.stderr}"
    # Every plot a page saves is drawn.
    for name in re.findall(r'savefig\("([^"]+)"', page.read_text()):
        assert (tmp_path / name).stat().st_size > 10_000, name
    if page.name == "compare-transports.md":
        # What its text says, from its runs.
        runs = {name: json.loads((tmp_path / "runs" / name / "summary.json").read_text()) for name in ("dctcp", "newreno-naive", "newreno")}
        compared = json.loads((tmp_path / "runs" / "compare" / "compare.json").read_text())
        headline = dict(zip(compared["names"], compared["headline"], strict=True))
        dctcp, naive, tcp = (headline[n] for n in ("dctcp", "newreno-naive", "newreno"))
        assert dctcp["drops"] == 0 and dctcp["unfinished (of a set size)"] == 0 and 20_000 < dctcp["marks"] < 30_000
        assert naive["  of them at the AQM"] > 0 and tcp["  of them at the AQM"] == 0
        assert runs["newreno"]["overrides"] == {"tcp.cc": "newreno", "switch.aqm": {"kind": "drop_tail"}}
        assert dctcp["mean slowdown"] < 0.6 * tcp["mean slowdown"] and dctcp["p99 slowdown"] < 0.5 * tcp["p99 slowdown"]
        assert naive["p99 slowdown"] > 2.5 * tcp["p99 slowdown"]
        assert abs(dctcp["goodput, Gb/s in all"] - tcp["goodput, Gb/s in all"]) < 0.05 * tcp["goodput, Gb/s in all"]
        assert naive["goodput, Gb/s in all"] < tcp["goodput, Gb/s in all"] and naive["unfinished (of a set size)"] == 7
        short = [b for b in runs["dctcp"]["fct"] if b["bucket"] in ("0 B–10 kB", "10 kB–100 kB")]
        assert all(b["p99_slowdown"] < 20 for b in short)
        tcp_short = [b for b in runs["newreno"]["fct"] if b["bucket"] in ("0 B–10 kB", "10 kB–100 kB")]
        assert all(d["mean_slowdown"] < 0.5 * t["mean_slowdown"] for d, t in zip(short, tcp_short, strict=True))
        assert (dctcp["largest p99 queue, packets"], tcp["largest p99 queue, packets"]) == (223, 605)
        # Without the drain, the buckets over 1 MB are the ones flagged.
        undrained = dcsim.load_scenario(tmp_path / "fat-tree-web-search.toml")
        undrained["sim"]["drain_s"] = 0.0
        table = dcsim.run(undrained).fct_stats()
        assert table["biased"].tolist() == [False, False, False, True, True]
        assert table["unfinished"].tolist()[3:] == [9, 1]
    if page.name == "tutorial.md":
        # What its text says: TCP fills the port (~700 KB) and times out; DCTCP loses nothing.
        r = namespace["results"]
        tcp = r["newreno"].ports.set_index("name").loc["s0->h0"]
        dctcp = r["dctcp"].ports.set_index("name").loc["s0->h0"]
        assert tcp.max_bytes > 650_000 and tcp.drops_buffer > 0
        assert r["newreno"].queries.timeouts.sum() > 0
        assert dctcp.drops_buffer == 0 and dctcp.max_bytes < tcp.max_bytes
        assert r["dctcp"].queries.timeouts.sum() == 0


def test_scenario_reference_is_generated_from_the_schema() -> None:
    expected = scenario_reference(json.loads(_core.scenario_schema()))
    assert (DOCS / "scenario-reference.md").read_text() == expected, "run `make docs`"


def test_stack_profiles_page_is_generated_from_the_engine() -> None:
    profiles = json.loads(_core.stack_profiles())
    assert [p["name"] for p in profiles] == ["windows_2008r2", "linux_2_6_3x", "linux_current", "ns2", "ns3"]
    assert (DOCS / "stacks.md").read_text() == stacks(profiles), "run `make docs`"


def test_validation_page_lists_every_experiment() -> None:
    from dcsim import experiments

    page = (DOCS / "validation.md").read_text()
    listed = re.findall(r"^### `([^`]+)`", page, re.MULTILINE)
    assert listed == list(experiments.EXPERIMENTS), "run `make validation`"
    # Every experiment's section has a claims table, and every claim that fails its reason.
    assert page.count("| claim | kind | paper | ours | holds |") == len(listed)
    failing = len(re.findall(r"\| \*\*no\*\* \|$", page, re.MULTILINE))
    assert failing and len(re.findall(r"^- `[a-z0-9-]+/[a-z0-9.-]+`: \S", page, re.MULTILINE)) == failing
    assert "no reason recorded" not in page


def test_the_dask_cluster_commands_of_the_sweeps_page_run(tmp_path: Path) -> None:
    """docs/sweeps.md's 'On a Dask cluster' commands, with the `dask` command line: a
    scheduler (here on the loopback and a free port), workers, and `dcsim sweep --scheduler`
    with the address the scheduler printed in place of ADDRESS."""
    page = DOCS / "sweeps.md"
    for _, code, file in blocks(page):
        if file:
            (tmp_path / file).write_text(code)
    cluster_text = page.read_text().split("## On a Dask cluster", 1)[1]
    lines = [m["code"] for m in BLOCK.finditer(cluster_text)][:2]
    commands = [line.split("#", 1)[0].strip() for block in lines for line in block.splitlines()]
    scheduler_cmd, worker_cmd, sweep_cmd = [c for c in commands if c]
    assert scheduler_cmd == "dask scheduler" and worker_cmd.startswith("dask worker tcp://ADDRESS:8786")
    assert sweep_cmd.startswith("dcsim sweep") and "--scheduler tcp://ADDRESS:8786" in sweep_cmd

    dask = [sys.executable, "-m", "dask"]
    local = ["--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    log = tmp_path / "scheduler.log"
    with log.open("w") as sink:  # a file, not a pipe: nothing blocks on a full pipe
        procs = [subprocess.Popen([*dask, "scheduler", *local], cwd=tmp_path, stderr=sink)]
    try:
        address, deadline = None, time.monotonic() + 60
        while address is None and procs[0].poll() is None and time.monotonic() < deadline:
            found = re.search(r"Scheduler at:\s+(tcp://\S+)", log.read_text())
            address = found[1] if found else time.sleep(0.1)
        assert address, f"the scheduler did not say where it listens:\n{log.read_text()}"
        worker = shlex.split(worker_cmd.replace("tcp://ADDRESS:8786", address))[1:]
        worker[worker.index("--nworkers") + 1] = "2"  # the doc's 8, on a 2-core machine
        procs.append(subprocess.Popen([*dask, *worker, "--no-dashboard"], cwd=tmp_path, stderr=subprocess.DEVNULL))
        args = shlex.split(sweep_cmd.replace("tcp://ADDRESS:8786", address))[1:]
        cmd = [sys.executable, "-c", "from dcsim.cli import main; main()", *args, "--quiet"]
        done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(timeout=30)
    out = tmp_path / args[args.index("--out") + 1]
    info = json.loads((out / "sweep.json").read_text())
    assert info["executor"] == f"dask {address}" and (info["runs"], info["failed"]) == (60, 0)


@pytest.mark.parametrize(
    "path",
    [*PAGES, REPO / "README.md", REPO / "ARCHITECTURE.md", REPO / "CONTRIBUTING.md", REPO / "schema" / "scenario.schema.json"],
    ids=lambda p: p.name,
)
def test_the_docs_cite_papers_and_rfcs_not_internal_labels(path: Path) -> None:
    for n, line in enumerate(path.read_text().splitlines(), 1):
        found = INTERNAL_LABELS.search(line)
        assert not found, f"{path.name}:{n}: {found.group(0)!r} in {line.strip()[:120]!r}"
