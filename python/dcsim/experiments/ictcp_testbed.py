"""The ICTCP paper's testbed (ICTCP paper §II-A, §VII; spec experiments.md "Common defaults for
ICTCP-paper experiments") as dcsim scenarios, and the incast goodput measurement.

Testbed: 47 servers (≤ 46 senders + 1 receiver) on one Quanta LB4G 48-port GbE switch: a star
of 1 Gbps links, 38 B Ethernet framing, and a per-link delay chosen so that the base RTT - the
paper's "observed RTT when there is no other traffic and the TCP receive window is one MSS",
"around 100 μs" (§II-B) - is 100 µs: 4 link delays + a 1,538-B frame serialised twice (NIC and
switch port, 12.304 µs each) + a 78-B ACK frame twice (0.624 µs each) = 100 µs gives 18.536 µs
per link (spec algorithms.md §2.1: reach the base RTT by setting propagation). The switch is the engine's
``quanta_lb4g`` preset: 4 MB shared memory with a dynamic threshold calibrated so one busy port
holds 128.5 kB, the buffer the paper's §V finds its own 47-server incast needs at 2 MSS; its
"85 kB for each port" (§II-C) is the equal split, the limit only when every port is busy
(spec algorithms.md §2.3 M13; ASSUMPTION, see the preset's documentation). Drop-tail.
TCP is NewReno with SACK on the `windows_2008r2` stack profile (Windows Server 2008 R2, §VII;
docs/stacks.md), timeout (RTO_min) 300 ms.

Assumptions shared by the ICTCP motivation experiments (ictcp-fig3/4/5):
- Delayed ACK m = 2 with a 200 ms timeout: the profile's (Microsoft KB328890; the engine ACKs
  the end of a response at once, so the timer only matters for a lone segment mid-window).
- Hosts: the engine's NIC model (FIFO transmit queue of 1000 packets serialised at 1 Gbps,
  spec algorithms.md §1.10 M10), its default 1 µs transmit jitter, and one host model,
  :data:`HOST_PROFILE`, calibrated once by the ``ictcp-host-calibration`` experiment against
  Fig. 5 and used unchanged by every ICTCP experiment: receive interrupts at most every 18 µs
  (the BCM5709C's default coalescing in Linux's bnx2 driver; the Windows driver's is NOT
  GIVEN) and the
  per-packet receive processing that fits Fig. 5's RTT with the least host delay (none: the
  fit cannot tell 0 to 12 µs apart). The link delay gives back what processing takes
  (:func:`link`), so the base RTT stays 100 µs.
- Requests are one 100-B segment (spec M23 ASSUMPTION); connections are persistent and
  pre-established; rounds are barrier-synchronised (the next request goes out when the last
  response of the round has arrived), the first at ``QUERY_START_S``.
- Host 0 is the receiver, hosts 1..n the senders; a background flow (ictcp-fig4) comes from
  host 47, the switch's 48th port, so that it never shares a NIC with an incast sender.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..results import rows

MSS = 1460
HOSTS = 48  # 48-port switch; the paper uses 47 servers, the 48th port carries background traffic
MAX_SENDERS = 46
RECEIVER = 0
BACKGROUND_HOST = 47
# Base RTT 100 µs at rwnd = 1 MSS: (100 - 2 × 12.304 - 2 × 0.624) / 4 µs per link (docstring).
BASE_RTT_US = 100.0
LINK_DELAY_US = (BASE_RTT_US - 2 * 12.304 - 2 * 0.624) / 4
LINK = {"rate_gbps": 1.0, "delay_us": LINK_DELAY_US, "framing_bytes": 38}
BUFFER = {"kind": "preset", "name": "quanta_lb4g"}
TCP = {
    "profile": "windows_2008r2",
    "cc": "newreno",
    "rto_min_ms": 300.0,
}
QUERY_START_S = 0.01
# The testbed's host model, calibrated once (experiment ictcp-host-calibration): receive
# interrupts at most every 18 µs (the BCM5709C's default receive coalescing, Linux
# drivers/net/ethernet/broadcom/bnx2.c bnx2_init_board: rx_ticks = 18 µs; modelled as an
# interrupt throttle, so a lone packet is not delayed) and the per-packet receive processing
# that fits Fig. 5's RTT with the least host delay.
HOST_PROFILE = {"rx_interrupt_interval_us": 18.0, "rx_processing_us": 0.0}
# Payload goodput ceiling of a 1 Gbps link with full segments: 1460 / 1538.
CEILING_MBPS = 1000.0 * MSS / (MSS + 40 + 38)


def link(host: dict | None = None) -> dict:
    """The testbed's links for hosts ``host``: the base RTT (1 MSS, no other traffic) is the
    paper's 100 µs whatever the host model, so the propagation delay gives up what the hosts'
    receive processing (``rx_processing_us``, once at each end of the round trip) takes."""
    processing_us = float((host or {}).get("rx_processing_us", 0.0))
    return dict(LINK) | {"delay_us": LINK_DELAY_US - 2 * processing_us / 4}


def scenario(
    name: str,
    *,
    duration_s: float,
    warmup_s: float = 0.0,
    queries: list[dict] | None = None,
    flows: list[dict] | None = None,
    host: dict | None = None,
    seed: int = 1,
) -> dict:
    return {
        "name": name,
        "sim": {
            "seed": int(seed),
            "duration_s": float(duration_s),
            "warmup_s": float(warmup_s),
            # Incast runs end with their last round (background flows would run on).
            "stop_when_queries_done": bool(queries),
        },
        "topology": {"kind": "star", "hosts": HOSTS, "link": link(HOST_PROFILE | (host or {}))},
        "switch": {"buffer": dict(BUFFER), "aqm": {"kind": "drop_tail"}},
        "host": HOST_PROFILE | (host or {}),
        "tcp": dict(TCP),
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
    senders: int,
    response_bytes: int,
    rounds: int,
    start_s: float,
    share: float = 1.0,
    slack_per_round_s: float = 0.02,
) -> float:
    """A first guess at the simulated time the rounds need: the ideal round at ``share`` of the
    link, plus slack per round. Rounds that still do not finish are re-run longer
    (:func:`run_incast`); runs stop at their last round (``sim.stop_when_queries_done``)."""
    ideal = senders * response_bytes * 8 / (CEILING_MBPS * 1e6 * share) + 300e-6
    return start_s + rounds * (ideal * 1.3 + slack_per_round_s) + 0.4


def run_incast(
    scenarios: list[dict], jobs: int, rounds: list[int], max_tries: int = 3
) -> list[dict]:
    """Run incast scenarios; re-run, with 3x the duration, any whose rounds did not all finish
    (timeouts at RTO_min = 300 ms make a round's length unpredictable). Returns raw results."""
    from . import common as c

    results: list[dict | None] = [None] * len(scenarios)
    todo = list(range(len(scenarios)))
    scs = [dict(s) for s in scenarios]
    for attempt in range(max_tries):
        out = c.run_all([scs[i] for i in todo], jobs)
        again = []
        for i, r in zip(todo, out):
            results[i] = r
            if completed_rounds(r) < rounds[i] and attempt + 1 < max_tries:
                again.append(i)
        for i in again:
            s = dict(scs[i])
            s["sim"] = dict(s["sim"], duration_s=s["sim"]["duration_s"] * 3.0)
            scs[i] = s
        todo = again
        if not todo:
            break
    return [r for r in results if r is not None]


def _queries(res: dict) -> list[dict]:
    return rows(res["queries"])


def completed_rounds(res: dict) -> int:
    return sum(1 for q in _queries(res) if q.get("qct_s") is not None and math.isfinite(q["qct_s"]))


def incast_stats(res: dict) -> dict:
    """Incast goodput of one run (spec algorithms.md §8; ICTCP §VII-A).

    ``goodput_mbps``: per round, total response bytes / round duration (request issued → last
    response byte), averaged over the rounds — "the average value of 100 experimental rounds".
    A round issued but not finished when the simulation ends (a stall: repeated timeouts with
    exponential back-off) counts with its duration so far, an upper bound on its goodput, so a
    stall is not hidden by averaging only the finished rounds. ``aggregate_mbps``: all bytes /
    all rounds' time (weighs the 300-ms timeout rounds by their length). ``timeout_ratio``:
    fraction of finished rounds with at least one timeout (§VII-A); ``stalled``: rounds issued
    but unfinished."""
    qs = _queries(res)
    end = float(res.get("duration_s") or float("nan"))
    done = [q for q in qs if q.get("qct_s") is not None and math.isfinite(q["qct_s"])]
    open_ = [q for q in qs if q not in done and q.get("issued_s") is not None]
    nan = float("nan")
    if not done and not open_:
        return {
            "goodput_mbps": nan,
            "aggregate_mbps": nan,
            "timeout_ratio": nan,
            "rounds": 0,
            "issued": len(qs),
            "stalled": 0,
            "qct_median_ms": nan,
        }
    by = np.array([q["response_bytes"] for q in done + open_], dtype=float)
    t = np.array([q["qct_s"] for q in done] + [end - q["issued_s"] for q in open_], dtype=float)
    to = np.array([q["timeouts"] for q in done], dtype=float)
    return {
        "goodput_mbps": float(np.mean(by * 8 / t) / 1e6),
        "aggregate_mbps": float(by.sum() * 8 / t.sum() / 1e6),
        "timeout_ratio": float(np.mean(to > 0)) if len(done) else nan,
        "rounds": len(done),
        "issued": len(qs),
        "stalled": len(open_),
        "qct_median_ms": float(np.median(t) * 1e3),
    }


# The three transports the ICTCP experiments compare on the same runs (issue: ICTCP, TCP with the
# Windows 300 ms timeout, DCTCP).
PROTOCOLS = ("ICTCP", "TCP", "DCTCP")
DCTCP_K_PACKETS = 20  # the DCTCP paper's K at 1 Gbps (§4.1); the LB4G itself marks nothing


def with_protocol(sc: dict, protocol: str, min_rwnd_segments: int = 2) -> dict:
    """``sc`` run by ``protocol``: ICTCP on the receiver (NewReno + SACK senders, spec §6), plain
    TCP, or DCTCP (senders, receivers and K = 20 marking at the switch). All keep the testbed's
    300 ms timeout."""
    from . import common as c

    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    sc = {**sc, "tcp": dict(sc["tcp"]), "switch": dict(sc["switch"])}
    if protocol == "ICTCP":
        sc["ictcp"] = {"hosts": [RECEIVER], "min_rwnd_segments": int(min_rwnd_segments)}
    elif protocol == "DCTCP":
        sc["tcp"]["cc"] = "dctcp"
        sc["switch"]["aqm"] = c.dctcp_aqm(DCTCP_K_PACKETS)
    return sc
