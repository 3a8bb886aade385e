//! Writes `Results::to_json()` of a fixed set of scenarios into a directory, one file per
//! scenario: the example scenarios and the test suites' networks (bulk flows, persistent and
//! one-shot queries, with and without ICTCP, losses, traces, samples). Two engine builds that
//! should behave alike must produce byte-identical files (`cmp -r DIR_A DIR_B`).
//! Run with `cargo run --release -p dcsim --example results_dump [--threads N] [--whole]
//! OUT_DIR [SCENARIO.json ...]` (`--threads`: cut networks on N threads; `--whole`: cut
//! networks run whole):
//! scenario files given after the directory (such as the bench's, `bench --out DIR`) are
//! dumped too, under their file names.

use std::path::Path;

use dcsim::{Scenario, Simulation};

/// A 1 Gbps star of `hosts` hosts: `sim` and `host` are those tables' fields (hosts default
/// to no jitter), `body` the rest.
fn net(hosts: u32, sim: &str, host: &str, body: &str) -> String {
    let host = if host.is_empty() {
        "tx_jitter_us = 0.0\nclock_ppm = 0.0"
    } else {
        host
    };
    format!("[sim]\n{sim}\n[topology]\nkind = \"star\"\nhosts = {hosts}\n[host]\n{host}\n{body}\n")
}

fn star(hosts: u32, duration_s: f64, body: &str) -> String {
    net(hosts, &format!("duration_s = {duration_s}"), "", body)
}

/// A query workload of host 0 asking hosts 1..=servers.
fn queries(servers: u32, response_bytes: u64, rounds: u32, extra: &str) -> String {
    let list: Vec<String> = (1..=servers).map(|h| h.to_string()).collect();
    format!(
        "[[queries]]\nclient = 0\nservers = [{}]\nresponse_bytes = {response_bytes}\nrounds = {rounds}\n{extra}\n",
        list.join(", ")
    )
}

const DROP_TAIL_85K: &str = "[switch.buffer]\nkind = \"per_port\"\nlimit_bytes = 85000\n[switch.aqm]\nkind = \"drop_tail\"\n";
const SMALL_PORT: &str = "[switch.buffer]\nkind = \"per_port\"\nlimit_packets = 8\n[switch.aqm]\nkind = \"drop_tail\"\n";
const NEWRENO_10MS: &str = "[tcp]\ncc = \"newreno\"\nrto_min_ms = 10.0\n";
const DCTCP_K20: &str = "[switch.aqm]\nkind = \"threshold\"\nk_packets = 20\n[tcp]\ncc = \"dctcp\"\nrto_min_ms = 10.0\n";

fn scenarios() -> Vec<(String, String)> {
    let mut s: Vec<(String, String)> = Vec::new();
    for file in ["dctcp-2flows", "tcp-2flows"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/examples/{file}.toml"));
        s.push((file.into(), std::fs::read_to_string(path).expect("example scenario")));
    }
    let mut add = |name: &str, toml: String| s.push((name.into(), toml));
    // Bulk flows: sized (they finish), stopped, unlimited; warm-up, flow samples.
    add(
        "bulk-sized",
        net(
            4,
            "duration_s = 0.05\nwarmup_s = 0.01",
            "",
            &format!(
                "{DCTCP_K20}[measure]\nflow_sample_us = 500.0\n\
                 [[flows]]\nsrc = 1\ndst = 0\nbytes = 300000\n\
                 [[flows]]\nsrc = 2\ndst = 0\nbytes = 1000000\nstart_s = 0.002\n\
                 [[flows]]\nsrc = 3\ndst = 0\nstop_s = 0.02\n\
                 [[flows]]\nsrc = 0\ndst = 3\nbytes = 5000\nstart_s = 0.01\n"
            ),
        ),
    );
    add(
        "bulk-lossy",
        star(
            4,
            0.1,
            &format!(
                "{SMALL_PORT}{NEWRENO_10MS}[measure]\nflow_sample_us = 1000.0\n\
                 [[flows]]\nsrc = 1\ndst = 0\nbytes = 200000\n\
                 [[flows]]\nsrc = 2\ndst = 0\nbytes = 200000\n\
                 [[flows]]\nsrc = 3\ndst = 0\nbytes = 200000\nstart_jitter_us = 50.0\n"
            ),
        ),
    );
    // Query workloads: persistent and one-shot, barrier and Poisson, with losses.
    for persistent in [true, false] {
        let p = format!("persistent = {persistent}\nstart_s = 0.001\n");
        add(
            &format!("query-small-{persistent}"),
            star(5, 0.05, &format!("[tcp]\ncc = \"newreno\"\n{}", queries(4, 2000, 10, &p))),
        );
        add(
            &format!("query-incast-lossy-{persistent}"),
            star(9, 0.3, &format!("{SMALL_PORT}{NEWRENO_10MS}{}", queries(8, 30000, 40, &p))),
        );
        add(
            &format!("query-dctcp-jitter-{persistent}"),
            net(
                11,
                "duration_s = 0.1",
                "tx_jitter_us = 1.0",
                &format!(
                    "[switch.buffer]\nkind = \"preset\"\nname = \"triumph\"\n{DCTCP_K20}{}",
                    queries(10, 20000, 20, &format!("{p}response_jitter_us = 500.0\n"))
                ),
            ),
        );
        add(
            &format!("query-poisson-{persistent}"),
            star(
                3,
                0.3,
                &format!(
                    "{DCTCP_K20}{}",
                    queries(
                        2,
                        2000,
                        200,
                        &format!("{p}arrival = {{ kind = \"poisson\", mean_interval_ms = 1.0 }}\n")
                    )
                ),
            ),
        );
        add(
            &format!("query-ictcp-{persistent}"),
            star(
                17,
                0.3,
                &format!(
                    "{DROP_TAIL_85K}{NEWRENO_10MS}[ictcp]\nhosts = [0]\n[measure]\nflow_sample_us = 2000.0\n{}",
                    queries(16, 65536, 20, &p)
                ),
            ),
        );
        add(
            &format!("query-ictcp-poisson-{persistent}"),
            star(
                9,
                0.2,
                &format!(
                    "{DROP_TAIL_85K}{NEWRENO_10MS}[ictcp]\nhosts = [0]\n{}",
                    queries(
                        8,
                        20000,
                        200,
                        &format!("{p}arrival = {{ kind = \"poisson\", mean_interval_ms = 0.5 }}\n")
                    )
                ),
            ),
        );
        add(
            &format!("query-host-limits-{persistent}"),
            net(
                7,
                "duration_s = 0.1",
                "nic_queue_packets = 8\nqueue_bytes_per_conn = 6000\nrx_interrupt_interval_us = 20.0\noffload_burst_segments = 4",
                &format!("{NEWRENO_10MS}{}", queries(6, 30000, 30, &p)),
            ),
        );
    }
    add(
        "query-stop-when-done",
        net(
            5,
            "duration_s = 1.0\nstop_when_queries_done = true",
            "",
            &format!("[tcp]\ncc = \"newreno\"\n{}", queries(4, 20000, 5, "persistent = false\n")),
        ),
    );
    add(
        "ictcp-two-flows",
        star(
            3,
            0.3,
            &format!(
                "{DROP_TAIL_85K}{NEWRENO_10MS}[ictcp]\nhosts = [0]\n[measure]\nflow_sample_us = 1000.0\n\
                 [[flows]]\nsrc = 1\ndst = 0\n[[flows]]\nsrc = 2\ndst = 0\nstart_s = 0.05\n\
                 [[flows]]\nsrc = 2\ndst = 0\nbytes = 100000\nstart_s = 0.1\n"
            ),
        ),
    );
    add(
        "traced",
        star(
            4,
            0.02,
            &format!(
                "{SMALL_PORT}{NEWRENO_10MS}[measure]\ntrace_ports = [\"s0->h0\"]\ntrace_flows = [0]\n\
                 [[flows]]\nsrc = 1\ndst = 0\nbytes = 100000\n{}",
                queries(3, 10000, 5, "start_s = 0.001\n")
            ),
        ),
    );
    s
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--threads N`: cut networks on N threads (their results must not change); `--whole`:
    // cut networks run whole, as before the parallel engine.
    let threads = args.iter().position(|a| a == "--threads").map(|i| {
        let n = args.remove(i + 1).parse::<usize>().expect("--threads takes a number");
        args.remove(i);
        n
    });
    let whole = args.iter().position(|a| a == "--whole").map(|i| args.remove(i)).is_some();
    let dir = args
        .first()
        .cloned()
        .expect("usage: results_dump [--threads N] [--whole] OUT_DIR [SCENARIO.json ...]");
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let files = args.into_iter().skip(1).map(|path| {
        let name = Path::new(&path).file_stem().expect("a file name").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        (name, Scenario::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}")))
    });
    let built = scenarios().into_iter().map(|(name, toml)| {
        let s = Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{name}: {e}\n{toml}"));
        (name.to_string(), s)
    });
    for (name, s) in built.chain(files) {
        let mut sim = Simulation::new(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
        if whole {
            sim.keep_whole();
        }
        sim.set_threads(threads.unwrap_or(1));
        let r = sim.run();
        let path = Path::new(&dir).join(format!("{name}.json"));
        std::fs::write(&path, r.to_json()).expect("write the results");
        println!("{name}: {} events, {} flows, {} queries", r.events, r.flows.len(), r.queries.len());
    }
}
