"""Every number a scenario takes has a documented upper bound, and the engine refuses a value
past it with one message naming the field."""

from __future__ import annotations

import json
import subprocess
import sys
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
    return [(f"{name}.{field}", prop) for field, prop in obj.get("properties", {}).items() if _kind(prop) in ("integer", "number")]


def _kind(prop: dict[str, Any]) -> str | None:
    kind = prop.get("type")
    return next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind


def _all_numbers() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name, definition in DEFS.items():
        found += _numbers(name, definition)
        for variant in definition.get("oneOf", []):
            props = variant.get("properties", {})
            tag = next((p["enum"][0] for p in props.values() if len(p.get("enum", [])) == 1), "?")
            found += _numbers(f"{name}[{tag}]", variant)
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
    target[field] = _past(prop)
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == f"{section}.{field}"
    assert "\n" not in str(caught.value)


def _past(prop: dict[str, Any]) -> float:
    high = prop["maximum"]
    return int(high) + 1 if _kind(prop) == "integer" else high * 1.5 + 1


AQM_CASES = [
    (variant["properties"]["kind"]["enum"][0], field, prop)
    for variant in DEFS["AqmConfig"]["oneOf"]
    for field, prop in variant.get("properties", {}).items()
    if _kind(prop) in ("integer", "number") and "maximum" in prop
]


@pytest.mark.parametrize(("kind", "field", "prop"), AQM_CASES, ids=[f"{k}.{f}" for k, f, _ in AQM_CASES])
@pytest.mark.parametrize("where", ["switch.aqm", "switch.classes.queues[0].aqm"])
def test_an_aqm_value_past_its_bound_is_refused_naming_the_field(where: str, kind: str, field: str, prop: dict[str, Any]) -> None:
    scenario = json.loads(json.dumps(BASE))
    aqm = {"kind": kind, field: _past(prop)}
    if kind == "red":
        aqm = {"min_th": 1.0, "max_th": 2.0} | aqm
    if where == "switch.aqm":
        scenario["switch"] = {"aqm": aqm}
    else:
        scenario["switch"] = {"classes": {"queues": [{"aqm": aqm}]}}
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == f"{where}.{field}"


CLASS_CASES = [
    (field, prop)
    for field, prop in DEFS["ClassQueueConfig"]["properties"].items()
    if _kind(prop) in ("integer", "number") and "maximum" in prop
] + [
    (f"classes.{field}", prop)
    for field, prop in DEFS["ClassesConfig"]["properties"].items()
    if _kind(prop) in ("integer", "number") and "maximum" in prop
]


@pytest.mark.parametrize(("field", "prop"), CLASS_CASES, ids=[f for f, _ in CLASS_CASES])
def test_a_class_queue_value_past_its_bound_is_refused_naming_the_field(field: str, prop: dict[str, Any]) -> None:
    scenario = json.loads(json.dumps(BASE))
    queue: dict[str, Any] = {}
    classes: dict[str, Any] = {"queues": [queue]}
    if field.startswith("classes."):
        classes[field.removeprefix("classes.")] = _past(prop)
        expected = f"switch.{field}"
    else:
        queue[field] = _past(prop)
        expected = f"switch.classes.queues[0].{field}"
    scenario["switch"] = {"buffer": {"kind": "per_port", "limit_bytes": 100000}, "classes": classes}
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == expected


def test_port_names_come_from_the_network_alone() -> None:
    names = dcsim.port_names({"topology": {"kind": "fat_tree", "k": 4}})
    assert len(names) == 2 * 3 * 4**3 // 4
    assert names[:2] == ["h0->edge0_0", "edge0_0->h0"]
    with pytest.raises(ScenarioError, match="topology.k: must be an even number"):
        dcsim.port_names({"topology": {"kind": "fat_tree", "k": 5}})


TRAFFIC = {"size": {"kind": "fixed", "bytes": 1000}, "arrival": {"kind": "poisson", "load": 0.5}}
TRAFFIC_CASES = [
    (field, prop) for field, prop in DEFS["TrafficSpec"]["properties"].items() if _kind(prop) in ("integer", "number") and "maximum" in prop
] + [
    (f"{part}.{field}", prop)
    for part, definition in (("size", "SizeDist"), ("arrival", "FlowArrival"), ("destination", "DestinationRule"))
    for variant in DEFS[definition]["oneOf"]
    for field, prop in variant.get("properties", {}).items()
    if _kind(prop) in ("integer", "number") and "maximum" in prop
]


@pytest.mark.parametrize(("field", "prop"), TRAFFIC_CASES, ids=[f for f, _ in TRAFFIC_CASES])
def test_a_traffic_value_past_its_bound_is_refused_naming_the_field(field: str, prop: dict[str, Any]) -> None:
    scenario = json.loads(json.dumps(BASE))
    generator = json.loads(json.dumps(TRAFFIC))
    if "." in field:
        part, name = field.split(".")
        kinds = {"size": "fixed", "arrival": "poisson", "destination": "mixed"}
        generator[part] = {"kind": kinds[part], name: _past(prop)}
    else:
        generator[field] = _past(prop)
    scenario["traffic"] = [generator]
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == f"traffic[0].{field}"


@pytest.mark.parametrize(
    ("part", "points", "field"),
    [
        ("size", [[2.0**50 + 1, 1.0]], "traffic[0].size.points[0][0]"),
        ("size", [[0.5, 1.0]], "traffic[0].size.points[0][0]"),
        ("size", [[100.0, 1.5]], "traffic[0].size.points[0][1]"),
        ("arrival", [[3.6e6 * 1.5, 1.0]], "traffic[0].arrival.points[0][0]"),
        ("size", [[100.0, 0.2]] * 100_001, "traffic[0].size.points"),
    ],
)
def test_cdf_points_past_their_bounds_are_refused(part: str, points: list, field: str) -> None:
    scenario = json.loads(json.dumps(BASE))
    generator = json.loads(json.dumps(TRAFFIC))
    generator[part] = {"kind": "cdf", "points": points}
    scenario["traffic"] = [generator]
    with pytest.raises(ScenarioError) as caught:
        validate(scenario, "limits")
    assert caught.value.field == field


def test_a_network_too_large_for_memory_is_refused_from_python_and_python_goes_on() -> None:
    # 10^6 hosts (the notebook): the estimate (ports, their results rows in Python,
    # queue samples) is about 7.5 GB, above a 2 GB limit; the kernel must survive the attempt.
    scenario = {
        "sim": {"duration_s": 0.01, "memory_limit_gb": 2},
        "topology": {"kind": "star", "hosts": 10**6},
        "flows": [{"src": 1, "dst": 0}],
    }
    with pytest.raises(ScenarioError) as refused:
        dcsim.run(scenario)
    assert refused.value.field == "topology"
    assert "would need about" in refused.value.reason and "with their results in Python" in refused.value.reason
    assert dcsim.run({**scenario, "topology": {"kind": "star", "hosts": 3}}).events > 0


def _estimate_bytes(scenario: dict[str, Any]) -> float:
    """The engine's memory estimate for `scenario` as Python runs it, from its refusal."""
    with pytest.raises(ScenarioError) as refused:
        validate({**scenario, "sim": {**scenario["sim"], "memory_limit_gb": 0.001}})
    figure, unit = refused.value.reason.split("would need about ")[1].split()[:2]
    return float(figure) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]


@pytest.mark.skipif(sys.platform != "linux", reason="reads the peak from /proc/self/status")
def test_the_memory_estimate_covers_what_dcsim_run_takes(tmp_path: Path) -> None:
    # A 20,000-host star through `dcsim run` (summary.json included), in a fresh process: its
    # peak above the imports is within bounds of the estimate (calibrated once, on a
    # 100,000-host star: 750 MB estimated, 717 MB measured).
    scenario = {
        "sim": {"duration_s": 0.005},
        "topology": {"kind": "star", "hosts": 20_000},
        "flows": [{"src": 1, "dst": 0}],
    }
    path = tmp_path / "star.toml"
    path.write_text('[sim]\nduration_s = 0.005\n[topology]\nkind = "star"\nhosts = 20000\n[[flows]]\nsrc = 1\ndst = 0\n')
    # Peak resident memory of a process that imports what `dcsim run` imports, and of one
    # that then runs the scenario: the difference is the run's.
    imports = "import dcsim.cli, pandas, rich\n"
    run = f"""
try:
    dcsim.cli.main(["run", {str(path)!r}, "--out", {str(tmp_path / "out")!r}, "-q"])
except SystemExit as e:
    assert not e.code, e.code
"""
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts from its parent's (Linux keeps it
    # across fork and exec), and pytest's process is large.
    report = "print('peak', int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0]) * 1024)\n"

    def peak_of(code: str) -> float:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return float(done.stdout.split("peak ")[-1])

    ran, imported = peak_of(imports + run + report), peak_of(imports + report)
    peak = ran - imported
    estimate = _estimate_bytes(scenario)
    assert 0.5 * estimate <= peak <= 1.3 * estimate, f"peak {ran / 1e6:.0f} - {imported / 1e6:.0f} MB, estimate {estimate / 1e6:.0f} MB"
