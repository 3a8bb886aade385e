//! Scenarios at the bounds of their fields run without overflow (these tests also run in a
//! debug build, where any overflowing time or size arithmetic panics), and conserve packets.
//! Every flow is finite, so runs of the longest duration end when their work is done.

use dcsim::{Scenario, Simulation};

const BASE: &str = r#"
[sim]
duration_s = 0.01
[topology]
kind = "star"
hosts = 4
[[flows]]
src = 1
dst = 0
bytes = 50000
[[flows]]
src = 2
dst = 0
bytes = 30000
[[queries]]
client = 0
servers = [1, 2, 3]
response_bytes = 20000
rounds = 3
persistent = false
"#;

const EIGHT_CLASSES: &str = "classes = { scheduler = \"drr\", quantum_bytes = 1099511627776, \
     classify = { by = \"packet_type\", syn = 7, ack = 0, data = 7 }, queues = [\
     { weight = 1000, limit_packets = 16777216, limit_bytes = 1099511627776, alpha = 1000000.0 }, \
     { weight = 1 }, { weight = 1 }, { weight = 1 }, { weight = 1 }, { weight = 1 }, { weight = 1 }, \
     { weight = 1000, aqm = { kind = \"pi\", a = 1.0, b = 1.0, sample_hz = 1000000000.0 } }] }";

/// Runs `BASE` with `extra` TOML lines merged into its sections (each line `section.key = v`).
fn run_with(extra: &[(&str, &str)]) {
    let mut toml = BASE.to_string();
    for (section, line) in extra {
        let header = format!("[{section}]\n");
        let key = format!("{} = ", line.split(" = ").next().unwrap_or(line));
        let Some(start) = toml.find(&header).map(|i| i + header.len()) else {
            toml = format!("[{section}]\n{line}\n{toml}");
            continue;
        };
        let end = toml[start..].find("\n[").map_or(toml.len(), |i| start + i + 1);
        match toml[start..end].lines().find(|l| l.starts_with(&key)) {
            Some(old) => {
                let i = start + toml[start..end].find(old).unwrap_or(0);
                toml.replace_range(i..i + old.len(), line);
            }
            None => toml.insert_str(start, &format!("{line}\n")),
        }
    }
    let mut s = Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    s.sim.check_invariants = true; // a violation panics, naming it
    let r = Simulation::new(&s).unwrap_or_else(|e| panic!("{e}")).run();
    let c = &r.conservation;
    assert!(c.injected > 0, "{extra:?}: nothing was sent");
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{extra:?}");
}

/// The edges users reach for: the slowest and fastest links, the shortest and longest
/// delays, one flow and ten thousand, one-packet buffers and K = 0 run with every invariant
/// checked; a zero-byte flow and a zero-length run are refused, naming the field.
#[test]
fn the_edges_users_try_run_or_are_refused_clearly() {
    let cases: &[&[(&str, &str)]] = &[
        &[("topology", "link = { rate_gbps = 0.001 }")],
        &[("topology", "link = { rate_gbps = 800.0 }")],
        &[("topology", "link = { delay_us = 0.001 }")],
        &[("topology", "link = { delay_us = 100000.0 }"), ("sim", "duration_s = 1.0")],
        &[("switch", "buffer = { kind = \"per_port\", limit_packets = 1 }")],
        &[
            ("switch", "aqm = { kind = \"threshold\", k_packets = 0 }"),
            ("tcp", "cc = \"dctcp\""),
        ],
    ];
    for extra in cases {
        run_with(extra);
    }
    let many: String = (0..10_000)
        .map(|i| format!("[[flows]]\nsrc = {}\ndst = 0\nbytes = 10000\n", 1 + i % 3))
        .collect();
    let mut s = Scenario::from_toml(&format!(
        "[sim]\nduration_s = 0.01\ncheck_invariants = true\n[topology]\nkind = \"star\"\nhosts = 4\n{many}"
    ))
    .unwrap();
    let r = Simulation::new(&s).unwrap().run();
    assert_eq!(r.flows.len(), 10_000);
    s.flows.truncate(1);
    assert_eq!(Simulation::new(&s).unwrap().run().flows.len(), 1);
    for (toml, field) in [
        ("[[flows]]\nsrc = 1\ndst = 0\nbytes = 0\n", "flows[0].bytes"),
        ("[sim]\nduration_s = 0.0\n[[flows]]\nsrc = 1\ndst = 0\n", "sim.duration_s"),
    ] {
        let toml = format!("[topology]\nkind = \"star\"\nhosts = 2\n{toml}");
        let error = Scenario::from_toml(&toml).and_then(|s| Simulation::new(&s).map(drop)).unwrap_err();
        assert!(error.to_string().starts_with(field), "{error}");
    }
}

/// A TOML syntax error is one line saying where (toml's own message spans two; found by the
/// fuzz pass).
#[test]
fn toml_syntax_error_is_one_line_with_its_position() {
    let error = Scenario::from_toml("[sim]\nseed = 1\n[t[opology]\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "TOML syntax at line 3, column 3: invalid table header; expected `.`, `]`"
    );
    // A non-finite number under a key that is not a plain name: the key is quoted, on one line.
    let error = Scenario::from_toml("[flows]\n\"a\\nb: c\" = nan\n").unwrap_err();
    assert_eq!(error.to_string(), "flows.\"a\\nb: c\": NaN is not a finite number");
    let error = Scenario::from_toml("[sim]\n[tcp]\n[tcp]\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "TOML syntax at line 3, column 1: invalid table header; duplicate key `tcp` in document root"
    );
}

#[test]
fn each_field_at_its_bound_runs() {
    let cases: &[&[(&str, &str)]] = &[
        &[("topology", "link = { delay_us = 1000000.0 }")],
        &[("topology", "link = { rate_gbps = 0.000001 }")],
        &[("topology", "link = { rate_gbps = 10000.0, framing_bytes = 10000 }")],
        &[
            ("tcp", "rto_initial_ms = 3600000.0"),
            ("tcp", "rto_min_ms = 3600000.0"),
            ("tcp", "rto_max_ms = 3600000.0"),
        ],
        &[("tcp", "timer_tick_ms = 3600000.0")],
        &[
            ("tcp", "delayed_ack_timeout_ms = 3600000.0"),
            ("tcp", "delayed_ack_segments = 65536"),
        ],
        &[
            ("tcp", "rcv_buffer_bytes = 1073741824"),
            ("tcp", "init_cwnd_segments = 65536"),
            ("tcp", "mss = 65000"),
        ],
        &[("tcp", "mss = 64"), ("tcp", "header_bytes = 10000")],
        &[("tcp", "mtu_bytes = 65040")],
        &[
            ("tcp", "syn_retries = 127"),
            ("tcp", "synack_retries = 127"),
            ("tcp", "ect_on_syn = true"),
            ("tcp", "ect_on_ack = false"),
        ],
        &[
            ("tcp", "rcv_autotune = true"),
            ("tcp", "rcv_autotune_initial_bytes = 1460"),
            ("tcp", "rcv_autotune_max_bytes = 1073741824"),
        ],
        &[
            ("tcp", "rcv_autotune = true"),
            ("tcp", "rcv_autotune_initial_bytes = 1073741824"),
            ("tcp", "rcv_autotune_max_bytes = 1073741824"),
        ],
        &[("tcp", "cc = \"cubic\""), ("tcp", "cubic = { c = 100.0, beta = 1.0, ecn = true }")],
        &[("host", "tx_jitter_us = 1000000.0"), ("host", "clock_ppm = 10000.0")],
        &[
            ("host", "rx_interrupt_interval_us = 10000.0"),
            ("host", "offload_burst_segments = 65536"),
        ],
        &[("sim", "duration_s = 1000000.0"), ("measure", "queue_sample_us = 1000000000000.0")],
        &[
            ("ictcp", "hosts = [0]"),
            ("ictcp", "initial_subslot_us = 3600000000.0"),
            ("ictcp", "timestamp_tick_ns = 3600000000000.0"),
        ],
        &[
            ("ictcp", "hosts = [0]"),
            ("ictcp", "rtt_limit_ms = 3600000.0"),
            ("ictcp", "control_interval_rtts = 65536"),
        ],
        &[(
            "switch",
            "buffer = { kind = \"per_port\", limit_bytes = 1099511627776, limit_packets = 16777216 }",
        )],
        &[(
            "switch",
            "buffer = { kind = \"shared\", total_bytes = 1099511627776, alpha = 1000000.0 }",
        )],
        &[(
            "switch",
            "aqm = { kind = \"red\", min_th = 0.0, max_th = 16777216.0, weight_log2 = 30 }",
        )],
        &[(
            "switch",
            "aqm = { kind = \"pi\", a = 1.0, b = 1.0, q_ref_packets = 16777216.0, sample_hz = 1000000000.0 }",
        )],
        &[(
            "switch",
            "aqm = { kind = \"pi\", a = 1.0, b = 0.0, q_ref_packets = 0.0, sample_hz = 0.001 }",
        )],
        &[("switch", "aqm = { kind = \"threshold\", k_packets = 16777216, at = \"dequeue\" }")],
        // Eight classes at every bound, sharing a port buffer of 2^40 B dynamically.
        &[
            (
                "switch",
                "buffer = { kind = \"per_port\", limit_bytes = 1099511627776, limit_packets = 16777216 }",
            ),
            ("switch", EIGHT_CLASSES),
        ],
    ];
    for extra in cases {
        run_with(extra);
    }
}

#[test]
fn udp_sources_at_their_bounds_run() {
    // The fastest source with the largest packets (its 1 Gbps NIC drops most of them), the
    // slowest with the smallest, echoed, and one that starts at the latest time allowed.
    let udp = "[[udp]]\nsrc = 1\ndst = 0\nrate_gbps = 10000.0\npacket_bytes = 65535\nstop_s = 0.01\nclass = 7\n\
               [[udp]]\nsrc = 2\ndst = 0\nrate_gbps = 0.000001\npacket_bytes = 29\necho = true\n\
               [[udp]]\nsrc = 3\ndst = 0\nrate_gbps = 1.0\nstart_s = 1000000.0\n";
    let s = Scenario::from_toml(&format!("{BASE}{udp}")).unwrap_or_else(|e| panic!("{e}"));
    let r = Simulation::new(&s).unwrap_or_else(|e| panic!("{e}")).run();
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
    assert_eq!(r.udp[0].sent_packets, 190_738); // packets 0..=190,737 leave before 0.01 s · 10^13 bit/s / 524,280 bit = 190,737.8
                                                // Its NIC queue holds 1,000 of them and its 1 Gbps link sends about 19: the rest are dropped.
    assert!(r.udp[0].dropped_packets > 189_000, "{:?}", r.udp[0]);
    assert!(r.udp[1].sent_packets == 1 && r.udp[2].sent_packets == 0);
}

#[test]
fn poisson_queries_with_the_longest_mean_interval_run() {
    let toml = BASE.replace(
        "persistent = false",
        "persistent = false\narrival = { kind = \"poisson\", mean_interval_ms = 3600000.0 }",
    );
    let toml = toml.replace("duration_s = 0.01", "duration_s = 1000000.0\n[measure]\nqueue_sample_us = 0");
    let s = Scenario::from_toml(&toml).expect("valid");
    let r = Simulation::new(&s).expect("builds").run();
    assert_eq!(r.queries.len(), 3);
}
