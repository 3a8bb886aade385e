"""Open-loop traffic from Python: the shipped distributions, CDF files, the generator
builder, completion-time statistics by hand, and generated flows in the results."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.scenario import ScenarioError, load_scenario, star, validate
from dcsim.workloads import (
    DCTCP_BUCKETS,
    FCT_COLUMNS,
    builtin_points,
    cdf,
    cdf_mean,
    data_mining,
    fct_stats,
    timeouts_by_class,
    traffic,
    web_search,
)

ROOT = Path(__file__).resolve().parents[2]


def test_web_search_is_the_spec_table_in_bytes() -> None:
    # pFabric's CDF of the DCTCP paper's Fig. 4 (search_CDF.tcl): sizes in 1460-B packets with their CDF.
    table = [(6, 0.15), (13, 0.2), (19, 0.3), (33, 0.4), (53, 0.53), (133, 0.6), (667, 0.7),
             (1333, 0.8), (3333, 0.9), (6667, 0.97), (20000, 1.0)]  # fmt: skip
    assert builtin_points("web_search") == [[p * 1460.0, c] for p, c in table]
    # "Mean ≈ 1,141 packets ≈ 1.67 MB".
    assert cdf_mean(builtin_points("web_search")) / 1460 == pytest.approx(1141, abs=1)


def test_data_mining_ships_with_its_source() -> None:
    text = (ROOT / "crates" / "dcsim" / "data" / "data_mining.csv").read_text()
    assert "VL2" in text and "Greenberg" in text
    points = builtin_points("data_mining")
    assert points[0] == [100.0, 0.0] and points[-1] == [1e9, 1.0]
    assert [p for p, _ in points] == sorted(p for p, _ in points)
    with pytest.raises(ValueError, match="no built-in distribution"):
        builtin_points("nope")


def test_cdf_files_csv_and_toml(tmp_path: Path) -> None:
    (tmp_path / "sizes.csv").write_text("# my sizes\nbytes,cdf\n1000,0.5\n5000,1\n")
    (tmp_path / "gaps.toml").write_text("points = [[0, 0.5], [2, 1.0]]\n")
    assert cdf(tmp_path / "sizes.csv") == {"kind": "cdf", "points": [[1000.0, 0.5], [5000.0, 1.0]]}
    assert cdf(tmp_path / "gaps.toml")["points"] == [[0.0, 0.5], [2.0, 1.0]]
    # A scenario file names them relative to itself.
    (tmp_path / "s.toml").write_text(
        """
        [topology]
        kind = "star"
        hosts = 4
        [[traffic]]
        size = { kind = "cdf", file = "sizes.csv" }
        arrival = { kind = "cdf", file = "gaps.toml" }
        """
    )
    scenario = load_scenario(tmp_path / "s.toml")
    assert scenario["traffic"][0]["size"]["points"] == [[1000.0, 0.5], [5000.0, 1.0]]
    assert scenario["traffic"][0]["arrival"]["points"] == [[0, 0.5], [2, 1.0]]


def test_cdf_file_mistakes_name_the_field(tmp_path: Path) -> None:
    def scenario_with(file: str) -> Path:
        path = tmp_path / "s.toml"
        path.write_text(
            f"""
            [topology]
            kind = "star"
            hosts = 4
            [[traffic]]
            size = {{ kind = "cdf", file = "{file}" }}
            arrival = {{ kind = "poisson", load = 0.1 }}
            """
        )
        return path

    with pytest.raises(ScenarioError) as e:
        load_scenario(scenario_with("missing.csv"))
    assert e.value.field == "traffic[0].size.file" and "does not exist" in e.value.reason
    (tmp_path / "bad.csv").write_text("bytes,cdf\n100,0.5\n200\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(scenario_with("bad.csv"))
    assert e.value.field == "traffic[0].size.file" and "line 3" in e.value.reason
    (tmp_path / "unsorted.csv").write_text("100,0.5\n50,1\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(scenario_with("unsorted.csv"))
    assert e.value.field == "traffic[0].size.points[1]" and "sorted" in e.value.reason
    (tmp_path / "short.csv").write_text("100,0.5\n200,0.9\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(scenario_with("short.csv"))
    assert e.value.field == "traffic[0].size.points[1][1]" and "must be 1" in e.value.reason


def test_traffic_builder() -> None:
    assert traffic(web_search(), load=0.3) == {
        "size": {"kind": "web_search"},
        "arrival": {"kind": "poisson", "load": 0.3},
        "destination": {"kind": "uniform"},
    }
    t = traffic(data_mining(), mean_interval_ms=2, sources=[0, 1], destination="in_rack", cc="dctcp")
    assert t["arrival"] == {"kind": "poisson", "mean_interval_ms": 2}
    assert t["sources"] == [0, 1] and t["destination"] == {"kind": "in_rack"} and t["cc"] == "dctcp"
    with pytest.raises(ValueError, match="exactly one"):
        traffic(web_search())
    validate(star(4) | {"traffic": [t]})


def _flows(rows: list[tuple[int, float, float, int]]) -> pd.DataFrame:
    """(size, fct, slowdown, timeouts) rows as a flows table."""
    return pd.DataFrame(
        {
            "size_bytes": [r[0] for r in rows],
            "fct_s": [r[1] for r in rows],
            "slowdown": [r[2] for r in rows],
            "timeouts": [r[3] for r in rows],
            "syn_retries": [0] * len(rows),
            "class": [0] * len(rows),
        }
    )


def test_fct_stats_by_hand() -> None:
    # Four 5-kB flows (1, 2, 3, 4 ms; one timed out), two 500-kB flows (10 ms, unfinished),
    # a long-lived flow (size 0) that takes no part.
    flows = _flows(
        [(5000, 1e-3, 1.0, 0), (5000, 2e-3, 2.0, 0), (5000, 3e-3, 3.0, 1), (5000, 4e-3, 4.0, 0),
         (500_000, 10e-3, 1.5, 0), (500_000, math.nan, math.nan, 2), (0, math.nan, math.nan, 0)]
    )  # fmt: skip
    t = fct_stats(flows).set_index("bucket")
    assert list(t.index) == ["0 B–10 kB", "100 kB–1 MB"]
    small = t.loc["0 B–10 kB"]
    assert (small.flows, small.finished, small.unfinished, small.biased, small.timeouts) == (4, 4, 0, False, 1)
    assert small.mean_fct_s == pytest.approx(2.5e-3)
    assert small.median_fct_s == pytest.approx(2.5e-3)
    # numpy's linear percentile of 1, 2, 3, 4 ms at 95%: 1 + 0.95·3 = 3.85 ms.
    assert small.p95_fct_s == pytest.approx(3.85e-3)
    assert small["p99.9_fct_s"] == pytest.approx(1e-3 + 0.999 * 3e-3)
    assert small.mean_slowdown == pytest.approx(2.5)
    big = t.loc["100 kB–1 MB"]
    # One of two unfinished: above the 10% that flags a bucket's statistics as biased.
    assert (big.flows, big.finished, big.unfinished, big.biased, big.timeouts) == (2, 1, 1, True, 1)
    assert big.mean_fct_s == pytest.approx(10e-3)
    # Other buckets.
    t = fct_stats(flows, buckets=(0, 4000, float("inf")))
    assert list(t.flows) == [6]
    assert list(t.biased) == [True]  # 1 of 6 unfinished: 17%


def test_a_bucket_is_flagged_above_a_tenth_unfinished() -> None:
    # 10 flows, 1 unfinished: exactly 10%, not flagged; 9 flows, 1 unfinished: 11%, flagged.
    ten = _flows([(5000, 1e-3, 1.0, 0)] * 9 + [(5000, math.nan, math.nan, 0)])
    assert list(fct_stats(ten).biased) == [False]
    nine = _flows([(5000, 1e-3, 1.0, 0)] * 8 + [(5000, math.nan, math.nan, 0)])
    assert list(fct_stats(nine).biased) == [True]


def test_timeouts_by_class_by_hand() -> None:
    flows = _flows([(1000, 1e-3, 1, 0), (1000, 1e-3, 1, 1), (1000, 1e-3, 1, 0), (0, 0, 0, 5)])
    flows.loc[2, "class"] = 1
    queries = pd.DataFrame({"timeouts": [0, 0, 1, 0]})
    t = timeouts_by_class(flows, queries)
    assert t.to_dict("list") == {
        "traffic": ["class 0", "class 1", "queries"],
        "count": [2, 1, 4],
        "with_timeouts": [1, 0, 1],
        "fraction": [0.5, 0.0, 0.25],
    }


@pytest.fixture(scope="module")
def generated() -> dcsim.Results:
    sc = star(6, rate_gbps=10.0, delay_us=2.0)
    sc["sim"] = {"duration_s": 0.02, "seed": 5}
    sc["traffic"] = [traffic(web_search(), load=0.4, sources=[1, 2, 3, 4, 5], destinations=[0, 1, 2], cc="dctcp")]
    sc["flows"] = [{"src": 5, "dst": 4, "bytes": 20000, "start_s": 0.001}]
    return dcsim.run(sc)


def test_generated_flows_in_the_results(generated: dcsim.Results) -> None:
    f = generated.flows
    gen = f[f.generator == 0]
    assert len(gen) > 10
    assert (gen.size_bytes > 0).all() and gen.dst.isin([0, 1, 2]).all() and (gen.src != gen.dst).all()
    assert (gen.cc == "dctcp").all()
    listed = f[f.generator.isna()]
    assert listed.size_bytes.tolist() == [20000]
    done = f[f.fct_s.notna()]
    assert np.allclose(done.fct_s, done.completion_s - done.start_s)
    assert np.allclose(done.slowdown, done.fct_s / done.ideal_fct_s)
    # An ideal time is what the flow takes alone: at least its bytes at 10 Gb/s plus an RTT.
    assert (done.ideal_fct_s > done.size_bytes * 8 / 10e9).all()


def test_summary_has_completion_times_per_bucket(generated: dcsim.Results) -> None:
    summary = generated.summary()
    buckets = [row["bucket"] for row in summary["fct"]]
    assert buckets and set(buckets) <= {"0 B–10 kB", "10 kB–100 kB", "100 kB–1 MB", "1 MB–10 MB", "10 MB–∞"}
    json.dumps(summary, allow_nan=False)
    assert sum(row["flows"] for row in summary["fct"]) == int((generated.flows.size_bytes > 0).sum())
    assert DCTCP_BUCKETS[3] == 1e6


def test_cli_runs_a_scenario_with_a_cdf_file(tmp_path: Path) -> None:
    example = ROOT / "scenarios" / "examples" / "web-search-fat-tree.toml"
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "dcsim", "run", str(example), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["fct"] and summary["flows"]
    flows = pd.read_csv(out / "flows.csv")
    # The short messages of the CSV file (50 kB to 1 MB) are generator 1's flows.
    short = flows[flows.generator == 1]
    assert len(short) > 10 and short.size_bytes.between(50_000, 1_000_000).all()


def test_fct_columns_name_every_statistic_fct_stats_gives() -> None:
    flows = _flows([(5000, 1e-3, 1.0, 0), (500_000, math.nan, math.nan, 0)])
    assert list(fct_stats(flows).columns) == ["bucket", *FCT_COLUMNS]
