"""One GbE connection at a fixed receive window (ICTCP §II-B, Fig. 5): the runs and the table
that ictcp-fig5 and ictcp-host-calibration share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..declarations import Runs, Testbed
from ..units import mbps, us
from .testbeds import MSS, scenario

if TYPE_CHECKING:
    import pandas as pd

# §II-B: "the base RTT is around 100 μs"; "RTT increases from 100 to 200 μs when the TCP
# receive window increases from 1 to 20 MSS, while the throughput is smaller than the
# available bandwidth at around 900 Mb/s".
PAPER_BASE_RTT_US = 100.0
PAPER_RTT20_US = 200.0
PAPER_GOODPUT_MBPS = 900.0


def window_scenario(name: str, tb: Testbed, rwnd_mss: int, *, duration_s: float, warmup_s: float, host: dict | None = None) -> dict:
    """One connection from host 1 to host 2 whose receive buffer, so its window, is
    ``rwnd_mss`` segments, measured for ``duration_s`` after ``warmup_s``; ``host`` sets
    fields over the testbed's host model."""
    return scenario(
        name,
        tb,
        duration_s=warmup_s + duration_s,
        warmup_s=warmup_s,
        flows=[{"src": 1, "dst": 2, "start_s": 0.0, "rcv_buffer_bytes": rwnd_mss * MSS}],
        host=host,
    )


def window_table(runs: Runs, key: str) -> pd.DataFrame:
    """One row per run of one connection keyed ``(variant, rwnd in MSS)``: the variant (column
    ``key``), the window, the goodput, the sender's srtt, the RTT a receiver infers (window /
    goodput, Little's law) and the timeouts."""
    import pandas as pd

    rows = []
    for (variant, w), res in runs.items():
        f = res.rows("flows")[0]
        g = float(f["goodput_bps"])
        rows.append(
            {
                key: variant,
                "rwnd_mss": w,
                "goodput_mbps": mbps(g),
                "srtt_us": us(float(f["srtt_s"])) if f.get("srtt_s") is not None else float("nan"),
                "rtt_little_us": us(w * MSS * 8 / g) if g > 0 else float("nan"),
                "timeouts": int(f["timeouts"]),
            }
        )
    return pd.DataFrame(rows)
