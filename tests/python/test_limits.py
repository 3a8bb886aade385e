"""Every number a scenario takes has a documented upper bound, and the engine refuses a value
past it with one message naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dcsim
from dcsim import _core
from dcsim.scenario import ScenarioError, validate

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(_core.scenario_schema())
DEFS = SCHEMA["definitions"]
# Numbers that need no bound: any seed is valid.
UNBOUNDED = {"SimConfig.seed"}


def _numbers(name: str, obj: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{name}.{field}", prop)
        for field, prop in obj.get("properties", {}).items()
        if _kind(prop) in ("integer", "number")
    ]


def _kind(prop: dict[str, Any]) -> str | None:
    kind = prop.get("type")
    return next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind


def _all_numbers() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name, definition in DEFS.items():
        found += _numbers(name, definition)
        for variant in definition.get("oneOf", []):
            kind = variant.get("properties", {}).get("kind", {}).get("enum", ["?"])[0]
            found += _numbers(f"{name}[{kind}]", variant)
    return found


def test_every_number_in_the_schema_has_an_upper_bound() -> None:
    missing = [path for path, prop in _all_numbers() if "maximum" not in prop and path not in UNBOUNDED]
    assert missing == []
    # And the scenario reference shows them.
    assert "number, 0 to 1,000,000" in (ROOT / "docs" / "scenario-reference.md").read_text()


BASE = {"topology": {"kind": "star", "hosts": 3}, "flows": [{"src": 1, "dst": 0}]}
SECTIONS = {
    "sim": "SimConfig",
    "host": "HostConfig",
    "tcp": "TcpConfig",
    "tcp.cubic": "CubicConfig",
    "ictcp": "IctcpConfig",
    "topology.link": "LinkConfig",
}
CASES = [
    (section, field, prop)
    for section, definition in SECTIONS.items()
    for field, prop in DEFS[definition]["properties"].items()
    if _kind(prop) in ("integer", "number") and "maximum" in prop
]


@pytest.mark.parametrize(("section", "field", "prop"), CASES, ids=[f"{s}.{f}" for s, f, _ in CASES])
def test_a_value_past_its_bound_is_refused_naming_the_field(section: str, field: str, prop: dict[str, Any]) -> None:
    scenario = json.loads(json.dumps(BASE))
    target = scenario
    for key in section.split("."):
        target = target.setdefault(key, {})
    high = prop["maximum"]
    target[field] = int(high) + 1 if _kind(prop) == "integer" else high * 1.5 + 1
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == f"{section}.{field}"
    assert "\n" not in str(caught.value)


def test_port_names_come_from_the_network_alone() -> None:
    names = dcsim.port_names({"topology": {"kind": "fat_tree", "k": 4}})
    assert len(names) == 2 * 3 * 4**3 // 4
    assert names[:2] == ["h0->edge0_0", "edge0_0->h0"]
    with pytest.raises(ScenarioError, match="topology.k: must be an even number"):
        dcsim.port_names({"topology": {"kind": "fat_tree", "k": 5}})
