//! `make bench`, engine part: speed and memory on fixed scenarios.
//!
//! For each case: events, packet-hops (one packet crossing one link), flows completed, wall
//! seconds (the best of several runs, the median beside it), ns per event, data packets and
//! packet-hops per wall-second, and the peak resident memory of the process during the case.
//! Then two memory figures: bytes per idle connection and bytes per packet held in a queue.
//!
//! ```text
//! cargo run --release -p dcsim --example bench -- [--quick] [--case ID]... [--runs N] [--out DIR]
//! ```
//! `--out DIR` writes `DIR/engine.json` (the table) and `DIR/scenarios/ID.json` (each case's
//! scenario, for `benchmarks/bench.py` to time the same runs through `dcsim.run`).
//! `--case` keeps the cases whose id contains the text, and skips the memory figures;
//! `--memory` prints the memory figures alone. Each
//! case runs in a child process (`--child ID`), so that its memory peak is its own; profile
//! one by running its child directly (`perf record bench --child ID --runs 1`).
//! `--scenario FILE.json` measures any scenario the same way and prints its row as JSON.

use std::time::Instant;

use dcsim::ids::NodeId;
use dcsim::net::aqm::Aqm;
use dcsim::net::packet::{Ecn, HeaderPool, Segment};
use dcsim::net::port::Port;
use dcsim::units::{Bytes, Rate, Time};
use dcsim::{Scenario, Simulation};
use serde_json::json;

/// Shared settings of the 10 Gb/s fabric cases: 1 µs per hop, 100-packet queues, DCTCP K = 15.
const FABRIC: &str = r#"[switch]
buffer = { kind = "per_port", limit_packets = 100 }
aqm = { kind = "threshold", k_packets = 15 }
[tcp]
cc = "dctcp"
[measure]
queue_sample_us = 0
"#;

fn parse(toml: &str) -> Scenario {
    Scenario::from_toml(toml).expect("bench scenario is valid")
}

/// `senders` long DCTCP flows into host 0 of a star, every link `rate_gbps` with 25 µs.
fn long_flows(name: &str, senders: u32, rate_gbps: f64, k: u32, buffer_packets: u32, seconds: f64) -> Scenario {
    let flows: String = (1..=senders).map(|h| format!("[[flows]]\nsrc = {h}\ndst = 0\n")).collect();
    parse(&format!(
        r#"name = "{name}"
[sim]
duration_s = {seconds}
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate_gbps = {rate_gbps}, delay_us = 25.0 }}
[switch]
buffer = {{ kind = "per_port", limit_packets = {buffer_packets} }}
aqm = {{ kind = "threshold", k_packets = {k} }}
[tcp]
cc = "dctcp"
[measure]
queue_sample_us = 0
{flows}"#,
        hosts = senders + 1
    ))
}

/// Barrier-synchronised incast (DCTCP paper §4.2.1): a client asks `servers` servers for
/// `total_bytes / servers` each, `rounds` times, over DCTCP on a Triumph-like shared buffer.
fn incast(name: &str, servers: u32, total_bytes: u64, rounds: u32, seconds: f64) -> Scenario {
    let list: Vec<String> = (1..=servers).map(|h| h.to_string()).collect();
    parse(&format!(
        r#"name = "{name}"
[sim]
duration_s = {seconds}
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
[switch]
buffer = {{ kind = "preset", name = "triumph" }}
aqm = {{ kind = "threshold", k_packets = 20 }}
[tcp]
cc = "dctcp"
rto_min_ms = 10.0
[measure]
queue_sample_us = 0
[[queries]]
client = 0
servers = [{list}]
response_bytes = {response}
rounds = {rounds}
"#,
        hosts = servers + 1,
        list = list.join(", "),
        response = total_bytes / servers as u64,
    ))
}

/// One long flow per host to a destination drawn as a random cyclic permutation (Sattolo's
/// algorithm, seeded: no host sends to itself).
fn permutation_flows(hosts: u32) -> String {
    let dst = dcsim::sim::traffic::cyclic_permutation(hosts, 1);
    (0..hosts)
        .map(|h| format!("[[flows]]\nsrc = {h}\ndst = {}\n", dst[h as usize]))
        .collect()
}

/// `hosts` hosts on one switch at 10 Gb/s, a permutation of long flows.
fn star_permutation(name: &str, hosts: u32, seconds: f64) -> Scenario {
    parse(&format!(
        "name = \"{name}\"\n[sim]\nduration_s = {seconds}\n[topology]\nkind = \"star\"\nhosts = {hosts}\n\
         link = {{ rate_gbps = 10.0, delay_us = 1.0 }}\n{FABRIC}{}",
        permutation_flows(hosts)
    ))
}

/// k-ary fat-tree at 10 Gb/s, a permutation of long flows.
fn fat_tree_permutation(name: &str, k: u32, seconds: f64) -> Scenario {
    parse(&format!(
        "name = \"{name}\"\n[sim]\nduration_s = {seconds}\n[topology]\nkind = \"fat_tree\"\nk = {k}\n\
         link = {{ rate_gbps = 10.0, delay_us = 1.0 }}\n{FABRIC}{}",
        permutation_flows(k * k * k / 4)
    ))
}

/// k-ary fat-tree with the web-search flow sizes arriving on every host (Poisson, to a
/// uniformly chosen other host) at `load` of its link; `ideal`: each finished flow is also
/// replayed alone for its slowdown.
fn fat_tree_web_search(name: &str, k: u32, rate_gbps: f64, load: f64, seconds: f64, ideal: bool) -> Scenario {
    parse(&format!(
        "name = \"{name}\"\n[sim]\nduration_s = {seconds}\n[topology]\nkind = \"fat_tree\"\nk = {k}\n\
         link = {{ rate_gbps = {rate_gbps}, delay_us = 1.0 }}\n{FABRIC}ideal_fct = {ideal}\n\
         [[traffic]]\nsize = {{ kind = \"web_search\" }}\narrival = {{ kind = \"poisson\", load = {load} }}\n"
    ))
}

/// The DCTCP paper's benchmark traffic (§4.3) as `dcsim reproduce` runs it for Fig. 22, DCTCP
/// on the paper's testbed (`benchmarks/scenarios/dctcp-benchmark-rack.json`, written by
/// `benchmarks/dctcp_benchmark_rack.py`): its first `seconds`, no warm-up, no packet trace,
/// and no alone runs for ideal completion times (`measure.ideal_fct`: they would nearly
/// double the work but not the events counted).
fn benchmark_rack(seconds: f64) -> Scenario {
    let text = include_str!("../../../benchmarks/scenarios/dctcp-benchmark-rack.json");
    let mut s = Scenario::from_json(text).expect("the benchmark rack scenario is valid");
    s.name = "bench-dctcp-benchmark-rack".into();
    s.sim.duration_s = seconds;
    s.sim.warmup_s = 0.0;
    s.measure.trace_queries.clear();
    s.measure.ideal_fct = false;
    s
}

struct Case {
    id: &'static str,
    label: &'static str,
    /// Builds the scenario at a scale of its simulated time.
    build: fn(f64) -> Scenario,
}

const CASES: &[Case] = &[
    Case {
        id: "dctcp-20x1g",
        label: "20 long DCTCP flows, 1 Gb/s, K=20, 400-pkt buffer",
        build: |scale| long_flows("bench-20x1g", 20, 1.0, 20, 400, 10.0 * scale),
    },
    Case {
        id: "dctcp-2x10g",
        label: "2 long DCTCP flows, 10 Gb/s, K=65, 400-pkt buffer",
        build: |scale| long_flows("bench-2x10g", 2, 10.0, 65, 400, 1.0 * scale),
    },
    // K and the buffer grow with the rate (K ≈ C·RTT/7, DCTCP paper §3.4).
    Case {
        id: "dctcp-2x100g",
        label: "2 long DCTCP flows, 100 Gb/s, K=650, 4000-pkt buffer",
        build: |scale| long_flows("bench-2x100g", 2, 100.0, 650, 4000, 0.1 * scale),
    },
    // 1000 queries of ≈ 9 ms each (1 MB at 0.95 Gb/s) need ≈ 9 s; the run ends when the
    // last query completes.
    Case {
        id: "incast-40",
        label: "40-server incast, 1 MB per query, DCTCP K=20, Triumph buffer, RTO_min 10 ms",
        build: |scale| incast("bench-incast40", 40, 1_000_000, (1000.0 * scale) as u32, 30.0 * scale),
    },
    // Queries and background flows arrive for 10 s; the first 3 (0.3 at --quick) are timed.
    Case {
        id: "dctcp-benchmark-rack",
        label: "DCTCP benchmark rack (§4.3): 45 servers at 1 Gb/s and a 10 Gb/s stand-in, queries and web-search background, K=20/65, Triumph buffer",
        build: |scale| benchmark_rack(3.0 * scale),
    },
    Case {
        id: "star-perm-432",
        label: "one switch, 432 hosts, 10 Gb/s, permutation, DCTCP K=15",
        build: |scale| star_permutation("bench-star432", 432, 0.1 * scale),
    },
    // A fifth of the time of the 432-host case: about the same number of events.
    Case {
        id: "star-perm-2000",
        label: "one switch, 2,000 hosts, 10 Gb/s, permutation, DCTCP K=15",
        build: |scale| star_permutation("bench-star2000", 2000, 0.02 * scale),
    },
    Case {
        id: "fattree12-perm",
        label: "k=12 fat-tree, 432 hosts, 10 Gb/s, permutation, DCTCP K=15",
        build: |scale| fat_tree_permutation("bench-fattree12", 12, 0.1 * scale),
    },
    // 1,024 hosts: about as many events as the k = 12 case in a quarter of its time.
    Case {
        id: "fattree16-perm",
        label: "k=16 fat-tree, 1024 hosts, 10 Gb/s, permutation, DCTCP K=15",
        build: |scale| fat_tree_permutation("bench-fattree16", 16, 0.025 * scale),
    },
    Case {
        id: "fattree8-websearch",
        label: "k=8 fat-tree, 128 hosts, 10 Gb/s, web-search sizes at 50% load",
        build: |scale| fat_tree_web_search("bench-fattree8-websearch", 8, 10.0, 0.5, 0.1 * scale, false),
    },
    Case {
        id: "fattree8-websearch-ideal",
        label: "the same, each finished flow replayed alone (measure.ideal_fct)",
        build: |scale| fat_tree_web_search("bench-fattree8-websearch-ideal", 8, 10.0, 0.5, 0.1 * scale, true),
    },
    Case {
        id: "fattree16-100g",
        label: "k=16 fat-tree, 1,024 hosts, 100 Gb/s, web-search sizes at 30% load, 10 ms",
        build: |scale| fat_tree_web_search("bench-fattree16-100g", 16, 100.0, 0.3, 0.01 * scale, false),
    },
];

/// A `/proc/self/status` field in bytes (Linux; 0 elsewhere).
fn proc_status(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Bytes of resident memory per idle connection (both ends): 10,000 connections built, none
/// started.
fn memory_per_idle_connection() -> f64 {
    let mut s = long_flows("bench-memory", 1, 1.0, 20, 400, 1.0);
    let flow = s.flows[0].clone();
    s.flows = (0..10_000).map(|_| flow.clone()).collect();
    for f in &mut s.flows {
        f.start_s = 0.5; // idle: nothing sent before the run starts
    }
    let before = proc_status("VmRSS:");
    let sim = Simulation::new(&s).expect("builds");
    let per = proc_status("VmRSS:").saturating_sub(before) as f64 / 10_000.0;
    drop(sim);
    per
}

/// Bytes of resident memory per packet held by a port (1,000,000 full-size data packets
/// queued behind a 1 Gb/s link): its queue and wire structures, and the packets' headers in
/// the pool where they wait for their receiver.
fn memory_per_queued_packet() -> f64 {
    const N: u32 = 1_000_000;
    let mut port = Port::new(
        "bench".into(),
        NodeId(0),
        NodeId(1),
        true,
        Rate::from_gbps(1.0),
        Time::from_us(1),
        Bytes::from(38u32),
        N,
        Bytes::new(1 << 40),
        Aqm::DropTail,
    );
    let mut headers = HeaderPool::default();
    let seg = Segment::data(0, 1500, Ecn::Ect);
    let before = proc_status("VmRSS:");
    for i in 0..N {
        let pkt = headers.send(&Segment {
            seq: i as u64 * 1460,
            ..seg
        });
        port.offer(Time::ZERO, pkt, Time::ZERO).expect("room for every packet");
    }
    let per = proc_status("VmRSS:").saturating_sub(before) as f64 / N as f64;
    assert_eq!(headers.in_network(), N as usize);
    drop(port);
    per
}

/// Runs one case `runs` times (fewer when a run takes over 10 s, unless `fixed`) and returns
/// its row.
/// How a case runs: on how many threads, or whole (not cut, as a network that cannot be).
#[derive(Clone, Copy)]
struct Mode {
    threads: usize,
    whole: bool,
}

const ONE_THREAD: Mode = Mode { threads: 1, whole: false };

fn measure(id: &str, label: &str, s: &Scenario, runs: usize, fixed: bool, mode: Mode) -> serde_json::Value {
    // Wall time on shared machines is noisy: the best of several runs (the least disturbed),
    // the median beside it.
    let mut walls = Vec::new();
    let mut last = None;
    let mut runs = runs;
    while walls.len() < runs {
        let t0 = Instant::now();
        let mut sim = Simulation::new(s).expect("builds");
        if mode.whole {
            sim.keep_whole();
        }
        sim.set_threads(mode.threads);
        sim.record_windows();
        let r = sim.run();
        let wall = t0.elapsed().as_secs_f64();
        walls.push(wall);
        if !fixed && wall > 10.0 {
            runs = runs.min(2);
        }
        last = Some((r, sim));
    }
    let (r, sim) = last.expect("at least one run");
    let parallel = sim.parallel_stats().map(|p| {
        let windows = p.window_events.first().map_or(0, Vec::len);
        // Per window, the partitions' events: what a model of more threads needs.
        json!({
            "partitions": p.partitions, "threads": p.threads, "lookahead_s": p.lookahead.as_secs_f64(),
            "windows": p.windows, "crossings": p.crossings, "hops": p.hops, "events_by_partition": p.events,
            "window_events": (0..windows).map(|w| p.window_events.iter().map(|log| log[w]).collect::<Vec<u32>>()).collect::<Vec<_>>(),
        })
    });
    walls.sort_by(f64::total_cmp);
    let (best, median) = (walls[0], walls[walls.len() / 2]);
    // A query workload's simulated time is up to its last completion (the calendar empties then).
    let simulated = if r.queries.is_empty() || r.queries.iter().any(|q| q.completed_s.is_nan()) {
        s.sim.duration_s
    } else {
        r.queries.iter().map(|q| q.completed_s).fold(0.0, f64::max)
    };
    let wanted: u32 = s.queries.iter().map(|q| q.rounds).sum();
    let done = r.queries.iter().filter(|q| q.qct_s.is_finite()).count();
    // Workloads that stop on their own (`stop_s`) may issue fewer than their rounds.
    if done < wanted as usize && s.queries.iter().all(|q| q.stop_s.is_none()) {
        eprintln!("warning: {id}: {done} of {wanted} queries completed");
    }
    // Data packets delivered: in-order payload over the segment size.
    let data_packets = r.flows.iter().map(|f| f.bytes_delivered).sum::<u64>() / s.tcp.segment_bytes() as u64;
    let flows_done = r.flows.iter().filter(|f| f.size_bytes > 0 && f.fct_s.is_finite()).count();
    json!({
        "id": id, "label": label, "simulated_s": simulated, "events": r.events,
        "packet_hops": r.packet_hops, "data_packets": data_packets, "flows_completed": flows_done,
        "runs": walls.len(), "best_wall_s": best, "median_wall_s": median,
        "ns_per_event": best * 1e9 / r.events as f64,
        "data_packets_per_s": data_packets as f64 / best, "packet_hops_per_s": r.packet_hops as f64 / best,
        "peak_rss_bytes": proc_status("VmHWM:"), "parallel": parallel,
    })
}

/// Runs case `id` in a child process (its own memory peak and allocator), returning its row.
fn measure_in_child(id: &str, quick: bool, runs: Option<usize>, mode: Mode) -> serde_json::Value {
    let mut cmd = std::process::Command::new(std::env::current_exe().expect("own path"));
    cmd.args(["--child", id, "--threads", &mode.threads.to_string()]);
    if mode.whole {
        cmd.arg("--whole");
    }
    if quick {
        cmd.arg("--quick");
    }
    if let Some(n) = runs {
        cmd.args(["--runs", &n.to_string()]);
    }
    let out = cmd.stderr(std::process::Stdio::inherit()).output().expect("the bench runs itself");
    assert!(out.status.success(), "case {id} failed: {}", out.status);
    serde_json::from_slice(&out.stdout).expect("the child prints its row as JSON")
}

/// A memory figure (`--child memory-connection` or `memory-packet`) from a fresh process.
fn memory_in_child(id: &str) -> f64 {
    let exe = std::env::current_exe().expect("own path");
    let out = std::process::Command::new(exe)
        .args(["--child", id])
        .output()
        .expect("the bench runs itself");
    assert!(out.status.success(), "{id} failed: {}", out.status);
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("the child prints a number")
}

/// `--parallel`: each fat-tree case whole, then cut on 1 and 2 threads: wall times, the
/// speedups, and what the partitions did. The results of the cut runs must be identical.
fn parallel_table(quick: bool, runs: Option<usize>, out: Option<&std::path::Path>) {
    println!("| case | partitions | lookahead µs | whole s | cut, 1 thread s | cut, 2 threads s | 2 threads vs whole | 2 vs 1 thread | windows | events/window | hops crossing |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for c in CASES.iter().filter(|c| c.id.starts_with("fattree")) {
        let whole = measure_in_child(c.id, quick, runs, Mode { threads: 1, whole: true });
        let one = measure_in_child(c.id, quick, runs, ONE_THREAD);
        let two = measure_in_child(c.id, quick, runs, Mode { threads: 2, whole: false });
        assert_eq!(one["events"], two["events"], "{}: the cut run differs with the thread count", c.id);
        let wall = |r: &serde_json::Value| r["best_wall_s"].as_f64().unwrap_or(f64::NAN);
        let p = &one["parallel"];
        let windows = p["windows"].as_f64().unwrap_or(f64::NAN);
        println!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2}× | {:.2}× | {} | {:.0} | {:.1}% |",
            c.id,
            p["partitions"],
            p["lookahead_s"].as_f64().unwrap_or(f64::NAN) * 1e6,
            wall(&whole),
            wall(&one),
            wall(&two),
            wall(&whole) / wall(&two),
            wall(&one) / wall(&two),
            p["windows"],
            one["events"].as_f64().unwrap_or(f64::NAN) / windows,
            100.0 * p["crossings"].as_f64().unwrap_or(f64::NAN) / p["hops"].as_f64().unwrap_or(f64::NAN),
        );
        rows.push(json!({"id": c.id, "whole": whole, "one_thread": one, "two_threads": two}));
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).expect("--out directory can be written");
        let path = dir.join("parallel.json");
        std::fs::write(&path, serde_json::to_string(&rows).expect("serialises")).expect("parallel.json written");
        eprintln!("wrote {}", path.display());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let quick = args.iter().any(|a| a == "--quick");
    let memory_only = args.iter().any(|a| a == "--memory");
    let mode = Mode {
        threads: flag("--threads").map_or(1, |n| n.parse().expect("--threads takes a number")),
        whole: args.iter().any(|a| a == "--whole"),
    };
    let filters: Vec<&String> = args.windows(2).filter(|w| w[0] == "--case").map(|w| &w[1]).collect();
    let runs_wanted: Option<usize> = flag("--runs").map(|n| n.parse().expect("--runs takes a number"));
    let out = flag("--out").map(std::path::PathBuf::from);
    let scale = if quick { 0.1 } else { 1.0 };
    let runs = runs_wanted.unwrap_or(if quick { 1 } else { 5 });
    if let Some(path) = flag("--scenario") {
        // Any scenario file (JSON), measured as a case (benchmarks/scaling.py).
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let s = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        println!("{}", measure("scenario", &path, &s, runs, runs_wanted.is_some(), mode));
        return;
    }
    if let Some(id) = flag("--child") {
        // The memory figures, each in a process of its own: what the allocator kept of
        // earlier work would blur a resident-memory difference.
        match id.as_str() {
            "memory-connection" => return println!("{}", memory_per_idle_connection()),
            "memory-packet" => return println!("{}", memory_per_queued_packet()),
            _ => {}
        }
        let c = CASES.iter().find(|c| c.id == id).expect("--child takes a case id");
        let row = measure(c.id, c.label, &(c.build)(scale), runs, runs_wanted.is_some(), mode);
        println!("{row}");
        return;
    }
    if args.iter().any(|a| a == "--parallel") {
        return parallel_table(quick, runs_wanted, out.as_deref());
    }
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| !memory_only && (filters.is_empty() || filters.iter().any(|f| c.id.contains(f.as_str()))))
        .collect();
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir.join("scenarios")).expect("--out directory can be written");
        for c in &cases {
            let text = serde_json::to_string(&(c.build)(scale)).expect("scenario serialises");
            std::fs::write(dir.join("scenarios").join(format!("{}.json", c.id)), text).expect("scenario written");
        }
    }

    println!("| case | simulated s | events | packet-hops | flows done | best wall s | median wall s | ns/event | data packets/s | packet-hops/s | peak RSS MB |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for c in &cases {
        let row = measure_in_child(c.id, quick, runs_wanted, mode);
        let f = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
        println!(
            "| {} | {:.3} | {} | {} | {} | {:.3} | {:.3} | {:.0} | {:.2} M | {:.2} M | {:.1} |",
            c.id,
            f("simulated_s"),
            row["events"],
            row["packet_hops"],
            row["flows_completed"],
            f("best_wall_s"),
            f("median_wall_s"),
            f("ns_per_event"),
            f("data_packets_per_s") / 1e6,
            f("packet_hops_per_s") / 1e6,
            f("peak_rss_bytes") / 1e6
        );
        rows.push(row);
    }
    let memory = (filters.is_empty() || memory_only).then(|| {
        let per_connection = memory_in_child("memory-connection");
        let per_packet = memory_in_child("memory-packet");
        println!("\nmemory per idle connection (10,000 built, both ends): {per_connection:.0} B");
        println!("memory per queued packet (1,000,000 held by one port): {per_packet:.0} B");
        json!({"per_idle_connection_bytes": per_connection, "per_queued_packet_bytes": per_packet})
    });
    if let Some(dir) = &out {
        let doc = json!({"quick": quick, "cases": rows, "memory": memory});
        let path = dir.join("engine.json");
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("serialises")).expect("engine.json written");
        eprintln!("wrote {}", path.display());
    }
}
