"""The README's examples run as written: its scenario, its Python, and its shell commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import dcsim
from conftest import REPO, readme_commands
from dcsim.scenario import validate

README = (REPO / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.DOTALL)


def test_toml_examples_are_valid_scenarios(tmp_path: Path) -> None:
    examples = blocks("toml")
    assert len(examples) == 2  # two flows on a star; a fat-tree
    for i, example in enumerate(examples):
        path = tmp_path / f"example{i}.toml"
        path.write_text(example)
        validate(dcsim.load_scenario(path), str(path))


def test_a_toml_example_that_names_a_file_is_that_file_exactly() -> None:
    named = re.findall(r"`(scenarios/examples/[\w.-]+\.toml)`[^`]*?:\n\n```toml\n(.*?)```", README, re.DOTALL)
    assert [path for path, _ in named] == ["scenarios/examples/dctcp-2flows.toml"]
    for path, text in named:
        assert text == (REPO / path).read_text(), f"the README's copy of {path} differs from the file"


def test_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # it also runs a file from scenarios/
    for code in blocks("python"):
        exec(compile(code, "README.md", "exec"), {})


def test_the_first_command_reproduces_every_experiment_with_its_report(readme_workdir: Path) -> None:
    from dcsim import experiments

    assert readme_commands()[0] == "dcsim reproduce"
    results = readme_workdir / "dcsim-results"
    assert (results / "index.html").stat().st_size > 10_000
    for exp_id in experiments.EXPERIMENTS:
        summary = json.loads((results / exp_id / "summary.json").read_text())
        assert summary["scale"] == "quick" and summary["claims"], exp_id


LEDGER = Path(__file__).parent / "data" / "claim_outcomes.json"


def ledger_problems(ledger: dict, summaries: list[dict]) -> list[str]:
    """What differs between the expected outcomes of the ledger and the claims of a run, one
    line per claim: an outcome changed, a claim appeared or disappeared, a claim expected to
    fail has no reason, a claim that holds still has one, or the scale is another."""
    expected = ledger["claims"]
    got = {c["id"]: c["holds"] for s in summaries for c in s["claims"]}
    problems = [f"{cid}: expected {e['holds']}, got {got[cid]}" for cid, e in expected.items() if cid in got and got[cid] != e["holds"]]
    problems += [f"{cid}: a claim the ledger does not have (outcome {holds})" for cid, holds in got.items() if cid not in expected]
    problems += [f"{cid}: in the ledger but not in the run" for cid in expected if cid not in got]
    problems += [
        f"{cid}: expected to fail without a reason"
        for cid, e in expected.items()
        if e["holds"] is not True and not str(e.get("reason", "")).strip()
    ]
    problems += [f"{cid}: holds but carries a reason" for cid, e in expected.items() if e["holds"] is True and "reason" in e]
    scales = {s["scale"] for s in summaries}
    if scales != {ledger["scale"]}:
        problems.append(f"scale: the ledger is of {ledger['scale']}, the run of {', '.join(sorted(scales))}")
    return problems


def test_the_ledger_catches_a_flip_a_new_claim_a_lost_one_and_a_missing_reason() -> None:
    ledger = {"scale": "quick", "claims": {"e/a": {"holds": True}, "e/b": {"holds": False, "reason": "traced"}, "e/c": {"holds": True}}}
    run = [{"scale": "quick", "claims": [{"id": "e/a", "holds": True}, {"id": "e/b", "holds": False}, {"id": "e/c", "holds": True}]}]
    assert ledger_problems(ledger, run) == []
    flipped = [{"scale": "quick", "claims": [{"id": "e/a", "holds": False}, {"id": "e/b", "holds": False}, {"id": "e/d", "holds": True}]}]
    assert ledger_problems(ledger, flipped) == [
        "e/a: expected True, got False",
        "e/d: a claim the ledger does not have (outcome True)",
        "e/c: in the ledger but not in the run",
    ]
    unexplained = {
        "scale": "quick",
        "claims": {"e/a": {"holds": True, "reason": "x"}, "e/b": {"holds": False, "reason": " "}, "e/c": {"holds": True}},
    }
    assert ledger_problems(unexplained, run) == ["e/b: expected to fail without a reason", "e/a: holds but carries a reason"]


def test_every_claim_keeps_its_expected_outcome(readme_workdir: Path) -> None:
    """The quick suite's claim outcomes are those of the committed ledger
    (`tests/python/data/claim_outcomes.json`, written by `make validation`), claim by claim:
    an outcome that changes, a claim that appears or disappears, or a failing claim without
    its reason fails here, naming each claim, until the ledger is regenerated and committed
    with why."""
    from dcsim import experiments

    results = readme_workdir / "dcsim-results"
    summaries = [json.loads((results / exp_id / "summary.json").read_text()) for exp_id in experiments.EXPERIMENTS]
    problems = ledger_problems(json.loads(LEDGER.read_text()), summaries)
    assert not problems, "claim outcomes differ from the ledger:\n" + "\n".join(problems)


def test_the_readme_says_what_the_quick_suite_gives() -> None:
    """A newcomer compares their run with the README's counts: they are the validation page's."""
    page = (REPO / "docs" / "validation.md").read_text()
    counts = re.search(r"\*\*(\d+) of (\d+) paper claims hold; (\d+) of (\d+) checks hold\*\*", page)
    assert counts, "the validation page states its counts"
    held, total, checks_held, checks = counts.groups()
    said = " ".join(README.split())
    assert f"{held} of {total} paper claims holding, and {checks_held} of {checks} checks" in said


def test_the_minimum_rust_is_the_one_cargo_declares_and_checks() -> None:
    declared = re.search(r'^rust-version = "([\d.]+)"', (REPO / "Cargo.toml").read_text(), re.M)
    assert declared, "the workspace declares its minimum Rust"
    assert f"Rust ≥ {declared[1]}" in README
    for crate in ("dcsim", "dcsim-py"):
        assert "rust-version.workspace = true" in (REPO / "crates" / crate / "Cargo.toml").read_text()
    tests = re.search(r"^tests=([\d.]+)$", (REPO / "scripts" / "check-msrv.sh").read_text(), re.M)
    assert tests and f"the tests need ≥ {tests[1]}" in README
