"""The CS244 '17 reproduction's testbed: the authors' ns-2 scripts (sibanez12/dctcp-ns2,
`tcl/run_sim.tcl`), as our scenarios.

Every link 100 Mbps, 200-packet queues (switch ports and the hosts' link queues alike: "Queue
set limit_ 200"), no framing (ns-2 has none), 1460-B payloads, FTP sources starting at 0.1 s,
results over t ∈ [4, 9] s. ns-2's DCTCP marking is RED with thresh = maxthresh = K on the
instantaneous queue, which counts only waiting packets (``count_in_service = False``).

The hosts run ns-2's stack (the ``ns2`` profile: FullTcp/Sack's defaults, an ACK per segment,
initial window 2, RTO_min 200 ms from `minrto_`, which the scripts do not set) with the
scripts' own agents: DCTCP ran plain `Agent/TCP/FullTcp` (no SACK) with `tcpTick_ 0.000001`;
TCP ran `Agent/TCP/Linux` to a `TCPSink/Sack1` on the default 10 ms tick, whose `maxrto_` is
120 s (ns-default.tcl). ns-2's DCTCP patch ("ecnhat", M. Alizadeh) starts with
`ecnhat_alpha_ = 0`, unlike Linux (α = 1): with α = 1 the first marks would halve the window,
which then climbs back at one packet per RTT (≈ 5 s at the Fig. 4 RTT of 40 ms).
"""

from __future__ import annotations

from ..declarations import Testbed
from ..hosts import ENGINE_HOST_SOURCES, SIMULATION_NOISE_FLOOR, SIMULATION_NOISE_SOURCE, host_model
from ..scenarios import DROP_TAIL, fan_in, per_port_packets, port_share_bytes, threshold

RATE_GBPS = 0.1
BUFFER_PACKETS = 200
PACKET_BYTES = 1500  # a full segment's IP packet, what a port holds (ns-2: the whole packet)
START_S = 0.1

TESTBED = Testbed(
    name="cs244_ns2",
    paper="cs244",
    summary="The CS244 '17 reproduction's ns-2 scripts: 100 Mb/s links, 200-packet queues, ns-2's TCP agents",
    tcp={"profile": "ns2", "dctcp_g": 0.0625, "dctcp_alpha_init": 0.0},
    tcp_cc="newreno",
    tcp_by_cc={
        "dctcp": {"sack": False, "timer_tick_ms": 0.001},
        "newreno": {"rto_max_ms": 120_000.0},
    },
    host=host_model(nic_queue_packets=BUFFER_PACKETS),
    jitter_floor_packets=SIMULATION_NOISE_FLOOR,
    buffers={RATE_GBPS: per_port_packets(BUFFER_PACKETS)},
    link={"delay_us": 250.0, "framing_bytes": 0},
    sources={
        "tcp.profile": "ns-2.35's FullTcp/Sack defaults (docs/stacks.md, ns2)",
        "tcp.dctcp_g": "run_sim.tcl: `Agent/TCP set dctcp_g_ 0.0625`",
        "tcp.dctcp_alpha_init": "ns-2's DCTCP patch: `ecnhat_alpha_ 0.0`",
        "tcp.cc": "run_sim.tcl: TCP is `Agent/TCP/Linux` with its default, Reno-style congestion avoidance",
        "tcp_by_cc.dctcp": "run_sim.tcl: DCTCP over `Agent/TCP/FullTcp` (no SACK), `tcpTick_ 0.000001`",
        "tcp_by_cc.newreno": "run_sim.tcl: TCP over `Agent/TCP/Linux` to `TCPSink/Sack1`; ns-default.tcl `maxrto_ 120`",
        **ENGINE_HOST_SOURCES,
        "host.tx_jitter_us": SIMULATION_NOISE_SOURCE,
        "host.nic_queue_packets": "run_sim.tcl: `Queue set limit_ 200` applies to the hosts' link queues too",
        "switch.buffer": "run_sim.tcl: `Queue set limit_ 200`",
        "topology.link.delay_us": "each figure's script sets its own link delay (the experiments give theirs)",
        "topology.link.framing_bytes": "ns-2 has no framing",
    },
)

TESTBEDS = (TESTBED,)


def port_packets(tb: Testbed) -> float:
    """The full-size packets a busy switch port of ``tb`` holds at the figures' 100 Mbps: its
    static limit (200 on the scripts' queues) or a shared memory's one-busy-port share."""
    return port_share_bytes(tb.buffer(RATE_GBPS), PACKET_BYTES) / PACKET_BYTES


def fanin(
    name: str,
    tb: Testbed,
    *,
    senders: int,
    k: int | None,
    link_delay_us: float,
    duration_s: float,
    warmup_s: float,
    queue_sample_us: float = 0.0,
    seed: int = 1,
) -> dict:
    """The scripts' star: DCTCP with threshold ``k`` on every port, or the testbed's TCP over
    drop-tail when ``k`` is None; ns-2 starts both FTP sources at exactly 0.1 s (a few µs of jitter only
    breaks the tie in the event order)."""
    return fan_in(
        name,
        tb,
        senders=senders,
        cc=None if k is None else "dctcp",
        aqm=DROP_TAIL if k is None else threshold(k, count_in_service=False),
        rate_gbps=RATE_GBPS,
        duration_s=duration_s,
        warmup_s=warmup_s,
        link={"delay_us": float(link_delay_us)},
        queue_sample_us=queue_sample_us,
        jitter_us=10.0,
        start_s=START_S,
        seed=seed,
    )
