"""What `dcsim run` prints: a run in at most a screen, from its summary.json.

What ran (network, transport, queues), what happened to the flows and packets, the pitfalls
a reader would otherwise miss (packets without ECN dropped at a marking threshold, flows
unfinished at the end), the completion times by size for generated traffic, and the busiest
switch ports. Every table in full is in the run's files.
"""

from __future__ import annotations

import math
from typing import Any

from .workloads import UNFINISHED_FLAG_SHARE

# Bulk flows listed one per line up to this many; above it, their goodput in brief.
MAX_FLOW_ROWS = 10
# Switch ports listed, the busiest first.
MAX_PORT_ROWS = 8


def lines(summary: dict[str, Any]) -> list[str]:
    """The overview of a run, line by line."""
    scenario = summary.get("parameters", {}).get("scenario", {})
    out = [_headline(summary)]
    out += _what_ran(summary, scenario)
    out += _traffic(summary)
    out += _nonect_note(summary, scenario)
    out += _fct_table(summary.get("fct") or [])
    out += _flow_rows(summary)
    out += _port_rows(summary)
    return out


def _threads(s: dict[str, Any], scenario: dict[str, Any]) -> list[str]:
    """How the run used threads: shown for a cut network, or when more than one was asked for."""
    parallel = s.get("parameters", {}).get("parallel") or {}
    asked = (scenario.get("sim") or {}).get("threads", 1)
    if parallel.get("partitions", 1) > 1:
        return [
            f"  threads    {parallel['threads']} for {parallel['partitions']} partitions, in windows of "
            f"{parallel['lookahead_us']:.3g} µs (results identical on any number)"
        ]
    if asked != 1:
        return [f"  threads    1 of {asked} asked for: {parallel.get('one_thread_because', 'the network is whole')}"]
    return []


def _headline(s: dict[str, Any]) -> str:
    warmup = f" (the first {_num(s['warmup_s'])} s warm-up)" if s.get("warmup_s") else ""
    return f"{s['name'] or 'scenario'}: {_num(s['duration_s'])} s simulated{warmup}, {s['events']:,} events in {s['wall_seconds']:.2f} s"


def _what_ran(s: dict[str, Any], scenario: dict[str, Any]) -> list[str]:
    out = []
    topology = scenario.get("topology") or {}
    hosts = sum(1 for p in s["ports"] if not p["is_switch"])
    switches = len(s.get("switches") or [])
    kind = topology.get("kind", "network")
    size = f" (k = {topology['k']})" if "k" in topology else ""
    link = topology.get("link") or topology.get("host_link") or {}
    link_text = f"; links {_num(link['rate_gbps'])} Gb/s, {_num(link['delay_us'])} µs" if link.get("rate_gbps") else ""
    out.append(f"  network    {kind}{size}: {hosts} hosts, {switches} switch{'es' if switches != 1 else ''}{link_text}")
    tcp = scenario.get("tcp") or {}
    ccs: dict[str, int] = {}
    for f in s["flows"]:
        ccs[f["cc"]] = ccs.get(f["cc"], 0) + 1
    transport = ", ".join(f"{cc} ({n:,} flow{'s' if n != 1 else ''})" for cc, n in ccs.items()) or tcp.get("cc", "none")
    profile = tcp.get("profile")
    out.append(f"  transport  {transport}; stack profile: {profile or 'none (the [tcp] table as given)'}")
    out += _threads(s, scenario)
    switch = scenario.get("switch") or {}
    classes = switch.get("classes")
    if classes:
        # Class queues: each has its own limit and AQM (switch.classes.queues).
        queues = []
        for i, q in enumerate(classes.get("queues") or []):
            limit = f", {q['limit_packets']:,} packets" if q.get("limit_packets") else ""
            queues.append(f"class {i}: {_aqm_text(q.get('aqm') or {'kind': 'drop_tail'}, s)}{limit}")
        scheduler = classes.get("scheduler", "")
        out.append(f"  queues     {scheduler} over {len(queues)} class queues per port ({'; '.join(queues)}); buffer: {_buffer_text(s)}")
    else:
        out.append(f"  queues     {_aqm_text(switch.get('aqm') or {}, s)}; buffer: {_buffer_text(s)}")
    return out


def _aqm_text(aqm: dict[str, Any], s: dict[str, Any]) -> str:
    kind = aqm.get("kind", "drop_tail")
    if kind == "threshold":
        # K as the engine derived it per port rate where the scenario leaves it out.
        ks = sorted({g["aqm"]["k_packets"] for g in _switch_groups(s) if g["aqm"].get("kind") == "threshold"})
        k = str(aqm["k_packets"]) if aqm.get("k_packets") is not None else " or ".join(str(x) for x in ks) or "by port rate"
        nonect = "dropped" if aqm.get("nonect", "drop") == "drop" else "queued"
        return f"ECN marking above K = {k} packets (at {aqm.get('at', 'enqueue')}; packets without ECN {nonect} above K)"
    if kind == "drop_tail":
        return "drop-tail (no marking)"
    if kind == "red":
        return f"RED (min_th {_num(aqm.get('min_th'))}, max_th {_num(aqm.get('max_th'))} packets)"
    return kind.upper() if kind == "pi" else kind


def _switch_groups(s: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in s.get("parameters", {}).get("ports", []) if g.get("switch")]


def _buffer_text(s: dict[str, Any]) -> str:
    memories = s.get("parameters", {}).get("shared_memory") or []
    if memories:
        parts = [
            f"{_bytes(m['bytes'])} shared per switch (α = {m['alpha']:.3g}) on {m['switches']} switch{'es' if m['switches'] != 1 else ''}"
            for m in memories
        ]
        return "; ".join(parts)
    limits = {(g.get("limit_packets"), g.get("limit_bytes")) for g in _switch_groups(s)}
    texts = [f"{p:,} packets" if p else f"{_bytes(b)}" if b else "unlimited" for p, b in sorted(limits, key=str)]
    return f"{' or '.join(texts)} per port" if texts else "none"


def _traffic(s: dict[str, Any]) -> list[str]:
    flows = s["flows"]
    of_queries = [f for f in flows if f.get("workload") is not None]
    sized = [f for f in flows if f.get("size_bytes") and f.get("workload") is None]
    finished = sum(1 for f in sized if f.get("completion_s") is not None)
    long_lived = len(flows) - len(sized) - len(of_queries)
    goodput = sum(f["goodput_bps"] or 0 for f in flows)
    counts = [f"{len(sized):,} of a set size: {finished:,} finished, {len(sized) - finished:,} unfinished at the end"] if sized else []
    counts += [f"{long_lived:,} long-lived"] if long_lived else []
    counts += [_count(len(of_queries), "query connection")] if of_queries else []
    detail = f" ({'; '.join(counts)})" if counts else ""
    out = [f"  flows      {len(flows):,} started{detail}; goodput {_rate(goodput)} in all"]
    queries = s.get("queries") or {}
    if queries.get("issued"):
        qct = ""
        if queries.get("completed"):
            qct = f", completion mean {queries['qct_mean_s'] * 1e3:.3g} ms, p99 {queries['qct_p99_s'] * 1e3:.3g} ms"
        out.append(f"  queries    {queries['issued']:,} issued, {queries['completed']:,} completed{qct}")
    udp = s.get("udp") or []
    if udp:
        sent, lost = sum(u["sent_packets"] for u in udp), sum(u["dropped_packets"] for u in udp)
        out.append(f"  udp        {_count(len(udp), 'source')}: {sent:,} packets sent, {lost:,} dropped")
    switch_ports = [p for p in s["ports"] if p["is_switch"]]
    by_reason = {
        "buffer": sum(p["drops_buffer"] for p in s["ports"]),
        "shared memory": sum(p["drops_pool"] for p in s["ports"]),
        "AQM": sum(p["drops_aqm"] for p in s["ports"]),
    }
    reasons = ", ".join(f"{name} {n:,}" for name, n in by_reason.items() if n)
    host_drops = sum(p["drops_buffer"] + p["drops_pool"] + p["drops_aqm"] for p in s["ports"] if not p["is_switch"])
    at_hosts = f", {host_drops:,} of them at host NICs" if host_drops else ""
    marks = sum(p["marks"] for p in switch_ports)
    out.append(
        f"  packets    {s['drops']:,} dropped{f' ({reasons})' if reasons else ''}{at_hosts}, {marks:,} marked; "
        f"{_count(s['timeouts'], 'timeout')}, {_count(s['retransmits'], 'retransmission')}"
    )
    return out


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def _nonect_note(s: dict[str, Any], scenario: dict[str, Any]) -> list[str]:
    """An AQM that marks ECN packets dropping those without ECN: TCP without ECN beside (or
    instead of) DCTCP loses packets where an ECN sender is only marked. A port's count is the
    smaller of its AQM drops and its drops of packets without ECN: exact for the threshold
    queue, whose AQM drops nothing else; at most that for RED and PI."""
    dropped = sum(min(p["drops_aqm"], p["drops_nonect"]) for p in s["ports"] if p["is_switch"])
    if not dropped:
        return []
    switch = scenario.get("switch") or {}
    classes = switch.get("classes") or {}
    aqms = [switch.get("aqm") or {}, *((q.get("aqm") or {}) for q in classes.get("queues") or [])]
    threshold = all(a.get("kind") in ("threshold", "drop_tail", None) for a in aqms)
    where = "switch.classes.queues[i].aqm" if classes else "switch.aqm"
    if threshold:
        count = f"{dropped:,}"
        fix = f'{where}.nonect = "enqueue" queues them up to the buffer instead, and a drop-tail queue runs TCP without marking'
    else:
        count = f"up to {dropped:,}"
        fix = f'a drop-tail queue ({where} = {{ kind = "drop_tail" }}) runs TCP without marking'
    return [f"  ! {count} packets without ECN were dropped by an AQM that only marks ECN packets: {fix}."]


def _fct_table(buckets: list[dict[str, Any]]) -> list[str]:
    if not buckets:
        return []
    slowdown = any(b.get("mean_slowdown") is not None for b in buckets)
    what = "slowdown (completion time / the flow's alone on the idle network)" if slowdown else "completion time, ms"
    rows = []
    for b in buckets:
        unfinished = f"{b['unfinished']:,}" + (" !" if b["biased"] else "")
        if slowdown:
            stats = [b.get("mean_slowdown"), b.get("median_slowdown"), b.get("p99_slowdown")]
        else:
            stats = [None if b.get(k) is None else b[k] * 1e3 for k in ("mean_fct_s", "median_fct_s", "p99_fct_s")]
        rows.append(
            {"size": b["bucket"], "flows": b["flows"], "finished": b["finished"], "unfinished": unfinished}
            | dict(zip(("mean", "p50", "p99"), stats, strict=True))
        )
    out = [f"  {what}, by flow size:"]
    out += [
        "    " + line for line in text_table(rows, ["size", "flows", "finished", "unfinished", "mean", "p50", "p99"], "{:.3g}").splitlines()
    ]
    if any(b["biased"] for b in buckets):
        out.append(
            f"  ! over {UNFINISHED_FLAG_SHARE:.0%} of a bucket's flows unfinished: its statistics count finished flows only "
            "and understate the tail; sim.drain_s stops arrivals before the end so that flows can finish."
        )
    return out


def _flow_rows(s: dict[str, Any]) -> list[str]:
    bulk = [f for f in s["flows"] if f.get("generator") is None and f.get("workload") is None]
    if not bulk:
        return []
    if len(bulk) > MAX_FLOW_ROWS:
        rates = sorted(f["goodput_bps"] or 0.0 for f in bulk)
        return [
            f"  goodput    {len(bulk):,} listed flows: min {_rate(rates[0])}, median {_rate(rates[len(rates) // 2])}, "
            f"max {_rate(rates[-1])}, Jain's fairness {_jain(rates):.3f}"
        ]
    rows = [f | {"goodput_mbps": None if f["goodput_bps"] is None else f["goodput_bps"] / 1e6} for f in bulk]
    table = text_table(rows, ["id", "src", "dst", "cc", "goodput_mbps", "retransmits", "timeouts"], "{:.1f}")
    return ["  listed flows:"] + ["    " + line for line in table.splitlines()]


def _port_rows(s: dict[str, Any]) -> list[str]:
    ports = [p | {"drops": p["drops_buffer"] + p["drops_pool"] + p["drops_aqm"]} for p in s["ports"] if p["is_switch"]]
    if not ports:
        return []
    busiest = sorted(ports, key=lambda p: (-p["drops"], -(p["queue_p99_packets"] or 0), -p["utilization"]))[:MAX_PORT_ROWS]
    title = "switch ports" if len(busiest) == len(ports) else f"the {len(busiest)} busiest of {len(ports)} switch ports (all in ports.csv)"
    columns = ["name", "utilization", "mean_packets", "queue_p99_packets", "max_packets", "drops", "marks"]
    return [f"  {title}:"] + ["    " + line for line in text_table(busiest, columns, "{:.2f}").splitlines()]


def text_table(rows: list[dict[str, Any]], columns: list[str], float_format: str) -> str:
    """`rows` as right-aligned text columns under their names; floats in `float_format`,
    missing values as NaN."""

    def cell(v: Any) -> str:
        if v is None:
            return "NaN"
        return float_format.format(v) if isinstance(v, float) else str(v)

    cells = [[cell(row[c]) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    table = [columns, *cells]
    return "\n".join(" ".join(text.rjust(w) for text, w in zip(line, widths, strict=True)) for line in table)


def _jain(xs: list[float]) -> float:
    """Jain's fairness index: (Σx)² / (n Σx²), 1 when all are equal."""
    square = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * square) if square else 1.0


def _num(x: Any) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and math.isfinite(x) else str(x)


def _rate(bps: float) -> str:
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} b/s"


def _bytes(b: float) -> str:
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"
