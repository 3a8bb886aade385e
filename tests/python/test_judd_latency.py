"""judd-latency-table: the probe it adds to the 19-sender runs, and its statistics by hand.
It runs end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dcsim.experiments import judd_latency_table as lt
from dcsim.experiments import judd_throughput_fairness as tf


def test_interface():
    assert set(lt.SCALES) == {"quick", "full"}
    assert lt.__doc__ and "Assumptions:" in lt.__doc__ and "Outputs:" in lt.__doc__
    with pytest.raises(ValueError, match="scale"):
        lt.run("huge", ".", 1)


def test_it_measures_the_throughput_fairness_runs():
    # The same scenarios, so the two experiments share their simulations through the cache.
    assert lt.PROTOCOLS == ("TCP", "DCTCP+") and lt.SCALES is tf.SCALES


def test_the_slides_table_is_verbatim():
    assert lt.SLIDE_MS["TCP"] == {"Mean": 4.01, "Median": 4.06, "Maximum": 4.20, "Minimum": 3.32, "σ": 0.167}
    assert lt.SLIDE_MS["DCTCP+"]["Mean"] == 0.0422 and lt.SLIDE_MS["DCTCP+"]["σ"] == 0.0106


def test_statistics_by_hand():
    s = lt.statistics(np.array([1.0, 2.0, 3.0, 6.0]))
    # mean 3; median (2 + 3) / 2; σ = sqrt((4 + 1 + 0 + 9) / 4) = sqrt(3.5)
    assert s == {"Mean": 3.0, "Median": 2.5, "Maximum": 6.0, "Minimum": 1.0, "σ": pytest.approx(math.sqrt(3.5))}
    assert all(math.isnan(v) for v in lt.statistics(np.array([])).values())


def test_table_rows_put_the_slide_beside_ours():
    ours = {p: lt.statistics(np.array([v])) for p, v in (("TCP", 4.5), ("DCTCP+", 0.05))}
    rows = lt.table_rows(ours)
    assert [r[0] for r in rows] == list(lt.STATISTICS)
    assert rows[0] == ["Mean", 4.01, 4.5, 0.0422, 0.05]
    assert rows[4] == ["σ", 0.167, 0.0, 0.0106, 0.0]


def test_probes_leave_out_unfinished_and_mark_lost_ones():
    res = {
        "queries": {
            "qct_s": np.array([0.004, np.nan, 0.2045, 0.0041]),
            "issued_s": np.array([1.0, 1.001, 1.002, 1.003]),
            "timeouts": np.array([0, 0, 1, 0]),
        }
    }
    p = lt.probes(res, "TCP")
    assert p.latency_ms.tolist() == pytest.approx([4.0, 204.5, 4.1])
    assert p.lost.tolist() == [False, True, False]
    assert (p.protocol == "TCP").all()
