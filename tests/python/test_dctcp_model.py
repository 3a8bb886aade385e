"""The DCTCP paper's steady-state analysis (§3.3, `dctcp/model.py`) against a table computed
by hand, and the measurement of a simulated sawtooth on one of known shape."""

from __future__ import annotations

import numpy as np
import pytest

from dcsim.experiments.dctcp import model


# DCTCP paper §3.3 with C = 10 Gbps, RTT = 100 µs, K = 40, 1500-B packets: C·RTT = 83.33
# packets. By hand:
#   N=2:  W* = 123.33/2 = 61.67; (2W*+1)/(W*+1)^2 = 124.33/3927.1 = 0.031660; α = 0.1821
#         (0.1821² × (1 − 0.1821/4) = 0.033160 × 0.95448 = 0.031650); A = 2 × 62.67 × α/2 = 11.41;
#         Q_max = 42; Q_min = 30.6; T_C (Eq. 9) = ½√(2 × 123.33/2) = 5.552 RTT.
#   N=10: W* = 12.33, α = 0.401; N=40: W* = 3.083, α = 0.725, A (Eq. 8) = ½√(80 × 123.33) = 49.67.
@pytest.mark.parametrize(
    "n, w_star, alpha, amp_exact, amp_eq8, q_min_exact, period_eq9",
    [
        (2, 61.67, 0.182, 11.4, 11.1, 30.6, 5.55),
        (10, 12.33, 0.401, 26.7, 24.8, 23.3, 2.48),
        (40, 3.08, 0.725, 59.2, 49.7, 20.8, 1.24),
    ],
)
def test_dctcp_analysis_matches_the_derived_table(n, w_star, alpha, amp_exact, amp_eq8, q_min_exact, period_eq9):
    a = model.dctcp_analysis(n, 40, 10.0, 100.0)
    assert a["bdp_packets"] == pytest.approx(83.333, abs=1e-3)
    assert a["w_star"] == pytest.approx(w_star, abs=0.01)
    assert a["alpha_exact"] == pytest.approx(alpha, abs=0.0006)
    assert a["amplitude_exact"] == pytest.approx(amp_exact, abs=0.06)
    assert a["amplitude_approx"] == pytest.approx(amp_eq8, abs=0.06)
    assert a["q_max"] == 40 + n
    assert a["q_min_exact"] == pytest.approx(q_min_exact, abs=0.06)
    assert a["period_rtts_approx"] == pytest.approx(period_eq9, abs=0.006)
    # Exact T_C = D = A/N (5.71, 2.67, 1.48 RTT).
    assert a["period_rtts_exact"] == pytest.approx(a["amplitude_exact"] / n)


def test_alpha_solves_equation_6_and_saturates():
    for ws in (1.5, 3.0, 12.0, 61.7, 1000.0):
        a = model.alpha_exact(ws)
        assert a * a * (1 - a / 4) == pytest.approx((2 * ws + 1) / (ws + 1) ** 2, rel=1e-9)
    assert model.alpha_exact(1.0) == 1.0  # W* <= 1: every packet is marked
    assert model.alpha_exact(0.5) == 1.0
    assert model.alpha_approx(61.67) == pytest.approx(0.180, abs=0.001)


def test_guidelines():
    assert model.bdp_packets(1.0, 100.0) == pytest.approx(8.333, abs=1e-3)
    assert model.k_guideline(model.bdp_packets(10.0, 100.0)) == pytest.approx(11.9, abs=0.05)
    assert model.k_guideline(model.bdp_packets(0.1, 40_000.0)) == pytest.approx(47.6, abs=0.05)


def test_sawtooth_measure_recovers_a_known_sawtooth():
    rtt = 100e-6
    t = np.arange(0, 0.02, 2e-6)
    q = model.sawtooth(t, q_max_=42.0, amplitude=11.4, period_s=571e-6, t_drop=13e-6)
    m = model.sawtooth_measure(t, q, rtt)
    assert m["period_s"] == pytest.approx(571e-6, rel=0.03)
    assert m["q_max"] == pytest.approx(42.0, abs=0.5)
    assert m["amplitude"] == pytest.approx(11.4, abs=0.8)
    assert m["periods"] >= 30
