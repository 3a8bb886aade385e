"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), §3.5: the PI AQM with TCP, few vs many flows.

Paper setup (§3.5, "AQM is not enough"): "we evaluated Active Queue Management (AQM) schemes
like RED and PI [17] that do not modify TCP's congestion control mechanism ... We have
evaluated other AQM schemes such as PI extensively using NS-2. See [3] for detailed results."
[17] is Hollot, Misra, Towsley and Gong, "On designing improved controllers for AQM routers
supporting TCP flows" (INFOCOM 2001). The topology, link speed, PI gains and flow counts
beyond "few (< 5)" and "many (20)" are in the tech report [3]: not given.

Published numbers (§3.5, qualitative): "with few flows (< 5), PI suffers from queue
underflows and a loss of utilization, while with many flows (20), queue oscillations get
worse, which can hurt the latency of time-critical flows." No numbers.

Our setup: the paper's NS-2 simulations as the `dctcp_ns2` testbed models them (Fig. 12's):
N long-lived senders into one receiver, every link 25 µs (base RTT 100 µs), no framing, ns-2's
TCP agents (an ACK per segment), a 2000-packet port buffer that never drops, and the
simulation testbeds' noise floor (host jitter of at least half a bottleneck packet time), at
1 Gbps and at 10 Gbps, N ∈ {2, 3, 5, 10, 20}. TCP is NewReno with RFC 3168 ECN (`tcp_ecn`: the
window halves once per window of marks) and every switch port runs the PI controller
(`aqm.kind = "pi"`, marking ECT packets as they leave the queue). The reference is DCTCP
(K = 20 at 1 Gbps, 65 at 10 Gbps, g = 1/16) over the same star and flows.

PI gains, chosen once per link from Hollot et al.'s design rules (their §IV-V) and used for
every N:
- Plant: N⁻ flows (a lower bound on the load), R⁺ (an upper bound on the RTT), C packets/s.
  The linearised TCP/queue loop is (R⁺C)³/(2N⁻)² / ((s/p_tcp + 1)(s/p_queue + 1)) · e^(−sR⁺)
  with the TCP pole p_tcp = 2N⁻/(R⁺²C) and the queue pole p_queue = 1/R⁺.
- Controller C(s) = K_PI (s/z + 1)/s: the zero cancels the TCP pole, z = p_tcp, and K_PI puts
  the loop's unity-gain crossover at ω_g = z:
  K_PI = ω_g · |jω_g/p_queue + 1| · (2N⁻)²/(R⁺C)³.
- Sampled at f_s = 1/T with the bilinear transform, the difference equation
  p(kT) = p((k−1)T) + a·(q(kT) − q_ref) − b·(q((k−1)T) − q_ref) has
  a = K_PI (1/z + T/2), b = K_PI (1/z − T/2).
- Check against the paper's design example (N⁻ = 60, C = 3750 packets/s, R⁺ = 0.246 s,
  160 Hz): z = 0.529 and K_PI = 9.78e-6 against their 0.53 and 9.6426e-6 (their a = 1.822e-5,
  b = 1.816e-5 use z rounded to 0.53; ours 1.853e-5, 1.847e-5).
- The choices for a link of rate C: C in full-size packets, rate / (1500 B · 8); q_ref = the
  DCTCP threshold of that rate (20 packets at 1 Gbps, 65 at 10 Gbps, §3.5), so both schemes
  aim at the same queue; R⁺ = 100 µs + q_ref/C; N⁻ = 2, the fewest flows of the runs (the
  design then holds for every N ≥ 2, Hollot et al.'s robustness argument); f_s: Hollot et
  al.'s example samples 160 Hz × 0.246 s = 39.36 times per RTT, and so do we, f_s = 39.36/R⁺.
- 1 Gbps: C = 83,333 packets/s, R⁺ = 340.0 µs, p_tcp = 415.2 rad/s below p_queue =
  2941.2 rad/s (R⁺C = 28.3 > 2N⁻ = 4, as the rule needs), K_PI = 0.2950, f_s = 115.8 kHz,
  a = 7.1169e-4, b = 7.0914e-4.
- 10 Gbps: C = 833,333 packets/s, R⁺ = 178.0 µs, p_tcp = 151.5 rad/s, p_queue = 5618 rad/s,
  K_PI = 7.430e-4, f_s = 221.1 kHz, a = 4.9058e-6, b = 4.9024e-6.

Assumptions:
- Topology, buffers and TCP agents of the paper's other NS-2 runs (Fig. 12, the `dctcp_ns2`
  testbed; the ns-2 setup of [3] is not given); TCP is TCP-ECN so PI marks rather than drops
  (the paper always uses RED with ECN, footnote 5).
- The PI design choices above: q_ref = K of the rate, N⁻ = 2, R⁺ = base RTT + q_ref/C,
  crossover at the TCP pole, 39.36 samples per RTT (the design example's).
- N ∈ {2, 3, 5, 10, 20}: "few (< 5)" is 2 and 3, "many" is 20.
- Duration not given: quick measures 2 s after 1 s, full 10 s after 2 s.
- "Queue underflow" is the fraction of the window the port is empty (the exact time-weighted
  occupancy; the packet being sent counts, so an empty port is an idle link); "utilisation"
  is the port's busy fraction, and "a loss of utilisation" at least 1% of the link;
  "oscillation" is the spread p95 − p5 of the time-weighted queue.

Known deviation (traced), few flows (claims few-flows-underflow-1gbps and -10gbps): with 2
flows PI leaves the port empty 0.0006% of the time at 1 Gbps and 0.09% at 10 Gbps (quick), a
utilisation of 99.9994% and 99.91% against 100% with 20 flows: an underflow, but not a loss of
utilisation. Underflow needs window cuts larger than the standing queue. At 1 Gbps q_ref = K =
20 packets exceeds the 8.3-packet bandwidth-delay product, so two flows' joint halving still
leaves a queue (5th percentile 11 packets); at 10 Gbps (q_ref 65 against 83 packets) the
halvings do reach empty, 0.09% of the time. On the hardware testbed's hosts (delayed ACK
m = 2, the 10 Gbps NIC's 125-µs interrupts) the 10 Gbps port is empty 11.35% of the time with
2 flows (quick): the hosts' bursts, not PI, decide it there. The paper's ns-2 setup ([3]) is
not given; its underflow needs a q_ref small against the bandwidth-delay product.

Known deviation (traced), many flows (claims many-flows-oscillate-1gbps and -10gbps): the
spread falls from N = 5 to 20 (quick: 15 → 2 packets at 1 Gbps, 81 → 40 at 10 Gbps). The design
takes N⁻ = 2 as its point (74° phase margin), and the loop gain falls as 1/N², so more flows
calm the PI. On the hardware testbed, whose receivers ACK every other segment, 20 flows at
1 Gbps hold 1.67 MSS on average: a window under 2 MSS sends one segment, ACKed only when the
200 ms delayed-ACK timer fires, and that made the spread grow (18 → 32 packets); ns-2's agents
ACK every segment, and the spread shrinks. The paper's worse oscillation with many flows
appears here only where the windows fall under 2 MSS and wait on delayed ACKs.

Outputs: pi_summary.csv (rate, aqm, flows, utilisation, goodput, empty fraction, queue
quantiles, spread, marks, drops), pi_queue.csv (the sampled queue of N = 2 and 20, both
schemes, both rates, over a slice of the window), pi_cdf.csv (the time-weighted queue CDF of
the same runs), pi.png/.svg.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...results import occupancy_cdf, occupancy_pmf
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import RECEIVER_PORT, fan_in, threshold
from ..units import gbps, ms
from .model import PACKET_BYTES

RATES = (1.0, 10.0)
N_MIN = 2  # N⁻: the fewest flows of the runs
# Hollot et al.'s design example samples 160 Hz with R⁺ = 0.246 s: 39.36 samples per RTT.
SAMPLES_PER_RTT = 160.0 * 0.246
FLOWS = (2, 3, 5, 10, 20)
FEW, MID, MANY = 2, 5, 20
# "A loss of utilization": at least 1% of the link below the many-flow run's (a difference of a
# few parts per million is not a loss anyone would report).
UTILISATION_LOSS = 0.01
SAMPLE_US = {1.0: 50.0, 10.0: 5.0}
SLICE_S = {1.0: 0.05, 10.0: 0.005}  # the slice of the queue plotted
STYLES = {
    ("PI", FEW): ("tab:red", "-"),
    ("PI", MANY): ("tab:orange", "-"),
    ("DCTCP", FEW): ("tab:blue", "--"),
    ("DCTCP", MANY): ("tab:cyan", "--"),
}


def k_of(rate_gbps: float) -> int:
    """DCTCP's marking threshold for a port speed (§3.5): 20 up to 1 Gbps, 65 above."""
    return 20 if rate_gbps <= 1.0 else 65


def link_packets_per_s(rate_gbps: float, framing_bytes: int) -> float:
    """C in full-size packets per second (1500-B IP packets plus framing on the wire)."""
    return rate_gbps * 1e9 / ((PACKET_BYTES + framing_bytes) * 8)


def pi_design(n_min: int, c_pps: float, rtt_s: float, sample_hz: float) -> dict[str, float]:
    """Hollot et al.'s PI design for N⁻ = ``n_min`` flows, C = ``c_pps`` packets/s and
    R⁺ = ``rtt_s``: the zero z at the TCP pole 2N⁻/(R⁺²C), the crossover ω_g = z,
    K_PI = ω_g·|jω_g R⁺ + 1|·(2N⁻)²/(R⁺C)³, and the bilinear-transform coefficients a, b of
    the difference equation sampled at ``sample_hz``."""
    p_tcp = 2.0 * n_min / (rtt_s**2 * c_pps)
    p_queue = 1.0 / rtt_s
    z = wg = p_tcp
    k_pi = wg * math.hypot(wg / p_queue, 1.0) * (2.0 * n_min) ** 2 / (rtt_s * c_pps) ** 3
    t = 1.0 / sample_hz
    return {
        "p_tcp": p_tcp,
        "p_queue": p_queue,
        "z": z,
        "omega_g": wg,
        "k_pi": k_pi,
        "sample_hz": sample_hz,
        "a": k_pi * (1.0 / z + t / 2.0),
        "b": k_pi * (1.0 / z - t / 2.0),
    }


def design(rate_gbps: float, tb: Testbed) -> dict[str, float]:
    """The one PI design of a link speed on ``tb``'s links (see the module docstring): the
    base RTT is four link delays."""
    cpps = link_packets_per_s(rate_gbps, tb.link["framing_bytes"])
    q_ref = float(k_of(rate_gbps))
    rtt = 4 * tb.link["delay_us"] * 1e-6 + q_ref / cpps
    d = pi_design(N_MIN, cpps, rtt, SAMPLES_PER_RTT / rtt)
    return d | {"c_pps": cpps, "rtt_s": rtt, "n_min": N_MIN, "q_ref_packets": q_ref}


def pi_aqm(rate_gbps: float, tb: Testbed) -> dict[str, Any]:
    """The switch's PI controller with the gains of :func:`design`, marking ECT packets."""
    d = design(rate_gbps, tb)
    return {
        "kind": "pi",
        "a": d["a"],
        "b": d["b"],
        "q_ref_packets": d["q_ref_packets"],
        "sample_hz": d["sample_hz"],
        "ecn": True,
    }


def scenarios(p: Params, tb: Testbed) -> dict[tuple[float, str, int], dict]:
    """``(rate_gbps, aqm, flows)`` → scenario: PI with TCP-ECN and DCTCP for every N; the
    queue sampled for the runs plotted."""
    plan = {}
    for rate in RATES:
        for aqm_name, cc, aqm in (("PI", "tcp_ecn", pi_aqm(rate, tb)), ("DCTCP", "dctcp", threshold(k_of(rate)))):
            for n in FLOWS:
                plan[(rate, aqm_name, n)] = fan_in(
                    f"dctcp-pi-{rate:g}g-{aqm_name.lower()}-n{n}",
                    tb,
                    senders=n,
                    cc=cc,
                    aqm=aqm,
                    rate_gbps=rate,
                    duration_s=p["duration_s"],
                    warmup_s=p["warmup_s"],
                    queue_sample_us=SAMPLE_US[rate] if n in (FEW, MANY) else 0.0,
                    jitter_us=1000.0 if rate <= 1.0 else 100.0,
                )
    return plan


def empty_fraction(occ: Sequence[float] | np.ndarray) -> float:
    """Fraction of the window the port held no packet (time-weighted)."""
    return float(occupancy_pmf(occ)[0]) if len(occ) else float("nan")


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    rows = []
    for (r, a, n), res in runs.items():
        qs = res.queue_stats(RECEIVER_PORT)
        rows.append(
            {
                "rate_gbps": r,
                "aqm": a,
                "flows": n,
                "utilization": qs["utilization"],
                "goodput_gbps": gbps(res.goodput_bps()),
                "empty_fraction": empty_fraction(res.occupancy(RECEIVER_PORT)),
                "mean_packets": qs["mean_packets"],
                "p5_packets": qs["p5_packets"],
                "median_packets": qs["median_packets"],
                "p95_packets": qs["p95_packets"],
                "spread_packets": qs["p95_packets"] - qs["p5_packets"],
                "marks": qs["marks"],
                "drops": qs["drops"],
                "timeouts": res.total("timeouts"),
            }
        )
    df = pd.DataFrame(rows)

    t0 = runs.params["warmup_s"]
    qrows, cdf_rows = [], []
    for r in RATES:
        for a in ("PI", "DCTCP"):
            for n in (FEW, MANY):
                res = runs[(r, a, n)]
                t, q, _ = res.queue_series(RECEIVER_PORT, t_from=t0, t_to=t0 + SLICE_S[r])
                qrows += [{"rate_gbps": r, "aqm": a, "flows": n, "t_ms": ms(x - t0), "packets": int(y)} for x, y in zip(t, q)]
                x, y = occupancy_cdf(res.occupancy(RECEIVER_PORT))
                cdf_rows += [{"rate_gbps": r, "aqm": a, "flows": n, "queue_packets": int(k), "cdf": float(c)} for k, c in zip(x, y)]
    return Metrics(
        values={
            "window_s": [t0, runs.params["duration_s"]],
            "pi_design": {f"{r:g}gbps": design(r, runs.testbed) for r in RATES},
            "rows": df.to_dict(orient="records"),
        },
        tables={"pi_summary": df, "pi_queue": pd.DataFrame(qrows), "pi_cdf": pd.DataFrame(cdf_rows)},
    )


# --- claims -------------------------------------------------------------------------------


def _value(m: Metrics, rate: float, a: str, n: int, col: str) -> float:
    """One number of a run from the summary table."""
    return float(m.tables["pi_summary"].set_index(["rate_gbps", "aqm", "flows"]).loc[(rate, a, n), col])


def _pi(m: Metrics, rate: float, col: str) -> dict[int, float]:
    """PI's ``col`` at ``rate`` by number of flows."""
    return {n: _value(m, rate, "PI", n, col) for n in FLOWS}


def _claims(rate: float) -> tuple[Claim, ...]:
    at = f"{rate:g} Gbps"
    tag = f"{rate:g}gbps"

    def underflow(m: Metrics) -> tuple[bool, str]:
        u, e = _pi(m, rate, "utilization"), _pi(m, rate, "empty_fraction")
        dctcp_u = _value(m, rate, "DCTCP", FEW, "utilization")
        measured = (
            f"PI utilisation {u[FEW]:.2%} ({FEW} flows) vs {u[MANY]:.2%} ({MANY}), DCTCP "
            f"{dctcp_u:.2%} ({FEW}); PI empty {e[FEW]:.2%} vs {e[MANY]:.2%}"
        )
        lost = u[FEW] <= u[MANY] - UTILISATION_LOSS and u[FEW] <= dctcp_u - UTILISATION_LOSS
        return lost and e[FEW] > e[MANY], measured

    def oscillation(m: Metrics) -> tuple[bool, str]:
        sp = _pi(m, rate, "spread_packets")
        return sp[MANY] > sp[MID], "PI spread " + ", ".join(f"N={n}: {sp[n]:.0f}" for n in FLOWS) + " packets"

    def neither(m: Metrics) -> tuple[bool, str]:
        u, sp = _pi(m, rate, "utilization"), _pi(m, rate, "spread_packets")
        measured = "; ".join(
            f"N={n}: DCTCP {_value(m, rate, 'DCTCP', n, 'utilization'):.2%}, spread "
            f"{_value(m, rate, 'DCTCP', n, 'spread_packets'):.0f} vs PI {u[n]:.2%}, {sp[n]:.0f}"
            for n in (FEW, MANY)
        )
        holds = all(
            _value(m, rate, "DCTCP", n, "utilization") >= u[n] and _value(m, rate, "DCTCP", n, "spread_packets") <= sp[n]
            for n in (FEW, MANY)
        )
        return holds, measured

    return (
        Claim(
            id=f"few-flows-underflow-{tag}",
            kind="paper",
            text=(
                f"{at}, PI with few flows: queue underflows and a loss of utilisation: with {FEW} flows "
                f"the port is idle more often than with {MANY} flows and utilised at least 1% of the link less "
                f"than with {MANY} flows and than DCTCP with {FEW}"
            ),
            paper="few flows (< 5): queue underflows, loss of utilization",
            quote="with few flows (< 5), PI suffers from queue underflows and a loss of utilization",
            section="§3.5",
            check=underflow,
        ),
        Claim(
            id=f"many-flows-oscillate-{tag}",
            kind="paper",
            text=(
                f"{at}, PI with many flows: queue oscillations get worse: the spread p95 − p5 with "
                f"{MANY} flows exceeds that with {MID} (qualitative)"
            ),
            paper="many flows (20): queue oscillations get worse",
            quote="with many flows (20), queue oscillations get worse, which can hurt the latency of time-critical flows",
            section="§3.5",
            check=oscillation,
        ),
        Claim(
            id=f"dctcp-has-neither-problem-{tag}",
            kind="paper",
            text=(
                f"{at}: DCTCP at the same loads has neither problem: utilisation ≥ PI's and a spread "
                f"≤ PI's with {FEW} and with {MANY} flows (§3.5: with TCP an AQM trades throughput for "
                "delay)"
            ),
            paper="AQM is not enough; DCTCP gets both",
            quote=(
                "any AQM scheme operating with TCP in a data-center-like environment requires making a tradeoff between "
                "throughput and delay ... DCTCP achieves both high throughput and low delay"
            ),
            section="§3.5",
            check=neither,
        ),
    )


CLAIMS = tuple(claim for rate in RATES for claim in _claims(rate))


# --- plot ---------------------------------------------------------------------------------


def _plot_rate(axes: Any, rate: float, m: Metrics) -> None:
    ax1, ax2, ax3 = axes
    qdf, cdf = m.tables["pi_queue"], m.tables["pi_cdf"]
    for (a, n), (color, ls) in STYLES.items():
        d = qdf[(qdf.rate_gbps == rate) & (qdf.aqm == a) & (qdf.flows == n)]
        label = f"{a}, {n} flows (ours)"
        ax1.plot(d.t_ms, d.packets, color=color, ls=ls, lw=0.9, label=label)
        c = cdf[(cdf.rate_gbps == rate) & (cdf.aqm == a) & (cdf.flows == n)]
        ax2.step(c.queue_packets.to_numpy(), c.cdf.to_numpy(), where="post", color=color, ls=ls, label=label)
    ax1.axhline(k_of(rate), color="k", ls=":", lw=1, label=f"q_ref = K = {k_of(rate)}")
    ax1.set_xlabel("Time (ms)")
    ax1.set_ylabel("Queue (packets)")
    ax1.set_title(f"(a) {rate:g} Gbps: receiver-port queue, {SLICE_S[rate] * 1e3:g} ms slice")
    ax1.legend(fontsize=7, loc="upper right")
    ax2.set_xlabel("Queue (packets)")
    ax2.set_ylabel("Cumulative fraction of time")
    ax2.set_xlim(left=0)
    ax2.set_ylim(0, 1.02)
    ax2.set_title(f"(b) {rate:g} Gbps: queue CDF")
    ax2.legend(fontsize=7, loc="lower right")
    note(
        ax2,
        "paper (ns-2): few flows (< 5): PI queue underflows,\nloss of utilization; 20 flows: oscillations worse",
        loc="center right",
    )
    df = m.tables["pi_summary"]
    d = df[df.rate_gbps == rate]
    pi, dc = d[d.aqm == "PI"].sort_values("flows"), d[d.aqm == "DCTCP"].sort_values("flows")
    ax3.plot(pi.flows, pi.utilization * 100, "o-", color="tab:red", label="PI utilisation (ours)")
    ax3.plot(dc.flows, dc.utilization * 100, "s--", color="tab:blue", label="DCTCP utilisation (ours)")
    ax3.set_xlabel("Flows")
    ax3.set_ylabel("Link utilisation (%)")
    ax3.set_xticks(FLOWS)
    ax3b = ax3.twinx()
    ax3b.plot(pi.flows, pi.spread_packets, "o:", color="tab:orange", label="PI p95−p5 (ours)")
    ax3b.plot(dc.flows, dc.spread_packets, "s:", color="tab:cyan", label="DCTCP p95−p5 (ours)")
    ax3b.set_ylabel("Queue spread p95 − p5 (packets)")
    h1, l1 = ax3.get_legend_handles_labels()
    h2, l2 = ax3b.get_legend_handles_labels()
    ax3.legend(h1 + h2, l1 + l2, fontsize=7, loc="center right")
    ax3.set_title(f"(c) {rate:g} Gbps: utilisation and queue spread")


def plot(m: Metrics) -> Any:
    fig, axes = figure(len(RATES), 3, size=(15.0, 4.0 * len(RATES)))
    for row, rate in zip(axes, RATES):
        _plot_rate(row, rate, m)
    return fig


EXPERIMENT = Experiment(
    id="dctcp-pi",
    paper="dctcp",
    figure="§3.5",
    title="the PI AQM with TCP-ECN, few flows vs many, beside DCTCP (1 and 10 Gbps)",
    description=(
        "PI (Hollot et al., gains from their design rules) with TCP-ECN for 2-20 flows: underflow with few flows, oscillation with "
        "many; DCTCP as reference."
    ),
    testbed="dctcp_ns2",
    scales={
        "quick": {"warmup_s": 1.0, "duration_s": 3.0},
        "full": {"warmup_s": 2.0, "duration_s": 12.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"pi": plot},
    notes=__doc__ or "",
)
