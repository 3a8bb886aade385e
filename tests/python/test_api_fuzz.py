"""The Python API under random input (Hypothesis): any valid small scenario runs with every
engine invariant checked and conserves its packets; any mistake in one is a ScenarioError
naming a field, never another exception and never a crash of the interpreter."""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dcsim

# 40 examples each in `make test`; DCSIM_FUZZ_EXAMPLES=N for a longer run.
FUZZ = settings(
    max_examples=int(os.environ.get("DCSIM_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def valid_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    hosts = draw(st.integers(2, 6))
    flows = [
        {
            "src": src,
            "dst": draw(st.sampled_from([h for h in range(hosts) if h != src])),
            **({"bytes": draw(st.integers(1, 200_000))} if draw(st.booleans()) else {}),
            "start_s": draw(st.floats(0.0, 0.002)),
        }
        for src in draw(st.lists(st.integers(0, hosts - 1), min_size=1, max_size=6))
    ]
    buffer = draw(
        st.one_of(
            st.builds(lambda p: {"kind": "per_port", "limit_packets": p}, st.integers(1, 200)),
            st.builds(lambda b, a: {"kind": "shared", "total_bytes": b, "alpha": a}, st.integers(3_000, 500_000), st.floats(0.05, 8.0)),
        )
    )
    aqm = draw(
        st.one_of(
            st.just({"kind": "drop_tail"}),
            st.builds(lambda k: {"kind": "threshold", "k_packets": k}, st.integers(0, 100)),
        )
    )
    return {
        "sim": {"duration_s": draw(st.floats(0.0005, 0.01)), "seed": draw(st.integers(0, 2**32)), "check_invariants": True},
        "topology": {
            "kind": "star",
            "hosts": hosts,
            "link": {"rate_gbps": draw(st.sampled_from([0.001, 0.1, 1.0, 10.0, 100.0, 800.0])), "delay_us": draw(st.floats(0.001, 500.0))},
        },
        "switch": {"buffer": buffer, "aqm": aqm},
        "tcp": {"cc": draw(st.sampled_from(["newreno", "tcp_ecn", "dctcp", "cubic"]))},
        "flows": flows,
    }


@FUZZ
@given(valid_scenarios())
def test_any_valid_small_scenario_runs_with_its_invariants_checked(scenario: dict[str, Any]) -> None:
    results = dcsim.run(scenario)  # an invariant violation would raise the engine's panic
    c = results.conservation
    assert c["injected"] == c["delivered"] + c["dropped"] + c["in_flight"]
    assert len(results.flows) == len(scenario["flows"])


# Values of the wrong kind or out of range, put at a random field of a valid scenario.
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), -1),
    st.integers(2**64, 2**70),
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: x != x or abs(x) > 1e18),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
FIELDS = [
    ("sim", "duration_s"),
    ("sim", "seed"),
    ("sim", "warmup_s"),
    ("topology", "hosts"),
    ("topology", "kind"),
    ("topology", "link"),
    ("switch", "buffer"),
    ("switch", "aqm"),
    ("tcp", "cc"),
    ("tcp", "rto_min_ms"),
    ("tcp", "mss"),
    ("measure", "queue_sample_us"),
    ("flows", 0),
]


@FUZZ
@given(valid_scenarios(), st.sampled_from(FIELDS), WRONG)
def test_any_mistake_is_a_scenario_error_naming_a_field(scenario: dict[str, Any], where: tuple, value: Any) -> None:
    bad = copy.deepcopy(scenario)
    section, field = where
    if section == "flows":
        bad["flows"][0] = value
    else:
        bad.setdefault(section, {})[field] = value
    try:
        dcsim.run(bad)
    except dcsim.ScenarioError as e:
        assert e.field, str(e)
        assert "\n" not in str(e)
    # A value the scenario format happens to accept (say, a huge seed reduced, or an
    # empty table) may run: what matters is that nothing else escapes.


def test_a_non_finite_number_names_its_field_once() -> None:
    # Found by the test above: the error of a value caught before the engine was wrapped a
    # second time, as "<scenario>: <scenario>: sim.duration_s: ..." with no field.
    scenario = {"sim": {"duration_s": float("inf")}, "topology": {"kind": "star", "hosts": 2}}
    try:
        dcsim.run(scenario)
    except dcsim.ScenarioError as e:
        assert (e.field, str(e)) == ("sim.duration_s", "<scenario>: sim.duration_s: must be a finite number, got inf")
    else:
        raise AssertionError("an infinite duration ran")


def test_an_unknown_key_of_any_spelling_is_named_as_its_field() -> None:
    # Found by the test above: a key that is not a plain name (`:`, or with spaces) left the
    # error without its field. The engine now quotes such a key in the path, as JSON.
    for key, field in ((":", 'flows[0].":"'), ("a: b", 'flows[0]."a: b"'), ("dst ", 'flows[0]."dst "')):
        scenario = {"topology": {"kind": "star", "hosts": 2}, "flows": [{"src": 1, "dst": 0, key: 0}]}
        try:
            dcsim.run(scenario)
        except dcsim.ScenarioError as e:
            assert e.field == field, str(e)
            assert e.reason.startswith(f"unknown field `{key}`"), str(e)
        else:
            raise AssertionError(f"the key {key!r} was accepted")
