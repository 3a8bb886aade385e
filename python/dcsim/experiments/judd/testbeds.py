"""The Judd (Morgan Stanley) slides' testbed: one model of the slides' production network,
chosen once and used by every ``judd-*`` experiment, and its scenarios.

The slides ("Attaining the Promise and Avoiding the Pitfalls of TCP in the Datacenter") give
only one setup: "19 senders" → "Switch" → "10 Gbps" → "Receiver", 190 Gbps aggregate, and
the Scale table's 100-500 senders into the same 10 Gbps receiver. Everything else below is a
choice, stated with its reason:

- Links: 10 Gbps everywhere ("190 Gbps aggregate" over 19 senders), 5 µs one way, so the
  base RTT is 4 × 5 = 20 µs plus serialisation. An assumption: the Latency table's DCTCP+
  minimum of 28 µs is a probe's RTT with a few packets queued; a 20 µs base leaves room for
  them.
- Switch port buffer: 5.5 MB per port, static (derived: the Scale table's RTT plateau of
  ≈ 4.4 ms is ≈ 5.5 MB at 10 Gbps; TCP's 4.01 ms mean latency is ≈ 5 MB).
- DCTCP marking: K = 20 packets on the instantaneous queue (an assumption: DCTCP+'s 42 µs
  mean latency bounds its queue to ≲ 53 KB, which rules out the DCTCP paper's K = 65 at
  10 Gbps). A RED-ECN switch drops what it cannot mark above K
  (``nonect = "drop"``).
- Hosts: the Linux stack of the time, as the ``linux_current`` stack profile (docs/stacks.md,
  each field with its source; the slides' kernels, 3.x, already had IW10, the 1 s initial RTO,
  PRR and the tail loss probe). TCP is CUBIC (Linux's default since 2.6.19); RTO_min 200 ms;
  6 SYN and 5 SYN-ACK retries; delayed ACKs every 2 segments or 40 ms; receive buffers
  auto-tuned from 43 KB up to 3 MiB of window (Linux's default `tcp_moderate_rcvbuf`; half of
  `tcp_rmem`); DCTCP with g = 1/16, α₀ = 1 and a 2-segment minimum window (Linux `tcp_dctcp.c`).
- ECN on control packets: a host "of the time" follows RFC 3168: only new data is ECT, so
  SYN, SYN-ACK, pure ACKs and retransmissions are not (``ect_on_control = "rfc3168"``,
  :data:`RFC3168_HOSTS`). The fixes are ``tcp.ect_on_syn`` (Linux's later ECT(0) SYNs for
  DCTCP) and ``tcp.ect_on_ack``, one at a time; :data:`FIXED_HOSTS` is a DCTCP host with
  every fix: ECT on every packet, retransmissions included, as Linux's DCTCP sends them.
- "DCTCP+" (the Latency table's column) is not defined in the slides. An assumption: DCTCP with
  the deployment fixes the slides name (segregated from TCP, ECT on SYNs and ACKs).

On another testbed (``dcsim reproduce --testbed``) the experiments keep their 10 Gbps line rate
and take the rest of the path from it: the links' delay and framing (:func:`base_rtt_s`,
:func:`queue_delay_s`) and the receiver port's buffer (:func:`port_buffer_bytes`: its static
limit; on a switch that shares its memory among the ports, a rule of ours, what the dynamic
threshold lets one busy port hold). :func:`segregated` halves the port's static limit between
its two class queues, and sets no class limit on a shared memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..declarations import Testbed
from ..hosts import ENGINE_HOST, ENGINE_HOST_SOURCES
from ..scenarios import DROP_TAIL, fan_in, threshold

if TYPE_CHECKING:
    pass

RATE_GBPS = 10.0
DELAY_US = 5.0
PORT_BUFFER_BYTES = 5_500_000
FRAMING_BYTES = 38
K = 20
JUMBO_MTU = 9000

TESTBED = Testbed(
    name="judd_testbed",
    paper="judd",
    summary="The Judd slides' production network: Linux hosts of the time at 10 Gb/s into one switch port of 5.5 MB, 20 µs base RTT",
    # The Linux stack of the slides' time (module docstring), shared by TCP and DCTCP hosts.
    tcp={
        "profile": "linux_current",
        "rto_min_ms": 200.0,
        "dctcp_g": 1.0 / 16.0,
        "dctcp_alpha_init": 1.0,
        "dctcp_min_cwnd_segments": 2,
    },
    tcp_cc="cubic",
    host=ENGINE_HOST,
    buffers={RATE_GBPS: {"kind": "per_port", "limit_bytes": PORT_BUFFER_BYTES}},
    link={"delay_us": DELAY_US, "framing_bytes": FRAMING_BYTES},
    sources={
        "tcp.profile": "the slides' Linux 3.x kernels already had IW10, the 1 s initial RTO, PRR and TLP (docs/stacks.md, linux_current)",
        "tcp.rto_min_ms": "Linux's TCP_RTO_MIN, 200 ms",
        "tcp.dctcp_g": "Linux tcp_dctcp.c: dctcp_shift_g = 4 (g = 1/16)",
        "tcp.dctcp_alpha_init": "Linux tcp_dctcp.c: dctcp_alpha_on_init = 1024 (α = 1)",
        "tcp.dctcp_min_cwnd_segments": "Linux tcp_dctcp.c: the window never falls below 2 segments",
        "tcp.cc": "Linux's default congestion control since 2.6.19: CUBIC",
        **ENGINE_HOST_SOURCES,
        "switch.buffer": "derived: the Scale table's RTT plateau of ≈ 4.4 ms is ≈ 5.5 MB at 10 Gb/s",
        "topology.link.rate_gbps": 'the slides: 19 senders, "190 Gbps aggregate" into a 10 Gbps receiver',
        "topology.link.delay_us": "an assumption: a 20 µs base RTT leaves room for DCTCP+'s 28 µs minimum latency",
        "topology.link.framing_bytes": "Ethernet: 38 B per frame",
    },
)

TESTBEDS = (TESTBED,)

# RFC 3168 hosts: ECT on new data only (the pitfall); and hosts with every fix.
RFC3168_HOSTS: dict[str, Any] = {"ect_on_control": "rfc3168"}
FIXED_HOSTS: dict[str, Any] = {"ect_on_control": "all"}


def red_ecn(k: int = K, nonect: str = "drop") -> dict:
    """The DCTCP marking of a RED-ECN switch (min = max = K on the instantaneous queue):
    above K an ECT packet is marked, a non-ECT one dropped or, with ``nonect = "enqueue"``,
    queued (mark-only hardware)."""
    return threshold(k) | {"nonect": nonect}


def segregated(tb: Testbed, k: int = K, by: str = "flow") -> dict:
    """QoS segregation (the slides' fix): two class queues per port with equal DRR weights,
    class 0 for DCTCP with RED-ECN marking at K, class 1 for TCP with drop-tail. ``by =
    "flow"`` classifies by the class the host gave the flow (a DSCP: DCTCP flows must carry
    class 0, TCP flows class 1); ``by = "ecn"`` by the packet's ECN codepoint (ECT → class 0),
    which sends a DCTCP host's non-ECT SYNs and ACKs to the TCP queue.

    Each class is held to half of the port's static limit on ``tb`` (each of its
    ``limit_bytes`` and ``limit_packets`` at :data:`RATE_GBPS`: 2.75 MB on the Judd testbed),
    an assumption: the slides give no per-queue limit, and without one TCP's class fills the
    whole port and DCTCP's packets find no room. A shared memory (a preset) gives a port no
    static limit, so there the classes get none of their own: the memory's dynamic threshold
    holds each class queue (the engine applies it per queue)."""
    classify = {"by": "flow"} if by == "flow" else {"by": "ecn", "ect": 0, "not_ect": 1}
    buffer = tb.buffer(RATE_GBPS)
    half = {key: buffer[key] // 2 for key in ("limit_bytes", "limit_packets") if key in buffer}
    return {
        "scheduler": "drr",
        "classify": classify,
        "queues": [
            {"aqm": red_ecn(k), **half},
            {"aqm": dict(DROP_TAIL), **half},
        ],
    }


def fanin(
    name: str,
    tb: Testbed,
    *,
    senders: int,
    cc: str | None,
    aqm: dict,
    duration_s: float,
    warmup_s: float = 0.0,
    tcp: dict | None = None,
    classes: dict | None = None,
    queue_sample_us: float = 0.0,
    flow_sample_us: float = 0.0,
    jitter_us: float = 100.0,
    seed: int = 1,
) -> dict:
    """The slides' fan-in: hosts 1..senders each send one long-lived flow to host 0 over
    10 Gbps links through one switch (the 19-sender and Scale setups), with congestion control
    ``cc`` (None: the stack's TCP). ``tcp`` sets fields
    over the testbed's stack; ``classes`` sets ``switch.classes``."""
    sc = fan_in(
        name,
        tb,
        senders=senders,
        cc=cc,
        aqm=aqm,
        rate_gbps=RATE_GBPS,
        duration_s=duration_s,
        warmup_s=warmup_s,
        tcp=tcp,
        queue_sample_us=queue_sample_us,
        flow_sample_us=flow_sample_us,
        jitter_us=jitter_us,
        seed=seed,
    )
    if classes is not None:
        sc["switch"]["classes"] = classes
    return sc


MTU_BYTES = 1500
HEADER_BYTES = 40


def base_rtt_s(
    link: Mapping[str, Any],
    mtu_bytes: int = MTU_BYTES,
    rate_gbps: float = RATE_GBPS,
    header_bytes: int = HEADER_BYTES,
) -> float:
    """RTT of a full-size segment and its ACK on the idle star of a testbed's ``link``
    (``delay_us``, ``framing_bytes``): 4 link delays, the segment serialised on two links and
    the ACK (headers only) on two."""
    delay_us, framing_bytes = link["delay_us"], link["framing_bytes"]
    bit_s = 1.0 / (rate_gbps * 1e9)
    return 4 * delay_us * 1e-6 + 2 * (mtu_bytes + framing_bytes) * 8 * bit_s + 2 * (header_bytes + framing_bytes) * 8 * bit_s


def queue_delay_s(mean_bytes: float, mean_packets: float, link: Mapping[str, Any], rate_gbps: float = RATE_GBPS) -> float:
    """Time to drain a queue of ``mean_bytes`` in ``mean_packets`` packets: each packet also
    carries the ``link``'s framing on the wire."""
    return (mean_bytes + link["framing_bytes"] * mean_packets) * 8 / (rate_gbps * 1e9)
