"""Judd (Morgan Stanley), "Attaining the Promise and Avoiding the Pitfalls of TCP in the
Datacenter", slides "Coexistence with TCP" (two slides, figures only).

Paper setup: none given. The slides show figures only; the deck's conclusion says DCTCP
"Requires changes to work in production — Coexistence" and "Non-technical Challenges" asks
for "Support for TCP and DCTCP coexistence"; the next slide ("RED-ECN AQM Implementation")
names the fix: "Segregate DCTCP traffic using QoS". The mechanism (derived, not in the
slides' words): DCTCP (ECT) flows and non-ECN TCP flows share one queue that marks at K.
A RED-ECN switch drops every non-ECT packet arriving above K (``nonect = "drop"``): DCTCP
holds the queue around K, so TCP loses packets far more often than its fair share allows and
starves. Mark-only hardware (``nonect = "enqueue"``) lets TCP fill the buffer: DCTCP is marked
on every packet, backs off to its minimum window and loses its low queue. QoS segregation
(two class queues, DCTCP marking in one, drop-tail in the other) restores both. The first
claim checks that the non-ECT drop rate is ≫ 0 only in the single-queue configuration.

Our setup: the shared Judd testbed (judd/testbeds.py): a star, every link 10 Gbps and 5 µs
(base RTT ≈ 23 µs), 5.5 MB per switch port, K = 20 packets, Linux hosts of the time (RFC 3168
ECN: ``testbeds.RFC3168_HOSTS``; RTO_min 200 ms, IW 10). Hosts 1..N_D + N_T each send one
long-lived flow to host 0: the first N_D are DCTCP (class 0), the others CUBIC without ECN
(the stack's TCP, CUBIC on the slides' hosts, class 1). Mixes 1 + 1 and 4 + 4. Three switch configurations, side by
side:

- (a) one queue, RED-ECN: ``testbeds.red_ecn(nonect="drop")`` — the pitfall: TCP starves.
- (b) one queue, mark-only: ``testbeds.red_ecn(nonect="enqueue")`` — the other pitfall: TCP
  takes the link and the queue, DCTCP loses its low latency.
- (c) QoS segregation, ``testbeds.segregated()`` by flow (the DSCP the host gives a flow):
  class 0 DCTCP with RED-ECN at K, class 1 TCP with drop-tail, DRR with equal weights — the
  fix.

Assumptions:
- Flows start within 5 µs of each other (``jitter_us = 5``): every SYN reaches the receiver's
  port before the first data does, so no handshake meets a queue above K here (connection
  setup is judd-red-ecn's subject); each run checks that no flow retried its SYN.
- (c) gives each class a static half of the port's 5.5 MB (``limit_bytes`` 2.75 MB each).
  Without class limits TCP's class fills the whole port buffer, DCTCP's packets find no room
  and its flows wait out 200-ms RTOs (tried: DCTCP got 28 % of the link at 1 + 1 over 1 s). A
  switch with QoS gives each class its own buffer share; an equal static split is the
  simplest such share. On a testbed whose switch shares its memory among the ports there is
  no static limit to halve: the memory's dynamic threshold holds each class queue
  (``testbeds.segregated``).
- Measurement window: the second half of the run at quick scale (0.75-1.5 s), 5-20 s at full
  scale, so that TCP's slow-start overshoot into 5.5 MB (thousands of losses and a 200-ms
  RTO) is over. Throughput is each flow's delivered bytes over the window
  (``measure.flow_sample_us``), summed per protocol; shares are of the two protocols' total.
- TCP's drop rate: every non-ECT packet the receiver's port dropped (``drops_nonect``, any
  cause: the AQM above K or a full buffer; DCTCP's SYNs and ACKs never cross this port
  congested) over the TCP flows' data packets sent, whole run. (a)'s drops are the AQM's;
  (b)'s and (c)'s are TCP's own buffer overflows (slow start, then its sawtooth).
- DCTCP's queue: the sampled port queue is the shared queue in (a) and (b), but in (c) it is
  both classes' and TCP's dominates. So DCTCP's own queue is estimated from its flows by
  Little's law: packets queued = (its packet rate) × (its smoothed RTT − the base RTT), with
  the srtt the engine reports at the end of the run, the base RTT the testbed's 4 link delays
  plus a data packet's serialisation on two 10 Gbps hops and an ACK's on two, with its
  framing (22.6 µs on the Judd testbed). It counts
  DCTCP's packets wherever they wait: with one DCTCP flow alone at the line rate ((a) 1 + 1)
  most wait in its own NIC (srtt ≈ 140-150 µs with the port at ≈ 12 packets), so the claims use
  the sampled port queue for (a) and (b) and Little's law for (c) only, where DCTCP's class
  gets half the link and the port is its bottleneck.
- Bands (claims): "starves" = TCP's share ≤ 0.1 (a fifth of its fair half); "TCP dominates" =
  TCP's share ≥ 0.8 and the shared queue's mean ≥ 10 K; "segregation restores both" = each
  protocol's share in [0.4, 0.6] and DCTCP's queue ≤ 2 K. DRR with equal weights gives each
  backlogged class exactly half; the ± 0.1 allows for TCP's class emptying while a TCP flow
  waits out an RTO after a burst of buffer-overflow losses. DCTCP's queue oscillates about K
  (between K + N − A and K + N, DCTCP paper Eqs. 10-12): 2 K = 40 packets bounds it with room
  and stays two orders of magnitude below TCP's thousands. "Much larger" drop rate = at least
  10 × the largest of the other two configurations' in the same mix.

Measured (full scale; quick agrees within a few % except the drop rates, 41 % and 81 % in (a)
and ≤ 0.7 % in (b) and (c), and (b)'s 1 + 1 queue, 1,865 packets): (a) TCP gets ≤ 0.001 Gbps
of 9.49 in both mixes, its drop rate 27 % (1 + 1) and 58 % (4 + 4) against ≤ 0.05 % in (b)
and (c); (b) TCP takes 99.8-99.9 % with a mean queue of 2,100-3,300 packets and DCTCP's srtt
2.7-4.3 ms; (c) the shares are 0.500 / 0.500 and DCTCP's queue is 22-26 packets (srtt
77-86 µs) beside TCP's ≈ 1,600 in the same port.

Outputs: coexistence_summary.csv (mix, config, per-protocol throughput and share, the port's
sampled queue in the window, DCTCP's Little's-law queue and srtt, TCP's srtt, TCP drops, data
packets and drop rate, the port's AQM and buffer drops, SYN retries), coexistence_series.csv
(mix, config, t_s, protocol, gbps per sampling interval), coexistence_queue.csv (mix, config,
t_s, packets), coexistence.png/.svg (per mix: the two protocols' throughput over time and the
receiver port's queue, one column per configuration).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..analysis import flow_rates, goodput_between_bps
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import RECEIVER_PORT
from ..units import gbps, us
from .testbeds import RFC3168_HOSTS, K, base_rtt_s, fanin, red_ecn, segregated

if TYPE_CHECKING:
    import pandas as pd

DCTCP, TCP = "DCTCP", "TCP"
MIXES: tuple[tuple[int, int], ...] = ((1, 1), (4, 4))
DROP, ENQUEUE, SEGREGATED = "drop", "enqueue", "segregated"
CONFIGS = (DROP, ENQUEUE, SEGREGATED)
CONFIG_LABELS = {
    DROP: "(a) one queue, RED-ECN drops non-ECT above K (pitfall)",
    ENQUEUE: "(b) one queue, mark-only, non-ECT enqueued (pitfall)",
    SEGREGATED: "(c) QoS segregation: DCTCP class + TCP class (fix)",
}
JITTER_US = 5.0
MSS = 1460

# Bands of the claims (module docstring).
STARVED_SHARE = 0.1
DOMINANT_SHARE = 0.8
DOMINANT_QUEUE_K = 10
FAIR_BAND = (0.4, 0.6)
LOW_QUEUE_K = 2
DROP_RATE_RATIO = 10.0


def mix_name(n_dctcp: int, n_tcp: int) -> str:
    return f"{n_dctcp}+{n_tcp}"


def scenario(config: str, n_dctcp: int, n_tcp: int, p: Params, tb: Testbed) -> dict[str, Any]:
    """One run: ``n_dctcp`` DCTCP flows (class 0) then ``n_tcp`` TCP flows (class 1) into host
    0 through the receiver's port configured as ``config``."""
    sc = fanin(
        f"judd-coexistence-{config}-{mix_name(n_dctcp, n_tcp)}",
        tb,
        senders=n_dctcp + n_tcp,
        cc="dctcp",
        aqm=red_ecn(nonect="enqueue" if config == ENQUEUE else "drop"),
        duration_s=p["duration_s"],
        warmup_s=0.0,
        tcp=RFC3168_HOSTS,
        classes=segregated(tb, by="flow") if config == SEGREGATED else None,
        queue_sample_us=p["queue_sample_us"],
        flow_sample_us=p["flow_sample_us"],
        jitter_us=JITTER_US,
    )
    for i, f in enumerate(sc["flows"]):
        proto = DCTCP if i < n_dctcp else TCP
        f["cc"] = "dctcp" if proto == DCTCP else tb.tcp_cc
        f["class"] = 0 if proto == DCTCP else 1
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, str], dict[str, Any]]:
    """``(mix, config)`` → its run."""
    return {(mix_name(nd, nt), cfg): scenario(cfg, nd, nt, p, tb) for nd, nt in MIXES for cfg in CONFIGS}


# --- analysis -----------------------------------------------------------------------------


def protocol_of(cc: str) -> str:
    return DCTCP if cc == "dctcp" else TCP


def little_queue_packets(goodput_bps: float, srtt_s: float | None, base_s: float, mss: int = MSS) -> float:
    """Packets a flow keeps queued (Little's law): its packet rate times its queueing delay
    (smoothed RTT minus the base RTT, never below 0)."""
    if srtt_s is None or not np.isfinite(srtt_s):
        return float("nan")
    return goodput_bps / (8.0 * mss) * max(srtt_s - base_s, 0.0)


def shares(tput: dict[str, float]) -> dict[str, float]:
    """Each protocol's fraction of the protocols' total (NaN when nothing was delivered)."""
    total = sum(tput.values())
    return {p: (v / total if total > 0 else float("nan")) for p, v in tput.items()}


def drop_rate(drops: int, packets: int) -> float:
    """Dropped over sent (NaN when nothing was sent)."""
    return drops / packets if packets > 0 else float("nan")


def protocol_throughput(fs: pd.DataFrame, protocols: dict[int, str], t0: float, t1: float) -> dict[str, float]:
    """Each protocol's goodput (bit/s) over [t0, t1]: the sum of its flows' delivered bytes in
    the window (:func:`analysis.goodput_between_bps`)."""
    out = {DCTCP: 0.0, TCP: 0.0}
    for flow, proto in protocols.items():
        out[proto] += goodput_between_bps(fs, flow, t0, t1)
    return out


def protocol_series(fs: pd.DataFrame, protocols: dict[int, str]) -> pd.DataFrame:
    """Each protocol's goodput per sampling interval: ``t_s, protocol, gbps``."""
    import pandas as pd

    r = flow_rates(fs)
    r = r.assign(protocol=r.flow.map(protocols))
    g = r.groupby(["t_s", "protocol"], as_index=False).mbps.sum()
    return pd.DataFrame({"t_s": g.t_s, "protocol": g.protocol, "gbps": g.mbps / 1e3})


def summarize(res: Results, p: Params, base: float) -> dict[str, Any]:
    """One run's row of the summary table, with DCTCP's queue against the base RTT ``base``."""
    t0, t1 = p["measure_from_s"], p["duration_s"]
    fl = res.rows("flows")
    protocols = {int(f["id"]): protocol_of(f["cc"]) for f in fl}
    fs = res.flow_samples
    tput = protocol_throughput(fs, protocols, t0, t1)
    sh = shares(tput)
    d_flows = [f for f in fl if protocols[int(f["id"])] == DCTCP]
    t_flows = [f for f in fl if protocols[int(f["id"])] == TCP]
    # Each DCTCP flow's queued packets, from its own window goodput and srtt, summed.
    d_queue = float(sum(little_queue_packets(goodput_between_bps(fs, int(f["id"]), t0, t1), f["srtt_s"], base) for f in d_flows))
    _, q, _ = res.queue_series(RECEIVER_PORT, t0, t1)
    port = res.port(RECEIVER_PORT)
    tcp_packets = int(sum(f["data_packets_sent"] for f in t_flows))
    tcp_drops = int(port.get("drops_nonect", 0) or 0)
    return {
        "dctcp_gbps": gbps(tput[DCTCP]),
        "tcp_gbps": gbps(tput[TCP]),
        "dctcp_share": sh[DCTCP],
        "tcp_share": sh[TCP],
        "queue_mean_packets": float(q.mean()) if len(q) else float("nan"),
        "queue_median_packets": float(np.median(q)) if len(q) else float("nan"),
        "queue_p99_packets": float(np.quantile(q, 0.99)) if len(q) else float("nan"),
        "dctcp_queue_packets": d_queue,
        "dctcp_srtt_us": us(float(np.mean([f["srtt_s"] for f in d_flows]))),
        "tcp_srtt_us": us(float(np.mean([f["srtt_s"] for f in t_flows]))),
        "tcp_data_packets": tcp_packets,
        "tcp_drops": tcp_drops,
        "tcp_drop_rate": drop_rate(tcp_drops, tcp_packets),
        "aqm_drops": int(port["drops_aqm"]),
        "buffer_drops": int(port["drops_buffer"]),
        "syn_retries": int(sum(f["syn_retries"] for f in fl)),
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    base = base_rtt_s(runs.testbed.link)
    rows, series, queues = [], [], []
    for (mix, cfg), res in runs.items():
        rows.append({"mix": mix, "config": cfg, **summarize(res, runs.params, base)})
        protocols = {int(f["id"]): protocol_of(f["cc"]) for f in res.rows("flows")}
        series.append(protocol_series(res.flow_samples, protocols).assign(mix=mix, config=cfg))
        t, q, _ = res.queue_series(RECEIVER_PORT)
        queues.append(pd.DataFrame({"mix": mix, "config": cfg, "t_s": t, "packets": q}))
    df = pd.DataFrame(rows)
    return Metrics(
        values={
            "measure_window_s": [runs.params["measure_from_s"], runs.params["duration_s"]],
            "base_rtt_us": us(base),
            "runs": df.to_dict(orient="records"),
        },
        tables={
            "coexistence_summary": df,
            "coexistence_series": pd.concat(series, ignore_index=True)[["mix", "config", "t_s", "protocol", "gbps"]],
            "coexistence_queue": pd.concat(queues, ignore_index=True),
        },
    )


# --- claims (on the summary table: one row per mix and configuration) ----------------------


def _row(df: pd.DataFrame, mix: str, cfg: str) -> pd.Series:
    return df[(df["mix"] == mix) & (df["config"] == cfg)].iloc[0]


def _mixes(df: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(df["mix"]))


def _drop_rates(m: Metrics) -> tuple[bool, str]:
    """The non-ECT drop rate is much larger only in the shared drop queue."""
    df = m.tables["coexistence_summary"]
    parts, ok = [], True
    for mix in _mixes(df):
        a, b, s = (_row(df, mix, cfg)["tcp_drop_rate"] for cfg in CONFIGS)
        other = max(b, s)
        ok &= bool(np.isfinite(a) and a > 0 and a >= DROP_RATE_RATIO * other)
        parts.append(f"{mix}: (a) {100 * a:.2f} % vs (b) {100 * b:.3f} %, (c) {100 * s:.3f} %")
    return ok, "; ".join(parts)


def _starves(m: Metrics) -> tuple[bool, str]:
    df = m.tables["coexistence_summary"]
    parts, ok = [], True
    for mix in _mixes(df):
        r = _row(df, mix, DROP)
        ok &= bool(r["tcp_share"] <= STARVED_SHARE)
        parts.append(f"{mix}: TCP {r['tcp_gbps']:.3f} Gbps (share {r['tcp_share']:.3f}), DCTCP {r['dctcp_gbps']:.2f} Gbps")
    return ok, "; ".join(parts)


def _dominates(m: Metrics) -> tuple[bool, str]:
    df = m.tables["coexistence_summary"]
    parts, ok = [], True
    for mix in _mixes(df):
        r = _row(df, mix, ENQUEUE)
        ok &= bool(r["tcp_share"] >= DOMINANT_SHARE and r["queue_mean_packets"] >= DOMINANT_QUEUE_K * K)
        parts.append(
            f"{mix}: TCP share {r['tcp_share']:.3f}, mean queue {r['queue_mean_packets']:.0f} "
            f"packets, DCTCP srtt {r['dctcp_srtt_us']:.0f} µs"
        )
    return ok, "; ".join(parts)


def _restores(m: Metrics) -> tuple[bool, str]:
    df = m.tables["coexistence_summary"]
    parts, ok = [], True
    lo, hi = FAIR_BAND
    for mix in _mixes(df):
        r = _row(df, mix, SEGREGATED)
        ok &= bool(lo <= r["dctcp_share"] <= hi and lo <= r["tcp_share"] <= hi and r["dctcp_queue_packets"] <= LOW_QUEUE_K * K)
        parts.append(
            f"{mix}: shares DCTCP {r['dctcp_share']:.3f} / TCP {r['tcp_share']:.3f}; DCTCP's "
            f"queue {r['dctcp_queue_packets']:.1f} packets (srtt {r['dctcp_srtt_us']:.0f} µs) "
            f"vs the port's {r['queue_mean_packets']:.0f} (TCP's class); the shared queue "
            f"in (a) {_row(df, mix, DROP)['queue_mean_packets']:.1f}, in (b) "
            f"{_row(df, mix, ENQUEUE)['queue_mean_packets']:.0f}"
        )
    return ok, "; ".join(parts)


SEGREGATE = "Solution: Segregate DCTCP traffic using QoS"
COEXISTENCE = "Requires changes to work in production ... Coexistence"

CLAIMS = (
    Claim(
        id="non-ect-drops-only-in-shared-queue",
        kind="derived",
        text=(
            "Without QoS segregation a RED-ECN queue drops TCP's non-ECT packets above K: "
            f"TCP's drop rate in (a) ≥ {DROP_RATE_RATIO:.0f} × the larger of (b)'s "
            "and (c)'s (their drops are TCP's own buffer overflows), in both mixes"
        ),
        paper="RED-ECN drops non-ECT packets above K; non-ECT drop rate ≫ 0 only in the single-queue config",
        quote=SEGREGATE,
        section="slide 'RED-ECN AQM Implementation'",
        check=_drop_rates,
    ),
    Claim(
        id="tcp-starves-in-red-ecn-queue",
        kind="derived",
        text=(
            f"(a) one RED-ECN queue: TCP starves — its share ≤ {STARVED_SHARE} (a fifth of its "
            "fair half), in both mixes; (c) in the same mixes restores it (next claims)"
        ),
        paper="figure only (drop mode starves TCP)",
        quote=COEXISTENCE,
        section="slide 'Conclusion'",
        check=_starves,
    ),
    Claim(
        id="tcp-dominates-mark-only-queue",
        kind="derived",
        text=(
            f"(b) one mark-only queue: TCP dominates — its share ≥ {DOMINANT_SHARE} and the "
            f"shared queue's mean ≥ {DOMINANT_QUEUE_K} K = {DOMINANT_QUEUE_K * K} packets "
            "(DCTCP loses its low queue), in both mixes"
        ),
        paper="figure only (enqueue mode lets TCP dominate, destroys DCTCP's low queue)",
        quote=COEXISTENCE,
        section="slide 'Conclusion'",
        check=_dominates,
    ),
    Claim(
        id="segregation-restores-both",
        kind="paper",
        text=(
            f"(c) QoS segregation restores both: each protocol's share in [{FAIR_BAND[0]}, {FAIR_BAND[1]}] (DRR, "
            f"equal weights) and DCTCP's own queue ≤ {LOW_QUEUE_K} K = {LOW_QUEUE_K * K} "
            "packets (Little's law on its srtt), in both mixes"
        ),
        paper="Solution: Segregate DCTCP traffic using QoS",
        quote=SEGREGATE,
        section="slide 'RED-ECN AQM Implementation'",
        check=_restores,
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    series = m.tables["coexistence_series"]
    queues = m.tables["coexistence_queue"]
    df = m.tables["coexistence_summary"]
    measure_from_s, duration_s = m["measure_window_s"]
    mixes = _mixes(df)
    fig, axes = figure(nrows=2 * len(mixes), ncols=len(CONFIGS), size=(12.0, 3.0 * len(mixes) * 2), sharex=True)
    colors = {DCTCP: "tab:blue", TCP: "tab:orange"}
    for i, mix in enumerate(mixes):
        for j, cfg in enumerate(CONFIGS):
            r = _row(df, mix, cfg)
            ax, axq = axes[2 * i][j], axes[2 * i + 1][j]
            d = series[(series["mix"] == mix) & (series["config"] == cfg)]
            # TCP below, DCTCP dashed on top: at equal shares the two lines coincide.
            for proto, lw, ls in ((TCP, 1.6, "-"), (DCTCP, 1.0, "--")):
                g = d[d.protocol == proto]
                ax.plot(g.t_s, g.gbps, lw=lw, ls=ls, color=colors[proto], label=proto)
            ax.set_ylim(0, 10.5)
            ax.axvspan(measure_from_s, duration_s, color="0.92", zorder=0)
            ax.set_title(
                f"{CONFIG_LABELS[cfg]}\n{mix}: DCTCP {r['dctcp_share']:.2f} / TCP {r['tcp_share']:.2f} of the link",
                fontsize=7.5,
            )
            if j == 0:
                ax.set_ylabel(f"{mix} throughput (Gbps)", fontsize=8)
            ax.legend(loc="center right", fontsize=6.5)
            qd = queues[(queues["mix"] == mix) & (queues["config"] == cfg)]
            axq.plot(qd.t_s, np.maximum(qd.packets, 0.5), lw=0.7, color="0.3", label="port queue")
            axq.axhline(K, color="tab:red", ls=":", lw=0.8, label=f"K = {K}")
            if cfg == SEGREGATED:
                axq.axhline(max(r["dctcp_queue_packets"], 0.5), color=colors[DCTCP], ls="--", lw=1.0, label="DCTCP class (Little)")
            axq.set_yscale("log")
            axq.set_ylim(0.5, 1e4)
            axq.axvspan(measure_from_s, duration_s, color="0.92", zorder=0)
            where = (
                f"port {r['queue_mean_packets']:.0f} pkts (TCP's class), DCTCP {r['dctcp_queue_packets']:.0f}"
                if cfg == SEGREGATED
                else f"shared queue mean {r['queue_mean_packets']:.0f} pkts"
            )
            axq.set_title(f"{where}; TCP drops {100 * r['tcp_drop_rate']:.2f} %", fontsize=7.5)
            if j == 0:
                axq.set_ylabel(f"{mix} queue s0->h0 (packets)", fontsize=8)
            axq.legend(loc="lower right", fontsize=6.5)
    for ax in axes[-1]:
        ax.set_xlabel("Time (s) (shaded: measurement window)")
    note(axes[0][0], "slides: figures only", loc="upper left")
    return fig


EXPERIMENT = Experiment(
    id="judd-coexistence",
    paper="judd",
    figure="",
    title="Coexistence with TCP — DCTCP and non-ECN TCP in one 10 Gbps port",
    description=(
        "DCTCP and CUBIC flows (1+1, 4+4) into one 10 Gbps port: a RED-ECN queue that drops "
        "non-ECT packets above K (TCP starves), a mark-only queue (TCP dominates), and QoS "
        "segregation (the fix): throughput shares, queue, TCP's drop rate."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {
            "duration_s": 1.5,
            "measure_from_s": 0.75,
            "queue_sample_us": 1000.0,
            "flow_sample_us": 10_000.0,
        },
        "full": {
            "duration_s": 20.0,
            "measure_from_s": 5.0,
            "queue_sample_us": 5000.0,
            "flow_sample_us": 50_000.0,
        },
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"coexistence": plot},
    notes=__doc__ or "",
)
