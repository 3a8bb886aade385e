"""The ICTCP paper's incast measurement (§VII-A): goodput per round, the ratio of rounds with a
timeout, and the rerun of runs whose rounds did not all finish."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..units import mbps, ms

if TYPE_CHECKING:
    import pandas as pd


def completed_rounds(res: Results) -> int:
    return sum(1 for q in res.rows("queries") if q.get("qct_s") is not None and math.isfinite(q["qct_s"]))


def longer_if_unfinished(scenario: dict[str, Any], res: Results) -> dict[str, Any] | None:
    """The scenario with 3× its duration when its rounds did not all finish (timeouts at
    RTO_min = 300 ms make a round's length unpredictable), else None: an experiment's
    ``rerun`` rule."""
    rounds = sum(int(q["rounds"]) for q in scenario.get("queries") or [])
    if completed_rounds(res) >= rounds:
        return None
    return {**scenario, "sim": dict(scenario["sim"], duration_s=scenario["sim"]["duration_s"] * 3.0)}


def incast_stats(res: Results) -> dict[str, Any]:
    """Incast goodput of one run (ICTCP §VII-A).

    ``goodput_mbps``: per round, total response bytes / round duration (request issued → last
    response byte), averaged over the rounds — "the average value of 100 experimental rounds".
    A round issued but not finished when the simulation ends (a stall: repeated timeouts with
    exponential back-off) counts with its duration so far, an upper bound on its goodput, so a
    stall is not hidden by averaging only the finished rounds. ``aggregate_mbps``: all bytes /
    all rounds' time (weighs the 300-ms timeout rounds by their length). ``timeout_ratio``:
    fraction of finished rounds with at least one timeout (§VII-A); ``stalled``: rounds issued
    but unfinished."""
    qs = res.rows("queries")
    end = float(res.duration_s or float("nan"))
    done = [q for q in qs if q.get("qct_s") is not None and math.isfinite(q["qct_s"])]
    open_ = [q for q in qs if q not in done and q.get("issued_s") is not None]
    nan = float("nan")
    if not done and not open_:
        return {
            "goodput_mbps": nan,
            "aggregate_mbps": nan,
            "timeout_ratio": nan,
            "rounds": 0,
            "issued": len(qs),
            "stalled": 0,
            "qct_median_ms": nan,
        }
    by = np.array([q["response_bytes"] for q in done + open_], dtype=float)
    t = np.array([q["qct_s"] for q in done] + [end - q["issued_s"] for q in open_], dtype=float)
    to = np.array([q["timeouts"] for q in done], dtype=float)
    return {
        "goodput_mbps": float(mbps(np.mean(by * 8 / t))),
        "aggregate_mbps": float(mbps(by.sum() * 8 / t.sum())),
        "timeout_ratio": float(np.mean(to > 0)) if len(done) else nan,
        "rounds": len(done),
        "issued": len(qs),
        "stalled": len(open_),
        "qct_median_ms": float(ms(np.median(t))),
    }


def collapse_point(d: pd.DataFrame) -> float:
    """Smallest n beyond a curve's peak where goodput < 0.5 × peak (NaN if none)."""
    if not len(d):
        return float("nan")
    i = int(d.goodput_mbps.values.argmax())
    peak = float(d.goodput_mbps.values[i])
    low = d.iloc[i:][d.goodput_mbps.iloc[i:] < 0.5 * peak]
    return float(low.senders.iloc[0]) if len(low) else float("nan")


# ICTCP §V, Eq. 8: n senders with windows of w packets of δ bytes need a buffer
# Q ≥ n·w·δ − R·C at the receiver's port.
PACKET = 1460 + 40  # δ: IP bytes of a full segment, what the port holds
WINDOW_PACKETS = 2  # ICTCP's minimum window, 2 MSS
PAPER_RC_BYTES = 12_500  # R·C = 100 µs × 1 Gb/s
PAPER_Q47_BYTES = 128_500  # §V: the buffer 47 senders need at 2 MSS
