"""Loading and checking scenarios: every mistake names the file, the field and the reason."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import jsonschema
import pytest

import dcsim
from conftest import REPO, SMALL_TOML
from dcsim import ScenarioError, _core
from dcsim.scenario import long_flows, resolved, star, validate

# Every TOML file under scenarios/ but the sweep plans (`scenarios/sweeps/*-sweep.toml`).
SCENARIO_FILES = sorted(p for p in (REPO / "scenarios").rglob("*.toml") if not p.name.endswith("-sweep.toml"))


def test_load_returns_the_file_as_a_dict(small_toml: Path, small: dict) -> None:
    assert dcsim.load_scenario(small_toml) == small


@pytest.mark.parametrize(
    ("toml", "field", "reason"),
    [
        ("[sim\nseed = 1", "line 1, column 5", "invalid TOML"),
        (SMALL_TOML + "\n[[flows]]\nsrc = 1\ndst = 9\n", "flows[2].dst", "host 9 does not exist"),
        (SMALL_TOML.replace('cc = "dctcp"', 'cc = "bbr"'), "tcp.cc", "bbr"),
        (
            SMALL_TOML.replace("[tcp]", "[tcp]\nrto_mini_ms = 10"),
            "tcp.rto_mini_ms",
            "unknown field",
        ),
        (
            SMALL_TOML + "\n[switch.buffer]\nkind = 'per_port'\nlimit_packets = 0\n",
            "switch.buffer.limit_packets",
            "at least 1",
        ),
        (
            SMALL_TOML.replace("hosts = 3", "hosts = 3\nlink = { rate_gbps = -1.0 }"),
            "topology.link.rate_gbps",
            "-1",
        ),
        (SMALL_TOML.replace("duration_s = 0.02", "duration_s = nan"), "sim.duration_s", "finite"),
        # Inside `kind = "..."` tables the field is found from the schema, not left at the table.
        (
            SMALL_TOML.replace("k_packets = 20", "k_packets = -20"),
            "switch.aqm.k_packets",
            "must be ≥ 0, got -20",
        ),
        (
            SMALL_TOML.replace("k_packets = 20", "k_packet = 20"),
            "switch.aqm.k_packet",
            "unknown field",
        ),
        (SMALL_TOML.replace("hosts = 3", "hosts = 3.5"), "topology.hosts", "integer, got 3.5"),
        (
            SMALL_TOML + "\n[host]\nrx_interrupt_interval_us = -5.0\n",
            "host.rx_interrupt_interval_us",
            "[0, 10000]",
        ),
        (
            SMALL_TOML.replace("duration_s = 0.02", "duration_s = 1979-05-27"),
            "sim.duration_s",
            "invalid type",
        ),
        (SMALL_TOML + "\n[ictcp]\nhosts = [0, 7]\n", "ictcp.hosts[1]", "host 7 does not exist"),
        (
            SMALL_TOML + "\n[ictcp]\nhosts = [0]\ngamma1 = 0.6\n",
            "ictcp.gamma1",
            "must not exceed gamma2",
        ),
    ],
    ids=[
        "syntax",
        "no-such-host",
        "unknown-cc",
        "unknown-field",
        "zero-buffer",
        "negative-rate",
        "nan",
        "negative-k-in-a-kind-table",
        "misspelt-field-in-a-kind-table",
        "fractional-hosts",
        "negative-interrupt-interval",
        "date",
        "ictcp-no-such-host",
        "ictcp-gamma-order",
    ],
)
def test_bad_file_names_file_field_and_reason(tmp_path: Path, toml: str, field: str, reason: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml)
    with pytest.raises(ScenarioError) as caught:
        dcsim.load_scenario(path)
    error = caught.value
    assert error.source == str(path)
    assert error.field == field
    assert reason in error.reason
    assert str(error) == f"{path}: {field}: {error.reason}"
    assert "\n" not in str(error)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="does not exist") as caught:
        dcsim.load_scenario(tmp_path / "missing.toml")
    assert caught.value.source.endswith("missing.toml")


def test_directory_is_not_a_scenario(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        dcsim.load_scenario(tmp_path)


def test_top_level_problem_has_no_field(small: dict) -> None:
    del small["topology"]
    with pytest.raises(ScenarioError) as caught:
        validate(small, "mine")
    assert caught.value.field == ""
    assert "topology" in str(caught.value)


def test_dict_errors_name_the_scenario(small: dict) -> None:
    small["flows"][0]["src"] = 7
    with pytest.raises(ScenarioError, match=r"^small: flows\[0\]\.src: host 7"):
        dcsim.run(small)


def test_every_problem_is_named_at_once(small: dict) -> None:
    # Four independent mistakes: the engine stops at one; each is set aside in turn and the
    # rest checked again, so all four are named, each with its field.
    small["tcp"] = {"cc": "bogus", "rto_mini_ms": 3}
    small["switch"] = {"aqm": {"kind": "threshold", "k_packets": -1}}
    small["flows"][1]["dst"] = 9
    for check in (lambda: validate(small, "mine.toml"), lambda: dcsim.run(small)):
        with pytest.raises(ScenarioError) as caught:
            check()
        error = caught.value
        fields = sorted(p.field for p in error.parts)
        assert fields == ["flows[1].dst", "switch.aqm.k_packets", "tcp.cc", "tcp.rto_mini_ms"]
        assert error.field == "" and str(error).count("\n") == 0
        assert f"{len(fields)} problems: " in str(error)
    # Alone, each is the only problem, with its field as before.
    small["tcp"] = {"cc": "bogus"}
    del small["switch"]
    small["flows"][1]["dst"] = 0
    with pytest.raises(ScenarioError) as caught:
        validate(small, "mine.toml")
    assert (caught.value.field, len(caught.value.parts)) == ("tcp.cc", 1)


def test_a_field_others_are_checked_against_is_not_set_aside_for_them(small: dict) -> None:
    # duration_s is wrong; the warm-up and drain are checked against it, so with a default in
    # its place they would look wrong too: they are not reported. A problem of form elsewhere
    # (an unknown variant) still is.
    small["sim"] = {"duration_s": "5", "warmup_s": 2.0, "drain_s": 2.0}
    small["tcp"] = {"cc": "bogus"}
    with pytest.raises(ScenarioError) as caught:
        validate(small, "mine.toml")
    assert [p.field for p in caught.value.parts] == ["sim.duration_s", "tcp.cc"]


def test_setting_aside_a_required_field_is_not_reported_as_a_problem(small: dict) -> None:
    # Host 9 is out of range; left out, the flow has no destination, which is not the file's
    # problem: only the first is named.
    small["flows"][0]["dst"] = 9
    with pytest.raises(ScenarioError) as caught:
        validate(small, "mine.toml")
    assert [p.field for p in caught.value.parts] == ["flows[0].dst"]


def test_the_engine_raises_the_typed_error_itself(small: dict) -> None:
    small["switch"] = {"aqm": {"kind": "threshold", "k_packet": 20}}
    with pytest.raises(ScenarioError) as caught:
        _core.validate_json(json.dumps(small))
    error = caught.value
    assert (error.source, error.field) == ("", "switch.aqm.k_packet")
    assert error.reason.startswith("unknown field (expected one of at, count_in_service, k_packets, kind")
    assert str(error.named("mine.toml")) == f"mine.toml: switch.aqm.k_packet: {error.reason}"


def test_error_survives_pickling_for_worker_processes() -> None:
    error = ScenarioError("a.toml", "tcp.cc", "unknown variant")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.source, copy.field, copy.reason) == ("a.toml", "tcp.cc", "unknown variant")
    assert str(copy) == str(error)


def test_helpers_build_a_valid_scenario() -> None:
    scenario = star(4, rate_gbps=10, delay_us=10)
    scenario["flows"] = long_flows([1, 2, 3], dst=0, cc="dctcp") + long_flows([0], dst=1)
    validate(scenario)
    assert scenario["flows"][0] == {"src": 1, "dst": 0, "cc": "dctcp"}
    assert scenario["flows"][3] == {"src": 0, "dst": 1}


def test_schema_file_is_generated_from_the_engine() -> None:
    committed = json.loads((REPO / "schema" / "scenario.schema.json").read_text())
    assert committed == json.loads(_core.scenario_schema()), "run `make schema` and commit the result"


def test_scenario_files_exist() -> None:
    assert {p.name for p in SCENARIO_FILES} >= {"dctcp-2flows.toml", "tcp-2flows.toml"}


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_scenario_file_is_valid(path: Path) -> None:
    scenario = dcsim.load_scenario(path)
    jsonschema.validate(scenario, json.loads(_core.scenario_schema()))


def test_a_python_dict_mistake_names_the_same_field_as_a_file_would(tmp_path: Path) -> None:
    scenario = {"topology": {"kind": "star", "hosts": "3"}}
    with pytest.raises(dcsim.ScenarioError) as from_dict:
        dcsim.run(scenario)
    path = tmp_path / "s.toml"
    path.write_text('[topology]\nkind = "star"\nhosts = "3"\n')
    with pytest.raises(dcsim.ScenarioError) as from_file:
        dcsim.run(path)
    assert from_dict.value.field == from_file.value.field == "topology.hosts"


@pytest.mark.parametrize(
    ("switch", "flow_class", "message"),
    [
        ({"queues": [{}, {}]}, 2, r"flows\[0\]\.class: class 2 does not exist: the ports have 2"),
        (
            {"scheduler": "strict_priority", "queues": [{"weight": 3}, {}]},
            0,
            r'switch\.classes\.queues\[0\]\.weight: applies to scheduler = "drr" only',
        ),
        ({"queues": [{"alpha": 1.0}]}, 0, r"switch\.classes\.queues\[0\]\.alpha: a dynamic share"),
        ({"queues": []}, 0, r"switch\.classes\.queues: must list 1 to 8 class queues, got 0"),
        (
            {"classify": {"by": "ecn", "ect": 0, "not_ect": 3}, "queues": [{}, {}]},
            0,
            r"switch\.classes\.classify\.not_ect: class 3 does not exist",
        ),
    ],
)
def test_class_queue_mistakes_are_named(small: dict, switch: dict, flow_class: int, message: str) -> None:
    small["flows"][0]["class"] = flow_class
    small["switch"] = small.get("switch", {}) | {"classes": switch}
    with pytest.raises(ScenarioError, match=r"^small: " + message):
        dcsim.run(small)


def test_resolved_shows_the_profiles_fields_under_the_scenarios_own(small: dict) -> None:
    small["tcp"] = {"profile": "windows_2008r2", "rto_min_ms": 10.0}
    t = resolved(small)["tcp"]
    # The scenario's own field wins; the profile fills in the rest (docs/stacks.md); what
    # neither sets keeps the engine's default.
    assert (t["rto_min_ms"], t["delayed_ack_timeout_ms"], t["timer_tick_ms"]) == (10.0, 200.0, 10.0)
    assert (t["ack_counting"], t["slow_start_after_idle"], t["syn_retries"]) == ("bytes", False, 2)
    assert t["dupack_threshold"] == 3
    small["tcp"] = {"profile": "windows_95"}
    with pytest.raises(ScenarioError, match=r"tcp\.profile"):
        resolved(small)
