"""The README's examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import dcsim
from conftest import REPO

README = (REPO / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.DOTALL)


def test_toml_example_is_a_valid_scenario(tmp_path: Path) -> None:
    (example,) = blocks("toml")
    path = tmp_path / "example.toml"
    path.write_text(example)
    dcsim.load_scenario(path)


def test_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # it also runs a file from scenarios/
    for code in blocks("python"):
        exec(compile(code, "README.md", "exec"), {})
