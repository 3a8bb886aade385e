"""The DCTCP paper's steady-state analysis (§3.3, Eqs. 3-13) as plain functions of N, K and
C·RTT, and the measurement of a simulated queue's sawtooth to compare with it (Fig. 12)."""

from __future__ import annotations

import math

import numpy as np

# Packet on the wire in the DCTCP analysis (§3.4: "1500 byte packets").
PACKET_BYTES = 1500

# ---------------------------------------------------------------------------------------
# DCTCP steady-state analysis (DCTCP paper §3.3)
# ---------------------------------------------------------------------------------------


def bdp_packets(rate_gbps: float, rtt_us: float, packet_bytes: int = PACKET_BYTES) -> float:
    """C·RTT in packets (§3.4: C in packets/s, RTT in s)."""
    return rate_gbps * 1e9 * rtt_us * 1e-6 / (8.0 * packet_bytes)


def w_star(n: int, bdp: float, k: float) -> float:
    """Critical window W* = (C·RTT + K)/N: the per-flow window at which the queue reaches K."""
    return (bdp + k) / n


def alpha_exact(ws: float, tol: float = 1e-12) -> float:
    """α solving Eq. (6) α²(1 − α/4) = (2W* + 1)/(W* + 1)² by bisection on [0, 1].

    The left side rises monotonically on [0, 1] to 3/4; for W* ≤ 1 the right side is ≥ 3/4
    and no α ≤ 1 solves it: every packet is marked, α = 1.
    """
    rhs = (2.0 * ws + 1.0) / (ws + 1.0) ** 2
    if rhs >= 0.75:
        return 1.0
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * (1.0 - mid / 4.0) < rhs:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def alpha_approx(ws: float) -> float:
    """Small-α form of Eq. (6): α ≈ √(2/W*)."""
    return math.sqrt(2.0 / ws)


def amplitude_exact(n: int, ws: float, alpha: float) -> float:
    """Eq. (7)-(8) with exact α: A = N·D = N(W* + 1)α/2 packets."""
    return n * (ws + 1.0) * alpha / 2.0


def amplitude_approx(n: int, bdp: float, k: float) -> float:
    """Eq. (8) closed form: A ≈ ½√(2N(C·RTT + K)) packets."""
    return 0.5 * math.sqrt(2.0 * n * (bdp + k))


def period_rtts_approx(n: int, bdp: float, k: float) -> float:
    """Eq. (9): T_C = D ≈ ½√(2(C·RTT + K)/N), in RTTs."""
    return 0.5 * math.sqrt(2.0 * (bdp + k) / n)


def period_rtts_exact(ws: float, alpha: float) -> float:
    """T_C = D = (W* + 1)α/2 RTTs with exact α (the window grows one packet per RTT)."""
    return (ws + 1.0) * alpha / 2.0


def rtt_with_queue_us(rtt_us: float, queue_packets: float, rate_gbps: float, packet_bytes: int = PACKET_BYTES) -> float:
    """The RTT a packet sees behind ``queue_packets``: the analysis counts the sawtooth's
    period in RTTs (the window grows one packet per RTT), and the RTT includes this
    queueing delay."""
    return rtt_us + queue_packets * packet_bytes * 8.0 / (rate_gbps * 1e3)


def q_max(n: int, k: float) -> float:
    """Eq. (10): Q_max = K + N packets."""
    return k + n


def q_min(n: int, k: float, amplitude: float) -> float:
    """Eq. (11)-(12): Q_min = Q_max − A packets."""
    return q_max(n, k) - amplitude


def k_guideline(bdp: float) -> float:
    """Eq. (13): the queue does not underflow when K > C·RTT/7."""
    return bdp / 7.0


def dctcp_analysis(n: int, k: float, rate_gbps: float, rtt_us: float, packet_bytes: int = PACKET_BYTES) -> dict:
    """All §3.3 predictions for N synchronised flows, as a JSON-able dict."""
    bdp = bdp_packets(rate_gbps, rtt_us, packet_bytes)
    ws = w_star(n, bdp, k)
    a = alpha_exact(ws)
    amp = amplitude_exact(n, ws, a)
    amp_apx = amplitude_approx(n, bdp, k)
    t_exact = period_rtts_exact(ws, a)
    t_apx = period_rtts_approx(n, bdp, k)
    # The RTT during the sawtooth includes the mean predicted queue (Q_max − A/2).
    rtt_eff = rtt_with_queue_us(rtt_us, q_max(n, k) - amp / 2.0, rate_gbps, packet_bytes)
    return {
        "n": int(n),
        "k": float(k),
        "bdp_packets": bdp,
        "w_star": ws,
        "alpha_exact": a,
        "alpha_approx": alpha_approx(ws),
        "amplitude_exact": amp,
        "amplitude_approx": amp_apx,
        "q_max": q_max(n, k),
        "q_min_exact": q_min(n, k, amp),
        "q_min_approx": q_min(n, k, amp_apx),
        "period_rtts_exact": t_exact,
        "period_rtts_approx": t_apx,
        "period_us_exact": t_exact * rtt_us,
        "period_us_approx": t_apx * rtt_us,
        "rtt_eff_us": rtt_eff,
        "period_us_eff": t_exact * rtt_eff,
        "k_guideline": k_guideline(bdp),
    }


def sawtooth(t: np.ndarray, q_max_: float, amplitude: float, period_s: float, t_drop: float) -> np.ndarray:
    """The analytical queue (Fig. 11): rises linearly from Q_min to Q_max over one period,
    then drops back at once; one drop at ``t_drop``."""
    phase = np.mod((np.asarray(t) - t_drop) / period_s, 1.0)
    return (q_max_ - amplitude) + amplitude * phase


def sawtooth_measure(t: np.ndarray, q: np.ndarray, rtt_s: float, min_period_rtts: float = 0.3) -> dict:
    """Period and per-period extremes of a sampled, roughly periodic queue.

    Period: the dominant frequency of the mean-removed series (FFT, ignoring periods shorter
    than ``min_period_rtts`` RTTs or longer than a third of the window). Then the series is cut
    into consecutive windows of one period; Q_max / Q_min are the means of the windows' maxima
    and minima, the amplitude the mean of (max − min).
    """
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    out = {
        "period_s": float("nan"),
        "q_max": float("nan"),
        "q_min": float("nan"),
        "amplitude": float("nan"),
        "periods": 0,
    }
    if len(t) < 16:
        return out
    dt = float(np.median(np.diff(t)))
    x = q - q.mean()
    spec = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(len(x), dt)
    span = t[-1] - t[0]
    ok = (freqs > 3.0 / span) & (freqs < 1.0 / (min_period_rtts * rtt_s))
    if not ok.any():
        return out
    i = int(np.flatnonzero(ok)[np.argmax(spec[ok])])
    f = freqs[i]
    if 0 < i < len(spec) - 1:  # parabolic refinement on the log spectrum
        a, b, c = np.log(spec[i - 1 : i + 2] + 1e-300)
        den = a - 2 * b + c
        if den < 0:
            f = freqs[i] + 0.5 * (a - c) / den * (freqs[1] - freqs[0])
    period = 1.0 / f
    edges = np.arange(t[0], t[-1] - period + 1e-15, period)
    maxima, minima = [], []
    for e in edges:
        w = q[(t >= e) & (t < e + period)]
        if len(w):
            maxima.append(w.max())
            minima.append(w.min())
    if not maxima:
        return out
    mx, mn = np.asarray(maxima), np.asarray(minima)
    out.update(
        period_s=float(period),
        q_max=float(mx.mean()),
        q_min=float(mn.mean()),
        amplitude=float((mx - mn).mean()),
        periods=len(mx),
    )
    return out
