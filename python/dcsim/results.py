"""What one run returns, as pandas tables (format: `crates/dcsim/src/results.rs`)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

# Time-weighted quantiles of each port's queue length reported by `summary()`.
QUEUE_QUANTILES = (0.5, 0.95, 0.99)


class Results:
    """The results of one run.

    Tables: `flows` (one row per flow), `ports` (one row per egress port, switch ports and
    host NICs), `switches` (one row per switch, with its shared memory), `queue_occupancy`
    (seconds each port held exactly n packets), `queue_samples`, `pool_samples`,
    `flow_samples` and `ictcp_samples` (time series, when the scenario's `measure` asks).
    Times are seconds, rates bit/s, sizes bytes or packets as the column name says.
    """

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw

    def __repr__(self) -> str:
        return (
            f"<Results {self.name!r}: {len(self.raw['flows'])} flows, "
            f"{len(self.raw['ports'])} ports, {self.events} events>"
        )

    @property
    def name(self) -> str:
        return self.raw["name"]

    @property
    def events(self) -> int:
        """Events the engine processed."""
        return self.raw["events"]

    @property
    def packet_hops(self) -> int:
        """Packets that crossed a link, counted once per link."""
        return self.raw["packet_hops"]

    @property
    def wall_seconds(self) -> float:
        """Wall-clock time the engine took."""
        return self.raw["wall_seconds"]

    @property
    def conservation(self) -> dict[str, int]:
        """Packet accounting: injected = delivered + dropped + in_flight."""
        return self.raw["conservation"]

    @cached_property
    def flows(self) -> pd.DataFrame:
        return _frame(self.raw["flows"])

    @cached_property
    def ports(self) -> pd.DataFrame:
        """Per-port counters and queue statistics (the occupancy histogram is
        `queue_occupancy`)."""
        return _frame([_without_histogram(port) for port in self.raw["ports"]])

    @cached_property
    def queue_occupancy(self) -> pd.DataFrame:
        """Long table: `seconds` port `port` held exactly `packets` packets in the window."""
        rows = [
            (index, port["name"], packets, seconds)
            for index, port in enumerate(self.raw["ports"])
            for packets, seconds in enumerate(port["occupancy_time_s"])
        ]
        return pd.DataFrame(rows, columns=["port", "port_name", "packets", "seconds"])

    @cached_property
    def queue_samples(self) -> pd.DataFrame:
        """Queue length of every switch port over time; `port` indexes `ports`."""
        samples = pd.DataFrame(self.raw["queue_samples"])
        names = np.array([port["name"] for port in self.raw["ports"]], dtype=object)
        samples["port_name"] = names[samples["port"].to_numpy(dtype=np.int64)]
        return samples

    @cached_property
    def queries(self) -> pd.DataFrame:
        """One row per partition/aggregate query: issue and completion times, completion
        time `qct_s` (NaN if unfinished), response bytes and the timeouts during it."""
        columns = [
            "workload",
            "query",
            "client",
            "servers",
            "issued_s",
            "completed_s",
            "qct_s",
            "response_bytes",
            "timeouts",
        ]
        return _frame(self.raw["queries"]) if self.raw["queries"] else pd.DataFrame(columns=columns)

    @cached_property
    def switches(self) -> pd.DataFrame:
        """Per-switch shared memory: size, alpha and the highest occupancy (zeros for
        per-port buffers)."""
        return _frame(self.raw["switches"])

    @cached_property
    def pool_samples(self) -> pd.DataFrame:
        """Shared-memory occupancy of every shared-buffer switch over time; `switch`
        indexes `switches`."""
        samples = pd.DataFrame(self.raw["pool_samples"])
        names = np.array([sw["name"] for sw in self.raw["switches"]], dtype=object)
        samples["switch_name"] = names[samples["switch"].to_numpy(dtype=np.int64)]
        return samples

    @cached_property
    def flow_samples(self) -> pd.DataFrame:
        """Delivered bytes, cwnd and DCTCP alpha of every flow over time; where the receiving
        host runs ICTCP, also the window ICTCP allows, its measured throughput and the
        receiver-side RTT (NaN elsewhere)."""
        return pd.DataFrame(self.raw["flow_samples"])

    @cached_property
    def ictcp_samples(self) -> pd.DataFrame:
        """ICTCP's interface state on each ICTCP host over time (sampled with the flows):
        BW_T and BW_A of the last completed first sub-slot, bit/s, and the sub-slot length."""
        return pd.DataFrame(self.raw["ictcp_samples"])

    @cached_property
    def trace(self) -> pd.DataFrame:
        """Packet records of the traced ports and flows (scenario `measure.trace_ports`,
        `measure.trace_flows`), sorted by time: `view` (`port` or `flow`), `event` (`tx`:
        left the port or host, at the end of its transmission; `rx`: arrived at the flow's
        sending host; `drop`: refused by the port), `port_name`, the packet's connection
        (`flow`), hosts, TCP flags, IP ECN field, sequence and ACK numbers, window, lengths
        and SACK blocks (`sack`: absolute [start, end) pairs)."""
        raw = dict(self.raw.get("trace") or {})
        sack = raw.pop("sack", [])
        blocks = raw.pop("sack_blocks", [])
        table = pd.DataFrame(raw)
        if table.empty:
            return table
        names = np.array([port["name"] for port in self.raw["ports"]], dtype=object)
        table["port_name"] = names[table["port"].to_numpy(dtype=np.int64)]
        table["view"] = np.array(["port", "flow"], dtype=object)[table["view"].to_numpy()]
        table["event"] = np.array(["tx", "rx", "drop"], dtype=object)[table["event"].to_numpy()]
        table["sack"] = [
            [tuple(edges[2 * i : 2 * i + 2]) for i in range(n)] for edges, n in zip(sack, blocks)
        ]
        return table.sort_values("t_s", kind="stable").reset_index(drop=True)

    def summary(self) -> dict[str, Any]:
        """The run in brief: what `dcsim run` writes to summary.json."""
        ports = [
            _without_histogram(port) | _queue_quantiles(port["occupancy_time_s"])
            for port in self.raw["ports"]
        ]
        flows = self.raw["flows"]
        return {
            "name": self.name,
            "seed": self.raw["seed"],
            "duration_s": self.raw["duration_s"],
            "warmup_s": self.raw["warmup_s"],
            "events": self.events,
            "packet_hops": self.packet_hops,
            "wall_seconds": self.wall_seconds,
            "drops": sum(p["drops_buffer"] + p["drops_pool"] + p["drops_aqm"] for p in ports),
            "marks": sum(p["marks"] for p in ports),
            "timeouts": sum(f["timeouts"] for f in flows),
            "retransmits": sum(f["retransmits"] for f in flows),
            "conservation": self.conservation,
            "ports": ports,
            "switches": self.raw["switches"],
            "flows": flows,
            "queries": _query_summary(self.raw["queries"]),
        }


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows)
    # The engine writes NaN as JSON null; a column of nulls only (say `completion_s` when no
    # flow finished) would otherwise come out as objects rather than floats.
    for column in frame.columns:
        if frame[column].isna().all():
            frame[column] = np.nan
    return frame


def _without_histogram(port: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in port.items() if key != "occupancy_time_s"}


def _queue_quantiles(occupancy_time_s: list[float]) -> dict[str, int | None]:
    """Time-weighted quantiles of the queue length, from the occupancy histogram."""
    names = [f"queue_p{round(q * 100)}_packets" for q in QUEUE_QUANTILES]
    seconds = np.asarray(occupancy_time_s, dtype=float)
    total = seconds.sum()
    if total <= 0:
        return dict.fromkeys(names)
    cdf = np.cumsum(seconds) / total
    # The smallest n with P(queue <= n) >= q; the clip guards against rounding in the sum.
    return {
        name: int(min(np.searchsorted(cdf, q), len(cdf) - 1))
        for name, q in zip(names, QUEUE_QUANTILES, strict=True)
    }


def _query_summary(queries: list[dict[str, Any]]) -> dict[str, Any]:
    """Count, completion-time statistics and timeout fraction of the completed queries."""
    qct = np.array([q["qct_s"] for q in queries if q["qct_s"] is not None], dtype=float)
    done = [q for q in queries if q["qct_s"] is not None]
    if not done:
        return {"issued": len(queries), "completed": 0}
    return {
        "issued": len(queries),
        "completed": len(done),
        "qct_mean_s": float(qct.mean()),
        "qct_p50_s": float(np.percentile(qct, 50)),
        "qct_p95_s": float(np.percentile(qct, 95)),
        "qct_p99_s": float(np.percentile(qct, 99)),
        "fraction_with_timeout": sum(q["timeouts"] > 0 for q in done) / len(done),
    }
