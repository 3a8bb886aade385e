"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 5: goodput and RTT of one TCP connection
vs its (fixed) receive window.

Paper setup (§II-B): "one TCP connection between two servers under the same ToR Gigabit
switch. We fix the receive window by setting the socket buffer: one connection for one receive
window, and each connection lasts for 10 s".

Published numbers (§II-B): base RTT (rwnd = 1 MSS, no other traffic) "around 100 μs"; "RTT
increases from 100 to 200 μs when the TCP receive window increases from 1 to 20 MSS, while the
throughput is smaller than the available bandwidth at around 900 Mb/s"; cause: "queueing at
the sender's network adaptor". Spec §6 claim 25: with the NIC-queue model on, RTT ≥ 1.2 ×
RTT(1 MSS) already at an rwnd whose goodput is < 900 Mb/s.

Our setup: :mod:`ictcp_testbed` (1 Gbps star, base RTT 100 µs at 1 MSS, ``quanta_lb4g`` buffer,
NewReno + SACK, delayed ACK m = 2 / 200 ms). One uncapped-cwnd flow from host 1 to host 2,
receive buffer = rwnd; the host NIC model is on (engine default: a 1000-packet FIFO serialised
at 1 Gbps, 1 µs transmit jitter; spec algorithms.md §1.10 M10). Every window is run twice: on
the testbed's hosts (``ictcp_testbed.HOST_PROFILE``: receive interrupts at least 18 µs apart,
calibrated once by ``ictcp-host-calibration``; the claims are checked on these), and with
receive interrupts at least 50 µs apart (20,000 interrupts/s, a common moderation rate).

Assumptions:
- rwnd grid NOT GIVEN beyond "1 to 20 MSS": spec ASSUMPTION 1-64 MSS.
- Durations: full 10 s per connection (paper) after 0.1 s warm-up; quick 0.3 s.
- RTT: the sender's smoothed RTT (RFC 6298 srtt, ``flows.srtt_s``) at the end of the run;
  the engine does not record a receiver-side RTT. Beside it, the RTT a receiver can infer from
  what it sees, rwnd / goodput (Little's law for a window-limited flow: one window per RTT) —
  it includes the delayed-ACK holding time, which srtt also includes.
- Claim 25 is checked on the *onset* of RTT inflation: the smallest rwnd from which every larger
  rwnd has RTT ≥ 1.2 × RTT(1 MSS). (Odd windows below the BDP - 3, 5, 7 MSS - have a higher
  srtt than their neighbours because with m = 2 the odd segment of every window waits for the
  next window before it is ACKed — a delayed-ACK effect, not queueing — so "any rwnd with RTT
  ≥ 1.2 × base" would pass for the wrong reason; it is reported too.)

Earlier, on hosts without interrupt moderation, the sender NIC was a FIFO drained at the line
rate, the same rate as the switch port, with no host delay; the RTT only grew once the window
exceeded the base BDP (≈ 9 segments), where the goodput reaches the 949 Mb/s ceiling, and claim
25 failed. With the calibrated hosts the second segment of a burst waits for the receiver's next
interrupt, and the RTT is 1.2 × base from 7 MSS on while the goodput is 649 Mb/s (quick). The
paper's own numbers do not pin a host model down: by Little's law a window-limited flow with
20 MSS and a 200 µs RTT would carry 1.17 Gb/s, more than the link, so its 200 µs at 20 MSS is
out of any host model's reach (ictcp-host-calibration).

Outputs: fig5_rwnd.csv (host, rwnd_mss, goodput_mbps, srtt_us, rtt_little_us, timeouts),
fig5_rwnd.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from . import common as c
from . import ictcp_testbed as tb

ID = "ictcp-fig5"
TITLE = "ICTCP Fig. 5: goodput and RTT of one TCP connection vs receive window"
DESCRIPTION = (
    "One GbE TCP connection with a fixed receive window of 1-64 MSS: goodput and RTT, with and without receive interrupt "
    "moderation."
)

PAPER_BASE_RTT_US = 100.0
PAPER_RTT20_US = 200.0
PAPER_GOODPUT_MBPS = 900.0
SCALES = {
    "smoke": {"rwnd": (1, 2, 20), "duration_s": 0.05},
    "quick": {
        "rwnd": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 20, 24, 32, 48, 64),
        "duration_s": 0.3,
    },
    "full": {"rwnd": tuple(range(1, 65)), "duration_s": 10.0},
}
WARMUP_S = 0.1
# A second host model beside the testbed's: at most one receive interrupt per 50 µs
# (20,000 interrupts/s), a common interrupt-moderation rate; the paper's is NOT GIVEN.
MODERATION_US = 50.0
TESTBED = "testbed hosts"
MODERATED = f"receive interrupts ≥ {MODERATION_US:.0f} µs apart"
HOSTS = {
    "testbed": (TESTBED, None),
    "moderated": (MODERATED, {"rx_interrupt_interval_us": MODERATION_US}),
}


def scenarios(scale: str) -> list[tuple[str, int, dict]]:
    """``(host model, rwnd in MSS, scenario)``: every window on the testbed's hosts, and again
    with receive interrupt moderation (:data:`MODERATED_HOST`)."""
    s = c.check_scale(scale, SCALES)
    return [
        (
            label,
            w,
            tb.scenario(
                f"{ID}-{key}-rwnd{w}",
                duration_s=WARMUP_S + s["duration_s"],
                warmup_s=WARMUP_S,
                flows=[{"src": 1, "dst": 2, "start_s": 0.0, "rcv_buffer_bytes": w * tb.MSS}],
                host=host,
            ),
        )
        for key, (label, host) in HOSTS.items()
        for w in s["rwnd"]
    ]


def window_table(plan: list[tuple[Any, int, dict]], jobs: int, key: str) -> pd.DataFrame:
    """Runs a plan of one connection per ``(variant, rwnd in MSS, scenario)``: per run the
    variant (column ``key``), the window, the goodput, the sender's srtt, the RTT a receiver
    infers (window / goodput, Little's law) and the timeouts."""
    results = c.run_all([sc for *_, sc in plan], jobs)
    rows = []
    for (variant, w, _), res in zip(plan, results):
        f = c.flows(res)[0]
        g = float(f["goodput_bps"])
        rows.append(
            {
                key: variant,
                "rwnd_mss": w,
                "goodput_mbps": g / 1e6,
                "srtt_us": float(f["srtt_s"]) * 1e6 if f.get("srtt_s") is not None else float("nan"),
                "rtt_little_us": w * tb.MSS * 8 / g * 1e6 if g > 0 else float("nan"),
                "timeouts": int(f["timeouts"]),
            }
        )
    return pd.DataFrame(rows)


def inflation_onset(d: pd.DataFrame) -> tuple[int | None, float]:
    """The smallest rwnd from which every larger rwnd has RTT ≥ 1.2 × RTT(smallest rwnd), and
    the goodput there ((None, NaN) if none)."""
    if not len(d):
        return None, float("nan")
    inflated = (d.srtt_us >= 1.2 * float(d.srtt_us.iloc[0])).to_numpy()
    for i in range(len(d)):
        if inflated[i:].all():
            return int(d.rwnd_mss.iloc[i]), float(d.goodput_mbps.iloc[i])
    return None, float("nan")


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    table = window_table(scenarios(scale), jobs, "host")
    table.to_csv(out / "fig5_rwnd.csv", index=False)
    df = table[table.host == TESTBED].sort_values("rwnd_mss").reset_index(drop=True)
    mod = table[table.host == MODERATED].sort_values("rwnd_mss").reset_index(drop=True)

    fig, ax = c.figure(size=(6.4, 4.0))
    ax2 = ax.twinx()
    for d, label, ls in ((df, TESTBED, "-"), (mod, MODERATED, "--")):
        ax.plot(d.rwnd_mss, d.goodput_mbps, "o" + ls, ms=3, color="tab:blue", label=f"goodput, {label}")
        ax2.plot(d.rwnd_mss, d.srtt_us, "s" + ls, ms=3, color="tab:red", label=f"RTT (srtt), {label}")
    ax.axhline(PAPER_GOODPUT_MBPS, color="tab:blue", ls=":", lw=1, label="paper: ~900 Mb/s")
    ax.set_xlabel("Receive window (MSS)")
    ax.set_ylabel("Goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax2.plot(
        [1, 20],
        [PAPER_BASE_RTT_US, PAPER_RTT20_US],
        "k^:",
        ms=5,
        label="paper: 100 → 200 µs (1 → 20 MSS)",
    )
    ax2.set_ylabel("RTT (µs)")
    ax2.set_ylim(0, max(400.0, float(table.srtt_us.max()) * 1.05 if len(table) else 400.0))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower right", fontsize=6)
    ax.set_title("One GbE TCP connection vs receive window")
    files = c.save_figure(fig, out, "fig5_rwnd")

    # --- claims ---------------------------------------------------------------------------
    base_w = int(df.rwnd_mss.min())
    base = float(df.srtt_us.iloc[0])
    thr = 1.2 * base
    infl = df.srtt_us >= thr
    onset_w, onset_g = inflation_onset(df)
    mod_w, mod_g = inflation_onset(mod)
    any_rows = df[infl & (df.goodput_mbps < PAPER_GOODPUT_MBPS)]
    r20 = df[df.rwnd_mss == 20]
    rtt20 = float(r20.srtt_us.iloc[0]) if len(r20) else float("nan")
    g20 = float(r20.goodput_mbps.iloc[0]) if len(r20) else float("nan")
    peak = float(df.goodput_mbps.max())
    sat = df[df.goodput_mbps >= 0.98 * peak]
    sat_w = int(sat.rwnd_mss.iloc[0]) if len(sat) else None
    claims = [
        c.claim(
            f"RTT grows before the link saturates (claim 25): from the rwnd where RTT first stays ≥ 1.2 × "
            f"RTT({base_w} MSS), goodput is still < {PAPER_GOODPUT_MBPS:.0f} Mb/s",
            "RTT 100 → 200 µs as rwnd 1 → 20 MSS while goodput < ~900 Mb/s (sender NIC queueing)",
            f"base RTT({base_w} MSS) = {base:.0f} µs; RTT ≥ {thr:.0f} µs from rwnd = {onset_w} MSS on, where "
            f"goodput = {c.fmt(onset_g, 0)} Mb/s; goodput reaches 98% of its peak {peak:.0f} Mb/s at "
            f"rwnd = {sat_w} MSS; rwnd values with RTT ≥ 1.2 × base and goodput < 900: "
            f"{[int(x) for x in any_rows.rwnd_mss]} (delayed-ACK effect, see docstring). With "
            f"{MODERATED}: from rwnd = {mod_w} MSS on, at goodput {c.fmt(mod_g, 0)} Mb/s",
            onset_w is not None and onset_g < PAPER_GOODPUT_MBPS,
        ),
        c.claim(
            "Base RTT ≈ 100 µs and RTT at 20 MSS ≈ 200 µs (§II-B): within ±50%",
            "100 µs (1 MSS), 200 µs (20 MSS)",
            f"RTT({base_w} MSS) = {base:.0f} µs, RTT(20 MSS) = {c.fmt(rtt20, 0)} µs, goodput(20 MSS) = "
            f"{c.fmt(g20, 0)} Mb/s",
            math.isfinite(rtt20)
            and abs(base - PAPER_BASE_RTT_US) <= 0.5 * PAPER_BASE_RTT_US
            and abs(rtt20 - PAPER_RTT20_US) <= 0.5 * PAPER_RTT20_US,
        ),
        c.claim(
            "Goodput saturates around 900 Mb/s (§II-B): peak within 10% of 900 Mb/s",
            "~900 Mb/s",
            f"peak {peak:.0f} Mb/s (payload ceiling 1460/1538 × 1 Gb/s = {tb.CEILING_MBPS:.0f})",
            abs(peak - PAPER_GOODPUT_MBPS) <= 0.1 * PAPER_GOODPUT_MBPS,
        ),
    ]
    metrics = {
        "duration_s": s["duration_s"],
        "base_rwnd_mss": base_w,
        "base_rtt_us": base,
        "rtt_20mss_us": rtt20,
        "goodput_20mss_mbps": g20,
        "inflation_onset_rwnd_mss": onset_w,
        "inflation_onset_goodput_mbps": onset_g,
        "saturation_rwnd_mss": sat_w,
        "peak_goodput_mbps": peak,
        "moderated_onset_rwnd_mss": mod_w,
        "moderated_onset_goodput_mbps": mod_g,
        "files": ["fig5_rwnd.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
