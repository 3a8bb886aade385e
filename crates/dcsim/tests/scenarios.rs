//! Small end-to-end scenarios through the public API (`Scenario::from_toml` →
//! `Simulation::run` → `Results`), each checked against numbers derived by hand from the
//! link parameters. Each runs well under a second in release mode.

use dcsim::results::PortStats;
use dcsim::{Results, Scenario, Simulation};

mod common;
use common::DCTCP_TWO_FLOWS;

fn run(toml: &str) -> Results {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}"));
    Simulation::new(&s).expect("scenario builds").run()
}

fn port<'a>(r: &'a Results, name: &str) -> &'a PortStats {
    r.ports.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no port {name}"))
}

/// Time-weighted mean of the occupancy distribution, packets.
fn hist_mean(h: &[f64]) -> f64 {
    let total: f64 = h.iter().sum();
    h.iter().enumerate().map(|(n, t)| n as f64 * t).sum::<f64>() / total
}

/// Smallest n such that the queue held at most n packets for at least fraction q of the time.
fn hist_quantile(h: &[f64], q: f64) -> usize {
    let total: f64 = h.iter().sum();
    let mut acc = 0.0;
    for (n, t) in h.iter().enumerate() {
        acc += t;
        if acc >= q * total {
            return n;
        }
    }
    h.len() - 1
}

/// Goodput ceiling of a 1 Gbps link with 1460-B segments in 1500-B packets plus 38 B of
/// Ethernet framing: 1e9 · 1460/1538 = 949.28 Mbps (the DCTCP paper's "0.95 Gbps").
const GOODPUT_1G: f64 = 1e9 * 1460.0 / 1538.0;

#[test]
fn dctcp_two_flows_full_throughput_queue_near_k() {
    let r = run(DCTCP_TWO_FLOWS);
    let (k, n) = (20.0, 2.0);
    // Throughput. K = 20 ≫ C·RTT/7 ≈ 10/7 packets (eq. 13; C·RTT ≈ 125 µs / 12.3 µs per
    // packet ≈ 10 packets), so the queue never drains and s0->h0 stays busy: goodput is the
    // 949.28 Mbps ceiling. The only error is at the window edges: at most the ≈ K + N + C·RTT
    // ≈ 32 packets in flight (47 KB ≈ 0.19 ms of line time over a 0.2 s window ≈ 0.1%), so
    // ±1% is a generous margin that still catches one lost RTO_min or a 1% framing error.
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(
        (total - GOODPUT_1G).abs() <= 0.01 * GOODPUT_1G,
        "total goodput {:.2} Mbps, expected {:.2} ± 1%",
        total / 1e6,
        GOODPUT_1G / 1e6
    );
    // Two identical flows share the link (DCTCP converges to fair share): each within 20% of
    // half.
    for f in &r.flows {
        assert!(
            (f.goodput_bps - GOODPUT_1G / 2.0).abs() <= 0.2 * GOODPUT_1G / 2.0,
            "flow {} goodput {:.1} Mbps",
            f.id,
            f.goodput_bps / 1e6
        );
        assert_eq!(f.timeouts, 0, "flow {}", f.id);
        assert_eq!(f.retransmits, 0, "flow {}", f.id);
        assert!(f.ecn_reductions > 0, "flow {} never reacted to ECN", f.id);
        assert!(f.final_alpha > 0.0 && f.final_alpha < 1.0, "alpha {}", f.final_alpha);
    }
    let q = port(&r, "s0->h0");
    assert!(q.utilization > 0.99, "bottleneck utilisation {}", q.utilization);
    assert!(q.marks > 0);
    // Queue. §3.3: Q_max = K + N = 22, amplitude A ≈ ½√(2N(C·RTT + K)) ≈ ½√(4·30) ≈ 5.5, so
    // the queue swings between ≈ 16.5 and 22 and its mean sits close to K. Band K ± (N + 5).
    let mean = hist_mean(&q.occupancy_time_s);
    assert!((mean - k).abs() <= n + 5.0, "mean queue {mean:.2} packets, K = {k}");
    assert!((mean - q.mean_packets).abs() < 1e-6, "histogram mean vs reported mean_packets");
    let p95 = hist_quantile(&q.occupancy_time_s, 0.95);
    assert!(p95 as f64 <= k + n + 10.0, "p95 queue {p95} packets");
    // Not drained either: the queue is above K/2 for 95% of the time.
    let p05 = hist_quantile(&q.occupancy_time_s, 0.05);
    assert!(p05 as f64 >= k / 2.0, "p5 queue {p05} packets");
    // The histogram covers the measurement window exactly (0.3 − 0.1 s).
    let covered: f64 = q.occupancy_time_s.iter().sum();
    assert!((covered - 0.2).abs() < 1e-9, "histogram covers {covered} s");
    for p in &r.ports {
        assert_eq!(p.drops_buffer + p.drops_aqm, 0, "drops at {}", p.name);
    }
}

#[test]
fn newreno_two_flows_fill_a_100_packet_drop_tail_buffer() {
    // Two NewReno flows into h0 over drop-tail with 100 packets per port. Two senders at
    // 1 Gbps into one 1 Gbps port: slow start overshoots C·RTT + 100 packets within a few
    // RTTs, so the queue hits the limit exactly (a 101st packet is never admitted) and packets
    // are dropped at s0->h0 — and nowhere else: the other switch ports carry 40-B ACKs at most
    // one per data packet. RTO_min = 10 ms so that losses are repaired within the 0.2 s run.
    let r = run(r#"
        [sim]
        duration_s = 0.2
        warmup_s = 0.05
        [topology]
        kind = "star"
        hosts = 3
        [switch.buffer]
        kind = "per_port"
        limit_packets = 100
        [switch.aqm]
        kind = "drop_tail"
        [tcp]
        cc = "newreno"
        rto_min_ms = 10.0
        [[flows]]
        src = 1
        dst = 0
        [[flows]]
        src = 2
        dst = 0
    "#);
    let q = port(&r, "s0->h0");
    assert_eq!(q.max_packets, 100, "the queue reaches but never exceeds the limit");
    assert!(q.drops_buffer > 0, "no buffer drops");
    assert_eq!(q.drops_aqm, 0);
    assert_eq!(q.marks, 0, "drop-tail never marks");
    assert_eq!(q.max_bytes, 100 * 1500, "100 full-size packets");
    for p in r.ports.iter().filter(|p| p.is_switch && p.name != "s0->h0") {
        assert_eq!(p.drops_buffer + p.drops_aqm, 0, "drops at {}", p.name);
    }
    // Every dropped data packet must eventually be resent (by fast retransmit or timeout).
    let rtx: u64 = r.flows.iter().map(|f| f.retransmits).sum();
    assert!(rtx > 0, "drops must cause retransmissions");
    assert!(r.flows.iter().all(|f| f.ecn_reductions == 0 && f.ece_acks == 0));
    // A 100-packet buffer is ≈ 10× C·RTT, so s0->h0 never idles after the first overflow.
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(total > 0.98 * GOODPUT_1G, "total goodput {:.1} Mbps", total / 1e6);
    assert!(q.utilization > 0.99, "utilisation {}", q.utilization);
    // Drop-tail TCP keeps the queue far above DCTCP's K = 20.
    assert!(q.mean_packets > 40.0, "mean queue {}", q.mean_packets);
}

const HANDSHAKE_SCENARIO: &str = r#"
    [sim]
    duration_s = 0.01
    [topology]
    kind = "star"
    hosts = 4
    host_links = [
        { rate_gbps = 1.0, delay_us = 10.0 },
        { rate_gbps = 1.0, delay_us = 25.0 },
        { rate_gbps = 10.0, delay_us = 5.0 },
        { rate_gbps = 0.1, delay_us = 40.0 },
    ]
    [[flows]]
    src = 1
    dst = 0
    start_s = 0.0
    bytes = 20000
    [[flows]]
    src = 2
    dst = 0
    start_s = 0.001
    bytes = 20000
    [[flows]]
    src = 3
    dst = 1
    start_s = 0.002
    bytes = 20000
    [[flows]]
    src = 0
    dst = 2
    start_s = 0.003
    bytes = 20000
"#;

/// Hand-computed handshake times of `HANDSHAKE_SCENARIO`, seconds.
///
/// A SYN and a SYN-ACK are 0 + 40 B of headers + 38 B framing = 78 B on the wire: 624 ns at
/// 1 Gbps, 62.4 ns at 10 Gbps, 6.24 µs at 0.1 Gbps. A flow a → b is established at the
/// opener when the SYN has crossed a's link and b's link and the SYN-ACK b's and a's:
///   RTT_hs = 2·(tx_a + d_a) + 2·(tx_b + d_b), with tx + d per host:
///   h0: 1 Gbps, 10 µs → 10.624 µs;   h1: 1 Gbps, 25 µs → 25.624 µs;
///   h2: 10 Gbps, 5 µs → 5.0624 µs;   h3: 0.1 Gbps, 40 µs → 46.24 µs.
/// Flows start 1 ms apart and are small (20 KB, done within ≈ 0.5 ms), so every handshake
/// meets empty queues.
fn handshake_expectations() -> [f64; 4] {
    let leg = [10.624e-6, 25.624e-6, 5.0624e-6, 46.24e-6];
    [
        2.0 * (leg[1] + leg[0]), // flow 1→0: 72.496 µs
        2.0 * (leg[2] + leg[0]), // flow 2→0: 31.3728 µs
        2.0 * (leg[3] + leg[1]), // flow 3→1: 143.728 µs
        2.0 * (leg[0] + leg[2]), // flow 0→2: 31.3728 µs
    ]
}

#[test]
fn handshake_completes_one_rtt_after_start() {
    // Perfectly regular hosts (no transmit jitter): the handshake takes exactly RTT_hs.
    let toml = HANDSHAKE_SCENARIO.replacen("[[flows]]", "[host]\ntx_jitter_us = 0.0\nclock_ppm = 0.0\n[[flows]]", 1);
    let r = run(&toml);
    assert_eq!(r.flows.len(), 4);
    for (f, want) in r.flows.iter().zip(handshake_expectations()) {
        assert!((f.start_s - f.id as f64 * 0.001).abs() < 1e-15, "flow {} start", f.id);
        assert!(f.established_s > f.start_s, "flow {}", f.id);
        let hs = f.established_s - f.start_s;
        assert!(
            (hs - want).abs() < 1e-11,
            "flow {}: handshake took {:.6} µs, expected {:.6} µs",
            f.id,
            hs * 1e6,
            want * 1e6
        );
        assert_eq!(f.syn_retries, 0);
        // Data follows the handshake: all 20 KB arrive, after it.
        assert_eq!(f.bytes_delivered, 20_000, "flow {}", f.id);
        assert!(f.completion_s > f.established_s, "flow {}", f.id);
    }
}

#[test]
fn handshake_with_host_jitter_is_delayed_by_at_most_two_jitters() {
    // Default hosts: each packet waits up to tx_jitter_us before its NIC starts it. The SYN
    // waits once at the opener, the SYN-ACK once at the listener:
    //   RTT_hs ≤ established − start ≤ RTT_hs + 2·tx_jitter_us.
    let jitter = 3.0e-6;
    let toml = HANDSHAKE_SCENARIO.replacen("[[flows]]", "[host]\ntx_jitter_us = 3.0\nclock_ppm = 0.0\n[[flows]]", 1);
    let r = run(&toml);
    let mut delayed = 0;
    for (f, want) in r.flows.iter().zip(handshake_expectations()) {
        let hs = f.established_s - f.start_s;
        assert!(hs >= want - 1e-11, "flow {}: {:.6} µs < {:.6} µs", f.id, hs * 1e6, want * 1e6);
        assert!(hs <= want + 2.0 * jitter + 1e-11, "flow {}: {:.6} µs", f.id, hs * 1e6);
        if hs > want + 1e-9 {
            delayed += 1;
        }
        assert_eq!(f.bytes_delivered, 20_000);
    }
    // Continuous uniform jitter: an exact zero delay for all four handshakes is impossible.
    assert!(delayed > 0, "jitter had no effect on any handshake");
}

#[test]
fn one_megabyte_on_an_idle_gigabit_path() {
    // 1 MB = 10^6 B (DCTCP paper §4.2.1: "it takes 8ms to deliver 1MB of data over a 1Gbps
    // link", without framing). h0 → h1 through s0, 1 Gbps, 25 µs per link, IW = 2, m = 2.
    //
    // Segments: 684 × 1460 B + 1 × 1360 B. Wire bytes: 684 × 1538 + (1360 + 78) = 1_053_430,
    // i.e. 8427.44 µs at 1 Gbps (8 ms of payload, plus headers and framing).
    //
    // Lower bound (pipe always full once data flows): start + handshake RTT
    // (4 × (0.624 + 25) µs = 102.496 µs) + the first packet's serialisation on h0's NIC
    // (12.304 µs) and propagation (25 µs) + s0->h1 serialising every byte (8427.44 µs) + the
    // last packet's propagation (25 µs) = 8592.24 µs.
    //
    // Slow start: the pipe holds C·RTT = (2·(12.304 + 25) + 2·(0.624 + 25)) µs / 12.304 µs
    // ≈ 10.2 data packets. cwnd doubles per RTT (appropriate byte counting, L = 2) from
    // 2: 2, 4, 8 segments leave the bottleneck partly idle, 16 fills it. Each of those three
    // rounds idles s0->h1 for less than one RTT_data = 125.856 µs, so
    // completion < 8592.24 + 3 × 125.856 = 8969.81 µs.
    let r = run(r#"
        [sim]
        duration_s = 0.05
        [topology]
        kind = "star"
        hosts = 2
        link = { rate_gbps = 1.0, delay_us = 25.0 }
        [host]
        tx_jitter_us = 0.0
        [[flows]]
        src = 0
        dst = 1
        bytes = 1000000
    "#);
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 1_000_000);
    assert_eq!(f.data_packets_sent, 685, "684 full segments + 1 of 1360 B, no retransmission");
    assert_eq!(f.retransmits + f.timeouts, 0);
    let t = (f.completion_s - f.start_s) * 1e6;
    assert!(t >= 8592.24 - 1e-3, "completed in {t:.3} µs, below the physical minimum");
    assert!(t < 8969.81, "completed in {t:.3} µs: slow start cost more than 3 RTTs");
    // Towards h1 the switch carried the SYN, the handshake ACK and the 685 data packets
    // (the receiver's ACKs go the other way): 687 packets of 40 B headers + 10^6 B payload.
    let down = port(&r, "s0->h1");
    assert_eq!(down.sent_packets, 687);
    assert_eq!(down.sent_bytes, 1_000_000 + 687 * 40);
    assert_eq!(down.drops_buffer + down.drops_aqm, 0);
}

#[test]
fn a_full_nic_queue_holds_the_sender_back_instead_of_dropping() {
    // The NIC is the bottleneck. Host 0's NIC (1 Gbps) holds 4 packets; its flow's
    // window (no loss anywhere: the switch port is as fast as the NIC) grows far beyond 4
    // packets. A host that dropped its own segments would lose most of every window; with
    // backpressure the sender waits for room: no packet is dropped anywhere, nothing
    // is retransmitted, and the NIC stays busy (goodput at the 949 Mbps ceiling).
    let r = run(r#"
        [sim]
        duration_s = 0.1
        warmup_s = 0.02
        [topology]
        kind = "star"
        hosts = 2
        link = { rate_gbps = 1.0, delay_us = 25.0 }
        [host]
        nic_queue_packets = 4
        [[flows]]
        src = 0
        dst = 1
    "#);
    let nic = port(&r, "h0->s0");
    assert_eq!(nic.drops_buffer, 0, "the host dropped its own packets");
    assert!(
        nic.max_packets <= 4 && nic.max_packets >= 3,
        "NIC queue peaked at {}",
        nic.max_packets
    );
    let f = &r.flows[0];
    assert_eq!(f.retransmits + f.timeouts, 0);
    assert!(
        f.final_cwnd_bytes > 20.0 * 1460.0,
        "cwnd {} never outgrew the NIC queue",
        f.final_cwnd_bytes
    );
    // ... but not without bound: a sender held back by its host is not cwnd-limited, so cwnd
    // grows only while validated (RFC 7661, in flight ≥ cwnd/2). In flight: ≤ 4 packets in the
    // NIC + one RTT of the wire (≈ 126 µs / 12.304 µs ≈ 10.2 packets) + the ≤ 2 segments a
    // delayed ACK covers ≈ 16.2, so cwnd ≤ 2 × 17 segments. (Counting NIC-blocked sends as
    // cwnd-limited once let cwnd grow with every ACK, to tens of MB.)
    assert!(f.final_cwnd_bytes <= 2.0 * 17.0 * 1460.0, "cwnd {} ran away", f.final_cwnd_bytes);
    assert!(f.goodput_bps > 0.97 * GOODPUT_1G, "goodput {} with a blocked sender", f.goodput_bps);
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
    assert_eq!(c.dropped, 0);
}

/// Host 0 sends to hosts 1 and 2 (its NIC is their shared bottleneck) while host 1 sends to
/// host 0, whose ACKs leave through host 0's NIC behind that data.
fn nic_shared_by_data_and_acks(queue_bytes_per_conn: u64) -> Results {
    run(&format!(
        r#"
        [sim]
        duration_s = 0.2
        warmup_s = 0.05
        [topology]
        kind = "star"
        hosts = 3
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [switch]
        buffer = {{ kind = "per_port", limit_packets = 50 }}
        [host]
        queue_bytes_per_conn = {queue_bytes_per_conn}
        [[flows]]
        src = 0
        dst = 1
        [[flows]]
        src = 0
        dst = 2
        [[flows]]
        src = 1
        dst = 0
    "#
    ))
}

#[test]
fn the_per_connection_host_queue_limit_keeps_acks_out_of_a_standing_queue() {
    // Each of host 0's two senders may have at most 131,072 B waiting in the NIC, and adds a
    // packet while under it: 2 × (131,072 + 1,500) = 265,144 B of data, plus host 0's ACKs
    // for flow 2 (≤ one per segment during loss recovery, ≤ 78 B each, about 2.3 ms of them:
    // < 20 KB), so at most 285,144 B. Host 0's ACKs for flow 2 wait behind at most that,
    // 2.28 ms at 1 Gbps, so flow 2's smoothed RTT stays under base (≈ 0.14 ms) + 2.28 ms + its
    // own queue at s0->h0 (at most 50 packets: 0.62 ms) = 3.04 ms.
    let r = nic_shared_by_data_and_acks(131_072);
    let nic = port(&r, "h0->s0");
    assert!(nic.max_bytes <= 285_144, "NIC peaked at {} B", nic.max_bytes);
    assert_eq!(nic.drops_buffer, 0);
    let f2 = &r.flows[2];
    assert!(f2.srtt_s < 3.04e-3, "flow 2 srtt {} s", f2.srtt_s);
    assert!(f2.goodput_bps > 0.9 * GOODPUT_1G, "flow 2 goodput {}", f2.goodput_bps);
    let total01: f64 = r.flows[..2].iter().map(|f| f.goodput_bps).sum();
    assert!(total01 > 0.97 * GOODPUT_1G, "host 0's flows {total01}");
    // Without the limit the two senders park their windows in the 1000-packet NIC queue and
    // flow 2's ACKs wait behind it.
    let r = nic_shared_by_data_and_acks(0);
    let nic = port(&r, "h0->s0");
    assert!(nic.max_bytes > 1_000_000, "NIC peaked at only {} B", nic.max_bytes);
    assert!(r.flows[2].srtt_s > 5e-3, "flow 2 srtt {} s", r.flows[2].srtt_s);
}

#[test]
fn each_host_nic_clock_is_off_by_its_own_seeded_ppm() {
    // IEEE 802.3: a NIC's clock is within ±100 ppm of nominal. Host NIC ports run at
    // 1 Gbps × (1 + ε), ε drawn per host from the seed, |ε| ≤ 100 ppm; switch ports stay
    // nominal; clock_ppm = 0 makes every clock exact.
    let rates = |seed: u64, ppm: f64| -> (Vec<f64>, Vec<f64>) {
        let toml = format!("[sim]\nseed = {seed}\nduration_s = 0.001\n[topology]\nkind = \"star\"\nhosts = 8\n[host]\nclock_ppm = {ppm}\n");
        let r = run(&toml);
        let host = r.ports.iter().filter(|p| !p.is_switch).map(|p| p.rate_bps).collect();
        let switch = r.ports.iter().filter(|p| p.is_switch).map(|p| p.rate_bps).collect();
        (host, switch)
    };
    let (h, s) = rates(1, 100.0);
    assert_eq!(h.len(), 8);
    assert!(s.iter().all(|&r| r == 1e9), "{s:?}");
    assert!(h.iter().all(|&r| (r - 1e9).abs() <= 1e5), "{h:?}");
    let mut distinct = h.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 8, "each host its own clock: {h:?}");
    assert!(
        h.iter().any(|&r| r > 1e9) && h.iter().any(|&r| r < 1e9),
        "both signs among 8: {h:?}"
    );
    assert_eq!(rates(1, 100.0).0, h, "the seed fixes the offsets");
    assert_ne!(rates(2, 100.0).0, h, "another seed, other offsets");
    assert!(rates(1, 0.0).0.iter().all(|&r| r == 1e9));
}

/// One flow h0 → h1 through s0 (1 Gbps, 25 µs per link, exact clocks, no jitter) whose
/// receive buffer holds 2 segments, with the given receive interrupt interval.
fn two_segment_window(rx_interrupt_interval_us: f64, rx_processing_us: f64) -> Results {
    run(&format!(
        r#"
        [sim]
        duration_s = 0.21
        warmup_s = 0.01
        [topology]
        kind = "star"
        hosts = 2
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [host]
        tx_jitter_us = 0.0
        clock_ppm = 0.0
        rx_interrupt_interval_us = {rx_interrupt_interval_us}
        rx_processing_us = {rx_processing_us}
        [[flows]]
        src = 0
        dst = 1
        rcv_buffer_bytes = 2920
    "#
    ))
}

#[test]
fn receive_interrupt_moderation_and_processing_hold_the_second_segment_of_a_window() {
    // Window 2 segments: the sender sends both back to back; the receiver ACKs the pair when
    // the second arrives (it fills the window); the ACK releases the next pair.
    // Data: 12.304 µs NIC + 25 + 12.304 µs switch + 25 = 74.608 µs to the first arrival, the
    // second 12.304 µs later; ACK back: 2 × (0.624 + 25) = 51.248 µs.
    //   Without moderation: cycle = 74.608 + 12.304 + 51.248 = 138.16 µs.
    //   With a 50 µs interval: the first segment finds the receiver's NIC quiet for a whole
    //   cycle and goes up at once; the second, 12.304 µs later, waits for the interrupt 50 µs
    //   after the first; the lone ACK finds the sender's NIC quiet: cycle = 74.608 + 50 +
    //   51.248 = 175.856 µs.
    // Goodput = 2 × 1460 × 8 bit per cycle: 169.08 vs 132.83 Mb/s.
    //   With 5 µs of receive processing per packet on both hosts (no moderation): segment 1 is
    //   done at 79.608, segment 2 (arrived 86.912) at 91.912, and the ACK 5 µs after its
    //   arrival at the sender: cycle = 74.608 + 12.304 + 5 + 51.248 + 5 = 148.16 µs.
    //   With 15 µs, more than the 12.304 µs between the segments, segment 2 waits for
    //   segment 1 (done at 89.608) and is done at 104.608: cycle = 104.608 + 51.248 + 15 =
    //   170.856 µs.
    //   Both, 50 µs and 5 µs: segment 2 goes up at the interrupt at 124.608 and is done at
    //   129.608; the lone ACK goes up at once: cycle = 129.608 + 51.248 + 5 = 185.856 µs.
    for (interval, processing, cycle_us) in [
        (0.0, 0.0, 138.16),
        (50.0, 0.0, 175.856),
        (0.0, 5.0, 148.16),
        (0.0, 15.0, 170.856),
        (50.0, 5.0, 185.856),
    ] {
        let r = two_segment_window(interval, processing);
        let f = &r.flows[0];
        let want = 2.0 * 1460.0 * 8.0 / (cycle_us * 1e-6);
        assert!(
            (f.goodput_bps - want).abs() < 0.002 * want,
            "interval {interval} µs, processing {processing} µs: goodput {:.4} Mb/s, expected {:.4}",
            f.goodput_bps / 1e6,
            want / 1e6
        );
        assert_eq!(f.retransmits + f.timeouts, 0);
        let c = &r.conservation;
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "interval {interval} µs");
    }
}

#[test]
fn an_observed_run_reports_progress_and_can_be_stopped() {
    let s = Scenario::from_toml(DCTCP_TWO_FLOWS).expect("parses");
    let plain = Simulation::new(&s).expect("builds").run();
    // Observed every 1000 events: fractions rise within (0, 1], and the results are the same.
    let mut seen = Vec::new();
    let observed = Simulation::new(&s)
        .expect("builds")
        .run_observed(1000, |done| {
            seen.push(done);
            true
        })
        .expect("not stopped");
    assert_eq!(seen.len() as u64, plain.events / 1000);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]) && seen[0] > 0.0 && *seen.last().unwrap() <= 1.0);
    assert_eq!(observed.to_json(), plain.to_json());
    // Stopped at the third call: no results.
    let mut calls = 0;
    let stopped = Simulation::new(&s).expect("builds").run_observed(1000, |_| {
        calls += 1;
        calls < 3
    });
    assert!(stopped.is_none());
    assert_eq!(calls, 3);
}
