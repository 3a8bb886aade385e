"""dcsim's Student t quantile, which the sweeps' confidence intervals use."""

from __future__ import annotations

import pytest

from dcsim.stats import t_quantile, t_within


@pytest.mark.parametrize(
    ("df", "t"),
    # Two-sided 95% critical values, from the standard tables (to 4 decimals).
    [(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (9, 2.2622), (10, 2.2281), (30, 2.0423), (120, 1.9799)],
)
def test_tabulated_critical_values(df: int, t: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(t, abs=5e-5)


def test_closed_forms_by_hand() -> None:
    # ν = 1 is the Cauchy distribution: P(|T| < 1) = 2/π · atan(1) = 1/2.
    assert t_within(1.0, 1) == pytest.approx(0.5, rel=1e-15)
    # ν = 2: P(|T| < t) = t / sqrt(2 + t²); at t = sqrt(2), 1/sqrt(2).
    assert t_within(2**0.5, 2) == pytest.approx(2**-0.5, rel=1e-15)
    assert t_within(0.0, 7) == 0.0


def test_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for df in [*range(1, 101), 250, 1000]:
        for p in (0.9, 0.975, 0.995):
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10), (df, p)


@pytest.mark.parametrize(("p", "df"), [(0.5, 3), (1.0, 3), (0.975, 0)])
def test_outside_its_domain_is_refused(p: float, df: int) -> None:
    with pytest.raises(ValueError):
        t_quantile(p, df)
