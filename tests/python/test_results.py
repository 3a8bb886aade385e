"""Results tables and summary, on small runs of the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dcsim
from conftest import SMALL, assert_same_raw
from dcsim.results import _queue_quantiles, rows
from dcsim.scenario import long_flows, star


@pytest.fixture(scope="module")
def results() -> dcsim.Results:
    return dcsim.run(SMALL)


def test_flows_table(results: dcsim.Results) -> None:
    flows = results.flows
    assert list(flows["id"]) == [0, 1]
    assert list(flows["src"]) == [1, 2]
    assert set(flows["cc"]) == {"dctcp"}
    assert (flows["goodput_bps"] >= 0).all()
    # Long flows never finish: the engine's nulls must come out as float NaN.
    assert flows["completion_s"].dtype == np.float64
    assert flows["completion_s"].isna().all()


def test_ports_table(results: dcsim.Results) -> None:
    ports = results.ports
    assert "occupancy_time_s" not in ports.columns
    assert ports["is_switch"].any()
    assert "s0->h0" in set(ports["name"])


def test_queue_samples_name_their_port(results: dcsim.Results) -> None:
    samples = results.queue_samples
    assert len(samples) > 0
    names = results.ports["name"].to_numpy()
    assert (samples["port_name"].to_numpy() == names[samples["port"].to_numpy()]).all()
    assert {"t_s", "packets", "bytes"} <= set(samples.columns)


def test_queue_occupancy_covers_the_window(results: dcsim.Results) -> None:
    occupancy = results.queue_occupancy
    per_port = occupancy.groupby("port_name")["seconds"].sum()
    window = results.raw["duration_s"] - results.raw["warmup_s"]
    assert per_port["s0->h0"] == pytest.approx(window, rel=1e-6)


def test_conservation(results: dcsim.Results) -> None:
    c = results.conservation
    assert c["injected"] == c["delivered"] + c["dropped"] + c["in_flight"]
    assert c["injected"] > 0


def test_summary_is_strict_json_with_the_contract_fields(results: dcsim.Results) -> None:
    summary = results.summary()
    json.dumps(summary, allow_nan=False)
    assert {"events", "wall_seconds", "drops", "marks", "timeouts", "ports", "flows"} <= set(summary)
    assert summary["events"] > 0
    port = next(p for p in summary["ports"] if p["name"] == "s0->h0")
    assert port["queue_p50_packets"] <= port["queue_p95_packets"] <= port["queue_p99_packets"]
    assert port["queue_p99_packets"] <= port["max_packets"]
    assert summary["marks"] == sum(p["marks"] for p in summary["ports"])


def test_queue_quantiles_weight_by_time() -> None:
    # Empty half the time, 1 packet for 30 %, 2 packets for 20 %.
    assert _queue_quantiles([0.5, 0.3, 0.2]) == {
        "queue_p50_packets": 0,
        "queue_p95_packets": 2,
        "queue_p99_packets": 2,
    }
    assert _queue_quantiles([]) == dict.fromkeys(["queue_p50_packets", "queue_p95_packets", "queue_p99_packets"])


def test_same_seed_same_results(small: dict, small_toml: Path) -> None:
    first, second = dcsim.run(small).raw, dcsim.run(small_toml).raw
    first.pop("wall_seconds")
    second.pop("wall_seconds")
    assert_same_raw(first, second)


def test_run_many_keeps_input_order(small: dict) -> None:
    scenarios = [small | {"name": f"run{i}", "sim": {"duration_s": 0.005, "seed": i}} for i in range(3)]
    in_processes = dcsim.run_many(scenarios, jobs=2)
    assert [r.name for r in in_processes] == ["run0", "run1", "run2"]
    in_process = dcsim.run_many(scenarios, jobs=1)
    assert [rows(r.raw["flows"]) for r in in_process] == [rows(r.raw["flows"]) for r in in_processes]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hosts=st.integers(2, 6),
    cc=st.sampled_from(["newreno", "tcp_ecn", "dctcp", "cubic"]),
    aqm=st.sampled_from([{"kind": "drop_tail"}, {"kind": "threshold", "k_packets": 5}]),
    limit_packets=st.integers(1, 200),
    seed=st.integers(0, 2**32),
)
def test_any_small_star_conserves_packets(hosts: int, cc: str, aqm: dict, limit_packets: int, seed: int) -> None:
    scenario = star(hosts)
    scenario["sim"] = {"duration_s": 0.005, "seed": seed}
    scenario["switch"] = {
        "aqm": aqm,
        "buffer": {"kind": "per_port", "limit_packets": limit_packets},
    }
    scenario["flows"] = long_flows(range(1, hosts), dst=0, cc=cc)
    results = dcsim.run(scenario)
    c = results.conservation
    assert c["injected"] == c["delivered"] + c["dropped"] + c["in_flight"]
    assert len(results.flows) == hosts - 1
    json.dumps(results.summary(), allow_nan=False)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dcsim.run(123), TypeError, "dcsim.run: a scenario is a dict or the path"),
        (lambda: dcsim.run({}, progress=5), TypeError, "progress must be callable"),
        (lambda: dcsim.run_many([{}], jobs=-2), ValueError, "jobs must be a whole number"),
        (lambda: dcsim.run_many([{}], jobs="a"), ValueError, "jobs must be a whole number"),
        (lambda: dcsim.run_many([{}, 7]), TypeError, r"scenarios\[1\] is a int"),
    ],
)
def test_bad_python_arguments_get_one_clear_error(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_ictcp_constants_are_set_from_python_and_its_state_is_traced(small: dict) -> None:
    small["ictcp"] = {
        "hosts": [0],
        "alpha": 0.85,
        "beta": 0.5,
        "gamma1": 0.05,
        "gamma2": 0.6,
        "decrease_after_rtts": 4,
        "control_interval_rtts": 3,
        "min_rwnd_segments": 1,
        "fairness_fraction": 0.25,
        "rtt_limit_ms": 1.5,
    }
    small["measure"] = {"flow_sample_us": 1000.0}
    r = dcsim.run(small)
    f = r.flow_samples.dropna(subset=["ictcp_expected_bps"])
    assert len(f) and (f.ictcp_expected_bps >= f.ictcp_measured_bps).all()
    assert (r.flow_samples.ictcp_rwnd_bytes >= 1460).all()
    s = r.ictcp_samples
    assert list(s.columns) == ["host", "t_s", "bw_t_bps", "bw_a_bps", "quota_bps", "subslot_s"]
    # Eq. 1 with this scenario's α = 0.85 (C is the NIC's rate, within its ±100 ppm clock).
    assert ((s.bw_a_bps - (0.85e9 - s.bw_t_bps).clip(lower=0)).abs() <= 0.85e9 * 1e-4).all()
    small["ictcp"]["control_interval_rtts"] = 0
    with pytest.raises(dcsim.ScenarioError, match="ictcp.control_interval_rtts"):
        dcsim.run(small)
