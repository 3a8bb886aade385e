//! Runs a scenario TOML file and prints a short summary (a development aid).
use std::env;

fn main() {
    let path = env::args().nth(1).expect("usage: quick SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    let s = dcsim::Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t0 = std::time::Instant::now();
    let r = dcsim::Simulation::new(&s).unwrap().run();
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "events {} hops {} wall {:.3}s  ({:.1} M hops/s)",
        r.events,
        r.packet_hops,
        wall,
        r.packet_hops as f64 / wall / 1e6
    );
    for f in &r.flows {
        println!(
            "flow {} {}->{} {} goodput {:.1} Mbps rtx {} to {} fr {} ecn {} alpha {:.3} cwnd {:.0} srtt {:.1}us",
            f.id,
            f.src,
            f.dst,
            f.cc,
            f.goodput_bps / 1e6,
            f.retransmits,
            f.timeouts,
            f.fast_retransmits,
            f.ecn_reductions,
            f.final_alpha,
            f.final_cwnd_bytes,
            f.srtt_s * 1e6
        );
    }
    for p in r.ports.iter().filter(|p| p.sent_packets > 0) {
        println!(
            "port {} sent {} drops {}+{} marks {} max {} pk mean {:.1} pk util {:.3}",
            p.name, p.sent_packets, p.drops_buffer, p.drops_aqm, p.marks, p.max_packets, p.mean_packets, p.utilization
        );
    }
    for c in r.classes.iter().filter(|c| c.arrived_packets > 0) {
        println!(
            "  class {} of {}: sent {} pk {} B, drops {}+{}, marks {}, max {} pk",
            c.class, r.ports[c.port as usize].name, c.sent_packets, c.sent_bytes, c.drops_buffer, c.drops_aqm, c.marks, c.max_packets
        );
    }
    if !r.queries.is_empty() {
        let done: Vec<_> = r.queries.iter().filter(|q| q.qct_s.is_finite()).collect();
        let mean = done.iter().map(|q| q.qct_s).sum::<f64>() / done.len().max(1) as f64;
        let with_to = done.iter().filter(|q| q.timeouts > 0).count();
        println!(
            "queries {} done {} mean qct {:.2} ms, with timeouts {:.1}%",
            r.queries.len(),
            done.len(),
            mean * 1e3,
            100.0 * with_to as f64 / done.len().max(1) as f64
        );
    }
    println!("{:?}", r.conservation);
}
