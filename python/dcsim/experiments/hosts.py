"""The engine's host model, value by value with why: what a testbed's hosts are where their
source does not describe them (the papers give the stack, rarely the NIC)."""

from __future__ import annotations

from typing import Any

ENGINE_HOST: dict[str, Any] = {
    "nic_queue_packets": 1000,
    "queue_bytes_per_conn": 131072,
    "tx_jitter_us": 1.0,
    "clock_ppm": 100.0,
    "offload_burst_segments": 0,
    "rx_interrupt_interval_us": 0.0,
    "rx_processing_us": 0.0,
}

ENGINE_HOST_SOURCES: dict[str, str] = {
    "host.nic_queue_packets": "Not given, our choice: Linux's default txqueuelen, 1000 packets",
    "host.queue_bytes_per_conn": "Not given, our choice: 128 KiB of one connection in its NIC, Linux's TCP small queues",
    "host.tx_jitter_us": "Not given, our choice: up to 1 µs of timing noise per packet, so that equal senders do not stay phase-locked",
    "host.clock_ppm": "Not given, our choice: NIC clocks off by up to ±100 ppm, what IEEE 802.3 allows",
    "host.offload_burst_segments": "Not given, our choice: no segmentation-offload bursts",
    "host.rx_interrupt_interval_us": "Not given, our choice: no receive interrupt moderation",
    "host.rx_processing_us": "Not given, our choice: no per-packet receive processing time",
}


# The noise floor of every testbed that reproduces a simulator's (ns-2's) results, chosen once:
# each host's transmit jitter is at least half a packet time of the bottleneck. Simulators have
# no noise, and a reproduction with none lets equal flows lock into one phase at a port, a
# result of the model rather than of the protocol (Floyd & Jacobson 1992).
SIMULATION_NOISE_FLOOR = 0.5
SIMULATION_NOISE_CHOICE = """\
**The simulation testbeds' noise floor** (`dctcp_ns2`, `cs244_ns2`: the experiments that reproduce \
ns-2 results). ns-2 has no timing noise, and neither source says how its runs avoided the phase \
effects of equal flows at a drop-tail or marking port (Floyd & Jacobson, 1992). Chosen once, before \
the runs, for every experiment on those testbeds: each host's transmit jitter is at least half a \
packet time of the bottleneck (6 µs at 1 Gbps, 60 µs at 100 Mbps; the engine's 1 µs where that is \
more, as at 10 Gbps), drawn per packet from the run's seed. A convergence run that never converges \
reports whether its flows held a fixed unequal split (locked) or kept moving; the definition of \
convergence is in each experiment's notes, before its results.
"""
SIMULATION_NOISE_SOURCE = (
    "noise floor of a simulation testbed: at least half a bottleneck packet time of jitter (1 µs if more), "
    "so that equal flows do not lock into one phase (Floyd & Jacobson, 1992)"
)


def host_model(**given: Any) -> dict[str, Any]:
    """The engine's host model with the values a source gives in place of its own."""
    unknown = set(given) - set(ENGINE_HOST)
    if unknown:
        raise ValueError(f"not host model fields: {', '.join(sorted(unknown))}")
    return {**ENGINE_HOST, **given}
