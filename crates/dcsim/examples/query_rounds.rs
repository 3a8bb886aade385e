//! Wall time per query round of a long run of one-shot query connections under ICTCP: a new
//! connection per request, so a run opens `rounds × servers` connections. The time per
//! round should not depend on how many rounds came before. Also printed: the connections
//! still open at the end (live), the most open at once (slots) and ICTCP's table entries.
//! Run with `cargo run --release -p dcsim --example query_rounds [ROUNDS...]` (default 250 2000).

use dcsim::{Scenario, Simulation};

/// 16 servers answer 64 KiB each to host 0, which runs ICTCP, barrier-synchronised.
pub fn scenario(rounds: u32) -> Scenario {
    let toml = format!(
        r#"
[sim]
duration_s = 1000.0
stop_when_queries_done = true
[topology]
kind = "star"
hosts = 17
[switch.buffer]
kind = "per_port"
limit_bytes = 85000
[switch.aqm]
kind = "drop_tail"
[tcp]
cc = "newreno"
rto_min_ms = 10.0
[ictcp]
hosts = [0]
[measure]
queue_sample_us = 0
[[queries]]
client = 0
servers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
response_bytes = 65536
rounds = {rounds}
persistent = false
"#
    );
    Scenario::from_toml(&toml).expect("a valid scenario")
}

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().expect("a number of rounds")).collect();
    let rounds = if args.is_empty() { vec![250, 2000] } else { args };
    println!(
        "{:>7} {:>10} {:>10} {:>12} {:>7} {:>6} {:>6} {:>6}",
        "rounds", "wall ms", "ms/round", "events/round", "flows", "live", "slots", "ictcp"
    );
    for n in rounds {
        let s = scenario(n);
        let t0 = std::time::Instant::now();
        let mut sim = Simulation::new(&s).expect("scenario builds");
        let r = sim.run();
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        assert_eq!(r.queries.len(), n as usize);
        println!(
            "{n:>7} {wall:>10.1} {:>10.3} {:>12.1} {:>7} {:>6} {:>6} {:>6}",
            wall / n as f64,
            r.events as f64 / n as f64,
            r.flows.len(),
            sim.live_connections(),
            sim.connection_slots(),
            sim.ictcp_entries()
        );
    }
}
