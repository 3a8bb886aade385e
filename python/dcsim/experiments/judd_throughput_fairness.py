"""Judd (Morgan Stanley) slides, "Throughput, Fairness, & Latency" and "Throughput and
Fairness": 19 senders into one 10 Gbps receiver, TCP against DCTCP+.

Slide setup (the diagram is all there is): "19 senders" → "Switch" → "10 Gbps" → "Receiver",
"190 Gbps aggregate" (10 Gbps per sender), "Latency measurements" at the receiver side. The
"Throughput and Fairness" slide is a figure without numbers; the "Latency" table (TCP mean
4.01 ms, DCTCP+ 0.0422 ms) is the judd-latency-table experiment, which reuses
:func:`scenario` here and adds its latency probes.

Our setup: the shared Judd testbed (``judd.fanin``; judd.py's docstring gives every choice):
hosts 1..19 each send one long-lived flow to host 0 over 10 Gbps links (5 µs per link, base
RTT ≈ 22.6 µs with 1500-B packets and their ACKs serialised), one switch whose port to the
receiver holds 5.5 MB (static), Linux hosts of the time (RTO_min 200 ms, IW 10, delayed ACK
2 / 40 ms).
- "TCP": CUBIC (Linux's default) over drop-tail.
- "DCTCP+": DCTCP (g = 1/16, α₀ = 1, minimum window 2) over RED-ECN marking at K = 20
  packets on the instantaneous queue (``judd.red_ecn()``: non-ECT packets above K are dropped),
  hosts with the slides' fixes (``judd.FIXED_HOSTS``: ECT on every packet, SYNs, pure ACKs
  and retransmissions included, as Linux's DCTCP sends them).
- "DCTCP" (built by :func:`scenario`, not run here): the same with RFC 3168 hosts
  (``judd.RFC3168_HOSTS``), whose non-ECT SYNs are dropped above K: senders that open their
  connection once the queue is above K wait for SYN retries (1 s, 2 s, ...); that pitfall is
  judd-connection-establishment's subject, not this slide's.

Assumptions:
- One long-lived flow per sender, MTU 1500 (MSS 1460), K = 20 (spec judd-throughput-fairness
  ASSUMPTION; DERIVED: DCTCP+'s 42 µs mean latency bounds its queue to ≲ 53 KB, which rules out
  jumbo frames and K = 65). Flows start within 100 µs of t = 0 (``judd.fanin``'s jitter).
- Duration (NOT GIVEN): full = the spec's 30 s measured after 2 s of warm-up (slow start and
  TCP's first buffer-filling loss); quick = 4 s after 1 s (CUBIC's epochs here last about
  0.5 s, so 4 s holds several).
- Per-flow throughput = the flow's goodput over the measurement window; fairness = Jain's
  index over the 19 flows and the slowest/fastest ratio. The ceiling is the most payload a
  10 Gbps link carries in 1500-B packets with 38 B of Ethernet framing: 10 × 1460 / 1538 =
  9.493 Gbps.
- Latency probes (for judd-latency-table, run here so both share the runs): host 20 answers
  64-B requests from the receiver with 64-B responses over one persistent connection of the
  run's transport, Poisson, one every 1 ms on average from the end of the warm-up: a ping
  whose reply waits in the congested port. Its 0.5 Mbps take nothing measurable from the 19
  flows, and its connection is left out of the throughput and fairness figures.
- Queue: the receiver port's exact time-weighted occupancy over the window (the engine's
  histogram), in packets and bytes; its delay = (bytes + 38 B framing per packet) × 8 / 10 Gbps.
  Time series: the queue sampled every 1 ms, each flow's delivered bytes every 100 ms.

Checks: both fill the link (total ≥ 98% of the ceiling); DCTCP+ is fair (Jain ≥ 0.99); TCP's
standing queue is about the buffer (time-mean ≥ 80% of 5.5 MB: the slides' 4.01 ms is ≈ 5.0 MB
at 10 Gbps, 91%), DCTCP+'s about K (time-mean between K/2 and 2K packets; the slides' 42 µs is
≈ 53 KB ≈ 35 packets).

Outputs: throughput_fairness.csv (protocol, flow, src, goodput_mbps, retransmits, timeouts),
throughput_fairness_summary.csv (per protocol: total, ceiling, Jain, min/max, queue statistics,
queueing delay, drops, marks), throughput_fairness_series.csv (protocol, flow, t_s, mbps per
100-ms interval), throughput_fairness_queue.csv (protocol, t_s, packets, bytes),
throughput_fairness.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import common as c
from . import judd

ID = "judd-throughput-fairness"
TITLE = "Judd slides: throughput and fairness, 19 senders into one 10 Gbps receiver (TCP vs DCTCP+)"
DESCRIPTION = (
    "19 long flows at 10 Gbps into one 10 Gbps port with 5.5 MB: per-flow throughput, Jain index and standing queue, CUBIC over"
    " drop-tail vs DCTCP+ at K = 20."
)

SENDERS = 19
# The latency probe (module docstring): host 20 answers the receiver's pings.
PROBE_HOST = SENDERS + 1
PROBE_BYTES = 64
PROBE_INTERVAL_MS = 1.0
FRAMING_BYTES = 38
MTU_BYTES = 1500
HEADER_BYTES = 40
QUEUE_SAMPLE_US = 1000.0
FLOW_SAMPLE_US = 100_000.0
# Protocols of :func:`scenario`: (cc, AQM, host ECT policy).
PROTOCOL_SETUPS: dict[str, tuple[str, dict, dict]] = {
    "TCP": (judd.TCP_CC, c.DROP_TAIL, {}),
    "DCTCP": ("dctcp", judd.red_ecn(), judd.RFC3168_HOSTS),
    "DCTCP+": ("dctcp", judd.red_ecn(), judd.FIXED_HOSTS),
}
PROTOCOLS = ("TCP", "DCTCP+")
SCALES = {
    "quick": {"duration_s": 5.0, "warmup_s": 1.0},
    "full": {"duration_s": 32.0, "warmup_s": 2.0},
}

# Claim thresholds (module docstring).
FILL_FRACTION = 0.98
JAIN_MIN = 0.99
TCP_BUFFER_FRACTION = 0.80
# The slides' Latency table (ms), for the notes on the plot.
SLIDE_MEAN_LATENCY_MS = {"TCP": 4.01, "DCTCP+": 0.0422}


def scenario(proto: str, scale: str) -> dict:
    """The slides' 19-sender setup for ``proto`` ("TCP", "DCTCP" or "DCTCP+") at ``scale``
    ("quick" or "full"). Stable interface, reused by judd-latency-table.

    Returns a plain scenario dict (``judd.fanin``): hosts 1..19 each send one long-lived flow
    to host 0, flows listed in that order (flow i is host i + 1's); host 20 answers the
    latency probe, ``queries[0]`` (its connection is the last in ``flows``); the queue builds at the
    receiver's switch port ``common.RECEIVER_PORT`` ("s0->h0"), which is sampled every
    ``QUEUE_SAMPLE_US``; flows are sampled every ``FLOW_SAMPLE_US``; ``sim.duration_s`` and
    ``sim.warmup_s`` are ``SCALES[scale]``'s. The caller may add to it (flows, queries,
    measurements) without changing what is there.
    """
    s = c.check_scale(scale, SCALES)
    if proto not in PROTOCOL_SETUPS:
        raise ValueError(f"proto must be one of {sorted(PROTOCOL_SETUPS)}, got {proto!r}")
    cc, aqm, hosts = PROTOCOL_SETUPS[proto]
    slug = proto.lower().replace("+", "plus")
    sc = judd.fanin(
        f"{ID}-{slug}",
        senders=SENDERS,
        cc=cc,
        aqm=aqm,
        duration_s=s["duration_s"],
        warmup_s=s["warmup_s"],
        tcp=dict(hosts),
        queue_sample_us=QUEUE_SAMPLE_US,
        flow_sample_us=FLOW_SAMPLE_US,
    )
    sc["topology"]["hosts"] += 1
    probes = math.ceil((s["duration_s"] - s["warmup_s"]) / (PROBE_INTERVAL_MS * 1e-3))
    sc["queries"] = [
        {
            "client": 0,
            "servers": [PROBE_HOST],
            "request_bytes": PROBE_BYTES,
            "response_bytes": PROBE_BYTES,
            "rounds": probes,
            "start_s": s["warmup_s"],
            "stop_s": s["duration_s"],
            "arrival": {"kind": "poisson", "mean_interval_ms": PROBE_INTERVAL_MS},
        }
    ]
    return sc


def bulk_flows(res: dict) -> list[dict]:
    """The 19 long-lived flows of a run (the probe's connection left out)."""
    return [f for f in c.flows(res) if f["workload"] is None]


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """``(protocol, scenario)`` for every run of this experiment."""
    c.check_scale(scale, SCALES)
    return [(p, scenario(p, scale)) for p in PROTOCOLS]


# --- analysis (plain functions of the results; judd-scale-table uses them too) -------------


def base_rtt_s(
    mtu_bytes: int = MTU_BYTES,
    rate_gbps: float = judd.RATE_GBPS,
    delay_us: float = judd.DELAY_US,
    framing_bytes: int = FRAMING_BYTES,
    header_bytes: int = HEADER_BYTES,
) -> float:
    """RTT of a full-size segment and its ACK on the idle star: 4 link delays, the segment
    serialised on two links and the ACK (headers only) on two."""
    bit_s = 1.0 / (rate_gbps * 1e9)
    return (
        4 * delay_us * 1e-6
        + 2 * (mtu_bytes + framing_bytes) * 8 * bit_s
        + 2 * (header_bytes + framing_bytes) * 8 * bit_s
    )


def queue_delay_s(
    mean_bytes: float,
    mean_packets: float,
    rate_gbps: float = judd.RATE_GBPS,
    framing_bytes: int = FRAMING_BYTES,
) -> float:
    """Time to drain a queue of ``mean_bytes`` in ``mean_packets`` packets: each packet also
    carries its Ethernet framing on the wire."""
    return (mean_bytes + framing_bytes * mean_packets) * 8 / (rate_gbps * 1e9)


def fairness(goodputs_bps: list[float] | np.ndarray) -> dict[str, float]:
    """Total, Jain's index and slowest/fastest of per-flow throughputs (bit/s)."""
    g = np.asarray(goodputs_bps, dtype=float)
    mx = float(g.max()) if len(g) else float("nan")
    return {
        "total_gbps": float(g.sum()) / 1e9,
        "jain": c.jain(g),
        "min_mbps": float(g.min()) / 1e6 if len(g) else float("nan"),
        "max_mbps": mx / 1e6,
        "min_over_max": float(g.min()) / mx if len(g) and mx > 0 else float("nan"),
    }


def summarize(res: dict, proto: str) -> dict[str, Any]:
    """One protocol's row: throughput, fairness, queue and loss counters."""
    g = [f["goodput_bps"] for f in bulk_flows(res)]
    qs = c.queue_stats(res)
    p = c.port(res)
    delay = queue_delay_s(p["mean_bytes"], p["mean_packets"])
    return {
        "protocol": proto,
        **fairness(g),
        "ceiling_gbps": c.goodput_ceiling_bps(judd.RATE_GBPS, FRAMING_BYTES) / 1e9,
        "queue_mean_packets": qs["mean_packets"],
        "queue_mean_kb": float(p["mean_bytes"]) / 1e3,
        "queue_median_packets": qs["median_packets"],
        "queue_p99_packets": qs["p99_packets"],
        "queue_max_packets": qs["max_packets"],
        "queue_max_kb": qs["max_bytes"] / 1e3,
        "queue_delay_ms": delay * 1e3,
        "rtt_from_queue_ms": (delay + base_rtt_s()) * 1e3,
        "drops": qs["drops"],
        "marks": qs["marks"],
        **{k: int(sum(f[k] for f in bulk_flows(res))) for k in ("retransmits", "timeouts", "syn_retries")},
    }


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    res = {p: r for (p, _), r in zip(plan, results)}

    flow_rows, series, queue = [], [], []
    for proto, r in res.items():
        for i, f in enumerate(bulk_flows(r)):
            flow_rows.append(
                {
                    "protocol": proto,
                    "flow": i,
                    "src": int(f["src"]),
                    "goodput_mbps": f["goodput_bps"] / 1e6,
                    "retransmits": int(f["retransmits"]),
                    "timeouts": int(f["timeouts"]),
                }
            )
        rates = c.flow_rates(c.flow_samples(r))
        series.append(rates[rates.flow < SENDERS].assign(protocol=proto))
        t, pk, by = c.queue_series(r)
        queue.append(pd.DataFrame({"protocol": proto, "t_s": t, "packets": pk, "bytes": by}))
    fdf = pd.DataFrame(flow_rows)
    summ = {p: summarize(r, p) for p, r in res.items()}
    sdf = pd.DataFrame(list(summ.values()))
    ser = pd.concat(series, ignore_index=True)[["protocol", "flow", "t_s", "mbps"]]
    qdf = pd.concat(queue, ignore_index=True)
    fdf.to_csv(out / "throughput_fairness.csv", index=False)
    sdf.to_csv(out / "throughput_fairness_summary.csv", index=False)
    ser.to_csv(out / "throughput_fairness_series.csv", index=False)
    qdf.to_csv(out / "throughput_fairness_queue.csv", index=False)
    files = plot(fdf, ser, qdf, summ, out)

    tcp, dp = summ["TCP"], summ["DCTCP+"]
    ceiling = tcp["ceiling_gbps"]
    buf_mb = judd.PORT_BUFFER_BYTES / 1e6
    claims = [
        c.claim(
            f"Both fill the 10 Gbps link: total throughput ≥ {FILL_FRACTION:.0%} of the "
            f"{ceiling:.3f} Gbps ceiling (1460-B payload in 1538 B on the wire)",
            "190 Gbps offered into 10 Gbps (figure: both at line rate)",
            f"TCP {tcp['total_gbps']:.3f} Gbps, DCTCP+ {dp['total_gbps']:.3f} Gbps "
            f"({tcp['total_gbps'] / ceiling:.1%}, {dp['total_gbps'] / ceiling:.1%})",
            min(tcp["total_gbps"], dp["total_gbps"]) >= FILL_FRACTION * ceiling,
        ),
        c.claim(
            f"DCTCP+ shares the link fairly among the 19 flows: Jain's index ≥ {JAIN_MIN}",
            "figure only (Throughput and Fairness)",
            f"DCTCP+ Jain {dp['jain']:.4f}, slowest/fastest {dp['min_over_max']:.2f} "
            f"({dp['min_mbps']:.0f}-{dp['max_mbps']:.0f} Mbps); TCP Jain {tcp['jain']:.4f}, "
            f"slowest/fastest {tcp['min_over_max']:.2f}",
            dp["jain"] >= JAIN_MIN,
        ),
        c.claim(
            f"TCP's standing queue is about the buffer: time-mean ≥ {TCP_BUFFER_FRACTION:.0%} "
            f"of the {buf_mb:.1f} MB port",
            "TCP latency 4.01 ms mean ≈ 5.0 MB of queue at 10 Gbps (spec DERIVED)",
            f"TCP mean {tcp['queue_mean_kb'] / 1e3:.2f} MB "
            f"({tcp['queue_mean_kb'] / 1e3 / buf_mb:.0%}; {tcp['queue_mean_packets']:.0f} "
            f"packets, {tcp['queue_delay_ms']:.2f} ms of queueing), max "
            f"{tcp['queue_max_kb'] / 1e3:.2f} MB",
            tcp["queue_mean_kb"] * 1e3 >= TCP_BUFFER_FRACTION * judd.PORT_BUFFER_BYTES,
        ),
        c.claim(
            f"DCTCP+'s standing queue is about K = {judd.K} packets: time-mean between K/2 "
            "and 2K",
            "DCTCP+ latency 0.0422 ms mean ≈ 53 KB of queue (spec DERIVED)",
            f"DCTCP+ mean {dp['queue_mean_packets']:.1f} packets ({dp['queue_mean_kb']:.1f} KB, "
            f"{dp['queue_delay_ms'] * 1e3:.1f} µs of queueing), median "
            f"{dp['queue_median_packets']}, p99 {dp['queue_p99_packets']}; TCP/DCTCP+ mean "
            f"queue {tcp['queue_mean_kb'] / dp['queue_mean_kb']:.0f}×",
            judd.K / 2 <= dp["queue_mean_packets"] <= 2 * judd.K,
        ),
    ]
    metrics = {
        "duration_s": s["duration_s"],
        "warmup_s": s["warmup_s"],
        "senders": SENDERS,
        "summary": summ,
        "flow_mbps": {p: fdf[fdf.protocol == p].goodput_mbps.tolist() for p in res},
        "files": [
            "throughput_fairness.csv",
            "throughput_fairness_summary.csv",
            "throughput_fairness_series.csv",
            "throughput_fairness_queue.csv",
            *files,
        ],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics), "files": metrics["files"]}


COLORS = {"TCP": "#d62728", "DCTCP+": "#1f77b4", "DCTCP": "#2ca02c"}


def plot(
    fdf: pd.DataFrame, ser: pd.DataFrame, qdf: pd.DataFrame, summ: dict, out: Path
) -> list[str]:
    fig, axes = c.figure(2, 2, size=(10.0, 7.0))
    protos = list(summ)
    for ax, proto in zip(axes[0], protos):
        d = ser[ser.protocol == proto]
        for _, g in d.groupby("flow"):
            ax.plot(g.t_s, g.mbps, lw=0.6)
        st = summ[proto]
        ax.set_title(
            f"{proto}: per-flow throughput (Jain {st['jain']:.3f}, total "
            f"{st['total_gbps']:.2f} Gbps)",
            fontsize=9,
        )
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Throughput (Mbps, 100-ms bins)")
        ax.axhline(st["ceiling_gbps"] * 1e3 / SENDERS, color="k", ls=":", lw=0.8)
        ax.set_ylim(bottom=0)
    ax = axes[1][0]
    w = 0.4
    xs = np.arange(SENDERS)
    for k, proto in enumerate(protos):
        v = np.sort(fdf[fdf.protocol == proto].goodput_mbps.to_numpy())
        ax.bar(xs + (k - 0.5) * w, v, width=w, color=COLORS.get(proto), label=proto)
    ax.axhline(summ[protos[0]]["ceiling_gbps"] * 1e3 / SENDERS, color="k", ls=":", lw=0.8,
               label="fair share")
    ax.set_xticks(xs, [str(i + 1) for i in xs], fontsize=6.5)
    ax.set_xlabel("Flow (sorted by throughput)")
    ax.set_ylabel("Mean throughput (Mbps)")
    ax.set_title("Per-flow throughput over the measurement window", fontsize=9)
    ax.legend(fontsize=7.5)
    c.note(ax, "slides: figure only, no numbers", loc="lower right")
    ax = axes[1][1]
    for proto in protos:
        d = qdf[qdf.protocol == proto]
        ax.plot(d.t_s, np.maximum(d.bytes / 1e3, 0.1), lw=0.6, color=COLORS.get(proto),
                label=f"{proto} (mean {summ[proto]['queue_mean_kb']:.0f} KB)")
    ax.axhline(judd.PORT_BUFFER_BYTES / 1e3, color="k", ls="--", lw=0.8, label="buffer 5.5 MB")
    ax.axhline(judd.K * MTU_BYTES / 1e3, color="gray", ls=":", lw=0.8, label=f"K = {judd.K} pkts")
    ax.set_yscale("log")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Receiver port queue (KB, 1-ms samples)")
    ax.set_title("Standing queue", fontsize=9)
    ax.legend(fontsize=7, loc="center right")
    c.note(ax, "slides (Latency): TCP 4.01 ms ≈ 5.0 MB,\nDCTCP+ 0.042 ms ≈ 53 KB",
           loc="lower left")
    return c.save_figure(fig, out, "throughput_fairness")
