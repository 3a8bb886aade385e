"""What the Judd (Morgan Stanley) deployment experiments share: one model of the slides'
production testbed, chosen once and used by every ``judd-*`` experiment.

The slides ("Attaining the Promise and Avoiding the Pitfalls of TCP in the Datacenter") give
only one setup: "19 senders" → "Switch" → "10 Gbps" → "Receiver", 190 Gbps aggregate, and
the Scale table's 100-500 senders into the same 10 Gbps receiver. Everything else below is a
choice, stated with its reason (spec algorithms.md §7, experiments.md "judd-*"):

- Links: 10 Gbps everywhere ("190 Gbps aggregate" over 19 senders), 5 µs one way, so the
  base RTT is 4 × 5 = 20 µs plus serialisation. ASSUMPTION: the Latency table's DCTCP+
  minimum of 28 µs is a probe's RTT with a few packets queued; a 20 µs base leaves room for
  them.
- Switch port buffer: 5.5 MB per port, static (spec §7.6 DERIVED: the Scale table's RTT
  plateau of ≈ 4.4 ms is ≈ 5.5 MB at 10 Gbps; TCP's 4.01 ms mean latency is ≈ 5 MB).
- DCTCP marking: K = 20 packets on the instantaneous queue (spec judd-throughput-fairness
  ASSUMPTION: DCTCP+'s 42 µs mean latency bounds its queue to ≲ 53 KB, which rules out the
  DCTCP paper's K = 65 at 10 Gbps). A RED-ECN switch drops what it cannot mark above K
  (§7.2, ``nonect = "drop"``).
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
- "DCTCP+" (the Latency table's column) is not defined in the slides. ASSUMPTION: DCTCP with
  the deployment fixes the slides name (segregated from TCP, ECT on SYNs and ACKs).
"""

from __future__ import annotations

from typing import Any

from . import common as c

RATE_GBPS = 10.0
DELAY_US = 5.0
PORT_BUFFER_BYTES = 5_500_000
K = 20
JUMBO_MTU = 9000
TCP_CC = "cubic"

# The Linux stack of the slides' time (module docstring), shared by TCP and DCTCP hosts.
LINUX_TCP: dict[str, Any] = {
    "profile": "linux_current",
    "rto_min_ms": 200.0,
    "dctcp_g": 1.0 / 16.0,
    "dctcp_alpha_init": 1.0,
    "dctcp_min_cwnd_segments": 2,
}

# RFC 3168 hosts: ECT on new data only (the pitfall); and hosts with every fix.
RFC3168_HOSTS: dict[str, Any] = {"ect_on_control": "rfc3168"}
FIXED_HOSTS: dict[str, Any] = {"ect_on_control": "all"}


def red_ecn(k: int = K, nonect: str = "drop") -> dict:
    """The DCTCP marking of a RED-ECN switch (min = max = K on the instantaneous queue):
    above K an ECT packet is marked, a non-ECT one dropped (§7.2) or, with
    ``nonect = "enqueue"``, queued (mark-only hardware)."""
    return c.dctcp_aqm(k) | {"nonect": nonect}


def segregated(k: int = K, by: str = "flow") -> dict:
    """QoS segregation (§7.2 fix, M18): two class queues per port with equal DRR weights,
    class 0 for DCTCP with RED-ECN marking at K, class 1 for TCP with drop-tail, each held to
    a static half of the port's buffer (ASSUMPTION: the slides give no per-queue limit;
    without one TCP's class fills the whole port and DCTCP's packets find no room). ``by =
    "flow"`` classifies by the class the host gave the flow (a DSCP: DCTCP flows must carry
    class 0, TCP flows class 1); ``by = "ecn"`` by the packet's ECN codepoint (ECT → class 0),
    which sends a DCTCP host's non-ECT SYNs and ACKs to the TCP queue."""
    classify = {"by": "flow"} if by == "flow" else {"by": "ecn", "ect": 0, "not_ect": 1}
    half = PORT_BUFFER_BYTES // 2
    return {
        "scheduler": "drr",
        "classify": classify,
        "queues": [
            {"aqm": red_ecn(k), "limit_bytes": half},
            {"aqm": dict(c.DROP_TAIL), "limit_bytes": half},
        ],
    }


def fanin(
    name: str,
    *,
    senders: int,
    cc: str,
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
    10 Gbps links through one switch (the 19-sender and Scale setups). ``tcp`` updates
    :data:`LINUX_TCP`; ``classes`` sets ``switch.classes``."""
    sc = c.star(
        name,
        senders=senders,
        cc=cc,
        aqm=aqm,
        rate_gbps=RATE_GBPS,
        delay_us=DELAY_US,
        buffer={"kind": "per_port", "limit_bytes": PORT_BUFFER_BYTES},
        duration_s=duration_s,
        warmup_s=warmup_s,
        tcp=LINUX_TCP | (tcp or {}),
        queue_sample_us=queue_sample_us,
        flow_sample_us=flow_sample_us,
        jitter_us=jitter_us,
        seed=seed,
    )
    if classes is not None:
        sc["switch"]["classes"] = classes
    return sc
