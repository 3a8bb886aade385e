"""The DCTCP paper's testbeds: its hardware testbed (§4) and its NS-2 simulations (§3).

Each value is given once, here, with its source; every ``dctcp-*`` experiment runs on one of
these (or on another testbed, `dcsim reproduce --testbed NAME`).
"""

from __future__ import annotations

from ..declarations import Testbed
from ..hosts import ENGINE_HOST, ENGINE_HOST_SOURCES
from ..scenarios import DROP_TAIL, fan_in, per_port_packets, threshold

TESTBED = Testbed(
    name="dctcp_testbed",
    paper="dctcp",
    summary=(
        "The DCTCP paper's testbed (§4): Windows hosts (NewReno with SACK) on 1 and 10 Gb/s links through a "
        "Broadcom Triumph (48 × 1 Gb/s) or Scorpion (24 × 10 Gb/s) with 4 MB of shared memory, 100 µs RTT"
    ),
    tcp={"profile": "windows_2008r2", "rto_min_ms": 300.0, "dctcp_g": 1.0 / 16.0},
    tcp_cc="newreno",
    host=ENGINE_HOST,
    buffers={
        1.0: {"kind": "preset", "name": "triumph"},
        10.0: {"kind": "preset", "name": "scorpion"},
    },
    link={"delay_us": 25.0, "framing_bytes": 38},
    sources={
        "tcp.profile": (
            "§4: \"a full implementation of DCTCP and a state-of-the-art TCP New Reno (w/ SACK) implementation\" in the "
            "authors' Windows stack (docs/stacks.md, windows_2008r2)"
        ),
        "tcp.rto_min_ms": (
            "§2.3.2: \"In our network stack, the RTO_min is set to 300ms\"; from Fig. 19 on the experiments set 10 ms (§4.2.1)"
        ),
        "tcp.dctcp_g": "end of §3: \"g is set to 1/16 in all experiments\"",
        "tcp.cc": "§4: the baseline is \"a state-of-the-art TCP New Reno (w/ SACK) implementation\"",
        **ENGINE_HOST_SOURCES,
        "switch.buffer": (
            "§4: the Triumph and Scorpion share 4 MB among their ports with a dynamic threshold that gives one busy "
            "port about 700 KB (Fig. 1 caption, §4.1); the engine's presets triumph and scorpion"
        ),
        "topology.link.delay_us": "§2.3.3: 100 µs intra-rack RTT, four links of 25 µs",
        "topology.link.framing_bytes": "Ethernet: 38 B of preamble, header, FCS and gap per frame (1500-B packets, §3.4)",
    },
)

# The NS-2 simulations of §3 (Fig. 12, the convergence times of §3.5): a single bottleneck,
# ns-2's FullTcp agents as the paper's sample script runs them.
NS2 = Testbed(
    name="dctcp_ns2",
    paper="dctcp",
    summary="The DCTCP paper's NS-2 simulations (§3.3, §3.5): ns-2's TCP agents, no framing, a 2000-packet port buffer",
    tcp={"profile": "ns2", "slow_start_after_idle": False, "dctcp_g": 1.0 / 16.0, "dctcp_alpha_init": 0.0},
    tcp_cc="newreno",
    host=ENGINE_HOST,
    buffers={10.0: per_port_packets(2000)},
    link={"delay_us": 25.0, "framing_bytes": 0},
    sources={
        "tcp.profile": "§3.3: NS-2 (docs/stacks.md, ns2: FullTcp/Sack's defaults, an ACK per segment)",
        "tcp.slow_start_after_idle": "the ns-2 DCTCP sample script leaves slow_start_restart_ off",
        "tcp.dctcp_g": "Fig. 12 caption: g = 1/16",
        "tcp.dctcp_alpha_init": "ns-2's DCTCP patch starts with ecnhat_alpha_ = 0",
        "tcp.cc": "ns-2's FullTcp agent: NewReno with SACK",
        **ENGINE_HOST_SOURCES,
        "switch.buffer": "NOT GIVEN: a buffer of 2000 packets per port, which never drops (the analysis assumes none)",
        "topology.link.delay_us": "Fig. 12 caption: a 100 µs round trip, four links of 25 µs",
        "topology.link.framing_bytes": "ns-2 has no framing: a packet is the analysis's 1500 B",
    },
)

TESTBEDS = (TESTBED, NS2)


def fanin(
    name: str,
    testbed: Testbed,
    *,
    senders: int,
    k: int | None,
    rate_gbps: float,
    duration_s: float,
    warmup_s: float,
    host: dict | None = None,
    queue_sample_us: float = 0.0,
    jitter_us: float = 1000.0,
    seed: int = 1,
) -> dict:
    """The testbed's fan-in of §4.1 (long-lived flows from hosts 1..senders to host 0): DCTCP
    with marking threshold ``k``, or the testbed's TCP (NewReno on the paper's hosts) over
    drop-tail when ``k`` is None; flows open within ``jitter_us`` of t = 0."""
    return fan_in(
        name,
        testbed,
        senders=senders,
        cc=None if k is None else "dctcp",
        aqm=DROP_TAIL if k is None else threshold(k),
        rate_gbps=rate_gbps,
        duration_s=duration_s,
        warmup_s=warmup_s,
        host=host,
        queue_sample_us=queue_sample_us,
        jitter_us=jitter_us,
        seed=seed,
    )
