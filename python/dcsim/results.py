"""What one run returns, as pandas tables (format: `docs/engine-contract.md`)."""

from __future__ import annotations

import contextlib
import gc
import json
import math
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is built: `import dcsim` stays light
    import pandas as pd

# Time-weighted quantiles of each port's queue length reported by `summary()`.
QUEUE_QUANTILES = (0.5, 0.95, 0.99)

# Layout of `Results.raw`, part of every cache key (executor.cache_key) so that an entry of
# another layout is never read as this one. 1: JSON rows; 2: NumPy columns; 4: with the
# run's parameters (JSON text).
RAW_FORMAT = 4

# A table as the engine hands it over: column name -> array, one row per entry (`trace.sack`
# has 6 numbers per row), all of one length.
Table = dict[str, np.ndarray]

# Columns of whole numbers in which NaN stands for none (a bulk flow has no query workload).
OPTIONAL_INTS = frozenset({"workload", "generator"})

# Tables that name what an index column points at: table -> (the names' column, the table
# that has the names, the index column, where the names' column goes: None for last).
LABELLED: dict[str, tuple[str, str, str, int | None]] = {
    "classes": ("port_name", "ports", "port", None),
    "queue_occupancy": ("port_name", "ports", "port", 1),
    "queue_samples": ("port_name", "ports", "port", None),
    "pool_samples": ("switch_name", "switches", "switch", None),
}

# The tables `columns` gives (all but `trace`, whose SACK blocks are lists).
COLUMN_TABLES = (
    "flows",
    "queries",
    "ports",
    "classes",
    "switches",
    "queue_occupancy",
    "queue_samples",
    "pool_samples",
    "flow_samples",
    "ictcp_samples",
    "udp",
    "probes",
)


class Results:
    """The results of one run.

    Tables: `flows` (one row per flow), `ports` (one row per egress port, switch ports and
    host NICs), `classes` (one row per class queue of ports with a queue discipline), `switches`
    (one row per switch, with its shared memory), `queue_occupancy` (seconds each port held
    exactly n packets), `queue_samples`, `pool_samples`,
    `flow_samples` and `ictcp_samples` (time series, when the scenario's `measure` asks),
    `udp` (one row per UDP source) and `probes` (the round trips of echoed UDP packets).
    Times are seconds, rates bit/s, sizes bytes or packets as the column name says.
    """

    def __init__(self, raw: dict[str, Any]):
        # Scalars, `conservation` and one Table per table (docs/engine-contract.md).
        self.raw = raw

    def __repr__(self) -> str:
        return f"<Results {self.name!r}: {_length(self.raw['flows'])} flows, {_length(self.raw['ports'])} ports, {self.events} events>"

    @property
    def name(self) -> str:
        return self.raw["name"]

    @property
    def duration_s(self) -> float:
        """The simulated time the run ended at (`sim.duration_s`, or the last query round's
        end with `sim.stop_when_queries_done`)."""
        return self.raw["duration_s"]

    @property
    def warmup_s(self) -> float:
        """Where the measurement window began."""
        return self.raw["warmup_s"]

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
        return _frame(self.raw["ports"])

    @cached_property
    def classes(self) -> pd.DataFrame:
        """Per class queue of the switch ports with a queue discipline (`switch.classes`, or
        an AQM acting at dequeue): arrivals, sends, drops and marks; `port` indexes `ports`."""
        return self._labelled_frame("classes")

    @cached_property
    def queue_occupancy(self) -> pd.DataFrame:
        """Long table: `seconds` port `port` held exactly `packets` packets in the window."""
        return self._labelled_frame("queue_occupancy")

    @cached_property
    def queue_samples(self) -> pd.DataFrame:
        """Queue length of every switch port over time; `port` indexes `ports`."""
        return self._labelled_frame("queue_samples")

    @cached_property
    def queries(self) -> pd.DataFrame:
        """One row per partition/aggregate query: issue and completion times, completion
        time `qct_s` (NaN if unfinished), response bytes and the timeouts during it, with
        those of them found spurious (`timeouts - spurious_timeouts` delayed the query)."""
        return _frame(self.raw["queries"])

    @cached_property
    def switches(self) -> pd.DataFrame:
        """Per-switch shared memory: size, alpha and the highest occupancy (zeros for
        per-port buffers)."""
        return _frame(self.raw["switches"])

    @cached_property
    def pool_samples(self) -> pd.DataFrame:
        """Shared-memory occupancy of every shared-buffer switch over time; `switch`
        indexes `switches`."""
        return self._labelled_frame("pool_samples")

    @cached_property
    def flow_samples(self) -> pd.DataFrame:
        """Delivered bytes, cwnd and DCTCP alpha of every flow over time; where the receiving
        host runs ICTCP, also the window ICTCP allows, its measured throughput and the
        receiver-side RTT (NaN elsewhere)."""
        return _frame(self.raw["flow_samples"])

    @cached_property
    def ictcp_samples(self) -> pd.DataFrame:
        """ICTCP's interface state on each ICTCP host over time (sampled with the flows):
        BW_T and BW_A of the last completed first sub-slot, bit/s, and the sub-slot length."""
        return _frame(self.raw["ictcp_samples"])

    @cached_property
    def udp(self) -> pd.DataFrame:
        """One row per constant-bit-rate UDP source (scenario `udp`): packets sent, received
        and dropped, echoes, and the send and receive rates over the measurement window."""
        return _frame(self.raw["udp"])

    @cached_property
    def probes(self) -> pd.DataFrame:
        """One row per echoed UDP packet back at its source (`udp[].echo`, a ping): `udp`
        indexes `udp`, `t_s` is when it left, `rtt_s` its round trip."""
        return _frame(self.raw["probes"])

    @cached_property
    def trace(self) -> pd.DataFrame:
        """Packet records of the traced ports and flows (scenario `measure.trace_ports`,
        `measure.trace_flows`, `measure.trace_queries`), sorted by time: `view` (`port` or `flow`), `event` (`tx`:
        left the port or host, at the end of its transmission; `rx`: arrived at the flow's
        sending host; `drop`: refused by the port), `port_name`, the packet's connection
        (`flow`), hosts, TCP flags, IP ECN field, sequence and ACK numbers, window, lengths
        and SACK blocks (`sack`: absolute [start, end) pairs)."""
        columns = dict(self.raw["trace"])
        sack, blocks = columns.pop("sack"), columns.pop("sack_blocks")
        with _collector_paused():
            cells: list[list[tuple[int, int]]] = [[] for _ in range(len(blocks))]
        for i in np.flatnonzero(blocks):  # most packets carry no SACK blocks
            edges = sack[i, : 2 * blocks[i]].tolist()
            cells[i] = list(zip(edges[0::2], edges[1::2], strict=True))
        return _frame(
            columns,
            view=_labels(("port", "flow"), columns["view"]),
            event=_labels(("tx", "rx", "drop"), columns["event"]),
            port_name=_labels(self.raw["ports"]["name"], columns["port"]),
            sack=np.fromiter(cells, dtype=object, count=len(cells)),
        )

    # --- what experiments read: one port, totals over flows, rows as Python values ---------

    def port(self, name: str) -> dict[str, Any]:
        """One port's counters (its row of `ports` as Python values) with its occupancy
        histogram, `occupancy_time_s` (:meth:`occupancy`). KeyError naming the ports there are
        for a port the run does not have."""
        i = self._port_index(name)
        return rows(self.raw["ports"])[i] | {"occupancy_time_s": occupancy(self.raw)[i]}

    def occupancy(self, name: str) -> np.ndarray:
        """Seconds port `name` held exactly n packets in the measurement window, by n."""
        return occupancy(self.raw)[self._port_index(name)]

    def queue_stats(self, name: str) -> dict[str, Any]:
        """Time-weighted queue statistics (packets) of one port over the measurement window,
        with its marks, utilisation and `drops`: those at the port's own limit and by its AQM
        (a shared memory's refusals are the port's `drops_pool`, not counted here)."""
        p = self.port(name)
        occ = p["occupancy_time_s"]
        return {
            "mean_packets": float(p["mean_packets"]),
            "p1_packets": occupancy_quantile(occ, 0.01),
            "p5_packets": occupancy_quantile(occ, 0.05),
            "median_packets": occupancy_quantile(occ, 0.5),
            "p95_packets": occupancy_quantile(occ, 0.95),
            "p99_packets": occupancy_quantile(occ, 0.99),
            "max_packets": int(p["max_packets"]),
            "max_bytes": int(p["max_bytes"]),
            "drops": int(p["drops_buffer"]) + int(p["drops_aqm"]),
            "marks": int(p["marks"]),
            "utilization": float(p["utilization"]),
        }

    def queue_series(self, name: str, t_from: float | None = None, t_to: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sampled queue of one port, `(t_s, packets, bytes)` in time order, optionally
        cut to [t_from, t_to]."""
        qs = self.raw["queue_samples"]
        sel = np.asarray(qs["port"], dtype=np.int64) == self._port_index(name)
        t = np.asarray(qs["t_s"], dtype=float)[sel]
        pk = np.asarray(qs["packets"], dtype=float)[sel]
        by = np.asarray(qs["bytes"], dtype=float)[sel]
        order = np.argsort(t, kind="stable")
        t, pk, by = t[order], pk[order], by[order]
        keep = np.ones(len(t), dtype=bool)
        if t_from is not None:
            keep &= t >= t_from
        if t_to is not None:
            keep &= t <= t_to
        return t[keep], pk[keep], by[keep]

    def goodput_bps(self) -> float:
        """The flows' goodput over the measurement window, summed: bit/s."""
        return float(sum(self.raw["flows"]["goodput_bps"].tolist()))

    def total(self, column: str) -> int:
        """A per-flow counter (`timeouts`, `retransmits`, ...) summed over the flows."""
        return int(sum(self.raw["flows"][column].tolist()))

    def rows(self, table: str) -> list[dict[str, Any]]:
        """A table's rows as dicts of Python values, as summary.json has them (`flows`,
        `queries`, `ports`, `udp`, ...): a missing number is None."""
        return rows(self.raw[table])

    def _port_index(self, name: str) -> int:
        names = self.raw["ports"]["name"].tolist()
        if name not in names:
            raise KeyError(f"port {name!r} not in results (have {names})")
        return names.index(name)

    def fct_stats(self, buckets: Sequence[float] | None = None, by: str | Sequence[str] | None = None) -> pd.DataFrame:
        """Flow-completion-time statistics of the flows with a size, per size bucket (the DCTCP
        paper's by default): see `dcsim.workloads.fct_stats`."""
        from .workloads import DCTCP_BUCKETS, fct_stats

        return fct_stats(self.flows, DCTCP_BUCKETS if buckets is None else buckets, by)

    @cached_property
    def parameters(self) -> dict[str, Any]:
        """What the run ran with: `scenario`, its tables as the engine read them (the stack
        profile applied, every default filled in; the workload lists left out), and the values
        the engine derived when it built the network: `ports` (ports alike in every setting as
        one entry: rate, delay, buffer limits, the AQM with the K it used), `shared_memory`
        (each switch memory's size and α), `segment_bytes` and `packet_bytes`."""
        return json.loads(self.raw["parameters"]) if "parameters" in self.raw else {}

    def _labelled_frame(self, name: str) -> pd.DataFrame:
        """Table `name` of `LABELLED`, with the names its index column points at (a pandas
        string array, built without a Python object per row)."""
        columns = self._layout(name, _labels)
        column = LABELLED[name][0]
        return _frame(columns, **{column: columns[column]})

    def columns(self, name: str) -> Table:
        """Table `name` (one of `COLUMN_TABLES`) as its frame has it, column for column and
        value for value, as NumPy arrays (text as object arrays) and without pandas: what
        `dcsim run` writes. The arrays may be the run's own: do not edit them."""
        if name not in COLUMN_TABLES:
            raise ValueError(f"no table {name!r} of columns; the tables: {', '.join(COLUMN_TABLES)}")
        named = self._layout(name, lambda names, codes: np.asarray(names, dtype=object)[codes])
        return {k: _whole(k, v) for k, v in named.items()}

    def _layout(self, name: str, label: Any) -> dict[str, Any]:
        """Table `name`'s columns in its frame's order: for a table of `LABELLED`, with
        `label(names, codes)` as its names' column, in its place."""
        table = self.raw[name]
        if name not in LABELLED:
            return dict(table)
        column, names, codes, at = LABELLED[name]
        items = list(table.items())
        items.insert(len(items) if at is None else at, (column, label(self.raw[names]["name"], table[codes])))
        return dict(items)

    def summary(self) -> dict[str, Any]:
        """The run in brief: what `dcsim run` writes to summary.json, beside the run's
        `parameters`."""
        ports = [port | _queue_quantiles(histogram) for port, histogram in zip(rows(self.raw["ports"]), occupancy(self.raw), strict=True)]
        flows = rows(self.raw["flows"])
        return (
            {
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
                # Of those, the timeouts found spurious (the data had not been lost).
                "spurious_timeouts": sum(f["spurious_timeouts"] for f in flows),
                "retransmits": sum(f["retransmits"] for f in flows),
                # The same four in the measurement window, after `sim.warmup_s`.
                "drops_after_warmup": sum(p["drops_after_warmup"] for p in ports),
                "marks_after_warmup": sum(p["marks_after_warmup"] for p in ports),
                "timeouts_after_warmup": sum(f["timeouts_after_warmup"] for f in flows),
                "retransmits_after_warmup": sum(f["retransmits_after_warmup"] for f in flows),
                "conservation": self.conservation,
                "ports": ports,
                "switches": rows(self.raw["switches"]),
                "flows": flows,
                "queries": _query_summary(self.raw["queries"]),
            }
            | self._fct_summary()
            | self._udp_summary()
        )

    def _udp_summary(self) -> dict[str, Any]:
        """The UDP sources, for runs that have any."""
        return {"udp": rows(self.raw["udp"])} if _length(self.raw["udp"]) else {}

    def _fct_summary(self) -> dict[str, Any]:
        """Per size bucket completion times, for runs with generated flows."""
        generated = self.raw["flows"]["generator"]
        if not len(generated) or np.isnan(generated.astype(float)).all():
            return {}
        table = self.fct_stats()
        table["bucket"] = table["bucket"].astype(str)
        return {"fct": [{k: _plain(v) for k, v in row.items()} for row in table.to_dict("records")]}


def _plain(v: Any) -> Any:
    """A value as JSON has it: NaN as None, numpy numbers as Python numbers."""
    if isinstance(v, (float, np.floating)):
        return float(v) if np.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


def rows(table: Table) -> list[dict[str, Any]]:
    """A table's rows as dicts of Python values, as JSON would give them: a missing or
    non-finite number is None, and a whole number an int."""
    columns = {name: _python(name, values) for name, values in table.items()}
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def _python(name: str, values: np.ndarray) -> list[Any]:
    items = values.tolist()
    if values.dtype.kind != "f":
        return items
    whole = name in OPTIONAL_INTS
    return [(int(v) if whole else v) if math.isfinite(v) else None for v in items]


def occupancy(raw: dict[str, Any]) -> list[np.ndarray]:
    """Each port's occupancy histogram: `[n]` = seconds it held exactly n packets in the
    measurement window (from the long table `queue_occupancy`, ordered by port)."""
    table = raw["queue_occupancy"]
    bounds = np.searchsorted(table["port"], np.arange(_length(raw["ports"]) + 1))
    return [table["seconds"][a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _length(table: Table) -> int:
    return len(next(iter(table.values()), ()))


def _frame(table: Table, **derived: Any) -> pd.DataFrame:
    """A frame of its own (editing it leaves `raw` alone) of `table`'s columns, each copied
    once and the frame built around the copies, and `derived` ones (built for the frame),
    which replace the table's of the same name or follow them."""
    import pandas as pd

    columns = {name: derived.pop(name) if name in derived else _own(name, values) for name, values in table.items()}
    return pd.DataFrame(columns | derived, copy=False)


def _own(name: str, values: np.ndarray) -> Any:
    """Whole numbers as int64 (`_whole`), text as pandas strings, each a copy."""
    import pandas as pd

    whole = _whole(name, values)
    if whole is not values:
        return whole
    if values.dtype.kind == "O":
        return pd.array(values, dtype=str)
    return values.copy()


def _whole(name: str, values: np.ndarray) -> np.ndarray:
    """Whole numbers as int64 (a new array), as pandas read them from JSON; those of
    `OPTIONAL_INTS` only when none is missing. Other columns as they are."""
    if values.dtype.kind in "iu" or (name in OPTIONAL_INTS and not np.isnan(values).any()):
        return values.astype(np.int64)
    return values


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a moment: one new list per packet would trigger
    passes over the whole heap (tens of milliseconds on a trace), and empty lists can form
    no cycle."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _labels(names: Sequence[str] | np.ndarray, codes: np.ndarray) -> Any:
    """`names[codes]` as a pandas string array (built without a Python object per row)."""
    import pandas as pd

    return pd.Series(names, dtype=str).array.take(codes)


def _queue_quantiles(occupancy_time_s: Sequence[float] | np.ndarray) -> dict[str, int | None]:
    """Time-weighted quantiles of the queue length, from the occupancy histogram."""
    names = [f"queue_p{round(q * 100)}_packets" for q in QUEUE_QUANTILES]
    if np.asarray(occupancy_time_s, dtype=float).sum() <= 0:
        return dict.fromkeys(names)
    return {name: occupancy_quantile(occupancy_time_s, q) for name, q in zip(names, QUEUE_QUANTILES, strict=True)}


# A port's occupancy histogram: `occupancy_time_s[n]` = seconds it held exactly n packets in
# the measurement window, the exact time-weighted distribution that sampling estimates.


def occupancy_pmf(occupancy_time_s: Sequence[float] | np.ndarray) -> np.ndarray:
    """The fraction of the window at each queue length (zeros for an empty window)."""
    w = np.asarray(occupancy_time_s, dtype=float)
    s = w.sum()
    if s <= 0:
        return np.zeros(max(len(w), 1))
    return w / s


def occupancy_cdf(occupancy_time_s: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(n, P[queue <= n])` for n = 0..max, time-weighted."""
    p = occupancy_pmf(occupancy_time_s)
    return np.arange(len(p)), np.minimum(np.cumsum(p), 1.0)


def occupancy_quantile(occupancy_time_s: Sequence[float] | np.ndarray, q: float) -> int:
    """The time-weighted quantile: the smallest n with P[queue <= n] >= q (within 1e-12,
    which absorbs the rounding of the cumulative sum)."""
    _, c = occupancy_cdf(occupancy_time_s)
    i = int(np.searchsorted(c, q - 1e-12, side="left"))
    return min(i, len(c) - 1)


def occupancy_mean(occupancy_time_s: Sequence[float] | np.ndarray) -> float:
    """The time-weighted mean queue length, packets."""
    p = occupancy_pmf(occupancy_time_s)
    return float(np.dot(np.arange(len(p)), p))


def _query_summary(queries: Table) -> dict[str, Any]:
    """Count, completion-time statistics and timeout fractions of the completed queries: with
    any timeout, and with a timeout that was not spurious (data lost, so the query waited)."""
    done = np.isfinite(queries["qct_s"])
    qct = queries["qct_s"][done]
    issued = len(done)
    if not len(qct):
        return {"issued": issued, "completed": 0}
    loss_timeouts = queries["timeouts"] - queries["spurious_timeouts"]
    return {
        "issued": issued,
        "completed": len(qct),
        "qct_mean_s": float(qct.mean()),
        "qct_p50_s": float(np.percentile(qct, 50)),
        "qct_p95_s": float(np.percentile(qct, 95)),
        "qct_p99_s": float(np.percentile(qct, 99)),
        "fraction_with_timeout": int(np.count_nonzero(queries["timeouts"][done] > 0)) / len(qct),
        "fraction_with_loss_timeout": int(np.count_nonzero(loss_timeouts[done] > 0)) / len(qct),
    }
