"""Judd (Morgan Stanley), "Attaining the Promise and Avoiding the Pitfalls of TCP in the
Datacenter", slide "RED-ECN AQM Implementation" (figure only, and "Solution: Segregate DCTCP
traffic using QoS").

Paper setup: none given. The mechanism (derived; from outside the slides, Linux commit
843c2fdf7a12: "switches handle non-ECT traffic in the RED marking queue after passing K as
drops"): a RED-ECN switch in DCTCP mode (min = max = K on the instantaneous queue) drops every
packet it cannot mark while the queue is above K. Besides the packets of non-ECN TCP flows,
a host that follows RFC 3168 sends SYN, SYN-ACK, pure ACKs and retransmissions without ECT,
so a DCTCP queue above K drops them too. Fixes: segregate DCTCP from TCP by QoS class, and
have DCTCP hosts set ECT on SYN/SYN-ACK and pure ACKs. The claims check the drops; the
connection-setup times are judd-connection-establishment's.

Our setup: the shared Judd testbed (judd/testbeds.py: 10 Gbps links of 5 µs, 5.5 MB per
port, K = 20, Linux hosts of the time) on a star of 9 hosts, chosen so that every kind of
packet crosses a DCTCP queue kept above K:

- Long DCTCP flows 1, 2, 3, 4 → 0 keep the receiver's port ``s0->h0`` at K.
- Long DCTCP flows 0 → 1 and 5 → 1 keep ``s0->h1`` at K. The ACKs of 1 → 0 (from host 0)
  cross ``s0->h1`` and those of 0 → 1 (from host 1) cross ``s0->h0``: pure ACKs both ways.
- Short DCTCP connections, one per request (``queries``, ``persistent = false``, Poisson
  arrivals, 500/s each, 100-B request, 2-KB response as in judd-connection-establishment):
  client 7 → server 0, whose SYNs, request and ACKs cross ``s0->h0``; and client 0 → server
  8, whose SYN-ACKs and response cross ``s0->h0``.
- One long non-ECN TCP flow (the stack's TCP: CUBIC on the slides' hosts) 6 → 0: non-ECT data and
  retransmissions.

Four switch/host configurations side by side, pitfall and fixes:

- one queue, RFC 3168 hosts (``testbeds.RFC3168_HOSTS``): the pitfall.
- one queue, hosts with the fixes (``testbeds.FIXED_HOSTS``: a DCTCP host sets ECT on every
  packet, SYN/SYN-ACK, pure ACKs and retransmissions included, as Linux's DCTCP does).
- QoS segregation (``testbeds.segregated()`` by flow: DCTCP class 0 with RED-ECN, TCP class 1
  drop-tail), RFC 3168 hosts.
- QoS segregation and hosts with the fixes (both fixes; the slides' "DCTCP+" as the testbed
  reads it).

Assumptions:
- Drop counts are the per-port counters (``drops_syn``: SYN and SYN-ACK, ``drops_ack``:
  pure ACKs, ``drops_retransmit``: retransmitted data, ``drops_nonect``: every non-ECT drop),
  summed over the switch's ports, whole run. "New data" = non-ECT drops that are none of the
  three kinds. Every drop here is a RED-ECN drop above K: the TCP flow's receive buffer is
  1 MB (``flows[].rcv_buffer_bytes``), so its window (≤ 700 packets) cannot overflow its
  queue, and DCTCP keeps its queues near K; each run reports its buffer drops (0).
- Segregation classifies by flow (the DSCP a host gives the flow: its SYNs and ACKs carry it
  too), and gives each class a static half of the port's buffer (on a switch that shares its
  memory among the ports, none: the memory's dynamic threshold holds each class), as
  judd-coexistence does (``testbeds.segregated(by="flow")``). "Non-ECT drops in the DCTCP queue" = the AQM drops of
  the single queue, or of class 0 when segregated (an ECT packet above K is marked, never
  dropped).
- Long flows start within 5 µs of each other, so every long flow's handshake is over before
  a queue forms; short connections arrive from 50 ms to 50 ms before the end.
- A short connection "lost its handshake" when its setup (first SYN to SYN-ACK, retries
  included) took ≥ 0.5 s or never completed: any RTT here is below 1 ms, and a lost SYN or
  SYN-ACK waits ≥ 1 s (the initial RTO). At quick scale (1 s) no retry completes.

Why this setup: the slide gives none. One receiver port held at K is the coexistence setup;
the second congested port and the two short-connection workloads are the least that puts
every packet kind the slide's mechanism names through a queue above K in both directions,
and 500 connections/s per workload give hundreds of handshakes in the quick run's second.

Measured (full scale, 10 s): RFC 3168 hosts in one queue lose 6,621 SYN/SYN-ACKs and 7,310
pure ACKs above K, 40 % of 9,900 short connections lose a handshake packet; segregation alone
keeps the TCP flow out (it gets 4.75 Gbps, no drop) but the DCTCP class still drops 8,325
SYN/SYN-ACKs and 8,306 ACKs; hosts with ECT on every packet drop none, and with both fixes
no switch port drops anything. Quick scale (1 s, no SYN retry yet): 340 SYN/SYN-ACK and 684
ACK drops, 39 % of 868 handshakes lost, zeros in the same places.

Outputs: red_ecn_drops.csv (config, per kind drops summed over switch ports, AQM and buffer
drops, non-ECT drops in the DCTCP queue, short connections opened and lost, TCP's and
DCTCP's goodput), red_ecn_ports.csv (config, port, the drop counters of each congested
switch port), red_ecn.png/.svg (drops by kind per configuration, non-ECT drops in the DCTCP
queue, short connections that lost a handshake packet).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..units import gbps
from .testbeds import FIXED_HOSTS, RFC3168_HOSTS, fanin, red_ecn, segregated

if TYPE_CHECKING:
    import pandas as pd

HOSTS = 9
RECEIVER = 0
DCTCP_INTO_RECEIVER = (1, 2, 3, 4)
REVERSE = ((0, 1), (5, 1))  # DCTCP long flows into host 1: its port is the reverse queue
TCP_SENDER = 6
TCP_RCV_BUFFER_BYTES = 1_000_000
# (client, server) of the short-connection workloads.
SHORT = ((7, 0), (0, 8))
RESPONSE_BYTES = 2000
SHORT_INTERVAL_MS = 2.0
SHORT_START_S = 0.05
JITTER_US = 5.0
CONGESTED_PORTS = ("s0->h0", "s0->h1")
LOST_SETUP_S = 0.5

SHARED_RFC, SHARED_FIXED, SEG_RFC, SEG_FIXED = "shared-rfc3168", "shared-fixed", "seg-rfc3168", "seg-fixed"
CONFIGS = (SHARED_RFC, SHARED_FIXED, SEG_RFC, SEG_FIXED)
CONFIG_LABELS = {
    SHARED_RFC: "one queue,\nRFC 3168 hosts\n(pitfall)",
    SHARED_FIXED: "one queue,\nECT on every packet\n(fix 1)",
    SEG_RFC: "QoS segregation,\nRFC 3168 hosts\n(fix 2)",
    SEG_FIXED: "segregation +\nECT on every packet\n(both fixes)",
}
SHORT_LABELS = {
    SHARED_RFC: "one queue\nRFC 3168",
    SHARED_FIXED: "one queue\nECT on all",
    SEG_RFC: "segregated\nRFC 3168",
    SEG_FIXED: "segregated\nECT on all",
}
KINDS = ("data", "syn", "ack", "retransmit")
KIND_LABELS = {
    "data": "new data (non-ECT)",
    "syn": "SYN / SYN-ACK",
    "ack": "pure ACK",
    "retransmit": "retransmission",
}
PORT_COUNTERS = ("drops_nonect", "drops_syn", "drops_ack", "drops_retransmit", "drops_aqm", "drops_buffer", "marks")


def is_segregated(config: str) -> bool:
    return config in (SEG_RFC, SEG_FIXED)


def hosts_of(config: str) -> dict[str, Any]:
    return FIXED_HOSTS if config in (SHARED_FIXED, SEG_FIXED) else RFC3168_HOSTS


def scenario(config: str, p: Params, tb: Testbed) -> dict[str, Any]:
    dur = p["duration_s"]
    sc = fanin(
        f"judd-red-ecn-{config}",
        tb,
        senders=HOSTS - 1,
        cc="dctcp",
        aqm=red_ecn(),
        duration_s=dur,
        tcp=hosts_of(config),
        classes=segregated(tb, by="flow") if is_segregated(config) else None,
        jitter_us=JITTER_US,
    )
    long_dctcp = [(s, RECEIVER) for s in DCTCP_INTO_RECEIVER] + list(REVERSE)
    sc["flows"] = [{"src": a, "dst": b, "start_s": 0.0, "start_jitter_us": JITTER_US, "cc": "dctcp", "class": 0} for a, b in long_dctcp] + [
        {
            "src": TCP_SENDER,
            "dst": RECEIVER,
            "start_s": 0.0,
            "start_jitter_us": JITTER_US,
            "cc": tb.tcp_cc,
            "class": 1,
            "rcv_buffer_bytes": TCP_RCV_BUFFER_BYTES,
        }
    ]
    stop = dur - SHORT_START_S
    rounds = max(1, round((stop - SHORT_START_S) * 1e3 / SHORT_INTERVAL_MS))
    sc["queries"] = [
        {
            "client": cl,
            "servers": [sv],
            "response_bytes": RESPONSE_BYTES,
            "rounds": rounds,
            "start_s": SHORT_START_S,
            "stop_s": stop,
            "arrival": {"kind": "poisson", "mean_interval_ms": SHORT_INTERVAL_MS},
            "persistent": False,
            "cc": "dctcp",
            "class": 0,
        }
        for cl, sv in SHORT
    ]
    sc["measure"] = {
        "queue_sample_us": 0.0,
        "queue_ports": list(CONGESTED_PORTS),
        "flow_sample_us": 0.0,
        "ideal_fct": False,
    }
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """Configuration → its run."""
    return {cfg: scenario(cfg, p, tb) for cfg in CONFIGS}


# --- analysis -----------------------------------------------------------------------------


def _n(row: dict[str, Any], key: str) -> int:
    v = row.get(key)
    return int(v) if v is not None else 0


def drops_by_kind(port_rows: list[dict[str, Any]]) -> dict[str, int]:
    """Drops by kind summed over the switch ports: non-ECT new data (non-ECT drops that are no
    SYN, ACK or retransmission), SYN/SYN-ACK, pure ACK, retransmission; and the totals."""
    sw = [p for p in port_rows if p.get("is_switch")]
    syn = sum(_n(p, "drops_syn") for p in sw)
    ack = sum(_n(p, "drops_ack") for p in sw)
    rtx = sum(_n(p, "drops_retransmit") for p in sw)
    nonect = sum(_n(p, "drops_nonect") for p in sw)
    return {
        "data": max(nonect - syn - ack - rtx, 0),
        "syn": syn,
        "ack": ack,
        "retransmit": rtx,
        "nonect": nonect,
        "aqm": sum(_n(p, "drops_aqm") for p in sw),
        "buffer": sum(_n(p, "drops_buffer") + _n(p, "drops_pool") for p in sw),
    }


def dctcp_queue_nonect_drops(port_rows: list[dict[str, Any]], class_rows: list[dict[str, Any]]) -> int:
    """Non-ECT packets the DCTCP queue dropped above K: the AQM drops of the switch ports'
    only queue, or of their class 0 when the ports have class queues (the AQM marks an ECT
    packet, so what it drops is non-ECT)."""
    if class_rows:
        switch_ports = {i for i, p in enumerate(port_rows) if p.get("is_switch")}
        return int(sum(_n(r, "drops_aqm") for r in class_rows if r["class"] == 0 and r["port"] in switch_ports))
    return int(sum(_n(p, "drops_aqm") for p in port_rows if p.get("is_switch")))


def handshake_lost(setup_s: float | None) -> bool:
    """A short connection lost a SYN or SYN-ACK: its setup took ≥ LOST_SETUP_S or never ended."""
    return setup_s is None or not math.isfinite(setup_s) or setup_s >= LOST_SETUP_S


def summarize(res: Results) -> dict[str, Any]:
    ports = res.rows("ports")
    kinds = drops_by_kind(ports)
    fl = res.rows("flows")
    short = [f for f in fl if f.get("workload") is not None]
    lost = sum(handshake_lost(f.get("setup_s")) for f in short)
    tcp = [f for f in fl if f.get("workload") is None and f["cc"] != "dctcp"]
    dctcp = [f for f in fl if f.get("workload") is None and f["cc"] == "dctcp"]
    return {
        **{f"drops_{k}": v for k, v in kinds.items()},
        "dctcp_queue_nonect_drops": dctcp_queue_nonect_drops(ports, res.rows("classes")),
        "short_connections": len(short),
        "short_handshake_lost": int(lost),
        "short_lost_fraction": lost / len(short) if short else float("nan"),
        "short_failed": int(sum(bool(f.get("failed")) for f in short)),
        "tcp_gbps": gbps(float(sum(f["goodput_bps"] for f in tcp))),
        "tcp_retransmits": int(sum(f["retransmits"] for f in tcp)),
        "dctcp_long_gbps": gbps(float(sum(f["goodput_bps"] for f in dctcp))),
        "long_syn_retries": int(sum(f["syn_retries"] for f in tcp + dctcp)),
    }


def port_table(config: str, res: Results) -> list[dict[str, Any]]:
    """The drop counters of the congested switch ports."""
    return [
        {"config": config, "port": p["name"], **{k: _n(p, k) for k in PORT_COUNTERS}}
        for p in res.rows("ports")
        if p["name"] in CONGESTED_PORTS
    ]


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    rows, ports = [], []
    for cfg in CONFIGS:
        rows.append({"config": cfg, **summarize(runs[cfg])})
        ports += port_table(cfg, runs[cfg])
    df = pd.DataFrame(rows)
    pdf = pd.DataFrame(ports)
    return Metrics(
        values={"runs": df.to_dict(orient="records"), "ports": pdf.to_dict(orient="records")},
        tables={"red_ecn_drops": df, "red_ecn_ports": pdf},
    )


# --- claims (on the drops table: one row per configuration) --------------------------------


def _by_config(m: Metrics) -> dict[str, pd.Series]:
    df = m.tables["red_ecn_drops"]
    return {cfg: df[df["config"] == cfg].iloc[0] for cfg in df["config"]}


def _kinds(r: dict[str, pd.Series], cfg: str) -> str:
    return ", ".join(f"{KIND_LABELS[k]} {int(r[cfg][f'drops_{k}'])}" for k in KINDS)


def _rfc3168_drops(m: Metrics) -> tuple[bool, str]:
    r = _by_config(m)
    a = r[SHARED_RFC]
    measured = (
        f"{_kinds(r, SHARED_RFC)}; {int(a['short_handshake_lost'])} of "
        f"{int(a['short_connections'])} short connections lost a handshake packet"
    )
    return a["drops_syn"] > 0 and a["drops_ack"] > 0, measured


def _fixed_hosts(m: Metrics) -> tuple[bool, str]:
    r = _by_config(m)
    a = r[SHARED_RFC]
    fixed = [cfg for cfg in (SHARED_FIXED, SEG_FIXED) if cfg in r]
    measured = (
        "; ".join(
            f"{cfg}: SYN/SYN-ACK {int(r[cfg]['drops_syn'])}, pure ACK "
            f"{int(r[cfg]['drops_ack'])}, handshakes lost {int(r[cfg]['short_handshake_lost'])}"
            for cfg in fixed
        )
        + f" (RFC 3168 one queue: {int(a['drops_syn'])}, {int(a['drops_ack'])})"
    )
    return all(r[cfg]["drops_syn"] == 0 and r[cfg]["drops_ack"] == 0 for cfg in fixed), measured


def _dctcp_class(m: Metrics) -> tuple[bool, str]:
    r = _by_config(m)
    a, s, sr = r[SHARED_RFC], r[SEG_FIXED], r[SEG_RFC]
    measured = (
        f"non-ECT drops in the DCTCP queue: segregation + ECT control "
        f"{int(s['dctcp_queue_nonect_drops'])}, segregation alone "
        f"{int(sr['dctcp_queue_nonect_drops'])} ({_kinds(r, SEG_RFC)}), one queue RFC 3168 "
        f"{int(a['dctcp_queue_nonect_drops'])}"
    )
    return s["dctcp_queue_nonect_drops"] == 0, measured


def _tcp_out(m: Metrics) -> tuple[bool, str]:
    r = _by_config(m)
    shared, seg = (SHARED_RFC, SHARED_FIXED), (SEG_RFC, SEG_FIXED)
    measured = "; ".join(
        f"{cfg}: new-data drops {int(r[cfg]['drops_data'])}, TCP retransmissions "
        f"{int(r[cfg]['tcp_retransmits'])}, TCP {r[cfg]['tcp_gbps']:.3f} Gbps"
        for cfg in shared + seg
    )
    holds = all(r[cfg]["drops_data"] > 0 and r[cfg]["tcp_retransmits"] > 0 for cfg in shared) and all(
        r[cfg]["drops_data"] == 0 and r[cfg]["tcp_retransmits"] == 0 for cfg in seg
    )
    return holds, measured


SEGREGATE = "Solution: Segregate DCTCP traffic using QoS"
CHANGES = "Requires changes to work in production ... Coexistence ... Connection establishment"

CLAIMS = (
    Claim(
        id="rfc3168-control-packets-dropped",
        kind="derived",
        text=(
            "RFC 3168 hosts, one RED-ECN queue: a DCTCP queue above K drops the DCTCP "
            "connections' non-ECT SYN/SYN-ACKs and pure ACKs (drops > 0 of both)"
        ),
        paper="RED-ECN drops non-ECT packets above K; SYN/SYN-ACK are not ECT under RFC 3168",
        quote=CHANGES,
        section="slide 'Conclusion'",
        check=_rfc3168_drops,
    ),
    Claim(
        id="ect-hosts-lose-no-control-packets",
        kind="derived",
        text=(
            "DCTCP hosts that set ECT on every packet (SYN/SYN-ACK and pure ACKs included): no "
            "SYN/SYN-ACK and no pure ACK is dropped, in one queue and segregated (vs the RFC "
            "3168 hosts' drops)"
        ),
        paper="fix: ECT on SYN, SYN-ACK (and all packets) for DCTCP connections",
        quote=CHANGES,
        section="slide 'Conclusion'",
        check=_fixed_hosts,
    ),
    Claim(
        id="dctcp-class-drops-nothing",
        kind="derived",
        text=(
            "QoS segregation with the fixed hosts: the DCTCP class drops no non-ECT packet "
            "(its AQM drops = 0); segregation alone keeps TCP out of it but not the DCTCP "
            "connections' own RFC 3168 SYNs and ACKs"
        ),
        paper="Solution: Segregate DCTCP traffic using QoS",
        quote=SEGREGATE,
        section="slide 'RED-ECN AQM Implementation'",
        check=_dctcp_class,
    ),
    Claim(
        id="segregation-keeps-tcp-out",
        kind="paper",
        text=(
            "Segregation takes the non-ECN TCP flow out of the RED-ECN queue: in one queue its "
            "new data is dropped (non-ECT new-data drops > 0, its retransmissions > 0); "
            "segregated it loses nothing (both = 0), with either hosts"
        ),
        paper="RED-ECN drops non-ECT traffic above K; Solution: Segregate DCTCP traffic using QoS",
        quote=SEGREGATE,
        section="slide 'RED-ECN AQM Implementation'",
        check=_tcp_out,
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    df = m.tables["red_ecn_drops"]
    fig, axes = figure(nrows=1, ncols=3, size=(14.0, 4.6), gridspec_kw={"width_ratios": [2.6, 1, 1]})
    ax = axes[0]
    x = np.arange(len(df))
    width = 0.2
    colors = {
        "data": "tab:orange",
        "syn": "tab:red",
        "ack": "tab:purple",
        "retransmit": "tab:brown",
    }
    for i, k in enumerate(KINDS):
        v = df[f"drops_{k}"].to_numpy(dtype=float)
        xs = x + (i - 1.5) * width
        ax.bar(xs, v, width, color=colors[k], label=KIND_LABELS[k])
        for xx, vv in zip(xs, v):
            ax.text(xx, max(vv, 0.6), f"{int(vv)}", ha="center", va="bottom", fontsize=6.5, rotation=90)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(0, max(10.0, df[[f"drops_{k}" for k in KINDS]].to_numpy().max() * 30))
    ax.set_xticks(x, [CONFIG_LABELS[cfg] for cfg in df["config"]], fontsize=7.5)
    ax.set_ylabel("Packets dropped above K (all switch ports)")
    ax.set_title("(a) Non-ECT drops by type", fontsize=9)
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    note(ax, "slides: figure only; 'Solution: Segregate\nDCTCP traffic using QoS'", loc="upper left")

    ax = axes[1]
    v = df["dctcp_queue_nonect_drops"].to_numpy(dtype=float)
    ax.bar(x, v, 0.6, color="tab:blue")
    for xx, vv in zip(x, v):
        ax.text(xx, max(vv, 0.6), f"{int(vv)}", ha="center", va="bottom", fontsize=7)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylim(0, max(10.0, v.max() * 30))
    ax.set_xticks(x, [SHORT_LABELS[cfg] for cfg in df["config"]], fontsize=6.5, rotation=35)
    ax.set_title("(b) Non-ECT drops in the DCTCP queue\n(single queue / class 0)", fontsize=9)

    ax = axes[2]
    v = 100 * df["short_lost_fraction"].to_numpy(dtype=float)
    ax.bar(x, v, 0.6, color="tab:red")
    for xx, vv, n in zip(x, v, df["short_connections"]):
        ax.text(xx, vv, f"{vv:.1f} %\nof {int(n)}", ha="center", va="bottom", fontsize=6.5)
    ax.set_ylim(0, max(10.0, float(np.nanmax(v)) * 1.3 if len(v) else 10.0))
    ax.set_xticks(x, [SHORT_LABELS[cfg] for cfg in df["config"]], fontsize=6.5, rotation=35)
    ax.set_ylabel("%")
    ax.set_title("(c) Short connections that lost\na SYN or SYN-ACK", fontsize=9)
    return fig


EXPERIMENT = Experiment(
    id="judd-red-ecn",
    paper="judd",
    figure="",
    title="RED-ECN AQM implementation — non-ECT drops above K by packet type",
    description=(
        "DCTCP queues held at K with short connections, reverse ACKs and a non-ECN TCP flow "
        "crossing them: drops of data, SYN/SYN-ACK, pure ACKs and retransmissions for RFC 3168 "
        "hosts, hosts with ECT on SYN and ACK, and QoS segregation."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"duration_s": 1.0},
        "full": {"duration_s": 10.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"red_ecn": plot},
    notes=__doc__ or "",
)
