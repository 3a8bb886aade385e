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


def test_every_claim_keeps_its_expected_outcome(readme_workdir: Path) -> None:
    """The quick suite's claim outcomes are those committed in data/claim_outcomes.json
    (`make validation` writes it): an outcome that changes, or an experiment that appears or
    disappears, fails here until the file is regenerated and committed with the reason."""
    from dcsim import experiments

    expected = json.loads((Path(__file__).parent / "data" / "claim_outcomes.json").read_text())
    assert list(expected) == list(experiments.EXPERIMENTS), "experiments added or removed"
    results = readme_workdir / "dcsim-results"
    changed = []
    for exp_id, want in expected.items():
        summary = json.loads((results / exp_id / "summary.json").read_text())
        got = [c["holds"] for c in summary["claims"]]
        if got != want["holds"] or summary["scale"] != want["scale"]:
            changed.append(f"{exp_id}: expected {want['holds']}, got {got}")
    assert not changed, "claim outcomes changed:\n" + "\n".join(changed)


def test_the_minimum_rust_is_the_one_cargo_declares_and_checks() -> None:
    declared = re.search(r'^rust-version = "([\d.]+)"', (REPO / "Cargo.toml").read_text(), re.M)
    assert declared, "the workspace declares its minimum Rust"
    assert f"Rust ≥ {declared[1]}" in README
    for crate in ("dcsim", "dcsim-py"):
        assert "rust-version.workspace = true" in (REPO / "crates" / crate / "Cargo.toml").read_text()
    tests = re.search(r"^tests=([\d.]+)$", (REPO / "scripts" / "check-msrv.sh").read_text(), re.M)
    assert tests and f"the tests need ≥ {tests[1]}" in README
