"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), §V: the buffer a port needs when n senders each
hold a 2-MSS window (Eq. 8), checked in simulation.

Paper (§V): n long-lived flows to one receiver, windows w, packets of δ = 1500 B, link capacity
C, common base RTT R. In the worst case (synchronised, every window in flight as data) there is
no loss iff the port's buffer Q ≥ n·w·δ − R·C (Eq. 8). With C = 1 Gb/s and R = 100 µs, R·C =
12,500 B; with w = 2 MSS and n = 47 a port needs 128.5 kB (and a 48-port switch ≈ 6 MB); a 4 MB
switch, "85 kB for each port (if equally divided)", supports at most 32 senders at 2 MSS. This
is the limit of ICTCP's minimum window (spec experiments.md ictcp-sec5-buffer, §6 claim 26).

Our setup: the ICTCP testbed (:mod:`ictcp_testbed`: 1 Gbps star, base RTT 100 µs at 1 MSS, 38 B
framing, NewReno + SACK) with n long-lived flows from hosts 1..n to host 0, each receive window
pinned at 2 MSS (receive buffer 2,920 B: every sender holds exactly two 1,500-B packets, ICTCP's
floor). Two port sizes, static per port: Q = 85,000 B (the equal share) to find where losses
begin, and Q = 1 MB to measure the queue the senders need. The port's largest occupancy is
compared with Eq. 8, with the paper's R·C and with P, the bytes the rest of the loop holds in
our model (wires, host NIC and ACK path), measured as n·w·δ minus the queue.

Assumptions:
- "Synchronised, all in flight" is read as the ACK-clocked steady state Eq. 8 describes: flows
  start at random times within the first 2 ms (a start at one instant would put every window
  on the port at once, which no analysis with R·C assumes) and are measured after it.
- n grid: quick 8-47 (denser around the limit), full every n from 1 to 47. Durations: quick
  60 ms, full 1 s per run.
- Loss is counted over the whole run (the start-up never holds more than the steady state).

Measured (full scale): the steady-state queue is n·w·δ − 11,680 B within one packet for every
n ≥ 6 (P = 0.93 × the paper's R·C; below 6 senders the link is not full), and 47 senders hold
129.6 kB against the paper's 128.5 kB. At n = 32 the steady queue is 84,320 B, 680 B under the
85 kB port - less than one packet of margin, as in the paper's own arithmetic (96,000 − 12,500
= 83,500 B, one 1,500-B packet below 85,000). With exact host clocks two senders' ACK-released
pairs stayed phase-locked and overflowed it once in 1 s; with each NIC's clock off by its own
offset (≤ 100 ppm) n = 32 runs loss-free and every run from n = 33 on loses, as the claim says.

Outputs: sec5_buffer.csv (senders, predicted_paper_bytes, predicted_model_bytes,
max_queue_bytes for the 1 MB port, drops and max queue at 85 kB), sec5_buffer.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import common as c
from . import ictcp_testbed as tb

ID = "ictcp-sec5-buffer"
TITLE = "ICTCP §V: buffer needed by n senders at a 2-MSS window (Eq. 8) vs simulation"
DESCRIPTION = "n senders pinned at 2 MSS into one port: simulated queue and losses vs Eq. 8's Q ≥ n·w·δ − R·C."

PACKET = tb.MSS + 40  # δ: IP bytes of a full segment, what the port holds
WINDOW_PACKETS = 2
PAPER_RC_BYTES = 12_500  # R·C = 100 µs × 1 Gb/s
PAPER_EQUAL_SHARE = 85_000
PAPER_MAX_SENDERS = 32
PAPER_Q47_BYTES = 128_500
LARGE_PORT = 1_000_000
START_SPREAD_US = 2000.0
SCALES = {
    "smoke": {"ns": (8, 32, 34), "duration_s": 0.02},
    "quick": {
        "ns": (8, 16, 24, 28, 29, 30, 31, 32, 33, 34, 35, 36, 40, 44, 47),
        "duration_s": 0.06,
    },
    "full": {"ns": tuple(range(1, 48)), "duration_s": 1.0},
}


def scenarios(scale: str) -> list[tuple[int, int, dict]]:
    """``(port_bytes, senders, scenario)`` for every run."""
    s = c.check_scale(scale, SCALES)
    out = []
    for q in (PAPER_EQUAL_SHARE, LARGE_PORT):
        for n in s["ns"]:
            flows = [
                {
                    "src": h,
                    "dst": tb.RECEIVER,
                    "start_s": 0.0,
                    "start_jitter_us": START_SPREAD_US,
                    "rcv_buffer_bytes": WINDOW_PACKETS * tb.MSS,
                }
                for h in range(1, n + 1)
            ]
            sc = tb.scenario(f"{ID}-q{q}-n{n}", duration_s=s["duration_s"], flows=flows)
            sc["switch"]["buffer"] = {"kind": "per_port", "limit_bytes": q}
            out.append((q, n, sc))
    return out


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for *_, sc in plan], jobs)
    by = {(q, n): c.port(res) for (q, n, _), res in zip(plan, results)}
    ns = list(s["ns"])
    df = pd.DataFrame(
        {
            "senders": ns,
            "demand_bytes": [n * WINDOW_PACKETS * PACKET for n in ns],
            "max_queue_bytes": [int(by[(LARGE_PORT, n)]["max_bytes"]) for n in ns],
            "drops_large_port": [int(by[(LARGE_PORT, n)]["drops_buffer"]) for n in ns],
            "drops_85kB": [int(by[(PAPER_EQUAL_SHARE, n)]["drops_buffer"]) for n in ns],
            "max_queue_85kB_bytes": [int(by[(PAPER_EQUAL_SHARE, n)]["max_bytes"]) for n in ns],
        }
    )
    # P: what the loop holds outside the port once the link is saturated. Below that (n ≤ 5
    # here) the port only ever holds a sender's momentary 2-packet burst, so saturated runs
    # are those whose queue exceeds 3 packets.
    busy = df[df.max_queue_bytes > 3 * PACKET]
    pipe = float((busy.demand_bytes - busy.max_queue_bytes).median()) if len(busy) else float("nan")
    residual = (busy.demand_bytes - pipe - busy.max_queue_bytes).abs()
    df["predicted_paper_bytes"] = (df.demand_bytes - PAPER_RC_BYTES).clip(lower=0)
    df["predicted_model_bytes"] = (df.demand_bytes - pipe).clip(lower=0)
    df.to_csv(out / "sec5_buffer.csv", index=False)

    fig, ax = c.figure(size=(6.4, 4.0))
    ax.plot(df.senders, df.max_queue_bytes / 1e3, "o", ms=4, color="tab:blue", label="simulated queue (1 MB port)")
    ax.plot(df.senders, df.predicted_paper_bytes / 1e3, "k-", lw=1, label="Eq. 8, paper: n·w·δ − 12.5 kB")
    ax.plot(df.senders, df.predicted_model_bytes / 1e3, "--", lw=1, color="tab:orange", label=f"Eq. 8 with our P = {pipe / 1e3:.1f} kB")
    ax.axhline(PAPER_EQUAL_SHARE / 1e3, color="tab:red", ls=":", lw=1, label="85 kB per port (4 MB / 48)")
    lossy = df[df.drops_85kB > 0]
    ax.plot(lossy.senders, [PAPER_EQUAL_SHARE / 1e3] * len(lossy), "x", color="tab:red", label="losses with an 85 kB port")
    ax.set_xlabel("Senders at a 2-MSS window")
    ax.set_ylabel("Port queue (kB)")
    ax.legend(loc="upper left", fontsize=7)
    ax.set_title("Buffer needed by n synchronised 2-MSS windows")
    files = c.save_figure(fig, out, "sec5_buffer")

    clean = df[df.drops_85kB == 0].senders
    dirty = df[df.drops_85kB > 0].senders
    last_clean = int(clean.max()) if len(clean) else None
    first_loss = int(dirty.min()) if len(dirty) else None
    predicted_max = int((PAPER_EQUAL_SHARE + pipe) // (WINDOW_PACKETS * PACKET)) if np.isfinite(pipe) else None
    q47 = df[df.senders == 47]
    q47_bytes = float(q47.max_queue_bytes.iloc[0]) if len(q47) else float("nan")
    claims = [
        c.claim(
            "85 kB per port supports at most 32 senders at 2 MSS (claim 26): no loss for every n ≤ 32, "
            "loss for every n ≥ 33",
            "≤ 32 senders ((85,000 + 12,500) / 3,000 = 32.5)",
            f"loss-free n: {[int(x) for x in clean]}; lossy n: {[int(x) for x in dirty]} "
            f"(drops: {dict(zip((int(x) for x in df.senders), (int(x) for x in df.drops_85kB)))})",
            len(df) > 0
            and all(df[df.senders <= PAPER_MAX_SENDERS].drops_85kB == 0)
            and all(df[df.senders > PAPER_MAX_SENDERS].drops_85kB > 0),
        ),
        c.claim(
            "The simulated queue follows Eq. 8: max queue = n·w·δ − P within one packet for every "
            "saturated n, with P within 10% of the paper's R·C",
            "Q = n·w·δ − R·C, R·C = 12,500 B",
            f"P = {pipe:.0f} B ({pipe / PAPER_RC_BYTES:.2f} × R·C); largest residual "
            f"{c.fmt(float(residual.max()) if len(residual) else float('nan'), 0)} B over n = "
            f"{[int(x) for x in busy.senders]}; Eq. 8 with P allows n ≤ {predicted_max} at 85 kB, "
            f"first loss seen at n = {first_loss}",
            len(busy) > 0
            and float(residual.max()) <= PACKET
            and abs(pipe - PAPER_RC_BYTES) <= 0.1 * PAPER_RC_BYTES,
        ),
        c.claim(
            "47 senders at 2 MSS need about 128.5 kB per port (§V): simulated queue within 5%",
            "128.5 kB",
            f"{c.fmt(q47_bytes / 1e3, 1)} kB (1 MB port, no loss: {int(q47.drops_large_port.iloc[0]) == 0 if len(q47) else 'n/a'})",
            np.isfinite(q47_bytes) and abs(q47_bytes - PAPER_Q47_BYTES) <= 0.05 * PAPER_Q47_BYTES,
        ),
    ]
    metrics = {
        "duration_s": s["duration_s"],
        "pipe_bytes": pipe,
        "last_loss_free_senders": last_clean,
        "first_lossy_senders": first_loss,
        "eq8_max_senders_with_pipe": predicted_max,
        "queue_47_senders_bytes": q47_bytes,
        "files": ["sec5_buffer.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
