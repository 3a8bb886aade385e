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
from pathlib import Path

import pytest

import dcsim
from conftest import REPO
from dcsim import _core
from dcsim.docgen import scenario_reference
from dcsim.scenario import read_toml
from dcsim.sweep import load_plan

DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
BLOCK = re.compile(r"(?:<!-- file: (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<code>.*?)```", re.DOTALL)


def blocks(page: Path) -> list[tuple[str, str, str | None]]:
    return [(m["lang"], m["code"], m["file"]) for m in BLOCK.finditer(page.read_text())]


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


def test_validation_page_lists_every_experiment() -> None:
    from dcsim import experiments

    page = (DOCS / "validation.md").read_text()
    listed = re.findall(r"^### `([^`]+)`", page, re.MULTILINE)
    assert listed == list(experiments.EXPERIMENTS), "run `make validation`"
    # Every experiment's section has a claims table.
    assert page.count("| claim | paper | ours | holds |") == len(listed)
