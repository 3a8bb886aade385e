"""The ICTCP paper's testbed (ICTCP paper §II-A, §VII) and its scenarios.

Testbed: 47 servers (≤ 46 senders + 1 receiver) on one Quanta LB4G 48-port GbE switch: a star
of 1 Gbps links, 38 B Ethernet framing, and a per-link delay chosen so that the base RTT - the
paper's "observed RTT when there is no other traffic and the TCP receive window is one MSS",
"around 100 μs" (§II-B) - is 100 µs: 4 link delays + a 1,538-B frame serialised twice (NIC and
switch port, 12.304 µs each) + a 78-B ACK frame twice (0.624 µs each) = 100 µs gives 18.536 µs
per link (the base RTT is reached by setting propagation). The switch is the engine's
``quanta_lb4g`` preset: 4 MB shared memory with a dynamic threshold calibrated so one busy port
holds 128.5 kB, the buffer the paper's §V finds its own 47-server incast needs at 2 MSS; its
"85 kB for each port" (§II-C) is the equal split, the limit only when every port is busy (an
assumption; see the preset's documentation). Drop-tail. TCP is NewReno with SACK on the
`windows_2008r2` stack profile (Windows Server 2008 R2, §VII; docs/stacks.md), timeout
(RTO_min) 300 ms.

Hosts: the engine's NIC model (a FIFO transmit queue of 1000 packets serialised at 1 Gbps),
its default 1 µs transmit jitter, and one host model, :data:`HOST_PROFILE`, calibrated once by
the ``ictcp-host-calibration`` experiment against Fig. 5 and used unchanged by every ICTCP
experiment: receive interrupts at most every 18 µs (the BCM5709C's default coalescing in
Linux's bnx2 driver; the Windows driver's is not given) and the per-packet receive processing
that fits Fig. 5's RTT with the least host delay (none: the fit cannot tell 0 to 12 µs
apart). The link delay gives back what processing takes (:func:`link`), so the base RTT stays
100 µs; on a testbed whose links are shorter than that, the delay stops at 0 and the base RTT
is longer.

Incast rounds: requests are one 100-B segment (an assumption); connections are persistent and
pre-established; rounds are barrier-synchronised (the next request goes out when the last
response of the round has arrived), the first at ``QUERY_START_S``. Host 0 is the receiver,
hosts 1..n the senders; a background flow comes from host 47, the switch's 48th port, so that
it never shares a NIC with an incast sender.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..declarations import Testbed
from ..hosts import ENGINE_HOST_SOURCES, host_model
from ..scenarios import threshold

MSS = 1460
HEADER_BYTES = 40  # IPv4 and TCP headers of a segment
RATE_GBPS = 1.0  # every link of the testbed: the experiments' own line rate
HOSTS = 48  # 48-port switch; the paper uses 47 servers, the 48th port carries background traffic
MAX_SENDERS = 46
RECEIVER = 0
BACKGROUND_HOST = 47
# Base RTT 100 µs at rwnd = 1 MSS: (100 - 2 × 12.304 - 2 × 0.624) / 4 µs per link (docstring).
BASE_RTT_US = 100.0
LINK_DELAY_US = (BASE_RTT_US - 2 * 12.304 - 2 * 0.624) / 4
QUERY_START_S = 0.01
# The testbed's host model, calibrated once (experiment ictcp-host-calibration): receive
# interrupts at most every 18 µs (the BCM5709C's default receive coalescing, Linux
# drivers/net/ethernet/broadcom/bnx2.c bnx2_init_board: rx_ticks = 18 µs; modelled as an
# interrupt throttle, so a lone packet is not delayed) and the per-packet receive processing
# that fits Fig. 5's RTT with the least host delay.
HOST_PROFILE: dict[str, Any] = {"rx_interrupt_interval_us": 18.0, "rx_processing_us": 0.0}

TESTBED = Testbed(
    name="ictcp_testbed",
    paper="ictcp",
    summary=(
        "The ICTCP paper's testbed (§VII): 47 Windows Server 2008 R2 hosts on one Quanta LB4G 48-port GbE switch "
        "(4 MB shared), 100 µs base RTT"
    ),
    tcp={"profile": "windows_2008r2", "rto_min_ms": 300.0},
    tcp_cc="newreno",
    host=host_model(**HOST_PROFILE),
    buffers={1.0: {"kind": "preset", "name": "quanta_lb4g"}},
    link={"delay_us": LINK_DELAY_US, "framing_bytes": 38},
    sources={
        "tcp.profile": '§VII: "TCP New Reno with SACK implementation on a Windows server" (docs/stacks.md, windows_2008r2)',
        "tcp.rto_min_ms": '§VII: "the default timeout value of TCP on a Windows server is 300 ms"',
        "tcp.cc": '§VII: "TCP New Reno with SACK implementation on a Windows server"',
        **ENGINE_HOST_SOURCES,
        "host.rx_interrupt_interval_us": (
            "Not given, our choice: 18 µs, the BCM5709C's default receive coalescing in Linux's bnx2 driver, fitted to Fig. 5 by the "
            "ictcp-host-calibration experiment"
        ),
        "host.rx_processing_us": "Not given, our choice: none, the least host delay that fits Fig. 5's RTT (ictcp-host-calibration)",
        "switch.buffer": (
            "§II-C, §VII: a Quanta LB4G with 4 MB shared; the engine's preset quanta_lb4g gives one busy port 128.5 kB, "
            "the buffer §V finds a 47-server incast needs at 2 MSS"
        ),
        "topology.link.delay_us": '§II-B: a base RTT "around 100 μs" with a 1-MSS window: 18.536 µs per link with serialisation',
        "topology.link.framing_bytes": "Ethernet: 38 B per frame",
    },
)

# What one busy port of the LB4G may hold is not given (LB4G_SHARE_OPEN). Two shares the sources
# do give, as testbeds beside the preset's, so that `--testbeds` reruns any ICTCP experiment on them.
LB4G_EQUAL_SPLIT_BYTES = (4 << 20) // 48  # §II-C: "4 MB cache so that it has 85 kB for each port (if equally divided)"
LB4G_CANDIDATES = (
    replace(
        TESTBED,
        name="ictcp_lb4g_equal_split",
        summary="The ICTCP testbed with the LB4G's 4 MB split equally among its 48 ports: 85 kB a port (§II-C)",
        buffers={RATE_GBPS: {"kind": "per_port", "limit_bytes": LB4G_EQUAL_SPLIT_BYTES}},
        sources={**TESTBED.sources, "switch.buffer": '§II-C: "85 kB for each port (if equally divided)" of the 4 MB'},
    ),
    replace(
        TESTBED,
        name="ictcp_lb4g_broadcom_dt",
        summary=(
            "The ICTCP testbed with the LB4G's 4 MB shared by the dynamic threshold the DCTCP paper measured on the "
            "Broadcom Triumph: about 700 KB for one busy port"
        ),
        buffers={RATE_GBPS: {"kind": "preset", "name": "triumph"}},
        sources={
            **TESTBED.sources,
            "switch.buffer": (
                "§II-C footnote 1 points to the DCTCP paper for dynamic allocation; there a 4 MB Broadcom switch gives "
                "one busy port about 700 KB (DCTCP §4.1): the engine's preset triumph"
            ),
        },
    ),
)

LB4G_SHARE_OPEN = """\
**The Quanta LB4G's port share (ICTCP testbed; open).** The paper gives the switch's memory, "4 MB cache so that it \
has 85 kB for each port (if equally divided)" (§II-C), says "existing commodity switches use dynamic buffer \
management to allocate a buffer pool shared by all ports" (§V) and points to the DCTCP paper for such allocation \
(§II-C, footnote 1). How much one busy port may take is not given, and what the ICTCP experiments show depends on \
it. The preset `quanta_lb4g` gives one busy port 128.5 kB, the buffer §V's Eq. 8 finds 47 senders need at 2 MSS: \
a value taken from the paper's analysis, not from the switch. The two shares the sources do give are testbeds \
beside it (`dcsim reproduce ictcp-fig9 --testbeds ictcp_testbed,ictcp_lb4g_equal_split,ictcp_lb4g_broadcom_dt`):

| testbed | one busy port holds | ICTCP paper claims holding (quick) | what breaks |
|---|---|---|---|
| `ictcp_testbed` (preset `quanta_lb4g`) | 128.5 kB | 15 of 25 | from n = 45 the 2-MSS floor windows overflow \
the port in every round (Figs. 9, 11-14, with UDP) |
| `ictcp_lb4g_equal_split` | 85 kB | 14 of 25 | the floor overflows: at 32 senders every ICTCP round times out, \
and ICTCP collapses at 40 as TCP does |
| `ictcp_lb4g_broadcom_dt` | 700 KB | 15 of 25 | TCP no longer collapses: 13% of its rounds time out at 40 × 64 kB (Figs. 3, 8, 9) |

Counter-runs between them (quick, one busy port of 4 MB under the dynamic threshold): TCP's collapse at 40 \
senders holds at every share tried from 128.5 to 300 kB (150, 200, 300) and is gone at 450 kB (7% of rounds \
time out). ICTCP's 2-MSS floor for 46 senders fits from 132 kB alone (Fig. 11 holds there), but beside the \
background flow or the UDP every round at n = 40-46 still times out at 132 kB, and none at 200 kB. So both \
families of claims hold at 200 kB (21 of 25); the band's lower edge lies between 132 and 200 kB, its upper edge \
between 300 and 450 kB, and neither source-given share lies in it. No share is chosen from these counts: \
a share picked because claims hold would be tuning. The preset stays until the switch's own limit is known (a \
measurement of the LB4G, or its MMU's default settings), and each ICTCP claim that fails names the share as \
its cause.
"""

TESTBEDS = (TESTBED, *LB4G_CANDIDATES)

# The three transports the ICTCP experiments compare on the same runs: ICTCP, TCP with the
# Windows 300 ms timeout, DCTCP.
PROTOCOLS = ("ICTCP", "TCP", "DCTCP")
DCTCP_K_PACKETS = 20  # the DCTCP paper's K at 1 Gbps (§4.1); the LB4G itself marks nothing


def frame_bytes(tb: Testbed, payload_bytes: int = MSS) -> int:
    """Bytes on the testbed's wire of a segment carrying ``payload_bytes`` (0: a pure ACK)."""
    return payload_bytes + HEADER_BYTES + int(tb.link["framing_bytes"])


def ceiling_mbps(tb: Testbed) -> float:
    """Payload goodput ceiling of the testbed's 1 Gbps links with full segments: MSS over the
    frame (1460 / 1538 with Ethernet's 38 B of framing)."""
    return RATE_GBPS * 1000.0 * MSS / frame_bytes(tb)


def base_rtt_us(tb: Testbed, host: dict | None = None) -> float:
    """The base RTT (1 MSS, no other traffic) on the testbed for hosts ``host`` (fields over its
    host model): four link delays (:func:`link`), the receive processing at each end, and a full
    frame and an ACK frame each serialised twice (NIC and switch port) at 1 Gbps; 100 µs on
    the paper's testbed."""
    hosts = {**tb.host, **(host or {})}
    processing_us = 2 * float(hosts.get("rx_processing_us", 0.0))
    serialisation_us = 2 * (frame_bytes(tb) + frame_bytes(tb, 0)) * 8 / (RATE_GBPS * 1e3)
    return 4 * link(tb, hosts)["delay_us"] + processing_us + serialisation_us


def rc_bytes(tb: Testbed) -> float:
    """R·C of ICTCP's Eq. 8 on the testbed: its base RTT × 1 Gbps, in whole bytes (the paper's
    100 µs × 1 Gbps = 12,500 B on its own testbed)."""
    return float(round(base_rtt_us(tb) * RATE_GBPS * 1e3 / 8))


def link(tb: Testbed, host: dict | None = None) -> dict[str, Any]:
    """The testbed's links for hosts ``host``: the base RTT (1 MSS, no other traffic) stays
    what the testbed's link delay gives whatever the host model, so the propagation delay
    gives up what the hosts' receive processing (``rx_processing_us``, once at each end of
    the round trip) takes."""
    processing_us = float((host or {}).get("rx_processing_us", 0.0))
    # Links shorter than the processing cannot give it back: the base RTT is then longer.
    return tb.link_at(RATE_GBPS) | {"delay_us": max(0.0, tb.link["delay_us"] - 2 * processing_us / 4)}


def scenario(
    name: str,
    tb: Testbed,
    *,
    duration_s: float,
    warmup_s: float = 0.0,
    queries: list[dict] | None = None,
    flows: list[dict] | None = None,
    host: dict | None = None,
    seed: int = 1,
) -> dict:
    """A star of :data:`HOSTS` hosts on the testbed running its TCP, with incast ``queries`` and
    background ``flows``; ``host`` sets fields over the testbed's host model."""
    hosts = {**tb.host, **(host or {})}
    return {
        "name": name,
        "sim": {
            "seed": int(seed),
            "duration_s": float(duration_s),
            "warmup_s": float(warmup_s),
            # Incast runs end with their last round (background flows would run on).
            "stop_when_queries_done": bool(queries),
        },
        "topology": {"kind": "star", "hosts": HOSTS, "link": link(tb, hosts)},
        "switch": {"buffer": tb.buffer(RATE_GBPS), "aqm": {"kind": "drop_tail"}},
        "host": hosts,
        "tcp": tb.tcp_for(None),
        "flows": list(flows or []),
        "queries": list(queries or []),
        "measure": {"queue_sample_us": 0.0, "queue_ports": ["s0->h0"], "flow_sample_us": 0.0},
    }


def incast_query(
    senders: int,
    response_bytes: int,
    rounds: int,
    rcv_buffer_bytes: int | None = None,
    start_s: float = QUERY_START_S,
) -> dict:
    """``rounds`` barrier-synchronised rounds in which senders 1..n each answer a 100-B request
    with ``response_bytes`` to the receiver, over persistent connections (receive buffer
    ``rcv_buffer_bytes`` when given)."""
    q: dict[str, Any] = {
        "client": RECEIVER,
        "servers": list(range(1, int(senders) + 1)),
        "request_bytes": 100,
        "response_bytes": int(response_bytes),
        "rounds": int(rounds),
        "start_s": float(start_s),
    }
    if rcv_buffer_bytes is not None:
        q["rcv_buffer_bytes"] = int(rcv_buffer_bytes)
    return q


def incast_duration_s(
    tb: Testbed,
    senders: int,
    response_bytes: int,
    rounds: int,
    start_s: float,
    share: float = 1.0,
    slack_per_round_s: float = 0.02,
) -> float:
    """A first guess at the simulated time the rounds need on ``tb``: the ideal round at ``share``
    of the link's goodput ceiling, plus slack per round. Rounds that still do not finish are run again longer
    (:func:`longer_if_unfinished`); runs stop at their last round (``sim.stop_when_queries_done``)."""
    ideal = senders * response_bytes * 8 / (ceiling_mbps(tb) * 1e6 * share) + 300e-6
    return start_s + rounds * (ideal * 1.3 + slack_per_round_s) + 0.4


def with_protocol(sc: dict, tb: Testbed, protocol: str, min_rwnd_segments: int = 2) -> dict:
    """``sc`` (built on ``tb``) run by ``protocol``: ICTCP on the receiver (the stack's TCP as
    senders: NewReno with SACK on the paper's hosts), plain TCP, or DCTCP (senders, receivers
    and K = 20 marking at the switch). All keep the testbed's timeout."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    sc = {**sc, "tcp": dict(sc["tcp"]), "switch": dict(sc["switch"])}
    if protocol == "ICTCP":
        sc["ictcp"] = {"hosts": [RECEIVER], "min_rwnd_segments": int(min_rwnd_segments)}
    elif protocol == "DCTCP":
        sc["tcp"] = tb.tcp_for("dctcp")
        sc["switch"]["aqm"] = threshold(DCTCP_K_PACKETS)
    return sc
