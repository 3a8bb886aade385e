"""The ICTCP testbed's host model, calibrated once against ICTCP Fig. 5 (goodput and RTT of one
connection vs its receive window), for use unchanged by every ICTCP experiment.

The model: received packets wait for a receive interrupt at most every ``rx_interrupt_interval_us``
(the NIC's interrupt moderation) and then occupy the host's receive path for ``rx_processing_us``
each, in turn (driver and stack), on both hosts of the round trip. The link delay gives back
what processing takes, so the base RTT (1 MSS, no other traffic) stays the paper's 100 µs
(:func:`ictcp_testbed.link`).

- Interrupt interval: not fitted. The servers' NICs are Broadcom BCM5709C (ICTCP §VII); their
  Linux driver coalesces received packets for 18 µs by default (drivers/net/ethernet/broadcom/
  bnx2.c, ``bnx2_init_board``: ``rx_ticks = 18``, ``rx_quick_cons_trip = 12`` frames, which at
  1 Gb/s take 148 µs and never trigger first). The Windows driver's moderation is not
  documented: ASSUMPTION that it matches. The engine's moderation is a throttle (a packet after
  a quiet interval goes up at once), where the chip's timer also delays a lone packet up to
  18 µs; the throttle keeps the paper's 100 µs base RTT.
- Per-packet processing: fitted, once, on the grid :data:`PROCESSING_US`: the value whose
  sender RTT (srtt) over the windows of :data:`FIT_RWND` is nearest, in mean relative error, to
  the paper's line from 100 µs at 1 MSS to 200 µs at 20 MSS (§II-B; the figure's points in
  between are not published, so the line between its two published ones is the target,
  ASSUMPTION). Only windows where the line is reachable count: a window-limited flow's RTT is
  at least w·MSS/C (Little's law), 12.3 µs per MSS at the 949 Mb/s goodput ceiling, which
  passes the line from 14 MSS on; at 20 MSS the paper's 200 µs would need 1.17 Gb/s, so no
  host model reaches it and the fit leaves it out. Even windows only: with an ACK every 2
  segments, an odd window's last segment waits for the next window (ictcp-fig5's docstring).

The fit barely tells the grid's values apart (quick scale: 7.1-7.2% mean error for every value
from 0 to 12 µs): at 1 Gb/s a packet every 12.3 µs leaves the receive path idle between
packets, and the interrupt moderation alone sets the RTT's growth. So the profile takes the
least processing whose error is within :data:`FIT_MARGIN` of the best (no host delay the figure
does not call for). The result is :data:`ictcp_testbed.HOST_PROFILE`; the claims below check
that it is that value and how close it comes.

Assumptions:
- The paper's RTT between its two published points is a straight line (the figure's other
  points are not published).
- The Windows driver of the BCM5709C coalesces as its Linux driver does by default.
- The RTT the paper plots is what the sender measures (srtt), as in ictcp-fig5.

Outputs: calibration.csv (processing_us, rwnd_mss, goodput_mbps, srtt_us, rtt_little_us,
timeouts, paper_line_us),
calibration.png/.svg (srtt vs rwnd for every grid value, the chosen one bold, the paper's line).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from . import common as c
from . import ictcp_fig5 as fig5
from . import ictcp_testbed as tb

ID = "ictcp-host-calibration"
TITLE = "ICTCP testbed host model: per-packet receive processing fitted once to Fig. 5's RTT"
DESCRIPTION = (
    "One GbE connection per receive window and host model: sender RTT against the paper's 100 → 200 µs line; the best fit is "
    "the host profile of every ICTCP experiment."
)

PAPER_RTT1_US = 100.0
PAPER_RTT20_US = 200.0
PAPER_GOODPUT_MBPS = 900.0
PROCESSING_US = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0)
FIT_RWND = (1, 2, 4, 6, 8, 10, 12)
SHOWN_RWND = FIT_RWND + (16, 20)
CHECK_RWND = (1, 4, 8)
TOLERANCE = 0.15
# Fits within half a percentage point of the best cannot be told apart at these durations.
FIT_MARGIN = 0.005
SCALES = {"smoke": {"duration_s": 0.05}, "quick": {"duration_s": 0.2}, "full": {"duration_s": 2.0}}
WARMUP_S = 0.05


def paper_line_us(w: float) -> float:
    """The paper's RTT between its two published points, linear in the window (ASSUMPTION)."""
    return PAPER_RTT1_US + (PAPER_RTT20_US - PAPER_RTT1_US) * (w - 1) / 19


def host(processing_us: float) -> dict:
    return {"rx_interrupt_interval_us": tb.HOST_PROFILE["rx_interrupt_interval_us"], "rx_processing_us": processing_us}


def scenarios(scale: str) -> list[tuple[float, int, dict]]:
    s = c.check_scale(scale, SCALES)
    return [
        (
            p,
            w,
            tb.scenario(
                f"{ID}-c{p:g}-rwnd{w}",
                duration_s=WARMUP_S + s["duration_s"],
                warmup_s=WARMUP_S,
                flows=[{"src": 1, "dst": 2, "start_s": 0.0, "rcv_buffer_bytes": w * tb.MSS}],
                host=host(p),
            ),
        )
        for p in PROCESSING_US
        for w in SHOWN_RWND
    ]


def fit_error(d: pd.DataFrame) -> float:
    """Mean relative error of srtt against the paper's line over :data:`FIT_RWND`."""
    f = d[d.rwnd_mss.isin(FIT_RWND)]
    return float((f.srtt_us / f.paper_line_us - 1).abs().mean())


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    table = fig5.window_table(scenarios(scale), jobs, "processing_us")
    table["paper_line_us"] = [paper_line_us(w) for w in table.rwnd_mss]
    table.to_csv(out / "calibration.csv", index=False)
    errors = {p: fit_error(table[table.processing_us == p]) for p in PROCESSING_US}
    best = min(errors, key=lambda p: (errors[p], p))
    least = min(p for p in PROCESSING_US if errors[p] <= errors[best] + FIT_MARGIN)
    chosen = float(tb.HOST_PROFILE["rx_processing_us"])
    d = table[table.processing_us == chosen].set_index("rwnd_mss")

    fig, ax = c.figure(size=(6.4, 4.0))
    for p in PROCESSING_US:
        g = table[table.processing_us == p]
        bold = p == chosen
        ax.plot(g.rwnd_mss, g.srtt_us, "o-" if bold else "-", ms=3, lw=2.0 if bold else 0.8,
                color="tab:red" if bold else "0.6", label=f"{p:g} µs per packet" + (" (chosen)" if bold else ""))
    ws = [1, 20]
    ax.plot(ws, [paper_line_us(w) for w in ws], "k^:", label="paper: 100 → 200 µs (1 → 20 MSS)")
    ax.plot([w for w in SHOWN_RWND], [w * tb.MSS * 8 / (tb.CEILING_MBPS * 1e6) * 1e6 for w in SHOWN_RWND], "b--", lw=0.8,
            label="Little's law floor at the goodput ceiling")
    ax.set_xlabel("Receive window (MSS)")
    ax.set_ylabel("Sender RTT, srtt (µs)")
    ax.set_title(f"Host model: interrupts ≥ {tb.HOST_PROFILE['rx_interrupt_interval_us']:g} µs apart, per-packet processing fitted")
    ax.legend(fontsize=6, loc="upper left")
    files = c.save_figure(fig, out, "calibration")

    checks = {w: (float(d.srtt_us[w]), paper_line_us(w)) for w in CHECK_RWND}
    within = all(abs(r / t - 1) <= TOLERANCE for r, t in checks.values())
    base = float(d.srtt_us[1])
    early = d[(d.srtt_us >= 1.2 * base) & (d.goodput_mbps < PAPER_GOODPUT_MBPS)]
    claims = [
        c.claim(
            "The host profile every ICTCP experiment uses fits Fig. 5's RTT as well as any on the grid: the least "
            f"per-packet processing ({PROCESSING_US[0]:g}-{PROCESSING_US[-1]:g} µs) within {FIT_MARGIN:.1%} of the best "
            "mean error over even windows up to 12 MSS",
            "100 µs at 1 MSS, 200 µs at 20 MSS (§II-B)",
            f"best {best:g} µs ({errors[best]:.1%}), least within the margin {least:g} µs, profile {chosen:g} µs; "
            "errors: " + ", ".join(f"{p:g}: {e:.1%}" for p, e in errors.items()),
            math.isclose(least, chosen),
        ),
        c.claim(
            f"The calibrated host reproduces Fig. 5's RTT within {TOLERANCE:.0%} at {', '.join(map(str, CHECK_RWND))} MSS",
            "the line 100 → 200 µs",
            "; ".join(f"{w} MSS: {r:.0f} vs {t:.0f} µs" for w, (r, t) in checks.items()),
            within,
        ),
        c.claim(
            "RTT grows before the link saturates (claim 25's shape): RTT ≥ 1.2 × RTT(1 MSS) at some window "
            f"whose goodput is < {PAPER_GOODPUT_MBPS:.0f} Mb/s",
            "RTT 100 → 200 µs while goodput < ~900 Mb/s",
            f"RTT(1 MSS) {base:.0f} µs; windows: "
            + (
                ", ".join(f"{w} MSS {r:.0f} µs at {g:.0f} Mb/s" for w, r, g in zip(early.index, early.srtt_us, early.goodput_mbps))
                or "none"
            ),
            len(early) > 0,
        ),
    ]
    metrics = {
        "duration_s": s["duration_s"],
        "interrupt_interval_us": tb.HOST_PROFILE["rx_interrupt_interval_us"],
        "best_processing_us": best,
        "least_within_margin_us": least,
        "profile_processing_us": chosen,
        "fit_errors": {f"{p:g}": e for p, e in errors.items()},
        "rtt_20mss_us": float(d.srtt_us[20]),
        "files": ["calibration.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
