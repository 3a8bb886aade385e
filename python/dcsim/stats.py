"""Student's t distribution for confidence intervals over a sweep's repetitions, without a
dependency: the two-sided probability of |T| < t for integer degrees of freedom has a finite
closed form (Abramowitz and Stegun 26.7.3-26.7.4), and bisection inverts it."""

from __future__ import annotations

import math


def t_within(t: float, df: int) -> float:
    """P(|T| < t) for Student's T with ``df`` ≥ 1 degrees of freedom (A&S 26.7.3, 26.7.4)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be ≥ 1, got {df}")
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        # 2/π [θ + sin θ (cos θ + 2/3 cos³θ + ... + (2·4···(ν−3))/(1·3···(ν−2)) cos^(ν−2) θ)]
        term, total = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + s * total) if df > 1 else 2 / math.pi * theta
    # sin θ [1 + 1/2 cos²θ + (1·3)/(2·4) cos⁴θ + ... + (1·3···(ν−3))/(2·4···(ν−2)) cos^(ν−2) θ]
    term, total = 1.0, 0.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * total


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0.5 < p < 1) of Student's t with ``df`` ≥ 1 degrees of freedom: the
    t with P(T < t) = p, to about 1e-12 relative."""
    if not 0.5 < p < 1:
        raise ValueError(f"p must be in (0.5, 1), got {p}")
    within = 2 * p - 1  # P(|T| < t) = 2p − 1 by symmetry
    lo, hi = 0.0, 1.0
    while t_within(hi, df) < within:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_within(mid, df) < within:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return (lo + hi) / 2
