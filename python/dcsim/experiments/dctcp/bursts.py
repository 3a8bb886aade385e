"""The 10 Gbps fan-in of the DCTCP paper's Figs. 14 and 15 and of §3.5's host bursts: two
long-lived flows into one receiver, every link 10 Gbps, on the testbed's 10 Gbps host; the K
sweep against TCP on that host and on the same host made smooth (Eq. 13's idealised sources),
where DCTCP's throughput reaches TCP's (the knee), and the bursts the hosts send into the
switch. `dctcp-fig14` and `dctcp-burst-k` share the sweep's runs (built here, so simulated
once); `dctcp-fig15` runs the same fan-in with RED."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..declarations import Params, Runs, Testbed
from ..scenarios import DROP_TAIL, RECEIVER_PORT, fan_in, threshold
from ..units import gbps
from .model import bdp_packets, k_guideline

if TYPE_CHECKING:
    import pandas as pd

RATE_GBPS = 10.0
SENDERS = 2  # not given: as Figs. 1 and 13 and the CS244 reproduction
PAPER_KNEE = 65  # §4.1: "the recommended value of 65"
PAPER_BURSTS = (30, 40)  # §3.5: "bursts of as many as 30-40 packets"
# Eq. 13 at the paper's 100 µs RTT: K > C·RTT/7 ≈ 12 packets.
K_THEORY = k_guideline(bdp_packets(RATE_GBPS, 100.0))
# Duration not given; the K sweep's values are an assumption (5..100).
SCALES: dict[str, Params] = {
    "quick": {"warmup_s": 0.5, "duration_s": 1.0, "k": (5, 10, 15, 20, 30, 40, 50, 65, 80, 100)},
    "full": {
        "warmup_s": 1.0,
        "duration_s": 5.0,
        "k": (5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 65, 70, 80, 90, 100),
    },
}

# The hosts a sweep runs on: the testbed's own 10 Gbps host, and that host without receive
# interrupt moderation or offload bursts, the smooth sources Eq. 13 assumes.
TESTBED_HOST = "testbed"
SMOOTH_HOST = "smooth"
HOSTS: dict[str, dict[str, Any]] = {
    TESTBED_HOST: {},
    SMOOTH_HOST: {"rx_interrupt_interval_us": 0.0, "offload_burst_segments": 0},
}
# A sweep's run: (host, DCTCP's K; None for TCP over drop-tail).
SweepKey = tuple[str, int | None]
# The senders' links into the switch, where their bursts arrive, and how long they are traced.
SENDER_PORTS = tuple(f"h{i}->s0" for i in range(1, SENDERS + 1))
BURST_TRACE_S = 0.1


def ten_gbps(
    name: str,
    tb: Testbed,
    p: Params,
    *,
    cc: str | None,
    aqm: dict[str, Any],
    host: str = TESTBED_HOST,
    queue_sample_us: float = 0.0,
) -> dict[str, Any]:
    """The 10 Gbps fan-in: :data:`SENDERS` flows of ``cc`` (None: the stack's TCP) opening
    within 100 µs, on ``host`` (a key of :data:`HOSTS`), over the scale's warm-up and duration."""
    return fan_in(
        name,
        tb,
        senders=SENDERS,
        cc=cc,
        aqm=aqm,
        rate_gbps=RATE_GBPS,
        duration_s=p["duration_s"],
        warmup_s=p["warmup_s"],
        host=HOSTS[host],
        queue_sample_us=queue_sample_us,
        jitter_us=100.0,
    )


def k_sweep(p: Params, tb: Testbed) -> dict[SweepKey, dict[str, Any]]:
    """``(host, K)`` → scenario: for each host, TCP over drop-tail (K None), then DCTCP at
    every K of the scale. Named as Fig. 14's runs, whichever experiment asks."""
    return {
        (h, k): ten_gbps(
            f"dctcp-fig14-{h}-" + ("tcp" if k is None else f"k{k}"),
            tb,
            p,
            cc=None if k is None else "dctcp",
            aqm=DROP_TAIL if k is None else threshold(k),
            host=h,
        )
        for h in HOSTS
        for k in (None, *p["k"])
    }


def burst_run(p: Params, tb: Testbed, host: str) -> dict[str, Any]:
    """DCTCP at the paper's K = 65 on ``host``, its senders' links into the switch traced for
    :data:`BURST_TRACE_S` after the warm-up: the bursts the hosts send."""
    sc = ten_gbps(
        f"dctcp-burst-k-{host}-traced",
        tb,
        {"warmup_s": p["warmup_s"], "duration_s": p["warmup_s"] + BURST_TRACE_S},
        cc="dctcp",
        aqm=threshold(PAPER_KNEE),
        host=host,
    )
    sc["measure"]["trace_ports"] = list(SENDER_PORTS)
    return sc


def burst_sizes(times_s: np.ndarray, packet_s: float) -> np.ndarray:
    """Sizes (packets) of the bursts in one link's departure times: runs of packets each
    leaving within 1.5 packet times of the one before, i.e. back to back."""
    if len(times_s) == 0:
        return np.zeros(0, dtype=int)
    breaks = np.flatnonzero(np.diff(np.asarray(times_s, dtype=float)) > 1.5 * packet_s)
    return np.diff(np.r_[0, breaks + 1, len(times_s)])


def burst_stats(res: Any, after_s: float, framing_bytes: int) -> dict[str, float]:
    """The bursts of a :func:`burst_run`'s data packets after ``after_s``, over both senders:
    how many, their mean size, and the size of the burst a packet travels in (median, 99th
    percentile; each packet counts once), and the largest."""
    tr = res.trace
    data = tr[(tr.event == "tx") & (tr.t_s >= after_s) & (tr.len > 0)]
    packet_s = (1500 + framing_bytes) * 8 / (RATE_GBPS * 1e9)
    sizes = np.concatenate([burst_sizes(d.t_s.to_numpy(), packet_s) for _, d in data.groupby("port_name")] or [np.zeros(0, int)])
    if not len(sizes):
        return {"bursts": 0, "mean": 0.0, "packet_median": 0.0, "packet_p99": 0.0, "max": 0}
    per_packet = np.repeat(sizes, sizes)
    return {
        "bursts": int(len(sizes)),
        "mean": float(sizes.mean()),
        "packet_median": float(np.percentile(per_packet, 50)),
        "packet_p99": float(np.percentile(per_packet, 99)),
        "max": int(sizes.max()),
    }


def throughput_table(runs: Runs) -> pd.DataFrame:
    """One row per run of a :func:`k_sweep`: goodput and the receiver port's queue."""
    import pandas as pd

    rows = []
    for (host, k), res in runs.items():
        if host not in HOSTS:
            continue
        qs = res.queue_stats(RECEIVER_PORT)
        rows.append(
            {
                "K": k,
                "host": host,
                "protocol": "TCP" if k is None else "DCTCP",
                "goodput_gbps": gbps(res.goodput_bps()),
                "utilization": qs["utilization"],
                "median_queue_packets": qs["median_packets"],
                "p1_queue_packets": qs["p1_packets"],
                "drops": qs["drops"],
                "timeouts": res.total("timeouts"),
            }
        )
    return pd.DataFrame(rows)


def knee(ks: list[int], tput: list[float], ref: float, frac: float = 0.97) -> int | None:
    """Smallest K from which every K' ≥ K in the sweep reaches ``frac`` × ``ref``."""
    best = None
    for k, t in sorted(zip(ks, tput), reverse=True):
        if t >= frac * ref:
            best = k
        else:
            break
    return best


def by_host(df: pd.DataFrame) -> tuple[dict[str, float], dict[str, pd.DataFrame], dict[str, int | None]]:
    """For each host of a :func:`throughput_table`: TCP's goodput (Gbps), DCTCP's rows sorted
    by K, and DCTCP's :func:`knee` against that TCP."""
    hosts = [h for h in HOSTS if h in set(df.host)]
    tcp = {h: float(df[(df.protocol == "TCP") & (df.host == h)].goodput_gbps.iloc[0]) for h in hosts}
    dct = {h: df[(df.protocol == "DCTCP") & (df.host == h)].sort_values("K") for h in hosts}
    knees = {h: knee(list(dct[h].K.astype(int)), list(dct[h].goodput_gbps), tcp[h]) for h in hosts}
    return tcp, dct, knees


def tcp_fills(tcp_gbps: dict[str, float], ceiling_gbps: float) -> tuple[bool, str]:
    """Whether every TCP reference reaches 0.9 × the goodput ceiling, and the note saying which
    does not: "DCTCP ≥ 0.97 × TCP" means something only if TCP fills the link, as the paper's
    does (else it holds trivially, e.g. if both stall)."""
    ok = all(v >= 0.9 * ceiling_gbps for v in tcp_gbps.values())
    return ok, "" if ok else f"; a TCP reference is below 0.9 × the {ceiling_gbps:.2f} Gbps ceiling"
