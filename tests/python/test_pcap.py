"""`dcsim run --trace pcap`: standard pcap files that tshark (Debian's package, installed by
`make test-tools`) reads back with the simulated packets' ECN marks and TCP sequence."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from conftest import SMALL_TOML
from dcsim.cli import main

TSHARK = shutil.which("tshark")


def tshark(path: Path, *fields: str, display_filter: str = "") -> pd.DataFrame:
    if not TSHARK:
        pytest.fail("tshark is needed: run `make test-tools`")
    args = [TSHARK, "-r", str(path), "-T", "fields", "-E", "separator=,", "-E", "header=y"]
    if display_filter:
        args += ["-Y", display_filter]
    for field in fields:
        args += ["-e", field]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    from io import StringIO

    return pd.read_csv(StringIO(out))


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small DCTCP scenario (two flows into h0, K = 20) with the bottleneck port and
    flow 0 traced."""
    tmp = tmp_path_factory.mktemp("trace")
    scenario = tmp / "small.toml"
    scenario.write_text(SMALL_TOML)
    out = tmp / "out"
    args = ["run", str(scenario), "--out", str(out), "--trace", "pcap", "--trace", "csv"]
    result = CliRunner().invoke(main, [*args, "--trace-ports", "s0->h0", "--trace-flows", "0"])
    assert result.exit_code == 0, result.output
    return out


def test_tshark_reads_the_ports_packets_with_their_ce_marks(traced: Path) -> None:
    trace = pd.read_csv(traced / "trace.csv")
    port = trace[(trace.view == "port") & (trace.port_name == "s0->h0") & (trace.event == "tx")]
    ports = pd.read_csv(traced / "ports.csv").set_index("name")
    seen = tshark(
        traced / "port-s0-to-h0.pcap",
        "frame.time_epoch",
        "ip.dsfield.ecn",
        "tcp.srcport",
        "tcp.seq_raw",
        "tcp.len",
    )
    assert len(seen) == len(port) > 0
    # The ECN field as the port sent it: every CE mark the port made, and nothing else CE.
    assert (seen["ip.dsfield.ecn"] == 3).sum() == ports.loc["s0->h0", "marks"] > 0
    assert (seen["ip.dsfield.ecn"].to_numpy() == port.ecn.to_numpy()).all()
    # Sequence numbers and payload lengths as simulated, at nanosecond timestamps.
    assert (seen["tcp.seq_raw"].to_numpy() == port.seq.to_numpy() % 2**32).all()
    assert (seen["tcp.len"].to_numpy() == port.len.to_numpy()).all()
    assert (abs(seen["frame.time_epoch"].to_numpy() - port.t_s.to_numpy()) < 1e-9).all()


def test_tshark_follows_flow_0_at_its_sender(traced: Path) -> None:
    seen = tshark(
        traced / "flow-0.pcap",
        "ip.src",
        "tcp.flags.syn",
        "tcp.flags.ece",
        "tcp.flags.cwr",
        "tcp.seq",
        "tcp.nxtseq",
        "tcp.window_size",
    )
    sender = seen[seen["ip.src"] == "10.0.0.2"]  # host 1
    acks = seen[seen["ip.src"] == "10.0.0.1"]  # host 0, the receiver
    assert len(sender) > 100 and len(acks) > 10
    # tshark's relative sequence numbers: the data is one contiguous byte stream from 1.
    data = sender[sender["tcp.flags.syn"] == 0]
    assert data["tcp.seq"].iloc[0] == 1
    # DCTCP: the receiver echoes CE with ECE, the sender answers with CWR (RFC 3168).
    assert (acks["tcp.flags.ece"] == 1).any()
    assert (data["tcp.flags.cwr"] == 1).any()
    # Window scaling from the SYN is applied: the receiver's 8 MB buffer, not 65535.
    assert acks["tcp.window_size"].max() > 65535


def test_trace_needs_something_to_trace(tmp_path: Path) -> None:
    scenario = tmp_path / "small.toml"
    scenario.write_text(SMALL_TOML)
    result = CliRunner().invoke(main, ["run", str(scenario), "--trace", "pcap"])
    assert result.exit_code == 2
    assert "--trace-ports or --trace-flows" in result.stderr


@pytest.mark.parametrize(
    ("flag", "value", "mention"),
    [
        # Names given on the command line are blamed on the option, not the scenario file.
        ("--trace-ports", "s0->h9", '--trace-ports: no port named "s0->h9"'),
        ("--trace-ports", ",", "--trace-ports: no port names"),
        ("--trace-flows", "7", "--trace-flows: flow 7 does not exist"),
        ("--trace-flows", "x", "--trace-flows"),
    ],
)
def test_bad_trace_targets_are_user_errors(tmp_path: Path, flag: str, value: str, mention: str) -> None:
    scenario = tmp_path / "small.toml"
    scenario.write_text(SMALL_TOML)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(scenario), "--out", str(out), flag, value])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and mention in line
    assert not out.exists()


def test_repeated_trace_options_add_up_and_scenario_traces_default_to_pcap(tmp_path: Path) -> None:
    scenario = tmp_path / "small.toml"
    scenario.write_text(SMALL_TOML)
    out = tmp_path / "flags"
    args = ["run", str(scenario), "--out", str(out), "--trace-ports", "s0->h0", "--trace-ports", "s0->h1"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert sorted(p.name for p in out.glob("*.pcap")) == ["port-s0-to-h0.pcap", "port-s0-to-h1.pcap"]
    # Traces named in the scenario itself: pcap too, unless --trace csv.
    scenario.write_text(SMALL_TOML.replace("[measure]", "[measure]\ntrace_flows = [1]"))
    out = tmp_path / "scenario"
    assert CliRunner().invoke(main, ["run", str(scenario), "--out", str(out)]).exit_code == 0
    assert [p.name for p in out.glob("flow-*.pcap")] == ["flow-1.pcap"] and not (out / "trace.csv").exists()
    out = tmp_path / "csv"
    assert CliRunner().invoke(main, ["run", str(scenario), "--out", str(out), "--trace", "csv"]).exit_code == 0
    assert (out / "trace.csv").is_file() and not list(out.glob("*.pcap"))


def test_a_traced_query_workload_is_one_pcap_seen_at_its_servers(tmp_path: Path) -> None:
    # h0 asks h1..h3 for 3,000 B five times, over persistent connections: queries-0.pcap holds
    # each server's responses (3 × 5 × 3,000 B from port 5001) and what it received.
    scenario = tmp_path / "queries.toml"
    scenario.write_text(
        """
        [sim]
        duration_s = 0.02
        [topology]
        kind = "star"
        hosts = 4
        [[queries]]
        client = 0
        servers = [1, 2, 3]
        response_bytes = 3000
        rounds = 5
        start_s = 0.001
        [measure]
        trace_queries = [0]
        """
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(scenario), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.glob("*.pcap")] == ["queries-0.pcap"]
    seen = tshark(out / "queries-0.pcap", "ip.src", "tcp.srcport", "tcp.len")
    responses = seen[seen["tcp.srcport"] == 5001]
    assert set(responses["ip.src"]) == {"10.0.0.2", "10.0.0.3", "10.0.0.4"}
    assert responses["tcp.len"].sum() == 3 * 5 * 3000


def test_udp_datagrams_and_their_echoes_are_udp_frames(tmp_path: Path) -> None:
    """A port carrying a UDP source's datagrams and a TCP flow: tshark reads the datagrams as
    UDP with their lengths, and the echoes back the other way."""
    scenario = tmp_path / "udp.toml"
    scenario.write_text(SMALL_TOML + "\n[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 0.01\npacket_bytes = 100\necho = true\n")
    out = tmp_path / "out"
    args = ["run", str(scenario), "--out", str(out), "--trace", "pcap", "--trace", "csv"]
    result = CliRunner().invoke(main, [*args, "--trace-ports", "s0->h0", "--trace-ports", "s0->h1"])
    assert result.exit_code == 0, result.output
    udp = pd.read_csv(out / "udp.csv")
    forward = tshark(out / "port-s0-to-h0.pcap", "udp.length", "udp.srcport", display_filter="udp")
    back = tshark(out / "port-s0-to-h1.pcap", "udp.length", "udp.dstport", display_filter="udp")
    assert len(forward) == udp.received_packets[0] > 0
    assert (forward["udp.length"] == 100 - 20).all() and (forward["udp.srcport"] == 49152).all()
    assert len(back) == udp.replies[0] and (back["udp.dstport"] == 49152).all()
    # The TCP packets on the same port are still TCP.
    assert len(tshark(out / "port-s0-to-h0.pcap", "tcp.seq_raw", display_filter="tcp")) > 0
