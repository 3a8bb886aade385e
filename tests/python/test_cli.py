"""The `dcsim` command: its output contract and its handling of user errors."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

import dcsim
from conftest import SMALL_TOML
from dcsim import _core, experiments, reproduce
from dcsim.cli import main
from dcsim.experiments import Claim, Experiment, Metrics, Runs


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_user_error(result: Result, *mentions: str) -> None:
    """Exit 2, exactly one `error:` line on stderr mentioning each of `mentions`."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for mention in mentions:
        assert mention in lines[0]
    assert result.stdout == ""
    assert "Traceback" not in result.output


# --- dcsim list -------------------------------------------------------------------------


def test_list_prints_every_experiment_id() -> None:
    result = invoke("list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(experiments.EXPERIMENTS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


# --- dcsim run --------------------------------------------------------------------------

BAD_SCENARIOS = {
    "syntax": ("[sim\nseed = 1\n", ["line 1"]),
    "unknown-field": (
        SMALL_TOML.replace("[tcp]", "[tcp]\nrto_mini_ms = 10"),
        ["tcp", "rto_mini_ms"],
    ),
    "negative-rate": (
        SMALL_TOML.replace("hosts = 3", "hosts = 3\nlink = { rate_gbps = -1.0 }"),
        ["topology.link.rate_gbps"],
    ),
    "zero-buffer": (
        SMALL_TOML + "\n[switch.buffer]\nkind = 'per_port'\nlimit_packets = 0\n",
        ["switch.buffer.limit_packets"],
    ),
    "unknown-cc": (SMALL_TOML.replace('cc = "dctcp"', 'cc = "bbr"'), ["tcp.cc", "bbr"]),
    "no-such-host": (SMALL_TOML.replace("dst = 0", "dst = 5", 1), ["flows[0].dst", "host 5"]),
    "too-many-hosts": (SMALL_TOML.replace("hosts = 3", "hosts = 1000000000"), ["topology.hosts", "at most 1048576"]),
}


@pytest.mark.parametrize("name", BAD_SCENARIOS)
def test_run_rejects_bad_scenario_in_one_line(tmp_path: Path, name: str) -> None:
    text, mentions = BAD_SCENARIOS[name]
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    out = tmp_path / "out"
    result = invoke("run", path, "--out", out)
    assert_user_error(result, str(path), *mentions)
    assert not out.exists()


def test_run_names_every_problem_of_a_file_one_line_each(small_toml: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(small_toml.read_text().replace('cc = "dctcp"', 'cc = "bogus"').replace("duration_s = 0.02", "duration_s = -1"))
    out = tmp_path / "out"
    result = invoke("run", path, "--out", out)
    assert result.exit_code == 2 and result.stdout == "" and not out.exists()
    head, *problems = result.stderr.splitlines()
    assert head == f"error: {path}: 2 problems:"
    assert [p.split(":")[0] for p in problems] == ["  tcp.cc", "  sim.duration_s"]


def test_run_refused_by_memory_limit_flag_leaves_nothing(tmp_path: Path) -> None:
    # Refused by the engine (not by the file's validation): the file is still named, and the
    # output directory made for the run is gone again.
    # 2,000 hosts: about 14 MB, above 1 MB.
    path = tmp_path / "star.toml"
    path.write_text(SMALL_TOML.replace("hosts = 3", "hosts = 2000"))
    out = tmp_path / "out"
    result = invoke("run", path, "--out", out, "--memory-limit-gb", "0.001")
    assert_user_error(result, str(path), "topology: the run would need about", "above the limit of 1 MB")
    assert not out.exists()


def test_run_missing_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_user_error(invoke("run", tmp_path / "missing.toml", "--out", out), "missing.toml", "does not exist")
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "mention"),
    [(["run", "--bogus"], "--bogus"), (["run"], "SCENARIO"), (["frobnicate"], "frobnicate")],
)
def test_bad_command_line_in_one_line(args: list[str], mention: str) -> None:
    assert_user_error(invoke(*args), mention)


@pytest.mark.parametrize(
    ("args", "mention"),
    [
        (["reproduce", "--jobs", "0"], "x≥1"),
        (["run", "x.toml", "--memory-limit-gb", "0"], "0.001≤x≤1000000.0"),
        (["report", ".", "--port", "70000"], "0≤x≤65535"),
    ],
)
def test_ranges_are_written_as_every_other_message_writes_them(args: list[str], mention: str) -> None:
    result = invoke(*args)
    assert_user_error(result, mention)
    assert ">=" not in result.stderr and "<=" not in result.stderr


def test_run_writes_summary_and_tables(small_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("run", small_toml, "--out", out)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    for field in ("ports", "flows", "drops", "marks", "timeouts", "events", "wall_seconds"):
        assert field in summary
    assert len(summary["flows"]) == 2
    assert "queue_p99_packets" in summary["ports"][0]
    for table in ("flows", "ports", "queue_occupancy", "queue_samples", "flow_samples"):
        assert (out / f"{table}.csv").is_file()
    assert "s0->h0" in result.stdout


def test_run_records_every_value_it_ran_with(small_toml: Path, tmp_path: Path) -> None:
    # K left out on a 10 Gb/s star: the engine picks 65 packets (DCTCP paper §3.5), and the
    # summary says so, beside the defaults of every table.
    path = tmp_path / "ten.toml"
    path.write_text(small_toml.read_text().replace("k_packets = 20\n", "").replace("hosts = 3", "hosts = 3\nlink = { rate_gbps = 10 }"))
    out = tmp_path / "out"
    assert invoke("run", path, "--out", out, "-q").exit_code == 0
    parameters = json.loads((out / "summary.json").read_text())["parameters"]
    (switch_ports,) = [g for g in parameters["ports"] if g["switch"]]
    assert (switch_ports["aqm"]["k_packets"], switch_ports["rate_gbps"], switch_ports["ports"]) == (65, 10.0, 3)
    assert parameters["scenario"]["tcp"]["rto_min_ms"] > 0 and parameters["scenario"]["host"]["nic_queue_packets"] == 1000
    assert parameters["packet_bytes"] == parameters["segment_bytes"] + parameters["scenario"]["tcp"]["header_bytes"]
    assert sum(g["ports"] for g in parameters["ports"]) == 6
    # The Python API has the same record.
    assert dcsim.run(path).parameters == parameters


def test_run_writes_parquet_tables_with_the_csv_tables_values(small_toml: Path, tmp_path: Path) -> None:
    assert invoke("run", small_toml, "--out", tmp_path / "csv", "-q").exit_code == 0
    out = tmp_path / "parquet"
    result = invoke("run", small_toml, "--out", out, "-q", "--format", "parquet")
    assert result.exit_code == 0, result.output
    for name in ("flows", "ports", "queue_occupancy", "queue_samples", "udp"):
        assert not (out / f"{name}.csv").exists()
        parquet = pd.read_parquet(out / f"{name}.parquet")
        csv = pd.read_csv(tmp_path / "csv" / f"{name}.csv")
        assert list(parquet.columns) == list(csv.columns)
        pd.testing.assert_frame_equal(parquet, csv, check_dtype=False)
    # Written again as CSV into the same directory, no Parquet table of the earlier run is left.
    assert invoke("run", small_toml, "--out", out, "-q").exit_code == 0
    assert not list(out.glob("*.parquet")) and (out / "flows.csv").is_file()


def test_compare_puts_runs_side_by_side(small_toml: Path, tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "scenarios" / "examples" / "web-search-fat-tree.toml"
    runs = [tmp_path / "dctcp", tmp_path / "newreno"]
    assert invoke("run", example, "--out", runs[0], "-q").exit_code == 0
    assert invoke("run", example, "--out", runs[1], "-q", "--set", "tcp.cc=newreno", "--format", "parquet").exit_code == 0
    out = tmp_path / "cmp"
    result = invoke("compare", *runs, "--out", out)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["dctcp", "newreno"]
    summaries = [json.loads((r / "summary.json").read_text()) for r in runs]
    rows = {line[:27].strip(): line[27:].split() for line in lines[1:-1]}
    assert rows["transport"] == ["dctcp", "newreno"]
    assert rows["drops"] == [f"{s['drops']:,}" for s in summaries]
    assert rows["marks"] == [f"{s['marks']:,}" for s in summaries]
    for stem in ("fct_slowdown", "queue_cdf", "goodput"):
        assert (out / f"{stem}.png").stat().st_size > 0 and (out / f"{stem}.svg").is_file()
    headline = json.loads((out / "compare.json").read_text())["headline"]
    assert [h["drops"] for h in headline] == [s["drops"] for s in summaries]
    # A directory that holds no run is a user error, and nothing is written.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_user_error(invoke("compare", runs[0], empty, "--out", tmp_path / "cmp2"), "empty", "summary.json")
    assert not (tmp_path / "cmp2").exists()


def test_set_overrides_fields_and_is_recorded(small_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke(
        "run", small_toml, "--out", out, "--set", "tcp.cc=newreno", "--set", "switch.aqm.k_packets=40", "--set", "flows[1].cc=cubic"
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overrides"] == {"tcp.cc": "newreno", "switch.aqm.k_packets": 40, "flows[1].cc": "cubic"}
    assert [f["cc"] for f in summary["flows"]] == ["newreno", "cubic"]
    (switch_ports,) = [g for g in summary["parameters"]["ports"] if g["switch"]]
    assert switch_ports["aqm"]["k_packets"] == 40
    # The same run from a file that says so has the same results.
    edited = tmp_path / "edited.toml"
    text = small_toml.read_text().replace('cc = "dctcp"', 'cc = "newreno"').replace("k_packets = 20", "k_packets = 40")
    edited.write_text(text + 'cc = "cubic"\n')
    assert invoke("run", edited, "--out", tmp_path / "edited", "-q").exit_code == 0
    again = json.loads((tmp_path / "edited" / "summary.json").read_text())
    assert [f["goodput_bps"] for f in again["flows"]] == [f["goodput_bps"] for f in summary["flows"]]
    assert json.loads((tmp_path / "edited" / "summary.json").read_text())["overrides"] == {}


@pytest.mark.parametrize(
    ("value", "mentions"),
    [
        ("measure=5", ["--set", "measure", "invalid type"]),
        ("measure.trace_ports=5", ["--set", "measure.trace_ports", "sequence"]),
        ("sim=5", ["--set", "sim", "invalid type"]),
        ("foo.bar=1", ["--set", "foo", "unknown field"]),
        ("tcp.cc=bogus", ["--set", "tcp.cc", "bogus"]),
        ("sim.drain_s=5", ["--set", "sim.drain_s", "duration_s"]),
        ("flows[7].cc=dctcp", ["--set", "flows[7].cc", "no such element"]),
        ("tcp", ["--set", "KEY=VALUE"]),
        ("tcp.cc=", ["--set", "tcp.cc", "no value"]),
        ("9x=1", ["--set", "9x", "parameter path"]),
        ("switch.aqm={ kind = 'threshold', k_packets = -3 }", ["--set", "switch.aqm.k_packets", "≥ 0"]),
        ("tcp.cc.x=1", ["--set", "tcp.cc.x"]),
    ],
)
def test_a_bad_override_names_its_key_and_writes_nothing(small_toml: Path, tmp_path: Path, value: str, mentions: list[str]) -> None:
    out = tmp_path / "out"
    assert_user_error(invoke("run", small_toml, "--out", out, "--set", value), *mentions)
    assert not out.exists()


def test_a_value_of_the_wrong_type_in_the_file_is_one_line_before_any_flag_uses_it(small_toml: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(small_toml.read_text().replace("queue_sample_us = 500", "queue_sample_us = 500\ntrace_flows = 3"))
    assert_user_error(
        invoke("run", path, "--out", tmp_path / "out", "--memory-limit-gb", "2", "--check-invariants"), "bad.toml", "measure.trace_flows"
    )
    path.write_text(small_toml.read_text().replace("[sim]\nduration_s = 0.02", "sim = 5"))
    assert_user_error(invoke("run", path, "--out", tmp_path / "out", "--memory-limit-gb", "2"), "bad.toml", "sim")


def test_an_override_creating_a_table_is_the_overrides_mistake(tmp_path: Path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text('[topology]\nkind = "star"\nhosts = 3\n')
    assert_user_error(invoke("run", path, "--out", tmp_path / "out", "--set", "switch.aqm.k_packets=40"), "--set", "switch.aqm.kind")


def test_an_override_of_a_toml_date_is_recorded_as_its_text(small_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert invoke("run", small_toml, "--out", out, "-q", "--set", "name=2024-01-01").exit_code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overrides"] == {"name": "2024-01-01"} and summary["name"] == "2024-01-01"


def test_a_mistake_in_the_file_is_still_the_files(small_toml: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(small_toml.read_text().replace("k_packets = 20", "k_packets = -1"))
    result = invoke("run", path, "--out", tmp_path / "out", "--set", "tcp.cc=newreno")
    assert_user_error(result, "bad.toml", "switch.aqm.k_packets")
    assert "--set" not in result.stderr


def _web_search(tmp_path: Path, *overrides: str) -> tuple[Result, dict[str, Any]]:
    """The web-search fat-tree example, run with `overrides`: its screen and its summary."""
    example = Path(__file__).parents[2] / "scenarios" / "examples" / "web-search-fat-tree.toml"
    out = tmp_path / "-".join(["ws", *overrides]).replace("=", "_")
    result = invoke("run", example, "--out", out, *[a for o in overrides for a in ("--set", o)])
    assert result.exit_code == 0, result.output
    return result, json.loads((out / "summary.json").read_text())


def test_run_on_two_threads_gives_the_one_thread_results_and_says_how_it_ran(tmp_path: Path) -> None:
    one, summary_one = _web_search(tmp_path)
    two, summary_two = _web_search(tmp_path, "sim.threads=2")
    assert "threads    1 for 4 partitions, in windows of 1.06 µs" in one.stdout
    assert "threads    2 for 4 partitions" in two.stdout
    for key in ("flows", "ports", "fct", "events", "packet_hops", "conservation"):
        assert summary_one[key] == summary_two[key], key
    assert summary_two["parameters"]["parallel"] == {"partitions": 4, "threads": 2, "lookahead_us": pytest.approx(1.0624)}


def test_run_threads_flag_is_checked_and_a_network_it_cannot_cut_says_why(tmp_path: Path) -> None:
    path = tmp_path / "star.toml"
    path.write_text(SMALL_TOML)
    assert_user_error(invoke("run", path, "--out", tmp_path / "out", "--threads", "0"), "--threads", "1024")
    result = invoke("run", path, "--out", tmp_path / "out", "--threads", "auto")
    assert result.exit_code == 0, result.output
    assert "threads    1 of auto asked for: the network is not cut" in result.stdout


def test_run_prints_a_screen_of_overview_with_the_slowdown_by_size(tmp_path: Path) -> None:
    result, summary = _web_search(tmp_path)
    screen = result.stdout.splitlines()
    assert len(screen) <= 30, result.stdout
    assert screen[1].split() == [
        "network",
        "fat_tree",
        "(k",
        "=",
        "4):",
        "16",
        "hosts,",
        "20",
        "switches;",
        "links",
        "10",
        "Gb/s,",
        "1",
        "µs",
    ]
    sized = [f for f in summary["flows"] if f["size_bytes"]]
    finished = sum(f["completion_s"] is not None for f in sized)
    assert f"{len(sized)} of a set size: {finished} finished, {len(sized) - finished} unfinished at the end" in result.stdout
    # One row per bucket of the summary's table, each with its unfinished count, flagged
    # where over a tenth is unfinished.
    for bucket in summary["fct"]:
        (row,) = [line.strip().removeprefix(bucket["bucket"]).split() for line in screen if line.strip().startswith(bucket["bucket"])]
        assert [int(n) for n in row[:3]] == [bucket["flows"], bucket["finished"], bucket["unfinished"]]
        assert (row[3] == "!") == bucket["biased"]
        assert bucket["biased"] == (bucket["unfinished"] > 0.1 * bucket["flows"])
    assert any(b["biased"] for b in summary["fct"]) and "sim.drain_s" in result.stdout
    # Not the whole port table: the busiest switch ports.
    assert "the 8 busiest of 80 switch ports" in result.stdout
    # DCTCP: every packet is ECN-capable, so no packet is dropped for want of it.
    assert "without ECN were dropped" not in result.stdout


def test_run_points_at_packets_without_ecn_dropped_at_the_marking_threshold(tmp_path: Path) -> None:
    result, summary = _web_search(tmp_path, "tcp.cc=newreno")
    dropped = sum(min(p["drops_aqm"], p["drops_nonect"]) for p in summary["ports"] if p["is_switch"])
    assert dropped > 0
    (line,) = [line for line in result.stdout.splitlines() if "without ECN were dropped" in line]
    assert f"{dropped:,} packets" in line and 'switch.aqm.nonect = "enqueue"' in line
    # Queued instead, they are not dropped at K, and the line is gone.
    result, summary = _web_search(tmp_path, "tcp.cc=newreno", "switch.aqm.nonect=enqueue")
    assert sum(p["drops_aqm"] for p in summary["ports"]) == 0
    assert "without ECN were dropped" not in result.stdout


def test_a_drain_lets_the_flows_finish(tmp_path: Path) -> None:
    _, plain = _web_search(tmp_path)
    _, drained = _web_search(tmp_path, "sim.drain_s=0.005")
    unfinished = [sum(b["unfinished"] for b in s["fct"]) for s in (plain, drained)]
    assert unfinished[1] < unfinished[0] / 2, unfinished
    assert max(f["start_s"] for f in drained["flows"]) < 0.005


def test_a_large_network_samples_only_the_ports_its_data_crosses(tmp_path: Path) -> None:
    # The user: 1,000 hosts and one flow wrote a 194 MB queue_samples.csv when every
    # switch port was sampled. By default only the ports data crosses are: here s0->h0, one
    # sample a millisecond over 0.1 s (101 rows).
    path = tmp_path / "star.toml"
    path.write_text('[sim]\nduration_s = 0.1\n[topology]\nkind = "star"\nhosts = 1000\n[[flows]]\nsrc = 1\ndst = 0\n')
    out = tmp_path / "out"
    result = invoke("run", path, "--out", out, "-q")
    assert result.exit_code == 0, result.output
    samples = pd.read_csv(out / "queue_samples.csv")
    assert set(samples["port_name"]) == {"s0->h0"} and len(samples) == 101
    assert (out / "queue_samples.csv").stat().st_size < 10_000


def test_run_default_out_dir_is_named_after_the_scenario(small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert invoke("run", small_toml).exit_code == 0
    assert (tmp_path / "dcsim-out" / "small" / "summary.json").is_file()


def test_run_out_is_a_file(small_toml: Path, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("")
    assert_user_error(invoke("run", small_toml, "--out", out), "taken")


def test_entry_point_reports_user_error_without_traceback(tmp_path: Path) -> None:
    """The installed command, not just the click group, keeps the one-line contract."""
    result = subprocess.run(
        [sys.executable, "-m", "dcsim", "run", str(tmp_path / "missing.toml")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"error: {tmp_path / 'missing.toml'}: file does not exist"]
    assert not (tmp_path / "dcsim-out").exists()


# --- dcsim schema -----------------------------------------------------------------------


def test_schema_prints_the_engine_schema() -> None:
    result = invoke("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(_core.scenario_schema())


# --- dcsim reproduce --------------------------------------------------------------------


def fake_experiment(exp_id: str, holds: list[bool], fail: bool = False, calls: list[str] | None = None) -> Experiment:
    """A declared experiment without simulations whose analysis gives one table and whose
    claims hold as ``holds`` says (the first a paper claim, the others checks); it writes one
    plot and one CSV. ``fail``: its analysis raises. ``calls``: each analysis is recorded."""

    def analyze(runs: Runs) -> Metrics:
        if calls is not None:
            calls.append(exp_id)
        if fail:
            raise RuntimeError("engine exploded")
        table = {
            "title": f"Table of {exp_id}",
            "columns": ["n", "paper", "ours"],
            "rows": [[1, 4.01, np.float64(3.987654)], [2, None, 0.5]],
        }
        # Experiments compute with numpy: the summary must still be plain JSON.
        return Metrics(
            values={"scale": runs.scale, "measured": [np.float64(21.5 + i) for i in range(len(holds))]},
            tables={"queue": pd.DataFrame({"t_s": [0], "packets": [1]})},
            published=(table,),
        )

    def plot(m: Metrics) -> Any:
        from dcsim.experiments.plotting import figure

        fig, ax = figure()
        ax.plot([0, 1], [0, 1])
        return fig

    def claim(i: int, h: bool) -> Claim:
        return Claim(
            id=f"claim-{i}",
            kind="paper" if i == 0 else "check",
            text=f"claim {i}",
            paper="about 20",
            quote="about 20" if i == 0 else "",
            section="§1" if i == 0 else "",
            check=lambda m: (np.bool_(h), f"{m['measured'][i]:.1f}"),
        )

    return Experiment(
        id=exp_id,
        paper="dctcp",
        figure="Fig. 0",
        title=f"Title of {exp_id}",
        description=f"What {exp_id} shows",
        testbed="dctcp_testbed",
        scales={"quick": {}, "full": {}},
        scenarios=lambda p, tb: {},
        analyze=analyze,
        claims=tuple(claim(i, h) for i, h in enumerate(holds)),
        plots={"queue": plot},
    )


@pytest.fixture
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, Experiment]:
    registry = {
        "dctcp-fake-a": fake_experiment("dctcp-fake-a", [True, False]),
        "dctcp-fake-b": fake_experiment("dctcp-fake-b", [True]),
        "dctcp-fake-broken": fake_experiment("dctcp-fake-broken", [], fail=True),
    }
    monkeypatch.setattr(experiments, "EXPERIMENTS", registry)
    return registry


def test_reproduce_writes_summaries_and_report(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = invoke("reproduce", "dctcp-fake-a", "dctcp-fake-b", "--out", out, "--jobs", "3")
    assert result.exit_code == 0, result.output

    summary = json.loads((out / "dctcp-fake-a" / "summary.json").read_text())
    assert summary["id"] == "dctcp-fake-a"
    assert summary["title"] == "DCTCP Fig. 0: Title of dctcp-fake-a"
    assert summary["reproduces"] == "DCTCP Fig. 0"
    assert summary["testbed"] == "dctcp_testbed"
    assert summary["scale"] == "quick"
    assert summary["wall_seconds"] >= 0
    # Claims are judged on the metrics, failures included, each with its id and kind.
    assert [c["holds"] for c in summary["claims"]] == [True, False]
    assert summary["claims"][0] == {
        "id": "dctcp-fake-a/claim-0",
        "kind": "paper",
        "claim": "claim 0",
        "paper": "about 20",
        "quote": "about 20",
        "section": "§1",
        "measured": "21.5",
        "holds": True,
    }
    assert summary["claims"][1]["kind"] == "check"
    assert summary["metrics"] == {"scale": "quick", "measured": [21.5, 22.5], "files": ["queue.csv", "queue.png", "queue.svg"]}
    assert (out / "dctcp-fake-a" / "queue.csv").read_text() == "t_s,packets\n0,1\n"

    index = (out / "index.html").read_text()
    assert "Title of dctcp-fake-a" in index and "Title of dctcp-fake-b" in index
    assert '<img src="dctcp-fake-a/queue.png"' in index
    assert 'href="dctcp-fake-a/queue.svg"' in index and 'href="dctcp-fake-a/queue.csv"' in index
    assert "2 of 2 paper claims hold; 0 of 1 checks hold" in index
    assert "✗" in index and "✓" in index
    assert "dctcp-fake-broken" not in index
    # A published table, with the source's numbers beside ours.
    assert summary["tables"][0]["rows"][0] == [1, 4.01, 3.987654]
    assert "<caption>Table of dctcp-fake-a</caption>" in index
    assert "<td>4.01</td><td>3.988</td>" in index and "<td>–</td>" in index
    # No other testbed ran: no matrix.
    assert "Claims by testbed" not in index


def test_reproduce_on_other_testbeds_keeps_each_apart_and_adds_the_matrix(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = invoke("reproduce", "dctcp-fake-a", "--testbeds", "own,linux_current", "--out", out)
    assert result.exit_code == 0, result.output
    own = json.loads((out / "dctcp-fake-a" / "summary.json").read_text())
    other = json.loads((out / "dctcp-fake-a@linux_current" / "summary.json").read_text())
    assert (own["id"], own["testbed"]) == ("dctcp-fake-a", "dctcp_testbed")
    assert (other["id"], other["testbed"]) == ("dctcp-fake-a", "linux_current")
    index = (out / "index.html").read_text()
    assert "Claims by testbed" in index
    matrix = index[index.index("Claims by testbed") :]
    heads = re.findall(r'<th title="scale quick"><a href="#([^"]+)">([^<]+)</a></th>', matrix)
    assert heads == [("dctcp-fake-a", "dctcp_testbed"), ("dctcp-fake-a@linux_current", "linux_current")]
    assert "dctcp-fake-a/claim-1" in matrix
    # The run on the other testbed has a section of its own.
    assert '<section id="dctcp-fake-a@linux_current">' in index
    # The headline counts each experiment once, on its own testbed.
    assert "1 of 1 paper claims hold; 0 of 1 checks hold" in index
    # --testbed runs only the one named; naming an experiment's own testbed twice runs it once.
    assert invoke("reproduce", "dctcp-fake-b", "--testbed", "ns2", "--out", out).exit_code == 0
    assert (out / "dctcp-fake-b@ns2" / "summary.json").is_file() and not (out / "dctcp-fake-b").exists()
    twice = invoke("reproduce", "dctcp-fake-b", "--testbeds", "own,dctcp_testbed", "--out", out, "--force")
    assert twice.exit_code == 0 and "[1/1] dctcp-fake-b: done" in twice.stdout, twice.stdout


@pytest.mark.parametrize(
    "flags, mentions",
    [
        (["--testbed", "nope"], ["--testbed", "'nope'", "dctcp_testbed", "linux_current"]),
        (["--testbeds", "own,nope"], ["--testbeds", "'nope'"]),
        (["--testbed", "ns2", "--testbeds", "own"], ["--testbed and --testbeds"]),
    ],
)
def test_reproduce_bad_testbed_is_a_user_error(fake_registry: dict, tmp_path: Path, flags: list[str], mentions: list[str]) -> None:
    out = tmp_path / "results"
    assert_user_error(invoke("reproduce", "dctcp-fake-a", *flags, "--out", out), *mentions)
    assert not out.exists()


def test_list_testbeds_names_each_with_what_it_is() -> None:
    result = invoke("list", "--testbeds")
    assert result.exit_code == 0
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == list(experiments.TESTBEDS)
    assert {"dctcp_testbed", "ictcp_testbed", "cs244_ns2", "judd_testbed", "linux_current"} <= set(names)


def test_reproduce_reports_a_broken_experiment_and_goes_on(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = invoke("reproduce", "--out", out, "--scale", "full")
    assert result.exit_code == 1
    assert "engine exploded" in result.stderr
    assert (out / "dctcp-fake-b" / "summary.json").is_file()
    assert not (out / "dctcp-fake-broken" / "summary.json").exists()
    index = (out / "index.html").read_text()
    assert "Failed to run: RuntimeError: engine exploded" in index
    assert json.loads((out / "dctcp-fake-a" / "summary.json").read_text())["scale"] == "full"


def test_reproduce_with_workers_reports_an_experiment_whose_plan_fails_and_goes_on(
    fake_registry: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its runs are planned ahead of every experiment's: the plan's error is still this
    # experiment's alone.
    def no_plan(p: Any, tb: Any) -> dict:
        raise RuntimeError("no plan")

    fake_registry["dctcp-fake-broken"] = dataclasses.replace(fake_registry["dctcp-fake-broken"], scenarios=no_plan)
    out = tmp_path / "results"
    result = invoke("reproduce", "--out", out, "--jobs", "2")
    assert result.exit_code == 1
    assert "RuntimeError: no plan" in (out / "index.html").read_text()
    assert (out / "dctcp-fake-a" / "summary.json").is_file() and (out / "dctcp-fake-b" / "summary.json").is_file()


def test_report_keeps_earlier_results_in_the_directory(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    assert invoke("reproduce", "dctcp-fake-a", "--out", out).exit_code == 0
    assert invoke("reproduce", "dctcp-fake-b", "--out", out).exit_code == 0
    index = (out / "index.html").read_text()
    assert "Title of dctcp-fake-a" in index and "Title of dctcp-fake-b" in index


def test_reproduce_unknown_id_lists_the_valid_ones(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = invoke("reproduce", "dctcp-fake-a", "nope", "--out", out)
    assert_user_error(result, "nope", "dctcp-fake-a, dctcp-fake-b, dctcp-fake-broken")
    assert not out.exists()


@pytest.mark.parametrize(("flag", "value"), [("--scale", "huge"), ("--jobs", "0")])
def test_reproduce_bad_option(fake_registry: dict, tmp_path: Path, flag: str, value: str) -> None:
    out = tmp_path / "results"
    assert_user_error(invoke("reproduce", flag, value, "--out", out), flag)
    assert not out.exists()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[list[str], Path]:
    """A registry of one experiment that records each run: (its calls, an output dir)."""
    calls: list[str] = []
    monkeypatch.setattr(experiments, "EXPERIMENTS", {"dctcp-fake-c": fake_experiment("dctcp-fake-c", [True], calls=calls)})
    return calls, tmp_path / "results"


def test_reproduce_keeps_unchanged_experiments_and_force_reruns(counted: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    calls, out = counted
    assert invoke("reproduce", "--out", out).exit_code == 0
    first = json.loads((out / "dctcp-fake-c" / "summary.json").read_text())
    assert first["cache_key"] and first["engine"].startswith(_core.__version__)
    result = invoke("reproduce", "--out", out)
    assert result.exit_code == 0 and calls == ["dctcp-fake-c"]
    assert "unchanged since its last run, kept" in result.stdout
    # A different scale, changed experiment code, or --force: run again.
    assert invoke("reproduce", "--out", out, "--scale", "full").exit_code == 0
    monkeypatch.setattr(reproduce, "_package_digest", lambda: "changed code")
    assert invoke("reproduce", "--out", out, "--scale", "full").exit_code == 0
    assert invoke("reproduce", "--out", out, "--scale", "full", "--force").exit_code == 0
    assert calls == ["dctcp-fake-c"] * 4
    # Another testbed is another result: run it, and keep the first.
    assert invoke("reproduce", "--out", out, "--scale", "full", "--testbed", "ns2").exit_code == 0
    assert calls == ["dctcp-fake-c"] * 5


def test_ctrl_c_keeps_finished_results_and_leaves_nothing_half_written(
    fake_registry: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    assert invoke("reproduce", "dctcp-fake-a", "--out", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in (out / "dctcp-fake-a").iterdir()}
    drawn = fake_registry["dctcp-fake-a"].plots["queue"]

    def interrupted(m: Metrics) -> Any:
        drawn(m)  # the plot is written: the table beside it is already on disk
        raise KeyboardInterrupt

    monkeypatch.setitem(fake_registry["dctcp-fake-a"].plots, "queue", interrupted)  # type: ignore[arg-type]
    result = invoke("reproduce", "dctcp-fake-b", "dctcp-fake-a", "--out", out, "--force")
    assert result.exit_code == 130
    assert "interrupted" in result.stderr
    # fake-b finished before the interrupt; fake-a keeps its earlier results, byte for byte.
    assert (out / "dctcp-fake-b" / "summary.json").is_file()
    assert {p.name: p.read_bytes() for p in (out / "dctcp-fake-a").iterdir()} == before
    assert not [p for p in out.rglob("*") if p.name.endswith((".partial", ".tmp", ".old"))]
    index = (out / "index.html").read_text()
    assert "Title of dctcp-fake-a" in index and "Title of dctcp-fake-b" in index


def test_quiet_reproduce_prints_only_the_report_path(fake_registry: dict, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = invoke("reproduce", "dctcp-fake-a", "--out", out, "--quiet")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.strip() == f"report: {out / 'index.html'}"


def test_reproduce_ends_with_a_summary_table(fake_registry: dict, tmp_path: Path) -> None:
    result = invoke("reproduce", "dctcp-fake-a", "dctcp-fake-b", "--out", tmp_path / "results")
    # On stdout, so that `> log` keeps it; not wrapped at 80 columns when not on a terminal.
    table = result.stdout[result.stdout.index("dcsim reproduce") :]
    # Failing claims first: fake-a (a check fails) before fake-b (all hold).
    assert table.index("dctcp-fake-a ") < table.index("dctcp-fake-b ")
    assert "0 / 1" in table and "1 / 1" in table
    assert "paper claims holding" in table and "checks holding" in table
    assert "done in" in result.stdout and "1 of 1 paper claims hold, 0 of 1 checks" in result.stdout


def test_reports_into_a_file_or_pipe_are_not_wrapped_at_80_columns(capsys: pytest.CaptureFixture) -> None:
    from dcsim.executor import report_console

    assert not sys.stdout.isatty()
    assert report_console().width == 200


def test_report_rebuilds_the_page_without_running(fake_registry: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "results"
    assert invoke("reproduce", "dctcp-fake-a", "dctcp-fake-b", "--out", out).exit_code == 0
    (out / "index.html").unlink()

    def must_not_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("report reran an experiment")

    monkeypatch.setattr(experiments.runner, "run", must_not_run)
    result = invoke("report", out)
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text()
    assert "2 of 2 paper claims hold; 0 of 1 checks hold" in index and "Claims that do not hold" in index


def test_report_of_a_missing_directory_is_a_user_error(tmp_path: Path) -> None:
    assert_user_error(invoke("report", tmp_path / "nope"), "nope")


def test_report_of_a_directory_without_results_is_a_user_error(tmp_path: Path) -> None:
    assert_user_error(invoke("report", tmp_path), str(tmp_path), "no experiment results")
    assert not (tmp_path / "index.html").exists()


def test_a_kept_experiment_missing_a_file_runs_again(counted: tuple) -> None:
    calls, out = counted
    assert invoke("reproduce", "--out", out).exit_code == 0
    (out / "dctcp-fake-c" / "queue.png").unlink()
    assert invoke("reproduce", "--out", out).exit_code == 0
    assert calls == ["dctcp-fake-c", "dctcp-fake-c"] and (out / "dctcp-fake-c" / "queue.png").is_file()


def test_report_serve_answers_on_localhost(tmp_path: Path) -> None:
    import urllib.request

    (tmp_path / "fake-a").mkdir()
    (tmp_path / "fake-a" / "summary.json").write_text(
        json.dumps({"id": "fake-a", "title": "x", "scale": "quick", "wall_seconds": 0, "claims": []})
    )
    code = "from dcsim.cli import main; main()"
    args = [sys.executable, "-c", code, "report", str(tmp_path), "--serve", "--port", "0"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("report: ")
        line = proc.stdout.readline()
        url = line.split(" at ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "index.html", timeout=10) as page:
            assert page.status == 200 and b"fake-a" in page.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_report_serve_on_a_port_in_use_is_a_user_error(tmp_path: Path) -> None:
    import socket

    (tmp_path / "fake-a").mkdir()
    (tmp_path / "fake-a" / "summary.json").write_text(json.dumps({"id": "fake-a", "claims": []}))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_user_error(invoke("report", tmp_path, "--serve", "--port", port), f"--port {port}")
    assert not (tmp_path / "index.html").exists(), "nothing written"


@pytest.mark.parametrize(
    "content, reason",
    [
        ("[]", "expected a JSON object"),
        ('{"claims": "abc"}', "'claims' must be a list"),
        ('{"claims": [], "seeds": 5}', "'seeds' must be a list"),
        ('{"claims": [], "wall_seconds": "soon"}', "'wall_seconds' must be a number"),
        ("{not json", "unreadable summary.json"),
    ],
)
def test_report_shows_a_summary_of_the_wrong_shape_as_unreadable(tmp_path: Path, content: str, reason: str) -> None:
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "summary.json").write_text(content)
    result = invoke("report", tmp_path)
    assert result.exit_code == 0, result.output
    page = (tmp_path / "index.html").read_text()
    assert "unreadable summary.json" in page and escape(reason) in page


def on_a_terminal(args: list[str], cwd: Path) -> str:
    """Run the `dcsim` command with stdout and stderr on a pseudo-terminal, as a user sees
    it; everything it wrote there."""
    import os
    import pty

    master, slave = pty.openpty()
    cmd = [sys.executable, "-c", "from dcsim.cli import main; main()", *args]
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=300) == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize("command", ["run", "reproduce", "sweep"])
def test_a_terminal_shows_a_progress_bar_with_the_time_left(tmp_path: Path, command: str) -> None:
    import dcsim.sweep  # noqa: F401 (the module, which `dcsim.sweep` the function hides)
    from test_sweep import PLAN, write_plan

    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL_TOML.replace("duration_s = 0.02", "duration_s = 2.0"))
    target = {
        "run": ["run", str(scenario)],
        "reproduce": ["reproduce", "dctcp-fig1", "--jobs", "1"],
        "sweep": ["sweep", str(write_plan(tmp_path / "plan.toml", PLAN)), "--jobs", "1"],
    }[command]
    screen = on_a_terminal([*target, "--out", "shown"], tmp_path)
    assert "eta" in screen and "━" in screen, screen[-2000:]
    # With --quiet the same command shows no bar.
    quiet = on_a_terminal([*target, "--out", "quiet", "--quiet"], tmp_path)
    assert "eta" not in quiet and "━" not in quiet


def test_ctrl_c_in_run_keeps_the_previous_results_whole(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "out"
    short = tmp_path / "short.toml"
    short.write_text(SMALL_TOML)
    assert invoke("run", short, "--out", out, "--trace-flows", "1", "--trace", "csv").exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    # The same scenario for 300 s simulated, tracing a port: far from done after a second.
    long = tmp_path / "long.toml"
    long.write_text(SMALL_TOML.replace("duration_s = 0.02", "duration_s = 300.0"))
    cmd = [sys.executable, "-c", "from dcsim.cli import main; main()", "run", str(long)]
    # Ctrl-C as from a terminal: under a shell's background job SIGINT starts out ignored,
    # and a Python that inherits that keeps ignoring it.
    proc = subprocess.Popen(
        [*cmd, "--out", str(out), "--trace-ports", "s0->h0"],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Well into the run (a loaded machine can take seconds to start Python), far from its end.
    time.sleep(5.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.strip().endswith("error: interrupted"), err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before, "the earlier run's files as they were"


def test_ctrl_c_in_reproduce_stops_the_runs_started_ahead(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "out"
    # Fig. 24's ten benchmark runs take tens of seconds: the workers are busy with them.
    cmd = [sys.executable, "-c", "from dcsim.cli import main; main()", "reproduce", "dctcp-fig24", "--jobs", "2"]
    proc = subprocess.Popen(
        [*cmd, "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the workers are in it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Once the experiment has begun (its runs are started by then), however slowly this
    # machine started Python.
    deadline = time.monotonic() + 120
    while not (out / ".dctcp-fig24.partial").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.strip().endswith("error: interrupted"), err
    assert not list(out.glob(".*.partial")), "no half-written experiment"
    # Stopped with its runs, not after them: of the ten, those done by then are cached.
    assert len(list(out.glob(".cache/*/*.pkl.gz"))) < 10
    time.sleep(1.0)
    with pytest.raises(ProcessLookupError):  # no worker outlived it
        os.killpg(proc.pid, 0)


# --- output directories that cannot be written to -------------------------------------------


def _unwritable(path: Path) -> bool:
    try:
        (path / ".probe").touch()
    except OSError:
        return True
    (path / ".probe").unlink()
    return False


@pytest.fixture(params=["read-only", "sysfs"])
def unwritable_dir(request: pytest.FixtureRequest, tmp_path: Path):
    """An existing directory no file can be created in: one without write permission (which
    root ignores, so then skipped), and sysfs's root, which refuses even root."""
    if request.param == "read-only":
        path = tmp_path / "read-only"
        path.mkdir()
        path.chmod(0o555)
        if not _unwritable(path):
            path.chmod(0o755)
            pytest.skip("this user writes in read-only directories (root)")
        yield path
        path.chmod(0o755)
    else:
        path = Path("/sys")
        if not path.is_dir() or not _unwritable(path):
            pytest.skip("no sysfs here")
        yield path


def test_run_into_an_unwritable_directory_fails_before_simulating(
    small_toml: Path, unwritable_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("simulated before checking the output directory")

    monkeypatch.setattr("dcsim.cli._run_with_progress", must_not_run)
    assert_user_error(invoke("run", small_toml, "--out", unwritable_dir), str(unwritable_dir), "cannot write")


def test_reproduce_into_an_unwritable_directory_fails_before_running(counted: tuple, unwritable_dir: Path) -> None:
    calls = counted[0]
    result = invoke("reproduce", "--out", unwritable_dir, "--force", "-q")
    assert_user_error(result, str(unwritable_dir), "cannot write")
    assert calls == []


def test_sweep_into_an_unwritable_directory_fails_before_running(
    tmp_path: Path, unwritable_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dcsim.sweep  # noqa: F401 (the module, which `dcsim.sweep` the function hides)
    from test_sweep import PLAN, write_plan

    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("swept before checking the output directory")

    monkeypatch.setattr(sys.modules["dcsim.sweep"], "sweep", must_not_run)
    plan = write_plan(tmp_path / "plan.toml", PLAN)
    result = invoke("sweep", plan, "--out", unwritable_dir, "--force")
    assert_user_error(result, str(unwritable_dir), "cannot write")


def test_report_into_an_unwritable_directory_is_a_user_error(fake_registry: dict, tmp_path: Path, unwritable_dir: Path) -> None:
    if unwritable_dir == Path("/sys"):
        pytest.skip("sysfs holds no results to report on")
    results = tmp_path / "results"
    invoke("reproduce", "--out", results, "-q")  # one fake experiment fails on purpose
    assert any(results.glob("*/summary.json"))
    unwritable_dir.chmod(0o755)
    for item in results.iterdir():
        item.rename(unwritable_dir / item.name)
    unwritable_dir.chmod(0o555)
    assert_user_error(invoke("report", unwritable_dir), str(unwritable_dir), "cannot write")


def test_help_gives_each_command_a_whole_sentence() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    commands = result.stdout[result.stdout.index("Commands:") :].splitlines()[1:]
    described: dict[str, str] = {}
    for line in commands:
        name, _, text = line.strip().partition(" ")
        if line.startswith("  ") and not line.startswith("    "):
            described[name] = text.strip()
        elif line.strip():
            described[list(described)[-1]] += " " + line.strip()
    assert set(described) == set(main.commands)
    for name, text in described.items():
        assert text.endswith(".") and "..." not in text, f"{name}: {text!r}"


def test_run_with_invariant_checks_gives_the_same_results(small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain, checked = tmp_path / "plain", tmp_path / "checked"
    with monkeypatch.context() as unchecked:
        # The tests check invariants in every run (conftest.py): this one runs without.
        unchecked.setattr(_core, "run", _core.run.unchecked)
        assert invoke("run", small_toml, "--out", plain, "-q").exit_code == 0
    result = invoke("run", small_toml, "--out", checked, "-q", "--check-invariants")
    assert result.exit_code == 0, result.output
    a, b = (json.loads((d / "summary.json").read_text()) for d in (plain, checked))
    for summary in (a, b):
        summary.pop("wall_seconds")
        summary["parameters"]["scenario"]["sim"].pop("check_invariants")
    assert a == b
    assert (plain / "flows.csv").read_text() == (checked / "flows.csv").read_text()


def test_an_engine_panic_is_reported_as_a_bug_in_one_line(small_toml: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class PanicException(BaseException):  # what pyo3 raises for a Rust panic
        pass

    def panics(*_: object, **__: object) -> None:
        raise PanicException("invariant violated at t = 5 ps, after event 3: port s0->h0: ...")

    monkeypatch.setattr("dcsim.cli._run_with_progress", panics)
    result = invoke("run", small_toml, "--out", tmp_path / "o", "--check-invariants")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: engine bug: invariant violated") and "report it" in line


def _screen(tmp_path: Path, path: Path, *args: str) -> tuple[list[str], dict[str, Any]]:
    out = tmp_path / f"o{len(list(tmp_path.iterdir()))}"
    result = invoke("run", path, "--out", out, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), json.loads((out / "summary.json").read_text())


EXAMPLES = Path(__file__).parents[2] / "scenarios" / "examples"


def test_the_overview_describes_class_queues_and_their_drops_of_packets_without_ecn(tmp_path: Path) -> None:
    screen, summary = _screen(tmp_path, EXAMPLES / "dctcp-tcp-classes.toml", "--set", "switch.classes.classify.not_ect=0")
    (queues,) = [line for line in screen if line.strip().startswith("queues")]
    assert "2 class queues per port" in queues and "class 0: ECN marking above K = 20" in queues and "class 1: drop-tail" in queues
    dropped = sum(min(p["drops_aqm"], p["drops_nonect"]) for p in summary["ports"] if p["is_switch"])
    (note,) = [line for line in screen if "without ECN were dropped" in line]
    assert dropped > 0 and note.strip().startswith(f"! {dropped:,} packets") and "switch.classes.queues[i].aqm.nonect" in note


def test_the_overview_names_red_drops_of_packets_without_ecn_as_a_bound(tmp_path: Path) -> None:
    red = "switch.aqm={ kind = 'red', min_th = 10, max_th = 30 }"
    screen, summary = _screen(tmp_path, EXAMPLES / "dctcp-2flows.toml", "--set", "tcp.cc=newreno", "--set", red)
    dropped = sum(min(p["drops_aqm"], p["drops_nonect"]) for p in summary["ports"] if p["is_switch"])
    (note,) = [line for line in screen if "without ECN were dropped" in line]
    assert dropped > 0 and note.strip().startswith(f"! up to {dropped:,} packets")


def test_the_overview_of_a_run_without_flows_and_with_many_udp_sources_stays_short(tmp_path: Path) -> None:
    path = tmp_path / "udp.toml"
    udp = "".join(f"[[udp]]\nsrc = {h}\ndst = 0\nrate_gbps = 0.01\n" for h in range(1, 40))
    path.write_text(f'[sim]\nduration_s = 0.01\n[topology]\nkind = "star"\nhosts = 40\n{udp}')
    screen, summary = _screen(tmp_path, path)
    assert len(screen) <= 30
    assert any(line.strip() == "flows      0 started; goodput 0 b/s in all" for line in screen)
    (line,) = [line for line in screen if line.strip().startswith("udp")]
    sent = sum(u["sent_packets"] for u in summary["udp"])
    assert f"39 sources: {sent:,} packets sent" in line


def test_compare_plots_every_bucket_any_run_has_whatever_the_order(tmp_path: Path) -> None:
    example = EXAMPLES / "web-search-fat-tree.toml"
    short, full = tmp_path / "short", tmp_path / "full"
    assert invoke("run", example, "--out", short, "-q", "--set", "sim.duration_s=0.0005").exit_code == 0
    assert invoke("run", example, "--out", full, "-q").exit_code == 0
    from dcsim import compare

    summaries = [compare.load(d) for d in (short, full)]
    assert len(summaries[0].get("fct") or []) < len(summaries[1]["fct"])
    (tmp_path / "cmp").mkdir()
    for order in ((short, full), (full, short)):
        files, left_out = compare.plots(["a", "b"], [compare.load(d) for d in order], list(order), tmp_path / "cmp")
        assert "fct_slowdown.png" in files and not left_out
    two = tmp_path / "two"
    assert invoke("run", EXAMPLES / "dctcp-2flows.toml", "--out", two, "-q").exit_code == 0
    result = invoke("compare", two, full, "--out", tmp_path / "cmp2")
    assert result.exit_code == 0, result.output
    assert "no queue_cdf: the runs have no switch port in common" in result.stdout
    assert (tmp_path / "cmp2" / "fct_slowdown.png").is_file()
