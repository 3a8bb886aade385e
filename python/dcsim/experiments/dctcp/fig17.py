"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 17: multi-hop, multi-bottleneck network.

Paper setup (§4.1, "Multi-hop networks", Fig. 17): Triumph 1 and Triumph 2 joined through the
Scorpion by 10 Gbps links, hosts on 1 Gbps ports. "The senders in the S1 and S3 groups,
totaling 20 machines, all send to receiver R1. The 20 senders in S2 each send to an assigned
receiver in group R2. There are two bottlenecks in this topology: both the 10Gbps link between
Triumph 1 and the Scorpion and the 1Gbps link connecting Triumph 2 to R1 are over-subscribed.
The flows from the senders in group S1 encounter both these bottlenecks." DCTCP with the
paper's thresholds (K = 20 on 1 Gbps ports, 65 on 10 Gbps ports, §3.5) against TCP NewReno
over drop-tail.

Published numbers (§4.1): with DCTCP "each sender in S1 gets 46Mbps and S3 gets 54Mbps
throughput, while each S2 sender gets approximately 475Mbps — these are within 10% of their
fair-share throughputs. TCP does slightly worse: the queue length fluctuations at the two
bottlenecks cause timeouts for some of the TCP connections." Fair shares (derived): R1's
1 Gbps / 20 = 50 Mbps for S1 and S3; (10,000 − 10 · 50)/20 = 475 Mbps for S2 on the
Triumph 1 → Scorpion link.

Our setup: the engine's `multi_bottleneck` topology (switches `triumph1`, `scorpion`,
`triumph2` in a line): S1 = 10 and S2 = 20 senders on `triumph1`, S3 = 10 senders, R1 and
R2 = 20 receivers on `triumph2`; host links 1 Gbps with the testbed's 25 µs and 38 B framing,
the two core links 10 Gbps with the testbed's delay between switches (1 µs). So S3 → R1 has
the testbed's 100 µs base RTT and S1 → R1 and S2 → R2, crossing the two core links, 104 µs.
One long-lived flow per sender: S1 and S3 to R1, the i-th S2 sender to the i-th R2 receiver,
started within 1 ms. DCTCP: g = 1/16 and the switch AQM `threshold` without `k_packets`, which
makes the engine set K by each port's line rate: 20 packets on the 1 Gbps ports (R1's, the
bottleneck), 65 on the 10 Gbps ports (Triumph 1 → Scorpion, the other bottleneck). TCP:
NewReno with SACK over drop-tail. Delayed ACK m = 2, RTO_min 300 ms (the paper's default
before Fig. 19).

Assumptions:
- Group sizes S1 = S3 = 10: the paper gives only "S1 and S3 ... totaling 20"; 10/10 is the
  only split for which its fair shares (50 Mbps each) follow (derived).
- One buffer model for the three switches: the `triumph` preset (4 MB shared, one busy port
  ~700 KB); the Scorpion's preset has the same memory and α, so this is also the Scorpion.
- Link delays not given: the testbed's (25 µs on a host link, 1 µs between switches: the
  100 µs intra-rack RTT of §2.3.3 is the hosts').
- Duration not given: full scale measures 30 s after a 2 s warm-up; quick measures 3 s after
  2 s.
- Throughput is goodput (payload delivered over the measurement window), as in every other
  experiment, and is checked against the fair shares in goodput: 1460/1538 of the line-rate
  shares, 47.5 / 47.5 / 451 Mbps. The paper does not say which it measured; its 46 / 54 / 475
  are shown beside the line-rate shares.
- TCP's timeouts are counted in the measurement window: the run's count minus that of the
  same scenario stopped at the end of the warm-up (the engine is deterministic per seed and
  the two runs agree event for event up to then), so slow-start losses at the start do not
  count.

Mechanism: at 2 MSS each, R1's 20 flows hold more than C·RTT + K, so every S1 and S3 flow
sits near DCTCP's 2-MSS floor and they share R1's port by 1/RTT: S1's longer path and its
queueing at the core port give it less than S3 (quick: 43.3 / 51.6 Mbps goodput, 45.6 / 54.4
at wire rate, the paper's 46 / 54). With 25 µs on the core links as well (S1's base RTT
200 µs), S1 got 37.8 Mbps and S3 57.1: the paper's split needs S1's extra path to add little
delay.

Outputs: fig17_senders.csv (protocol, group, flow, src, dst, goodput_mbps, timeouts in the
window and in the run), fig17_groups.csv (protocol, group, senders, mean/min/max goodput,
fair share, paper value, timeouts), fig17_queues.csv (the two bottleneck ports' queue
statistics), fig17_throughput.png/.svg.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...scenario import long_flows
from ..analysis import goodput_ceiling_bps
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import DROP_TAIL
from ..units import gbps, mbps

# Group sizes (§4.1; the S1/S3 split derived) and link rates (Fig. 17).
GROUPS = {"S1": 10, "S2": 20, "S3": 10, "R2": 20}
HOST_GBPS = 1.0
CORE_GBPS = 10.0
JITTER_US = 1000.0
# The two bottlenecks: Triumph 1's port onto the 10 Gbps core link and R1's 1 Gbps port.
CORE_PORT = "triumph1->scorpion"
PROTOCOLS = ("DCTCP", "TCP")
# Paper, per sender (Mbps): "S1 gets 46Mbps and S3 gets 54Mbps ... each S2 sender gets
# approximately 475Mbps".
PAPER_MBPS = {"S1": 46.0, "S3": 54.0, "S2": 475.0}
TOLERANCE = 0.10  # "within 10% of their fair-share throughputs"
ORDER = ("S1", "S3", "S2")


def hosts() -> dict[str, list[int]]:
    """Host ids of each group in the engine's numbering: S1, S2 on Triumph 1; S3, R1, R2 on
    Triumph 2."""
    s1, s2, s3, r2 = (GROUPS[g] for g in ("S1", "S2", "S3", "R2"))
    first_r2 = s1 + s2 + s3 + 1
    return {
        "S1": list(range(s1)),
        "S2": list(range(s1, s1 + s2)),
        "S3": list(range(s1 + s2, s1 + s2 + s3)),
        "R1": [s1 + s2 + s3],
        "R2": list(range(first_r2, first_r2 + r2)),
    }


R1_PORT = f"triumph2->h{hosts()['R1'][0]}"


def flows() -> list[tuple[str, dict]]:
    """``(group, flow)``: every S1 and S3 sender to R1, the i-th S2 sender to the i-th R2
    receiver."""
    h = hosts()
    r1 = h["R1"][0]
    out = [(g, f) for g in ("S1", "S3") for f in long_flows(h[g], r1, start_s=0.0, start_jitter_us=JITTER_US)]
    out += [("S2", long_flows([src], dst, start_s=0.0, start_jitter_us=JITTER_US)[0]) for src, dst in zip(h["S2"], h["R2"])]
    return out


def scenario(tb: Testbed, protocol: str, duration_s: float, warmup_s: float, seed: int = 1) -> dict:
    """The Fig. 17 network on ``tb`` running one protocol. DCTCP's `threshold` AQM leaves K
    out, so the engine takes K by port speed: 20 on the 1 Gbps ports, 65 on the 10 Gbps ones
    (§3.5)."""
    cc, aqm = ("dctcp", {"kind": "threshold"}) if protocol == "DCTCP" else (None, DROP_TAIL)
    return {
        "name": f"dctcp-fig17-{protocol.lower()}-{duration_s:g}s",
        "sim": {"seed": int(seed), "duration_s": float(duration_s), "warmup_s": float(warmup_s)},
        "topology": {
            "kind": "multi_bottleneck",
            "s1": GROUPS["S1"],
            "s2": GROUPS["S2"],
            "s3": GROUPS["S3"],
            "r2": GROUPS["R2"],
            "host_link": tb.link_at(HOST_GBPS),
            "core_link": tb.switch_link_at(CORE_GBPS),
        },
        # One buffer model for the three switches: the 1 Gbps Triumph's (the Scorpion's alike).
        "switch": {"buffer": tb.buffer(HOST_GBPS), "aqm": dict(aqm)},
        "host": tb.host_at(HOST_GBPS),
        "tcp": tb.tcp_for(cc),
        "flows": [f for _, f in flows()],
        "measure": {
            "queue_sample_us": 0.0,
            "queue_ports": [CORE_PORT, R1_PORT],
            "flow_sample_us": 0.0,
        },
    }


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, str], dict]:
    """``(protocol, part)`` → scenario: part "run" is the measured run, "warmup" the same
    scenario stopped at the end of the warm-up (to count timeouts inside the window)."""
    plan = {}
    for proto in PROTOCOLS:
        plan[(proto, "run")] = scenario(tb, proto, p["duration_s"], p["warmup_s"])
        plan[(proto, "warmup")] = scenario(tb, proto, p["warmup_s"], p["warmup_s"] / 2)
    return plan


def fair_shares_mbps(
    host_gbps: float = HOST_GBPS,
    core_gbps: float = CORE_GBPS,
    s1: int = GROUPS["S1"],
    s2: int = GROUPS["S2"],
    s3: int = GROUPS["S3"],
) -> dict[str, float]:
    """Max-min fair share of one sender of each group (Mbps): S1 and S3 split R1's port; S2
    splits what S1 leaves of the core link, capped by its own host link."""
    r1 = host_gbps * 1e3 / (s1 + s3)
    s2_share = min(host_gbps * 1e3, (core_gbps * 1e3 - s1 * r1) / s2)
    return {"S1": r1, "S3": r1, "S2": s2_share}


def within(measured: float, target: float, tol: float = TOLERANCE) -> bool:
    """``measured`` within ``tol`` (a fraction) of ``target``."""
    return abs(measured - target) <= tol * target


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    groups = [g for g, _ in flows()]
    rows = []
    for proto in PROTOCOLS:
        full, warm = runs[(proto, "run")].rows("flows"), runs[(proto, "warmup")].rows("flows")
        for g, f, w in zip(groups, full, warm):
            rows.append(
                {
                    "protocol": proto,
                    "group": g,
                    "flow": int(f["id"]),
                    "src": int(f["src"]),
                    "dst": int(f["dst"]),
                    "goodput_mbps": mbps(float(f["goodput_bps"])),
                    "timeouts_window": int(f["timeouts"]) - int(w["timeouts"]),
                    "timeouts_run": int(f["timeouts"]),
                }
            )
    df = pd.DataFrame(rows)

    fair = fair_shares_mbps()
    ceiling = gbps(goodput_ceiling_bps(1.0, runs.testbed.link["framing_bytes"]))  # goodput per unit of line rate
    grows = []
    for (proto, g), d in df.groupby(["protocol", "group"], sort=False):
        grows.append(
            {
                "protocol": proto,
                "group": g,
                "senders": len(d),
                "mean_mbps": float(d.goodput_mbps.mean()),
                "min_mbps": float(d.goodput_mbps.min()),
                "max_mbps": float(d.goodput_mbps.max()),
                "fair_share_mbps": fair[g],
                "fair_share_goodput_mbps": fair[g] * ceiling,
                "paper_mbps": PAPER_MBPS[g],
                "connections_with_timeouts": int((d.timeouts_window > 0).sum()),
                "timeouts_window": int(d.timeouts_window.sum()),
            }
        )
    gdf = pd.DataFrame(grows)
    qdf = pd.DataFrame(
        [
            {"protocol": proto, "port": name, **runs[(proto, "run")].queue_stats(name)}
            for proto in PROTOCOLS
            for name in (CORE_PORT, R1_PORT)
        ]
    )
    return Metrics(
        values={
            "window_s": [runs.params["warmup_s"], runs.params["duration_s"]],
            "fair_share_mbps": fair,
            "fair_share_goodput_mbps": {g: v * ceiling for g, v in fair.items()},
            "paper_mbps": PAPER_MBPS,
            "groups": gdf.to_dict(orient="records"),
            "queues": qdf.to_dict(orient="records"),
        },
        tables={"fig17_senders": df, "fig17_groups": gdf, "fig17_queues": qdf},
    )


# --- claims -------------------------------------------------------------------------------


def _group_means(m: Metrics) -> dict[tuple[str, str], float]:
    """``(protocol, group)`` → mean per-sender goodput, Mbps."""
    return {(r.protocol, r.group): r.mean_mbps for r in m.tables["fig17_groups"].itertuples()}


def _deviations(m: Metrics, proto: str) -> dict[str, float]:
    """Each group's mean goodput relative to its fair share in goodput, minus 1."""
    mean, fair = _group_means(m), m["fair_share_goodput_mbps"]
    return {g: (mean[(proto, g)] - fair[g]) / fair[g] for g in ORDER}


def _connections_with_timeouts(m: Metrics, proto: str) -> int:
    df = m.tables["fig17_senders"]
    return int((df[df.protocol == proto].timeouts_window > 0).sum())


def _dctcp_fair_shares(m: Metrics) -> tuple[bool, str]:
    """Goodput against the fair shares in goodput: like with like."""
    mean, fair, dev = _group_means(m), m["fair_share_goodput_mbps"], _deviations(m, "DCTCP")
    measured = ", ".join(f"{g} {mean[('DCTCP', g)]:.1f} of {fair[g]:.1f} Mbps ({dev[g]:+.0%})" for g in ORDER)
    return all(within(mean[("DCTCP", g)], fair[g]) for g in ORDER), measured


def _tcp_timeouts(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig17_senders"]
    tcp_to, dct_to = _connections_with_timeouts(m, "TCP"), _connections_with_timeouts(m, "DCTCP")
    measured = (
        f"TCP: {tcp_to} of {len(df[df.protocol == 'TCP'])} connections time out "
        f"({int(df[df.protocol == 'TCP'].timeouts_window.sum())} timeouts); "
        f"DCTCP: {dct_to}"
    )
    return tcp_to > 0, measured


def _tcp_worse(m: Metrics) -> tuple[bool, str]:
    mean = _group_means(m)
    worst = {p: max(abs(v) for v in _deviations(m, p).values()) for p in ("DCTCP", "TCP")}
    measured = (
        f"largest deviation TCP {worst['TCP']:.0%} ("
        + ", ".join(f"{g} {mean[('TCP', g)]:.1f}" for g in ORDER)
        + f" Mbps), DCTCP {worst['DCTCP']:.0%}"
    )
    return worst["TCP"] > worst["DCTCP"], measured


CLAIMS = (
    Claim(
        id="dctcp-within-10pct-of-fair-share",
        kind="paper",
        text=(
            "Multi-hop: with DCTCP each group's mean per-sender goodput is within 10% of its fair share "
            "in goodput (the paper's 50 / 50 / 475 Mbps at line rate for S1 / S3 / S2, times 1460/1538)"
        ),
        paper="S1 46, S3 54, S2 ≈ 475 Mbps",
        quote=(
            "with DCTCP, each sender in S1 gets 46Mbps and S3 gets 54Mbps throughput, while each S2 sender gets "
            "approximately 475Mbps — these are within 10% of their fair-share throughputs"
        ),
        section="§4.1",
        check=_dctcp_fair_shares,
    ),
    Claim(
        id="tcp-timeouts",
        kind="paper",
        text=(
            "TCP: the queue fluctuations at the two bottlenecks cause timeouts for some TCP "
            "connections (≥ 1 connection with a timeout in the measurement window)"
        ),
        paper="timeouts for some of the TCP connections",
        quote="the queue length fluctuations at the two bottlenecks cause timeouts for some of the TCP connections",
        section="§4.1",
        check=_tcp_timeouts,
    ),
    Claim(
        id="tcp-slightly-worse",
        kind="paper",
        text="TCP does slightly worse than DCTCP: its largest group deviation from the fair share exceeds DCTCP's",
        paper="TCP does slightly worse",
        quote="TCP does slightly worse",
        section="§4.1",
        check=_tcp_worse,
    ),
)


# --- plot: per-sender goodput by group, one panel per protocol ----------------------------


def plot_throughput(m: Metrics) -> Any:
    df, fair, mean = m.tables["fig17_senders"], m["fair_share_goodput_mbps"], _group_means(m)
    colors = {"S1": "tab:purple", "S3": "tab:green", "S2": "tab:orange"}
    fig, axes = figure(1, 2, size=(10.0, 4.0), sharey=True)
    rng = np.random.default_rng(0)  # horizontal jitter of the dots only
    for ax, proto in zip(axes, PROTOCOLS):
        d = df[df.protocol == proto]
        for i, g in enumerate(ORDER):
            v = d[d.group == g].goodput_mbps.to_numpy()
            ax.scatter(
                i + rng.uniform(-0.15, 0.15, len(v)),
                v,
                s=12,
                color=colors[g],
                alpha=0.8,
                label="one sender (ours)" if i == 0 else None,
            )
            ax.hlines(
                v.mean(),
                i - 0.3,
                i + 0.3,
                color="k",
                lw=2,
                label="group mean (ours)" if i == 0 else None,
            )
            ax.hlines(
                fair[g],
                i - 0.35,
                i + 0.35,
                color="grey",
                ls="--",
                lw=1,
                label="fair share (goodput)" if i == 0 else None,
            )
            ax.plot(
                i,
                PAPER_MBPS[g],
                marker="*",
                ms=11,
                color="gold",
                mec="k",
                ls="none",
                label="paper (DCTCP)" if i == 0 else None,
            )
        to = int((d.timeouts_window > 0).sum())
        ax.set_xticks(range(len(ORDER)), [f"{g} ({GROUPS[g]})" for g in ORDER])
        ax.set_yscale("log")
        ax.set_ylim(10, 1200)
        ax.set_xlabel("Sender group")
        ax.set_title(f"{proto}: {to} of {len(d)} connections time out in the window")
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("Per-sender throughput (Mbps, goodput)")
    note(
        axes[0],
        "paper (DCTCP): S1 46, S3 54, S2 ≈ 475 Mbps\n"
        + f"ours: S1 {mean[('DCTCP', 'S1')]:.1f}, S3 {mean[('DCTCP', 'S3')]:.1f}, "
        + f"S2 {mean[('DCTCP', 'S2')]:.0f} Mbps",
        loc="lower right",
    )
    note(axes[1], "paper: TCP slightly worse; timeouts\nfor some TCP connections", loc="lower right")
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig17",
    paper="dctcp",
    figure="Fig. 17",
    title="multi-hop, multi-bottleneck network, per-sender throughput by group",
    description=(
        "S1 and S3 share R1's 1 Gbps port, S1 and S2 the 10 Gbps core link: DCTCP per-group throughput vs fair share (46/54/475 "
        "Mbps), TCP's timeouts."
    ),
    testbed="dctcp_testbed",
    scales={
        "quick": {"warmup_s": 2.0, "duration_s": 5.0},
        "full": {"warmup_s": 2.0, "duration_s": 32.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig17_throughput": plot_throughput},
    notes=__doc__ or "",
)
