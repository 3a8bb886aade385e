"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), §V: the buffer a port needs when n senders each
hold a 2-MSS window (Eq. 8), checked in simulation.

Paper (§V): n long-lived flows to one receiver, windows w, packets of δ = 1500 B, link capacity
C, common base RTT R. In the worst case (synchronised, every window in flight as data) there is
no loss iff the port's buffer Q ≥ n·w·δ − R·C (Eq. 8). With C = 1 Gb/s and R = 100 µs, R·C =
12,500 B; with w = 2 MSS and n = 47 a port needs 128.5 kB (and a 48-port switch ≈ 6 MB); a 4 MB
switch, "85 kB for each port (if equally divided)", supports at most 32 senders at 2 MSS. This
is the limit of ICTCP's minimum window.

Our setup: the ICTCP testbed (:mod:`ictcp.testbeds`: 1 Gbps star, base RTT 100 µs at 1 MSS,
38 B framing, NewReno + SACK) with n long-lived flows from hosts 1..n to host 0, each receive
window pinned at 2 MSS (receive buffer 2,920 B: every sender holds exactly two 1,500-B
packets, ICTCP's floor). Two port sizes, static per port: Q = 85,000 B (the equal share) to
find where losses begin, and Q = 1 MB to measure the queue the senders need. The port's
largest occupancy is compared with Eq. 8, with the paper's R·C and with P, the bytes the rest
of the loop holds in our model (wires, host NIC and ACK path), measured as n·w·δ minus the
queue; P is held to R·C of the testbed the run is on (its base RTT × 1 Gb/s: the paper's
12,500 B on its own testbed).

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

from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure
from ..scenarios import RECEIVER_PORT
from ..units import kb
from .incast import PACKET, PAPER_Q47_BYTES, PAPER_RC_BYTES, WINDOW_PACKETS
from .testbeds import MSS, RECEIVER, rc_bytes, scenario

if TYPE_CHECKING:
    import pandas as pd

PAPER_EQUAL_SHARE = 85_000
PAPER_MAX_SENDERS = 32
LARGE_PORT = 1_000_000
START_SPREAD_US = 2000.0


def scenarios(p: Params, tb: Testbed) -> dict[tuple[int, int], dict]:
    """``(port bytes, senders)`` → scenario: n long flows into host 0, each window pinned at
    2 MSS, through a static port of that size."""
    plan = {}
    for q in (PAPER_EQUAL_SHARE, LARGE_PORT):
        for n in p["ns"]:
            flows = [
                {
                    "src": h,
                    "dst": RECEIVER,
                    "start_s": 0.0,
                    "start_jitter_us": START_SPREAD_US,
                    "rcv_buffer_bytes": WINDOW_PACKETS * MSS,
                }
                for h in range(1, n + 1)
            ]
            sc = scenario(f"ictcp-sec5-buffer-q{q}-n{n}", tb, duration_s=p["duration_s"], flows=flows)
            # The port's size is what the section is about: static, not the testbed's.
            sc["switch"]["buffer"] = {"kind": "per_port", "limit_bytes": q}
            plan[(q, n)] = sc
    return plan


def _busy(df: pd.DataFrame) -> pd.DataFrame:
    """The runs with the link saturated. Below that (n ≤ 5 here) the port only ever holds a
    sender's momentary 2-packet burst, so saturated runs are those whose queue exceeds 3
    packets."""
    return df[df.max_queue_bytes > 3 * PACKET]


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    by = {key: res.port(RECEIVER_PORT) for key, res in runs.items()}
    ns = list(runs.params["ns"])
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
    # P: what the loop holds outside the port once the link is saturated.
    busy = _busy(df)
    pipe = float((busy.demand_bytes - busy.max_queue_bytes).median()) if len(busy) else float("nan")
    df["predicted_paper_bytes"] = (df.demand_bytes - PAPER_RC_BYTES).clip(lower=0)
    df["predicted_model_bytes"] = (df.demand_bytes - pipe).clip(lower=0)
    clean = df[df.drops_85kB == 0].senders
    dirty = df[df.drops_85kB > 0].senders
    q47 = df[df.senders == 47]
    return Metrics(
        values={
            "duration_s": runs.params["duration_s"],
            "pipe_bytes": pipe,
            "last_loss_free_senders": int(clean.max()) if len(clean) else None,
            "first_lossy_senders": int(dirty.min()) if len(dirty) else None,
            "eq8_max_senders_with_pipe": int((PAPER_EQUAL_SHARE + pipe) // (WINDOW_PACKETS * PACKET)) if np.isfinite(pipe) else None,
            "queue_47_senders_bytes": float(q47.max_queue_bytes.iloc[0]) if len(q47) else float("nan"),
            # R·C on the testbed (base RTT × 1 Gb/s), what P is held to: the paper's 12,500 B on its own.
            "rc_bytes": rc_bytes(runs.testbed),
        },
        tables={"sec5_buffer": df},
    )


# --- claims -------------------------------------------------------------------------------


def _at_most_32(m: Metrics) -> tuple[bool, str]:
    df = m.tables["sec5_buffer"]
    clean = df[df.drops_85kB == 0].senders
    dirty = df[df.drops_85kB > 0].senders
    measured = (
        f"loss-free n: {[int(x) for x in clean]}; lossy n: {[int(x) for x in dirty]} "
        f"(drops: {dict(zip((int(x) for x in df.senders), (int(x) for x in df.drops_85kB)))})"
    )
    holds = (
        len(df) > 0 and all(df[df.senders <= PAPER_MAX_SENDERS].drops_85kB == 0) and all(df[df.senders > PAPER_MAX_SENDERS].drops_85kB > 0)
    )
    return holds, measured


def _follows_eq8(m: Metrics) -> tuple[bool, str]:
    busy = _busy(m.tables["sec5_buffer"])
    pipe, rc = m["pipe_bytes"], m["rc_bytes"]
    residual = (busy.demand_bytes - pipe - busy.max_queue_bytes).abs()
    measured = (
        f"P = {pipe:.0f} B ({pipe / rc:.2f} × R·C); largest residual "
        f"{fmt(float(residual.max()) if len(residual) else float('nan'), 0)} B over n = "
        f"{[int(x) for x in busy.senders]}; Eq. 8 with P allows n ≤ {m['eq8_max_senders_with_pipe']} at 85 kB, "
        f"first loss seen at n = {m['first_lossy_senders']}"
    )
    holds = len(busy) > 0 and float(residual.max()) <= PACKET and abs(pipe - rc) <= 0.1 * rc
    return holds, measured


def _queue_of_47(m: Metrics) -> tuple[bool, str]:
    df = m.tables["sec5_buffer"]
    q47 = df[df.senders == 47]
    q47_bytes = m["queue_47_senders_bytes"]
    measured = f"{fmt(kb(q47_bytes), 1)} kB (1 MB port, no loss: {int(q47.drops_large_port.iloc[0]) == 0 if len(q47) else 'n/a'})"
    return np.isfinite(q47_bytes) and abs(q47_bytes - PAPER_Q47_BYTES) <= 0.05 * PAPER_Q47_BYTES, measured


CLAIMS = (
    Claim(
        id="85-kb-port-supports-32-senders",
        kind="paper",
        text="85 kB per port supports at most 32 senders at 2 MSS: no loss for every n ≤ 32, loss for every n ≥ 33",
        paper="≤ 32 senders ((85,000 + 12,500) / 3,000 = 32.5)",
        quote="if the buffer size is 4 MB and the minimal receive window w is 2MSS, then at most 32 senders can be supported",
        section="§V",
        check=_at_most_32,
    ),
    Claim(
        id="queue-follows-eq8",
        kind="derived",
        text=(
            "The simulated queue follows Eq. 8: max queue = n·w·δ − P within one packet for every "
            "saturated n, with P within 10% of R·C (base RTT × 1 Gb/s on the testbed: the paper's 12,500 B on its own)"
        ),
        paper="Q = n·w·δ − R·C, R·C = 12,500 B",
        quote=(
            "To ensure there is no packet loss, the queue size Q should be large enough to store packets on the flight for all connections"
        ),
        section="§V",
        check=_follows_eq8,
    ),
    Claim(
        id="47-senders-need-128.5-kb",
        kind="paper",
        text="47 senders at 2 MSS need about 128.5 kB per port (§V): simulated queue within 5%",
        paper="128.5 kB",
        quote="with a maximum of 47 senders, the buffer space should be larger than $47 * 2 * 1500 - 12\\,500 = 128.5$ kB",
        section="§V",
        check=_queue_of_47,
    ),
)


# --- plots --------------------------------------------------------------------------------


def plot_buffer(m: Metrics) -> Any:
    df = m.tables["sec5_buffer"]
    pipe = m["pipe_bytes"]
    fig, ax = figure(size=(6.4, 4.0))
    ax.plot(df.senders, kb(df.max_queue_bytes), "o", ms=4, color="tab:blue", label="simulated queue (1 MB port)")
    ax.plot(df.senders, kb(df.predicted_paper_bytes), "k-", lw=1, label="Eq. 8, paper: n·w·δ − 12.5 kB")
    ax.plot(df.senders, kb(df.predicted_model_bytes), "--", lw=1, color="tab:orange", label=f"Eq. 8 with our P = {kb(pipe):.1f} kB")
    ax.axhline(PAPER_EQUAL_SHARE / 1e3, color="tab:red", ls=":", lw=1, label="85 kB per port (4 MB / 48)")
    lossy = df[df.drops_85kB > 0]
    ax.plot(lossy.senders, [PAPER_EQUAL_SHARE / 1e3] * len(lossy), "x", color="tab:red", label="losses with an 85 kB port")
    ax.set_xlabel("Senders at a 2-MSS window")
    ax.set_ylabel("Port queue (kB)")
    ax.legend(loc="upper left", fontsize=7)
    ax.set_title("Buffer needed by n synchronised 2-MSS windows")
    return fig


EXPERIMENT = Experiment(
    id="ictcp-sec5-buffer",
    paper="ictcp",
    figure="§V",
    title="buffer needed by n senders at a 2-MSS window (Eq. 8) vs simulation",
    description="n senders pinned at 2 MSS into one port: simulated queue and losses vs Eq. 8's Q ≥ n·w·δ − R·C.",
    testbed="ictcp_testbed",
    scales={
        "smoke": {"ns": (8, 32, 34), "duration_s": 0.02},
        "quick": {"ns": (8, 16, 24, 28, 29, 30, 31, 32, 33, 34, 35, 36, 40, 44, 47), "duration_s": 0.06},
        "full": {"ns": tuple(range(1, 48)), "duration_s": 1.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"sec5_buffer": plot_buffer},
    notes=__doc__ or "",
)
