//! Queue disciplines end to end: class queues on a star's switch port (strict priority,
//! deficit round robin, classification by flow, ECN capability and packet type), marking at
//! dequeue and the PI AQM. Two senders h1, h2 → h0 at 1 Gbps share the port s0->h0.

use dcsim::results::{ClassStats, FlowStats};
use dcsim::Results;

mod common;
use common::{port, run};

/// Goodput ceiling of a 1 Gbps link: 1460-B segments in 1538-B frames.
const GOODPUT_1G: f64 = 1e9 * 1460.0 / 1538.0;

/// Two long flows h1 → h0 (class 0, `cc0`) and h2 → h0 (class 1, `cc1`), with the given
/// `[switch]` tables.
fn two_flows(cc0: &str, cc1: &str, switch: &str) -> String {
    format!(
        r#"
        [sim]
        seed = 3
        duration_s = 0.4
        warmup_s = 0.1
        [topology]
        kind = "star"
        hosts = 3
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [switch.buffer]
        kind = "per_port"
        limit_packets = 200
        {switch}
        [tcp]
        delayed_ack_segments = 2
        [[flows]]
        src = 1
        dst = 0
        cc = "{cc0}"
        class = 0
        [[flows]]
        src = 2
        dst = 0
        cc = "{cc1}"
        class = 1
"#
    )
}

/// The class queues of port `name`, class 0 first.
fn classes<'a>(r: &'a Results, name: &str) -> Vec<&'a ClassStats> {
    let (i, _) = port(r, name);
    r.classes.iter().filter(|c| c.port == i as u32).collect()
}

fn goodputs(r: &Results) -> Vec<f64> {
    r.flows.iter().map(|f: &FlowStats| f.goodput_bps).collect()
}

#[test]
fn strict_priority_gives_the_link_to_the_higher_class() {
    let r = run(&two_flows(
        "newreno",
        "newreno",
        r#"[switch.classes]
        scheduler = "strict_priority"
        [[switch.classes.queues]]
        limit_packets = 100
        [[switch.classes.queues]]
        limit_packets = 100"#,
    ));
    let g = goodputs(&r);
    // The class-0 queue never empties (100 packets ≫ C·RTT ≈ 8), so class 1 is never served
    // while it holds a packet: class 0 takes the link, class 1 almost nothing.
    assert!(g[0] >= 0.97 * GOODPUT_1G, "class 0: {:.1} Mbps", g[0] / 1e6);
    assert!(g[1] <= 0.02 * GOODPUT_1G, "class 1: {:.1} Mbps", g[1] / 1e6);
    let c = classes(&r, "s0->h0");
    assert_eq!(c.len(), 2);
    assert!(c[0].sent_packets > 20 * c[1].sent_packets.max(1), "{:?}", c);
    // The port's counters are the classes' sums.
    let (_, p) = port(&r, "s0->h0");
    assert_eq!(p.arrived_packets, c[0].arrived_packets + c[1].arrived_packets);
    assert_eq!(p.drops_buffer, c[0].drops_buffer + c[1].drops_buffer);
}

#[test]
fn drr_shares_the_link_in_the_ratio_of_the_weights() {
    let r = run(&two_flows(
        "newreno",
        "newreno",
        r#"[switch.classes]
        scheduler = "drr"
        [[switch.classes.queues]]
        weight = 3
        limit_packets = 100
        [[switch.classes.queues]]
        weight = 1
        limit_packets = 100"#,
    ));
    let g = goodputs(&r);
    // Both queues stay backlogged (each flow's window exceeds its share of C·RTT), so DRR
    // serves 3 quanta of class 0 per quantum of class 1: 3/4 and 1/4 of the link.
    let total = g[0] + g[1];
    assert!(total >= 0.97 * GOODPUT_1G, "total {:.1} Mbps", total / 1e6);
    assert!((g[0] / g[1] - 3.0).abs() < 0.15, "ratio {:.3}", g[0] / g[1]);
    let c = classes(&r, "s0->h0");
    let ratio = c[0].sent_bytes as f64 / c[1].sent_bytes as f64;
    assert!((ratio - 3.0).abs() < 0.15, "bytes ratio {ratio:.3}");
}

#[test]
fn dctcp_and_tcp_segregated_by_ecn_each_get_half_and_dctcp_keeps_its_queue_short() {
    // The fix for TCP and DCTCP in one queue (Judd's "Segregate DCTCP traffic using
    // QoS"): ECT packets to class 0 with DCTCP marking at K = 20, the rest to a drop-tail
    // class 1; equal DRR weights. With SACK and a 10-ms RTO_min, TCP's losses in its full
    // drop-tail queue cost it little time, so each class keeps its half.
    let toml = two_flows(
        "dctcp",
        "newreno",
        r#"[switch.classes]
        classify = { by = "ecn", ect = 0, not_ect = 1 }
        [[switch.classes.queues]]
        limit_packets = 100
        aqm = { kind = "threshold", k_packets = 20 }
        [[switch.classes.queues]]
        limit_packets = 100"#,
    )
    .replace(
        "delayed_ack_segments = 2",
        "delayed_ack_segments = 2\n        sack = true\n        rto_min_ms = 10",
    )
    .replace(
        "duration_s = 0.4\n        warmup_s = 0.1",
        "duration_s = 1.0\n        warmup_s = 0.3",
    );
    let r = run(&toml);
    let g = goodputs(&r);
    for (i, g) in g.iter().enumerate() {
        assert!((g / (GOODPUT_1G / 2.0) - 1.0).abs() < 0.1, "flow {i}: {:.1} Mbps", g / 1e6);
    }
    let c = classes(&r, "s0->h0");
    // DCTCP holds its queue near K; TCP fills its class to the limit and loses packets.
    assert!(c[0].max_packets <= 60 && c[0].marks > 0 && c[0].drops_buffer == 0, "{:?}", c[0]);
    assert!(c[1].max_packets >= 95 && c[1].drops_buffer > 0 && c[1].marks == 0, "{:?}", c[1]);
}

#[test]
fn classification_by_packet_type_puts_pure_acks_and_syns_in_their_class() {
    // Flows h1 → h0 and h0 → h2 make s0->h0 carry data one way and ACKs the other.
    let toml = two_flows(
        "newreno",
        "newreno",
        r#"[switch.classes]
        scheduler = "strict_priority"
        classify = { by = "packet_type", syn = 0, ack = 0, data = 1 }
        [[switch.classes.queues]]
        [[switch.classes.queues]]"#,
    )
    .replace("src = 2\n        dst = 0", "src = 0\n        dst = 2");
    let r = run(&toml);
    let c = classes(&r, "s0->h0");
    // Class 0 holds only 40-B headers (SYN-ACK and the ACKs of h0 → h2); class 1 only data.
    assert!(c[0].sent_packets > 1000, "{:?}", c[0]);
    assert_eq!(c[0].sent_bytes, 40 * c[0].sent_packets, "{:?}", c[0]);
    assert_eq!(c[1].sent_bytes, 1500 * c[1].sent_packets, "{:?}", c[1]);
}

/// Two DCTCP flows through s0->h0 with threshold marking at K = 20, on arrival or at dequeue.
fn dctcp_k20(at: &str) -> Results {
    run(&two_flows(
        "dctcp",
        "dctcp",
        &format!("[switch.aqm]\nkind = \"threshold\"\nk_packets = 20\nat = \"{at}\""),
    ))
}

#[test]
fn marking_at_dequeue_holds_the_queue_near_k_at_full_throughput() {
    for at in ["enqueue", "dequeue"] {
        let r = dctcp_k20(at);
        let total: f64 = goodputs(&r).iter().sum();
        assert!(total >= 0.98 * GOODPUT_1G, "{at}: {:.1} Mbps", total / 1e6);
        let (_, p) = port(&r, "s0->h0");
        assert!(p.marks > 100 && p.drops_buffer == 0, "{at}: {p:?}");
        assert!((10.0..=30.0).contains(&p.mean_packets), "{at}: mean queue {:.1}", p.mean_packets);
        // Only a dequeue AQM makes a queue discipline (and a classes row per switch port).
        assert_eq!(r.classes.len(), if at == "dequeue" { 3 } else { 0 }, "{at}");
    }
    // At dequeue, a mark reaches the senders one queueing delay sooner: the queue peaks lower.
    let (enq, deq) = (dctcp_k20("enqueue"), dctcp_k20("dequeue"));
    let peak = |r: &Results| port(r, "s0->h0").1.max_packets;
    assert!(peak(&deq) <= peak(&enq), "dequeue peak {} vs enqueue {}", peak(&deq), peak(&enq));
}

#[test]
fn pi_holds_the_mean_queue_at_its_reference() {
    // Four TCP-ECN flows; PI sampled every 100 µs (about one RTT). Its integral term moves p
    // until the queue's mean error vanishes: the mean queue follows q_ref.
    for q_ref in [40.0, 80.0] {
        let mut toml = two_flows(
            "tcp_ecn",
            "tcp_ecn",
            &format!("[switch.aqm]\nkind = \"pi\"\nq_ref_packets = {q_ref}\na = 2e-4\nb = 1.9e-4\nsample_hz = 10000"),
        );
        toml = toml
            .replace("hosts = 3", "hosts = 5")
            .replace("duration_s = 0.4", "duration_s = 1.0");
        for src in [3, 4] {
            toml += &format!("[[flows]]\nsrc = {src}\ndst = 0\ncc = \"tcp_ecn\"\n");
        }
        let r = run(&toml);
        let (_, p) = port(&r, "s0->h0");
        assert!(p.marks > 100 && p.drops_buffer == 0, "{p:?}");
        assert!(
            (p.mean_packets / q_ref - 1.0).abs() < 0.15,
            "q_ref {q_ref}: mean queue {:.1} packets",
            p.mean_packets
        );
        assert!(p.utilization > 0.97, "utilisation {:.3}", p.utilization);
    }
}

#[test]
fn classes_on_a_shared_memory_switch_take_the_dynamic_threshold_per_queue() {
    // Triumph-like memory: each class queue may hold alpha × free memory, so two backlogged
    // classes of one port together hold more than one queue could (thresholds per queue).
    let shared = |classes: &str| {
        run(&two_flows("newreno", "newreno", "").replace(
            "kind = \"per_port\"\n        limit_packets = 200",
            &format!("kind = \"preset\"\n        name = \"triumph\"\n        {classes}"),
        ))
    };
    let one = shared("");
    let two = shared("[switch.classes]\n[[switch.classes.queues]]\n[[switch.classes.queues]]");
    let max_bytes = |r: &Results| port(r, "s0->h0").1.max_bytes;
    // One queue: ≤ α·B/(1 + α) ≈ 700 kB; two: 2·α·B/(1 + 2α) ≈ 1.19 MB.
    assert!(max_bytes(&one) <= 700_000, "{}", max_bytes(&one));
    assert!(max_bytes(&two) > 900_000 && max_bytes(&two) <= 1_191_490, "{}", max_bytes(&two));
    let c = &r_conserved(&two);
    assert_eq!(c.0, c.1);
}

/// (injected, delivered + dropped + in flight).
fn r_conserved(r: &Results) -> (u64, u64) {
    let c = &r.conservation;
    (c.injected, c.delivered + c.dropped + c.in_flight)
}

#[test]
fn one_class_queue_runs_exactly_as_the_fifo_fast_path_end_to_end() {
    // One class queue holding everything is a FIFO: the event-driven path gives the same
    // run as the fast path, packet for packet (every port counter, every flow), on a
    // dumbbell with drop-tail losses and on DCTCP marking, on a shared memory too.
    let base = r#"
        [sim]
        seed = 5
        duration_s = 0.05
        [topology]
        kind = "dumbbell"
        left = 3
        right = 2
        host_link = { rate_gbps = 1.0, delay_us = 10.0 }
        core_link = { rate_gbps = 1.0, delay_us = 20.0 }
        [tcp]
        cc = "CC"
        [[flows]]
        src = 0
        dst = 3
        [[flows]]
        src = 1
        dst = 4
        [[flows]]
        src = 2
        dst = 3
        bytes = 300000
        start_s = 0.01
        [switch]
        "#;
    let switches = [
        ("newreno", "buffer = { kind = \"per_port\", limit_packets = 30 }"),
        ("dctcp", "buffer = { kind = \"per_port\", limit_packets = 100 }\naqm = { kind = \"threshold\", k_packets = 10 }"),
        ("dctcp", "buffer = { kind = \"shared\", total_bytes = 100000, alpha = 1.0 }\naqm = { kind = \"threshold\", k_packets = 10, count_in_service = false }"),
    ];
    for (cc, switch) in switches {
        let fifo = base.replace("CC", cc) + switch;
        let one_class = fifo.clone() + "\nclasses = { queues = [{}] }";
        let (a, b) = (run(&fifo), run(&one_class));
        assert!(!b.classes.is_empty() && a.classes.is_empty());
        let drops: u64 = a.ports.iter().map(|p| p.drops_buffer + p.drops_pool + p.marks).sum();
        assert!(drops > 0, "{switch}: the case should drop or mark");
        assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports), "{switch}");
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows), "{switch}");
    }
}
