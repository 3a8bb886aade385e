"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 14: throughput vs K at 10 Gbps.

Paper setup (§4.1): "We then repeated the experiment with 10Gbps link": long-lived flows
from 10 Gbps hosts to one 10 Gbps receiver through the switch; DCTCP with marking threshold
K swept; TCP over drop-tail as the reference. Switch, number of senders and K values are
not given.

Published numbers (§4.1, §3.5): "Once the value of K exceeds the recommended value of 65,
DCTCP gets the same throughput as TCP, and is no longer sensitive to the value of K". The
analysis alone (Eq. 13, K > C·RTT/7) puts the knee at ≈ 12 packets for 100 µs; the paper
needs 65 because "at 10G line rates, hosts tend to send bursts of as many as 30-40 packets"
(LSO, interrupt moderation). Checked: tput(K ≥ 65) ≥ 0.97 × TCP with host bursts on; with
bursts off the knee is ≤ 20.

Our setup: the testbed's fan-in with 2 senders, every link 10 Gbps, base RTT ≈ 100 µs,
38 B framing (goodput ceiling 9.49 Gbps), Scorpion preset buffer, RTO_min 300 ms, delayed
ACK m = 2, g = 1/16. Each K, and the TCP reference, runs on the testbed's 10 Gbps host (receive
interrupt moderation as ixgbe's default under bulk load, 125 µs: see the testbed's choice in
docs/validation.md) and on the same host made smooth (no moderation, no offload bursts), the
idealised sources Eq. 13 assumes.

Assumptions: 2 senders (as Figs. 1/13 and CS244);
K ∈ 5..100; the switch (Triumph 10G ports or Scorpion) is not given: the Scorpion preset
(4 MB shared, ~700 KB for one busy port, as the Triumph); duration not given (quick: 0.5 s measured
after 0.5 s; full: 4 s after 1 s). "Knee" = the smallest K of the sweep from which every
larger K reaches 0.97 × TCP. The paper's words, "once the value of K exceeds the recommended
value of 65, DCTCP gets the same throughput as TCP" with §3.5's "a more conservative marking
threshold larger than 60 packets is required to avoid loss of throughput", are read as a knee
above 60 and at most 65 on the testbed's hosts.

Known deviation (traced), `matches-tcp-from-k-65`: on the testbed's host the knee is 50
(quick and full), not above 60: DCTCP gets 8.57 Gbps at K = 40 and 9.45 at K = 50 (quick), where
TCP gets 9.63 (9.49 at full scale). The smooth host's knee is 5. The knee follows the size of the
bursts the hosts send: dctcp-burst-k measures a median of 51 packets (99th percentile 66) on this
host. Counter-run: the same host with the engine's 35-segment offload bursts as well sends bursts
of 71 packets and needs K = 80 (quick). So the paper's 30-40-packet bursts, which needed K above
60, cost more K per packet of burst than ours do. Its NICs and their settings are not given.

TCP's 9.63 Gbps (quick) is above the 9.49 Gbps ceiling: bytes received before the window are
delivered in it. The second sender's receive window, tuned up to 16 MB, lets it send 9.8 MB after
its first timeout (0.30 s); 8.5 MB of it wait at the receiver behind a hole of 41 segments until
its next 300-ms timeout, at 0.61 s, inside the 0.5-1.0 s window. Counter-run with the receive
buffer fixed at 8 MB (no tuning): no timeout, TCP 9.49 Gbps, knee 50.

Outputs: fig14_throughput.csv (K, host, protocol, goodput_gbps, ...),
fig14_throughput.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ..analysis import goodput_ceiling_bps
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..units import gbps
from .bursts import (
    K_THEORY,
    PAPER_KNEE,
    RATE_GBPS,
    SCALES,
    SMOOTH_HOST,
    TESTBED_HOST,
    by_host,
    k_sweep,
    tcp_fills,
    throughput_table,
)


def scenarios(p: Params, tb: Testbed) -> dict:
    """``(host, K or None for TCP)`` → scenario: the K sweep on the testbed's host and on a
    smooth one."""
    return k_sweep(p, tb)


def analyze(runs: Runs) -> Metrics:
    df = throughput_table(runs)
    tcp, _, knees = by_host(df)
    return Metrics(
        values={
            "window_s": [runs.params["warmup_s"], runs.params["duration_s"]],
            "tcp_gbps": tcp,
            "goodput_ceiling_gbps": gbps(goodput_ceiling_bps(RATE_GBPS, runs.testbed.link["framing_bytes"])),
            "knee": {
                **knees,
                "paper": PAPER_KNEE,
                "theory_c_rtt_over_7": K_THEORY,
            },
            "rows": df.to_dict(orient="records"),
        },
        tables={"fig14_throughput": df},
    )


def _tcp_fills(m: Metrics) -> tuple[bool, str]:
    return tcp_fills(m["tcp_gbps"], m["goodput_ceiling_gbps"])


def _knee_of_testbed_host(m: Metrics) -> tuple[bool, str]:
    tcp_ok, tcp_note = _tcp_fills(m)
    _, dct, _ = by_host(m.tables["fig14_throughput"])
    rows = dct[TESTBED_HOST]
    kn = m["knee"][TESTBED_HOST]
    below = rows[rows.K < PAPER_KNEE]
    measured = (
        f"knee {kn} (TCP {m['tcp_gbps'][TESTBED_HOST]:.2f} Gbps; DCTCP at K = "
        + ", ".join(f"{int(r.K)}: {r.goodput_gbps:.2f}" for r in rows.itertuples() if 20 <= r.K <= PAPER_KNEE)
        + " Gbps)"
        + tcp_note
    )
    return tcp_ok and len(below) > 0 and kn is not None and 60 < kn <= PAPER_KNEE, measured


def _smooth_knee(m: Metrics) -> tuple[bool, str]:
    tcp_ok, tcp_note = _tcp_fills(m)
    kn = m["knee"][SMOOTH_HOST]
    return tcp_ok and kn is not None and kn <= 20, f"knee {kn} (TCP {m['tcp_gbps'][SMOOTH_HOST]:.2f} Gbps)" + tcp_note


CLAIMS = (
    Claim(
        id="matches-tcp-from-k-65",
        kind="paper",
        text=(
            "At 10 Gbps, on the testbed's hosts, DCTCP gets TCP's throughput (≥ 0.97 ×) once K reaches 65 and loses "
            "throughput below 60: 60 < knee ≤ 65"
        ),
        paper="knee at 65 (K > 60 required)",
        quote=(
            "Once the value of K exceeds the recommended value of 65, DCTCP gets the same throughput as TCP, and is no "
            "longer sensitive to the value of K"
        ),
        section="§4.1",
        check=_knee_of_testbed_host,
    ),
    Claim(
        id="smooth-senders-knee-at-most-20",
        kind="derived",
        text="With smooth senders (no interrupt moderation, no offload bursts) Eq. 13's guideline suffices: knee ≤ 20",
        paper=f'K > C·RTT/7 ≈ {K_THEORY:.0f} (Eq. 13); "as low as 20 packets" (§3.5)',
        quote="based on (13), a marking threshold as low as 20 packets can be used for 10Gbps",
        section="§3.5",
        check=_smooth_knee,
    ),
)


def plot_throughput(m: Metrics) -> Any:
    tcp, dct, knees = by_host(m.tables["fig14_throughput"])
    fig, ax = figure(size=(6.4, 4.0))
    for h, color, label in (
        (SMOOTH_HOST, "tab:blue", "smooth host"),
        (TESTBED_HOST, "tab:purple", "testbed's host"),
    ):
        ax.plot(dct[h].K, dct[h].goodput_gbps, marker="o", ms=4, color=color, label=f"DCTCP, {label} (ours)")
        ax.axhline(tcp[h], color=color, ls="--", lw=0.9, label=f"TCP, {label} (ours)")
    ax.axvline(PAPER_KNEE, color="k", ls=":", lw=1)
    ax.text(
        PAPER_KNEE,
        0.97,
        " paper knee K=65",
        rotation=90,
        fontsize=7.5,
        va="top",
        ha="right",
        transform=ax.get_xaxis_transform(),
    )
    ax.axvline(K_THEORY, color="grey", ls=":", lw=1)
    ax.text(
        K_THEORY,
        0.97,
        f" C·RTT/7 = {K_THEORY:.0f}",
        rotation=90,
        fontsize=7.5,
        va="top",
        ha="right",
        transform=ax.get_xaxis_transform(),
    )
    ax.set_xlabel("K (packets)")
    ax.set_ylabel("Throughput (Gbps)")
    ax.set_ylim(0, 10.5)
    ax.set_title("Throughput (10Gbps)")
    ax.legend(loc="lower right", fontsize=7.5)
    note(
        ax,
        "paper: DCTCP = TCP once K > 65 (testbed bursts 30-40 pkts)\n"
        + f"ours: knee {knees[TESTBED_HOST]} on the testbed's host, {knees[SMOOTH_HOST]} on a smooth one",
        loc="center right",
    )
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig14",
    paper="dctcp",
    figure="Fig. 14",
    title="throughput vs marking threshold K (10 Gbps), on the testbed's hosts and on smooth ones",
    description="DCTCP throughput vs K at 10 Gbps against TCP, on the testbed's 10 Gbps hosts and on smooth (idealised) ones.",
    testbed="dctcp_testbed",
    scales=SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig14_throughput": plot_throughput},
    notes=__doc__ or "",
)
