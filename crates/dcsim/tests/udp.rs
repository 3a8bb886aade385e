//! Constant-bit-rate UDP sources and echo probes on small stars: the rate holds whatever the
//! loss, every packet is accounted for, an echo's round trip is the path's by hand, and
//! ICTCP counts UDP in its interface's traffic.

use dcsim::Scenario;

mod common;
use common::run;

/// A star of `hosts` at 10 Gbps, 5 µs links, no transmit jitter, and the given tables.
fn star(hosts: u32, rest: &str) -> String {
    format!(
        r#"
        [sim]
        duration_s = 0.02
        warmup_s = 0.005
        [topology]
        kind = "star"
        hosts = {hosts}
        link = {{ rate_gbps = 10.0, delay_us = 5.0 }}
        [host]
        tx_jitter_us = 0.0
        clock_ppm = 0.0
        [measure]
        flow_sample_us = 1000.0
        {rest}
"#
    )
}

#[test]
fn a_udp_source_keeps_its_rate_within_a_thousandth_whatever_the_loss() {
    // Alone at 3 Gbps: nothing lost, sent and received at 3 Gbps.
    let alone = run(&star(2, "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 3.0"));
    let u = &alone.udp[0];
    assert!((u.send_rate_bps / 3e9 - 1.0).abs() < 1e-3, "{u:?}");
    assert!((u.receive_rate_bps / 3e9 - 1.0).abs() < 1e-3, "{u:?}");
    assert_eq!(u.dropped_packets, 0);
    // Two at 6 Gbps into one 10 Gbps port, from 0 to 15 ms: about a sixth is lost, and by
    // the end of the run (20 ms) every packet was received or dropped. Each source still
    // sent its 6 Gbps: packets 0..=7,499.
    let two = run(&star(
        3,
        "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 6.0\nstop_s = 0.015\n\
         [[udp]]\nsrc = 2\ndst = 0\nrate_gbps = 6.0\nstop_s = 0.015",
    ));
    // Without transmit jitter the two sources stay in phase and one of them always arrives
    // second at a full queue, so the loss may fall on one source only.
    assert!(two.udp.iter().map(|u| u.dropped_packets).sum::<u64>() > 1_000);
    let mut received = 0;
    for u in &two.udp {
        assert_eq!(u.sent_packets, 7_500, "{u:?}");
        assert_eq!(u.sent_packets, u.received_packets + u.dropped_packets, "{u:?}");
        received += u.received_packets;
    }
    // What got through is what the port sends at 10 Gbps (1538-B frames) while it is busy:
    // from the first arrival until its queue drains after 15 ms.
    let busy_s = 1538.0 * 8.0 / 10e9 * received as f64;
    assert!((busy_s - 0.015).abs() < 0.0015, "{busy_s} s of sending for 15 ms of overload");
    let c = &two.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    assert!(c.dropped > 0);
}

#[test]
fn the_packets_of_a_source_leave_exactly_every_packet_time() {
    // 1500 B at 1 Gbps: one packet every 12 µs from 1 ms to 2 ms, so 84 packets (the one at
    // exactly 2 ms is not sent), and none before 1 ms.
    let r = run(&star(
        2,
        "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 1.0\nstart_s = 0.001\nstop_s = 0.002",
    ));
    assert_eq!(r.udp[0].sent_packets, 84);
    assert_eq!(r.udp[0].received_packets, 84);
}

#[test]
fn an_echo_measures_the_paths_round_trip_and_the_queue_it_meets() {
    // An 84-B probe (a ping) every 100 µs on an idle star: 4 links of 5 µs and 4
    // serialisations of 84 + 38 B at 10 Gbps (97.6 ns each) = 20.3904 µs.
    let idle = run(&star(
        2,
        "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 0.00672\npacket_bytes = 84\necho = true",
    ));
    let p = &idle.probes;
    assert_eq!(p.rtt_s.len() as u64, idle.udp[0].replies);
    assert!(p.rtt_s.len() >= 199, "{}", p.rtt_s.len());
    for &rtt in &p.rtt_s {
        assert!((rtt - 20.3904e-6).abs() < 1e-12, "{rtt}");
    }
    // Behind two 6 Gbps UDP sources h2, h3 → h0 the 200-packet port to h0 is always full: a
    // probe either finds no room and is dropped, or gets in as a slot frees and waits for the
    // packets ahead, 1.2304 µs each: nearly 200 of them (a few more may have left before the
    // next 1500-B packet took their place).
    let busy = run(&star(
        4,
        "[switch.buffer]\nkind = \"per_port\"\nlimit_packets = 200\n\
         [[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 0.00672\npacket_bytes = 84\necho = true\n\
         [[udp]]\nsrc = 2\ndst = 0\nrate_gbps = 6.0\n[[udp]]\nsrc = 3\ndst = 0\nrate_gbps = 6.0",
    ));
    // The port is full from about 1.1 ms (the two sources' excess, 2.25 Gbps, fills 300 kB).
    let p = &busy.probes;
    let waits: Vec<f64> = p
        .t_s
        .iter()
        .zip(&p.rtt_s)
        .filter(|(t, _)| **t > 0.002)
        .map(|(_, r)| r - 20.3904e-6)
        .collect();
    assert!(waits.len() > 100, "{}", waits.len());
    for w in waits {
        assert!(w > 190.0 * 1.2304e-6 && w < 200.0 * 1.2304e-6, "{w}");
    }
    assert!(busy.udp[0].dropped_packets > 0);
}

#[test]
fn ictcp_counts_udp_traffic_in_its_interfaces_bandwidth() {
    // ICTCP on h0 with only a 2 Gbps UDP source into it: BW_T, the interface's incoming
    // traffic, is 2 Gbps of IP packets in every sub-slot once the source runs.
    let r = run(&star(2, "[ictcp]\nhosts = [0]\n[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 2.0"));
    // Each sample counts whole packets in a sub-slot: within one 1500-B packet of the rate.
    let s = &r.ictcp_samples;
    let mut n = 0;
    let mut sum = 0.0;
    for i in (0..s.t_s.len()).filter(|&i| s.t_s[i] > 0.005) {
        let packet_bps = 1500.0 * 8.0 / s.subslot_s[i];
        assert!(
            (s.bw_t_bps[i] - 2e9).abs() <= packet_bps * 1.001,
            "{} ({packet_bps})",
            s.bw_t_bps[i]
        );
        sum += s.bw_t_bps[i];
        n += 1;
    }
    assert!(
        n >= 10 && (sum / n as f64 / 2e9 - 1.0).abs() < 0.01,
        "{n} samples, mean {}",
        sum / n as f64
    );
}

#[test]
fn udp_mistakes_are_refused_naming_the_field() {
    for (rest, field) in [
        ("[[udp]]\nsrc = 1\ndst = 1\nrate_gbps = 1.0", "udp[0].dst"),
        ("[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 0.0", "udp[0].rate_gbps"),
        (
            "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 1.0\npacket_bytes = 20",
            "udp[0].packet_bytes",
        ),
        (
            "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 1.0\nstart_s = 0.5\nstop_s = 0.1",
            "udp[0].stop_s",
        ),
        ("[[udp]]\nsrc = 7\ndst = 0\nrate_gbps = 1.0", "udp[0].src"),
    ] {
        let e = Scenario::from_toml(&star(2, rest)).unwrap_err();
        assert!(e.to_string().contains(field), "{field}: {e}");
    }
}

#[test]
fn a_flows_ideal_completion_time_leaves_the_udp_sources_out() {
    // The idle network that replays a flow alone has no UDP either: a 1 MB flow's ideal time
    // is the same with and without a 5 Gbps source beside it.
    let flow = "[[flows]]\nsrc = 2\ndst = 0\nbytes = 1000000\n";
    let ideal = |extra: &str| {
        let toml = star(3, &format!("{flow}{extra}")).replace("flow_sample_us = 1000.0", "ideal_fct = true");
        run(&toml).flows[0].clone()
    };
    let (alone, beside) = (ideal(""), ideal("[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 5.0\n"));
    assert!(alone.ideal_fct_s > 0.0);
    assert_eq!(alone.ideal_fct_s, beside.ideal_fct_s);
    assert!(beside.fct_s > beside.ideal_fct_s);
}
