"""Judd (Morgan Stanley) slides, "Throughput, Fairness, & Latency" and "Throughput and
Fairness": 19 senders into one 10 Gbps receiver, TCP against DCTCP+.

Slide setup (the diagram is all there is): "19 senders" → "Switch" → "10 Gbps" → "Receiver",
"190 Gbps aggregate" (10 Gbps per sender), "Latency measurements" at the receiver side. The
"Throughput and Fairness" slide is a figure without numbers; the "Latency" table (TCP mean
4.01 ms, DCTCP+ 0.0422 ms) is the judd-latency-table experiment, which measures the same runs
(judd/fairness.py builds them for both) through their latency probes.

Our setup: the shared Judd testbed (``testbeds.fanin``; the testbed's notes in
judd/testbeds.py give every choice): hosts 1..19 each send one long-lived flow to host 0 over
10 Gbps links (5 µs per link, base RTT ≈ 22.6 µs with 1500-B packets and their ACKs
serialised), one switch whose port to the receiver holds 5.5 MB (static), Linux hosts of the
time (RTO_min 200 ms, IW 10, delayed ACK 2 / 40 ms).
- "TCP": CUBIC (Linux's default) over drop-tail.
- "DCTCP+": DCTCP (g = 1/16, α₀ = 1, minimum window 2) over RED-ECN marking at K = 20
  packets on the instantaneous queue (``testbeds.red_ecn()``: non-ECT packets above K are
  dropped), hosts with the slides' fixes (``testbeds.FIXED_HOSTS``: ECT on every packet, SYNs,
  pure ACKs and retransmissions included, as Linux's DCTCP sends them).
- DCTCP with RFC 3168 hosts (``testbeds.RFC3168_HOSTS``) is not run here: their non-ECT SYNs
  are dropped above K, so senders that open their connection once the queue is above K wait
  for SYN retries (1 s, 2 s, ...); that pitfall is judd-connection-establishment's subject,
  not this slide's.

Assumptions:
- One long-lived flow per sender, MTU 1500 (MSS 1460), K = 20 (an assumption; derived from
  the Latency table: DCTCP+'s 42 µs mean latency bounds its queue to ≲ 53 KB, which rules out
  jumbo frames and K = 65). Flows start within 100 µs of t = 0 (``testbeds.fanin``'s jitter).
- Duration (not given): full = 30 s measured after 2 s of warm-up (slow start and TCP's first
  buffer-filling loss); quick = 4 s after 1 s (CUBIC's epochs here last about 0.5 s, so 4 s
  holds several).
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
  The ceiling, the queueing delay and the base RTT take the delay and framing of the testbed's
  links, and "the buffer" is the testbed's port (``testbeds.port_buffer_bytes``: on a switch
  that shares its memory, what its dynamic threshold lets one busy port hold).
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

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...results import Results
from ..analysis import flow_rates, goodput_ceiling_bps, jain
from ..declarations import Claim, Experiment, Metrics, Runs
from ..plotting import figure, note
from ..scenarios import RECEIVER_PORT, port_share_bytes
from ..units import gbps, kb, mbps, ms
from .fairness import COLORS, PROTOCOLS, SCALES, SENDERS, scenarios
from .testbeds import MTU_BYTES, RATE_GBPS, K, base_rtt_s, queue_delay_s

# Claim thresholds (module docstring).
FILL_FRACTION = 0.98
JAIN_MIN = 0.99
TCP_BUFFER_FRACTION = 0.80


def bulk_flows(res: Results) -> list[dict[str, Any]]:
    """The 19 long-lived flows of a run (the probe's connection left out)."""
    return [f for f in res.rows("flows") if f["workload"] is None]


def fairness(goodputs_bps: list[float] | np.ndarray) -> dict[str, float]:
    """Total, Jain's index and slowest/fastest of per-flow throughputs (bit/s)."""
    g = np.asarray(goodputs_bps, dtype=float)
    mx = float(g.max()) if len(g) else float("nan")
    return {
        "total_gbps": gbps(float(g.sum())),
        "jain": jain(g),
        "min_mbps": mbps(float(g.min())) if len(g) else float("nan"),
        "max_mbps": mbps(mx),
        "min_over_max": float(g.min()) / mx if len(g) and mx > 0 else float("nan"),
    }


def summarize(res: Results, proto: str, link: Mapping[str, Any]) -> dict[str, Any]:
    """One protocol's row on a testbed's ``link`` (its delay and framing): throughput,
    fairness, queue and loss counters."""
    g = [f["goodput_bps"] for f in bulk_flows(res)]
    qs = res.queue_stats(RECEIVER_PORT)
    p = res.port(RECEIVER_PORT)
    delay = queue_delay_s(p["mean_bytes"], p["mean_packets"], link)
    return {
        "protocol": proto,
        **fairness(g),
        "ceiling_gbps": gbps(goodput_ceiling_bps(RATE_GBPS, link["framing_bytes"])),
        "queue_mean_packets": qs["mean_packets"],
        "queue_mean_kb": kb(float(p["mean_bytes"])),
        "queue_median_packets": qs["median_packets"],
        "queue_p99_packets": qs["p99_packets"],
        "queue_max_packets": qs["max_packets"],
        "queue_max_kb": kb(qs["max_bytes"]),
        "queue_delay_ms": ms(delay),
        "rtt_from_queue_ms": ms(delay + base_rtt_s(link)),
        "drops": qs["drops"],
        "marks": qs["marks"],
        **{k: int(sum(f[k] for f in bulk_flows(res))) for k in ("retransmits", "timeouts", "syn_retries")},
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    flow_rows, series, queue = [], [], []
    for proto in PROTOCOLS:
        r = runs[proto]
        for i, f in enumerate(bulk_flows(r)):
            flow_rows.append(
                {
                    "protocol": proto,
                    "flow": i,
                    "src": int(f["src"]),
                    "goodput_mbps": mbps(f["goodput_bps"]),
                    "retransmits": int(f["retransmits"]),
                    "timeouts": int(f["timeouts"]),
                }
            )
        rates = flow_rates(r.flow_samples)
        series.append(rates[rates.flow < SENDERS].assign(protocol=proto))
        t, pk, by = r.queue_series(RECEIVER_PORT)
        queue.append(pd.DataFrame({"protocol": proto, "t_s": t, "packets": pk, "bytes": by}))
    fdf = pd.DataFrame(flow_rows)
    summ = {p: summarize(runs[p], p, runs.testbed.link) for p in PROTOCOLS}
    return Metrics(
        values={
            "duration_s": runs.params["duration_s"],
            "warmup_s": runs.params["warmup_s"],
            "senders": SENDERS,
            "port_buffer_bytes": port_share_bytes(runs.testbed.buffer(RATE_GBPS)),
            "summary": summ,
            "flow_mbps": {p: fdf[fdf.protocol == p].goodput_mbps.tolist() for p in PROTOCOLS},
        },
        tables={
            "throughput_fairness": fdf,
            "throughput_fairness_summary": pd.DataFrame(list(summ.values())),
            "throughput_fairness_series": pd.concat(series, ignore_index=True)[["protocol", "flow", "t_s", "mbps"]],
            "throughput_fairness_queue": pd.concat(queue, ignore_index=True),
        },
    )


# --- claims -------------------------------------------------------------------------------


def _fill(m: Metrics) -> tuple[bool, str]:
    tcp, dp = m["summary"]["TCP"], m["summary"]["DCTCP+"]
    ceiling = tcp["ceiling_gbps"]
    measured = (
        f"TCP {tcp['total_gbps']:.3f} Gbps, DCTCP+ {dp['total_gbps']:.3f} Gbps "
        f"({tcp['total_gbps'] / ceiling:.1%}, {dp['total_gbps'] / ceiling:.1%})"
    )
    return min(tcp["total_gbps"], dp["total_gbps"]) >= FILL_FRACTION * ceiling, measured


def _fair(m: Metrics) -> tuple[bool, str]:
    tcp, dp = m["summary"]["TCP"], m["summary"]["DCTCP+"]
    measured = (
        f"DCTCP+ Jain {dp['jain']:.4f}, slowest/fastest {dp['min_over_max']:.2f} "
        f"({dp['min_mbps']:.0f}-{dp['max_mbps']:.0f} Mbps); TCP Jain {tcp['jain']:.4f}, "
        f"slowest/fastest {tcp['min_over_max']:.2f}"
    )
    return dp["jain"] >= JAIN_MIN, measured


def _tcp_queue(m: Metrics) -> tuple[bool, str]:
    tcp = m["summary"]["TCP"]
    buf_mb = m["port_buffer_bytes"] / 1e6
    measured = (
        f"TCP mean {kb(tcp['queue_mean_kb']):.2f} MB "
        f"({kb(tcp['queue_mean_kb']) / buf_mb:.0%}; {tcp['queue_mean_packets']:.0f} "
        f"packets, {tcp['queue_delay_ms']:.2f} ms of queueing), max "
        f"{kb(tcp['queue_max_kb']):.2f} MB"
    )
    return tcp["queue_mean_kb"] * 1e3 >= TCP_BUFFER_FRACTION * m["port_buffer_bytes"], measured


def _dctcp_queue(m: Metrics) -> tuple[bool, str]:
    tcp, dp = m["summary"]["TCP"], m["summary"]["DCTCP+"]
    measured = (
        f"DCTCP+ mean {dp['queue_mean_packets']:.1f} packets ({dp['queue_mean_kb']:.1f} KB, "
        f"{dp['queue_delay_ms'] * 1e3:.1f} µs of queueing), median "
        f"{dp['queue_median_packets']}, p99 {dp['queue_p99_packets']}; TCP/DCTCP+ mean "
        f"queue {tcp['queue_mean_kb'] / dp['queue_mean_kb']:.0f}×"
    )
    return K / 2 <= dp["queue_mean_packets"] <= 2 * K, measured


# The Latency table's means (ms), which the queue claims turn into bytes at 10 Gbps.
LATENCY_MEANS = "Mean\t4.01\t0.0422"

CLAIMS = (
    Claim(
        id="both-fill-the-link",
        kind="derived",
        text=lambda m: (
            f"Both fill the 10 Gbps link: total throughput ≥ {FILL_FRACTION:.0%} of the "
            f"{m['summary']['TCP']['ceiling_gbps']:.3f} Gbps ceiling (1460-B payload in 1538 B on the wire)"
        ),
        paper="190 Gbps offered into 10 Gbps (figure: both at line rate)",
        quote="19 senders ... Switch ... 10 Gbps ... Receiver",
        section="slide 'Throughput, Fairness, & Latency'",
        check=_fill,
    ),
    Claim(
        id="dctcp-plus-fair",
        kind="derived",
        text=f"DCTCP+ shares the link fairly among the 19 flows: Jain's index ≥ {JAIN_MIN}",
        paper="figure only (Throughput and Fairness)",
        quote="Throughput and Fairness",
        section="slide 'Throughput and Fairness'",
        check=_fair,
    ),
    Claim(
        id="tcp-queue-about-the-buffer",
        kind="derived",
        text=lambda m: (
            f"TCP's standing queue is about the buffer: time-mean ≥ {TCP_BUFFER_FRACTION:.0%} "
            f"of the {m['port_buffer_bytes'] / 1e6:.1f} MB port"
        ),
        paper="TCP latency 4.01 ms mean ≈ 5.0 MB of queue at 10 Gbps",
        quote=LATENCY_MEANS,
        section="slide 'Latency'",
        check=_tcp_queue,
    ),
    Claim(
        id="dctcp-plus-queue-about-k",
        kind="derived",
        text=f"DCTCP+'s standing queue is about K = {K} packets: time-mean between K/2 and 2K",
        paper="DCTCP+ latency 0.0422 ms mean ≈ 53 KB of queue",
        quote=LATENCY_MEANS,
        section="slide 'Latency'",
        check=_dctcp_queue,
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    fdf = m.tables["throughput_fairness"]
    ser = m.tables["throughput_fairness_series"]
    qdf = m.tables["throughput_fairness_queue"]
    summ = m["summary"]
    fig, axes = figure(2, 2, size=(10.0, 7.0))
    protos = list(summ)
    for ax, proto in zip(axes[0], protos):
        d = ser[ser.protocol == proto]
        for _, g in d.groupby("flow"):
            ax.plot(g.t_s, g.mbps, lw=0.6)
        st = summ[proto]
        ax.set_title(f"{proto}: per-flow throughput (Jain {st['jain']:.3f}, total {st['total_gbps']:.2f} Gbps)", fontsize=9)
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
    ax.axhline(summ[protos[0]]["ceiling_gbps"] * 1e3 / SENDERS, color="k", ls=":", lw=0.8, label="fair share")
    ax.set_xticks(xs, [str(i + 1) for i in xs], fontsize=6.5)
    ax.set_xlabel("Flow (sorted by throughput)")
    ax.set_ylabel("Mean throughput (Mbps)")
    ax.set_title("Per-flow throughput over the measurement window", fontsize=9)
    ax.legend(fontsize=7.5)
    note(ax, "slides: figure only, no numbers", loc="lower right")
    ax = axes[1][1]
    for proto in protos:
        d = qdf[qdf.protocol == proto]
        ax.plot(
            d.t_s,
            np.maximum(kb(d.bytes), 0.1),
            lw=0.6,
            color=COLORS.get(proto),
            label=f"{proto} (mean {summ[proto]['queue_mean_kb']:.0f} KB)",
        )
    ax.axhline(kb(m["port_buffer_bytes"]), color="k", ls="--", lw=0.8, label=f"buffer {m['port_buffer_bytes'] / 1e6:.1f} MB")
    ax.axhline(K * MTU_BYTES / 1e3, color="gray", ls=":", lw=0.8, label=f"K = {K} pkts")
    ax.set_yscale("log")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Receiver port queue (KB, 1-ms samples)")
    ax.set_title("Standing queue", fontsize=9)
    ax.legend(fontsize=7, loc="center right")
    note(ax, "slides (Latency): TCP 4.01 ms ≈ 5.0 MB,\nDCTCP+ 0.042 ms ≈ 53 KB", loc="lower left")
    return fig


EXPERIMENT = Experiment(
    id="judd-throughput-fairness",
    paper="judd",
    figure="slides",
    title="throughput and fairness, 19 senders into one 10 Gbps receiver (TCP vs DCTCP+)",
    description=(
        "19 long flows at 10 Gbps into one 10 Gbps port with 5.5 MB: per-flow throughput, Jain index and standing queue, CUBIC over"
        " drop-tail vs DCTCP+ at K = 20."
    ),
    testbed="judd_testbed",
    scales=SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"throughput_fairness": plot},
    notes=__doc__ or "",
)
